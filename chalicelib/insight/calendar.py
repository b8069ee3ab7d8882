"""The Federal Reserve business-day calendar, the one ACH deposits and debits settle on.

Fed rule: a holiday on a Sunday is observed the Monday after; a holiday on a Saturday is
not moved (the Fed is open the Friday before). Weekends are never business days. The
holiday list is computed, not looked up, so it needs no data file and is valid for any year.
"""

from __future__ import annotations

from datetime import date, timedelta
from functools import lru_cache

_MONDAY, _THURSDAY, _SATURDAY, _SUNDAY = 0, 3, 5, 6
#: Juneteenth is a Fed holiday from 2022 on (the Fed stayed open on 18 June 2021).
_JUNETEENTH_FROM = 2022


def nth_weekday(year: int, month: int, weekday: int, n: int) -> date:
    """The ``n``-th ``weekday`` (0 = Monday) of a month; ``n = -1`` is the last one."""
    if n > 0:
        first = date(year, month, 1)
        return first + timedelta(days=(weekday - first.weekday()) % 7 + 7 * (n - 1))
    last = last_day_of_month(year, month)
    return last - timedelta(days=(last.weekday() - weekday) % 7)


def last_day_of_month(year: int, month: int) -> date:
    following = date(year + month // 12, month % 12 + 1, 1)
    return following - timedelta(days=1)


@lru_cache(maxsize=256)
def fed_holidays(year: int) -> frozenset[date]:
    """The days Federal Reserve Banks are closed in ``year`` (weekends aside)."""
    fixed = [date(year, 1, 1), date(year, 7, 4), date(year, 11, 11), date(year, 12, 25)]
    if year >= _JUNETEENTH_FROM:
        fixed.append(date(year, 6, 19))
    floating = [
        nth_weekday(year, 1, _MONDAY, 3),  # Martin Luther King Jr. Day
        nth_weekday(year, 2, _MONDAY, 3),  # Washington's Birthday
        nth_weekday(year, 5, _MONDAY, -1),  # Memorial Day
        nth_weekday(year, 9, _MONDAY, 1),  # Labor Day
        nth_weekday(year, 10, _MONDAY, 2),  # Columbus Day
        nth_weekday(year, 11, _THURSDAY, 4),  # Thanksgiving
    ]
    observed = {d + timedelta(days=1) if d.weekday() == _SUNDAY else d for d in fixed}
    return frozenset(d for d in observed | set(floating) if d.weekday() < _SATURDAY)


def is_business_day(day: date) -> bool:
    return day.weekday() < _SATURDAY and day not in fed_holidays(day.year)


def previous_business_day(day: date) -> date:
    """``day`` itself when it is a business day, else the latest business day before it."""
    while not is_business_day(day):
        day -= timedelta(days=1)
    return day


def next_business_day(day: date) -> date:
    """``day`` itself when it is a business day, else the earliest business day after it."""
    while not is_business_day(day):
        day += timedelta(days=1)
    return day


def add_business_days(day: date, count: int) -> date:
    """Move ``count`` business days from ``day`` (negative moves back); 0 returns ``day``."""
    step = timedelta(days=1 if count >= 0 else -1)
    remaining = abs(count)
    while remaining:
        day += step
        if is_business_day(day):
            remaining -= 1
    return day
