"""The insight tables' rows in the formats the system this service replaces wrote, read by every
route and handler that reads them.

Each row carries exactly the keys and attributes that system documents for its entity
(:mod:`tests.api.insight_rows`): the user (and a month, a mine's instant, a merchant ...) only
in the keys, its entity names in ``type``, a verification without ``version`` and with its
notes as plain strings, timestamps with nanoseconds, Pave-derived caches with nothing but
their keys. Each is written raw; then the routes are called over HTTP (every response checked
against the OpenAPI document by :class:`Api`) and the handlers as their consumers run them.
Each answers what the row says, never a 500, and every message succeeds.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from chalicelib.data import items
from chalicelib.data import tables as txn_tables
from chalicelib.data.ttl import epoch
from chalicelib.insight import pave_payday
from chalicelib.insight.data import alerts
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
)
from tests.api.test_pave_insights import mined
from tests.api.test_payday import an_earner
from tests.factories import uid
from tests.insight.balances import FakeClock, balances, seed_user

pytestmark = pytest.mark.integration


# --- payday and Pave's income --------------------------------------------------------------


def test_a_payday_row_of_today_is_computed_again_and_overwritten(api: Api, routes_at_now: None, user_id: str) -> None:
    # GIVEN an earner paid every other Friday, and the previous system's cache row of today
    an_earner(user_id)
    collection = {"instant": "2026-11-27", "standard": "2026-11-30", "extended": "2026-12-01"}
    put(
        {
            "PK": f"PAYDAY#{user_id}",
            "SK": "PREDICTION",
            "type": "payday",
            "prediction_date": TODAY.isoformat(),
            "detection_used": "FLOATME_PAYDAY_CALCULATION",
            "next_date": "2026-11-27",
            "source": "ACME CORP",
            "frequency": "BIWEEKLY",
            "loan_id": "loan-7",
            "created_date": go_time(NOW - timedelta(hours=6)),
            "fm": {"payday": "2026-11-27", "cadence": "BIWEEKLY", **collection},
            "pave": None,
            "v2": None,
            "ttl": epoch(NOW + timedelta(days=1)),
        }
    )
    # WHEN the payday is asked for
    first = api.get(PAYDAY, path={"user_id": user_id})
    # THEN it is answered, computed with today's flags (the row does not record any)
    assert first.status_code == 200, first.text
    body = first.json()
    assert (body["next_payday"], body["cadence"], body["from_cache"]) == ("2026-11-27", "BIWEEKLY", False)
    # AND the row is this service's now, served from the cache the next time
    row = raw(f"PAYDAY#{user_id}", "PREDICTION")
    assert (row["type"], row["user_id"], row["used_v2"]) == ("PAYDAY", user_id, True)
    assert api.get(PAYDAY, path={"user_id": user_id}).json()["from_cache"] is True


def test_a_pave_income_row_with_only_its_keys_offers_no_payday(api: Api, routes_at_now: None, user_id: str) -> None:
    # GIVEN an earner and a Pave income row holding nothing but its keys
    an_earner(user_id)
    put({"PK": f"USERS#{user_id}", "SK": f"INCOME#{user_id}", "type": "income"})
    # WHEN the payday is asked for THEN the chain answers without Pave's estimate
    response = api.get(PAYDAY, path={"user_id": user_id})
    assert response.status_code == 200, response.text
    assert (response.json()["next_payday"], response.json()["detection_used"]) == (
        "2026-11-27",
        "FLOATME_V2_PAYDAY_CALCULATION",
    )


def test_the_pave_miner_replaces_an_income_row_without_updated_date(
    api: Api, fake_pave: FakePave, user_id: str
) -> None:
    # GIVEN the previous system's Pave income row: keys only
    put({"PK": f"USERS#{user_id}", "SK": f"INCOME#{user_id}", "type": "income"})
    # WHEN Pave mines the user's transactions
    mined_at = mined(user_id, fake_pave)
    # THEN the miner's row replaced it, and the payday chain reads Pave's estimate from it
    row = raw(f"USERS#{user_id}", f"INCOME#{user_id}")
    assert (row["type"], row["user_id"]) == ("INCOME", user_id)
    estimate = pave_payday.latest(user_id)
    assert estimate is not None and estimate.mined_at == mined_at and estimate.frequency == "BIWEEKLY"


# --- income verification -------------------------------------------------------------------


def test_a_verification_is_read_resubmitted_and_reviewed(api: Api, service_api: Api, user_id: str) -> None:
    # GIVEN an approved verification as the previous system stored it
    put(a_verification(user_id, "approved"))
    path = {"user_id": user_id}
    # WHEN the user reads it THEN it is version 1, submitted when it was last updated, its notes text only
    read = api.get(VERIFICATION, path=path)
    assert read.status_code == 200, read.text
    body = read.json()
    assert (body["user_id"], body["verification_status"], body["is_valid"], body["version"]) == (
        user_id,
        "approved",
        True,
        1,
    )
    assert (body["amount_in_cents"], body["pay_frequency"], body["verification_source"]) == (152_310, "BIWEEKLY", "mx")
    assert body["last_updated"] == body["submitted_at"] == "2026-10-01T10:00:00.123456Z"
    assert body["notes"] == [
        {"at": None, "author": None, "role": None, "status": None, "text": "submitted by the app"},
        {"at": None, "author": None, "role": None, "status": None, "text": "payroll matches"},
    ]
    # WHEN the user submits a new stream THEN a new cycle starts on the same row, the notes kept
    stream = {
        "txn_name": "NEW JOB PAYROLL",
        "txn_id": "txn-2",
        "amount_in_cents": 98_000,
        "pay_frequency": "WEEKLY",
        "institution_id": "ins_109508",
        "note": "new job",
    }
    submitted = api.post(VERIFICATION, path=path, json=stream)
    assert submitted.status_code == 201, submitted.text
    cycle = submitted.json()
    assert (cycle["verification_status"], cycle["version"], cycle["txn_id"]) == ("pending", 2, "txn-2")
    assert [n["text"] for n in cycle["notes"]] == ["submitted by the app", "payroll matches", "new job"]
    # AND a service approves it
    review = {"decision": "approved", "note": "new payroll seen", "version": 2}
    approved = service_api.post(REVIEW, path=path, json=review)
    assert approved.status_code == 200, approved.text
    assert (approved.json()["verification_status"], approved.json()["version"]) == ("approved", 3)
    # AND the row keeps the old notes as they were, the new ones appended as maps
    notes = raw(f"USERS#{user_id}", "VERIFICATION")["notes"]
    assert notes[:2] == ["submitted by the app", "payroll matches"]
    assert [n["text"] for n in notes[2:]] == ["new job", "new payroll seen"]


def test_a_pending_verification_is_reviewed_at_version_1(api: Api, service_api: Api, user_id: str) -> None:
    # GIVEN a pending verification as the previous system stored it (no verification_source either)
    row = a_verification(user_id, "pending")
    del row["verification_source"]
    put(row)
    # WHEN a service denies the version it reads
    version = service_api.get(VERIFICATION, path={"user_id": user_id}).json()["version"]
    denied = service_api.post(
        REVIEW, path={"user_id": user_id}, json={"decision": "denied", "note": "a transfer", "version": version}
    )
    # THEN the review applies
    assert denied.status_code == 200, denied.text
    assert (denied.json()["verification_status"], denied.json()["is_valid"], denied.json()["version"]) == (
        "denied",
        False,
        2,
    )


# --- savings progress and balance alerts ---------------------------------------------------


@pytest.mark.parametrize("spelling", ["balance", "BALANCE", "SAVINGS_MONTH"])
def test_savings_months_of_every_spelling_are_served(
    api: Api, routes_at_now: None, user_id: str, spelling: str
) -> None:
    # GIVEN two months as the previous system wrote them, typed in one of the entity's spellings
    put(
        a_savings_month(user_id, "2026-10", spelling, 50_000, datetime(2026, 10, 30, tzinfo=UTC)),
        a_savings_month(user_id, "2026-11", spelling, 61_000, NOW - timedelta(days=1)),
    )
    # WHEN the user reads their savings
    response = api.get(SAVINGS, path={"user_id": user_id})
    # THEN both months are there, month and user from the keys
    assert response.status_code == 200, response.text
    months = {m["month"]: m for m in response.json()["months"]}
    assert list(months) == ["2026-09", "2026-10", "2026-11"]
    assert months["2026-09"]["total_available"] is None
    assert (months["2026-10"]["total_available"], months["2026-11"]["total_available"]) == (50_000, 61_000)
    assert months["2026-11"]["accounts"] == [{"account_id": "acct-s", "amount": 61_000, "subtype": "savings"}]
    assert months["2026-10"]["updated_date"] == "2026-10-30T00:00:00.000000Z"


def test_a_balance_update_reads_the_alert_and_savings_rows_of_the_previous_system(
    aws_endpoint: str, user_id: str, segment: FakeSegment
) -> None:
    # GIVEN a user below their $50 threshold, alerted two days ago by the previous system,
    # and this month's savings snapshot it wrote
    clock = FakeClock()
    seed_user(user_id, checking=balances(2_000, 2_500), savings=[balances(70_000)], threshold_dollars=50)
    alerted = clock() - timedelta(days=2)
    put(
        an_alert(
            user_id,
            alert_sent=True,
            updated_date=go_time(alerted),
            balance_setting=5_000,
            available_balance=3_000,
            current_balance=3_500,
        ),
        a_savings_month(user_id, "2026-11", "balance", 65_000, clock() - timedelta(days=3)),
    )
    # WHEN a balance update arrives
    # THEN the message succeeds, and no alert goes out: the cooldown holds from the stored time
    assert track(user_id, clock, segment) == {"batchItemFailures": []}
    assert segment.tracks(LOW_BALANCE_ALERT) == []
    state = alerts.get_alert(user_id)
    assert state is not None and state.alert_sent and state.updated_date == alerted
    # AND this month's snapshot is the one just computed
    month = raw(f"USERS#{user_id}", "SAVINGS_MONTH#2026-11")
    assert (month["total_available"], month["user_id"], month["type"]) == (70_000, user_id, "BALANCE")
    # WHEN the cooldown is over THEN the next update alerts the user, once, and the row is ours
    clock.advance(timedelta(days=5, seconds=1).total_seconds())
    assert track(user_id, clock, segment) == {"batchItemFailures": []}
    assert track(user_id, clock, segment) == {"batchItemFailures": []}
    assert [t["userId"] for t in segment.tracks(LOW_BALANCE_ALERT)] == [user_id]
    assert raw(f"USERS#{user_id}", f"ALERT#{user_id}")["user_id"] == user_id


def test_an_unsent_alert_of_the_previous_system_is_not_resumed(
    aws_endpoint: str, user_id: str, segment: FakeSegment
) -> None:
    # GIVEN a low user whose alert row the previous system left with alert_sent false, a day ago
    clock = FakeClock()
    seed_user(user_id, checking=balances(2_000, 2_500), threshold_dollars=50)
    put(an_alert(user_id, alert_sent=False, updated_date=go_time(clock() - timedelta(days=1))))
    # WHEN a balance update arrives THEN it succeeds and nothing is sent: the row counts as an alert sent then
    assert track(user_id, clock, segment) == {"batchItemFailures": []}
    assert segment.tracks(LOW_BALANCE_ALERT) == []
    # AND once 7 days have passed since, the user is alerted
    clock.advance(timedelta(days=6, seconds=1).total_seconds())
    assert track(user_id, clock, segment) == {"batchItemFailures": []}
    assert len(segment.tracks(LOW_BALANCE_ALERT)) == 1


# --- Pave's recurring expenses and cash-advance score -------------------------------------


def test_expenses_and_the_score_of_a_mine_stored_as_keys_only(api: Api, routes_at_now: None, user_id: str) -> None:
    # GIVEN a Pave mine of this morning as the previous system stored it (RFC 3339 without
    # fraction), two recurring expenses and a ritual of it, and a score: keys (and ttl) only
    mine = "2026-11-20T09:00:00Z"
    due = date(2026, 11, 27)
    ttl = epoch(datetime(2026, 11, 27, tzinfo=UTC) + timedelta(days=30))
    users = f"USERS#{user_id}"
    put(
        {"PK": f"MINE#{user_id}", "SK": f"TIME#{mine}", "type": "insights"},
        {"PK": users, "SK": f"RECURRING#{mine}#MERCHANT#m-netflix#MONTHLY#1549", "type": "recurring", "ttl": ttl},
        {"PK": users, "SK": f"RECURRING#{mine}#MERCHANT#m-gym#MONTHLY#2999", "type": "recurring", "ttl": ttl + 86_400},
        {"PK": users, "SK": f"RITUAL#{mine}#MERCHANT#m-coffee#WEEKLY#575", "type": "ritual", "ttl": ttl},
        {"PK": users, "SK": f"CASH_ADVANCE_SCORE#{mine}", "type": "scores", "ttl": epoch(NOW + timedelta(days=20))},
    )
    path = {"user_id": user_id}
    # WHEN the user asks for their recurring expenses THEN Pave's mine answers, read from the keys
    response = api.get(EXPENSES, path=path)
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["source"], body["mined_at"]) == ("pave", "2026-11-20T09:00:00.000000Z")
    assert [(e["merchant_id"], e["frequency"], e["amount"], e["next_date"]) for e in body["expenses"]] == [
        ("m-netflix", "MONTHLY", 1549, due.isoformat()),
        ("m-gym", "MONTHLY", 2999, (due + timedelta(days=1)).isoformat()),
    ]
    assert body["expenses"][0]["merchant_name"] == "m-netflix"
    # AND the score is served, its instant from its key
    score = api.get(SCORE, path=path)
    assert score.status_code == 200, score.text
    assert score.json() == {"user_id": user_id, "scored_at": "2026-11-20T09:00:00.000000Z", "bands": []}


# --- the listener ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mined_ago", "expected"),
    [(timedelta(hours=2), Action.SKIP), (timedelta(days=2), Action.DEFAULT_UPDATE)],
    ids=["mined-two-hours-ago", "mined-two-days-ago"],
)
def test_the_listener_reads_the_webhook_rows_of_the_previous_system(
    aws_endpoint: str, user_id: str, mined_ago: timedelta, expected: Action
) -> None:
    # GIVEN an item linked 60 days ago, mined by the previous system some time ago
    linked = NOW - timedelta(days=60)
    item = items.Item(user_id, uid("item"), uid("access-sandbox"), created_at=linked.isoformat())
    items.create_item(item, linked)
    txn_tables.transactions().put_item(Item=a_webhook_row(user_id, item.item_id, "DEFAULT_UPDATE", NOW - mined_ago))
    # WHEN the user logs in
    [decision] = listener.handle_message(login(user_id), NOW)
    # THEN the 24-hour rule reads the row: a recent mine is enough, an older one is mined again
    assert (decision.item_id, decision.action) == (item.item_id, expected)
