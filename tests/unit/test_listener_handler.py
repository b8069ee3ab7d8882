"""The listener over recording fakes of the one seam: what a login makes it queue, per item, and what it never does."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest

from chalicelib.data.items import ItemStatus
from chalicelib.data.ttl import iso_timestamp
from chalicelib.data.webhook_info import WebhookInfo, WebhookSource
from chalicelib.pipeline import listener
from tests.unit.fake_effects import NOW, World, item

LOGIN_AT = NOW - timedelta(minutes=1)


def login(user_id: str = "auth0|user-1", event_type: str = "gd_auth_succeed", event_id: str = "evt-1") -> str:
    """The listener queue's body: the EventBridge envelope of an Auth0 log event."""
    return json.dumps(
        {
            "id": event_id,
            "time": iso_timestamp(LOGIN_AT),
            "detail-type": "Auth0 log",
            "detail": {"log_id": "90020", "data": {"type": event_type, "user_id": user_id}},
        }
    )


def sqs_event(*bodies: str) -> dict[str, Any]:
    return {"Records": [{"messageId": f"m{n}", "body": body} for n, body in enumerate(bodies)]}


def aged(item_id: str = "item-1", *, days: float, **fields: Any) -> Any:
    return item(item_id=item_id, created_at=(NOW - timedelta(days=days)).isoformat(), **fields)


def past(code: str, ago: timedelta, item_id: str = "item-1") -> WebhookInfo:
    """A TRANSACTIONS WEBHOOK_INFO row as the miner records it."""
    return WebhookInfo(
        user_id="user-1",
        item_id=item_id,
        webhook_type="TRANSACTIONS",
        webhook_code=code,
        source=WebhookSource.PLAID,
        received_at=NOW - ago,
        message_id=f"past-{code}-{ago}",
        payload="{}",
    )


def queued(world: World) -> list[tuple[str, str, str]]:
    """(item id, code, source) of every synthetic webhook queued."""
    return [(m.payload["item_id"], m.webhook_code, m.source) for m in world.messages.webhooks]


@pytest.fixture
def world() -> World:
    return World()


@pytest.mark.parametrize(
    ("case", "days", "history", "expected"),
    [
        ("young item, never a HISTORICAL_UPDATE", 2, [], "HISTORICAL_UPDATE"),
        ("young item with an old HISTORICAL_UPDATE", 5, [("HISTORICAL_UPDATE", timedelta(days=4))], "DEFAULT_UPDATE"),
        ("old item without rows", 60, [], "DEFAULT_UPDATE"),
        ("old item, last mine 25 hours ago", 90, [("DEFAULT_UPDATE", timedelta(hours=25))], "DEFAULT_UPDATE"),
        ("young item mined two hours ago", 2, [("DEFAULT_UPDATE", timedelta(hours=2))], None),
        ("old item pulled by sync an hour ago", 90, [("SYNC_UPDATES_AVAILABLE", timedelta(hours=1))], None),
    ],
)
def test_a_login_queues_the_remine_the_table_decides(
    world: World, case: str, days: int, history: list[tuple[str, timedelta]], expected: str | None
) -> None:
    # GIVEN an ACTIVE item of the given age and TRANSACTIONS history
    world.store.add_item(aged(days=days))
    world.store.webhooks += [past(code, ago) for code, ago in history]
    # WHEN its user logs in
    response = listener.handle_sqs_event(sqs_event(login()), NOW, world.effects)
    # THEN the decided remine is queued from FROM_LISTENER with the login's id, or nothing when it was mined recently
    assert response == {"batchItemFailures": []}
    assert queued(world) == ([("item-1", expected, "FROM_LISTENER")] if expected else []), case
    if expected:
        [message] = world.messages.webhooks
        assert message.payload == {
            "webhook_type": "TRANSACTIONS",
            "webhook_code": expected,
            "item_id": "item-1",
            "login_event_id": "evt-1",
        }
        assert message.received_at == iso_timestamp(LOGIN_AT), "stamped by the login, so a redelivery is the same"


def test_only_active_items_are_considered_and_their_history_is_read(world: World) -> None:
    # GIVEN a user with an ACTIVE, an ERROR and a REMOVED item
    for item_id, status in (("a", ItemStatus.ACTIVE), ("e", ItemStatus.ERROR), ("r", ItemStatus.REMOVED)):
        world.store.add_item(aged(item_id, days=2, status=status))
    # WHEN they log in
    decisions = listener.handle_message(login(), NOW, world.effects)
    # THEN only the ACTIVE item was decided, read and queued
    assert [(d.item_id, d.action) for d in decisions] == [("a", listener.Action.HISTORICAL_UPDATE)]
    assert [c.args for c in world.called("store", "transaction_webhooks")] == [("a",)]
    assert queued(world) == [("a", "HISTORICAL_UPDATE", "FROM_LISTENER")]


def test_a_user_without_items_is_skipped(world: World) -> None:
    assert listener.handle_message(login(), NOW, world.effects) == []
    assert [c.method for c in world.calls] == ["list_items"] and queued(world) == []


@pytest.mark.parametrize("user_id", ["auth0|user-1", "user-1"])
def test_the_auth0_prefix_is_optional(world: World, user_id: str) -> None:
    world.store.add_item(aged(days=2))
    listener.handle_message(login(user_id), NOW, world.effects)
    assert [c.args for c in world.called("store", "list_items")] == [("user-1",)]
    assert queued(world) == [("item-1", "HISTORICAL_UPDATE", "FROM_LISTENER")]


@pytest.mark.parametrize("body", [login(event_type="f"), login(event_type="s"), "not json", json.dumps({"detail": {}})])
def test_a_message_that_is_not_a_login_is_skipped_and_never_reported_failed(world: World, body: str) -> None:
    # GIVEN a user with a young item, and a message on the listener queue that is not a usable login
    world.store.add_item(aged(days=2))
    # WHEN the listener gets it THEN it reads nothing, queues nothing and reports no failure (never retried)
    assert listener.handle_sqs_event(sqs_event(body), NOW, world.effects) == {"batchItemFailures": []}
    assert world.calls == []


def test_a_login_delivered_twice_queues_the_same_message_twice(world: World) -> None:
    # GIVEN a young item
    world.store.add_item(aged(days=2))
    # WHEN one login is delivered twice
    listener.handle_sqs_event(sqs_event(login(), login()), NOW, world.effects)
    # THEN both copies queued one message id: the miner records it once
    first, second = world.messages.webhooks
    assert first.message_id == second.message_id and first.payload == second.payload
    # AND another login (its own event id) queues another message
    listener.handle_sqs_event(sqs_event(login(event_id="evt-2")), NOW, world.effects)
    assert world.messages.webhooks[-1].message_id != first.message_id
