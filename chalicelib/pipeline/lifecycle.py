"""ITEM, AUTH and LIABILITIES webhooks (seed 002's ITEM, AUTH and LIABILITIES tables).

Every step is idempotent, so a redelivered message repeats the route safely. A
``USER_PERMISSION_REVOKED`` is an item removal (:mod:`chalicelib.pipeline.removal`), which
finishes on redelivery whichever of its steps failed. Segment events carry keys derived
from the message, and domain events carry ids derived from what they describe. The user
must exist in the User Service before anything is said about them: ``UserNotFoundError``
drops the message, any other User Service failure retries it.
"""

from __future__ import annotations

from datetime import datetime

from chalicelib.data import items, liabilities
from chalicelib.data.webhook_info import UpdateInfo
from chalicelib.events import publisher
from chalicelib.observability import logger
from chalicelib.peers import (
    PLAID_ITEM_ERRORED,
    PLAID_ITEM_REPAIRED,
    UserNotFoundError,
    derive_key,
    get_payments_service,
    get_segment,
    get_user_service,
)
from chalicelib.pipeline import removal
from chalicelib.pipeline.batches import DropMessageError
from chalicelib.pipeline.messages import WebhookMessage
from chalicelib.plaid.client import get_plaid
from chalicelib.plaid.errors import CONNECTION_LOST_CODES
from chalicelib.settings import get_settings

USER_PERMISSION_REVOKED = "USER_PERMISSION_REVOKED"
USER_ACCOUNT_REVOKED = "USER_ACCOUNT_REVOKED"


def require_user(user_id: str) -> None:
    try:
        get_user_service().get_user(user_id)
    except UserNotFoundError as exc:
        raise DropMessageError("user_not_found", user_id=user_id) from exc


# --- ITEM -----------------------------------------------------------------------------


def route_item(message: WebhookMessage, item: items.Item, now: datetime) -> UpdateInfo | None:
    code = message.webhook_code
    require_user(item.user_id)
    if code == "LOGIN_REPAIRED":
        get_segment().item_repaired(
            item.user_id,
            item.item_id,
            message_id=derive_key(PLAID_ITEM_REPAIRED, item.item_id, message.message_id),
            institution_id=item.institution_id,
        )
    elif code == "ERROR":
        _item_error(message, item)
    elif code == USER_PERMISSION_REVOKED:
        removal.remove_item(item, removal.permission_revoked_removal(), now)
    elif code == USER_ACCOUNT_REVOKED:
        publisher.connection_revoked(
            item.user_id, item.item_id, USER_ACCOUNT_REVOKED, message.message_id, message.payload.get("account_id")
        )
    return None


def _item_error(message: WebhookMessage, item: items.Item) -> None:
    payload_error = message.payload.get("error") or {}
    error_code = item.error_code or payload_error.get("error_code") or "UNKNOWN"
    get_segment().item_errored(
        item.user_id,
        item.item_id,
        error_code,
        message_id=derive_key(PLAID_ITEM_ERRORED, item.item_id, message.message_id),
        institution_id=item.institution_id,
    )
    if error_code in CONNECTION_LOST_CODES:
        publisher.connection_lost(item.user_id, item.item_id, error_code, message.message_id)


# --- AUTH -----------------------------------------------------------------------------


def route_auth(message: WebhookMessage, item: items.Item, now: datetime) -> UpdateInfo | None:
    """DEFAULT_UPDATE: new numbers on the main account invalidate the stored bank account."""
    updated = message.payload.get("account_ids_with_updated_auth") or {}
    if item.main_account_id and item.main_account_id in updated:
        deleted = get_payments_service().delete_bank_account(item.user_id)
        logger.info("stored bank account invalidated", extra={"item_id": item.item_id, "deleted": deleted})
    return None


# --- LIABILITIES ----------------------------------------------------------------------


def route_liabilities(message: WebhookMessage, item: items.Item, now: datetime) -> UpdateInfo | None:
    """DEFAULT_UPDATE: fetch and store the new and updated accounts' liabilities."""
    if not get_settings().enable_liability_mining:
        return None
    account_ids = list(
        dict.fromkeys(
            [
                *(message.payload.get("account_ids_with_new_liabilities") or []),
                *(message.payload.get("account_ids_with_updated_liabilities") or {}),
            ]
        )
    )
    if not account_ids:
        return None
    response = get_plaid().liabilities_get(item.access_token, account_ids=account_ids)
    found = liabilities.liabilities_from_plaid(
        item.user_id, item.item_id, response.get("liabilities"), now, account_ids=set(account_ids)
    )
    liabilities.store_liabilities(found)
    return None
