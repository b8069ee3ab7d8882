"""The analytics capture client: the only writer of ``<stage>-fmdatacapture``.

The table is shared with other services' analytics; this service only writes it. Every row
lives 2 days (``ttl``) and has this shape:

* ``PK`` ``USERS#<user_id>``: rows are partitioned by user, so one user's captures are one
  Query for whoever investigates a prediction, and no event name becomes a hot partition;
* ``SK`` ``<EVENT>#<RFC3339>#<capture_id>`` for an event captured on every occurrence
  (``PAYDAY_PREDICTION``: every payday evaluation, cache hit or miss), or ``<EVENT>#<YYYY-MM-DD>``
  for an event captured once per user per day (``FM_PAYDAY_FILTERED_TXNS``,
  ``FM_PAYDAY_PREDICTED_PAYDAY``: the first capture of the day wins, later ones write nothing);
* ``type`` ``CAPTURE``, ``event``, ``service`` (``insight``), ``user_id``, ``captured_at``,
  ``payload`` (a map: floats stored exactly as decimals, dates as ISO text) and ``ttl``.

``capture_id`` defaults to a random id; pass a stable one (the request id) to make a retried
evaluation write the same row. Failures raise the data layer's typed errors: whether a failed
capture fails the caller is the caller's decision.

:func:`captured_from_item` reads a row for tools and tests (the service never reads the
table), the previous system's included: the event from the sort key's first segment and the
instant or day from its second when they are not attributes, the user from the partition key,
a missing payload as empty.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum
from typing import Any

from chalicelib.aws.errors import translated
from chalicelib.data.keys import SEP
from chalicelib.data.tolerant import RowReader, parse_day_text, parse_timestamp_text
from chalicelib.data.ttl import iso_timestamp
from chalicelib.errors import ConditionFailedError, ValidationError
from chalicelib.insight.data import keys, tables
from chalicelib.insight.data.ttl import capture_ttl
from chalicelib.insight.data.values import from_dynamo, to_dynamo

SERVICE = "insight"
#: DynamoDB's item limit is 400 KB; leave room for the keys and attribute names.
MAX_PAYLOAD_BYTES = 350_000


class CaptureEvent(StrEnum):
    PAYDAY_PREDICTION = "PAYDAY_PREDICTION"
    FM_PAYDAY_FILTERED_TXNS = "FM_PAYDAY_FILTERED_TXNS"
    FM_PAYDAY_PREDICTED_PAYDAY = "FM_PAYDAY_PREDICTED_PAYDAY"


#: Events kept once per user per day; the others on every occurrence.
DAILY_EVENTS = frozenset({CaptureEvent.FM_PAYDAY_FILTERED_TXNS, CaptureEvent.FM_PAYDAY_PREDICTED_PAYDAY})


class CaptureTooLargeError(ValidationError):
    """A payload too large for one DynamoDB item."""


@dataclass(frozen=True)
class Captured:
    """What a capture wrote (or, for a daily event already captured, would have)."""

    key: Mapping[str, str]
    written: bool


@dataclass(frozen=True)
class CapturedRow:
    """A stored capture, as :func:`captured_from_item` reads it."""

    user_id: str
    #: The event's name (a :class:`CaptureEvent` value, or another service's event).
    event: str
    #: When it was captured; None for a row that records only its day.
    captured_at: datetime | None
    #: The day of a once-a-day event's key; None for the others.
    day: date | None
    payload: Mapping[str, Any]


def captured_from_item(row: Mapping[str, Any]) -> CapturedRow:
    """A stored capture (see the module docstring); :class:`UnreadableRowError` without an event."""
    reader = RowReader(keys.CAPTURE, row)
    sk = str(row.get("SK", "")).split(SEP)
    event = reader.text("event", "") or sk[0]
    if not event:
        reader.problem("event", "no event named")
    second = sk[1] if len(sk) > 1 else None
    day = parse_day_text(second) if second and len(second) == 10 else None
    captured = CapturedRow(
        user_id=reader.text("user_id", "") or reader.key_part("USERS") or "",
        event=event,
        captured_at=reader.timestamp("captured_at", None) or (None if day else parse_timestamp_text(second)),
        day=day,
        payload=dict(from_dynamo(reader.mapping("payload"))),
    )
    reader.require_readable()
    return captured


def capture_item(
    user_id: str, event: CaptureEvent, key: Mapping[str, str], payload: Mapping[str, Any], now: datetime
) -> dict[str, Any]:
    """The row (pure)."""
    stored = to_dynamo(dict(payload))
    size = len(json.dumps(stored, default=str))
    if size > MAX_PAYLOAD_BYTES:
        raise CaptureTooLargeError(f"{event.value} payload is {size} bytes; at most {MAX_PAYLOAD_BYTES}")
    return {
        **key,
        "type": keys.CAPTURE,
        "event": event.value,
        "service": SERVICE,
        "user_id": user_id,
        "captured_at": iso_timestamp(now),
        "payload": stored,
        "ttl": capture_ttl(now),
    }


def capture(
    user_id: str,
    event: CaptureEvent,
    payload: Mapping[str, Any],
    *,
    now: datetime,
    capture_id: str | None = None,
) -> Captured:
    """Capture one occurrence of ``event`` (a daily event: use :func:`capture_daily`)."""
    if event in DAILY_EVENTS:
        raise ValidationError(f"{event.value} is captured once per day: use capture_daily")
    key = keys.capture_key(user_id, event.value, iso_timestamp(now), capture_id or uuid.uuid4().hex)
    with translated():
        tables.data_capture().put_item(Item=capture_item(user_id, event, key, payload, now))
    return Captured(key, written=True)


def capture_daily(
    user_id: str, event: CaptureEvent, day: date, payload: Mapping[str, Any], *, now: datetime
) -> Captured:
    """Capture ``event`` for ``user_id`` on ``day`` unless it was captured that day already."""
    if event not in DAILY_EVENTS:
        raise ValidationError(f"{event.value} is captured on every occurrence: use capture")
    key = keys.daily_capture_key(user_id, event.value, day)
    try:
        with translated():
            tables.data_capture().put_item(
                Item=capture_item(user_id, event, key, payload, now),
                ConditionExpression="attribute_not_exists(PK)",
            )
    except ConditionFailedError:
        return Captured(key, written=False)
    return Captured(key, written=True)


# --- the events the payday chain captures ---------------------------------------------


def capture_payday_prediction(
    user_id: str, payload: Mapping[str, Any], *, now: datetime, capture_id: str | None = None
) -> Captured:
    """Every payday evaluation, cache hit or miss: every algorithm's prediction and error,
    ``detection_used``, ``used_v2``, ``used_pave_v2``, ``from_cache``, ``loan_id``, ``prediction_date``."""
    return capture(user_id, CaptureEvent.PAYDAY_PREDICTION, payload, now=now, capture_id=capture_id)


def capture_filtered_transactions(
    user_id: str, day: date, transactions: list[Mapping[str, Any]], *, now: datetime
) -> Captured:
    """The payroll candidates FloatMe V2 selected, once per user per day."""
    payload = {"prediction_date": day, "transactions": transactions}
    return capture_daily(user_id, CaptureEvent.FM_PAYDAY_FILTERED_TXNS, day, payload, now=now)


def capture_predicted_payday(user_id: str, day: date, payload: Mapping[str, Any], *, now: datetime) -> Captured:
    """FloatMe V2's predicted payday and cadence, once per user per day."""
    return capture_daily(user_id, CaptureEvent.FM_PAYDAY_PREDICTED_PAYDAY, day, payload, now=now)
