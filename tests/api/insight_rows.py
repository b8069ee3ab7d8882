"""Rows of the insight tables as the system this service replaces wrote them, and what reading
them left behind (EMF metrics, log records), for the taken-over and unreadable-row tests.

That system's rows carry the documented keys, its entity names in ``type`` (lower case:
``payday``, ``balance``, ``alert`` ...) and only the attributes documented for each entity:
identifiers live only in the keys, timestamps have nanoseconds.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from chalicelib.data.tolerant import UNREADABLE_METRIC
from chalicelib.data.ttl import epoch, iso_timestamp
from chalicelib.insight.balance_tracker import handle_balance_updates
from chalicelib.insight.balance_updates import BalanceUpdate, BalanceUpdateSource
from chalicelib.insight.data import tables as insight_tables
from chalicelib.insight.locker import Locker
from chalicelib.peers import SegmentTracker
from chalicelib.peers.config import LOCAL_SEGMENT_WRITE_KEY
from chalicelib.peers.transport import RetryPolicy, Timeouts
from ops.fakes.peers import FakeSegment
from tests.e2e.test_listener import login_detail
from tests.factories import uid
from tests.insight.balances import FakeClock, sqs_record
from tests.insight.pave.support import pave_row

#: A Friday afternoon, UTC: the routes' clock (fixture ``routes_at_now``).
NOW = datetime(2026, 11, 20, 15, 0, tzinfo=UTC)
TODAY = NOW.date()
PAYDAY = "/v1/users/{user_id}/payday"
VERIFICATION = "/v1/users/{user_id}/income/verification"
REVIEW = "/v1/users/{user_id}/income/verification/review"
SAVINGS = "/v1/users/{user_id}/savings"
EXPENSES = "/v1/users/{user_id}/transactions/expenses"
SCORE = "/v1/users/{user_id}/scores/cash_advance"


def put(*rows: dict[str, Any]) -> None:
    """Write rows raw, exactly as given."""
    for row in rows:
        insight_tables.pave().put_item(Item=row)


def raw(pk: str, sk: str) -> dict[str, Any]:
    """A row exactly as stored (it must be there)."""
    row = pave_row(pk, sk)
    assert row is not None, (pk, sk)
    return row


def go_time(moment: datetime) -> str:
    """An instant as Go's RFC 3339 with nanoseconds writes it."""
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%f") + "789Z"


def a_verification(user_id: str, status: str, **attributes: Any) -> dict[str, Any]:
    """A verification row: no version, notes as plain strings."""
    return {
        "PK": f"USERS#{user_id}",
        "SK": "VERIFICATION",
        "type": "income_verification",
        "txn_name": "ACME PAYROLL DIR DEP",
        "txn_id": "txn-go-1",
        "amount_in_cents": Decimal(152_310),
        "pay_frequency": "BIWEEKLY",
        "institution_id": "ins_109508",
        "verification_status": status,
        "is_valid": status == "approved",
        "last_updated": "2026-10-01T10:00:00.123456789Z",
        "notes": ["submitted by the app", "payroll matches"],
        "verification_source": "mx",
        **attributes,
    }


def a_savings_month(user_id: str, month: str, type_: str, amount: int, updated: datetime) -> dict[str, Any]:
    """A month's savings row: one savings account."""
    return {
        "PK": f"USERS#{user_id}",
        "SK": f"SAVINGS_MONTH#{month}",
        "type": type_,
        "accounts": [{"account_id": "acct-s", "amount": Decimal(amount), "subtype": "savings"}],
        "total_available": Decimal(amount),
        "updated_date": go_time(updated),
    }


def an_alert(user_id: str, *, ours: bool = False, **attributes: Any) -> dict[str, Any]:
    """An alert row: the previous system's, or (``ours``) one this service wrote (``user_id`` and its type)."""
    row = {"PK": f"USERS#{user_id}", "SK": f"ALERT#{user_id}", "type": "ALERT" if ours else "alert", **attributes}
    return row | {"user_id": user_id} if ours else row


def a_webhook_row(user_id: str, item_id: str, code: str, at: datetime, *, stamp: str | None = None) -> dict[str, Any]:
    """A WEBHOOK_INFO row: keys, source, the raw payload as a map, update_info and ttl (type,
    code and instant only in the keys; ``stamp`` replaces the instant's text in them)."""
    ts = stamp or go_time(at)
    type_code = f"TYPE#TRANSACTIONS#CODE#{code}"
    return {
        "PK": f"WEBHOOK_ITEM#{item_id}",
        "SK": f"DATETIME#{ts}#{type_code}",
        "GSI1PK": f"WEBHOOK_USER#{user_id}",
        "GSI1SK": f"DATETIME#{ts}#ITEM#{item_id}",
        "GSI2PK": f"WEBHOOK_ITEM#{item_id}",
        "GSI2SK": f"{type_code}#DATETIME#{ts}",
        "GSI3PK": f"WEBHOOK_USER#{user_id}",
        "GSI3SK": f"{type_code}#DATETIME#{ts}#ITEM#{item_id}",
        "GSI4PK": f"WEBHOOK_ITEM#{item_id}",
        "GSI4SK": f"SOURCE#PLAID#{type_code}#DATETIME#{ts}",
        "type": "WEBHOOK_INFO",
        "source": "PLAID",
        "payload": {"webhook_type": "TRANSACTIONS", "webhook_code": code, "item_id": item_id, "new_transactions": 3},
        "update_info": {"total_transactions": Decimal(42), "accounts": ["acct-1"], "institution": "ins_3"},
        "ttl": epoch(at + timedelta(days=30)),
    }


def login(user_id: str) -> str:
    """The listener queue's body: the EventBridge envelope of a user's Auth0 login."""
    return json.dumps({"id": uid("evt"), "time": NOW.isoformat(), "detail": login_detail(f"auth0|{user_id}")})


def track(user_id: str, clock: FakeClock, segment: FakeSegment) -> dict[str, Any]:
    """One balance update of the user through ``track_balances``'s handler; its batch response."""
    tracker = SegmentTracker(
        LOCAL_SEGMENT_WRITE_KEY, segment.url, timeouts=Timeouts(connect=0.5, read=0.5), retry=RetryPolicy(1)
    )
    body = BalanceUpdate(user_id, BalanceUpdateSource.REFINER, iso_timestamp(clock())).to_json()
    locker = Locker(clock=clock, sleep=clock.sleep, heartbeat=timedelta(milliseconds=250))
    return handle_balance_updates([sqs_record(body)], clock=clock, locker=locker, tracker=tracker)


def unreadable_counted(printed: str) -> list[tuple[str, str]]:
    """(entity, reading) of every ``data.row.unreadable`` EMF document in ``printed``."""
    documents = [json.loads(line) for line in printed.splitlines() if line.startswith("{") and '"_aws"' in line]
    return [(d["entity"], d["reading"]) for d in documents if UNREADABLE_METRIC in d]


def unreadable_logged(records: list[logging.LogRecord]) -> list[tuple[str, dict[str, str], str]]:
    """(entity, key, reading) of every "unreadable row" the service logged."""
    return [
        (getattr(r, "entity", ""), getattr(r, "key", {}), getattr(r, "reading", ""))
        for r in records
        if r.getMessage() == "unreadable row"
    ]
