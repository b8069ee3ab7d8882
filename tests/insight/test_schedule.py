"""The schedule engine: calendar rules on the Fed calendar, and the fit that recovers them."""

from __future__ import annotations

import random
from datetime import date, timedelta

import pytest

from chalicelib.insight.schedule import (
    LAST_DAY,
    Cadence,
    Roll,
    Schedule,
    business_days_between,
    fit,
    fit_schedules,
    plausible_cadences,
    shift_business_days,
)

#: The posting variants a payroll deposit can take.
INCOME: dict[str, object] = {"rolls": (Roll.PREV, Roll.NEXT), "shifts": (0, 1, 2)}


def d(text: str) -> date:
    return date.fromisoformat(text)


# --- calendar rules on the Fed calendar -------------------------------------------------


def test_the_15th_on_a_saturday_pays_friday_the_14th_and_a_sunday_month_end_the_friday_before() -> None:
    # GIVEN the 15th and the last day, rolled back; November 2025: the 15th is a Saturday, the
    # 30th a Sunday (and Thursday the 27th is Thanksgiving)
    semi = Schedule.semi_monthly(15, LAST_DAY)
    # THEN both post on the Fridays before
    assert semi.dates(d("2025-11-01"), d("2025-11-30")) == [d("2025-11-14"), d("2025-11-28")]
    assert Schedule.last_day().dates(d("2025-08-01"), d("2025-08-31")) == [d("2025-08-29")]


def test_a_saturday_holiday_leaves_the_friday_payday_alone() -> None:
    # GIVEN 4 July 2026 on a Saturday: the Fed is open on Friday the 3rd
    assert Schedule.weekly(4).dates(d("2026-06-29"), d("2026-07-10")) == [d("2026-07-03"), d("2026-07-10")]
    # AND a payday due on the 4th rolls back to that Friday, not to Thursday
    assert Schedule.monthly(4).dates(d("2026-07-01"), d("2026-07-31")) == [d("2026-07-03")]


def test_a_monday_holiday_rolls_back_to_friday_or_forward_to_tuesday() -> None:
    # GIVEN Labor Day, Monday 7 September 2026
    prev = Schedule.weekly(0).dates(d("2026-09-01"), d("2026-09-15"))
    after = Schedule.weekly(0, roll=Roll.NEXT).dates(d("2026-09-01"), d("2026-09-15"))
    assert prev == [d("2026-09-04"), d("2026-09-14")]
    assert after == [d("2026-09-08"), d("2026-09-14")]


def test_christmas_and_new_year_on_fridays_move_the_payday_to_thursday() -> None:
    fridays = Schedule.weekly(4).dates(d("2026-12-20"), d("2027-01-09"))
    assert fridays == [d("2026-12-24"), d("2026-12-31"), d("2027-01-08")]


def test_biweekly_pays_three_times_in_some_months() -> None:
    assert Schedule.biweekly(d("2026-01-02")).dates(d("2026-01-01"), d("2026-01-31")) == [
        d("2026-01-02"),
        d("2026-01-16"),
        d("2026-01-30"),
    ]


def test_february_month_end_in_a_common_and_a_leap_year() -> None:
    # GIVEN 28 February 2027 is a Sunday; 29 February 2028 a Tuesday
    assert Schedule.last_business_day().dates(d("2027-02-01"), d("2027-03-01")) == [d("2027-02-26")]
    assert Schedule.last_day().dates(d("2028-02-01"), d("2028-03-01")) == [d("2028-02-29")]
    # AND a day past the month's end clamps to it
    assert Schedule.monthly(30).dates(d("2027-02-01"), d("2027-02-28")) == [d("2027-02-26")]


def test_an_early_posting_bank_counts_business_days_back_over_holidays() -> None:
    # GIVEN every other Friday from 13 November 2026, posted two business days early
    early = Schedule.biweekly(d("2026-11-13"), shift=2)
    # THEN Veterans Day (Wed 11th), Thanksgiving (Thu 26th) and Christmas (Fri 25th) push it back
    assert early.dates(d("2026-11-01"), d("2026-12-31")) == [
        d("2026-11-10"),
        d("2026-11-24"),
        d("2026-12-09"),
        d("2026-12-22"),
    ]


def test_social_security_pays_on_the_second_third_and_fourth_wednesday() -> None:
    second = Schedule.nth_weekday(2, 2).dates(d("2026-01-01"), d("2026-03-31"))
    fourth = Schedule.nth_weekday(4, 2).dates(d("2026-01-01"), d("2026-03-31"))
    assert second == [d("2026-01-14"), d("2026-02-11"), d("2026-03-11")]
    assert fourth == [d("2026-01-28"), d("2026-02-25"), d("2026-03-25")]


def test_the_first_of_the_month_on_a_weekend_or_new_year_pays_in_the_month_before() -> None:
    first = Schedule.monthly(1).dates(d("2026-01-01"), d("2026-03-31"))
    # 1 Jan 2026 (holiday) posts on 31 Dec 2025, outside the range; 1 Feb and 1 Mar are Sundays
    assert first == [d("2026-01-30"), d("2026-02-27")]


def test_an_unrolled_schedule_keeps_weekend_dates() -> None:
    assert Schedule.weekly(5, roll=Roll.NONE).dates(d("2026-01-01"), d("2026-01-12")) == [
        d("2026-01-03"),
        d("2026-01-10"),
    ]


def test_quarterly_and_annual_rules() -> None:
    assert Schedule.quarterly(1, 15).dates(d("2026-01-01"), d("2026-12-31")) == [
        d("2026-01-15"),
        d("2026-04-15"),
        d("2026-07-15"),
        d("2026-10-15"),
    ]
    assert Schedule.annually(4, 15).next_dates(d("2026-04-15"), 1) == [d("2027-04-15")]


def test_next_dates_are_strictly_after_the_day_given() -> None:
    friday = Schedule.weekly(4)
    assert friday.next_dates(d("2026-11-13"), 2) == [d("2026-11-20"), d("2026-11-27")]


def test_descriptions_say_the_rule_in_words() -> None:
    assert Schedule.last_business_day().describe() == "the last business day of the month"
    assert Schedule.semi_monthly(LAST_DAY, 15).describe() == "the 15th and the last day, or the business day before"
    text = Schedule.biweekly(d("2026-11-13"), roll=Roll.NEXT, shift=2).describe()
    assert text.startswith("every other Friday") and text.endswith("posted 2 business days early")
    assert Schedule.nth_weekday(3, 2).to_dict()["rule"] == "the third Wednesday of the month"


# --- business days --------------------------------------------------------------------------


def test_business_days_between_counts_fed_business_days() -> None:
    assert business_days_between(d("2026-11-25"), d("2026-11-27")) == 1  # over Thanksgiving
    assert business_days_between(d("2026-11-27"), d("2026-11-25")) == -1
    assert business_days_between(d("2026-11-27"), d("2026-11-27")) == 0
    assert shift_business_days(d("2026-12-31"), 1) == d("2027-01-04")
    assert shift_business_days(d("2026-11-27"), -2) == d("2026-11-24")


# --- the fit --------------------------------------------------------------------------------


def _best(days: list[date], end: date, **options: object) -> Schedule:
    fits = fit(days, end=end, **{**INCOME, **options})  # type: ignore[arg-type]
    assert fits, "nothing fitted"
    return fits[0].schedule


@pytest.mark.parametrize(
    "schedule",
    [
        Schedule.weekly(4),
        Schedule.weekly(3, shift=1),
        Schedule.biweekly(d("2026-07-31")),
        Schedule.biweekly(d("2026-07-31"), shift=2),
        Schedule.semi_monthly(15, LAST_DAY),
        Schedule.semi_monthly(1, 15),
        Schedule.semi_monthly(5, 20),
        Schedule.semi_monthly(10, 25, roll=Roll.NEXT),
        Schedule.monthly(1),
        Schedule.last_business_day(),
        Schedule.monthly(25, shift=1),
        Schedule.nth_weekday(3, 2),
        Schedule.nth_weekday(-1, 4),
    ],
    ids=lambda s: s.describe(),
)
def test_the_fit_recovers_each_payroll_schedule_from_120_days(schedule: Schedule) -> None:
    # GIVEN 120 days of deposits posted exactly on a schedule
    end = d("2026-12-18")
    days = schedule.dates(end - timedelta(days=119), end)
    # WHEN fitted
    fits = fit(days, end=end, **INCOME, limit=30)
    # THEN the best fit explains every deposit exactly
    best = fits[0]
    assert (best.f1, best.residual, best.cadence, best.expected) == (1.0, 0.0, schedule.cadence, tuple(days))
    # AND the true schedule is the best or ties with it on every day observed (an early-posting
    # Friday and an on-time Wednesday only part at a holiday); the prior picks the simpler one
    assert schedule in {f.schedule for f in fits if f.expected == best.expected}
    if not schedule.shift:
        assert best.next_dates(3) == schedule.next_dates(end, 3)


def test_a_missed_occurrence_lowers_recall_but_keeps_the_schedule() -> None:
    # GIVEN a biweekly payroll with one paycheck missing
    end = d("2026-10-20")
    days = Schedule.biweekly(d("2026-07-03")).dates(end - timedelta(days=119), end)
    missing = days.pop(4)
    # WHEN fitted
    best = fit(days, end=end, **INCOME)[0]
    # THEN it is the same schedule, with the gap reported as missed
    assert best.cadence is Cadence.BIWEEKLY and best.missed == (missing,)
    assert best.recall == pytest.approx(7 / 8) and best.precision == 1.0
    assert best.next_dates(1) == [d("2026-10-23")]


def test_an_extra_deposit_lowers_precision_only() -> None:
    end = d("2026-10-20")
    days = [*Schedule.weekly(4).dates(end - timedelta(days=90), end), d("2026-09-01")]
    best = fit(days, end=end, **INCOME)[0]
    assert best.schedule == Schedule.weekly(4) and best.unmatched == (d("2026-09-01"),)
    assert best.recall == 1.0 and best.precision < 1.0


def test_on_the_business_day_clock_a_friday_paycheck_posted_monday_is_a_day_late() -> None:
    # GIVEN every Friday for three months, the one of 11 September posted on Monday the 14th
    end = d("2026-10-20")
    days = [
        shift_business_days(day, 1) if day == d("2026-09-11") else day
        for day in Schedule.weekly(4).dates(d("2026-07-24"), end)
    ]
    schedules = [Schedule.weekly(4)]
    # WHEN scored in calendar days and in business days
    calendar = fit_schedules(days, schedules, end=end)[0]
    business = fit_schedules(days, schedules, end=end, business=True)[0]
    # THEN three calendar days is beyond the tolerance (a miss and an extra deposit); one
    # business day is a late paycheck, matched
    assert calendar.missed == (d("2026-09-11"),) and calendar.unmatched == (d("2026-09-14"),)
    assert business.missed == () and business.unmatched == () and business.matched == len(days)
    assert business.residual == pytest.approx(1 / len(days))


def test_three_deposits_tell_semi_monthly_from_biweekly() -> None:
    # GIVEN the 1st, the 15th and the 1st: 14 then 17 days apart
    semi = [d("2026-09-01"), d("2026-09-15"), d("2026-10-01")]
    assert _best(semi, d("2026-10-05")).cadence is Cadence.SEMI_MONTHLY
    # AND three Fridays 14 days apart
    biweekly = [d("2026-09-04"), d("2026-09-18"), d("2026-10-02")]
    assert _best(biweekly, d("2026-10-05")).cadence is Cadence.BIWEEKLY


def test_an_expected_date_inside_the_tolerance_of_the_end_is_pending_not_missed() -> None:
    # GIVEN a weekly Friday payroll observed up to the Saturday after a Friday with no deposit yet
    days = Schedule.weekly(4).dates(d("2026-09-01"), d("2026-10-02"))
    best = fit(days, end=d("2026-10-10"), **INCOME)[0]
    # THEN Friday the 9th is pending, not a missed payday
    assert best.pending == (d("2026-10-09"),) and best.missed == ()


def test_irregular_dates_fit_badly() -> None:
    # GIVEN gig payouts on random days, two or three a week
    rng = random.Random(5)
    start, end = d("2026-06-01"), d("2026-09-28")
    days = sorted({start + timedelta(days=rng.randrange(120)) for _ in range(40)})
    fits = fit(days, end=end, **INCOME)
    # THEN no schedule explains them (nothing fits or the best explains few days exactly)
    assert not fits or fits[0].exact < 0.5 * len(days)


def test_quarterly_and_annual_bills_fit_with_their_own_roll() -> None:
    quarterly = Schedule.quarterly(2, 20, roll=Roll.NEXT)
    days = quarterly.dates(d("2025-12-01"), d("2026-12-01"))
    best = fit(days, end=d("2026-12-01"), default_roll=Roll.NEXT)[0]
    assert best.schedule == quarterly
    yearly = [d("2025-03-03"), d("2026-03-03")]
    best = fit(yearly, end=d("2026-06-01"), rolls=(Roll.NONE,))[0]
    assert best.cadence is Cadence.ANNUALLY and best.next_dates(1) == [d("2027-03-03")]


def test_plausible_cadences_filter_by_the_median_gap() -> None:
    weekly = plausible_cadences([d("2026-01-02"), d("2026-01-09"), d("2026-01-16"), d("2026-01-23")])
    assert Cadence.WEEKLY in weekly and not weekly & {Cadence.MONTHLY, Cadence.QUARTERLY, Cadence.ANNUALLY}
    assert plausible_cadences([d("2026-01-02"), d("2026-01-16")]) >= {Cadence.BIWEEKLY, Cadence.SEMI_MONTHLY}
    assert Cadence.MONTHLY in plausible_cadences([d("2026-01-30"), d("2026-02-27"), d("2026-03-31")])
    assert plausible_cadences([d("2026-01-02")]) == set()
    # AND a short series with an extra date in between (a bonus) keeps the gap around it
    assert Cadence.MONTHLY in plausible_cadences([d("2024-11-01"), d("2024-11-12"), d("2024-11-29")])
    assert plausible_cadences([d("2026-01-02"), d("2026-01-03"), d("2026-01-04")]) == set()
    # AND a long monthly series with two extra dates, whose median gap is three weeks, stays monthly
    months = ["2023-08-24", "2023-09-22", "2023-10-24", "2023-11-24", "2023-12-22", "2024-01-24"]
    extras = ["2023-10-02", "2023-11-30"]
    assert Cadence.MONTHLY in plausible_cadences([d(day) for day in sorted(months + extras)])


def test_fewer_than_two_days_fit_nothing_and_future_days_are_ignored() -> None:
    assert fit([d("2026-01-02")], end=d("2026-02-01")) == []
    assert fit([d("2026-01-02"), d("2026-03-02")], end=d("2026-02-01")) == []


def test_a_custom_prior_steers_ties() -> None:
    # GIVEN two deposits that fit a biweekly and a 1st/15th semi-monthly rule equally well
    days = [d("2026-05-01"), d("2026-05-15")]
    plain = fit(days, end=d("2026-05-20"), **INCOME, limit=20)
    cadences = {f.cadence for f in plain if f.f1 == 1.0 and f.residual == 0}
    assert {Cadence.BIWEEKLY, Cadence.SEMI_MONTHLY} <= cadences
    # WHEN semi-monthly is made expensive
    steered = fit(days, end=d("2026-05-20"), prior=lambda s: 0.1 * (s.cadence is Cadence.SEMI_MONTHLY), **INCOME)
    assert steered[0].cadence is Cadence.BIWEEKLY


def test_given_schedules_score_even_one_observation() -> None:
    # GIVEN one deposit on Tuesday 25 August 2026 and the second to fourth Wednesdays, on the day
    # or a business day early
    candidates = [Schedule.nth_weekday(n, 2).posting(Roll.PREV, s) for n in (2, 3, 4) for s in (0, 1)]
    fits = fit_schedules([d("2026-08-25")], candidates, end=d("2026-09-10"), start=d("2026-08-02"))
    # THEN the fourth Wednesday posted a day early explains it on the day, best first
    assert fits[0].schedule == Schedule.nth_weekday(4, 2, shift=1)
    assert (fits[0].exact, fits[0].missed) == (1, ())
    assert all(f.exact == 0 for f in fits[1:])
