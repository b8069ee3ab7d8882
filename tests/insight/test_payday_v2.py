"""The schedule model (FloatMe V2) on the calendar's and the bank feed's hard cases."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from chalicelib.insight.payday import predict
from chalicelib.insight.schedule import LAST_DAY, Roll, Schedule
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


def test_a_closed_payday_never_seen_before_is_predicted_on_the_later_business_day() -> None:
    # GIVEN weekly Friday pay from September: no Friday in the history was a holiday, so the
    # history cannot tell whether the employer pays before or after a closed day
    rows = on_schedule(Schedule.weekly(4), "2026-08-26", "2026-12-23")
    # THEN Christmas (Friday 25 December) is predicted on the Monday after, not the Thursday
    # before: a late collection is the cheaper mistake
    check("2026-12-23", rows, "2026-12-28", "WEEKLY")


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


def test_two_fridays_on_the_1st_and_the_15th_predict_the_later_reading() -> None:
    # GIVEN pay on Friday 1 May and Friday 15 May 2026: every other Friday (next: the 29th) or
    # the 1st and the 15th (next: Monday 1 June)
    rows = paychecks([d("2026-05-01"), d("2026-05-15")])
    result = predict(history("2026-05-20", rows, days=30), d("2026-05-20"))
    # THEN the later reading is predicted: never collect before the money may land
    assert (result.next_payday, result.cadence) == (d("2026-06-01"), "SEMI_MONTHLY")


# --- the bank feed ---------------------------------------------------------------------------------


def test_an_early_posting_bank_is_predicted_on_its_own_posting_day() -> None:
    # GIVEN every other Friday, posted two business days early (Wednesdays)
    early = Schedule.biweekly(d("2026-08-07"), shift=2)
    rows = on_schedule(early, "2026-06-01", "2026-09-28")
    check("2026-09-28", rows, "2026-09-30", "BIWEEKLY")


def test_a_split_deposit_follows_the_account_that_receives_most() -> None:
    # GIVEN 80% to checking on the payday and 20% to another bank that posts a day later
    fridays = Schedule.biweekly(d("2026-08-07")).dates(d("2026-06-01"), d("2026-09-28"))
    rows = paychecks(fridays, 160_000) + paychecks([f + timedelta(days=3) for f in fridays], 40_000, account_id="ext")
    check("2026-09-28", rows, "2026-10-02", "BIWEEKLY")


def test_a_missed_paycheck_in_the_history_is_tolerated() -> None:
    fridays = Schedule.biweekly(d("2026-08-07")).dates(d("2026-06-01"), d("2026-09-28"))
    del fridays[3]
    check("2026-09-28", paychecks(fridays), "2026-10-02", "BIWEEKLY")


def test_a_payday_that_did_not_arrive_is_an_answer_without_a_date() -> None:
    # GIVEN biweekly pay whose last payday (Friday 18 September) never came
    fridays = Schedule.biweekly(d("2026-08-07")).dates(d("2026-06-01"), d("2026-09-18"))[:-1]
    result = predict(history("2026-09-22", paychecks(fridays)), d("2026-09-22"))
    # THEN no date, with the reason
    assert (result.next_payday, result.cadence) == (None, "NONE")
    assert "2026-09-18 has not arrived" in (result.reason or "")


def test_a_job_change_follows_the_new_employer() -> None:
    old = paychecks(Schedule.biweekly(d("2026-06-05")).dates(d("2026-06-01"), d("2026-08-14")), employer="GLOBEX CORP")
    new = on_schedule(Schedule.semi_monthly(1, 15), "2026-08-25", "2026-09-25", employer="INITECH INC")
    result = predict(history("2026-09-25", old + new), d("2026-09-25"))
    assert (result.next_payday, result.cadence, result.source) == (d("2026-10-01"), "SEMI_MONTHLY", "Initech Inc")


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
