"""The demo's forecast chart: a bar per day, negative balances left of the zero line, the lowest day marked."""

from __future__ import annotations

from datetime import timedelta

from chalicelib.insight.forecast import forecast
from chalicelib.insight.payday import predict
from ops.demo import forecast_chart
from tests.insight.test_forecast import AS_OF, FIRST, advances_and_collections, checking, fridays, rent_bill, salaried


def test_a_bar_per_day_and_the_lowest_day_marked_once() -> None:
    # GIVEN a forecast whose rent falls the day before payday (a dip below zero)
    history = salaried()
    payday = predict(history, AS_OF).next_payday
    assert payday is not None
    body = forecast(history, [checking(30_000)], AS_OF, 14, 10_000, bills=[rent_bill(payday - timedelta(days=1))])
    # WHEN drawn
    lines = forecast_chart(body.to_dict())
    # THEN one line per day, the lowest (negative) one marked and drawn left of the zero line
    days = [line for line in lines if "|" in line]
    assert len(days) == 14
    [marked] = [line for line in days if line.endswith("<- lowest")]
    assert marked.startswith((payday - timedelta(days=1)).strftime("%a %m-%d")) and "-$1,580.00" in marked
    assert "--|" in marked and all(line.index("|") == marked.index("|") for line in days)
    # AND the events and the risks follow
    assert any("Oakwood Apartments (pave)" in line for line in lines)
    assert lines[-1].startswith("risk of going below $0 before the next payday") and "100%" in lines[-1]


def test_no_forecast_is_one_line_with_the_reason() -> None:
    assert forecast_chart({"confidence": "none", "reason": "12 days of history, 30 needed"}) == [
        "no forecast: 12 days of history, 30 needed"
    ]


def test_event_lines_keep_their_columns_whatever_the_kinds() -> None:
    # GIVEN a forecast with a bill, a paycheck and another app's advance and its collection
    history = salaried() + advances_and_collections(fridays(FIRST + timedelta(days=6), AS_OF), 10_000)
    payday = predict(history, AS_OF).next_payday
    assert payday is not None
    body = forecast(history, [checking(30_000)], AS_OF, 14, bills=[rent_bill(payday + timedelta(days=1))])
    # WHEN drawn
    lines = [line for line in forecast_chart(body.to_dict()) if line[:4].isdigit()]
    # THEN each event's amount ends in the same column
    kinds = {line.split()[1] for line in lines}
    assert {"payday", "bill", "payday_deposit", "payday_debit"} <= kinds
    ends = {line.index("$") + len(line.split("$")[1].split()[0]) for line in lines}
    assert len(ends) == 1
