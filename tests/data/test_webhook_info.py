"""WEBHOOK_INFO: exact rows, once-per-message writes, and every index the readers use."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from chalicelib.data import tables
from chalicelib.data.ttl import epoch
from chalicelib.data.webhook_info import (
    UpdateInfo,
    WebhookInfo,
    WebhookSource,
    item_webhooks,
    item_webhooks_from_source,
    latest_item_webhook,
    record_webhook,
    sent_at,
    stored_payload,
    transaction_webhooks,
    user_webhooks,
    user_webhooks_of_type,
    webhook_info_item,
)
from chalicelib.errors import ValidationError
from tests.conftest import new_id

T0 = datetime(2025, 3, 1, 12, 0, 0, 123000, tzinfo=UTC)


def a_webhook(
    user_id: str = "user-1",
    item_id: str = "item-1",
    *,
    webhook_type: str = "TRANSACTIONS",
    code: str = "DEFAULT_UPDATE",
    source: WebhookSource = WebhookSource.PLAID,
    at: datetime = T0,
    message_id: str | None = None,
    update_info: UpdateInfo | None = None,
) -> WebhookInfo:
    payload = json.dumps(
        {"webhook_type": webhook_type, "webhook_code": code, "item_id": item_id, "new_transactions": 3}
    )
    return WebhookInfo(
        user_id=user_id,
        item_id=item_id,
        webhook_type=webhook_type,
        webhook_code=code,
        source=source,
        received_at=at,
        message_id=message_id or new_id("msg"),
        payload=payload,
        update_info=update_info,
    )


# --- pure -----------------------------------------------------------------------------


def test_row_has_seed_keys_type_ttl_and_raw_payload() -> None:
    # GIVEN a transaction mine's webhook with its first page's totals
    info = a_webhook(update_info=UpdateInfo(412, ("acct-a", "acct-b"), "ins_3"), message_id="m-1")

    # WHEN its row is built
    row = webhook_info_item(info)

    # THEN keys follow the data model, ttl is 30 days after the webhook's timestamp, payload is the raw text
    ts = "2025-03-01T12:00:00.123000Z"
    assert row["PK"] == "WEBHOOK_ITEM#item-1"
    assert row["SK"] == f"DATETIME#{ts}#TYPE#TRANSACTIONS#CODE#DEFAULT_UPDATE"
    assert row["GSI1PK"] == "WEBHOOK_USER#user-1"
    assert row["GSI1SK"] == f"DATETIME#{ts}#ITEM#item-1"
    assert row["GSI2SK"] == f"TYPE#TRANSACTIONS#CODE#DEFAULT_UPDATE#DATETIME#{ts}"
    assert row["GSI3SK"] == f"TYPE#TRANSACTIONS#CODE#DEFAULT_UPDATE#DATETIME#{ts}#ITEM#item-1"
    assert row["GSI4SK"] == f"SOURCE#PLAID#TYPE#TRANSACTIONS#CODE#DEFAULT_UPDATE#DATETIME#{ts}"
    assert row["type"] == "WEBHOOK_INFO"
    assert row["source"] == "PLAID"
    assert row["ttl"] == epoch(T0 + timedelta(days=30))
    assert row["payload"] == info.payload
    assert row["update_info"] == {
        "total_transactions": 412,
        "accounts": ["acct-a", "acct-b"],
        "institution_id": "ins_3",
    }


def test_same_message_builds_the_same_row() -> None:
    # GIVEN one message
    info = a_webhook(message_id="m-2")

    # WHEN the row is built twice (a redelivery)
    # THEN nothing differs, not even the ttl
    assert webhook_info_item(info) == webhook_info_item(info)


def test_payload_with_a_secret_is_stored_redacted() -> None:
    # GIVEN a synthetic payload that carries an access token
    raw = json.dumps({"item_id": "i", "access_token": "access-sandbox-abc", "amount": 12.30})

    # WHEN it is prepared for storage
    stored = stored_payload(raw)

    # THEN the token is gone and the rest is kept
    assert "access-sandbox-abc" not in stored
    assert json.loads(stored)["item_id"] == "i"


def test_payload_must_be_a_json_object() -> None:
    with pytest.raises(ValidationError):
        stored_payload("not json")
    with pytest.raises(ValidationError):
        stored_payload("[1, 2]")


def test_sent_timestamp_is_epoch_milliseconds() -> None:
    assert sent_at("1740830400123") == datetime(2025, 3, 1, 12, 0, 0, 123000, tzinfo=UTC)
    with pytest.raises(ValidationError):
        sent_at("yesterday")


# --- DynamoDB -------------------------------------------------------------------------


@pytest.mark.integration
def test_redelivered_message_writes_one_row(ddb: str, user_id: str) -> None:
    # GIVEN a webhook message recorded once
    item_id = new_id("item")
    now = datetime.now(UTC)
    info = a_webhook(user_id, item_id, at=now, message_id="m-redelivered")
    first = record_webhook(info)

    # WHEN the same message is delivered and recorded again
    second = record_webhook(info)

    # THEN there is still exactly one row, and both calls report it
    rows = item_webhooks(item_id)
    assert len(rows) == 1
    assert first == second == rows[0]


@pytest.mark.integration
def test_different_message_on_the_same_millisecond_moves_one_microsecond(ddb: str, user_id: str) -> None:
    # GIVEN a recorded webhook
    item_id = new_id("item")
    now = datetime.now(UTC).replace(microsecond=5000)
    record_webhook(a_webhook(user_id, item_id, at=now, message_id="m-a"))

    # WHEN a different message of the same type and code has the same timestamp
    stored = record_webhook(a_webhook(user_id, item_id, at=now, message_id="m-b"))

    # THEN it is stored one microsecond later and neither row is lost
    assert stored.received_at == now + timedelta(microseconds=1)
    assert {r.message_id for r in item_webhooks(item_id)} == {"m-a", "m-b"}


@pytest.mark.integration
def test_listener_read_returns_transaction_rows_newest_first(ddb: str, user_id: str) -> None:
    # GIVEN an item with three transaction mines of different codes and an ITEM webhook
    item_id = new_id("item")
    now = datetime.now(UTC)
    record_webhook(a_webhook(user_id, item_id, code="HISTORICAL_UPDATE", at=now - timedelta(days=3)))
    record_webhook(a_webhook(user_id, item_id, code="INITIAL_UPDATE", at=now - timedelta(days=2)))
    record_webhook(a_webhook(user_id, item_id, code="DEFAULT_UPDATE", at=now - timedelta(hours=1)))
    record_webhook(a_webhook(user_id, item_id, webhook_type="ITEM", code="ERROR", at=now))

    # WHEN the listener reads the item's TRANSACTIONS rows (GSI2)
    rows = transaction_webhooks(item_id)

    # THEN it gets the three mines, newest first, and no ITEM row
    assert [r.webhook_code for r in rows] == ["DEFAULT_UPDATE", "INITIAL_UPDATE", "HISTORICAL_UPDATE"]
    latest = latest_item_webhook(item_id, "TRANSACTIONS", "HISTORICAL_UPDATE")
    assert latest is not None
    assert latest.received_at == now - timedelta(days=3)


@pytest.mark.integration
def test_expired_rows_are_not_returned_before_the_reaper_runs(ddb: str, user_id: str) -> None:
    # GIVEN a row whose ttl has passed (moto, like DynamoDB for a while, still holds it)
    item_id = new_id("item")
    now = datetime.now(UTC)
    record_webhook(a_webhook(user_id, item_id, code="HISTORICAL_UPDATE", at=now - timedelta(days=31)))
    record_webhook(a_webhook(user_id, item_id, code="DEFAULT_UPDATE", at=now - timedelta(days=1)))

    # WHEN the item's rows are read
    rows = transaction_webhooks(item_id, now=now)

    # THEN only the live one is there
    assert [r.webhook_code for r in rows] == ["DEFAULT_UPDATE"]
    assert latest_item_webhook(item_id, "TRANSACTIONS", "HISTORICAL_UPDATE", now=now) is None


@pytest.mark.integration
def test_user_and_source_indexes(ddb: str, user_id: str) -> None:
    # GIVEN a user with two items, webhooks from Plaid and from the listener
    item_a, item_b = new_id("item"), new_id("item")
    now = datetime.now(UTC)
    record_webhook(a_webhook(user_id, item_a, at=now - timedelta(minutes=3)))
    record_webhook(a_webhook(user_id, item_b, source=WebhookSource.FROM_LISTENER, at=now - timedelta(minutes=2)))
    record_webhook(
        a_webhook(user_id, item_a, webhook_type="ITEM", code="LOGIN_REPAIRED", at=now - timedelta(minutes=1))
    )
    record_webhook(a_webhook(user_id, item_a, source=WebhookSource.API_REMINE, code="HISTORICAL_UPDATE", at=now))

    # WHEN read by user (GSI1), by user and type (GSI3) and by item and source (GSI4)
    by_user = user_webhooks(user_id)
    by_user_type = user_webhooks_of_type(user_id, "TRANSACTIONS")
    by_user_code = user_webhooks_of_type(user_id, "TRANSACTIONS", "DEFAULT_UPDATE")
    remines = item_webhooks_from_source(item_a, WebhookSource.API_REMINE)
    plaid_tx = item_webhooks_from_source(item_a, WebhookSource.PLAID, "TRANSACTIONS")
    listener = item_webhooks_from_source(item_b, WebhookSource.FROM_LISTENER, "TRANSACTIONS", "DEFAULT_UPDATE")

    # THEN each index answers its question, newest first
    assert [r.webhook_code for r in by_user] == [
        "HISTORICAL_UPDATE",
        "LOGIN_REPAIRED",
        "DEFAULT_UPDATE",
        "DEFAULT_UPDATE",
    ]
    assert [r.item_id for r in by_user][2:] == [item_b, item_a]
    assert [(r.item_id, r.webhook_code) for r in by_user_type] == [
        (item_a, "HISTORICAL_UPDATE"),
        (item_b, "DEFAULT_UPDATE"),
        (item_a, "DEFAULT_UPDATE"),
    ]
    assert {r.item_id for r in by_user_code} == {item_a, item_b}
    assert [r.webhook_code for r in remines] == ["HISTORICAL_UPDATE"]
    assert [r.webhook_code for r in plaid_tx] == ["DEFAULT_UPDATE"]
    assert [r.source for r in listener] == [WebhookSource.FROM_LISTENER]
    assert user_webhooks(user_id, limit=1)[0].webhook_code == "HISTORICAL_UPDATE"


@pytest.mark.integration
def test_stored_row_round_trips(ddb: str, user_id: str) -> None:
    # GIVEN a recorded mine with update info
    item_id = new_id("item")
    info = a_webhook(user_id, item_id, at=datetime.now(UTC), update_info=UpdateInfo(7, ("acct-1",), None))
    record_webhook(info)

    # WHEN it is read back
    built = webhook_info_item(info)
    raw = tables.transactions().get_item(Key={"PK": built["PK"], "SK": built["SK"]}, ConsistentRead=True)["Item"]
    stored = item_webhooks(item_id)[0]

    # THEN DynamoDB holds exactly the built row, and the parser gives back the same webhook
    assert raw == built
    assert stored == replace(info, ttl=built["ttl"])
    assert stored.payload_json()["new_transactions"] == 3
