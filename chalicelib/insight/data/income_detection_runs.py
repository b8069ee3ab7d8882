"""``<stage>-incomedetection`` rows: one per income-detection run, kept 7 days.

Key ``INCOME_DETECTION#<user_id>`` / ``<run_date>`` (RFC 3339). Attributes: each method's
detected transactions as ``method_<name>_results`` (``method_a_results`` ... ``method_ml_results``),
``ml_enabled``, ``ml_results_used``, ``ml_prediction_id``, ``ml_predictions``,
``ml_probabilities`` and ``run_date``. The service only writes this table (its functions may
not read it); the same run written twice is one row.

:func:`from_item` reads a row for tools and tests, the previous system's included: the user
from the partition key, ``run_date`` from the sort key when not an attribute, every
``method_<name>_results`` attribute present, and what is missing as false, None or empty.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from chalicelib.aws.errors import translated
from chalicelib.data.tolerant import RowReader, parse_timestamp_text
from chalicelib.data.ttl import iso_timestamp
from chalicelib.errors import ConditionFailedError, ValidationError
from chalicelib.insight.data import keys, tables
from chalicelib.insight.data.ttl import income_detection_ttl
from chalicelib.insight.data.values import from_dynamo, to_dynamo

#: A method's name inside ``method_<name>_results``: a letter (``a``, ``b`` ...) or ``ml``.
METHOD_NAME = re.compile(r"^(?:[a-z]|ml)$")
_RESULTS = re.compile(r"^method_([a-z]|ml)_results$")


@dataclass(frozen=True)
class IncomeDetectionRun:
    user_id: str
    run_date: datetime
    #: Method name (``a``, ``b`` ... ``ml``) -> the transactions it detected as income.
    method_results: Mapping[str, Sequence[Mapping[str, Any]]]
    ml_enabled: bool
    ml_results_used: bool
    ml_prediction_id: str | None = None
    ml_predictions: Sequence[Any] = ()
    ml_probabilities: Sequence[float] = ()
    details: Mapping[str, Any] = field(default_factory=dict)


def results_attribute(method: str) -> str:
    if not METHOD_NAME.match(method):
        raise ValidationError(f"not an income detection method name: {method!r}")
    return f"method_{method}_results"


def income_detection_item(run: IncomeDetectionRun) -> dict[str, Any]:
    """The row for ``run`` (pure)."""
    run_date = iso_timestamp(run.run_date)
    row: dict[str, Any] = {
        **keys.income_detection_key(run.user_id, run_date),
        "type": keys.INCOME_DETECTION,
        "user_id": run.user_id,
        "run_date": run_date,
        "ml_enabled": run.ml_enabled,
        "ml_results_used": run.ml_results_used,
        "ml_prediction_id": run.ml_prediction_id,
        "ml_predictions": to_dynamo(list(run.ml_predictions)),
        "ml_probabilities": to_dynamo(list(run.ml_probabilities)),
        "ttl": income_detection_ttl(run.run_date),
    }
    row.update({results_attribute(m): to_dynamo(list(txns)) for m, txns in run.method_results.items()})
    if run.details:
        row["details"] = to_dynamo(dict(run.details))
    return row


def from_item(row: Mapping[str, Any]) -> IncomeDetectionRun:
    """A stored run (see the module docstring); :class:`UnreadableRowError` without a run date."""
    reader = RowReader(keys.INCOME_DETECTION, row)
    run_date = reader.timestamp("run_date", None) or parse_timestamp_text(row.get("SK"))
    if run_date is None:
        reader.problem("run_date", "no instant of the run")
    results = {
        match.group(1): [from_dynamo(t) for t in reader.sequence(name)]
        for name in sorted(row)
        if (match := _RESULTS.match(name))
    }
    run = IncomeDetectionRun(
        user_id=reader.text("user_id", "") or reader.key_part("INCOME_DETECTION") or "",
        run_date=run_date or datetime.min,
        method_results=results,
        ml_enabled=reader.flag("ml_enabled", False),
        ml_results_used=reader.flag("ml_results_used", False),
        ml_prediction_id=reader.text("ml_prediction_id", None),
        ml_predictions=from_dynamo(reader.sequence("ml_predictions")),
        ml_probabilities=from_dynamo(reader.sequence("ml_probabilities")),
        details=dict(from_dynamo(reader.mapping("details"))),
    )
    reader.require_readable()
    return run


def put_income_detection_run(run: IncomeDetectionRun) -> bool:
    """Record a run once; ``False`` if a run of that user at that instant is already recorded."""
    try:
        with translated():
            tables.income_detection().put_item(
                Item=income_detection_item(run), ConditionExpression="attribute_not_exists(PK)"
            )
    except ConditionFailedError:
        return False
    return True
