"""Webhook intake, ``POST /v1/plaid``: verify, then queue; mining happens later (``docs/pipeline.md``).

1. a body over :data:`MAX_BODY_BYTES`: 413, before anything reads it;
2. no ``Plaid-Verification`` header: 401;
3. the header must be an ES256 JWT from Plaid whose body hash matches the raw body: else
   401; failing to run the check (Plaid's key endpoint down): 500, so Plaid retries;
4. the body must be a JSON object: else 422;
5. the message goes on the webhooks queue: any failure 500 (even a throttle: Plaid retries
   a 5xx, and 500 is what it is promised), success 200.

Every outcome an operator watches is counted here, where it happens: ``txn.webhook.received``
(by type and code; its silence is an alarm), ``txn.webhook.unauthorized`` (by reason; a burst
is an attack or a key problem), ``txn.webhook.rejected`` (413, 422) and ``txn.intake.failed``
(each 500, by the reason the response names and its cause).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from chalicelib.aws.messaging import send_message
from chalicelib.data.ttl import iso_timestamp, utcnow
from chalicelib.errors import BadRequestBodyError, DataError, PayloadTooLargeError
from chalicelib.observability import count, logger
from chalicelib.pipeline.messages import WebhookMessage, webhook_message_id
from chalicelib.plaid.errors import (
    WebhookNotQueuedError,
    WebhookUnauthorizedError,
    WebhookVerificationUnavailableError,
)
from chalicelib.plaid.webhook_verification import verify_webhook
from chalicelib.settings import get_settings

HEADER = "plaid-verification"
#: The largest webhook body accepted (192 KiB); anything larger is refused before it is hashed
#: or parsed. Plaid's webhooks are small JSON objects: the largest fixed-shape one (ITEM ERROR,
#: with its error object) is about 600 bytes. Only TRANSACTIONS_REMOVED grows, by about 41
#: bytes per removed transaction id, so this admits one naming some 4,700 removals, hundreds of
#: times any seen. With the queue message's envelope it stays under 256 KiB, a message size
#: every SQS queue accepts.
MAX_BODY_BYTES = 192 * 1024
RECEIVED_METRIC = "txn.webhook.received"
UNAUTHORIZED_METRIC = "txn.webhook.unauthorized"
REJECTED_METRIC = "txn.webhook.rejected"
FAILED_METRIC = "txn.intake.failed"
#: What a 500 of the intake says (the response's error code), by the error that caused it.
FAILURE_REASONS: tuple[tuple[type[Exception], str], ...] = (
    (WebhookVerificationUnavailableError, "verification_unavailable"),
    (WebhookNotQueuedError, "webhook_not_queued"),
)
INTERNAL_ERROR = "internal_error"
#: Plaid's webhook types and codes are upper-case words; anything else is counted as OTHER.
_NAME = re.compile(r"[A-Z][A-Z0-9_]{0,63}")


def accept_webhook(body: bytes | str, headers: Mapping[str, str], now: datetime | None = None) -> dict[str, Any]:
    """Verify and enqueue one Plaid webhook; returns the response body for a 200."""
    raw_body = body if isinstance(body, bytes) else body.encode()
    if len(raw_body) > MAX_BODY_BYTES:
        count(REJECTED_METRIC, reason="too_large")
        raise PayloadTooLargeError(f"a webhook body is at most {MAX_BODY_BYTES} bytes; this one is {len(raw_body)}")
    with _counted_failures():
        return _accept(raw_body, headers, now)


@contextmanager
def _counted_failures() -> Iterator[None]:
    """Count every 401 and 500 the intake answers, with the reason an operator acts on."""
    try:
        yield
    except WebhookUnauthorizedError as exc:
        count(UNAUTHORIZED_METRIC, detail={"reason": exc.reason})
        raise
    except BadRequestBodyError:
        count(REJECTED_METRIC, reason="invalid_body")
        raise
    except Exception as exc:
        reason = next((r for kind, r in FAILURE_REASONS if isinstance(exc, kind)), INTERNAL_ERROR)
        # The key lookup's own reason; for a queue failure, the AWS error behind it; else the class.
        cause = (
            exc.reason if isinstance(exc, WebhookVerificationUnavailableError) else type(exc.__cause__ or exc).__name__
        )
        count(FAILED_METRIC, reason=reason, detail={"cause": cause})
        raise


def _accept(raw_body: bytes, headers: Mapping[str, str], now: datetime | None) -> dict[str, Any]:
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
    count(
        RECEIVED_METRIC,
        detail={"webhook_type": _name(payload.get("webhook_type")), "webhook_code": _name(payload.get("webhook_code"))},
    )
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


def _name(value: Any) -> str:
    """A webhook type or code as a metric dimension (bounded: Plaid's words, else OTHER)."""
    return value if isinstance(value, str) and _NAME.fullmatch(value) else "OTHER"


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
