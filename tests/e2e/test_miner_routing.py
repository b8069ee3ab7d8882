"""The miner's routing and drop rules (seed 002, Miner Routing and TRANSACTIONS)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest

from chalicelib.data import items, webhook_info
from chalicelib.pipeline.intake import enqueue_synthetic
from chalicelib.settings import get_settings
from ops.fakes.plaid import FakeItem, FakePlaid
from ops.runtime import EventRuntime
from tests.e2e.conftest import link_item
from tests.factories import uid

pytestmark = pytest.mark.integration


def send(payload: dict[str, Any], source: str = "PLAID") -> None:
    enqueue_synthetic(source, payload)


def txn_webhook(item_id: str, code: str, **extra: Any) -> dict[str, Any]:
    return {"webhook_type": "TRANSACTIONS", "webhook_code": code, "item_id": item_id, **extra}


def dlq_depth() -> int:
    sqs = boto3.client("sqs")
    url = sqs.get_queue_url(QueueName=get_settings().webhooks_queue + "-dlq")["QueueUrl"]
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages"])["Attributes"]
    return int(attributes["ApproximateNumberOfMessages"])


def plaid_calls(plaid: FakePlaid, endpoint: str, fake: FakeItem) -> list[Any]:
    return [c for c in plaid.calls(endpoint) if c.body.get("access_token") == fake.access_token]


@pytest.mark.parametrize(
    "payload",
    [
        pytest.param({"webhook_type": "LINK", "webhook_code": "SESSION_FINISHED"}, id="unknown-type"),
        pytest.param({"webhook_type": "ITEM", "webhook_code": "PENDING_EXPIRATION"}, id="unknown-item-code"),
        pytest.param({"webhook_type": "TRANSACTIONS", "webhook_code": "SYNC_UPDATES_AVAILABLE"}, id="no-action-code"),
        pytest.param({"webhook_type": "ITEM", "webhook_code": "WEBHOOK_UPDATE_ACKNOWLEDGED"}, id="acknowledged"),
    ],
)
def test_messages_without_an_action_are_dropped_without_any_call(
    fake_plaid: FakePlaid, runtime: EventRuntime, user_id: str, payload: dict[str, Any]
) -> None:
    # GIVEN a linked item and a webhook for it that seed 002 gives no action
    fake = link_item(fake_plaid, user_id, transaction_count=5, loans=False)
    before = dlq_depth()
    # WHEN it is mined
    send({**payload, "item_id": fake.item_id})
    runtime.drain(timeout=30)
    # THEN it was handled once, never retried, and Plaid was not called for the item
    assert runtime.stats["mine_webhooks"].records == 1
    assert runtime.stats["mine_webhooks"].failures == 0
    assert dlq_depth() == before
    assert plaid_calls(fake_plaid, "/item/get", fake) == []
    assert webhook_info.item_webhooks(fake.item_id) == []


def test_malformed_messages_are_dropped(runtime: EventRuntime, stack_env: dict[str, Any]) -> None:
    sqs = boto3.client("sqs")
    url = sqs.get_queue_url(QueueName=get_settings().webhooks_queue)["QueueUrl"]
    before = dlq_depth()
    for body in ("{not json", json.dumps({"source": "PLAID"}), json.dumps({"message_id": "m", "source": "NOPE"})):
        sqs.send_message(QueueUrl=url, MessageBody=body)
    runtime.drain(timeout=30)
    assert runtime.stats["mine_webhooks"].failures == 0
    assert dlq_depth() == before


def test_an_unknown_item_is_dropped(fake_plaid: FakePlaid, runtime: EventRuntime) -> None:
    send(txn_webhook(uid("no-such-item"), "DEFAULT_UPDATE"))
    runtime.drain(timeout=30)
    assert runtime.stats["mine_webhooks"].failures == 0


def test_a_listener_remine_of_a_removed_item_is_dropped_before_plaid(
    fake_plaid: FakePlaid, runtime: EventRuntime, user_id: str
) -> None:
    fake = link_item(fake_plaid, user_id, transaction_count=5, loans=False)
    items.mark_removed(user_id, fake.item_id)
    send(txn_webhook(fake.item_id, "DEFAULT_UPDATE"), source="FROM_LISTENER")
    runtime.drain(timeout=30)
    assert plaid_calls(fake_plaid, "/item/get", fake) == []
    assert webhook_info.item_webhooks(fake.item_id) == []


@pytest.mark.parametrize(("code", "days"), [("DEFAULT_UPDATE", 14), ("INITIAL_UPDATE", 30), ("HISTORICAL_UPDATE", 180)])
def test_each_update_mines_its_window_and_records_the_webhook(
    fake_plaid: FakePlaid, runtime: EventRuntime, user_id: str, code: str, days: int
) -> None:
    fake = link_item(fake_plaid, user_id, transaction_count=30, loans=False)
    send(txn_webhook(fake.item_id, code), source="API_REMINE")
    runtime.drain(timeout=30)
    [call] = plaid_calls(fake_plaid, "/transactions/get", fake)
    today = datetime.now(UTC).date()
    assert call.body["end_date"] == today.isoformat()
    assert call.body["start_date"] == (today - timedelta(days=days)).isoformat()
    [info] = webhook_info.transaction_webhooks(fake.item_id)
    assert (info.webhook_code, info.source) == (code, "API_REMINE")


def test_the_item_is_refreshed_from_plaid_before_routing(
    fake_plaid: FakePlaid, runtime: EventRuntime, user_id: str
) -> None:
    # GIVEN an item that Plaid now reports as needing a login
    fake = link_item(fake_plaid, user_id, transaction_count=5, loans=False)
    fake_plaid.set_item_error(fake.access_token, "ITEM_LOGIN_REQUIRED")
    # WHEN a DEFAULT_UPDATE arrives
    send(txn_webhook(fake.item_id, "DEFAULT_UPDATE"))
    runtime.drain(timeout=30)
    # THEN the row carries Plaid's status, and the mine ended at the first refusal, without retry
    item = items.get_item(user_id, fake.item_id)
    assert item is not None
    assert (item.status, item.error_code) == (items.ItemStatus.ERROR, "ITEM_LOGIN_REQUIRED")
    assert item.available_products or item.billed_products
    assert len(plaid_calls(fake_plaid, "/transactions/get", fake)) == 1
    assert runtime.stats["mine_webhooks"].failures == 0


def test_no_accounts_ends_a_default_update_but_a_not_ready_product_is_retried(
    fake_plaid: FakePlaid, runtime: EventRuntime, user_id: str
) -> None:
    ended = link_item(fake_plaid, user_id, transaction_count=5, loans=False)
    retried = link_item(fake_plaid, user_id, transaction_count=5, loans=False)
    fake_plaid.fail("/transactions/get", "NO_ACCOUNTS", times=None, access_token=ended.access_token)
    fake_plaid.fail("/transactions/get", "PRODUCT_NOT_READY", times=1, access_token=retried.access_token)
    try:
        send(txn_webhook(ended.item_id, "DEFAULT_UPDATE"))
        send(txn_webhook(retried.item_id, "INITIAL_UPDATE"))
        runtime.drain(timeout=30)
    finally:
        fake_plaid.clear_faults()
    assert len(plaid_calls(fake_plaid, "/transactions/get", ended)) == 1
    assert webhook_info.transaction_webhooks(ended.item_id) == []
    assert len(plaid_calls(fake_plaid, "/transactions/get", retried)) == 2
    assert len(webhook_info.transaction_webhooks(retried.item_id)) == 1


def test_a_login_error_on_an_initial_update_is_retried_not_ended(
    fake_plaid: FakePlaid, runtime: EventRuntime, user_id: str
) -> None:
    fake = link_item(fake_plaid, user_id, transaction_count=5, loans=False)
    fake_plaid.fail("/transactions/get", "ITEM_LOGIN_REQUIRED", times=1, access_token=fake.access_token)
    try:
        send(txn_webhook(fake.item_id, "INITIAL_UPDATE"))
        runtime.drain(timeout=30)
    finally:
        fake_plaid.clear_faults()
    assert len(plaid_calls(fake_plaid, "/transactions/get", fake)) == 2
    assert len(webhook_info.transaction_webhooks(fake.item_id)) == 1
