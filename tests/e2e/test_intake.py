"""POST /v1/plaid over HTTP: every status code the intake answers (docs/pipeline.md)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import jwt
import pytest
import urllib3

from chalicelib.settings import get_settings
from ops.fakes.plaid import FakePlaid, SigningKey
from ops.fakes.plaid.webhooks import post_webhook
from ops.queues import take_all
from tests.faults import aws_fault

pytestmark = pytest.mark.integration

PAYLOAD = {
    "webhook_type": "TRANSACTIONS",
    "webhook_code": "DEFAULT_UPDATE",
    "item_id": "item-x",
    "environment": "sandbox",
}


def queued_bodies() -> list[dict[str, Any]]:
    """Drain the webhooks queue (no runtime runs in these tests) and return its messages."""
    return [json.loads(message["Body"]) for message in take_all(get_settings().webhooks_queue)]


@pytest.fixture
def queue(stack_env: dict[str, Any]) -> Callable[[], list[dict[str, Any]]]:
    queued_bodies()
    return queued_bodies


def test_a_verified_webhook_is_queued_with_its_exact_payload(
    app_url: str, fake_plaid: FakePlaid, queue: Callable[[], list[dict[str, Any]]]
) -> None:
    # WHEN Plaid posts a signed webhook
    delivery = fake_plaid.send_webhook(f"{app_url}/v1/plaid", PAYLOAD)
    # THEN it is accepted and queued once, with source PLAID and a message id
    assert delivery.status == 200
    [message] = queue()
    assert message["payload"] == PAYLOAD
    assert message["source"] == "PLAID"
    assert message["message_id"] == json.loads(delivery.body)["message_id"]


def test_missing_header_is_401(app_url: str, queue: Callable[[], list[dict[str, Any]]]) -> None:
    response = urllib3.request(
        "POST", f"{app_url}/v1/plaid", body=json.dumps(PAYLOAD), headers={"Content-Type": "application/json"}
    )
    assert response.status == 401
    assert response.json()["error"]["code"] == "unauthorized"
    assert queue() == []


@pytest.mark.parametrize(
    "forge",
    [
        pytest.param(lambda key, body: key.sign(body + b" "), id="tampered-body"),
        pytest.param(lambda key, body: key.sign(body, iat=time.time() - 301), id="older-than-5-minutes"),
        pytest.param(lambda key, body: SigningKey.generate(kid=key.kid).sign(body), id="wrong-key"),
        pytest.param(lambda key, body: key.sign(body, kid="unknown-kid"), id="unknown-kid"),
        pytest.param(
            lambda key, body: jwt.encode(
                {"iat": int(time.time())}, "s" * 32, algorithm="HS256", headers={"kid": key.kid}
            ),
            id="hs256",
        ),
        pytest.param(lambda key, body: "not-a-jwt", id="garbage"),
    ],
)
def test_a_token_that_does_not_prove_plaid_sent_this_body_is_401(
    app_url: str,
    fake_plaid: FakePlaid,
    queue: Callable[[], list[dict[str, Any]]],
    forge: Callable[[SigningKey, bytes], str],
) -> None:
    body = json.dumps(PAYLOAD).encode()
    delivery = post_webhook(f"{app_url}/v1/plaid", body, forge(fake_plaid.current_key, body))
    assert delivery.status == 401
    assert queue() == []


def test_failing_to_fetch_the_verification_key_is_500_so_plaid_retries(
    app_url: str, fake_plaid: FakePlaid, queue: Callable[[], list[dict[str, Any]]]
) -> None:
    # GIVEN Plaid rotated to a key the app has not seen, and its key endpoint is down
    fake_plaid.rotate_key()
    fake_plaid.fail("/webhook_verification_key/get", "INTERNAL_SERVER_ERROR", times=None)
    try:
        delivery = fake_plaid.send_webhook(f"{app_url}/v1/plaid", PAYLOAD)
    finally:
        fake_plaid.clear_faults()
    # THEN the app cannot run the check: 500, nothing queued
    assert delivery.status == 500
    assert queue() == []


def test_a_signed_body_that_is_not_json_is_422(
    app_url: str, fake_plaid: FakePlaid, queue: Callable[[], list[dict[str, Any]]]
) -> None:
    for body in (b"{not json", b"[1, 2]"):
        delivery = post_webhook(f"{app_url}/v1/plaid", body, fake_plaid.current_key.sign(body))
        assert delivery.status == 422
        assert json.loads(delivery.body)["error"]["code"] == "unprocessable_entity"
    assert queue() == []


def test_failing_to_queue_is_500(app_url: str, fake_plaid: FakePlaid, override_settings: Callable[..., None]) -> None:
    override_settings(WEBHOOKS_QUEUE="missing-webhooks-queue")
    delivery = fake_plaid.send_webhook(f"{app_url}/v1/plaid", PAYLOAD)
    assert delivery.status == 500
    assert json.loads(delivery.body) == {"error": {"code": "webhook_not_queued", "message": "webhook not queued"}}


@pytest.mark.parametrize("code", ["ServiceUnavailable", "ThrottlingException"])
def test_a_transient_queue_failure_is_500_too(
    app_url: str, fake_plaid: FakePlaid, queue: Callable[[], list[dict[str, Any]]], code: str
) -> None:
    # GIVEN SQS briefly refuses the send (a 5xx or a throttle)
    with aws_fault("sqs", "SendMessage", code=code) as fault:
        delivery = fake_plaid.send_webhook(f"{app_url}/v1/plaid", PAYLOAD)
    # THEN Plaid is told 500, the status it retries, and nothing was queued
    assert fault.hits == 1
    assert delivery.status == 500
    assert json.loads(delivery.body)["error"]["code"] == "webhook_not_queued"
    assert queue() == []
