"""End to end: a webhook signed by the fake Plaid, POSTed over HTTP, mined and refined.

Plaid pages hold 100 transactions here (``TRANSACTIONS_PAGE_SIZE``; 500 in production), so a
few hundred transactions make the same multi-page mines at a fifth of the writes.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any

import boto3
import pytest

from chalicelib.data import accounts, keys, tables, transactions, webhook_info
from chalicelib.data.batch import batch_get
from chalicelib.data.ttl import transaction_ttl
from chalicelib.settings import get_settings
from ops.demo import refined_rows
from ops.fakes.plaid import FakeItem, FakePlaid
from ops.runtime import EventRuntime
from tests.e2e.conftest import link_item, new_runtime

pytestmark = [pytest.mark.integration, pytest.mark.slow]

PAGE_SIZE = 100


@pytest.fixture(autouse=True)
def small_pages(override_settings: Callable[..., None]) -> None:
    override_settings(TRANSACTIONS_PAGE_SIZE=str(PAGE_SIZE))


def webhook(fake: FakeItem, code: str, **extra: Any) -> dict[str, Any]:
    return {
        "webhook_type": "TRANSACTIONS",
        "webhook_code": code,
        "item_id": fake.item_id,
        "environment": "sandbox",
        **extra,
    }


def stored_rows(user_id: str) -> dict[tuple[str, str], dict[str, Any]]:
    """Every refined row of a user (accounts, balances, transactions), by key."""
    return {(r["PK"], r["SK"]): r for r in refined_rows(user_id)}


def comparable(rows: dict[tuple[str, str], dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    """Rows without the attributes that depend on when they were written. A BALANCE row is an
    account's balance on the UTC day it was written (the day ends its sort key): a run that
    crosses midnight writes the same balance again under the new day, so balances are compared
    per account, not per day."""
    volatile = {"ttl", "acct_updated_at"}
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for (pk, sk), row in rows.items():
        if row.get("type") == "BALANCE":
            out[(pk, sk.rsplit("#", 1)[0])] = {a: v for a, v in row.items() if a not in {*volatile, "SK", "bal_date"}}
        else:
            out[(pk, sk)] = {a: v for a, v in row.items() if a not in volatile}
    return out


def in_window(fake: FakeItem, days: int) -> list[dict[str, Any]]:
    start = datetime.now(UTC).date() - timedelta(days=days)
    return [t for t in fake.transactions if date.fromisoformat(t["date"]) >= start]


def test_a_signed_webhook_is_mined_and_refined_into_rows(
    app_url: str, fake_plaid: FakePlaid, runtime: EventRuntime, user_id: str
) -> None:
    # GIVEN an item with 230 transactions in the last 170 days, linked for the user
    fake = link_item(fake_plaid, user_id, transaction_count=230, history_days=170, loans=False)
    expected = in_window(fake, 180)
    assert len(expected) > 2 * PAGE_SIZE, "three pages"

    # WHEN Plaid sends a signed HISTORICAL_UPDATE to the app over HTTP and the pipeline runs
    delivery = fake_plaid.send_webhook(f"{app_url}/v1/plaid", webhook(fake, "HISTORICAL_UPDATE", new_transactions=230))
    assert delivery.status == 200, delivery
    result = runtime.drain(timeout=120)

    # THEN the miner, the throttle-miner (twice) and the refiner ran without a failure
    assert result.idle
    stats = runtime.stats
    assert stats["mine_webhooks"].records == 1
    assert stats["mine_throttled"].records == 2
    assert sum(s.failures for s in stats.values()) == 0
    # AND every transaction is stored with its keys and TTL (read 100 at a time)
    now = datetime.now(UTC)
    wanted = [keys.transaction_key(t["transaction_id"]) for t in expected]
    stored = {row["PK"]: row for row in batch_get(tables.transactions().name, wanted, consistent=True)}
    for txn in expected:
        row = stored[keys.transaction_key(txn["transaction_id"])["PK"]]
        assert row["user_id"] == user_id
        assert row["GSI3PK"] == f"ACCOUNTS#{user_id}#ACCOUNT#{txn['account_id']}"
        assert row["GSI1SK"] == f"DATE#{txn['date']}#TXN#{txn['transaction_id']}"
        ttl_now = transaction_ttl(date.fromisoformat(txn["date"]), now)
        assert abs(int(row["ttl"]) - ttl_now) < 600
    # AND every account is stored with a balance row
    assert {a.acct_id for a in accounts.list_accounts(user_id)} == set(fake.roles().values())
    # AND one WEBHOOK_INFO row records the first page's totals
    [info] = webhook_info.transaction_webhooks(fake.item_id)
    assert info.webhook_code == "HISTORICAL_UPDATE" and info.source == "PLAID"
    assert info.update_info is not None and info.update_info.total_transactions == len(expected)
    # AND Plaid was asked for three pages of 100 at offsets 0, 100, 200
    pages = [
        c.body["options"] for c in fake_plaid.calls("/transactions/get") if c.body["access_token"] == fake.access_token
    ]
    assert [(p["offset"], p["count"]) for p in pages] == [
        (0, PAGE_SIZE),
        (PAGE_SIZE, PAGE_SIZE),
        (2 * PAGE_SIZE, PAGE_SIZE),
    ]

    # WHEN Plaid then removes two of them
    gone = [expected[0]["transaction_id"], expected[-1]["transaction_id"]]
    fake_plaid.remove_transactions(fake.access_token, gone)
    delivery = fake_plaid.send_webhook(
        f"{app_url}/v1/plaid", webhook(fake, "TRANSACTIONS_REMOVED", removed_transactions=gone)
    )
    assert delivery.status == 200
    runtime.drain(timeout=60)

    # THEN they are soft-deleted: not listed, still readable by id
    listed: set[str] = set()
    cursor = None
    while True:
        page = transactions.list_transactions(user_id, limit=PAGE_SIZE, cursor=cursor)
        listed |= {t.txn_id for t in page.transactions}
        if not (cursor := page.cursor):
            break
    assert listed == {t["transaction_id"] for t in expected} - set(gone)
    for txn_id in gone:
        point = transactions.get_transaction(txn_id)
        assert point is not None and point.removed


def test_duplicate_shuffled_delivery_leaves_the_same_rows(
    app_url: str, fake_plaid: FakePlaid, runtime: EventRuntime, user_id: str
) -> None:
    # GIVEN an item mined once with ordinary delivery
    fake = link_item(fake_plaid, user_id, transaction_count=PAGE_SIZE + 30, history_days=170, loans=False)
    assert fake_plaid.send_webhook(f"{app_url}/v1/plaid", webhook(fake, "HISTORICAL_UPDATE")).status == 200
    runtime.drain(timeout=120)
    once = comparable(stored_rows(user_id))
    assert len(once) > PAGE_SIZE + 30

    # WHEN the same webhook is mined again with every batch delivered twice, SQS batches shuffled
    noisy = new_runtime(duplicate_delivery=True, shuffle=True, seed=7)
    assert fake_plaid.send_webhook(f"{app_url}/v1/plaid", webhook(fake, "HISTORICAL_UPDATE")).status == 200
    noisy.drain(timeout=120)

    # THEN the refined rows are exactly the same
    assert comparable(stored_rows(user_id)) == once
    # AND each delivered message wrote one WEBHOOK_INFO row, however often it was delivered
    assert len(webhook_info.transaction_webhooks(fake.item_id)) == 2


def test_a_message_that_keeps_failing_reaches_the_dlq_while_its_batch_mates_succeed(
    app_url: str, fake_plaid: FakePlaid, runtime: EventRuntime, user_id: str
) -> None:
    # GIVEN two items; Plaid fails every page request for the first one with a 500
    broken = link_item(fake_plaid, user_id, transaction_count=20, loans=False)
    healthy = link_item(fake_plaid, user_id, transaction_count=20, loans=False)
    fake_plaid.fail("/transactions/get", "INTERNAL_SERVER_ERROR", times=None, access_token=broken.access_token)
    sqs = boto3.client("sqs")
    dlq = sqs.get_queue_url(QueueName=get_settings().webhooks_queue + "-dlq")["QueueUrl"]
    sqs.purge_queue(QueueUrl=dlq)

    # WHEN both webhooks arrive and the pipeline runs until idle
    for fake in (broken, healthy):
        assert fake_plaid.send_webhook(f"{app_url}/v1/plaid", webhook(fake, "DEFAULT_UPDATE")).status == 200
    runtime.drain(timeout=60)

    # THEN the healthy item was mined, and the broken item's message is in the DLQ after 5 tries
    assert webhook_info.transaction_webhooks(healthy.item_id)
    assert not webhook_info.transaction_webhooks(broken.item_id)
    messages = sqs.receive_message(QueueUrl=dlq, AttributeNames=["ApproximateReceiveCount"], MaxNumberOfMessages=10)[
        "Messages"
    ]
    assert len(messages) == 1 and broken.item_id in messages[0]["Body"]
    tries = [c for c in fake_plaid.calls("/transactions/get") if c.body["access_token"] == broken.access_token]
    assert len(tries) == 5
    fake_plaid.clear_faults()
