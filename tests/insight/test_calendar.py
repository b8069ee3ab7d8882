"""The Fed business-day calendar: the holiday rules that decide when ACH money lands."""

from __future__ import annotations

from datetime import date

import pytest

from chalicelib.insight.calendar import (
    add_business_days,
    fed_holidays,
    is_business_day,
    next_business_day,
    previous_business_day,
)


def test_2026_holidays_are_the_feds_published_list() -> None:
    assert sorted(fed_holidays(2026)) == [
        date(2026, 1, 1),
        date(2026, 1, 19),
        date(2026, 2, 16),
        date(2026, 5, 25),
        date(2026, 6, 19),
        date(2026, 9, 7),  # July 4 2026 is a Saturday: not observed on a weekday
        date(2026, 10, 12),
        date(2026, 11, 11),
        date(2026, 11, 26),
        date(2026, 12, 25),
    ]


def test_a_saturday_holiday_leaves_the_friday_before_open() -> None:
    # GIVEN Independence Day 2026 on a Saturday
    assert date(2026, 7, 4).weekday() == 5
    # THEN the Friday before is a business day, and a Saturday payday rolls back to it
    assert is_business_day(date(2026, 7, 3))
    assert previous_business_day(date(2026, 7, 4)) == date(2026, 7, 3)


def test_a_sunday_holiday_closes_the_monday_after() -> None:
    # GIVEN Juneteenth 2022 and Christmas 2022 on Sundays
    assert date(2022, 12, 25).weekday() == 6
    assert not is_business_day(date(2022, 6, 20))
    assert not is_business_day(date(2022, 12, 26))
    assert next_business_day(date(2022, 12, 24)) == date(2022, 12, 27)


def test_juneteenth_starts_in_2022() -> None:
    assert date(2021, 6, 18) not in fed_holidays(2021)
    assert date(2021, 6, 19) not in fed_holidays(2021)
    assert date(2023, 6, 19) in fed_holidays(2023)


@pytest.mark.parametrize(
    ("day", "count", "expected"),
    [
        (date(2026, 11, 25), 1, date(2026, 11, 27)),  # over Thanksgiving
        (date(2026, 11, 27), -1, date(2026, 11, 25)),
        (date(2026, 12, 31), 1, date(2027, 1, 4)),  # over New Year and a weekend
        (date(2026, 12, 2), 0, date(2026, 12, 2)),
    ],
)
def test_add_business_days_skips_weekends_and_holidays(day: date, count: int, expected: date) -> None:
    assert add_business_days(day, count) == expected


def test_a_business_day_rolls_to_itself() -> None:
    assert previous_business_day(date(2026, 12, 1)) == date(2026, 12, 1)
    assert next_business_day(date(2026, 12, 1)) == date(2026, 12, 1)
