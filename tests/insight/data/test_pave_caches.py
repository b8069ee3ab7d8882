"""The Pave caches: label, last page, insights (latest mine), recurring and ritual rows,
income and scores (latest score), each with its key, TTL and write rule."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from chalicelib.insight.data import keys, tables
from chalicelib.insight.data.incomes import Income, get_income, income_item, put_income
from chalicelib.insight.data.insights import Mine, insights_item, latest_insights, list_insights, put_insights
from chalicelib.insight.data.last_pages import (
    LastPage,
    get_last_page,
    last_page_item,
    last_pages,
    mark_processed,
    put_last_page,
)
from chalicelib.insight.data.pave_labels import PaveLabel, get_pave_label, pave_label_item, put_pave_label
from chalicelib.insight.data.recurring_expenses import (
    Expense,
    expense_item,
    put_recurring_expenses,
    recurring_expenses,
)
from chalicelib.insight.data.rituals import put_rituals, rituals
from chalicelib.insight.data.scores import Score, ScoreBand, latest_score, list_scores, put_score, score_item
from chalicelib.settings import get_settings
from tests.insight.data.conftest import NOW, stored

MINE = datetime(2026, 11, 20, 6, 0, tzinfo=UTC)


def an_expense(user_id: str, merchant: str = "netflix", amount: int = 1599, mine: datetime = MINE) -> Expense:
    return Expense(user_id, mine, merchant, "MONTHLY", amount, date(2026, 12, 5), "Netflix", {"category": "video"})


# --- pure row shapes ------------------------------------------------------------------


def test_row_shapes_and_ttls() -> None:
    label = pave_label_item(PaveLabel("u1", NOW, "req-1", {"uploaded_through": "2026-11-19"}))
    assert (label["PK"], label["SK"], label["type"]) == ("LABEL#u1", "PAVE#REFRESH_INSIGHTS", "PAVE_LABEL")
    assert "ttl" not in label

    page = last_page_item(LastPage("u1", "req-1", NOW, pages=3, transaction_count=1200))
    assert (page["SK"], page["type"]) == ("LAST_PAGE#REQUEST_ID#req-1", "LAST_PAGE")
    assert page["ttl"] == int((NOW + timedelta(days=5)).timestamp())

    mine = insights_item(Mine("u1", MINE, "PAVE", "req-1", recurring_count=2))
    assert (mine["PK"], mine["SK"]) == ("MINE#u1", "TIME#2026-11-20T06:00:00.000000Z")
    assert "ttl" not in mine

    expense = expense_item(an_expense("u1"))
    assert expense["SK"] == "RECURRING#2026-11-20T06:00:00.000000Z#MERCHANT#netflix#MONTHLY#1599"
    assert (expense["merchant_uuid"], expense["amount"], expense["amount_string"]) == ("netflix", 1599, "15.99")
    days = get_settings().expense_ttl_days
    assert expense["ttl"] == int((datetime(2026, 12, 5, tzinfo=UTC) + timedelta(days=days)).timestamp())

    income = income_item(Income("u1", NOW, next_payday=date(2026, 11, 27), frequency="BIWEEKLY"))
    assert (income["SK"], income["type"], income["next_payday"]) == ("INCOME#u1", "INCOME", "2026-11-27")
    assert "ttl" not in income

    score = score_item(Score("u1", NOW, (ScoreBand(640, 5_000, 15_000),)))
    assert score["SK"] == "CASH_ADVANCE_SCORE#2026-11-20T12:30:00.123456Z"
    assert score["bands"] == [{"score": 640, "lowest_amount": 5_000, "highest_amount": 15_000}]
    assert score["ttl"] == int((NOW + timedelta(days=get_settings().score_ttl_days)).timestamp())


def test_ttl_days_follow_the_settings(override_settings: object) -> None:
    override_settings(EXPENSE_TTL_DAYS="3", SCORE_TTL_DAYS="90")  # type: ignore[operator]
    assert expense_item(an_expense("u1"))["ttl"] == int(datetime(2026, 12, 8, tzinfo=UTC).timestamp())
    assert score_item(Score("u1", NOW, ()))["ttl"] == int((NOW + timedelta(days=90)).timestamp())


# --- against DynamoDB -----------------------------------------------------------------


@pytest.mark.integration
def test_label_keeps_the_newest(ddb: str, user_id: str) -> None:
    newer = PaveLabel(user_id, NOW + timedelta(minutes=5), "req-2", {"count": 12})
    assert put_pave_label(newer) is True
    assert put_pave_label(PaveLabel(user_id, NOW, "req-1")) is False
    assert get_pave_label(user_id) == newer


@pytest.mark.integration
def test_last_page_is_recorded_once_and_marked_processed(ddb: str, user_id: str) -> None:
    page = LastPage(user_id, "req-1", NOW, pages=2, transaction_count=700)
    assert put_last_page(page) is True
    assert mark_processed(user_id, "req-1") is True
    # a redelivered upload cannot reset a processed request
    assert put_last_page(page) is False
    assert get_last_page(user_id, "req-1").processed is True  # type: ignore[union-attr]
    put_last_page(LastPage(user_id, "req-2", NOW, pages=1, transaction_count=5))
    assert {p.pave_request_id for p in last_pages(user_id)} == {"req-1", "req-2"}
    assert mark_processed(user_id, "req-gone") is False


@pytest.mark.integration
def test_latest_mine_is_the_newest_by_time(ddb: str, user_id: str) -> None:
    for hours in (0, 48, 24):
        assert put_insights(Mine(user_id, MINE + timedelta(hours=hours), "PAVE", f"req-{hours}")) is True
    assert put_insights(Mine(user_id, MINE, "PAVE", "req-0")) is False  # same mine twice: one row
    latest = latest_insights(user_id)
    assert latest is not None and latest.mined_at == MINE + timedelta(hours=48)
    assert [m.pave_request_id for m in list_insights(user_id)] == ["req-48", "req-24", "req-0"]
    assert latest_insights(f"{user_id}-nobody") is None


@pytest.mark.integration
def test_expenses_of_one_mine_only_and_recurring_apart_from_rituals(ddb: str, user_id: str) -> None:
    old_mine = MINE - timedelta(days=1)
    put_recurring_expenses([an_expense(user_id), an_expense(user_id, "spotify", 1099)])
    put_recurring_expenses([an_expense(user_id, "gym", 3000, mine=old_mine)])
    put_rituals([an_expense(user_id, "coffee", 450)])
    found = recurring_expenses(user_id, MINE)
    assert sorted((e.merchant_id, e.amount) for e in found) == [("netflix", 1599), ("spotify", 1099)]
    assert found[0].details == {"category": "video"}
    assert [e.merchant_id for e in recurring_expenses(user_id, old_mine)] == ["gym"]
    ritual_rows = rituals(user_id, MINE)
    assert [(r.merchant_id, r.amount) for r in ritual_rows] == [("coffee", 450)]
    raw = stored(tables.pave(), keys.ritual_key(user_id, "2026-11-20T06:00:00.000000Z", "coffee", "MONTHLY", 450))
    assert raw is not None and raw["merchant_id"] == "coffee" and raw["type"] == "RITUAL"


@pytest.mark.integration
def test_income_keeps_the_newest(ddb: str, user_id: str) -> None:
    newer = Income(user_id, NOW, MINE, date(2026, 11, 27), "BIWEEKLY", "ACME", 125_000, 270_833, ({"name": "ACME"},))
    assert put_income(newer) is True
    assert put_income(Income(user_id, NOW - timedelta(days=1))) is False
    assert get_income(user_id) == newer


@pytest.mark.integration
def test_latest_score_is_the_newest(ddb: str, user_id: str) -> None:
    def band(value: int) -> tuple[ScoreBand, ...]:
        return (ScoreBand(value, 2_000, 10_000),)

    for days, value in ((0, 610), (2, 640), (1, 600)):
        assert put_score(Score(user_id, NOW + timedelta(days=days), band(value), MINE)) is True
    assert put_score(Score(user_id, NOW, band(999), MINE)) is False
    latest = latest_score(user_id)
    assert latest == Score(user_id, NOW + timedelta(days=2), band(640), MINE)
    assert [s.bands[0].score for s in list_scores(user_id)] == [640, 600, 610]
