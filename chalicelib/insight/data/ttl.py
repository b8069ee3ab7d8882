"""The insight tables' TTL rules. TTL is cleanup only: readers never rely on an expiry.

Every ``ttl`` is epoch seconds. Rows without one are kept until the service deletes them.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from chalicelib.data.ttl import days_from, epoch
from chalicelib.settings import get_settings

PAYDAY_TTL_DAYS = 2
SAVINGS_MONTH_TTL_DAYS = 365
LAST_PAGE_TTL_DAYS = 5
INCOME_DETECTION_TTL_DAYS = 7
CAPTURE_TTL_DAYS = 2


def payday_ttl(now: datetime) -> int:
    return days_from(now, PAYDAY_TTL_DAYS)


def savings_month_ttl(updated: datetime) -> int:
    return days_from(updated, SAVINGS_MONTH_TTL_DAYS)


def last_page_ttl(now: datetime) -> int:
    return days_from(now, LAST_PAGE_TTL_DAYS)


def income_detection_ttl(run_date: datetime) -> int:
    return days_from(run_date, INCOME_DETECTION_TTL_DAYS)


def capture_ttl(now: datetime) -> int:
    return days_from(now, CAPTURE_TTL_DAYS)


def expense_ttl(due_date: date) -> int:
    """A recurring or ritual expense lives ``EXPENSE_TTL_DAYS`` past its due date (midnight UTC)."""
    midnight = datetime(due_date.year, due_date.month, due_date.day, tzinfo=UTC)
    return epoch(midnight + timedelta(days=get_settings().expense_ttl_days))


def score_ttl(scored_at: datetime) -> int:
    return days_from(scored_at, get_settings().score_ttl_days)
