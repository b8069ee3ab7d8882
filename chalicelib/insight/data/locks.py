"""``locks`` rows: the layout of cirello.io/dynamolock, so our lockers and other services' share it.

The table (owned elsewhere) has one string partition key, ``key``, no sort key and no TTL.
A lock row, as dynamolock (v2) writes and reads it:

=======================  ====  ========================================================================
attribute                type  meaning
=======================  ====  ========================================================================
``key``                  S     the lock's name; ours is ``balance-alert:user_id:<user_id>``
``ownerName``            S     the holder's name (dynamolock: random per client unless configured)
``leaseDuration``        S     the lease as Go duration text (``"1m0s"`` for 60 s)
``recordVersionNumber``  S     ``"<unix nanoseconds>:<random>"``, replaced on every acquire and heartbeat;
                               acquire-after-expiry, heartbeat and release are conditioned on it
``data``                 B     optional payload
``isReleased``           S     ``"1"`` once released without deleting the row (a free lock)
(any other)                    additional attributes of the acquirer (ours: the fencing token ``fence``)
=======================  ====  ========================================================================

No absolute time is stored: a waiter takes an expired lock only after seeing the same
``recordVersionNumber`` for a whole ``leaseDuration``. This module reads and describes rows;
acquiring, heartbeating and releasing are the locker's (conditional writes on the attributes
above).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from chalicelib.aws.errors import translated
from chalicelib.errors import ValidationError
from chalicelib.insight.data import tables
from chalicelib.insight.data.keys import balance_alert_lock_key

KEY = "key"
OWNER_NAME = "ownerName"
LEASE_DURATION = "leaseDuration"
RECORD_VERSION_NUMBER = "recordVersionNumber"
DATA = "data"
IS_RELEASED = "isReleased"
#: The value of ``isReleased`` on a released row.
RELEASED = "1"
#: Our additional attribute: a counter raised on every acquisition (a fencing token).
FENCE = "fence"
_LAYOUT = {KEY, OWNER_NAME, LEASE_DURATION, RECORD_VERSION_NUMBER, DATA, IS_RELEASED}

__all__ = ["LockRecord", "balance_alert_lock_key", "from_item", "get_lock", "go_duration", "parse_go_duration"]


@dataclass(frozen=True)
class LockRecord:
    key: str
    owner_name: str
    lease_duration: timedelta
    record_version_number: str
    is_released: bool
    data: bytes | None = None
    additional: Mapping[str, Any] = field(default_factory=dict)


def from_item(row: Mapping[str, Any]) -> LockRecord:
    data = row.get(DATA)
    return LockRecord(
        key=str(row[KEY]),
        owner_name=str(row.get(OWNER_NAME, "")),
        lease_duration=parse_go_duration(str(row.get(LEASE_DURATION) or "0s")),
        record_version_number=str(row.get(RECORD_VERSION_NUMBER, "")),
        is_released=IS_RELEASED in row,  # dynamolock tests presence, not the value
        data=bytes(data.value) if data is not None else None,
        additional={k: v for k, v in row.items() if k not in _LAYOUT},
    )


def get_lock(key: str) -> LockRecord | None:
    """The lock row as stored (strongly consistent, as dynamolock reads it)."""
    with translated():
        row = tables.locks().get_item(Key={KEY: key}, ConsistentRead=True).get("Item")
    return from_item(row) if row else None


_UNITS = {
    "h": 3_600_000_000_000,
    "m": 60_000_000_000,
    "s": 1_000_000_000,
    "ms": 1_000_000,
    "us": 1_000,
    "µs": 1_000,
    "ns": 1,
}
_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")


def parse_go_duration(text: str) -> timedelta:
    """Go's ``time.ParseDuration`` for the non-negative durations dynamolock writes."""
    if text == "0":
        return timedelta(0)
    position, nanoseconds = 0, 0.0
    for match in _PART.finditer(text):
        if match.start() != position:
            break
        nanoseconds += float(match.group(1)) * _UNITS[match.group(2)]
        position = match.end()
    if position != len(text) or not text:
        raise ValidationError(f"not a Go duration: {text!r}")
    return timedelta(microseconds=round(nanoseconds / 1000))


def go_duration(duration: timedelta) -> str:
    """Go's ``Duration.String`` (whole microseconds): 60 s is ``"1m0s"``, 1.5 s ``"1.5s"``."""
    micros = round(duration.total_seconds() * 1_000_000)
    if micros < 0:
        raise ValidationError("a lease cannot be negative")
    if micros == 0:
        return "0s"
    if micros < 1_000:
        return f"{micros}µs"
    if micros < 1_000_000:
        return _trim(micros / 1_000) + "ms"
    hours, rest = divmod(micros, 3_600_000_000)
    minutes, rest = divmod(rest, 60_000_000)
    seconds = _trim(rest / 1_000_000) + "s"
    if hours:
        return f"{hours}h{minutes}m{seconds}"
    return f"{minutes}m{seconds}" if minutes else seconds


def _trim(value: float) -> str:
    return f"{value:.6f}".rstrip("0").rstrip(".")
