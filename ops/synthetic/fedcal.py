"""The Federal Reserve's published holiday closings, written out as a table.

The generators settle their synthetic ACH deposits on this table rather than on the model's
computed calendar, so a mistake in one shows up as a disagreement (a test compares them)
instead of being shared by the world and the model that predicts it.
"""

from __future__ import annotations

from datetime import date, timedelta

#: Fed closings by year: a Sunday holiday closes the Monday after; a Saturday one closes
#: nothing (2021: Juneteenth was not yet a Fed holiday; Christmas fell on a Saturday).
_CLOSED = {
    2021: "01-01 01-18 02-15 05-31 07-05 09-06 10-11 11-11 11-25",
    2022: "01-17 02-21 05-30 06-20 07-04 09-05 10-10 11-11 11-24 12-26",
    2023: "01-02 01-16 02-20 05-29 06-19 07-04 09-04 10-09 11-23 12-25",
    2024: "01-01 01-15 02-19 05-27 06-19 07-04 09-02 10-14 11-11 11-28 12-25",
    2025: "01-01 01-20 02-17 05-26 06-19 07-04 09-01 10-13 11-11 11-27 12-25",
    2026: "01-01 01-19 02-16 05-25 06-19 09-07 10-12 11-11 11-26 12-25",
    2027: "01-01 01-18 02-15 05-31 07-05 09-06 10-11 11-11 11-25",
    2028: "01-17 02-21 05-29 06-19 07-04 09-04 10-09 11-23 12-25",
    2029: "01-01 01-15 02-19 05-28 06-19 07-04 09-03 10-08 11-12 11-22 12-25",
}
FIRST_YEAR, LAST_YEAR = min(_CLOSED), max(_CLOSED)

CLOSED: frozenset[date] = frozenset(
    date.fromisoformat(f"{year}-{day}") for year, days in _CLOSED.items() for day in days.split()
)


def is_open(day: date) -> bool:
    if not FIRST_YEAR <= day.year <= LAST_YEAR:
        raise ValueError(f"{day} is outside the holiday table ({FIRST_YEAR}-{LAST_YEAR})")
    return day.weekday() < 5 and day not in CLOSED


def roll_back(day: date) -> date:
    while not is_open(day):
        day -= timedelta(days=1)
    return day


def roll_forward(day: date) -> date:
    while not is_open(day):
        day += timedelta(days=1)
    return day


def business_days_before(day: date, count: int) -> date:
    """``count`` business days before ``day`` (after, when negative)."""
    step = timedelta(days=-1 if count > 0 else 1)
    for _ in range(abs(count)):
        day += step
        while not is_open(day):
            day += step
    return day
