"""The recurring-expense detector: which outflows are recurring, how often, how much, and when
the next charge comes; and what is left out (habits, one-offs, own transfers, stopped streams)."""

from __future__ import annotations

import random
from collections.abc import Iterable
from datetime import date, timedelta
from typing import Any

import pytest

from chalicelib.insight.recurring import Kind, RecurringExpense, Status, detect, detect_visible
from chalicelib.insight.transactions import InvalidTransactionError, visible

FREQUENCIES = {"WEEKLY", "BIWEEKLY", "SEMI_MONTHLY", "MONTHLY", "QUARTERLY", "ANNUALLY"}
_ids = iter(range(1, 1_000_000))


def d(text: str) -> date:
    return date.fromisoformat(text)


def txn(
    day: date,
    amount: int,
    name: str,
    *,
    account: str = "chk",
    merchant: str | None = None,
    authorized: date | None = None,
    pfc: str | None = None,
    category: list[str] | None = None,
    pending: bool = False,
) -> dict[str, Any]:
    """One API-shaped transaction (amount in cents, positive = money out)."""
    primary = next((p for p in _PRIMARIES if pfc and pfc.startswith(p + "_")), None)
    return {
        "txn_id": f"t{next(_ids):06d}",
        "account_id": account,
        "amount": amount,
        "iso_currency_code": "USD",
        "date": day.isoformat(),
        "authorized_date": authorized.isoformat() if authorized else None,
        "name": name,
        "merchant_name": merchant,
        "personal_finance_category": {"primary": primary, "detailed": pfc} if pfc else None,
        "category": category,
        "pending": pending,
        "unused_extra_key": True,
    }


_PRIMARIES = (
    "RENT_AND_UTILITIES",
    "LOAN_PAYMENTS",
    "TRANSFER_OUT",
    "TRANSFER_IN",
    "ENTERTAINMENT",
    "FOOD_AND_DRINK",
    "TRANSPORTATION",
    "PERSONAL_CARE",
)


def card(days: Iterable[date], amount: int, name: str, lag: int = 2, **kw: Any) -> list[dict[str, Any]]:
    """Card charges: authorized on the day, posted ``lag`` days later."""
    return [txn(day + timedelta(days=lag), amount, name, authorized=day, **kw) for day in days]


def ach(days: Iterable[date], amount: int | list[int], name: str, **kw: Any) -> list[dict[str, Any]]:
    """ACH debits: posted on the settlement day, no authorization day."""
    amounts = amount if isinstance(amount, list) else [amount] * 99
    return [txn(day, cents, name, **kw) for day, cents in zip(days, amounts, strict=False)]


def monthly_days(first: str, count: int, day: int | None = None) -> list[date]:
    start = d(first)
    out = []
    for k in range(count):
        year, month = start.year + (start.month - 1 + k) // 12, (start.month - 1 + k) % 12 + 1
        out.append(date(year, month, day or start.day))
    return out


def only(found: list[RecurringExpense]) -> RecurringExpense:
    assert len(found) == 1, [(s.merchant, s.frequency, s.schedule) for s in found]
    return found[0]


# --- subscriptions and bills ---------------------------------------------------------------


def test_a_card_subscription_keeps_its_day_even_on_a_weekend() -> None:
    # GIVEN Netflix charged on the 16th of each month (card: the day is kept, weekend or not)
    rows = card(monthly_days("2026-01-16", 4), 1549, "NETFLIX.COM 866-579-7172 CA", merchant="Netflix")
    # WHEN detecting on 20 April
    stream = only(detect(rows, d("2026-04-20")))
    # THEN a monthly Netflix stream whose next charge is Saturday 16 May itself
    assert (stream.merchant, stream.frequency, stream.average_amount) == ("Netflix", "MONTHLY", 1549)
    assert stream.next_date == d("2026-05-16")
    assert set(stream.transaction_ids) == {r["txn_id"] for r in rows}


def test_a_subscription_seen_twice_on_weekdays_keeps_its_day_on_a_weekend() -> None:
    # GIVEN YouTube charged on Monday 28 June and Wednesday 28 July 2027, each authorized and
    # posted the same day (nothing in its own days shows a card: no weekend, no posting lag)
    rows = card(monthly_days("2027-06-28", 2), 7599, "GOOGLE *YOUTUBE TV", lag=0, pfc="ENTERTAINMENT_TV_AND_MOVIES")
    # WHEN detecting on 11 August
    stream = only(detect(rows, d("2027-08-11")))
    # THEN the next charge is Saturday 28 August itself: a merchant's charge, not a debit to roll
    assert (stream.status, stream.next_date) == (Status.EARLY_DETECTION, d("2027-08-28"))
    # AND so is a phone bill paid by card
    line, pfc = "VISA PURCHASE T-MOBILE", "RENT_AND_UTILITIES_TELEPHONE"
    phone = card(monthly_days("2027-06-28", 2), 8500, line, lag=0, pfc=pfc)
    assert only(detect(phone, d("2027-08-11"))).next_date == d("2027-08-28")


def test_a_subscription_seen_twice_at_a_bank_that_reports_no_authorization_day_keeps_its_day() -> None:
    # GIVEN Adobe charged on Monday 28 June and Wednesday 28 July 2027, at a bank that reports
    # no authorization day on any charge (so a missing one says nothing)
    adobe = ach(
        monthly_days("2027-06-28", 2), 2099, "ADOBE *CREATIVE CLOUD", pfc="GENERAL_SERVICES_OTHER_GENERAL_SERVICES"
    )
    shopping = ach([d("2027-07-03"), d("2027-07-17")], 4312, "KROGER #432", pfc="FOOD_AND_DRINK_GROCERIES")
    # WHEN detecting on 11 August
    stream = only(detect(adobe + shopping, d("2027-08-11")))
    # THEN the next charge is Saturday 28 August itself: a merchant's card charge
    assert (stream.merchant, stream.next_date) == ("Adobe Creative Cloud", d("2027-08-28"))
    # BUT at a bank that reports authorization days on its card charges, the same two charges
    # without one are a debit's, and roll to Monday the 30th
    carded = card([d("2027-07-03"), d("2027-07-17")], 4312, "KROGER #432", lag=1, pfc="FOOD_AND_DRINK_GROCERIES")
    assert only(detect(adobe + carded, d("2027-08-11"))).next_date == d("2027-08-30")


def test_a_bill_on_a_day_of_the_month_is_not_read_as_an_nth_weekday() -> None:
    # GIVEN Spotify charged by card on Monday 22 February and Monday 22 March 2027 (posted a day
    # and two days later), and posted on Monday 26 April without an authorization day (the 22nd
    # a Thursday, posted within a card's lag): three fourth Mondays as well as three 22nds
    line, pfc = "SPOTIFY USA 877-778-1161 NY", "ENTERTAINMENT_MUSIC_AND_AUDIO"
    rows = [
        txn(d("2027-02-23"), 1199, line, authorized=d("2027-02-22"), pfc=pfc),
        txn(d("2027-03-24"), 1199, line, authorized=d("2027-03-22"), pfc=pfc),
        txn(d("2027-04-26"), 1199, line, pfc=pfc),
    ]
    # WHEN detecting on 16 May
    stream = only(detect(rows, d("2027-05-16")))
    # THEN it bills on the 22nd: next on Saturday 22 May, not the fourth Monday, the 24th
    assert (stream.schedule, stream.next_date) == ("the 22nd", d("2027-05-22"))


def test_a_loan_debited_a_day_late_once_is_due_on_its_day_of_the_month_not_an_nth_weekday() -> None:
    # GIVEN a student loan debited on the 25th: Tuesday 28 January 2025 (the 25th a Saturday,
    # debited a business day after Monday the 27th), Tuesday 25 February and Tuesday 25 March:
    # three last Tuesdays, on the day every time, and a day of the month one debit misses
    line, pfc = "PREAUTHORIZED DEBIT AIDVANTAGE DEPT ED P", "LOAN_PAYMENTS_STUDENT_LOAN_PAYMENT"
    rows = [txn(d(day), 26588, line, pfc=pfc) for day in ("2025-01-28", "2025-02-25", "2025-03-25")]
    # WHEN detecting on 24 April
    stream = only(detect(rows, d("2025-04-24")))
    # THEN it is due on the 25th: next on Friday 25 April, not the last Tuesday, the 29th
    assert (stream.schedule, stream.next_date) == ("the 25th, or the business day after", d("2025-04-25"))


def test_a_card_plan_retried_a_day_or_two_late_is_due_on_its_earlier_day() -> None:
    # GIVEN a $5 membership by card: posted Monday 3 March 2025 without an authorization day,
    # authorized Tuesday 1 April (posted the 4th) and Saturday 3 May (posted the 5th): the 1st
    # with May's charge two days late, or the 3rd with April's two days early
    line, pfc = "PATREON* MEMBERSHIP", "GENERAL_SERVICES_OTHER_GENERAL_SERVICES"
    rows = [
        txn(d("2025-03-03"), 500, line, pfc=pfc),
        txn(d("2025-04-04"), 500, line, authorized=d("2025-04-01"), pfc=pfc),
        txn(d("2025-05-05"), 500, line, authorized=d("2025-05-03"), pfc=pfc),
    ]
    # WHEN detecting on 11 May
    stream = only(detect(rows, d("2025-05-11")))
    # THEN it bills on the 1st: a card is charged on its day or retried later, not charged early
    assert (stream.schedule, stream.next_date) == ("the 1st", d("2025-06-01"))


def test_a_card_plan_known_by_one_authorization_day_and_two_posting_days_is_found() -> None:
    # GIVEN The Wall Street Journal at $9.99 by card: posted Tuesday 26 May 2026 without an
    # authorization day, authorized Wednesday 24 June and posted the 25th, posted Monday 27 July
    # without an authorization day (each within a card's posting lag of the 24th)
    line, pfc = "DEBIT CARD PURCHASE - WSJ DIGITAL 800-568-7625", "GENERAL_SERVICES_OTHER_GENERAL_SERVICES"
    rows = [
        txn(d("2026-05-26"), 999, line, pfc=pfc),
        txn(d("2026-06-25"), 999, line, authorized=d("2026-06-24"), pfc=pfc),
        txn(d("2026-07-27"), 999, line, pfc=pfc),
    ]
    # WHEN detecting on 18 August
    stream = only(detect(rows, d("2026-08-18")))
    # THEN one monthly plan billed on the 24th, next on Monday 24 August
    assert (stream.frequency, stream.schedule, stream.next_date) == ("MONTHLY", "the 24th", d("2026-08-24"))


def test_a_card_line_that_prints_its_day_is_charged_on_that_day() -> None:
    # GIVEN The Wall Street Journal charged by card on Tuesday 9 November and Thursday 9 December
    # 2027, posted on the 11th and on Monday the 13th, the bank giving these charges no
    # authorization day but printing the day in their lines
    rows = [
        txn(d("2027-11-11"), 999, "POS PURCHASE 11/09 DOW JONES WSJ NJ", pfc="GENERAL_SERVICES_OTHER_GENERAL_SERVICES"),
        txn(d("2027-12-13"), 999, "POS PURCHASE 12/09 DOW JONES WSJ NJ", pfc="GENERAL_SERVICES_OTHER_GENERAL_SERVICES"),
    ]
    groceries = card(
        [d("2027-11-20"), d("2027-12-04")], 8412, "POS PURCHASE KROGER #432", pfc="FOOD_AND_DRINK_GROCERIES"
    )
    # WHEN detecting on 20 December
    stream = only(detect(rows + groceries, d("2027-12-20")))
    # THEN it is billed on the 9th: next on Sunday 9 January 2028, kept as a card's
    assert (stream.schedule, stream.next_date) == ("the 9th", d("2028-01-09"))


def test_an_internet_bill_posted_on_a_saturday_at_a_bank_without_authorization_days_is_no_weekend_debit() -> None:
    # GIVEN rent debited on Monday 3 May (the 1st a Saturday), Thursday 3 June (two days late)
    # and Thursday 1 July 2027, and an internet bill posted on Saturday 24 April, at a bank that
    # reports no authorization day (so a card's charge and a debit look alike)
    rent = ach(
        [d("2027-05-03"), d("2027-06-03"), d("2027-07-01")], 290500, "PARKSIDE RESIDENCE", pfc="RENT_AND_UTILITIES_RENT"
    )
    cable = ach([d("2027-04-24")], 8700, "COX COMM 508887449", pfc="RENT_AND_UTILITIES_INTERNET_AND_CABLE")
    # WHEN detecting on 17 July
    stream = only(detect(rent + cable, d("2027-07-17")))
    # THEN the bank is not read as posting debits on weekends (the internet bill may be a
    # card's): rent is due on the 1st and Sunday 1 August settles on Monday the 2nd
    assert (stream.merchant, stream.next_date) == ("Parkside Residence", d("2027-08-02"))


def test_a_bill_debited_by_ach_seen_twice_rolls_even_when_the_bank_stamps_an_authorization_day() -> None:
    # GIVEN a power bill's ACH debits on Monday 28 June and Wednesday 28 July 2027, each with an
    # authorization day on its posting day (some banks stamp their debits so)
    line = "ACH DEBIT CITY POWER PPD"
    bill = card(monthly_days("2027-06-28", 2), 7599, line, lag=0, pfc="RENT_AND_UTILITIES_GAS_AND_ELECTRICITY")
    # WHEN detecting on 11 August
    stream = only(detect(bill, d("2027-08-11")))
    # THEN Saturday 28 August settles on Monday the 30th, as a debit does
    assert stream.next_date == d("2027-08-30")


def test_an_ach_bill_settles_on_the_next_business_day() -> None:
    # GIVEN rent debited on the 1st, which on Sunday 1 March 2026 settled on Monday the 2nd
    days = [d("2026-03-02"), d("2026-04-01"), d("2026-05-01"), d("2026-06-01"), d("2026-07-01")]
    rows = ach(days, 215000, "AVALONBAY WEB PMTS 4829911 WEB ID: 1942817395", pfc="RENT_AND_UTILITIES_RENT")
    # WHEN detecting on 10 July
    stream = only(detect(rows, d("2026-07-10")))
    # THEN Saturday 1 August settles on Monday 3 August
    assert (stream.frequency, stream.next_date, stream.average_amount) == ("MONTHLY", d("2026-08-03"), 215000)
    assert stream.merchant == "Avalonbay"


def test_rent_due_on_the_1st_and_paid_a_day_late_now_and_then_stays_due_on_the_1st() -> None:
    # GIVEN rent debited on Tuesday 1 April, Thursday 1 May, Monday 2 June (the 1st a Sunday),
    # Wednesday 2 July (a day late), Monday 4 August (the 1st a Friday: a business day late) and
    # Tuesday 2 September (after Labor Day), 2025, the same amount each time
    days = [d("2025-04-01"), d("2025-05-01"), d("2025-06-02"), d("2025-07-02"), d("2025-08-04"), d("2025-09-02")]
    rows = ach(days, 233500, "ACH WITHDRAWAL BOZZUTO MGMT RENTPAY", pfc="RENT_AND_UTILITIES_RENT")
    # WHEN detecting on 27 September ("the 2nd" also puts four debits on their day, and the
    # other two only a day early)
    stream = only(detect(rows, d("2025-09-27")))
    # THEN it is due on the 1st, paid late twice: next on Wednesday 1 October, not the 2nd
    assert (stream.next_date, stream.schedule) == (d("2025-10-01"), "the 1st, or the business day after")


def test_a_biller_that_debits_the_business_day_before_is_projected_that_way() -> None:
    # GIVEN a loan due the 15th, debited on Friday 13 March when the 15th was a Sunday
    days = [d("2026-03-13"), d("2026-04-15"), d("2026-05-15"), d("2026-06-15"), d("2026-07-15")]
    rows = ach(days, 38250, "TOYOTA FINANCIAL DES:AUTOPAY ID:4471 INDN:JANE DOE PPD", merchant="Toyota Financial")
    # WHEN detecting on 20 July
    stream = only(detect(rows, d("2026-07-20")))
    # THEN Saturday 15 August is debited on Friday the 14th
    assert stream.next_date == d("2026-08-14")


def test_a_weekly_debit_rolls_past_a_monday_holiday() -> None:
    # GIVEN daycare tuition every Monday from 30 March to 18 May 2026
    mondays = [d("2026-03-30") + timedelta(weeks=k) for k in range(8)]
    rows = ach(mondays, 32500, "BRIGHT HORIZONS TUITION 7781 WEB", merchant="Bright Horizons")
    # WHEN detecting on 20 May: next Monday is Memorial Day
    stream = only(detect(rows, d("2026-05-20")))
    # THEN weekly, next charge on Tuesday 26 May
    assert (stream.frequency, stream.next_date) == ("WEEKLY", d("2026-05-26"))


def test_every_other_friday_and_twice_a_month_are_told_apart() -> None:
    fridays = [d("2026-03-06") + timedelta(weeks=2 * k) for k in range(8)]
    loan = ach(fridays, 18900, "UPSTART NETWORK LOAN PMT 5521", pfc="LOAN_PAYMENTS_PERSONAL_LOAN_PAYMENT")
    firsts = [x for m in range(3, 7) for x in (date(2026, m, 1), date(2026, m, 15))]
    settled = [day if day.weekday() < 5 else day + timedelta(days=7 - day.weekday()) for day in firsts]
    support = ach(settled, 42000, "NY SDU CHILD SUPPORT PMT 8812")
    found = {s.merchant: s for s in detect(loan + support, d("2026-06-20"))}
    assert found["Upstart Network Loan"].frequency == "BIWEEKLY"
    assert found["Upstart Network Loan"].next_date == d("2026-06-26")
    assert found["Sdu Child Support"].frequency == "SEMI_MONTHLY"
    assert found["Sdu Child Support"].next_date == d("2026-07-01")


def test_a_utility_bill_is_recurring_although_its_amount_varies() -> None:
    # GIVEN an electricity bill debited around the 20th, a different amount every month
    days = [d("2026-01-20"), d("2026-02-20"), d("2026-03-20"), d("2026-04-20")]
    rows = ach(
        days, [8423, 10390, 12877, 9511], "CON ED OF NY INTELL CK 8812", pfc="RENT_AND_UTILITIES_GAS_AND_ELECTRICITY"
    )
    stream = only(detect(rows, d("2026-04-28")))
    # THEN one monthly stream at the mean amount, not a fixed price
    assert (stream.frequency, stream.fixed_amount, stream.average_amount) == ("MONTHLY", False, 10300)
    assert stream.merchant == "Con Ed"


def test_two_utilities_of_one_city_each_varying_are_two_streams() -> None:
    # GIVEN Seattle City Light debited on the 6th and Seattle Public Utilities paid on the 20th,
    # each a different amount every month, both lines opening with the city's name
    power = monthly_days("2026-01-06", 5)
    water = monthly_days("2026-01-20", 5)
    pfc = "RENT_AND_UTILITIES_GAS_AND_ELECTRICITY"
    rows = ach(power, [9414, 9742, 8863, 9375, 8398], "ACH DEBIT SEATTLE CITY LIGHT UTIL PMT",
               merchant="Seattle City Light", pfc=pfc)  # fmt: skip
    rows += ach(water, [6210, 5833, 6902, 7117, 6480], "BILLPAY SEATTLE PUBLIC UTIL",
                merchant="Seattle Public Utilities", pfc="RENT_AND_UTILITIES_WATER")  # fmt: skip
    # WHEN detecting on 25 May
    found = detect(rows, d("2026-05-25"))
    # THEN two monthly bills, each of its own five payments, not one payee's ten
    assert sorted((s.merchant, s.next_date, len(s.transaction_ids)) for s in found) == [
        ("Seattle City Light", d("2026-06-08"), 5),
        ("Seattle Public Utilities", d("2026-06-22"), 5),
    ]


def test_a_gas_bill_six_times_larger_in_winter_than_in_summer_is_one_stream() -> None:
    # GIVEN a gas bill debited on the 17th (the business day after on a weekend), from $135.77
    # in April down to $21.64 in September as the heating season ends
    days = [d("2025-04-17"), d("2025-05-16"), d("2025-06-17"), d("2025-07-17"), d("2025-08-15"), d("2025-09-17")]
    amounts = [13577, 9695, 7384, 3272, 2350, 2164]
    rows = ach(days, amounts, "ACH DEBIT PUGET SOUND ENERG PSE PAYMNT", pfc="RENT_AND_UTILITIES_GAS_AND_ELECTRICITY")
    # WHEN detecting in October
    stream = only(detect(rows, d("2025-10-09")))
    # THEN one monthly bill of all six debits, next on the 17th
    assert (stream.frequency, stream.fixed_amount, len(stream.transaction_ids)) == ("MONTHLY", False, 6)
    assert stream.next_date == d("2025-10-17")


def test_a_phone_bill_whose_cents_move_and_whose_authorization_wanders_is_one_stream() -> None:
    # GIVEN a phone bill by card, billed on the 12th: its taxes move the cents every month and
    # its authorization comes on the 11th, 13th, 12th, 12th, 13th and 12th
    billed = monthly_days("2025-10-12", 6)
    jitter = (-1, 1, 0, 0, 1, 0)
    amounts = (14023, 13930, 14022, 13910, 14106, 14120)
    rows = [
        txn(
            day + timedelta(days=j + 2),
            cents,
            "CHECKCARD T-MOBILE*AUTOPAY 800-937-8997 WA",
            authorized=day + timedelta(days=j),
            merchant="T-Mobile",
            pfc="RENT_AND_UTILITIES_TELEPHONE",
        )
        for day, j, cents in zip(billed, jitter, amounts, strict=True)
    ]
    # WHEN detecting on 25 March
    stream = only(detect(rows, d("2026-03-25")))
    # THEN one mature monthly stream of the six charges, next on the billing day, the 12th
    assert (stream.frequency, stream.status, len(stream.transaction_ids)) == ("MONTHLY", Status.MATURE, 6)
    assert stream.next_date == d("2026-04-12"), stream.schedule


def test_small_amount_differences_stay_one_stream() -> None:
    # GIVEN a subscription billed in another currency: a few cents off each month
    rows = card(monthly_days("2026-01-09", 4), 0, "SPOTIFY P3F7A2 STOCKHOLM")
    for row, cents in zip(rows, (1199, 1207, 1193, 1211), strict=True):
        row["amount"] = cents
    stream = only(detect(rows, d("2026-04-20")))
    assert (stream.frequency, stream.average_amount, len(stream.transaction_ids)) == ("MONTHLY", 1202, 4)


def test_a_quarterly_bill_is_found_from_two_charges() -> None:
    # GIVEN a water bill every three months (26 April 2026 is a Sunday: debited Monday the 27th)
    rows = ach(
        [d("2026-01-26"), d("2026-04-27")],
        [14250, 16980],
        "TOWN OF CARY UTILITY BILL 3366",
        pfc="RENT_AND_UTILITIES_WATER",
    )
    stream = only(detect(rows, d("2026-05-20")))
    # THEN quarterly, next on Monday 27 July (the 26th is a Sunday)
    assert (stream.frequency, stream.next_date) == ("QUARTERLY", d("2026-07-27"))


def test_an_annual_charge_needs_a_year_of_history() -> None:
    # GIVEN a membership renewed on 10 March 2025 and 10 March 2026
    rows = card([d("2025-03-10"), d("2026-03-10")], 6500, "COSTCO *ANNUAL RENEWAL 800-774-2678 WA", merchant="Costco")
    # WHEN the whole year is visible, it is an annual stream due again on 10 March 2027
    stream = only(detect(rows, d("2026-04-01")))
    assert (stream.frequency, stream.next_date) == ("ANNUALLY", d("2027-03-10"))
    # BUT with the 120 days the service keeps, one charge proves nothing
    recent = [r for r in rows if r["date"] >= "2025-12-02"]
    assert detect(recent, d("2026-04-01")) == []


def test_a_price_increase_continues_the_stream_at_the_new_price() -> None:
    # GIVEN a plan at 11.99 for three months, then 12.99
    days = monthly_days("2026-01-09", 5)
    rows = card(days[:3], 1199, "SPOTIFY USA 877-778-1161 NY", merchant="Spotify")
    rows += card(days[3:], 1299, "SPOTIFY USA 877-778-1161 NY", merchant="Spotify")
    stream = only(detect(rows, d("2026-05-20")))
    # THEN one stream of five charges, at the current price
    assert (len(stream.transaction_ids), stream.average_amount, stream.fixed_amount) == (5, 1299, True)
    # AND a change seen only once so far is already part of the stream
    stream = only(detect(rows[:4], d("2026-04-20")))
    assert (len(stream.transaction_ids), stream.average_amount) == (4, 1299)


def test_a_free_trial_charge_is_not_part_of_the_subscription() -> None:
    # GIVEN a 1.00 trial on 3 January, then 14.99 from the 17th
    trial = card([d("2026-01-03")], 100, "Amazon Prime*TR1AL", merchant="Amazon Prime")
    paid = card(monthly_days("2026-01-17", 4), 1499, "Amazon Prime*K2M4", merchant="Amazon Prime")
    stream = only(detect(trial + paid, d("2026-04-25")))
    assert set(stream.transaction_ids) == {r["txn_id"] for r in paid}


def test_a_cancelled_subscription_is_no_longer_reported() -> None:
    # GIVEN Hulu on the 5th of January, February and March, then nothing
    rows = card(monthly_days("2026-01-05", 3), 1899, "HULU 877-8244858 CA", merchant="Hulu")
    # WHEN the April charge is a day late it may still come (posting takes a few days)
    assert only(detect(rows, d("2026-04-06"))).next_date == d("2026-05-05")
    # THEN two weeks after it was due the stream has stopped
    assert detect(rows, d("2026-04-20")) == []


def test_the_same_payee_printed_several_ways_is_one_stream() -> None:
    # GIVEN one subscription as two banks print it, on two cards, with and without Plaid's name
    days = monthly_days("2026-01-12", 4)
    rows = card(days[:2], 1099, "DEBIT CARD PURCHASE - SIRIUS XM RADIO INC NY", account="debit")
    rows += card(days[2:], 1099, "SIRIUSXM 888-635-5144 NY", account="credit", merchant="SiriusXM")
    stream = only(detect(rows, d("2026-04-20")))
    assert (len(stream.transaction_ids), stream.merchant, stream.account_id) == (4, "SiriusXM", "credit")


# --- the guarantees: jitter, new users, autopay, habits, cancellations -------------------------


def test_identical_charges_a_day_or_two_off_their_day_are_one_mature_stream_on_the_schedule() -> None:
    # GIVEN Netflix at 7.75 posted on the 23rd six months running, its authorizations wandering:
    # the 21st, 23rd, 22nd, 23rd, 25th and 23rd
    posted = monthly_days("2026-01-23", 6)
    authorized = [day + timedelta(days=jitter) for day, jitter in zip(posted, (-2, 0, -1, 0, 2, 0), strict=True)]
    rows = [
        txn(p, 775, "NETFLIX.COM 866-579-7172 CA", authorized=a, merchant="Netflix")
        for p, a in zip(posted, authorized, strict=True)
    ]
    # WHEN detecting on 2 July
    stream = only(detect(rows, d("2026-07-02")))
    # THEN one mature monthly stream of all six charges, next on the schedule's day, the 23rd
    assert (stream.frequency, stream.status, stream.kind) == ("MONTHLY", Status.MATURE, Kind.BILL)
    assert len(stream.transaction_ids) == 6
    assert stream.next_date == d("2026-07-23")


def test_a_new_users_rent_seen_twice_is_an_early_detection() -> None:
    # GIVEN a new user's history: rent debited on 1 April and 1 May, the same amount
    rows = ach([d("2026-04-01"), d("2026-05-01")], 185000, "OAK HILL APTS RENT 55012", pfc="RENT_AND_UTILITIES_RENT")
    # WHEN detecting on 20 May
    stream = only(detect(rows, d("2026-05-20")))
    # THEN one monthly stream with two charges, flagged as an early detection, next on 1 June
    assert (stream.frequency, stream.status, stream.kind) == ("MONTHLY", Status.EARLY_DETECTION, Kind.BILL)
    assert (stream.average_amount, stream.next_date) == (185000, d("2026-06-01"))


def test_a_bill_seen_twice_survives_a_wrong_category_and_a_shop_sharing_a_word_of_its_line() -> None:
    # GIVEN a mortgage debited on 1 May and 1 June, once filed under food by mistake, and a
    # purchase at The Home Depot between them (both payees key on "HOME")
    rows = ach([d("2026-05-01")], 104142, "WF HOME MTG AUTO PAY", pfc="LOAN_PAYMENTS_MORTGAGE_PAYMENT")
    rows += ach([d("2026-06-01")], 104142, "WF HOME MTG AUTO PAY", pfc="FOOD_AND_DRINK_OTHER_FOOD_AND_DRINK")
    rows += card([d("2026-05-19")], 3053, "THE HOME DEPOT #16922", merchant="The Home Depot")
    # WHEN detecting on 22 June THEN the mortgage is an early detection, next on 1 July
    stream = only(detect(rows, d("2026-06-22")))
    assert (stream.status, stream.next_date, stream.average_amount) == (Status.EARLY_DETECTION, d("2026-07-01"), 104142)


def test_a_debit_keeps_its_day_at_a_bank_whose_debits_post_on_weekends() -> None:
    # GIVEN rent debited on Monday 15 June and Wednesday 15 July (the 15th of August is a Saturday)
    rent = ach([d("2026-06-15"), d("2026-07-15")], 150000, "OAK HILL APTS RENT 55012", pfc="RENT_AND_UTILITIES_RENT")
    # WHEN nothing shows how the bank posts a debit due on a weekend THEN the next business day
    assert only(detect(rent, d("2026-07-20"))).next_date == d("2026-08-17")
    # BUT WHEN the user's other bills by debit post on weekends (a Saturday water bill) THEN the
    # rent keeps its day too
    water = ach([d("2026-06-06")], 4120, "CITY WATER UTIL 8812", pfc="RENT_AND_UTILITIES_WATER")
    found = {s.merchant: s for s in detect(rent + water, d("2026-07-20"))}
    assert found["Oak Hill Apts"].next_date == d("2026-08-15")


def test_a_bill_due_on_a_weekend_not_seen_yet_comes_on_the_next_business_day() -> None:
    # GIVEN rent debited on the 1st from April to July, at a bank known to post debits on
    # weekends (a Saturday water bill), and 1 August is a Saturday
    rent = ach(
        [d("2026-04-01"), d("2026-05-01"), d("2026-06-01"), d("2026-07-01")],
        150000,
        "OAK HILL APTS RENT 55012",
        pfc="RENT_AND_UTILITIES_RENT",
    )
    water = ach([d("2026-06-06")], 4120, "CITY WATER UTIL 8812", pfc="RENT_AND_UTILITIES_WATER")
    # WHEN August's rent has not shown by Saturday 1 or Sunday 2 August
    # THEN it is still coming: next on Monday 3 August, not skipped to September
    for as_of in (d("2026-08-01"), d("2026-08-02")):
        found = {s.merchant: s for s in detect(rent + water, as_of)}
        assert found["Oak Hill Apts"].next_date == d("2026-08-03")
    # BUT WHEN a charge due on a business day (Wednesday 1 July) has not shown on that day, it
    # may still post later that day: the next one after it is August's (on Monday 3 August)
    spring = ach([d("2026-05-01"), d("2026-06-01")], 150000, "OAK HILL APTS RENT 55012")
    assert only(detect(spring, d("2026-07-01"))).next_date == d("2026-08-03")
    # AND on Thursday 2 July it is late, still within the days a debit may run late: next on
    # Friday 3 July
    assert only(detect(spring, d("2026-07-02"))).next_date == d("2026-07-03")


def test_card_autopay_from_checking_is_one_card_payment_stream_on_the_autopay_day() -> None:
    # GIVEN the credit card's autopay on the 2nd, the statement balance, and the card's side of
    # each payment in the linked card account
    days = [d("2026-01-02"), d("2026-02-02"), d("2026-03-02"), d("2026-04-02")]
    balances = [83122, 41290, 120044, 6512]
    rows = ach(days, balances, "CHASE CREDIT CRD AUTOPAY PPD ID: 4471", pfc="LOAN_PAYMENTS_CREDIT_CARD_PAYMENT")
    rows += [
        txn(day, -cents, "AUTOMATIC PAYMENT - THANK YOU", account="card")
        for day, cents in zip(days, balances, strict=True)
    ]
    # WHEN detecting on 20 April
    stream = only(detect(rows, d("2026-04-20")))
    # THEN one monthly stream of kind card_payment, whatever the balance, next on Monday 4 May
    # (the 2nd is a Saturday)
    assert (stream.frequency, stream.kind, stream.status) == ("MONTHLY", Kind.CARD_PAYMENT, Status.MATURE)
    assert (stream.next_date, stream.average_amount, stream.fixed_amount) == (d("2026-05-04"), 62742, False)
    # AND a new user's autopay seen twice is one too
    stream = only(detect(rows[:2] + rows[4:6], d("2026-02-20")))
    assert (stream.kind, stream.status, stream.next_date) == (
        Kind.CARD_PAYMENT,
        Status.EARLY_DETECTION,
        d("2026-03-02"),
    )


def test_extra_payments_to_the_card_do_not_hide_its_autopay() -> None:
    # GIVEN a new user's card autopay on the 28th, seen twice, and a payment to the same card by
    # hand two days after the first (part of the balance paid off)
    line, pfc = "Payment to Chase card ending in 5572", "LOAN_PAYMENTS_CREDIT_CARD_PAYMENT"
    rows = ach([d("2025-04-28"), d("2025-05-28")], [58421, 83164], line, pfc=pfc)
    rows += ach([d("2025-04-30")], 24400, line, pfc=pfc)
    # WHEN detecting on 18 June
    stream = only(detect(rows, d("2025-06-18")))
    # THEN the autopay is a stream of its two payments, next on Monday 30 June (the 28th a
    # Saturday); the payment by hand is not one of its charges
    assert (stream.kind, stream.status, len(stream.transaction_ids)) == (Kind.CARD_PAYMENT, Status.EARLY_DETECTION, 2)
    assert stream.next_date == d("2025-06-30")


def test_a_banks_loan_and_its_cards_autopay_are_two_streams() -> None:
    # GIVEN a car loan of 308.68 debited by Chase on the 5th and the Chase card's autopay of the
    # statement balance on the 26th, both printed with the bank's name, seen twice each
    loan = ach([d("2025-09-05"), d("2025-10-06")], 30868, "CHASE AUTO LOAN PPD ID: 9921",
               pfc="LOAN_PAYMENTS_CAR_PAYMENT")  # fmt: skip
    autopay = ach([d("2025-09-26"), d("2025-10-27")], [229126, 50999], "Payment to Chase card ending in 5904",
                  pfc="LOAN_PAYMENTS_CREDIT_CARD_PAYMENT")  # fmt: skip
    # WHEN detecting on 1 November
    found = detect(loan + autopay, d("2025-11-01"))
    # THEN the loan at its price and the autopay at its varying amount are each a stream
    assert sorted((s.kind, s.fixed_amount, len(s.transaction_ids)) for s in found) == [
        (Kind.BILL.value, True, 2),
        (Kind.CARD_PAYMENT.value, False, 2),
    ]


def test_a_credit_unions_card_autopay_printed_as_a_transfer_is_apart_from_the_users_transfers() -> None:
    # GIVEN a credit union that prints its own card's autopay as "TRANSFER TO LOAN 44 AUTOPAY" on
    # the 17th (the statement balance), beside the user's transfers to savings and to a friend,
    # which begin with the same word
    days = [d("2025-05-19"), d("2025-06-17"), d("2025-07-17"), d("2025-08-18"), d("2025-09-17")]
    balances = [472124, 176561, 184324, 374815, 128713]
    autopay = ach(
        days,
        balances,
        "TRANSFER TO LOAN 44 AUTOPAY",
        pfc="LOAN_PAYMENTS_CREDIT_CARD_PAYMENT",
        category=["Payment", "Credit Card"],
    )
    savings = ach(monthly_days("2025-05-03", 5), 25000, "TRANSFER TO SAVINGS XXXXXX4256", pfc="TRANSFER_OUT_SAVINGS")
    friend = [
        txn(d("2025-06-09"), 6000, "ONLINE TRANSFER TO PATEL C V"),
        txn(d("2025-08-21"), 4500, "TRANSFER TO KIM J"),
    ]
    # WHEN detecting in October
    found = detect(autopay + savings + friend, d("2025-10-09"))
    # THEN the autopay is one card-payment stream of its five debits, next on the 17th
    stream = only([s for s in found if s.kind == Kind.CARD_PAYMENT])
    assert (stream.frequency, len(stream.transaction_ids)) == ("MONTHLY", 5)
    assert stream.next_date == d("2025-10-17")


def test_the_streams_of_one_account_are_those_the_whole_history_finds_there() -> None:
    # GIVEN rent debited from checking, a streaming plan charged to the credit card, and the
    # card's autopay from checking with the card's side of each payment
    days = monthly_days("2026-01-05", 4)
    rows = ach(days, 180_000, "GREYSTAR RENT PPD", pfc="RENT_AND_UTILITIES_RENT")
    rows += card(monthly_days("2026-01-12", 4), 1_549, "NETFLIX.COM", account="card")
    balances = [21_000, 18_500, 30_250, 9_900]
    rows += ach(days, balances, "CHASE CREDIT CRD AUTOPAY", pfc="LOAN_PAYMENTS_CREDIT_CARD_PAYMENT")
    rows += [
        txn(day, -c, "AUTOMATIC PAYMENT - THANK YOU", account="card") for day, c in zip(days, balances, strict=True)
    ]
    seen = visible(rows, d("2026-04-20"))
    # WHEN detecting for the checking account only, and on the whole history
    mine = detect_visible(seen, d("2026-04-20"), account_id="chk")
    everything = detect_visible(seen, d("2026-04-20"))
    # THEN the checking account's streams are the rent and the autopay, each as the whole
    # history finds it; the card's plan is not among them
    assert {s.kind for s in mine} == {Kind.BILL, Kind.CARD_PAYMENT}
    assert mine == [s for s in everything if s.merchant != "Netflix"]
    assert len(everything) == 3


def test_weekly_coffee_at_varying_amounts_is_not_recurring() -> None:
    # GIVEN a café every Saturday for four months, a different order each time
    rng = random.Random(5)
    saturdays = [d("2026-01-03") + timedelta(weeks=k) for k in range(17)]
    rows = [
        txn(day + timedelta(days=1), rng.randint(525, 1480), "SQ *SWEET PEA BAKERY", authorized=day,
            pfc="FOOD_AND_DRINK_COFFEE")
        for day in saturdays
    ]  # fmt: skip
    # WHEN detecting on 30 April THEN nothing
    assert detect(rows, d("2026-04-30")) == []


def test_a_ride_share_membership_seen_twice_is_an_early_detection_beside_the_rides() -> None:
    # GIVEN Uber One at 9.99 authorized on the 9th of April and May, and rides at varying fares
    # that Plaid names Uber, all in the ride-share category
    rides = "TRANSPORTATION_TAXIS_AND_RIDE_SHARES"
    rows = card(
        [d("2027-04-09"), d("2027-05-09")], 999, "UBER ONE UBER.COM/BILL CA", lag=3, merchant="Uber One", pfc=rides
    )
    for n, day in enumerate(_days("2027-04-02", 55)[::6]):
        rows += card([day], 1_437 + 311 * n, "UBER *TRIP HELP.UBER.COM", merchant="Uber", pfc=rides)
    # WHEN detecting on 3 June
    stream = only(detect(rows, d("2027-06-03")))
    # THEN the membership, seen twice, with its next charge on the 9th
    assert (stream.merchant, stream.status, stream.next_date) == ("Uber One", Status.EARLY_DETECTION, d("2027-06-09"))


def test_a_membership_whose_line_names_it_is_found_twice_among_the_shops_orders() -> None:
    # GIVEN Amazon Prime at 14.99 on the 9th of April and May, among Amazon orders, none of
    # them named by Plaid
    rows = card([d("2027-04-09"), d("2027-05-09")], 1_499, "DEBIT CARD PURCHASE - Amazon Prime*MVV7017WJG", lag=3)
    for n, day in enumerate(_days("2027-04-03", 55)[::9]):
        rows += card([day], 2_318 + 1_207 * n, "AMAZON.COM*2K4L81 AMZN.COM/BILL WA")
    # WHEN detecting on 3 June
    stream = only(detect(rows, d("2027-06-03")))
    # THEN the membership, seen twice: its line names a product the orders' lines do not
    assert (stream.average_amount, stream.status, stream.next_date) == (1_499, Status.EARLY_DETECTION, d("2027-06-09"))


def test_two_plans_at_one_app_store_each_seen_twice_are_two_early_detections() -> None:
    # GIVEN a new user's Apple bills: Apple Music at 10.99 on the 16th and iCloud at 2.99 on
    # the 28th, each charged twice, and nothing else there
    line = "APPLE.COM/BILL 866-712-7753 CA"
    music = card([d("2025-04-16"), d("2025-05-16")], 1099, line, lag=1, merchant="Apple")
    icloud = card([d("2025-04-28"), d("2025-05-28")], 299, line, lag=1, merchant="Apple")
    # WHEN detecting on 2 June
    found = detect(music + icloud, d("2025-06-02"))
    # THEN each plan is a stream, the other's charges explaining the payee's other amount
    assert sorted((s.average_amount, s.status, s.next_date) for s in found) == [
        (299, Status.EARLY_DETECTION, d("2025-06-28")),
        (1099, Status.EARLY_DETECTION, d("2025-06-16")),
    ]
    # BUT with one more purchase there that no plan explains (an app bought once), the two
    # amounts seen twice may be chance: nothing
    app = card([d("2025-05-09")], 499, line, lag=1, merchant="Apple")
    assert detect(music + icloud + app, d("2025-06-02")) == []


def test_two_orders_from_one_marketplace_shop_a_month_apart_are_not_a_plan() -> None:
    # GIVEN two orders from one Etsy shop, a month apart at nearly the same amount, among other
    # Etsy orders
    rows = card([d("2026-12-11"), d("2027-01-08")], 2_336, "ETSY.COM - THAI BASIL", merchant="Etsy")
    rows[1]["amount"] = 2_363
    rows += card([d("2026-12-28"), d("2027-01-06")], 4_171, "ETSY.COM - LOOM AND LUPINE", merchant="Etsy")
    # WHEN detecting on 16 January THEN nothing: a plan charges the very same amount
    assert detect(rows, d("2027-01-16")) == []


def test_a_haircut_at_a_fixed_price_a_month_apart_is_not_recurring() -> None:
    # GIVEN the same 28.00 haircut on 11 April and 11 May, nothing else there
    rows = card([d("2027-04-11"), d("2027-05-11")], 2_800, "GREAT CLIPS #92176", merchant="Great Clips",
                pfc="PERSONAL_CARE_HAIR_AND_BEAUTY")  # fmt: skip
    # WHEN detecting on 25 May THEN nothing: a visit's price, not a plan's
    assert detect(rows, d("2027-05-25")) == []


def test_a_subscription_cancelled_more_than_a_period_and_its_grace_ago_is_not_reported() -> None:
    # GIVEN Spotify at 11.99 on the 9th from January to April, then never again
    rows = card(monthly_days("2026-01-09", 4), 1199, "SPOTIFY USA 877-778-1161 NY", merchant="Spotify")
    # WHEN detecting two days after the May charge was due, it may still come
    assert only(detect(rows, d("2026-05-11"))).next_date == d("2026-06-09")
    # THEN once the last charge is more than a month and a week old, nothing
    assert detect(rows, d("2026-05-18")) == []
    # AND the same with only its last two charges in the window (a new user's history)
    assert only(detect(rows[2:], d("2026-05-11"))).status == Status.EARLY_DETECTION
    assert detect(rows[2:], d("2026-05-18")) == []


# --- what is not a recurring expense -------------------------------------------------------


def _days(first: str, count: int) -> list[date]:
    return [d(first) + timedelta(days=k) for k in range(count)]


def test_everyday_spending_is_not_recurring() -> None:
    rng = random.Random(7)
    rows: list[dict[str, Any]] = []
    for day in _days("2026-01-01", 120):
        # groceries most Saturdays (a day either side now and then), a varying basket
        if day.weekday() == 5 and rng.random() < 0.85:
            shopped = day + timedelta(days=rng.choice((0, 0, -1, 1)))
            rows += card([shopped], int(9000 * rng.lognormvariate(0, 0.3)), "TRADER JOE S #552 AUSTIN TX",
                         merchant="Trader Joe's", pfc="FOOD_AND_DRINK_GROCERIES")  # fmt: skip
        # the same coffee most weekdays
        if day.weekday() < 5 and rng.random() < 0.7:
            rows += card([day], 525, "STARBUCKS STORE 18377", merchant="Starbucks", pfc="FOOD_AND_DRINK_COFFEE")
    day = d("2026-01-02")
    while day < d("2026-05-01"):
        # fuel every few days, and a car wash at a fixed price every two weeks or so
        rows += card([day], rng.randint(2500, 6500), "SHELL OIL 57444", merchant="Shell", pfc="TRANSPORTATION_GAS")
        day += timedelta(days=rng.randint(4, 11))
    day = d("2026-01-04")
    while day < d("2026-05-01"):
        rows += card([day], 1500, "MISTER CAR WASH 23914", merchant="Mister Car Wash")
        day += timedelta(days=rng.randint(9, 20))
    assert detect(rows, d("2026-04-30")) == []


def test_one_offs_and_refunds_are_not_recurring() -> None:
    rows = card([d("2026-01-14"), d("2026-02-21"), d("2026-04-02")], 4999, "BEST BUY 00012345", merchant="Best Buy")
    rows.append(txn(d("2026-02-25"), -4999, "BEST BUY 00012345", merchant="Best Buy"))
    assert detect(rows, d("2026-04-30")) == []


def test_transfers_between_own_accounts_are_not_expenses() -> None:
    firsts = [d("2026-01-02"), d("2026-02-02"), d("2026-03-02"), d("2026-04-01")]
    # a standing transfer to savings, seen arriving in the linked savings account
    rows = ach(firsts, 50000, "ONLINE TRANSFER TO SAV XXXXXX4821 REF #IB0F3K")
    rows += [txn(day, -50000, "ONLINE TRANSFER FROM CHK XXXXXX1234", account="sav") for day in firsts]
    # a transfer to a savings account at another bank (no category), and investing
    rows += ach(firsts, 25000, "ALLY BANK $TRANSFER 8812 PPD")
    rows += ach(firsts, 10000, "ROBINHOOD DEBITS 4471 WEB", merchant="Robinhood")
    # cash, every Friday
    rows += ach([d("2026-01-02") + timedelta(weeks=k) for k in range(16)], 10000, "ATM WITHDRAWAL 8812 AUSTIN TX")
    assert detect(rows, d("2026-04-20")) == []


def test_a_bill_the_same_size_as_a_transfer_is_still_a_bill() -> None:
    # GIVEN internet at 100.00 on the 2nd, and 100.00 moved to savings the day before
    seconds = [d("2026-01-02"), d("2026-02-02"), d("2026-03-02"), d("2026-04-02")]
    bill = ach(
        seconds,
        10000,
        "GOOGLE *FIBER g.co/helppay#",
        merchant="Google Fiber",
        pfc="RENT_AND_UTILITIES_INTERNET_AND_CABLE",
    )
    moved = [day - timedelta(days=1) for day in seconds]
    rows = bill + ach(moved, 10000, "ONLINE TRANSFER TO SAV XXXXXX4821")
    rows += [txn(day, -10000, "ONLINE TRANSFER FROM CHK XXXXXX1234", account="sav") for day in moved]
    # THEN each inflow pairs with one transfer, and the bill stays
    stream = only(detect(rows, d("2026-04-20")))
    assert stream.merchant == "Google Fiber"


def test_rent_paid_by_zelle_is_an_expense_though_categorised_as_a_transfer() -> None:
    firsts = [d("2026-01-02"), d("2026-02-02"), d("2026-03-02"), d("2026-04-01")]
    rows = ach(firsts, 140000, "ZELLE PAYMENT TO MARIA ALVAREZ JPM99B1XYZ", pfc="TRANSFER_OUT_ACCOUNT_TRANSFER")
    stream = only(detect(rows, d("2026-04-20")))
    assert (stream.merchant, stream.frequency) == ("Zelle to Maria Alvarez", "MONTHLY")


# --- the input contract ----------------------------------------------------------------------


def test_only_settled_transactions_up_to_as_of_count_in_any_order() -> None:
    days = monthly_days("2026-01-16", 5)
    rows = card(days, 1549, "NETFLIX.COM 866-579-7172 CA", merchant="Netflix")
    pending = txn(d("2026-04-28"), 1549, "NETFLIX.COM 866-579-7172 CA", merchant="Netflix", pending=True)
    shuffled = [*rows, pending]
    random.Random(3).shuffle(shuffled)
    # WHEN detecting on 20 April, before the May charge (which the list already holds)
    stream = only(detect(shuffled, d("2026-04-20")))
    # THEN the future and the pending charge are not read
    assert set(stream.transaction_ids) == {r["txn_id"] for r in rows[:4]}
    assert stream.next_date == d("2026-05-16") and stream.next_date > d("2026-04-20")


def test_the_result_has_the_contracted_fields() -> None:
    rows = card(monthly_days("2026-01-16", 4), 1549, "NETFLIX.COM 866-579-7172 CA")
    rows += ach([d("2026-01-20"), d("2026-02-20"), d("2026-03-20"), d("2026-04-20")], [8423, 10390, 12877, 9511],
                "COMED PAYMENT 1029563881 WEB", pfc="RENT_AND_UTILITIES_GAS_AND_ELECTRICITY")  # fmt: skip
    found = detect(rows, d("2026-04-25"))
    assert [s.merchant for s in found] == ["Comed", "Netflix"]  # largest monthly cost first
    for stream in found:
        assert (stream.status, stream.kind) == (Status.MATURE, Kind.BILL)
        assert stream.to_dict()["status"] == "MATURE" and stream.to_dict()["kind"] == "bill"
        assert stream.frequency in FREQUENCIES
        assert isinstance(stream.average_amount, int) and stream.average_amount > 0
        assert isinstance(stream.next_date, date) and stream.next_date > d("2026-04-25")
        assert all(isinstance(i, str) for i in stream.transaction_ids)
        assert stream.to_dict()["next_date"] == stream.next_date.isoformat()


def test_nothing_in_nothing_out_and_bad_input_is_refused() -> None:
    assert detect([], d("2026-04-20")) == []
    with pytest.raises(InvalidTransactionError):
        detect([{"txn_id": "x", "amount": 12.5, "date": "2026-04-01"}], d("2026-04-20"))
