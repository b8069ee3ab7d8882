"""``payday`` rows: the same-day payday cache (``PAYDAY#<user_id>`` / ``PREDICTION``).

One row per user, overwritten on each recompute. ``prediction_date`` (the UTC day it was
computed on) is the validity key: :func:`cached_payday` serves a row only while it equals
today. The 2-day ``ttl`` is garbage collection only. ``pave``, ``fm`` and ``v2`` hold each
algorithm's full prediction as a map (``pave`` and ``v2`` are null when the chain did not
run them); their shape belongs to the payday chain, this module stores it faithfully.
The chosen answer's ``confidence``, ``reason`` and ``collection`` dates, the algorithms'
``errors`` and the flags it was computed with (``used_v2``, ``used_pave_v2``) are kept too,
so a cached answer is served, and captured, exactly as it was computed. Rows without them
(written before they were kept) read as None.

A write never replaces a row of a later ``prediction_date`` (a request that computed
yesterday and writes after midnight loses to today's row).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from chalicelib.aws.errors import translated
from chalicelib.data.ttl import iso_timestamp
from chalicelib.errors import ConditionFailedError, ValidationError
from chalicelib.insight.data import keys, tables
from chalicelib.insight.data.ttl import payday_ttl
from chalicelib.insight.data.values import from_dynamo, optional_day, parse_day, parse_timestamp, to_dynamo

PAVE_PAYDAY_CALCULATION = "PAVE_PAYDAY_CALCULATION"
FLOATME_V2_PAYDAY_CALCULATION = "FLOATME_V2_PAYDAY_CALCULATION"
FLOATME_PAYDAY_CALCULATION = "FLOATME_PAYDAY_CALCULATION"
#: The algorithms of the payday chain, as ``detection_used`` names the winner.
DETECTIONS = (PAVE_PAYDAY_CALCULATION, FLOATME_V2_PAYDAY_CALCULATION, FLOATME_PAYDAY_CALCULATION)


@dataclass(frozen=True)
class PaydayRecord:
    user_id: str
    #: The UTC day the prediction was computed on; the row is served only on that day.
    prediction_date: date
    detection_used: str
    next_date: date | None
    #: The income source's name (the payer), when the winner names one.
    source: str | None
    #: The cadence (``WEEKLY``, ``BIWEEKLY``, ``SEMI_MONTHLY``, ``MONTHLY``, ``NONE`` ...).
    frequency: str
    loan_id: str | None
    created_date: datetime
    fm: Mapping[str, Any] | None = None
    v2: Mapping[str, Any] | None = None
    pave: Mapping[str, Any] | None = None
    #: The chosen answer's confidence (0-1) and, without a date, why.
    confidence: float | None = None
    reason: str | None = None
    #: The chosen answer's collection dates (``instant``, ``standard``, ``extended``: ISO days or None).
    collection: Mapping[str, Any] | None = None
    #: Each algorithm's error (type and message) by its detection name.
    errors: Mapping[str, Any] | None = None
    #: The chain's flags when it was computed (None: not recorded).
    used_v2: bool | None = None
    used_pave_v2: bool | None = None


def payday_item(record: PaydayRecord) -> dict[str, Any]:
    """The row for ``record`` (pure)."""
    if record.detection_used not in DETECTIONS:
        raise ValidationError(f"unknown payday detection {record.detection_used!r}")
    return {
        **keys.payday_key(record.user_id),
        "type": keys.PAYDAY,
        "user_id": record.user_id,
        "prediction_date": record.prediction_date.isoformat(),
        "detection_used": record.detection_used,
        "next_date": record.next_date.isoformat() if record.next_date else None,
        "source": record.source,
        "frequency": record.frequency,
        "loan_id": record.loan_id,
        "created_date": iso_timestamp(record.created_date),
        "pave": to_dynamo(record.pave),
        "fm": to_dynamo(record.fm),
        "v2": to_dynamo(record.v2),
        "confidence": to_dynamo(record.confidence),
        "reason": record.reason,
        "collection": to_dynamo(record.collection),
        "errors": to_dynamo(record.errors),
        "used_v2": record.used_v2,
        "used_pave_v2": record.used_pave_v2,
        "ttl": payday_ttl(record.created_date),
    }


def from_item(row: Mapping[str, Any]) -> PaydayRecord:
    return PaydayRecord(
        user_id=str(row["user_id"]),
        prediction_date=parse_day(row["prediction_date"]),
        detection_used=str(row["detection_used"]),
        next_date=optional_day(row.get("next_date")),
        source=row.get("source"),
        frequency=str(row["frequency"]),
        loan_id=row.get("loan_id"),
        created_date=parse_timestamp(row["created_date"]),
        fm=_prediction(row.get("fm")),
        v2=_prediction(row.get("v2")),
        pave=_prediction(row.get("pave")),
        confidence=_optional_float(row.get("confidence")),
        reason=row.get("reason"),
        collection=_prediction(row.get("collection")),
        errors=_prediction(row.get("errors")),
        used_v2=_optional_bool(row.get("used_v2")),
        used_pave_v2=_optional_bool(row.get("used_pave_v2")),
    )


def _prediction(value: Any) -> Mapping[str, Any] | None:
    return None if value is None else dict(from_dynamo(value))


def _optional_float(value: Any) -> float | None:
    return None if value is None else float(value)


def _optional_bool(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def put_payday(record: PaydayRecord) -> bool:
    """Overwrite the user's cached prediction; ``False`` when a later day's row is already there."""
    try:
        with translated():
            tables.pave().put_item(
                Item=payday_item(record),
                ConditionExpression="attribute_not_exists(PK) OR prediction_date <= :day",
                ExpressionAttributeValues={":day": record.prediction_date.isoformat()},
            )
    except ConditionFailedError:
        return False
    return True


def get_payday(user_id: str) -> PaydayRecord | None:
    """The user's cached prediction of whatever day (strongly consistent GetItem)."""
    with translated():
        row = tables.pave().get_item(Key=keys.payday_key(user_id), ConsistentRead=True).get("Item")
    return from_item(row) if row else None


def cached_payday(user_id: str, today: date) -> PaydayRecord | None:
    """The prediction to serve today: the row only if it was computed on ``today`` (UTC)."""
    record = get_payday(user_id)
    return record if record is not None and record.prediction_date == today else None
