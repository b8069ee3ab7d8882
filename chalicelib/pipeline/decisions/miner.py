"""The miner's routing and drop rules, and what each webhook type does (pure).

The miner (:mod:`chalicelib.pipeline.miner`) asks, in this order:

1. :func:`screen`: the message alone. An unknown type, an ITEM or TRANSACTIONS code with no
   action, or a webhook that needs an item and names none is dropped;
   ``WEBHOOK_UPDATE_ACKNOWLEDGED`` needs nothing; IDENTITY_VERIFICATION and SCREENING go to
   the KYC rules (no item).
2. :func:`plan_for_item`: the message and its ITEM row as read. No row, a listener remine of a
   REMOVED item, ``SYNC_UPDATES_AVAILABLE`` for an item mined by ``/transactions/get``, or any
   other webhook for a REMOVED item (but ``USER_PERMISSION_REVOKED``) is dropped; a newly linked
   item's synthetic webhook applies the re-link rule first; every webhook but
   ``USER_PERMISSION_REVOKED`` refreshes the item from Plaid first.
3. Per type: :func:`plan_transactions` (mine a window, pull by sync, or put removals),
   :func:`plan_item_webhook`, :func:`invalidates_bank_account`, :func:`liability_accounts`,
   and the KYC lookups. A failed first page ends a mine only per :func:`first_page_failure`;
   a failed later page per :func:`later_page_failure`.

The table of these rules: ``docs/architecture.md`` (The miner's rules).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from enum import StrEnum
from typing import Any

from chalicelib.data.items import Item, ItemStatus
from chalicelib.data.webhook_info import UpdateInfo, WebhookSource
from chalicelib.pipeline.decisions import Drop
from chalicelib.pipeline.messages import WebhookMessage
from chalicelib.plaid.errors import CONNECTION_LOST_CODES, PlaidItemError

TRANSACTIONS = "TRANSACTIONS"
ITEM = "ITEM"
AUTH = "AUTH"
LIABILITIES = "LIABILITIES"
IDENTITY_VERIFICATION = "IDENTITY_VERIFICATION"
SCREENING = "SCREENING"
ALLOWED_TYPES = frozenset({TRANSACTIONS, ITEM, AUTH, LIABILITIES, IDENTITY_VERIFICATION, SCREENING})
WEBHOOK_UPDATE_ACKNOWLEDGED = "WEBHOOK_UPDATE_ACKNOWLEDGED"
LOGIN_REPAIRED = "LOGIN_REPAIRED"
USER_PERMISSION_REVOKED = "USER_PERMISSION_REVOKED"
USER_ACCOUNT_REVOKED = "USER_ACCOUNT_REVOKED"
ERROR = "ERROR"
ALLOWED_ITEM_CODES = frozenset(
    {WEBHOOK_UPDATE_ACKNOWLEDGED, LOGIN_REPAIRED, USER_PERMISSION_REVOKED, USER_ACCOUNT_REVOKED, ERROR}
)
#: TRANSACTIONS codes that mine, with their window in days.
MINE_WINDOWS = {"DEFAULT_UPDATE": 14, "INITIAL_UPDATE": 30, "HISTORICAL_UPDATE": 180}
TRANSACTIONS_REMOVED = "TRANSACTIONS_REMOVED"
#: Plaid's "new changes since your cursor" (only for items that have called /transactions/sync).
SYNC_UPDATES_AVAILABLE = "SYNC_UPDATES_AVAILABLE"
#: TRANSACTIONS codes that pull from the committed cursor of an item mined by /transactions/sync.
SYNC_PULL_CODES = frozenset({*MINE_WINDOWS, TRANSACTIONS_REMOVED, SYNC_UPDATES_AVAILABLE})
#: Synthetic sources that announce a newly linked item.
LINK_SOURCES = frozenset({WebhookSource.FROM_ADD_ITEM.value, WebhookSource.FROM_LAYER_STUB.value})
#: Plaid errors that end a DEFAULT_UPDATE mine without retry.
END_DEFAULT_UPDATE_CODES = frozenset({"ITEM_LOGIN_REQUIRED", "NO_ACCOUNTS"})
#: The error code an ITEM ERROR webhook reports when neither the item nor the payload names one.
UNKNOWN_ERROR_CODE = "UNKNOWN"


# --- 1. the message alone ------------------------------------------------------------------------


class Screen(StrEnum):
    """What a message that is not dropped needs next."""

    DONE = "done"  # nothing: Plaid acknowledges a webhook URL change
    KYC = "kyc"  # the KYC rules: the session comes from Plaid, not from an item
    ITEM = "item"  # its ITEM row: then plan_for_item


def screen(message: WebhookMessage) -> Screen | Drop:
    """Rules 1-3 and the item id check: the message before any read."""
    kind, code = message.webhook_type, message.webhook_code
    if kind not in ALLOWED_TYPES:
        return Drop("unhandled_type", {"webhook_type": kind, "webhook_code": code})
    if kind == ITEM and code not in ALLOWED_ITEM_CODES:
        return Drop("unhandled_item_code", {"webhook_code": code})
    if kind == TRANSACTIONS and code not in SYNC_PULL_CODES:
        return Drop("unhandled_transactions_code", {"webhook_code": code})
    if code == WEBHOOK_UPDATE_ACKNOWLEDGED:
        return Screen.DONE
    if kind in (IDENTITY_VERIFICATION, SCREENING):
        return Screen.KYC
    if not message.item_id:
        return Drop("missing_item_id", {"webhook_type": kind, "webhook_code": code})
    return Screen.ITEM


# --- 2. the message and its item -------------------------------------------------------------------


@dataclass(frozen=True)
class ItemPlan:
    """How a webhook for an existing item is handled."""

    item: Item
    #: The webhook type whose route handles it.
    route: str
    #: Apply the re-link rule first (a newly linked item's synthetic webhook).
    relink: bool
    #: The re-link was asked for by a service, not the user.
    is_override: bool
    #: Bring the ITEM row up to date from Plaid's ``/item/get`` first.
    refresh: bool


def plan_for_item(message: WebhookMessage, item: Item | None) -> ItemPlan | Drop:
    """Rules 4-6: drop, or how to go on, for the item row as read (``None``: no such item)."""
    kind, code = message.webhook_type, message.webhook_code
    if item is None:
        return Drop("item_not_found", {"item_id": message.item_id})
    removed = item.status is ItemStatus.REMOVED
    if removed and message.source == WebhookSource.FROM_LISTENER:
        return Drop("listener_remine_of_removed_item", {"item_id": message.item_id})
    if code == SYNC_UPDATES_AVAILABLE and not item.mines_by_sync:
        # Its DEFAULT_UPDATE (sent alongside) mines the same changes by /transactions/get.
        return Drop("sync_update_for_get_item", {"item_id": message.item_id})
    # A USER_PERMISSION_REVOKED skips the refresh: its item is being removed, and a redelivery
    # must get past a token already revoked and a row already REMOVED to finish the removal.
    refresh = not (kind == ITEM and code == USER_PERMISSION_REVOKED)
    if refresh and removed:
        # REMOVED is final: its token is revoked at Plaid and nothing may revive the row.
        return Drop("item_removed", {"item_id": item.item_id})
    return ItemPlan(
        item=item,
        route=kind,
        relink=message.source in LINK_SOURCES and not removed,
        is_override=bool(message.payload.get("is_override")),
        refresh=refresh,
    )


# --- 3. TRANSACTIONS ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class MineWindow:
    """Mine ``/transactions/get`` from ``start`` to ``end``, first page now."""

    start: date
    end: date


@dataclass(frozen=True)
class PutRemovals:
    """Put the webhook's removed ids on the stream (one record, even when empty)."""

    removed: tuple[str, ...]


@dataclass(frozen=True)
class PullBySync:
    """Pull the item's changes from its committed cursor, after putting ``removed`` (if any) on the stream."""

    removed: tuple[str, ...] = ()


TransactionsPlan = MineWindow | PutRemovals | PullBySync


def plan_transactions(message: WebhookMessage, item: Item, now: datetime) -> TransactionsPlan:
    """A TRANSACTIONS webhook: a sync item pulls; a ``/get`` item mines its code's window or puts removals.

    A sync item's TRANSACTIONS_REMOVED still applies its own removals first: an item switched
    from ``/transactions/get`` has its first sync without a cursor, which reports no removals,
    so a transaction Plaid removed before that is removed only by this webhook.
    """
    code = message.webhook_code
    removed = tuple(str(t) for t in message.payload.get("removed_transactions") or [])
    if item.mines_by_sync:
        return PullBySync(removed if code == TRANSACTIONS_REMOVED else ())
    if code == TRANSACTIONS_REMOVED:
        return PutRemovals(removed)
    end = now.astimezone(UTC).date()
    return MineWindow(end - timedelta(days=MINE_WINDOWS[code]), end)


def first_page_failure(code: str, error: PlaidItemError, item_id: str) -> Drop | None:
    """A Plaid item error on a mine's first page: drop (the mine ends) or ``None`` (retry the message).

    Only a DEFAULT_UPDATE ends on a login or no-accounts error: an INITIAL_UPDATE or
    HISTORICAL_UPDATE is retried, since it brings history the item cannot get otherwise.
    """
    if code == "DEFAULT_UPDATE" and error.error_code in END_DEFAULT_UPDATE_CODES:
        return Drop("mine_ended", {"item_id": item_id, "error_code": error.error_code})
    return None


def later_page_failure(error: PlaidItemError, item_id: str) -> Drop | None:
    """A Plaid item error on a later page (throttle-miner): an error no retry can fix ends the mine."""
    if error.retryable:
        return None
    return Drop("mine_ended", {"item_id": item_id, "error_code": error.error_code})


def page_plan(total: int, offset: int, fetched: int, page_size: int) -> tuple[bool, int | None]:
    """``(last_page, next_offset)`` of a ``/transactions/get`` page.

    A page is the last when ``total - offset <= page_size``; an empty page ends the mine even if
    the total says otherwise, so paging always ends.
    """
    last_page = total - offset <= page_size or fetched == 0
    return last_page, None if last_page else offset + fetched


def mine_info(total: int, accounts: Sequence[Mapping[str, Any]], institution_id: str | None) -> UpdateInfo:
    """What a WEBHOOK_INFO row records of a mine: its first page's total and accounts."""
    return UpdateInfo(
        total_transactions=total,
        accounts=tuple(str(a.get("account_id")) for a in accounts),
        institution_id=institution_id,
    )


def pull_info(
    action: str, updates: int, accounts: Sequence[Mapping[str, Any]], institution_id: str | None
) -> UpdateInfo | None:
    """What a WEBHOOK_INFO row records of a sync pull: its first page's updates, none if it read no page."""
    if action not in ("page", "committed"):
        return None
    return mine_info(updates, accounts, institution_id)


def screen_step(item: Item | None, item_id: str) -> Item | Drop:
    """A later page (MineRequest or SyncRequest): its item, or a drop when the item is gone or removed."""
    if item is None:
        return Drop("item_not_found", {"item_id": item_id})
    if item.status is ItemStatus.REMOVED:
        return Drop("item_removed", {"item_id": item_id})
    return item


# --- 3. ITEM, AUTH, LIABILITIES --------------------------------------------------------------------


class ItemAction(StrEnum):
    REPAIRED = "repaired"  # tell Segment plaid_item_repaired
    ERRORED = "errored"  # tell Segment plaid_item_errored; a lost connection is also announced
    REMOVE = "remove"  # remove the item (user permission revoked)
    ACCOUNT_REVOKED = "account_revoked"  # announce plaid_item_connection_revoked for one account
    NONE = "none"


@dataclass(frozen=True)
class ItemWebhookPlan:
    action: ItemAction
    error_code: str | None = None
    #: ERROR with a connection-lost code: publish ``plaid_item_connection_lost``.
    connection_lost: bool = False
    #: USER_ACCOUNT_REVOKED: the revoked account.
    account_id: str | None = None


def plan_item_webhook(code: str, item_error_code: str | None, payload: Mapping[str, Any]) -> ItemWebhookPlan:
    """An ITEM webhook for a known user: what to tell whom.

    ERROR's code is the refreshed item's, else the payload's, else ``UNKNOWN``.
    """
    if code == LOGIN_REPAIRED:
        return ItemWebhookPlan(ItemAction.REPAIRED)
    if code == ERROR:
        payload_error = payload.get("error") or {}
        error_code = item_error_code or payload_error.get("error_code") or UNKNOWN_ERROR_CODE
        return ItemWebhookPlan(ItemAction.ERRORED, error_code, connection_lost=error_code in CONNECTION_LOST_CODES)
    if code == USER_PERMISSION_REVOKED:
        return ItemWebhookPlan(ItemAction.REMOVE)
    if code == USER_ACCOUNT_REVOKED:
        return ItemWebhookPlan(ItemAction.ACCOUNT_REVOKED, account_id=payload.get("account_id"))
    return ItemWebhookPlan(ItemAction.NONE)


def invalidates_bank_account(main_account_id: str | None, payload: Mapping[str, Any]) -> bool:
    """AUTH DEFAULT_UPDATE: new numbers on the main account invalidate the stored bank account."""
    updated = payload.get("account_ids_with_updated_auth") or {}
    return bool(main_account_id and main_account_id in updated)


def liability_accounts(payload: Mapping[str, Any], *, enabled: bool) -> list[str]:
    """LIABILITIES DEFAULT_UPDATE: the new and updated accounts whose liabilities to fetch, in order, once each."""
    if not enabled:
        return []
    return list(
        dict.fromkeys(
            [
                *(payload.get("account_ids_with_new_liabilities") or []),
                *(payload.get("account_ids_with_updated_liabilities") or {}),
            ]
        )
    )


# --- 3. IDENTITY_VERIFICATION and SCREENING ----------------------------------------------------------


def kyc_lookup(message: WebhookMessage) -> str | Drop:
    """The Plaid id to fetch: the identity verification's, or the watchlist screening's."""
    if message.webhook_type == IDENTITY_VERIFICATION:
        idv_id = message.payload.get("identity_verification_id")
        return str(idv_id) if idv_id else Drop("missing_identity_verification_id")
    screening_id = message.payload.get("screening_id")
    return str(screening_id) if screening_id else Drop("missing_screening_id")


def kyc_user(message: WebhookMessage, fetched: Mapping[str, Any], lookup_id: str) -> str | Drop:
    """The user a fetched session or screening belongs to (Plaid's ``client_user_id``, the id we gave Link)."""
    user_id = fetched.get("client_user_id")
    if user_id:
        return str(user_id)
    if message.webhook_type == IDENTITY_VERIFICATION:
        return Drop("session_without_user", {"identity_verification_id": lookup_id})
    return Drop("screening_without_user", {"screening_id": lookup_id})
