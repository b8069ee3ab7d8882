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


def new_account(account: Account, *, is_main: bool) -> str:
    """A bank account became known to the service (feeder, on a new ACCOUNT row).

    The id names the account (user, item, account), not the balances: every publish about
    the same account is the same fact, so consumers keep the first and drop the rest.
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
    return publish(NEW_ACCOUNT, detail, account.user_id, account.item_id, account.acct_id)
