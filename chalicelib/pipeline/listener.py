"""The listener: a user's login asks for fresh transactions (``docs/item-lifecycle.md``).

Auth0 log events reach the listener queue through an EventBridge rule; each SQS message
body is the EventBridge envelope ``{"id", "time", "detail": {"data": {"type", "user_id"}}}``.

1. ``detail.data.type`` must be ``gd_auth_succeed``, ``sepft`` or ``sertft`` (any case),
   else skip. The user id is ``detail.data.user_id`` without its ``auth0|`` prefix.
2. Read the user's items; none: skip. Items that are not ACTIVE are logged and skipped.
3. Per item, read its TRANSACTIONS WEBHOOK_INFO rows and :func:`decide`: a mine within
   24 hours skips; an item younger than 30 days with no HISTORICAL_UPDATE gets a
   synthetic HISTORICAL_UPDATE; anything else a synthetic DEFAULT_UPDATE, queued with
   ``source=FROM_LISTENER``.

The decision table is pure (:mod:`chalicelib.pipeline.decisions.listener`); the items, the
WEBHOOK_INFO rows and the webhooks queue are reached through
:class:`~chalicelib.pipeline.effects.Effects`.

Processing errors are logged and never retried (no batch item failures). A redelivered
login is harmless: the synthetic message's id and timestamp derive from the login event
and the item only, so both copies carry the same message id, the miner records one
WEBHOOK_INFO row for them, and the rows and events they produce are the same; once that
row exists, the 24-hour rule skips any later copy.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from marshmallow import EXCLUDE, Schema, fields
from marshmallow import ValidationError as SchemaError

from chalicelib.data import items
from chalicelib.data.ttl import utcnow
from chalicelib.data.webhook_info import WebhookSource
from chalicelib.errors import ValidationError
from chalicelib.infra.declaration import AUTH0_LOGIN_TYPES
from chalicelib.observability import count, logger
from chalicelib.pipeline.decisions.listener import Action, PastWebhook, considered, decide
from chalicelib.pipeline.effects import Effects, get_effects

__all__ = ["Action", "ItemDecision", "LoginEvent", "PastWebhook", "decide", "decide_and_queue", "handle_sqs_event"]

AUTH0_PREFIX = "auth0|"
TRANSACTIONS = "TRANSACTIONS"
LOGIN_TYPES = frozenset(AUTH0_LOGIN_TYPES)
DECISION_METRIC = "txn.listener.decision"
SKIPPED_METRIC = "txn.listener.skipped"
FAILED_METRIC = "txn.listener.failed"


# --- the login event ----------------------------------------------------------------------


class _DataSchema(Schema):
    class Meta:
        unknown = EXCLUDE

    type = fields.String(load_default=None, allow_none=True)
    user_id = fields.String(load_default=None, allow_none=True)


class _DetailSchema(Schema):
    class Meta:
        unknown = EXCLUDE

    data = fields.Nested(_DataSchema, required=True)


class _EnvelopeSchema(Schema):
    class Meta:
        unknown = EXCLUDE

    id = fields.String(load_default=None, allow_none=True)
    time = fields.AwareDateTime(load_default=None, allow_none=True, default_timezone=UTC)
    detail = fields.Nested(_DetailSchema, required=True)


_ENVELOPE = _EnvelopeSchema()


@dataclass(frozen=True)
class LoginEvent:
    event_id: str | None
    event_type: str
    user_id: str
    time: datetime | None


def parse_login(body: str) -> LoginEvent | None:
    """The login in an EventBridge envelope; ``None`` for an event type that is not a login.

    Raises :class:`~chalicelib.errors.ValidationError` for a body that is not an envelope
    or a login without a user id.
    """
    try:
        loaded: dict[str, Any] = _ENVELOPE.load(json.loads(body))
    except (ValueError, TypeError) as exc:
        raise ValidationError("listener message is not JSON") from exc
    except SchemaError as exc:
        raise ValidationError("listener message is not an Auth0 log envelope", {"errors": exc.messages}) from exc
    data = loaded["detail"]["data"]
    event_type = str(data.get("type") or "")
    if event_type.lower() not in LOGIN_TYPES:
        return None
    user_id = strip_auth0_prefix(str(data.get("user_id") or ""))
    if not user_id:
        raise ValidationError("login event without a user id", {"type": event_type})
    return LoginEvent(loaded.get("id"), event_type, user_id, loaded.get("time"))


def strip_auth0_prefix(user_id: str) -> str:
    """``auth0|abc`` -> ``abc``; other connections' ids are kept as they are."""
    return user_id.removeprefix(AUTH0_PREFIX).strip()


# --- handling -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ItemDecision:
    item_id: str
    action: Action
    message_id: str | None = None


def handle_sqs_event(
    event: Mapping[str, Any], now: datetime | None = None, fx: Effects | None = None
) -> dict[str, list[dict[str, str]]]:
    """The Lambda entry: every message is handled once; nothing is ever reported failed.

    Not Powertools' batch processor: it exists to report failures for a retry, and the
    listener never retries (a login is not worth a second remine; the next login asks again).
    """
    for record in event.get("Records", []):
        message_id = str(record.get("messageId", ""))
        try:
            handle_message(str(record.get("body", "")), now or utcnow(), fx)
        except Exception as exc:  # noqa: BLE001 - logged, never retried: the next login asks again
            logger.exception(
                "listener could not handle a login; it is not retried",
                extra={"message_id": message_id, "error": str(exc), "error_class": type(exc).__name__},
            )
            count(FAILED_METRIC, stage="message", detail={"error": type(exc).__name__})
    return {"batchItemFailures": []}


def handle_message(body: str, now: datetime, fx: Effects | None = None) -> list[ItemDecision]:
    """Decide and queue the synthetic webhooks for one login; returns what was decided."""
    fx = fx or get_effects()
    login = parse_login(body)
    if login is None:
        count(SKIPPED_METRIC, reason="not_a_login")
        return []
    user_items = fx.store.list_items(login.user_id)
    if not user_items:
        logger.info("login of a user without items", extra={"user_id": login.user_id})
        count(SKIPPED_METRIC, reason="no_items")
        return []
    decisions: list[ItemDecision] = []
    for item in user_items:
        if not considered(item):
            logger.info(
                "login: item is not active; skipped",
                extra={"user_id": item.user_id, "item_id": item.item_id, "status": item.status.value},
            )
            count(SKIPPED_METRIC, reason="item_not_active")
            continue
        try:
            decisions.append(decide_and_queue(login, item, now, fx))
        except Exception as exc:  # noqa: BLE001 - one item's failure must not cost the others their mine
            logger.exception(
                "listener could not handle an item; it is not retried",
                extra={"user_id": item.user_id, "item_id": item.item_id, "error": str(exc)},
            )
            count(FAILED_METRIC, stage="item", detail={"error": type(exc).__name__})
    return decisions


def decide_and_queue(login: LoginEvent, item: items.Item, now: datetime, fx: Effects | None = None) -> ItemDecision:
    fx = fx or get_effects()
    history = [PastWebhook(r.webhook_code, r.received_at) for r in fx.store.transaction_webhooks(item.item_id, now)]
    action = decide(history, parse_created_at(item.created_at), now)
    count(DECISION_METRIC, action=action.value)
    if action is Action.SKIP:
        logger.info("login: item mined within 24 hours; skipped", extra={"item_id": item.item_id})
        return ItemDecision(item.item_id, action)
    payload = {
        "webhook_type": TRANSACTIONS,
        "webhook_code": action.value,
        "item_id": item.item_id,
        "login_event_id": login.event_id,
    }
    # The login's own time stamps the message, so a redelivered login yields the same message id.
    message = fx.messages.enqueue_webhook(WebhookSource.FROM_LISTENER.value, payload, login.time or now)
    logger.info(
        "login: synthetic webhook queued",
        extra={"item_id": item.item_id, "webhook_code": action.value, "message_id": message.message_id},
    )
    return ItemDecision(item.item_id, action, message.message_id)


def parse_created_at(raw: str | None) -> datetime | None:
    """``item_created_at`` as an aware datetime; ``None`` when absent or unreadable."""
    if not raw:
        return None
    try:
        moment = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        logger.warning("item_created_at is not an ISO timestamp", extra={"item_created_at": raw})
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
