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

**Rows of the previous system** carry ``prediction_date``, ``detection_used``, ``next_date``,
``source``, ``frequency``, ``loan_id``, ``created_date`` and the three predictions; the user
comes from the key. They read with the flags unknown (None), so the endpoint never serves one
(its flags are not the current ones): it computes and overwrites it. Missing, ``frequency``
reads as ``NONE``, ``created_date`` as midnight of ``prediction_date``, the others as None. A
row whose ``prediction_date`` is missing or no day, or with any attribute that cannot be read,
is a miss: it reads as no row (logged and counted, :mod:`chalicelib.data.tolerant`) and the
next computation overwrites it, whatever its ``prediction_date`` holds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from decimal import Decimal
from typing import Any

from chalicelib.aws.errors import translated
from chalicelib.data.tolerant import (
    Reading,
    RowReader,
    parse_day_text,
    put_unless_newer,
    read_or_none,
)
from chalicelib.data.ttl import iso_timestamp
from chalicelib.errors import ValidationError
from chalicelib.insight.data import keys, tables
from chalicelib.insight.data.ttl import payday_ttl
from chalicelib.insight.data.values import from_dynamo, to_dynamo

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
    #: The date the chosen algorithm gave when it fell on a closed day (``next_date`` is the
    #: business day before it); None when it was a business day or not recorded.
    moved_from: date | None = None


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
        "moved_from": record.moved_from.isoformat() if record.moved_from else None,
        "ttl": payday_ttl(record.created_date),
    }


def from_item(row: Mapping[str, Any]) -> PaydayRecord:
    """The cached prediction; :class:`UnreadableRowError` when it cannot be read (a miss)."""
    reader = RowReader(keys.PAYDAY, row)
    day = reader.day("prediction_date", None)
    if day is None and not reader.has("prediction_date"):
        reader.problem("prediction_date", "missing")
    created = reader.timestamp("created_date", None)
    record = PaydayRecord(
        user_id=reader.text("user_id", "") or reader.key_part("PAYDAY") or "",
        prediction_date=day or date.min,
        detection_used=reader.text("detection_used", ""),
        next_date=reader.day("next_date", None),
        source=reader.text("source", None),
        frequency=reader.text("frequency", "NONE"),
        loan_id=reader.text("loan_id", None),
        created_date=created or datetime.combine(day or date.min, time(), UTC),
        fm=_prediction(reader, "fm"),
        v2=_prediction(reader, "v2"),
        pave=_prediction(reader, "pave"),
        confidence=_confidence(reader),
        reason=reader.text("reason", None),
        collection=_prediction(reader, "collection"),
        errors=_prediction(reader, "errors"),
        used_v2=reader.flag("used_v2", None),
        used_pave_v2=reader.flag("used_pave_v2", None),
        moved_from=reader.day("moved_from", None),
    )
    reader.require_readable()
    return record


def _prediction(reader: RowReader, name: str) -> Mapping[str, Any] | None:
    return dict(from_dynamo(reader.mapping(name))) if reader.has(name) else None


def _confidence(reader: RowReader) -> float | None:
    value = reader.row.get("confidence")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
        reader.problem("confidence", "not a number")
        return None
    return float(value)


def put_payday(record: PaydayRecord) -> bool:
    """Overwrite the user's cached prediction; ``False`` when a later day's row is already there.

    A row whose ``prediction_date`` is missing or no day is overwritten whatever it holds.
    """
    return put_unless_newer(tables.pave(), payday_item(record), "prediction_date", _is_day)


def _is_day(value: object) -> bool:
    """A ``YYYY-MM-DD`` day, which compares with the days this service writes."""
    return isinstance(value, str) and len(value) == 10 and parse_day_text(value) is not None


def get_payday(user_id: str) -> PaydayRecord | None:
    """The user's cached prediction of whatever day (strongly consistent GetItem); an
    unreadable row reads as none (reported: a miss, which the next computation overwrites)."""
    with translated():
        row = tables.pave().get_item(Key=keys.payday_key(user_id), ConsistentRead=True).get("Item")
    return read_or_none(from_item, row, Reading.MISS)


def cached_payday(user_id: str, today: date) -> PaydayRecord | None:
    """The prediction to serve today: the row only if it was computed on ``today`` (UTC)."""
    record = get_payday(user_id)
    return record if record is not None and record.prediction_date == today else None
