"""What the payday model guarantees, each on a small history built by hand.

- With three clean deposits on a standard schedule, a payday moved by a weekend or a Fed
  holiday is exact.
- A biweekly payer on any weekday is predicted on that weekday, holiday weeks included.
- After a job change, the new employer's schedule wins once it has shown two deposits; a
  payer that kept paying alongside a new one and then missed a paycheck still pays (two jobs).
- A paycheck whose description carries a reference made of letters is the same payer's.
- A pension's words are income evidence: two deposits on its 1st give its next one.
- A payroll with a bonus and an off-cycle deposit, at a bank that posts early now and then, is
  not gig work.
- A paycheck posted a business day or two late, over a weekend, is a late paycheck, not a
  missed one and an extra.
- Gig payouts, however regular, give no payday; nor does a platform's weekly batch that lands
  one to three business days after its day, at amounts that vary by a factor of two.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest

from chalicelib.insight.payday import predict
from chalicelib.insight.schedule import LAST_DAY, Schedule, shift_business_days
from tests.insight.builders import d, paycheck, paychecks, spending, txn


def with_spending(as_of: date, rows: list[dict[str, Any]], days: int) -> list[dict[str, Any]]:
    """``rows`` and a purchase every other day over the ``days`` ending ``as_of``."""
    return rows + spending((as_of - timedelta(days=days - 1)).isoformat(), as_of.isoformat())


def three_before(schedule: Schedule, payday: date) -> list[date]:
    """The last three days ``schedule`` posts before ``payday``."""
    return schedule.dates(payday - timedelta(days=120), payday - timedelta(days=1))[-3:]


@pytest.mark.parametrize(
    ("schedule", "payday", "moved"),
    [
        # Friday 25 December 2026 is Christmas: every other Friday is paid on Thursday the 24th
        (Schedule.biweekly(d("2026-12-11")), d("2026-12-25"), d("2026-12-24")),
        # Monday 25 May 2026 is Memorial Day: every Monday is paid on Friday the 22nd
        (Schedule.weekly(0), d("2026-05-25"), d("2026-05-22")),
        # Saturday 15 August 2026: the 15th and the last day, paid on Friday the 14th
        (Schedule.semi_monthly(15, LAST_DAY), d("2026-08-15"), d("2026-08-14")),
        # Sunday 1 November 2026: the 1st and the 15th, paid on Friday 30 October
        (Schedule.semi_monthly(1, 15), d("2026-11-01"), d("2026-10-30")),
        # Sunday 20 December 2026: the 5th and the 20th, paid on Friday the 18th
        (Schedule.semi_monthly(5, 20), d("2026-12-20"), d("2026-12-18")),
        # Sunday 1 August 2027: monthly on the 1st, paid on Friday 30 July
        (Schedule.monthly(1), d("2027-08-01"), d("2027-07-30")),
        # Friday 1 January 2027 is New Year's Day: monthly on the 1st, paid on Thursday 31 December
        (Schedule.monthly(1), d("2027-01-01"), d("2026-12-31")),
        # Sunday 31 January 2027: the last business day, Friday the 29th
        (Schedule.last_business_day(), d("2027-01-31"), d("2027-01-29")),
        # Monday 11 October 2027 is Columbus Day: monthly on the second Monday, paid Friday the 8th
        (Schedule.nth_weekday(2, 0), d("2027-10-11"), d("2027-10-08")),
    ],
)
def test_three_clean_deposits_give_a_weekend_or_holiday_payday_exactly(
    schedule: Schedule, payday: date, moved: date
) -> None:
    # GIVEN three deposits on the days the schedule posts, the last one a few days before as_of
    deposits = three_before(schedule, moved)
    assert len(deposits) == 3 and schedule.next_dates(deposits[-1], 1) == [moved]
    as_of = deposits[-1] + timedelta(days=3)
    span = (as_of - deposits[0]).days + 5
    # WHEN the payday is predicted
    result = predict(with_spending(as_of, paychecks(deposits), span), as_of)
    # THEN it is the business day before the closed day
    assert result.next_payday == moved, result.chosen


@pytest.mark.parametrize("weekday", range(5))
@pytest.mark.parametrize(
    "week",
    # Mondays of weeks with a Fed holiday: Juneteenth 2026 (a Friday), Thanksgiving 2026,
    # Christmas 2026 and New Year's Day 2027 (Fridays), Memorial Day 2027, 4 July 2027 (observed
    # on Monday the 5th); and a week without one
    ["2026-06-15", "2026-11-23", "2026-12-21", "2026-12-28", "2027-05-31", "2027-07-05", "2027-03-08"],
)
def test_a_biweekly_payer_is_predicted_on_its_own_weekday(weekday: int, week: str) -> None:
    # GIVEN 60 days of pay every other <weekday>, the next one in <week>
    monday = d(week)
    schedule = Schedule.biweekly(monday + timedelta(days=weekday))
    as_of = monday - timedelta(days=2)
    rows = paychecks(schedule.dates(as_of - timedelta(days=59), as_of))
    # WHEN predicted on the Saturday before
    result = predict(with_spending(as_of, rows, 60), as_of)
    # THEN it is that weekday, or the business day before when the Fed is closed that day
    expected = schedule.next_dates(as_of, 1)[0]
    assert expected.weekday() == weekday or expected < monday + timedelta(days=weekday)
    assert (result.next_payday, result.cadence) == (expected, "BIWEEKLY"), result.chosen


def test_a_tuesday_payer_is_not_read_as_a_thursday_posted_early() -> None:
    # GIVEN every other Tuesday through 10 November 2026; Thursday 26 November is Thanksgiving
    as_of = d("2026-11-15")
    rows = paychecks(Schedule.biweekly(d("2026-11-10")).dates(d("2026-08-01"), as_of))
    # THEN Tuesday the 24th: a Thursday payday posted two days early would put it on Monday
    result = predict(with_spending(as_of, rows, 107), as_of)
    assert (result.next_payday, result.cadence) == (d("2026-11-24"), "BIWEEKLY")


@pytest.mark.parametrize(
    ("old", "new", "cents", "as_of", "expected"),
    [
        # every other Friday (its 18 September missed), then the 1st and the 15th
        (Schedule.biweekly(d("2026-06-05")), Schedule.semi_monthly(1, 15), 100_000, "2026-10-05", "2026-10-15"),
        # monthly on the 1st (its 1 October not due yet), then every Thursday
        (Schedule.monthly(1), Schedule.weekly(3), 25_000, "2026-09-28", "2026-10-01"),
        # every Friday, then the last business day
        (Schedule.weekly(4), Schedule.last_business_day(), 300_000, "2026-11-03", "2026-11-30"),
    ],
)
def test_after_a_job_change_the_new_schedule_wins_once_it_has_paid_twice(
    old: Schedule, new: Schedule, cents: int, as_of: str, expected: str
) -> None:
    # GIVEN an old employer paying until 4 September and a new one from 10 September, paying
    # less a month, which has paid twice or more by as_of
    day = d(as_of)
    before = paychecks(old.dates(d("2026-06-01"), d("2026-09-04")), 120_000, employer="GLOBEX CORP")
    after = paychecks(new.dates(d("2026-09-10"), day), cents, employer="INITECH INC")
    assert len(after) >= 2
    # WHEN predicted
    result = predict(with_spending(day, before + after, 120), day)
    # THEN the new employer's next payday
    assert (result.next_payday, result.source) == (d(expected), "Initech Inc"), result.chosen


def test_a_new_job_paid_once_gives_no_date_until_it_pays_again() -> None:
    # GIVEN every other Friday until 4 September (its 18 September never came) and one paycheck
    # from a new employer on 15 September
    as_of = d("2026-09-22")
    old = paychecks(Schedule.biweekly(d("2026-06-05")).dates(d("2026-06-01"), d("2026-09-04")), employer="GLOBEX CORP")
    new = paychecks([d("2026-09-15")], employer="INITECH INC")
    result = predict(with_spending(as_of, old + new, 120), as_of)
    # THEN no date: the old schedule no longer holds and one deposit does not give the new one
    assert (result.next_payday, result.cadence) == (None, "NONE")
    assert "income changed" in (result.reason or "")


GIG = {"primary": "INCOME", "detailed": "INCOME_GIG_ECONOMY"}


@pytest.mark.parametrize(
    "payouts",
    [
        # a platform's weekly payout, every Tuesday, like clockwork
        [
            txn(day, -41_500, "DOORDASH INC PAYOUT", personal_finance_category=GIG)
            for day in Schedule.weekly(1).dates(d("2026-06-01"), d("2026-09-28"))
        ],
        # instant cash-outs after most working days
        [
            txn(d("2026-06-01") + timedelta(days=k), -(3_000 + 97 * k % 5_000), "UBER TECHNOLOGIES INSTANT PAY")
            for k in range(0, 120)
            if k % 7 not in (2, 5)
        ],
        # a payout every other Friday, labelled as wages by a v1 feed
        [
            txn(
                day,
                -88_000,
                "LYFT INC DRIVER PAY",
                personal_finance_category={"primary": "INCOME", "detailed": "INCOME_WAGES"},
            )
            for day in Schedule.biweekly(d("2026-06-05")).dates(d("2026-06-01"), d("2026-09-28"))
        ],
        # a monthly payout whose line abbreviates the platform, named by Plaid's merchant name
        [
            txn(
                day,
                -64_000,
                "AMZN FLEX PAYOUT",
                merchant_name="Amazon Flex",
                personal_finance_category={"primary": "INCOME", "detailed": "INCOME_WAGES"},
            )
            for day in Schedule.monthly(10).dates(d("2026-06-01"), d("2026-09-28"))
        ],
    ],
)
def test_gig_payouts_give_no_payday(payouts: list[dict[str, Any]]) -> None:
    as_of = d("2026-09-28")
    result = predict(with_spending(as_of, payouts, 120), as_of)
    assert (result.next_payday, result.cadence) == (None, "NONE"), result.chosen


def test_a_weekly_batch_landing_a_business_day_or_more_late_gives_no_payday() -> None:
    # GIVEN a delivery platform's batch for each Thursday since October, landing a business day
    # after it or later (two in three on the Friday, the rest on the Monday or the Tuesday), at
    # $150 to $550 (most within half of their median), under a name that is no known platform's,
    # labelled as wages by a v1 feed
    as_of = d("2027-02-24")
    thursdays = Schedule.weekly(3).dates(d("2026-10-01"), as_of - timedelta(days=6))
    late = (1, 1, 2, 1, 1, 3)  # business days after the Thursday, in turn
    amounts = (15_900, 29_000, 55_000, 30_400, 19_600, 15_300, 35_600, 36_300, 30_200, 19_100)
    rows = [
        txn(
            shift_business_days(thursday, late[n % len(late)]),
            -amounts[n % len(amounts)],
            "ROUTEWISE INC TRANSFER",
            personal_finance_category={"primary": "INCOME", "detailed": "INCOME_WAGES"},
        )
        for n, thursday in enumerate(thursdays)
    ]
    # WHEN predicted
    result = predict(with_spending(as_of, rows, 150), as_of)
    # THEN no date: its lateness is the batch's, and its amounts are not a payroll's
    assert (result.next_payday, result.cadence) == (None, "NONE"), result.chosen


def test_hourly_pay_that_varies_by_a_fifth_posted_early_now_and_then_is_a_payroll() -> None:
    # GIVEN every other Friday since June, hours that vary the paycheck from $800 to $1,210,
    # and a bank that posted three of the ten a business day early
    as_of = d("2026-10-20")
    fridays = Schedule.biweekly(d("2026-06-05")).dates(d("2026-06-01"), as_of)
    amounts = (96_000, 118_000, 84_000, 105_000, 121_000, 90_000, 110_000, 80_000, 101_000, 93_000)
    early = {1, 4, 7}
    rows = [
        paycheck(shift_business_days(friday, -1) if n in early else friday, amounts[n], employer="HALCYON HOTELS")
        for n, friday in enumerate(fridays)
    ]
    # WHEN predicted
    result = predict(with_spending(as_of, rows, 150), as_of)
    # THEN its next Friday
    assert (result.next_payday, result.cadence) == (d("2026-10-23"), "BIWEEKLY"), result.chosen


def test_a_paycheck_posted_two_business_days_late_over_a_weekend_is_late_not_missed() -> None:
    # GIVEN the 15th and the last day (paid the business day before) since April, and Friday
    # 30 May's paycheck posted on Tuesday 3 June: four calendar days, two business days late
    as_of = d("2025-06-11")
    days = [d("2025-04-15"), d("2025-04-30"), d("2025-05-15"), d("2025-06-03")]
    rows = [paycheck(day, 246_300 + 900 * n, employer="TRI COUNTY PLUMBING") for n, day in enumerate(days)]
    # WHEN predicted from 60 days
    result = predict(with_spending(as_of, rows, 60), as_of)
    # THEN the schedule goes on: Friday 13 June (the 15th is a Sunday), not the business day after
    assert (result.next_payday, result.cadence) == (d("2025-06-13"), "SEMI_MONTHLY"), result.chosen


def test_a_reference_made_of_letters_does_not_make_a_new_payer() -> None:
    # GIVEN the 1st and the 15th (paid the business day before) from one payroll processor,
    # whose line on 15 September carries a reference without a digit
    as_of = d("2026-09-20")
    days = Schedule.semi_monthly(1, 15).dates(d("2026-06-01"), as_of)
    rows = paychecks(days[:-1], 186_000, employer="GUSTO PAY")
    rows += paychecks(days[-1:], 186_000, employer="GUSTO PAY JQFDKJ")
    # WHEN predicted
    result = predict(with_spending(as_of, rows, 110), as_of)
    # THEN the schedule goes on (1 October), not "income changed"
    assert (result.next_payday, result.cadence) == (d("2026-10-01"), "SEMI_MONTHLY"), result.chosen


def test_a_payroll_with_a_bonus_an_off_cycle_deposit_and_a_stray_posting_is_not_gig_work() -> None:
    # GIVEN every other Monday (Columbus Day paid the Friday before), one paycheck a day late
    # and one a business day early, a half-amount correction and a bonus between paydays
    as_of = d("2025-11-28")
    paid = ["2025-09-16", "2025-09-29", "2025-10-10", "2025-10-27", "2025-11-07", "2025-11-24"]
    rows = [
        *(paychecks([d(day)], 180_000 + 2_000 * n, employer="TALLGRASS TRANSPORT") for n, day in enumerate(paid)),
        paychecks([d("2025-10-30")], 90_000, employer="TALLGRASS TRANSPORT"),
        paychecks([d("2025-11-13")], 330_000, employer="TALLGRASS TRANSPORT"),
    ]
    # WHEN predicted
    result = predict(with_spending(as_of, [r for group in rows for r in group], 90), as_of)
    # THEN the paychecks' schedule gives the next Monday payday
    assert (result.next_payday, result.cadence) == (d("2025-12-08"), "BIWEEKLY"), result.chosen


def test_a_main_job_that_misses_a_paycheck_while_a_side_job_pays_still_pays() -> None:
    # GIVEN every Thursday since August (its 1 October missing) and, from 4 September, a side
    # job paying less a month on the 4th (paid the business day before)
    as_of = d("2025-10-08")
    weekly = [day for day in Schedule.weekly(3).dates(d("2025-08-07"), as_of) if day != d("2025-10-02")]
    side = Schedule.monthly(4).dates(d("2025-09-01"), as_of)
    rows = paychecks(weekly, 42_000, employer="HALCYON HOTELS") + paychecks(side, 86_000, employer="FIRSTLINE STAFFING")
    # WHEN predicted
    result = predict(with_spending(as_of, rows, 60), as_of)
    # THEN the main job's next Thursday: three paychecks alongside the side job's say two jobs
    assert (result.next_payday, result.source) == (d("2025-10-09"), "Halcyon Hotels"), result.chosen


def test_a_pension_uncategorised_is_read_from_two_deposits() -> None:
    # GIVEN a state pension's two deposits, on Friday 31 May (1 June is a Saturday) and Monday
    # 1 July, with no category and no payroll words
    as_of = d("2024-07-26")
    rows = [txn(day, -295_500, "OHIO PERS ANNUITY") for day in (d("2024-05-31"), d("2024-07-01"))]
    # WHEN predicted from 60 days
    result = predict(with_spending(as_of, rows, 60), as_of)
    # THEN its next 1st
    assert (result.next_payday, result.cadence) == (d("2024-08-01"), "MONTHLY"), result.chosen


def test_a_monthly_payroll_with_off_cycle_deposits_among_six_months_of_paydays_is_monthly() -> None:
    # GIVEN monthly pay on the 24th (paid the business day before) from August to January, a
    # bonus paid with August's, and two off-cycle deposits (a correction, an expense refund)
    # that split two months' gaps: the median gap between deposits is three weeks
    as_of = d("2024-01-24")
    paid = Schedule.monthly(24).dates(d("2023-08-01"), as_of)
    rows = [
        *paychecks(paid[1:], 514_000, employer="PAYCHEX INC"),
        *paychecks(paid[:1], 1_529_500, employer="PAYCHEX INC"),
        *paychecks([d("2023-10-02")], 909_200, employer="PAYCHEX INC"),
        *paychecks([d("2023-11-30")], 528_000, employer="PAYCHEX INC"),
    ]
    # WHEN predicted from 180 days
    result = predict(with_spending(as_of, rows, 180), as_of)
    # THEN the 24th goes on: Friday 23 February (the 24th is a Saturday)
    assert (result.next_payday, result.cadence) == (d("2024-02-23"), "MONTHLY"), result.chosen


def test_pay_a_bank_posts_early_by_a_lead_that_varies_is_still_a_payday() -> None:
    # GIVEN a payroll every other Friday that the bank releases on the Friday, or one or two
    # business days before it, as the payroll's file arrives: Fri, Thu, Wed, Wed, Fri, Wed
    as_of = d("2026-06-05")
    fridays = Schedule.biweekly(d("2026-03-27")).dates(d("2026-03-27"), as_of)
    leads = (0, 1, 2, 2, 0, 2)
    days = [shift_business_days(friday, -lead) for friday, lead in zip(fridays, leads, strict=True)]
    # WHEN predicted
    result = predict(with_spending(as_of, paychecks(days, 377_100, employer="PAYCHEX"), 90), as_of)
    # THEN a biweekly payday: the next Friday or up to two business days before it, never after
    assert result.cadence == "BIWEEKLY", result.chosen
    assert result.next_payday is not None
    assert 0 <= (d("2026-06-19") - result.next_payday).days <= 2


def test_a_paycheck_posted_early_over_thanksgiving_is_that_payday_come_early() -> None:
    # GIVEN pay on the 1st (the business day before on a weekend) since September, and December's
    # posted on Friday 27 November: two business days before Tuesday the 1st, over Thanksgiving
    as_of = d("2026-11-27")
    days = [d("2026-09-01"), d("2026-10-01"), d("2026-10-30"), d("2026-11-27")]
    # WHEN predicted on that Friday
    result = predict(with_spending(as_of, paychecks(days, 240_000, employer="CASCADE MUTUAL"), 120), as_of)
    # THEN December's pay has come: the next is January's, on Thursday 31 December (New Year's Day
    # is a holiday)
    assert (result.next_payday, result.cadence) == (d("2026-12-31"), "MONTHLY"), result.chosen
