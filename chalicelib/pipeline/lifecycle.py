"""ITEM, AUTH and LIABILITIES webhooks (what each code does: ``docs/architecture.md#the-miners-rules``).

Every step is idempotent, so a redelivered message repeats the route safely. A
``USER_PERMISSION_REVOKED`` is an item removal (:mod:`chalicelib.pipeline.removal`), which
finishes on redelivery whichever of its steps failed. Segment events carry keys derived
from the message, and domain events carry ids derived from what they describe. The user
must exist in the User Service before anything is said about them: ``UserNotFoundError``
drops the message, any other User Service failure retries it. What each code does is decided
by :func:`~chalicelib.pipeline.decisions.miner.plan_item_webhook` (and its AUTH and LIABILITIES
siblings); the peers, Plaid, the tables and the bus are reached through
:class:`~chalicelib.pipeline.effects.Effects`.
"""

from __future__ import annotations

from datetime import datetime

from chalicelib.data import items, liabilities
from chalicelib.data.webhook_info import UpdateInfo
from chalicelib.observability import logger
from chalicelib.peers import PLAID_ITEM_ERRORED, PLAID_ITEM_REPAIRED, UserNotFoundError, derive_key
from chalicelib.pipeline import removal
from chalicelib.pipeline.batches import DropMessageError
from chalicelib.pipeline.decisions import miner as rules
from chalicelib.pipeline.decisions.miner import USER_ACCOUNT_REVOKED, USER_PERMISSION_REVOKED, ItemAction
from chalicelib.pipeline.effects import Effects
from chalicelib.pipeline.messages import WebhookMessage
from chalicelib.settings import get_settings

__all__ = [
    "USER_ACCOUNT_REVOKED",
    "USER_PERMISSION_REVOKED",
    "require_user",
    "route_auth",
    "route_item",
    "route_liabilities",
]


def require_user(user_id: str, fx: Effects) -> None:
    try:
        fx.peers.get_user(user_id)
    except UserNotFoundError as exc:
        raise DropMessageError("user_not_found", user_id=user_id) from exc


# --- ITEM -----------------------------------------------------------------------------


def route_item(message: WebhookMessage, item: items.Item, now: datetime, fx: Effects) -> UpdateInfo | None:
    require_user(item.user_id, fx)
    plan = rules.plan_item_webhook(message.webhook_code, item.error_code, message.payload)
    if plan.action is ItemAction.REPAIRED:
        fx.peers.item_repaired(
            item.user_id,
            item.item_id,
            message_id=derive_key(PLAID_ITEM_REPAIRED, item.item_id, message.message_id),
            institution_id=item.institution_id,
        )
    elif plan.action is ItemAction.ERRORED:
        fx.peers.item_errored(
            item.user_id,
            item.item_id,
            plan.error_code,
            message_id=derive_key(PLAID_ITEM_ERRORED, item.item_id, message.message_id),
            institution_id=item.institution_id,
        )
        if plan.connection_lost:
            fx.events.connection_lost(item.user_id, item.item_id, str(plan.error_code), message.message_id)
    elif plan.action is ItemAction.REMOVE:
        fx.removals.remove_item(item, removal.permission_revoked_removal(), now)
    elif plan.action is ItemAction.ACCOUNT_REVOKED:
        fx.events.connection_revoked(
            item.user_id, item.item_id, USER_ACCOUNT_REVOKED, message.message_id, plan.account_id
        )
    return None


# --- AUTH -----------------------------------------------------------------------------


def route_auth(message: WebhookMessage, item: items.Item, now: datetime, fx: Effects) -> UpdateInfo | None:
    """DEFAULT_UPDATE: new numbers on the main account invalidate the stored bank account."""
    if rules.invalidates_bank_account(item.main_account_id, message.payload):
        deleted = fx.peers.delete_bank_account(item.user_id)
        logger.info("stored bank account invalidated", extra={"item_id": item.item_id, "deleted": deleted})
    return None


# --- LIABILITIES ----------------------------------------------------------------------


def route_liabilities(message: WebhookMessage, item: items.Item, now: datetime, fx: Effects) -> UpdateInfo | None:
    """DEFAULT_UPDATE: fetch and store the new and updated accounts' liabilities."""
    account_ids = rules.liability_accounts(message.payload, enabled=get_settings().enable_liability_mining)
    if not account_ids:
        return None
    response = fx.plaid.liabilities_get(item.access_token, account_ids=account_ids)
    found = liabilities.liabilities_from_plaid(
        item.user_id, item.item_id, response.get("liabilities"), now, account_ids=set(account_ids)
    )
    fx.store.store_liabilities(found)
    return None
