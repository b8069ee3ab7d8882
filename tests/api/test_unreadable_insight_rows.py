"""Insight rows that cannot be read even as the previous system's: never a failure for the user.

A cache is a miss (computed again, and overwritten where the service writes it); a state row
gets the reading that loses nothing (an alert counts as sent at its ``updated_date``); a
webhook row is left out of the listener's history. Every such read logs the row's key and
counts ``data.row.unreadable`` by entity and reading; no read deletes the row.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest

from chalicelib.data import items
from chalicelib.data import tables as txn_tables
from chalicelib.data.ttl import epoch
from chalicelib.insight import pave_payday
from chalicelib.peers import LOW_BALANCE_ALERT
from chalicelib.pipeline import listener
from chalicelib.pipeline.decisions.listener import Action
from ops.fakes.pave import FakePave
from ops.fakes.peers import FakeSegment
from tests.api.conftest import Api
from tests.api.insight_rows import (
    EXPENSES,
    NOW,
    PAYDAY,
    REVIEW,
    SAVINGS,
    SCORE,
    TODAY,
    VERIFICATION,
    a_savings_month,
    a_verification,
    a_webhook_row,
    an_alert,
    go_time,
    login,
    put,
    raw,
    track,
    unreadable_counted,
    unreadable_logged,
)
from tests.api.test_pave_insights import mined
from tests.api.test_payday import an_earner
from tests.factories import uid
from tests.insight.balances import FakeClock, balances, seed_user

pytestmark = pytest.mark.integration

Logs = list[logging.LogRecord]


# --- caches: a miss ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "broken",
    [{"prediction_date": None}, {"prediction_date": "someday"}, {"fm": "not a prediction"}],
    ids=["no-prediction-date", "prediction-date-no-day", "prediction-not-a-map"],
)
def test_an_unreadable_payday_row_is_computed_again_and_overwritten(
    api: Api,
    routes_at_now: None,
    user_id: str,
    broken: dict[str, Any],
    capsys: pytest.CaptureFixture[str],
    service_logs: Logs,
) -> None:
    # GIVEN an earner and a payday row that cannot be read
    an_earner(user_id)
    row = {"PK": f"PAYDAY#{user_id}", "SK": "PREDICTION", "type": "payday", "prediction_date": TODAY.isoformat()}
    put({k: v for k, v in {**row, "detection_used": "FLOATME_PAYDAY_CALCULATION", **broken}.items() if v is not None})
    capsys.readouterr()
    # WHEN the payday is asked for THEN it is computed
    first = api.get(PAYDAY, path={"user_id": user_id})
    assert first.status_code == 200, first.text
    assert (first.json()["next_payday"], first.json()["from_cache"]) == ("2026-11-27", False)
    # AND the row was reported as a miss, by its key
    assert ("PAYDAY", "miss") in unreadable_counted(capsys.readouterr().out)
    assert ("PAYDAY", {"PK": f"PAYDAY#{user_id}", "SK": "PREDICTION"}, "miss") in unreadable_logged(service_logs)
    # AND overwritten: the next request is served from the cache
    assert raw(f"PAYDAY#{user_id}", "PREDICTION")["user_id"] == user_id
    assert api.get(PAYDAY, path={"user_id": user_id}).json()["from_cache"] is True


def test_an_unreadable_pave_income_row_is_a_miss_left_for_the_next_mine(
    api: Api, routes_at_now: None, user_id: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # GIVEN an earner and a Pave income row whose payday is no day
    an_earner(user_id)
    stored = {"PK": f"USERS#{user_id}", "SK": f"INCOME#{user_id}", "type": "income", "next_payday": "soon"}
    put(stored)
    capsys.readouterr()
    # WHEN the payday is asked for THEN the chain answers without Pave
    response = api.get(PAYDAY, path={"user_id": user_id})
    assert response.status_code == 200, response.text
    assert response.json()["detection_used"] == "FLOATME_V2_PAYDAY_CALCULATION"
    assert ("INCOME", "miss") in unreadable_counted(capsys.readouterr().out)
    # AND the row is left as it was
    assert raw(f"USERS#{user_id}", f"INCOME#{user_id}") == stored


def test_the_pave_miner_replaces_an_income_row_whose_date_is_no_timestamp(
    api: Api, fake_pave: FakePave, user_id: str
) -> None:
    # GIVEN a Pave income row whose updated_date is text that sorts after every timestamp
    put({"PK": f"USERS#{user_id}", "SK": f"INCOME#{user_id}", "type": "INCOME", "updated_date": "unknown"})
    # WHEN Pave mines the user THEN the mine's row replaced it
    mined_at = mined(user_id, fake_pave)
    estimate = pave_payday.latest(user_id)
    assert estimate is not None and estimate.mined_at == mined_at


def test_unreadable_mines_expenses_and_scores_are_misses(
    api: Api, routes_at_now: None, user_id: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # GIVEN a readable mine of this morning with a score, and a later-sorting mine and score whose
    # instants are no timestamps
    mine = "2026-11-20T09:00:00Z"
    users, ttl = f"USERS#{user_id}", epoch(NOW + timedelta(days=20))
    put(
        {"PK": f"MINE#{user_id}", "SK": f"TIME#{mine}", "type": "insights"},
        {"PK": f"MINE#{user_id}", "SK": "TIME#not-a-time", "type": "insights"},
        {"PK": users, "SK": f"CASH_ADVANCE_SCORE#{mine}", "type": "scores", "ttl": ttl},
        {"PK": users, "SK": "CASH_ADVANCE_SCORE#not-a-time", "type": "scores", "ttl": ttl},
        # the readable mine's one expense: its amount no whole number, no due date anywhere
        {"PK": users, "SK": f"RECURRING#{mine}#MERCHANT#m-gym#MONTHLY#29.99", "type": "recurring"},
    )
    capsys.readouterr()
    path = {"user_id": user_id}
    # WHEN the expenses are asked for THEN the readable mine is found, but its expenses are a
    # miss: the service's own detector answers (this user has no history: nothing recurs)
    expenses = api.get(EXPENSES, path=path)
    assert expenses.status_code == 200, expenses.text
    assert (expenses.json()["source"], expenses.json()["expenses"]) == ("ours", [])
    # AND the newest readable score answers
    score = api.get(SCORE, path=path)
    assert score.status_code == 200, score.text
    assert score.json()["scored_at"] == "2026-11-20T09:00:00.000000Z"
    counted = unreadable_counted(capsys.readouterr().out)
    assert {("INSIGHTS", "miss"), ("RECURRING", "miss"), ("SCORES", "miss")} <= set(counted)
    # AND nothing was deleted
    assert raw(users, f"RECURRING#{mine}#MERCHANT#m-gym#MONTHLY#29.99")["type"] == "recurring"
    assert raw(users, "CASH_ADVANCE_SCORE#not-a-time")["type"] == "scores"


# --- state rows: the reading that loses nothing --------------------------------------------


def test_an_unreadable_verification_reads_pending_and_a_review_decides_it(
    api: Api, service_api: Api, user_id: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # GIVEN a verification whose status, update time and notes cannot be read as such
    stored = a_verification(user_id, "escalated", is_valid=True, last_updated=Decimal(1_760_000_000))
    stored["notes"] = "called the employer"
    put(stored)
    capsys.readouterr()
    path = {"user_id": user_id}
    # WHEN the user reads it THEN it is pending and not valid, its one note kept, no update time
    read = api.get(VERIFICATION, path=path)
    assert read.status_code == 200, read.text
    body = read.json()
    assert (body["verification_status"], body["is_valid"], body["last_updated"], body["version"]) == (
        "pending",
        False,
        None,
        1,
    )
    assert [n["text"] for n in body["notes"]] == ["called the employer"]
    assert ("INCOME_VERIFICATION", "conservative") in unreadable_counted(capsys.readouterr().out)
    assert raw(f"USERS#{user_id}", "VERIFICATION") == stored
    # WHEN a service approves the version it read THEN it applies, the notes rewritten whole
    approved = service_api.post(REVIEW, path=path, json={"decision": "approved", "note": "confirmed", "version": 1})
    assert approved.status_code == 200, approved.text
    assert (approved.json()["verification_status"], approved.json()["version"]) == ("approved", 2)
    notes = raw(f"USERS#{user_id}", "VERIFICATION")["notes"]
    assert [n["text"] for n in notes] == ["called the employer", "confirmed"]


def test_a_savings_month_leaves_out_the_accounts_it_cannot_read(
    api: Api, routes_at_now: None, user_id: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # GIVEN this month's savings, one account's amount stored as text
    stored = a_savings_month(user_id, "2026-11", "balance", 1_000, NOW - timedelta(days=1))
    stored["accounts"] = [
        {"account_id": "acct-s", "amount": "12.50", "subtype": "savings"},
        {"account_id": "acct-m", "amount": Decimal(1_000), "subtype": "money market"},
    ]
    put(stored)
    capsys.readouterr()
    # WHEN the user reads their savings THEN the month shows what it can read
    response = api.get(SAVINGS, path={"user_id": user_id})
    assert response.status_code == 200, response.text
    month = response.json()["months"][-1]
    assert (month["month"], month["total_available"]) == ("2026-11", 1_000)
    assert month["accounts"] == [{"account_id": "acct-m", "amount": 1_000, "subtype": "money market"}]
    assert ("BALANCE", "conservative") in unreadable_counted(capsys.readouterr().out)
    assert raw(f"USERS#{user_id}", "SAVINGS_MONTH#2026-11") == stored


def test_an_unreadable_pending_alert_counts_as_sent_at_its_updated_date(
    aws_endpoint: str, user_id: str, segment: FakeSegment, capsys: pytest.CaptureFixture[str], service_logs: Logs
) -> None:
    # GIVEN a low user whose alert row holds an unsent claim of two days ago, its threshold unreadable
    clock = FakeClock()
    seed_user(user_id, checking=balances(2_000, 2_500), threshold_dollars=50)
    claimed = clock() - timedelta(days=2)
    stored = an_alert(
        user_id, ours=True, alert_sent=False, updated_date=go_time(claimed), balance_setting="fifty dollars"
    )
    put(stored)
    capsys.readouterr()
    # WHEN a balance update arrives THEN it succeeds and the cooldown holds: nothing is sent
    assert track(user_id, clock, segment) == {"batchItemFailures": []}
    assert segment.tracks(LOW_BALANCE_ALERT) == []
    assert ("ALERT", "conservative") in unreadable_counted(capsys.readouterr().out)
    key = {"PK": f"USERS#{user_id}", "SK": f"ALERT#{user_id}"}
    assert ("ALERT", key, "conservative") in unreadable_logged(service_logs)
    assert raw(key["PK"], key["SK"]) == stored
    # AND 7 days after it the user is alerted, once
    clock.advance(timedelta(days=5, seconds=1).total_seconds())
    for _ in range(2):
        assert track(user_id, clock, segment) == {"batchItemFailures": []}
    assert len(segment.tracks(LOW_BALANCE_ALERT)) == 1


def test_an_alert_sent_at_a_time_that_cannot_be_read_does_not_stop_alerts(
    aws_endpoint: str, user_id: str, segment: FakeSegment, capsys: pytest.CaptureFixture[str]
) -> None:
    # GIVEN a low user whose alert row says sent, at a time that is no timestamp, and whose
    # savings month was written at such a time too
    clock = FakeClock()
    seed_user(user_id, checking=balances(2_000, 2_500), savings=[balances(70_000)], threshold_dollars=50)
    put(
        an_alert(user_id, ours=True, alert_sent=True, updated_date="last tuesday"),
        a_savings_month(user_id, "2026-11", "balance", 1, NOW) | {"updated_date": "earlier"},
    )
    capsys.readouterr()
    # WHEN balance updates arrive THEN the user is alerted once (the time reads as long ago)
    for _ in range(2):
        assert track(user_id, clock, segment) == {"batchItemFailures": []}
    assert len(segment.tracks(LOW_BALANCE_ALERT)) == 1
    assert ("ALERT", "conservative") in unreadable_counted(capsys.readouterr().out)
    # AND this month's savings are the ones just computed
    assert raw(f"USERS#{user_id}", "SAVINGS_MONTH#2026-11")["total_available"] == 70_000


def test_an_unreadable_webhook_row_is_left_out_of_the_listeners_history(
    aws_endpoint: str, user_id: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # GIVEN an item linked 60 days ago whose one TRANSACTIONS row has no readable instant
    linked = NOW - timedelta(days=60)
    item = items.Item(user_id, uid("item"), uid("access-sandbox"), created_at=linked.isoformat())
    items.create_item(item, linked)
    row = a_webhook_row(user_id, item.item_id, "DEFAULT_UPDATE", NOW - timedelta(hours=1), stamp="an-hour-ago")
    txn_tables.transactions().put_item(Item=row)
    capsys.readouterr()
    # WHEN the user logs in THEN the item is mined (the row is not taken for a recent mine)
    [decision] = listener.handle_message(login(user_id), NOW)
    assert decision.action is Action.DEFAULT_UPDATE
    assert ("WEBHOOK_INFO", "left_out") in unreadable_counted(capsys.readouterr().out)
    stored = txn_tables.transactions().get_item(Key={"PK": row["PK"], "SK": row["SK"]}, ConsistentRead=True)
    assert stored["Item"]["type"] == "WEBHOOK_INFO"
