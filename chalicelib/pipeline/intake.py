"""Webhook intake, ``POST /v1/plaid`` (seed 002): verify, then queue; mining happens later.

1. no ``Plaid-Verification`` header: 401;
2. the header must be an ES256 JWT from Plaid whose body hash matches the raw body: else
   401; failing to run the check (Plaid's key endpoint down): 500, so Plaid retries;
3. the body must be a JSON object: else 422;
4. the message goes on the webhooks queue: any failure 500 (even a throttle: Plaid retries
   a 5xx, and 500 is what it is promised), success 200.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from chalicelib.aws.messaging import send_message
from chalicelib.data.ttl import iso_timestamp, utcnow
from chalicelib.errors import BadRequestBodyError, DataError
from chalicelib.observability import logger
from chalicelib.pipeline.messages import WebhookMessage, webhook_message_id
from chalicelib.plaid.errors import WebhookNotQueuedError, WebhookUnauthorizedError
from chalicelib.plaid.webhook_verification import verify_webhook
from chalicelib.settings import get_settings

HEADER = "plaid-verification"


def accept_webhook(body: bytes | str, headers: Mapping[str, str], now: datetime | None = None) -> dict[str, Any]:
    """Verify and enqueue one Plaid webhook; returns the response body for a 200."""
    raw_body = body if isinstance(body, bytes) else body.encode()
    token = _header(headers)
    if not token:
        raise WebhookUnauthorizedError("missing_header", "Plaid-Verification header is required")
    verify_webhook(raw_body, token)
    payload = _json_object(raw_body)
    received_at = iso_timestamp(now or utcnow())
    message = WebhookMessage(webhook_message_id("PLAID", raw_body, received_at), "PLAID", received_at, payload)
    try:
        send_message(get_settings().webhooks_queue, message.to_json())
    except DataError as exc:
        # Any failure to queue, transient or not, is Plaid's cue to retry: never a 503 or a 200.
        logger.error("webhook not queued", extra={"message_id": message.message_id, "error": str(exc)})
        raise WebhookNotQueuedError(f"could not queue the webhook: {type(exc).__name__}") from exc
    logger.info(
        "webhook queued",
        extra={
            "message_id": message.message_id,
            "webhook_type": payload.get("webhook_type"),
            "webhook_code": payload.get("webhook_code"),
            "item_id": payload.get("item_id"),
        },
    )
    return {"status": "queued", "message_id": message.message_id}


def _header(headers: Mapping[str, str]) -> str | None:
    for name, value in headers.items():
        if name.lower() == HEADER:
            return value
    return None


def _json_object(raw_body: bytes) -> dict[str, Any]:
    try:
        payload = json.loads(raw_body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadRequestBodyError("body is not JSON") from exc
    if not isinstance(payload, dict):
        raise BadRequestBodyError("body is not a JSON object")
    return payload


def enqueue_synthetic(source: str, payload: dict[str, Any], now: datetime | None = None) -> WebhookMessage:
    """Queue a webhook the service makes itself (listener, API): ``source`` says who."""
    received_at = iso_timestamp(now or utcnow())
    body = json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()
    message = WebhookMessage(webhook_message_id(source, body, received_at), source, received_at, payload)
    send_message(get_settings().webhooks_queue, message.to_json())
    return message
