"""POST /v1/plaid's body limit: a webhook as large as the limit is queued, a larger body is 413."""

from __future__ import annotations

import json
from typing import Any

import pytest

from chalicelib.pipeline.intake import MAX_BODY_BYTES
from ops.fakes.plaid import FakePlaid
from ops.fakes.plaid.webhooks import post_webhook
from tests.e2e.test_intake import queued_bodies

pytestmark = pytest.mark.integration


def removal_webhook(size: int) -> bytes:
    """A TRANSACTIONS_REMOVED webhook of exactly ``size`` bytes (Plaid's largest kind: it lists ids)."""
    payload: dict[str, Any] = {
        "webhook_type": "TRANSACTIONS",
        "webhook_code": "TRANSACTIONS_REMOVED",
        "item_id": "wz666MBjYWTp2PDzzggYhM6oWWmBb",
        "removed_transactions": [],
        "error": None,
        "environment": "production",
    }
    empty = len(json.dumps(payload).encode())
    # The first id adds its 37 digits and two quotes, each further one a separating ", " too.
    count = max(0, (size - empty + 2) // 41)
    payload["removed_transactions"] = [f"{n:037d}" for n in range(count)]
    body = json.dumps(payload).encode()
    assert len(body) <= size < len(body) + 41
    return body[:-1] + b" " * (size - len(body)) + body[-1:]  # pad inside the object to the exact size


@pytest.fixture
def queue(stack_env: dict[str, Any]) -> None:
    queued_bodies()


def test_a_webhook_as_large_as_the_limit_is_verified_and_fits_the_queue(
    app_url: str, fake_plaid: FakePlaid, queue: None
) -> None:
    # GIVEN a signed removal webhook of exactly the limit (some 4,700 transaction ids)
    body = removal_webhook(MAX_BODY_BYTES)
    assert len(body) == MAX_BODY_BYTES
    # WHEN Plaid posts it
    delivery = post_webhook(f"{app_url}/v1/plaid", body, fake_plaid.current_key.sign(body))
    # THEN it is accepted and queued whole (the queue's message limit leaves room for it)
    assert delivery.status == 200, delivery.body
    [message] = queued_bodies()
    assert message["payload"] == json.loads(body)
    assert len(json.dumps(message).encode()) < 256 * 1024


def test_a_larger_body_is_413_in_the_error_envelope_and_never_verified(
    app_url: str, fake_plaid: FakePlaid, queue: None
) -> None:
    # GIVEN a body one byte over the limit, signed by Plaid's key
    body = removal_webhook(MAX_BODY_BYTES + 1)
    fake_plaid.clear_calls()
    # WHEN it is posted
    delivery = post_webhook(f"{app_url}/v1/plaid", body, fake_plaid.current_key.sign(body))
    # THEN it is refused with 413 before anything reads it: no key lookup, nothing queued
    assert delivery.status == 413
    assert json.loads(delivery.body)["error"]["code"] == "payload_too_large"
    assert fake_plaid.calls("/webhook_verification_key/get") == []
    assert queued_bodies() == []
