"""The cash-flow forecast over HTTP: the days asked for, who may read, no forecast without a
history, Pave's bills when fresh, and the reads one call makes."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

import pytest

from chalicelib.aws.clients import dynamodb_hook
from chalicelib.data.ttl import utcnow
from chalicelib.insight.data import insights, recurring_expenses
from chalicelib.insight.data.recurring_expenses import Expense
from chalicelib.settings import get_settings
from ops.fakes.auth0 import FakeAuth0
from tests.api.conftest import Api, error_code
from tests.insight.forecast_users import GROCERIES, PAY, RENT, ForecastUser, store_forecast_user

pytestmark = pytest.mark.integration

FORECAST = "/v1/users/{user_id}/forecast"


def stored(user_id: str, threshold: int | None = 100) -> ForecastUser:
    now = utcnow()
    return store_forecast_user(user_id, now.date(), now, available=120_000, threshold_dollars=threshold)


@contextmanager
def requests_made() -> Iterator[Counter[tuple[str, str, str]]]:
    """Every DynamoDB request of the app, as (operation, table, index)."""
    seen: Counter[tuple[str, str, str]] = Counter()

    def record(model: Any, params: dict[str, Any], **_: Any) -> None:
        seen[(model.name, str(params.get("TableName")), str(params.get("IndexName", "")))] += 1

    with dynamodb_hook("before-parameter-build.dynamodb", record):
        yield seen


def test_the_forecast_of_a_paid_user(api: Api, user_id: str) -> None:
    # GIVEN 120 days of a user paid every other Friday, rent on the 1st, groceries daily, a $100 threshold
    user = stored(user_id)
    # WHEN they ask for three weeks
    response = api.get(FORECAST, path={"user_id": user_id}, params={"days": "21"})
    # THEN one balance per day after today, from the designated main account's balance
    assert response.status_code == 200
    body = response.json()
    today = utcnow().date()
    assert body["as_of"] == today.isoformat() and body["confidence"] in ("high", "medium", "low")
    assert [d["date"] for d in body["days"]] == [(today + timedelta(days=k)).isoformat() for k in range(1, 22)]
    assert (body["account_id"], body["account_rule"]) == (user.checking_id, "designated_main_account")
    assert (body["starting_balance_cents"], body["balance_source"]) == (120_000, "available")
    assert body["lowest"] == min(body["days"], key=lambda d: (d["balance_cents"], d["date"]))
    # AND the risks, against the user's own threshold
    assert body["threshold_cents"] == 10_000 and body["risk_below_threshold"] is not None
    # AND the events behind it: the paychecks, groceries as the daily rate, bills from our detector
    events = body["events"]
    assert {e["amount_cents"] for e in events if e["kind"] == "payday"} == {PAY}
    [spending] = [e for e in events if e["kind"] == "everyday_spending"]
    assert (spending["amount_cents"], spending["source"], spending["date"]) == (-GROCERIES, "history", None)
    assert set(spending["weekday_cents"].values()) == {GROCERIES}
    assert body["bills_source"] == "ours"
    assert all(e["amount_cents"] == -RENT for e in events if e["kind"] == "bill")


def test_fourteen_days_by_default_and_a_service_may_read_it(service_api: Api, user_id: str) -> None:
    stored(user_id, threshold=None)
    body = service_api.get(FORECAST, path={"user_id": user_id}).json()
    assert len(body["days"]) == 14
    assert body["threshold_cents"] is None and body["risk_below_threshold"] is None
    assert body["risk_below_zero"] is not None


def test_a_user_without_history_gets_confidence_none_and_the_reason(api: Api, user_id: str) -> None:
    body = api.get(FORECAST, path={"user_id": user_id}).json()
    assert (body["confidence"], body["reason"]) == ("none", "0 days of history, 30 needed")
    assert body["days"] == [] and body["lowest"] is None and body["risk_below_zero"] is None


@pytest.mark.parametrize("days", ["0", "36", "x", "1.5", "-3"])
def test_days_outside_1_to_35_are_a_400(api: Api, user_id: str, days: str) -> None:
    response = api.get(FORECAST, path={"user_id": user_id}, params={"days": days})
    assert (response.status_code, error_code(response)) == (400, "bad_request")
    assert "days" in response.json()["error"]["details"]["fields"]


def test_another_users_forecast_is_forbidden(api: Api, auth0: FakeAuth0, user_id: str) -> None:
    other = api.as_token(auth0.user_token(f"{user_id}-other"))
    response = other.get(FORECAST, path={"user_id": user_id})
    assert (response.status_code, error_code(response)) == (403, "forbidden")


def test_pave_bills_when_its_mine_is_fresh(api: Api, user_id: str) -> None:
    # GIVEN a Pave mine an hour old that knows a gym membership due in three days
    stored(user_id)
    now = utcnow()
    mined_at, due = now - timedelta(hours=1), now.date() + timedelta(days=3)
    insights.put_insights(insights.Mine(user_id, mined_at, "PAVE", "req_1", 1, 0))
    recurring_expenses.put_recurring_expenses([Expense(user_id, mined_at, "m-gym", "MONTHLY", 4_999, due, "Gym Co")])
    # WHEN forecast THEN the bill is Pave's, on its day
    body = api.get(FORECAST, path={"user_id": user_id}).json()
    assert body["bills_source"] == "pave"
    bills = [(e["name"], e["date"], e["amount_cents"], e["source"]) for e in body["events"] if e["kind"] == "bill"]
    assert ("Gym Co", due.isoformat(), -4_999, "pave") in bills


def test_one_call_reads_each_table_once_and_pave_twice_when_its_mine_answers(api: Api, user_id: str) -> None:
    settings = get_settings()
    stored(user_id)
    # WHEN forecast without a Pave mine
    with requests_made() as ours:
        assert api.get(FORECAST, path={"user_id": user_id}).status_code == 200
    # THEN one Query each: items, accounts, the history (GSI1), the newest mine; one GetItem: the threshold
    assert ours == {
        ("Query", settings.plaid_table, ""): 1,
        ("Query", settings.transactions_table, ""): 1,
        ("Query", settings.transactions_table, "GSI1"): 1,
        ("Query", settings.pave_table, ""): 1,
        ("GetItem", settings.user_balance_settings_table, ""): 1,
    }
    # AND with a fresh Pave mine, its recurring expenses are one Query more
    mined_at = utcnow() - timedelta(minutes=5)
    insights.put_insights(insights.Mine(user_id, mined_at, "PAVE", "req_2", 0, 0))
    with requests_made() as pave:
        assert api.get(FORECAST, path={"user_id": user_id}).json()["bills_source"] == "pave"
    assert pave == {**ours, ("Query", settings.pave_table, ""): 2}
