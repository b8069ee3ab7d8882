"""The schedule model (FloatMe V2) on the calendar's and the bank feed's hard cases."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

import pytest

from chalicelib.insight.payday import predict, v2
from chalicelib.insight.schedule import LAST_DAY, Roll, Schedule
from chalicelib.insight.transactions import visible
from tests.insight.builders import d, on_schedule, paycheck, paychecks, spending, txn

SEMI_15_EOM = Schedule.semi_monthly(15, LAST_DAY)


def history(as_of: str, rows: list[dict[str, Any]], days: int = 120) -> list[dict[str, Any]]:
    """``rows`` plus everyday spending over the ``days`` before ``as_of``."""
    start = (d(as_of) - timedelta(days=days - 1)).isoformat()
    return rows + spending(start, as_of)


def check(as_of: str, rows: list[dict[str, Any]], expected: str, cadence: str) -> None:
    result = predict(history(as_of, rows), d(as_of))
    assert (result.next_payday, result.cadence) == (d(expected), cadence), result.chosen


# --- the calendar -----------------------------------------------------------------------------


def test_a_15th_on_a_saturday_is_paid_on_friday_the_14th() -> None:
    # GIVEN the 15th and the last day, a month end on a Sunday already paid the Friday before
    rows = on_schedule(SEMI_15_EOM, "2025-07-10", "2025-11-05")
    assert d("2025-08-29") in {d(r["date"]) for r in rows}
    # THEN 15 November 2025, a Saturday, is predicted on Friday the 14th
    check("2025-11-05", rows, "2025-11-14", "SEMI_MONTHLY")


def test_a_month_end_on_a_sunday_is_paid_on_the_friday_before() -> None:
    # 30 November 2025 is a Sunday, and Thursday the 27th is Thanksgiving
    check("2025-11-20", on_schedule(SEMI_15_EOM, "2025-07-23", "2025-11-20"), "2025-11-28", "SEMI_MONTHLY")


def test_february_month_end_on_a_sunday() -> None:
    check("2027-02-20", on_schedule(SEMI_15_EOM, "2026-10-25", "2027-02-20"), "2027-02-26", "SEMI_MONTHLY")


def test_a_saturday_holiday_leaves_the_friday_payday_where_it_is() -> None:
    # GIVEN weekly Friday pay; 4 July 2026 is a Saturday and the Fed is open on Friday the 3rd
    check("2026-07-02", on_schedule(Schedule.weekly(4), "2026-03-06", "2026-07-02"), "2026-07-03", "WEEKLY")


def test_monday_holidays_roll_back_or_forward_as_the_employer_did_before() -> None:
    # GIVEN weekly Monday pay through Presidents' Day (16 Feb 2026), paid the Friday before ...
    rows = on_schedule(Schedule.weekly(0), "2026-01-21", "2026-05-20")
    assert d("2026-02-13") in {d(r["date"]) for r in rows}
    # THEN Memorial Day (25 May) is predicted on Friday the 22nd
    check("2026-05-20", rows, "2026-05-22", "WEEKLY")
    # AND an employer that paid Presidents' Day on the Tuesday after is predicted on Tuesday the 26th
    check(
        "2026-05-20",
        on_schedule(Schedule.weekly(0, roll=Roll.NEXT), "2026-01-21", "2026-05-20"),
        "2026-05-26",
        "WEEKLY",
    )


def test_new_year_on_a_friday_after_a_christmas_paid_on_thursday() -> None:
    rows = on_schedule(Schedule.weekly(4), "2026-09-01", "2026-12-28")
    assert d("2026-12-24") in {d(r["date"]) for r in rows}
    check("2026-12-28", rows, "2026-12-31", "WEEKLY")


def test_a_closed_payday_never_seen_before_is_paid_the_business_day_before() -> None:
    # GIVEN weekly Friday pay from September: no Friday in the history was a holiday, so the
    # history cannot tell whether the employer pays before or after a closed day
    rows = on_schedule(Schedule.weekly(4), "2026-08-26", "2026-12-23")
    # THEN Christmas (Friday 25 December) is predicted on Thursday the 24th, as payroll
    # services pay by default: the few employers paying after (7%) are a risk below the
    # early-to-late cost ratio's threshold (1 in 11)
    check("2026-12-23", rows, "2026-12-24", "WEEKLY")


def test_a_later_date_wins_only_when_nearly_as_probable_as_the_likeliest() -> None:
    # GIVEN pay on Friday 1 May and Friday 15 May 2026: every other Friday (next: Friday the
    # 29th, the likelier reading) or the 1st and the 15th (next: Monday 1 June)
    txns = visible(history("2026-05-20", paychecks([d("2026-05-01"), d("2026-05-15")]), days=30), d("2026-05-20"))
    # WHEN the answer is the most probable date, or the later one is not two thirds as probable
    for weight in (0.0, v2.EARLY_WEIGHT):
        answer = v2.analyse(txns, d("2026-05-20"), early_weight=weight).prediction
        # THEN every other Friday
        assert answer is not None and (answer.next_payday, answer.cadence) == (d("2026-05-29"), "BIWEEKLY")
    # WHEN an early date counted ten times its exactness, THEN the later reading
    careful = v2.analyse(txns, d("2026-05-20"), early_weight=10.0).prediction
    assert careful is not None and (careful.next_payday, careful.cadence) == (d("2026-06-01"), "SEMI_MONTHLY")


def test_biweekly_pays_a_third_time_in_some_months() -> None:
    check(
        "2026-01-20",
        on_schedule(Schedule.biweekly(d("2026-01-02")), "2025-09-22", "2026-01-20"),
        "2026-01-30",
        "BIWEEKLY",
    )


# --- few deposits ---------------------------------------------------------------------------------


def test_three_deposits_tell_semi_monthly_from_biweekly() -> None:
    rows = paychecks([d("2026-09-01"), d("2026-09-15"), d("2026-10-01")])
    result = predict(history("2026-10-05", rows, days=40), d("2026-10-05"))
    assert (result.next_payday, result.cadence) == (d("2026-10-15"), "SEMI_MONTHLY")


def test_a_reading_with_a_deposit_overdue_does_not_hide_the_others() -> None:
    # GIVEN pay on Thursday 10 September and Thursday 8 October 2026, and nothing on Thursday
    # 22 October (as_of): every other Thursday (one missed, one overdue), every fourth Thursday
    # or a day of the month early-posted
    rows = paychecks([d("2026-09-10"), d("2026-10-08")])
    result = predict(history("2026-10-22", rows, days=60), d("2026-10-22"))
    # THEN not 5 November: the monthly readings, which expect nothing overdue, count too
    assert result.next_payday is not None and result.next_payday > d("2026-11-05")


# --- the bank feed ---------------------------------------------------------------------------------


def test_an_early_posting_bank_is_predicted_on_its_own_posting_day() -> None:
    # GIVEN every other Friday, posted two business days early (Wednesdays)
    early = Schedule.biweekly(d("2026-08-07"), shift=2)
    rows = on_schedule(early, "2026-06-01", "2026-09-28")
    check("2026-09-28", rows, "2026-09-30", "BIWEEKLY")


def test_a_deposit_a_day_early_does_not_make_a_bank_that_posts_on_the_payday() -> None:
    # GIVEN pay on the 1st posted a business day early: Wednesday 30 September, Thursday 29
    # October (1 November is a Sunday, paid Friday the 30th) and Monday 30 November 2026; the
    # last business day of the month would have posted the October one a day early
    rows = paychecks([d("2026-09-30"), d("2026-10-29"), d("2026-11-30")])
    # THEN the 1st of January, a holiday, is paid Thursday 31 December, posted Wednesday the 30th:
    # a bank that posts on the payday does not post a day before it
    check("2026-12-06", rows, "2026-12-30", "MONTHLY")


def test_a_split_deposit_follows_the_account_that_receives_most() -> None:
    # GIVEN 80% to checking on the payday and 20% to another bank that posts a day later
    fridays = Schedule.biweekly(d("2026-08-07")).dates(d("2026-06-01"), d("2026-09-28"))
    rows = paychecks(fridays, 160_000) + paychecks([f + timedelta(days=3) for f in fridays], 40_000, account_id="ext")
    check("2026-09-28", rows, "2026-10-02", "BIWEEKLY")


def test_a_missed_paycheck_in_the_history_is_tolerated() -> None:
    fridays = Schedule.biweekly(d("2026-08-07")).dates(d("2026-06-01"), d("2026-09-28"))
    del fridays[3]
    check("2026-09-28", paychecks(fridays), "2026-10-02", "BIWEEKLY")


def test_a_last_paycheck_that_did_not_arrive_keeps_the_schedule() -> None:
    # GIVEN biweekly pay whose last payday (Friday 18 September) never came: a cycle not paid
    # or a deposit the feed lost, with no other payer in sight
    fridays = Schedule.biweekly(d("2026-08-07")).dates(d("2026-06-01"), d("2026-09-18"))[:-1]
    # THEN the next payday on the schedule
    check("2026-09-22", paychecks(fridays), "2026-10-02", "BIWEEKLY")


def test_two_missed_paychecks_mean_pay_stopped() -> None:
    fridays = Schedule.biweekly(d("2026-08-07")).dates(d("2026-06-01"), d("2026-09-18"))[:-2]
    result = predict(history("2026-09-22", paychecks(fridays)), d("2026-09-22"))
    assert (result.next_payday, result.cadence) == (None, "NONE")
    assert "stopped" in (result.reason or "")


def test_a_job_change_follows_the_new_employer() -> None:
    old = paychecks(Schedule.biweekly(d("2026-06-05")).dates(d("2026-06-01"), d("2026-08-14")), employer="GLOBEX CORP")
    new = on_schedule(Schedule.semi_monthly(1, 15), "2026-08-25", "2026-09-25", employer="INITECH INC")
    result = predict(history("2026-09-25", old + new), d("2026-09-25"))
    assert (result.next_payday, result.cadence, result.source) == (d("2026-10-01"), "SEMI_MONTHLY", "Initech Inc")


def test_a_job_change_behind_one_payroll_processors_name_follows_the_schedule_after_the_pause() -> None:
    # GIVEN every Wednesday through 30 December 2026, then, after three weeks without pay, a
    # larger deposit every other Thursday from 21 January: both jobs paid through one processor,
    # so the lines read as one payer
    old = paychecks(Schedule.weekly(2).dates(d("2026-09-01"), d("2026-12-30")), 120_000, "PAYCHEX INC PAYROLL")
    new = paychecks([d("2027-01-21"), d("2027-02-04")], 288_000, "PAYCHEX INC PAYROLL")
    # THEN the schedule after the pause: every other Thursday
    check("2027-02-06", old + new, "2027-02-18", "BIWEEKLY")


def test_pay_moved_to_a_new_account_continues_the_schedule() -> None:
    # GIVEN biweekly Friday pay into checking until 11 September, then into a new account
    # from the payday checking missed (25 September)
    fridays = Schedule.biweekly(d("2026-06-05")).dates(d("2026-06-01"), d("2026-09-25"))
    rows = paychecks(fridays[:-1]) + paychecks(fridays[-1:], account_id="new")
    # THEN the next payday follows the same schedule, in the new account (checking's missed
    # payday is not a reason to abstain)
    check("2026-09-28", rows, "2026-10-09", "BIWEEKLY")


def test_an_old_job_that_stopped_while_the_new_one_pays_is_replaced() -> None:
    # GIVEN an old employer paying every other Thursday until 10 September, and a new one
    # paying every Friday from 28 August (the jobs overlapped), a bit less a month
    old = paychecks(Schedule.biweekly(d("2026-06-04")).dates(d("2026-06-01"), d("2026-09-10")), 230_000, "OLD CO")
    new = paychecks(Schedule.weekly(4).dates(d("2026-08-28"), d("2026-09-25")), 100_000, "NEW CO")
    # THEN the old job's missed payday (24 September) is not a reason to abstain: the new job
    # is followed
    check("2026-09-28", old + new, "2026-10-02", "WEEKLY")


def test_two_payers_paying_about_the_same_follow_the_larger() -> None:
    # GIVEN two jobs paying about the same each month, one every other Friday (next: 9 October,
    # 2,167 a month), one a little more on the 1st (next: 1 October, 2,200)
    a = paychecks(Schedule.biweekly(d("2026-06-05")).dates(d("2026-06-01"), d("2026-09-25")), 100_000, "ALPHA CO")
    b = paychecks(Schedule.monthly(1).dates(d("2026-06-01"), d("2026-09-25")), 220_000, "BETA CO")
    # THEN the larger income's payday
    result = predict(history("2026-09-25", a + b), d("2026-09-25"))
    assert (result.next_payday, result.source) == (d("2026-10-01"), "Beta Co")


def test_a_bank_that_posted_a_day_late_once_keeps_its_day() -> None:
    # GIVEN every other Friday posted two business days early (Wednesdays), one deposit of
    # nine a day late (Thursday)
    wednesdays = Schedule.biweekly(d("2026-08-07"), shift=2).dates(d("2026-06-01"), d("2026-09-28"))
    slipped = [w + timedelta(days=1) if n == 5 else w for n, w in enumerate(wednesdays)]
    # THEN the next one is predicted on its usual Wednesday: the most probable day
    check("2026-09-28", paychecks(slipped), "2026-09-30", "BIWEEKLY")


def test_a_bonus_between_two_monthly_paydays_does_not_hide_the_month() -> None:
    # GIVEN pay on the 1st seen twice (1 November a Sunday: Friday 30 October) and a bonus on
    # 12 November in between
    rows = [*paychecks([d("2026-10-30"), d("2026-12-01")]), paycheck(d("2026-11-12"), 300_000)]
    # THEN the next is New Year's Day, a Friday holiday: Thursday 31 December
    result = predict(history("2026-12-05", rows, days=60), d("2026-12-05"))
    assert (result.next_payday, result.cadence) == (d("2026-12-31"), "MONTHLY"), result.chosen


def test_an_unlabelled_payer_on_a_payroll_schedule_three_times_is_income() -> None:
    # GIVEN no category and no payroll wording, but three deposits on the 15th and the last day
    rows = [
        txn(day, -140_000, "ELECTRONIC DEPOSIT COPPER CANYON CASINO")
        for day in Schedule.semi_monthly(15, LAST_DAY).dates(d("2026-08-10"), d("2026-09-20"))
    ]
    check("2026-09-20", rows, "2026-09-30", "SEMI_MONTHLY")


def test_a_new_employer_without_an_income_label_is_read_from_two_deposits_on_their_day() -> None:
    # GIVEN weekly Friday pay that stopped in July, then a new employer whose deposits carry no
    # category and no payroll wording, on the 15th and the last day: Monday 31 August and
    # Tuesday 15 September
    old = on_schedule(Schedule.weekly(4), "2026-05-01", "2026-07-17")
    new = [txn(day, -260_000, "ELECTRONIC DEPOSIT COPPER CANYON CASINO") for day in (d("2026-08-31"), d("2026-09-15"))]
    # THEN its next payday, Wednesday 30 September: two deposits on their day show the new job
    check("2026-09-20", old + new, "2026-09-30", "SEMI_MONTHLY")


def test_a_months_pay_without_an_income_label_seen_twice_in_60_days_gives_its_day() -> None:
    # GIVEN 60 days with two unlabelled deposits from one company, on Friday 10 July and Monday
    # 10 August
    rows = [txn(day, -180_000, "NORTHSTAR MEDICAL EDI PYMNTS") for day in (d("2026-07-10"), d("2026-08-10"))]
    result = predict(history("2026-08-20", rows, days=60), d("2026-08-20"))
    # THEN Thursday 10 September
    assert (result.next_payday, result.cadence) == (d("2026-09-10"), "MONTHLY"), result.chosen


def test_two_checks_deposited_by_phone_a_month_apart_are_no_payday() -> None:
    # GIVEN 60 days with two $1,800 checks deposited by phone, on Friday 10 July and Monday
    # 10 August: the lines name no payer
    rows = [txn(day, -180_000, "MOBILE DEPOSIT") for day in (d("2026-07-10"), d("2026-08-10"))]
    result = predict(history("2026-08-20", rows, days=60), d("2026-08-20"))
    # THEN no date: without a label or a name, a payer needs three deposits on schedule
    assert (result.next_payday, result.cadence) == (None, "NONE"), result.chosen


def test_two_employers_follow_the_larger_income() -> None:
    main = on_schedule(Schedule.biweekly(d("2026-08-07")), "2026-06-01", "2026-09-28", cents=200_000)
    side = on_schedule(Schedule.weekly(1), "2026-06-01", "2026-09-28", cents=30_000, employer="CORNER CAFE")
    check("2026-09-28", main + side, "2026-10-02", "BIWEEKLY")


def test_social_security_on_the_third_wednesday() -> None:
    ssa = [
        txn(day, -145_000, "SSA TREAS 310 XXSOC SEC", personal_finance_category=None)
        for day in Schedule.nth_weekday(3, 2).dates(d("2026-06-01"), d("2026-09-25"))
    ]
    check("2026-09-25", ssa, "2026-10-21", "MONTHLY")


def test_two_social_security_deposits_38_days_apart_are_monthly() -> None:
    # GIVEN a bank that posts Social Security two business days early: the third Wednesday of
    # October 2024 (the 16th) on Friday the 11th, over Columbus Day, and of November (the 20th)
    # on Monday the 18th, 38 days later
    days = ("2024-10-11", "2024-11-18")
    ssa = [txn(day, -134_700, "SSA TREAS 310 XXSOC SEC", personal_finance_category=None) for day in days]
    result = predict(history("2024-12-01", ssa, days=60), d("2024-12-01"))
    # THEN the third Wednesday of December (the 18th), two business days early: Monday the 16th
    assert (result.next_payday, result.cadence) == (d("2024-12-16"), "MONTHLY"), result.chosen


def test_social_security_a_bank_posts_early_all_but_once_is_predicted_early() -> None:
    # GIVEN Social Security on the fourth Wednesday, at a bank that posted it two business days
    # early in September (Monday the 22nd for Wednesday the 24th) and on the day in October
    # (Wednesday the 22nd): the government pays on the day, never later, so October was the
    # bank's early release failing once, not a late payment
    days = ("2025-09-22", "2025-10-22")
    ssa = [txn(day, -234_200, "SSA TREAS 310 XXSOC SEC", personal_finance_category=None) for day in days]
    result = predict(history("2025-11-01", ssa, days=60), d("2025-11-01"))
    # THEN the fourth Wednesday of November (the 26th), two business days early: Monday the 24th
    assert (result.next_payday, result.cadence) == (d("2025-11-24"), "MONTHLY"), result.chosen


def test_two_social_security_deposits_on_their_wednesday_stay_on_it() -> None:
    # GIVEN the same payee at a bank that posts on the day, both months
    days = ("2025-09-24", "2025-10-22")
    ssa = [txn(day, -234_200, "SSA TREAS 310 XXSOC SEC", personal_finance_category=None) for day in days]
    result = predict(history("2025-11-01", ssa, days=60), d("2025-11-01"))
    # THEN Wednesday the 26th
    assert (result.next_payday, result.cadence) == (d("2025-11-26"), "MONTHLY"), result.chosen


def test_one_social_security_deposit_gives_its_published_wednesday() -> None:
    # GIVEN 40 days of history with one Social Security deposit, on Tuesday 25 August 2026: the
    # fourth Wednesday (the 26th) posted a business day early
    ssa = [txn("2026-08-25", -145_000, "SSA TREAS 310 XXSOC SEC", personal_finance_category=None)]
    result = predict(history("2026-09-10", ssa, days=40), d("2026-09-10"))
    # THEN the fourth Wednesday of September, a day early: one deposit fixes a published schedule
    assert (result.next_payday, result.cadence) == (d("2026-09-22"), "MONTHLY")


def test_one_military_paycheck_on_the_15th_gives_the_1st() -> None:
    # GIVEN one deposit from DFAS (military pay: the 1st and the 15th) on Tuesday 15 September
    rows = paychecks([d("2026-09-15")], employer="DFAS-CLEVELAND")
    result = predict(history("2026-09-20", rows, days=60), d("2026-09-20"))
    # THEN the 1st of October: one deposit fixes the published schedule
    assert (result.next_payday, result.cadence) == (d("2026-10-01"), "SEMI_MONTHLY")


def test_a_civil_service_annuity_comes_on_the_first_business_day_of_the_month() -> None:
    # GIVEN an OPM annuity paid on Monday 2 February 2026 (the 1st a Sunday), Monday 2 March
    # (likewise) and Friday 1 May: as well "the 2nd, or the business day before" as "the 1st,
    # or the business day after"
    days = ("2026-02-02", "2026-03-02", "2026-05-01")
    opm = [txn(day, -440_909, "OPM1 TREAS 310 CSA", personal_finance_category=None) for day in days]
    result = predict(history("2026-05-26", opm, days=120), d("2026-05-26"))
    # THEN Monday 1 June: OPM pays on the first business day, rolling a closed 1st forward
    assert (result.next_payday, result.cadence) == (d("2026-06-01"), "MONTHLY"), result.chosen
    # AND one deposit is enough: a 1st on a Saturday (August 2026) is paid Monday the 3rd
    once = [txn("2026-07-01", -440_909, "OPM1 TREAS 310 CSA", personal_finance_category=None)]
    assert predict(history("2026-07-20", once, days=60), d("2026-07-20")).next_payday == d("2026-08-03")


def test_one_deposit_off_every_published_schedule_or_from_an_employer_gives_no_date() -> None:
    # GIVEN one Social Security deposit on Friday 21 August (no published day posts then) or one
    # paycheck from an employer
    for rows in (
        [txn("2026-08-21", -145_000, "SSA TREAS 310 XXSOC SEC", personal_finance_category=None)],
        paychecks([d("2026-08-26")]),
    ):
        result = predict(history("2026-09-10", rows, days=60), d("2026-09-10"))
        # THEN no date: the schedule is not known yet
        assert (result.next_payday, result.cadence) == (None, "NONE")


def test_a_payer_paid_once_three_weeks_ago_or_more_pays_monthly() -> None:
    # GIVEN 45 days of history and one paycheck on Tuesday 1 September, the month before it
    # outside the history; 25 days on, a weekly, biweekly or twice-monthly payer would have paid again
    rows = paychecks([d("2026-09-01")])
    result = predict(history("2026-09-26", rows, days=45), d("2026-09-26"))
    # THEN the 1st of the next month: a monthly payer
    assert (result.next_payday, result.cadence) == (d("2026-10-01"), "MONTHLY")


def test_a_new_job_paid_once_after_the_old_one_stopped_pays_monthly() -> None:
    # GIVEN biweekly pay from one employer until 7 August, then one paycheck from another on
    # Monday 31 August (the last day), 25 days before as_of
    old = on_schedule(Schedule.biweekly(d("2026-05-15")), "2026-05-15", "2026-08-07", employer="OLD CO")
    rows = old + paychecks([d("2026-08-31")], employer="NEW CO")
    result = predict(history("2026-09-25", rows), d("2026-09-25"))
    # THEN the new job's next month end (30 September, a Wednesday)
    assert (result.next_payday, result.cadence) == (d("2026-09-30"), "MONTHLY")


def test_a_lone_payment_long_after_the_history_began_gives_no_date() -> None:
    # GIVEN 120 days of history with no income but one paycheck-labelled deposit 25 days ago
    # (a one-off: a monthly payer would have paid the month before, inside the history)
    # OR one 15 days ago (the cadence is not known yet)
    for day in ("2026-09-01", "2026-09-11"):
        result = predict(history("2026-09-26", paychecks([d(day)])), d("2026-09-26"))
        # THEN no date
        assert (result.next_payday, result.cadence) == (None, "NONE")


def test_a_new_payer_paying_more_at_once_than_the_primary_a_month_gives_no_date() -> None:
    # GIVEN a small job paying every other Friday (about 2,200 a month) and, 16 days ago, one
    # deposit of 4,900 from another company: labelled payroll, or a transfer with no payroll
    # words (as a feed may post a paycheck)
    small = paychecks(Schedule.biweekly(d("2026-06-05")).dates(d("2026-06-01"), d("2026-09-25")), 100_000, "SIDE CO")
    transfer = {"personal_finance_category": {"primary": "TRANSFER_IN", "detailed": "TRANSFER_IN_DEPOSIT"}}
    for big in (
        paycheck(d("2026-09-14"), 490_000, "NORTHWIND TRADERS"),
        txn("2026-09-14", -490_000, "NORTHWIND TRADERS", category=["Transfer", "Deposit"], **transfer),
    ):
        result = predict(history("2026-09-30", [*small, big]), d("2026-09-30"))
        # THEN no date: the new payer may be the main income, and its payday is not known yet
        # (the small job's 9 October would be early for a main job paying monthly)
        assert (result.next_payday, result.cadence) == (None, "NONE"), result.chosen
        assert "too early to tell" in (result.reason or "")
    # AND a one-off smaller than a month of the small job's pay does not stop the prediction
    result = predict(history("2026-09-30", [*small, paycheck(d("2026-09-14"), 150_000, "NORTHWIND")]), d("2026-09-30"))
    assert (result.next_payday, result.cadence) == (d("2026-10-09"), "BIWEEKLY")


def test_another_apps_advance_before_each_payday_is_not_income() -> None:
    fridays = Schedule.biweekly(d("2026-08-07")).dates(d("2026-06-01"), d("2026-09-28"))
    advances = [txn(f - timedelta(days=2), -10_000, "EARNIN ACTIVEHOURS") for f in fridays]
    repayments = [txn(f, 10_500, "EARNIN REPAYMENT") for f in fridays]
    check("2026-09-28", paychecks(fridays) + advances + repayments, "2026-10-02", "BIWEEKLY")


def test_v2_category_names_alone_identify_payroll() -> None:
    salary = {"primary": "INCOME", "detailed": "INCOME_SALARY"}
    rows = [
        txn(day, -180_000, "NORTHWIND TRADERS", personal_finance_category=salary)
        for day in Schedule.monthly(LAST_DAY).dates(d("2026-06-01"), d("2026-09-25"))
    ]
    check("2026-09-25", rows, "2026-09-30", "MONTHLY")


# --- no payday ----------------------------------------------------------------------------------------


def test_gig_payouts_are_irregular_income_with_no_payday() -> None:
    rng = random.Random(3)
    start = d("2026-06-01")
    days = sorted({start + timedelta(days=rng.randrange(118)) for _ in range(45)})
    gig = {"primary": "INCOME", "detailed": "INCOME_GIG_ECONOMY"}
    rows = [
        txn(day, -rng.randint(2_000, 15_000), "DOORDASH DASHER PAYOUT", personal_finance_category=gig) for day in days
    ]
    result = predict(history("2026-09-28", rows), d("2026-09-28"))
    assert (result.next_payday, result.cadence) == (None, "NONE")
    assert "irregular" in (result.reason or "")


def test_a_roommates_monthly_rent_by_zelle_is_not_a_payday() -> None:
    rows = [
        txn(day, -75_000, "Zelle payment from JORDAN SMITH RENT")
        for day in Schedule.monthly(1, roll=Roll.NEXT).dates(d("2026-06-01"), d("2026-09-28"))
    ]
    result = predict(history("2026-09-28", rows), d("2026-09-28"))
    assert (result.next_payday, result.cadence) == (None, "NONE") and result.reason


def test_no_income_at_all_says_so() -> None:
    result = predict(history("2026-09-28", []), d("2026-09-28"))
    assert (result.next_payday, result.cadence, result.reason) == (None, "NONE", "no income deposits in 120 days")


def test_the_next_payday_is_strictly_after_as_of() -> None:
    # GIVEN weekly Friday pay, evaluated on a Friday the paycheck already landed
    rows = on_schedule(Schedule.weekly(4), "2026-06-05", "2026-09-25")
    check("2026-09-25", rows, "2026-10-02", "WEEKLY")
    # AND evaluated the Thursday before, the Friday is next
    check("2026-09-24", [r for r in rows if r["date"] <= "2026-09-24"], "2026-09-25", "WEEKLY")


def test_deposits_after_as_of_and_pending_ones_are_not_seen() -> None:
    rows = on_schedule(Schedule.weekly(4), "2026-06-05", "2026-09-25")
    noise = [paycheck(d("2026-09-23"), pending=True), paycheck(d("2026-10-06"))]
    check("2026-09-24", [r for r in rows if r["date"] <= "2026-09-24"] + noise, "2026-09-25", "WEEKLY")


def test_confidence_is_a_probability_and_grows_with_history() -> None:
    rows = on_schedule(Schedule.biweekly(d("2026-08-07")), "2026-06-01", "2026-09-28")
    short = predict(history("2026-09-28", [r for r in rows if r["date"] >= "2026-09-01"], days=30), d("2026-09-28"))
    long = predict(history("2026-09-28", rows), d("2026-09-28"))
    assert 0 <= short.confidence < long.confidence <= 1


def test_the_readings_behind_an_answer_travel_with_it_with_their_posterior_shares() -> None:
    # GIVEN two paychecks four weeks apart: a monthly payday, or one every four weeks
    history = paychecks([d("2026-09-11"), d("2026-10-09")], 150_000)
    # WHEN predicted
    answer = predict(history, d("2026-10-20")).chosen
    # THEN its readings hold both next dates, each with its share of the posterior, the answer's among them
    firsts = {days[0]: share for share, days in answer.readings}
    assert answer.next_payday in firsts
    assert d("2026-10-23") in firsts and firsts[d("2026-10-23")] > 0.1  # four weeks after the 9th
    assert sum(firsts.values()) == pytest.approx(1.0)
    assert all(day > d("2026-10-20") for _, days in answer.readings for day in days)
