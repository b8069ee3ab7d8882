"""TTL rules (each entity's lifetime: ``docs/access-patterns.md#data-model``).

TTL is cleanup only: no read relies on an expiry having happened.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from chalicelib import clock

TRANSACTION_RETENTION_DAYS = 120
TRANSACTION_MIN_DAYS = 14
QA_BALANCE_TTL_DAYS = 30
WEBHOOK_INFO_TTL_DAYS = 30
REMOVE_TTL_DAYS = 30
LAYER_TTL_DAYS = 7


def utcnow() -> datetime:
    """The process clock's instant (:mod:`chalicelib.clock`)."""
    return clock.utcnow()


def epoch(moment: datetime) -> int:
    return int(moment.timestamp())


def days_from(now: datetime, days: int) -> int:
    """Epoch seconds ``days`` after ``now``."""
    return epoch(now + timedelta(days=days))


def transaction_ttl(txn_date: date, now: datetime) -> int:
    """Transaction date + 120 days, but never sooner than 14 days after the write."""
    by_date = datetime(txn_date.year, txn_date.month, txn_date.day, tzinfo=UTC) + timedelta(
        days=TRANSACTION_RETENTION_DAYS
    )
    floor = now + timedelta(days=TRANSACTION_MIN_DAYS)
    return epoch(max(by_date, floor))


def iso_timestamp(moment: datetime) -> str:
    """The timestamp format used inside keys: sortable, UTC, microseconds, no '#'."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
