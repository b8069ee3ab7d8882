"""End to end: Auth0 login events on the Auth0 bus, routed by the declared rule to the listener.

Each test publishes the envelope with ``PutEvents`` on the Auth0 bus; the rule (equals-
ignore-case on ``detail.data.type``) puts it on the listener queue; the runtime drains the
listener, and the miner and refiner for the synthetic webhooks it queues. What the
listener decided is read back from the WEBHOOK_INFO rows the miner records.

One scenario per behaviour: a login routed and mined, the rule's filter, a message that cannot
be handled, a login delivered twice. Every row of the decision table, which items and which
messages are considered, and the user id's prefix are unit tests:
tests/unit/test_listener_decision.py and tests/unit/test_listener_handler.py.
"""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timedelta
from typing import Any

import boto3
import pytest

import app as app_module
from chalicelib.aws.messaging import queue_url
from chalicelib.data import items, webhook_info
from chalicelib.data.ttl import utcnow
from chalicelib.data.webhook_info import WebhookInfo, WebhookSource
from chalicelib.settings import get_settings
from ops.fakes.plaid import FakeItem, FakePlaid
from ops.runtime import DrainResult, EventRuntime
from tests.conftest import empty_queue

pytestmark = [pytest.mark.integration, pytest.mark.slow]

AUTH0_SOURCE = "aws.partner/auth0.com/floatme-test/auth0.logs"
#: The listener and the miner that records what it queued; the refiner and feeders are not under test here.
FUNCTIONS = ("listen_auth0", "mine_webhooks")


@pytest.fixture
def runtime(stack_env: dict[str, Any]) -> EventRuntime:
    """The event runtime over the real app, limited to the listener's path.

    The webhooks queue is shared by the session: messages other tests queued without
    mining them are purged first, so counting this test's mines counts only its own.
    """
    empty_queue(get_settings().webhooks_queue)
    return EventRuntime(app_module.app, visibility_timeout=1, ttl_interval=None, functions=FUNCTIONS)


# --- factories ------------------------------------------------------------------------------


def login_detail(user_id: str, event_type: str = "gd_auth_succeed") -> dict[str, Any]:
    return {
        "log_id": uuid.uuid4().hex,
        "data": {
            "type": event_type,
            "user_id": user_id,
            "date": utcnow().isoformat(),
            "client_name": "FloatMe iOS",
            "ip": "10.1.2.3",
        },
    }


def publish_login(user_id: str, event_type: str = "gd_auth_succeed") -> None:
    """What Auth0's log stream puts on its partner bus."""
    response = boto3.client("events").put_events(
        Entries=[
            {
                "EventBusName": get_settings().auth0_event_bus,
                "Source": AUTH0_SOURCE,
                "DetailType": "Auth0 log",
                "Detail": json.dumps(login_detail(user_id, event_type)),
            }
        ]
    )
    assert response["FailedEntryCount"] == 0


def send_to_listener_queue(body: str) -> None:
    """A message put straight on the listener queue, past the rule's filter."""
    boto3.client("sqs").send_message(QueueUrl=queue_url(get_settings().listener_queue), MessageBody=body)


def save_item(
    plaid: FakePlaid,
    user_id: str,
    *,
    age: timedelta = timedelta(days=2),
) -> FakeItem:
    """An item linked at (fake) Plaid and saved ``age`` ago."""
    fake = plaid.create_item(transaction_count=10, history_days=200, loans=False)
    item = items.Item(
        user_id=user_id,
        item_id=fake.item_id,
        access_token=fake.access_token,
        institution_id=fake.institution_id,
        created_at=(utcnow() - age).isoformat(),
        main_account_id=fake.roles()["checking"],
    )
    assert items.create_item(item, utcnow())
    return fake


def listener_mines(fake: FakeItem) -> list[WebhookInfo]:
    return [r for r in webhook_info.transaction_webhooks(fake.item_id) if r.source == WebhookSource.FROM_LISTENER]


def drain(runtime: EventRuntime) -> DrainResult:
    return runtime.drain(timeout=90)


# --- a login, end to end ---------------------------------------------------------------------


def test_a_young_item_without_a_historical_update_gets_one(
    fake_plaid: FakePlaid, runtime: EventRuntime, user_id: str
) -> None:
    # GIVEN an ACTIVE item saved two days ago that has never had a HISTORICAL_UPDATE
    fake = save_item(fake_plaid, user_id)

    # WHEN the user logs in
    publish_login(f"auth0|{user_id}")
    result = drain(runtime)

    # THEN the listener queued a synthetic HISTORICAL_UPDATE from FROM_LISTENER, and the miner mined 180 days
    assert result.of("listen_auth0").records == 1
    [mine] = listener_mines(fake)
    assert mine.webhook_code == "HISTORICAL_UPDATE"
    assert mine.update_info is not None and mine.update_info.total_transactions > 0
    [call] = [c for c in fake_plaid.calls("/transactions/get") if c.body["access_token"] == fake.access_token]
    start, end = (datetime.fromisoformat(call.body[k]).date() for k in ("start_date", "end_date"))
    assert (end - start).days == 180


def test_a_login_type_is_routed_and_handled_in_any_case(
    fake_plaid: FakePlaid, runtime: EventRuntime, user_id: str
) -> None:
    # GIVEN a young item
    fake = save_item(fake_plaid, user_id)

    # WHEN Auth0 reports a login type in an unusual case (the rule matches each type ignoring case:
    # tests/infra/test_cloudformation.py declares all three, tests/runtime/test_patterns.py the match)
    publish_login(f"auth0|{user_id}", "SePfT")
    drain(runtime)

    # THEN the rule routed it and the listener acted on it
    assert [m.webhook_code for m in listener_mines(fake)] == ["HISTORICAL_UPDATE"]


def test_other_auth0_events_never_reach_the_listener(
    fake_plaid: FakePlaid, runtime: EventRuntime, user_id: str
) -> None:
    # GIVEN a young item
    fake = save_item(fake_plaid, user_id)

    # WHEN Auth0 reports a failed login ("f")
    publish_login(f"auth0|{user_id}", "f")
    result = drain(runtime)

    # THEN the rule does not route it: the listener is not invoked and nothing is mined
    assert result.of("listen_auth0").records == 0
    assert listener_mines(fake) == []


def test_a_message_that_cannot_be_handled_is_logged_and_not_retried(runtime: EventRuntime) -> None:
    # GIVEN a message on the listener queue that is not an EventBridge envelope
    send_to_listener_queue("this is not json")

    # WHEN the runtime drains
    result = drain(runtime)

    # THEN the listener received it exactly once and deleted it (no batch item failure, no redelivery)
    stats = result.of("listen_auth0")
    assert (stats.records, stats.failures, stats.errors) == (1, 0, 0)
    assert result.idle


def test_a_login_delivered_twice_is_mined_as_one(fake_plaid: FakePlaid, user_id: str) -> None:
    # GIVEN a young item, and a runtime that delivers every batch twice
    fake = save_item(fake_plaid, user_id)
    runtime = EventRuntime(
        app_module.app, visibility_timeout=1, ttl_interval=None, duplicate_delivery=True, functions=FUNCTIONS
    )

    # WHEN one login arrives
    publish_login(f"auth0|{user_id}")
    result = runtime.drain(timeout=90)

    # THEN both deliveries queued the same message (same id), which the miner recorded once
    assert result.of("listen_auth0").records == 2
    [mine] = listener_mines(fake)
    assert mine.webhook_code == "HISTORICAL_UPDATE"

    # WHEN the user logs in again an hour later (a new login event)
    publish_login(f"auth0|{user_id}")
    runtime.drain(timeout=90)

    # THEN the 24-hour rule skips it: still one listener mine
    assert len(listener_mines(fake)) == 1
