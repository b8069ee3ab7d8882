"""Helpers of the Pave feeder and miner tests (and the API's): stored users, events, what was left.

Users are stored the way the refiner leaves them (ITEM, ACCOUNT and TRANSACTION rows); events
are built by factories.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from typing import Any

import boto3
from boto3.dynamodb.conditions import Key

from chalicelib.aws.messaging import queue_url
from chalicelib.data import accounts, items, transactions
from chalicelib.data.accounts import Account, Balances
from chalicelib.data.transactions import Transaction
from chalicelib.insight.data import tables as insight_tables
from chalicelib.insight.data.insights import Mine
from chalicelib.insight.history import RETENTION_DAYS
from chalicelib.insight.pave_messages import Poll
from chalicelib.settings import get_settings
from ops.runtime.sqs import sqs_record
from tests.conftest import Capture
from tests.factories import sqs_event
from tests.pave.conftest import history

#: The injected "now" of the handler tests (the fake Pave's clock and the handlers' ``now``).
NOW = datetime(2024, 6, 14, 15, 30, tzinfo=UTC)
TODAY = NOW.date()
ACCOUNT_ID = "acct-checking"


# --- stored users ---------------------------------------------------------------------


def pave_mine(user_id: str, mined_at: datetime, request_id: str, recurring_count: int = 0) -> Mine:
    """A Pave mine as the miner records it, computed from 120 days of the user's transactions."""
    window = {"window_start": (mined_at - timedelta(days=120)).date(), "window_end": mined_at.date()}
    return Mine(user_id, mined_at, "PAVE", request_id, recurring_count, 0, details=window)


def store_user(
    user_id: str,
    txns: list[Transaction],
    *,
    item_id: str = "item-1",
    removed_item: bool = False,
    now: datetime = NOW,
) -> list[Transaction]:
    """An item (REMOVED when asked), its checking account and ``txns`` stored as the refiner
    stores them; returns the transactions as stored (with their item)."""
    items.create_item(items.Item(user_id=user_id, item_id=item_id, access_token=f"access-sandbox-{item_id}"), now)
    if removed_item:
        items.mark_removed(user_id, item_id, "USER_PERMISSION_REVOKED")
    account = Account(
        user_id=user_id,
        item_id=item_id,
        acct_id=f"{ACCOUNT_ID}-{item_id}",
        name="Checking",
        official_name=None,
        type="depository",
        subtype="checking",
        mask="0000",
        balances=Balances(available=10_000, current=10_000, iso_currency_code="USD"),
    )
    accounts.put_account_items([accounts.account_item(account, now)])
    owned = [replace(t, user_id=user_id, item_id=item_id, acct_id=account.acct_id) for t in txns]
    transactions.put_transaction_items(transactions.transaction_item(t, now) for t in owned)
    return owned


def in_window(txns: list[Transaction], today: date = TODAY) -> list[Transaction]:
    """Those of ``txns`` the feeder's window holds on ``today``: dated in the retained days ending then."""
    return [t for t in txns if today - timedelta(days=RETENTION_DAYS) <= t.txn_date <= today]


def soft_delete(txn: Transaction) -> None:
    assert txn.item_id is not None
    assert transactions.soft_delete(txn.txn_id, txn.user_id, txn.item_id) is transactions.SoftDelete.REMOVED


def realistic(user_id: str, today: date = TODAY) -> list[Transaction]:
    """Six months of a user: Netflix, rent, biweekly pay, weekly coffee (ids unique to the user:
    transaction rows are keyed by id alone). Netflix is a card charge: authorized on the 3rd,
    posted two days later, as banks report them."""
    rows = [replace(t, txn_id=f"{user_id}-{t.txn_id}") for t in history(user_id, today)]
    return [
        replace(t, authorized_date=t.txn_date, txn_date=t.txn_date + timedelta(days=2))
        if t.merchant_name == "Netflix"
        else t
        for t in rows
    ]


# --- events ---------------------------------------------------------------------------


def queue_arn(name: str) -> str:
    return f"arn:aws:sqs:us-east-1:123456789012:{name}"


def batch_completed(user_id: str, item_id: str = "item-1", mine_id: str = "mine-1") -> str:
    """The EventBridge envelope the rule puts on the feed queue."""
    return json.dumps(
        {
            "version": "0",
            "id": f"evb-{user_id}-{mine_id}",
            "detail-type": "user_new_txns_batch_completed",
            "source": "txn.service",
            "account": "123456789012",
            "time": NOW.isoformat(),
            "region": "us-east-1",
            "resources": [],
            "detail": {"user_id": user_id, "item_id": item_id, "mine_id": mine_id, "event_id": f"e-{mine_id}"},
        }
    )


def feed_event(*bodies: str) -> dict[str, Any]:
    return sqs_event(list(bodies), queue_arn(get_settings().pave_feed_queue))


def removals_event(*bodies: str) -> dict[str, Any]:
    return sqs_event(list(bodies), queue_arn(get_settings().replay_feeder_queue))


def poll_event(*polls: Poll) -> dict[str, Any]:
    return sqs_event([p.to_json() for p in polls], queue_arn(get_settings().pave_poll_queue))


def received_event(queue_name: str, *bodies: str) -> dict[str, Any]:
    """Messages sent to the real queue and received (visibility 0), as Lambda would hand them
    over: their receipt handles work, so a handler may change their visibility."""
    sqs = boto3.client("sqs")
    url = queue_url(queue_name)
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sent = {sqs.send_message(QueueUrl=url, MessageBody=b, DelaySeconds=0)["MessageId"] for b in bodies}
    records: dict[str, dict[str, Any]] = {}
    while len(records) < len(sent):
        for message in sqs.receive_message(
            QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=0, MessageSystemAttributeNames=["All"]
        ).get("Messages", []):
            if message["MessageId"] in sent:
                records[message["MessageId"]] = sqs_record(message, arn, "us-east-1")
    return {"Records": list(records.values())}


# --- what the handlers left -----------------------------------------------------------


def polls_queued(user_id: str) -> list[Poll]:
    """The poll messages queued for the user (taken off the queue)."""
    found = Capture(queue_url(get_settings().pave_poll_queue)).matching(lambda m: m.get("user_id") == user_id)
    return [Poll(m["user_id"], m["request_id"], m["attempt"]) for m in found]


def pave_row(pk: str, sk: str) -> dict[str, Any] | None:
    return insight_tables.pave().get_item(Key={"PK": pk, "SK": sk}, ConsistentRead=True).get("Item")


def pave_rows(user_id: str) -> dict[tuple[str, str], dict[str, Any]]:
    """Every row of the user in the pave table's two partitions (by key), as stored."""
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for pk in (f"USERS#{user_id}", f"MINE#{user_id}", f"LABEL#{user_id}"):
        query = insight_tables.pave().query(KeyConditionExpression=Key("PK").eq(pk), ConsistentRead=True)
        rows |= {(r["PK"], r["SK"]): r for r in query["Items"]}
    return rows


def midnight_epoch(day: date, plus_days: int) -> int:
    return int((datetime(day.year, day.month, day.day, tzinfo=UTC) + timedelta(days=plus_days)).timestamp())
