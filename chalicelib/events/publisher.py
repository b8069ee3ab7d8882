"""Domain events with stable ids, so consumers can deduplicate at-least-once deliveries.

EventBridge assigns its own ``id`` to every PutEvents call, so a retried publish looks
like a new event. Each detail therefore carries ``event_id``, derived from what the event
is about: publishing the same fact twice yields the same ``event_id``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from chalicelib.aws.messaging import put_event
from chalicelib.data.accounts import Account
from chalicelib.settings import get_settings

USER_NEW_TXNS_BATCH_COMPLETED = "user_new_txns_batch_completed"
NEW_ACCOUNT = "new_account"
PLAID_ITEM_CONNECTION_LOST = "plaid_item_connection_lost"
PLAID_ITEM_CONNECTION_REVOKED = "plaid_item_connection_revoked"


def event_id(name: str, *parts: str) -> str:
    digest = hashlib.sha256("|".join((name, *parts)).encode()).hexdigest()[:32]
    return f"{name}:{digest}"


def publish(name: str, detail: Mapping[str, Any], *id_parts: str) -> str:
    """Publish ``name`` with ``detail``; the id derives from ``id_parts``. Returns the id."""
    eid = event_id(name, *id_parts)
    put_event(get_settings().event_bus, name, {**detail, "event_id": eid, "event_name": name})
    return eid


def new_txns_batch_completed(user_id: str, item_id: str, mine_id: str) -> str:
    return publish(
        USER_NEW_TXNS_BATCH_COMPLETED, {"user_id": user_id, "item_id": item_id, "mine_id": mine_id}, item_id, mine_id
    )


def connection_lost(user_id: str, item_id: str, error_code: str, cause_id: str) -> str:
    return publish(
        PLAID_ITEM_CONNECTION_LOST,
        {"user_id": user_id, "item_id": item_id, "error_code": error_code},
        item_id,
        cause_id,
    )


def connection_revoked(user_id: str, item_id: str, reason: str, cause_id: str, account_id: str | None = None) -> str:
    detail = {"user_id": user_id, "item_id": item_id, "reason": reason}
    if account_id:
        detail["account_id"] = account_id
    return publish(PLAID_ITEM_CONNECTION_REVOKED, detail, item_id, reason, cause_id)


def new_account(account: Account, *, is_main: bool, main_since: str | None = None) -> str:
    """What the service knows about a bank account (feeder: a new account, a change to what
    this event carries, or a change of the item's main account).

    The id derives from everything the event says except the balances (a snapshot), plus
    ``main_since``, when the item's main account last changed: publishing the same fact
    again gives the same id (consumers keep the first), and any change of a carried field,
    ``is_main`` included, gives a new one, even when a main account becomes main again.
    Amounts are integer cents.
    """
    balances = account.balances
    detail = {
        "user_id": account.user_id,
        "item_id": account.item_id,
        "account_id": account.acct_id,
        "is_main": is_main,
        "name": account.name,
        "official_name": account.official_name,
        "type": account.type,
        "subtype": account.subtype,
        "mask": account.mask,
        "iso_currency_code": balances.iso_currency_code,
        "balances": {
            "available": balances.available,
            "current": balances.current,
            "limit": balances.limit,
            "available_reported": balances.available_reported,
            "current_reported": balances.current_reported,
        },
    }
    return publish(NEW_ACCOUNT, detail, *new_account_id_parts(account, is_main, main_since))


def new_account_id_parts(account: Account, is_main: bool, main_since: str | None) -> tuple[str, ...]:
    """What ``new_account``'s id derives from: every carried field but the balances, and ``main_since``."""
    return (
        account.user_id,
        account.item_id,
        account.acct_id,
        str(is_main).lower(),
        account.name,
        account.official_name or "",
        account.type,
        account.subtype or "",
        account.mask or "",
        account.balances.iso_currency_code or "",
        main_since or "",
    )


def new_account_id(account: Account, *, is_main: bool, main_since: str | None = None) -> str:
    """The ``event_id`` :func:`new_account` gives (pure)."""
    return event_id(NEW_ACCOUNT, *new_account_id_parts(account, is_main, main_since))
