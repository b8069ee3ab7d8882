"""The cash-flow forecast's guarantees, on hand-built histories whose answers are known."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest

from chalicelib.insight.calendar import add_business_days
from chalicelib.insight.forecast import Bill, InvalidForecastError, forecast
from chalicelib.insight.forecast.accounts import InvalidAccountError
from chalicelib.insight.forecast.income import Payday, alternative_readings
from chalicelib.insight.forecast.rhythms import rhythms
from chalicelib.insight.forecast.simulate import rate_standard_error, simulate
from chalicelib.insight.forecast.spending import DailyFlows
from chalicelib.insight.payday import ChainResult, predict
from chalicelib.insight.payday.types import Detection, PaydayPrediction
from chalicelib.insight.transactions import parse as parse_txn
from tests.insight.builders import d, paychecks, txn

AS_OF = d("2026-11-22")  # a Sunday
FIRST = AS_OF - timedelta(days=119)
PAY = 200_000
RENT = 180_000
DAILY = 2_000


def fridays(start: date, end: date, every: int = 14) -> list[date]:
    """Every ``every`` days from the first Friday on or after ``start``, to ``end``."""
    day = start + timedelta(days=(4 - start.weekday()) % 7)
    out = []
    while day <= end:
        out.append(day)
        day += timedelta(days=every)
    return out


def everyday(start: date, end: date, cents: int = DAILY, account: str = "chk") -> list[dict[str, Any]]:
    days = (end - start).days + 1
    return [txn(start + timedelta(days=k), cents, "CORNER MARKET 0042", account_id=account) for k in range(days)]


def rent_charges(start: date, end: date, day_of_month: int = 28) -> list[dict[str, Any]]:
    out = []
    day = date(start.year, start.month, day_of_month)
    while day <= end:
        if day >= start:
            out.append(
                txn(
                    day,
                    RENT,
                    "OAKWOOD APARTMENTS RENT WEB PMTS",
                    personal_finance_category={"primary": "RENT_AND_UTILITIES", "detailed": "RENT_AND_UTILITIES_RENT"},
                )
            )
        day = date(day.year + (day.month == 12), day.month % 12 + 1, day_of_month)
    return out


def checking(available: int | None, current: int | None = None, account_id: str = "chk") -> dict[str, Any]:
    return {
        "account_id": account_id,
        "type": "depository",
        "subtype": "checking",
        "available": available,
        "current": current,
    }


def salaried() -> list[dict[str, Any]]:
    """120 days: $2,000 every other Friday, rent on the 28th, $20 of groceries every day."""
    return (
        paychecks(fridays(FIRST + timedelta(days=6), AS_OF), PAY) + rent_charges(FIRST, AS_OF) + everyday(FIRST, AS_OF)
    )


def rent_bill(due: date) -> Bill:
    return Bill(name="Oakwood Apartments", frequency="MONTHLY", amount=RENT, next_date=due, source="pave")


# --- the guarantees -----------------------------------------------------------------------


def test_a_paycheck_the_day_before_rent_keeps_the_balance_positive() -> None:
    # GIVEN a salaried user with $300 in checking, paid the day before rent is due
    history = salaried()
    payday = predict(history, AS_OF).next_payday
    assert payday is not None and 1 < (payday - AS_OF).days < 13
    # WHEN the next 14 days are forecast
    found = forecast(history, [checking(30_000)], AS_OF, bills=[rent_bill(payday + timedelta(days=1))])
    # THEN the balance stays positive through rent, and so does the risk
    assert found.confidence != "none"
    assert found.lowest is not None and found.lowest.balance_cents > 0
    by_day = {x.date: x.balance_cents for x in found.days}
    expected_after_rent = 30_000 + PAY - RENT - DAILY * (payday - AS_OF).days - DAILY
    assert by_day[payday + timedelta(days=1)] == pytest.approx(expected_after_rent, abs=500)
    assert found.risk_below_zero is not None and found.risk_below_zero < 0.1


def test_rent_the_day_before_the_paycheck_takes_the_balance_below_zero() -> None:
    # GIVEN the same user, but rent falls the day before the paycheck
    history = salaried()
    payday = predict(history, AS_OF).next_payday
    assert payday is not None
    # WHEN forecast
    found = forecast(history, [checking(30_000)], AS_OF, bills=[rent_bill(payday - timedelta(days=1))])
    # THEN it dips by about the rent on that day, and going below zero before payday is all but certain
    assert found.lowest is not None and found.lowest.date == payday - timedelta(days=1)
    assert found.lowest.balance_cents < -RENT + 30_000
    assert found.risk_below_zero is not None and found.risk_below_zero > 0.95


def test_a_user_with_no_payroll_gets_no_forecast() -> None:
    # GIVEN 120 days of spending and no income at all
    history = everyday(FIRST, AS_OF) + rent_charges(FIRST, AS_OF)
    # WHEN forecast
    found = forecast(history, [checking(50_000)], AS_OF, threshold_cents=10_000)
    # THEN confidence is none, with the reason, and no numbers dressed up as a forecast
    assert found.confidence == "none"
    assert found.reason is not None and found.reason.startswith("no payday prediction")
    assert found.days == () and found.lowest is None
    assert found.risk_below_zero is None and found.risk_below_threshold is None


def test_less_than_30_days_of_history_gets_no_forecast() -> None:
    start = AS_OF - timedelta(days=27)
    history = paychecks(fridays(start, AS_OF, 7), PAY // 2) + everyday(start, AS_OF)
    found = forecast(history, [checking(50_000)], AS_OF)
    assert found.confidence == "none"
    assert found.reason == "28 days of history, 30 needed"


# --- the contract -------------------------------------------------------------------------


@pytest.mark.parametrize("days", [1, 14, 35])
def test_one_balance_per_day_after_as_of_and_the_lowest_among_them(days: int) -> None:
    found = forecast(salaried(), [checking(90_000)], AS_OF, days)
    assert [x.date for x in found.days] == [AS_OF + timedelta(days=k) for k in range(1, days + 1)]
    assert found.lowest == min(found.days, key=lambda x: (x.balance_cents, x.date))
    assert found.risk_below_threshold is None and found.threshold_cents is None
    assert found.risk_below_zero is not None and 0.0 <= found.risk_below_zero <= 1.0


def test_a_threshold_gives_the_risk_of_going_below_it_before_payday() -> None:
    history = salaried()
    low = forecast(history, [checking(5_000)], AS_OF, threshold_cents=10_000)
    high = forecast(history, [checking(500_000)], AS_OF, threshold_cents=10_000)
    assert low.risk_below_threshold == 1.0  # already below, and spending goes on until payday
    assert high.risk_below_threshold == 0.0
    assert low.risk_below_zero is not None and high.risk_below_zero == 0.0


def test_the_same_inputs_give_the_same_forecast() -> None:
    history = salaried()
    first = forecast(history, [checking(40_000)], AS_OF, 21, 5_000)
    assert forecast(list(reversed(history)), [checking(40_000)], AS_OF, 21, 5_000).to_dict() == first.to_dict()


@pytest.mark.parametrize("days", [0, 36, True, "14"])
def test_days_outside_1_to_35_are_refused(days: Any) -> None:
    with pytest.raises(InvalidForecastError):
        forecast(salaried(), [checking(1)], AS_OF, days)


def test_an_account_without_integer_cents_is_refused() -> None:
    with pytest.raises(InvalidAccountError):
        forecast(salaried(), [{**checking(None), "available": 12.5}], AS_OF)


def test_the_forecast_ignores_what_happens_after_as_of() -> None:
    history = salaried()
    later = [txn(AS_OF + timedelta(days=2), 999_999, "CAR DEALER"), *paychecks([AS_OF + timedelta(days=1)], 10)]
    assert (
        forecast(history + later, [checking(40_000)], AS_OF).to_dict()
        == forecast(history, [checking(40_000)], AS_OF).to_dict()
    )


# --- which account ------------------------------------------------------------------------


def test_it_projects_the_checking_account_payroll_lands_in() -> None:
    history = salaried() + everyday(FIRST, AS_OF, 500, account="chk2") + everyday(FIRST, AS_OF, 700, account="chk2")
    accounts = [
        checking(10_000, account_id="chk2"),
        checking(20_000),
        {**checking(900_000, account_id="sav"), "subtype": "savings"},
    ]
    found = forecast(history, accounts, AS_OF)
    assert (found.account_id, found.account_rule, found.starting_balance_cents) == ("chk", "payroll_lands_here", 20_000)


def test_the_designated_main_account_wins_and_current_stands_in_for_available() -> None:
    accounts = [checking(20_000), checking(None, 7_000, account_id="chk2")]
    found = forecast(salaried(), accounts, AS_OF, main_account_id="chk2")
    assert (found.account_id, found.account_rule) == ("chk2", "designated_main_account")
    assert (found.starting_balance_cents, found.balance_source) == (7_000, "current")


def test_without_a_checking_account_there_is_no_forecast() -> None:
    card = {"account_id": "cc", "type": "credit", "subtype": "credit card", "available": 100_000, "current": 0}
    found = forecast(salaried(), [card], AS_OF)
    assert (found.confidence, found.reason) == ("none", "no checking account to project")


# --- everyday spending and bills ------------------------------------------------------------


def test_everyday_spending_is_a_weekday_pattern_without_bills_transfers_or_one_offs() -> None:
    # GIVEN $30 every weekday and $60 every weekend day, and besides: rent, a transfer to
    # savings every payday and one $1,900 laptop
    start = AS_OF - timedelta(days=83)
    days = [start + timedelta(days=k) for k in range(84)]
    history = [txn(day, 6_000 if day.weekday() >= 5 else 3_000, "CORNER MARKET 0042") for day in days]
    history += paychecks(fridays(FIRST, AS_OF), PAY) + rent_charges(FIRST, AS_OF)
    history += [
        txn(p + timedelta(days=1), 25_000, "ONLINE TRANSFER TO SAV 1234")
        for p in fridays(FIRST, AS_OF - timedelta(days=2))
    ]
    history.append(txn(AS_OF - timedelta(days=40), 190_000, "BEST BUY 00123"))
    # WHEN forecast, with rent as a known bill
    found = forecast(history, [checking(100_000)], AS_OF, bills=[rent_bill(d("2026-11-28"))])
    # THEN the spending rate is the $38.57 a day the purchases average, weekends above weekdays
    spending = next(e for e in found.events if e.kind == "everyday_spending")
    assert spending.amount_cents == -round((5 * 3_000 + 2 * 6_000) / 7)
    assert spending.weekday_cents is not None and spending.weekday_cents[5] > spending.weekday_cents[0]
    # AND the transfers to savings, every other Saturday, are projected on their rhythm; the
    # laptop is nothing, and no other money moves
    transfers = [(e.date, e.amount_cents, e.frequency) for e in found.events if e.kind == "transfer"]
    last = max(p for p in fridays(FIRST, AS_OF - timedelta(days=2))) + timedelta(days=1)
    assert transfers == [(last + timedelta(days=14), -25_000, "BIWEEKLY")]
    assert next(e for e in found.events if e.kind == "other_flows").amount_cents == 0
    # AND rent is a dated bill from its source, the paycheck a dated payday
    bills = [e for e in found.events if e.kind == "bill"]
    assert [(e.date, e.amount_cents, e.source) for e in bills] == [(d("2026-11-28"), -RENT, "pave")]
    assert [e.amount_cents for e in found.events if e.kind == "payday"] == [PAY]


def test_a_bill_charged_to_a_credit_card_is_not_projected_on_checking() -> None:
    card_charges = [
        txn(day, 1_599, "NETFLIX.COM", account_id="cc", merchant_name="Netflix") for day in fridays(FIRST, AS_OF, 28)
    ]
    netflix = Bill(
        name="Netflix", frequency="MONTHLY", amount=1_599, next_date=AS_OF + timedelta(days=3), source="pave"
    )
    accounts = [
        checking(100_000),
        {"account_id": "cc", "type": "credit", "subtype": "credit card", "available": 0, "current": 0},
    ]
    found = forecast(salaried() + card_charges, accounts, AS_OF, bills=[netflix])
    assert [e for e in found.events if e.kind == "bill"] == []


def test_an_ended_stream_is_not_projected_and_a_card_payment_is() -> None:
    ended = Bill("Gym", "MONTHLY", 4_000, AS_OF + timedelta(days=2), "ours", status="ENDED")
    autopay = Bill("Chase Card", "MONTHLY", 60_000, AS_OF + timedelta(days=4), "ours", kind="card_payment")
    found = forecast(salaried(), [checking(100_000)], AS_OF, bills=[ended, autopay])
    assert [(e.name, e.amount_cents) for e in found.events if e.kind == "bill"] == [("Chase Card", -60_000)]


def test_without_given_bills_the_detector_finds_rent() -> None:
    found = forecast(salaried(), [checking(100_000)], AS_OF, 14)
    rent = [e for e in found.events if e.kind == "bill"]
    assert [(e.date.day if e.date else None, e.amount_cents, e.source) for e in rent] == [(30, -RENT, "ours")]


def test_spending_that_comes_in_big_days_is_simulated_as_it_comes() -> None:
    # GIVEN a user who spends nothing most days and $700 on one day in seven (no weekday
    # to it): $100 a day on average
    start = AS_OF - timedelta(days=83)
    big_days = {start + timedelta(days=k) for k in range(0, 84, 7)}
    shuffled = {day + timedelta(days=(k * 3) % 7) for k, day in enumerate(sorted(big_days))}
    history = [txn(day, 70_000, "HOME GOODS 0042") for day in sorted(shuffled)]
    history += paychecks(fridays(FIRST, AS_OF), PAY) + everyday(FIRST, start - timedelta(days=1), 10_000)
    payday = predict(history, AS_OF).next_payday
    assert payday is not None
    # WHEN forecast with a threshold $250 under today's balance, three days before payday
    days_before = (payday - AS_OF).days - 1
    found = forecast(history, [checking(100_000)], AS_OF, threshold_cents=100_000 - 25_000)
    # THEN the expected path crosses it, but the risk is the chance of a big day before
    # payday: 1 - (6/7) ** days, not near certainty
    assert found.days[days_before - 1].balance_cents < 75_000
    assert found.risk_below_threshold == pytest.approx(1 - (6 / 7) ** days_before, abs=0.12)


def test_the_rates_error_shrinks_with_the_days_they_were_read_from() -> None:
    # GIVEN days whose flows swing $20 either side of the rates, read over 30 and over 120 days
    month, four_months = [2000.0, -2000.0] * 15, [2000.0, -2000.0] * 60
    # WHEN the simulation sizes the error of the rates
    # THEN it is the swing over the root of the days read: a future's mean day is that uncertain
    assert rate_standard_error(month) == pytest.approx(2000 / 30**0.5)
    assert rate_standard_error(four_months) == pytest.approx(2000 / 120**0.5)
    # AND days that never swing leave the rates certain
    assert rate_standard_error([0.0] * 90) == 0.0 == rate_standard_error([500.0])


def test_a_roommates_share_that_comes_either_side_of_rent_makes_going_low_a_coin_toss() -> None:
    # GIVEN a salaried user whose roommate sends $900 around the 24th, on the 24th or two days
    # later, month by month; rent of $1,800 is due on the 25th
    shares = [d("2026-07-26"), d("2026-08-24"), d("2026-09-26"), d("2026-10-24")]
    history = salaried() + [txn(day, -90_000, "ZELLE FROM SAM RIVERA") for day in shares]
    rent = rent_bill(d("2026-11-25"))
    # WHEN forecast from $1,500 with a $100 threshold
    found = forecast(history, [checking(150_000)], AS_OF, threshold_cents=10_000, bills=[rent])
    # THEN the share is projected on the 24th, the day before rent ...
    share = [(e.date, e.amount_cents) for e in found.events if e.kind == "deposit"]
    assert share == [(d("2026-11-24"), 90_000)]
    # ... but the futures draw its day as it has come: half of them see rent go out first
    assert found.risk_below_threshold_in_days is not None
    assert 0.3 < found.risk_below_threshold_in_days < 0.7


def test_a_rhythms_offsets_are_how_it_fell_against_its_rule_across_month_ends() -> None:
    # GIVEN a standing transfer at the month's end: 30 July, 1 September, 30 September, 31 October
    days = [d("2026-07-30"), d("2026-09-01"), d("2026-09-30"), d("2026-10-31")]
    flows = [parse_txn(txn(day, 40_000, "ONLINE TRANSFER TO SAV 1234")) for day in days]
    # WHEN its rhythm is read on 22 November
    [found] = rhythms(flows, AS_OF, excluded=set())
    # THEN its rule is the 30th (the median day of its last three), and each occurrence is
    # read against the nearer 30th: on it, two days after August's, on it, a day after
    assert (found.period, found.day_of_month) == (30, 30)
    assert found.offsets == (0, 2, 0, 1)


def advances_and_collections(paydays: list[date], cents: int) -> list[dict[str, Any]]:
    """Another app's advance two business days before each payday, collected with a $5 fee on it."""
    loan = {"primary": "LOAN_PAYMENTS", "detailed": "LOAN_PAYMENTS_PERSONAL_LOAN_PAYMENT"}
    out = []
    for payday in paydays:
        out.append(txn(add_business_days(payday, -2), -cents, "EARNIN ACTIVEHOURS"))
        out.append(txn(payday, cents + 500, "EARNIN ACTIVEHOURS REPAYMENT", personal_finance_category=loan))
    return out


def test_another_apps_advance_comes_before_payday_and_is_collected_on_it() -> None:
    # GIVEN the salaried user, whose other cash-advance app lends $100 two business days before
    # each paycheck and takes $105 the day it lands
    paid = fridays(FIRST + timedelta(days=6), AS_OF)
    history = salaried() + advances_and_collections(paid, 10_000)
    payday = predict(history, AS_OF).next_payday
    assert payday is not None
    advance_day = add_business_days(payday, -2)
    rent = [rent_bill(payday + timedelta(days=5))]
    # WHEN both histories are forecast from $300
    plain = forecast(salaried(), [checking(30_000)], AS_OF, bills=rent)
    found = forecast(history, [checking(30_000)], AS_OF, bills=rent)
    # THEN the advance and its collection are events at their days ...
    tied = sorted((e.date, e.kind, e.amount_cents) for e in found.events if e.kind.startswith("payday_"))
    assert tied == [(advance_day, "payday_deposit", 10_000), (payday, "payday_debit", -10_500)]
    # ... the path is the plain one until the advance, $100 higher from it to payday's eve (not
    # lowered by a share of the collection each day), and $5 lower from payday on
    before = {x.date: x.balance_cents for x in plain.days}
    after = {x.date: x.balance_cents for x in found.days}
    assert all(after[day] == before[day] for day in before if day < advance_day)
    assert all(after[day] == before[day] + 10_000 for day in before if advance_day <= day < payday)
    assert all(after[day] == before[day] - 500 for day in before if day >= payday)


def test_a_shop_visited_on_paydays_and_on_other_days_stays_everyday_spending() -> None:
    # GIVEN the salaried user, who also shops at a warehouse store every payday and twice between
    paid = fridays(FIRST + timedelta(days=6), AS_OF)
    visits = sorted({*paid, *(p + timedelta(days=k) for p in paid for k in (4, 9) if p + timedelta(days=k) <= AS_OF)})
    history = salaried() + [txn(day, 9_000, "COSTCO WHSE #0113") for day in visits]
    # WHEN forecast
    found = forecast(history, [checking(30_000)], AS_OF)
    # THEN nothing is tied to payday: its three visits a fortnight are in the daily rate
    assert [e for e in found.events if e.kind == "payday_debit"] == []
    [spending] = [e for e in found.events if e.kind == "everyday_spending"]
    assert spending.amount_cents == pytest.approx(-(DAILY + 3 * 9_000 / 14), abs=100)


def test_an_app_the_user_stopped_using_is_not_projected() -> None:
    # GIVEN the salaried user, who used the other app for five paydays and not the last three
    paid = fridays(FIRST + timedelta(days=6), AS_OF)
    history = salaried() + advances_and_collections(paid[:-3], 10_000)
    # WHEN forecast
    found = forecast(history, [checking(30_000)], AS_OF)
    # THEN neither the advance nor its collection is expected again
    assert [e for e in found.events if e.kind.startswith("payday_")] == []


# --- the payday model's other readings -----------------------------------------------------


def steady_spending(cents: int) -> DailyFlows:
    """84 days of exactly ``cents`` a day: no uncertainty but the payday's."""
    return DailyFlows(AS_OF - timedelta(days=83), 84, (float(cents),) * 7, 0.0, (0.0,) * 84, ())


def test_another_reading_that_puts_payday_later_is_drawn_with_its_probability() -> None:
    # GIVEN $300, $50 spent a day, the answer's payday in 3 days (80 % sure), and another
    # reading of the deposits, 20 % likely, that puts it 10 days out
    paycheck = Payday(AS_OF + timedelta(days=3), PAY, (PAY,))
    later = Payday(AS_OF + timedelta(days=10), PAY, (PAY,))
    common = {"as_of": AS_OF, "start": 30_000, "horizon": 14, "days": 14, "bills": (), "threshold": 0, "seed": "s"}
    # WHEN simulated without it and with it
    alone = simulate(**common, flows=steady_spending(5_000), paydays=[paycheck], payday_confidence=0.8)
    mixed = simulate(
        **common, flows=steady_spending(5_000), paydays=[paycheck], payday_confidence=0.8, alternatives=[(0.2, [later])]
    )
    # THEN alone, a day late at most, $200 is spent and the balance holds; with it, about one
    # future in five waits ten days, spends $500 and goes below zero
    assert alone.risk_below_zero == 0.0
    assert mixed.risk_below_zero == pytest.approx(0.2, abs=0.05)


def test_the_readings_more_than_a_business_day_away_share_the_chance_the_answer_is_wrong() -> None:
    # GIVEN an answer 90 % sure, whose model read the deposits three ways: the answer's date
    # (70 % of the posterior), the business day after (10 %) and two weeks later (20 %)
    payday = d("2026-12-04")
    after, later = add_business_days(payday, 1), payday + timedelta(days=14)
    readings = ((0.7, (payday,)), (0.1, (after,)), (0.2, (later,)))
    chain = chain_of(payday, 0.9, readings)
    # WHEN the forecast asks for the other readings
    found = alternative_readings(chain, 0.9, payday + timedelta(days=45))
    # THEN only the far one is drawn on its own, with its share of the 10 %: 0.1 x 0.2 / 0.3
    assert found == [(pytest.approx(0.1 * 0.2 / 0.3), (later,))]


def chain_of(payday: date, confidence: float, readings: Any) -> ChainResult:
    answer = PaydayPrediction(Detection.FLOATME_V2, payday, "BIWEEKLY", confidence, readings=readings)
    return ChainResult(answer, Detection.FLOATME_V2, True, False, None, answer, None)
