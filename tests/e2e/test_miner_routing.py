"""The miner's routing end to end: one scenario per behaviour (a drop, a window mined, a refresh that
ends a mine, a first page retried), through the queue, the runtime and the fake Plaid.

Every case of the rules (each drop reason, each window, which errors end a mine) is a unit test:
tests/unit/test_miner_decisions.py (the pure rules) and tests/unit/test_miner_handlers.py (what the
miner does with each, over recording fakes of its effects).
"""

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


def test_a_message_without_an_action_is_dropped_without_any_call(
    fake_plaid: FakePlaid, runtime: EventRuntime, user_id: str
) -> None:
    # GIVEN a linked item and a webhook for it that has no action
    fake = link_item(fake_plaid, user_id, transaction_count=5, loans=False)
    before = dlq_depth()
    # WHEN it is mined
    send({"webhook_type": "ITEM", "webhook_code": "PENDING_EXPIRATION", "item_id": fake.item_id})
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


def test_an_update_mines_its_window_and_records_the_webhook(
    fake_plaid: FakePlaid, runtime: EventRuntime, user_id: str
) -> None:
    # GIVEN a linked item
    fake = link_item(fake_plaid, user_id, transaction_count=30, loans=False)
    # WHEN a remine's DEFAULT_UPDATE is mined
    send(txn_webhook(fake.item_id, "DEFAULT_UPDATE"), source="API_REMINE")
    runtime.drain(timeout=30)
    # THEN Plaid was asked for the last 14 days, and the webhook is recorded with its source
    [call] = plaid_calls(fake_plaid, "/transactions/get", fake)
    today = datetime.now(UTC).date()
    assert call.body["end_date"] == today.isoformat()
    assert call.body["start_date"] == (today - timedelta(days=14)).isoformat()
    [info] = webhook_info.transaction_webhooks(fake.item_id)
    assert (info.webhook_code, info.source) == ("DEFAULT_UPDATE", "API_REMINE")


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


def test_a_first_page_plaid_is_not_ready_for_is_retried_and_mined_once(
    fake_plaid: FakePlaid, runtime: EventRuntime, user_id: str
) -> None:
    # GIVEN an item whose first page Plaid refuses once: the product is not ready yet
    fake = link_item(fake_plaid, user_id, transaction_count=5, loans=False)
    fake_plaid.fail("/transactions/get", "PRODUCT_NOT_READY", times=1, access_token=fake.access_token)
    try:
        # WHEN its INITIAL_UPDATE arrives and the pipeline runs until idle
        send(txn_webhook(fake.item_id, "INITIAL_UPDATE"))
        runtime.drain(timeout=30)
    finally:
        fake_plaid.clear_faults()
    # THEN the message was delivered again, and its page mined and recorded once
    assert len(plaid_calls(fake_plaid, "/transactions/get", fake)) == 2
    assert len(webhook_info.transaction_webhooks(fake.item_id)) == 1
