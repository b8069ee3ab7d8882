"""The miner: routes each webhook message (seed 002, Miner Routing and TRANSACTIONS).

1. Parse; an unknown ``webhook_type`` or ITEM code is dropped without retry.
2. ``WEBHOOK_UPDATE_ACKNOWLEDGED``: done.
3. IDENTITY_VERIFICATION and SCREENING carry no item id: straight to the KYC handler.
4. Look the item up by id; not found: dropped.
5. A REMOVED item and ``source=FROM_LISTENER``: dropped.
6. Refresh the item from Plaid (status, error code, products, update times), except for a
   ``USER_PERMISSION_REVOKED``: that item is being removed, and a redelivery must get past
   a token already revoked and a row already REMOVED to finish the removal.
7. Route by type; every handled webhook writes a WEBHOOK_INFO row.

A synthetic webhook for a newly linked item (``FROM_ADD_ITEM``, ``FROM_LAYER_STUB``) also
applies the re-link rule (:mod:`chalicelib.pipeline.relink`) before it mines, so the rule
completes under the queue's retries whatever happened to it during the link request.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from chalicelib.data import items, webhook_info
from chalicelib.data.ttl import utcnow
from chalicelib.data.webhook_info import UpdateInfo, WebhookInfo, WebhookSource
from chalicelib.pipeline import kyc, lifecycle, relink, sync_mining
from chalicelib.pipeline.batches import DropMessageError
from chalicelib.pipeline.messages import PageRecord, WebhookMessage, parse_webhook_message
from chalicelib.pipeline.mining import ItemRef, mine_page, put_records
from chalicelib.plaid.client import get_plaid
from chalicelib.plaid.errors import PlaidItemError, PlaidItemNotFoundError

TRANSACTIONS = "TRANSACTIONS"
ITEM = "ITEM"
AUTH = "AUTH"
LIABILITIES = "LIABILITIES"
IDENTITY_VERIFICATION = "IDENTITY_VERIFICATION"
SCREENING = "SCREENING"
ALLOWED_TYPES = frozenset({TRANSACTIONS, ITEM, AUTH, LIABILITIES, IDENTITY_VERIFICATION, SCREENING})
ALLOWED_ITEM_CODES = frozenset(
    {"WEBHOOK_UPDATE_ACKNOWLEDGED", "LOGIN_REPAIRED", "USER_PERMISSION_REVOKED", "USER_ACCOUNT_REVOKED", "ERROR"}
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


def handle_webhook_body(body: str, now: datetime | None = None) -> None:
    """Route one queue message (raises to retry, DropMessageError to drop)."""
    route_webhook(parse_webhook_message(body), now or utcnow())


def route_webhook(message: WebhookMessage, now: datetime) -> None:
    kind, code = message.webhook_type, message.webhook_code
    if kind not in ALLOWED_TYPES:
        raise DropMessageError("unhandled_type", webhook_type=kind, webhook_code=code)
    if kind == ITEM and code not in ALLOWED_ITEM_CODES:
        raise DropMessageError("unhandled_item_code", webhook_code=code)
    if kind == TRANSACTIONS and code not in SYNC_PULL_CODES:
        raise DropMessageError("unhandled_transactions_code", webhook_code=code)
    if code == "WEBHOOK_UPDATE_ACKNOWLEDGED":
        return
    if kind in (IDENTITY_VERIFICATION, SCREENING):
        kyc.handle_kyc_webhook(message, now)
        return
    if not message.item_id:
        raise DropMessageError("missing_item_id", webhook_type=kind, webhook_code=code)
    item = items.get_item_by_id(message.item_id)
    if item is None:
        raise DropMessageError("item_not_found", item_id=message.item_id)
    if item.status == items.ItemStatus.REMOVED and message.source == WebhookSource.FROM_LISTENER:
        raise DropMessageError("listener_remine_of_removed_item", item_id=message.item_id)
    if code == SYNC_UPDATES_AVAILABLE and not item.mines_by_sync:
        # Its DEFAULT_UPDATE (sent alongside) mines the same changes by /transactions/get.
        raise DropMessageError("sync_update_for_get_item", item_id=message.item_id)
    if message.source in LINK_SOURCES and item.status != items.ItemStatus.REMOVED:
        relink.retire_older_logins(item, is_override=bool(message.payload.get("is_override")), now=now)
    if not (kind == ITEM and code == lifecycle.USER_PERMISSION_REVOKED):
        item = refresh_item(item)
    update_info = ROUTES[kind](message, item, now)
    webhook_info.record_webhook(
        WebhookInfo(
            user_id=item.user_id,
            item_id=item.item_id,
            webhook_type=kind,
            webhook_code=code,
            source=WebhookSource(message.source),
            received_at=datetime.fromisoformat(message.received_at.replace("Z", "+00:00")),
            message_id=message.message_id,
            payload=message.to_json(),
            update_info=update_info,
        )
    )


def refresh_item(item: items.Item) -> items.Item:
    """Bring the ITEM row up to date with Plaid's view of the item (seed step 6)."""
    if item.status == items.ItemStatus.REMOVED:
        # REMOVED is final: its token is revoked at Plaid and nothing may revive the row.
        raise DropMessageError("item_removed", item_id=item.item_id)
    try:
        response = get_plaid().item_get(item.access_token)
    except PlaidItemNotFoundError as exc:
        raise DropMessageError("item_gone_at_plaid", item_id=item.item_id) from exc
    try:
        return items.refresh_from_plaid(item, response)
    except items.ItemRemovedError as exc:
        raise DropMessageError("item_removed", item_id=item.item_id) from exc


# --- TRANSACTIONS ---------------------------------------------------------------------


def route_transactions(message: WebhookMessage, item: items.Item, now: datetime) -> UpdateInfo | None:
    code = message.webhook_code
    if item.mines_by_sync:
        return pull_by_sync(message, item, now)
    if code == TRANSACTIONS_REMOVED:
        removed = [str(t) for t in message.payload.get("removed_transactions") or []]
        put_records(PageRecord(item.user_id, item.item_id, message.message_id, True, None, removed))
        return None
    end = now.astimezone(UTC).date()
    start = end - timedelta(days=MINE_WINDOWS[code])
    try:
        outcome = mine_page(ItemRef(item.user_id, item.item_id, item.access_token), start, end, 0, message.message_id)
    except PlaidItemError as exc:
        if code == "DEFAULT_UPDATE" and exc.error_code in END_DEFAULT_UPDATE_CODES:
            raise DropMessageError("mine_ended", item_id=item.item_id, error_code=exc.error_code) from exc
        raise
    return UpdateInfo(
        total_transactions=outcome.total,
        accounts=tuple(str(a.get("account_id")) for a in outcome.accounts),
        institution_id=outcome.institution_id,
    )


def pull_by_sync(message: WebhookMessage, item: items.Item, now: datetime) -> UpdateInfo | None:
    """Every TRANSACTIONS webhook of a sync item pulls from its committed cursor (:mod:`.sync_mining`).

    A TRANSACTIONS_REMOVED still applies its own removals first: an item switched from
    ``/transactions/get`` has its first sync without a cursor, which reports no removals, so a
    transaction Plaid removed before that is removed only by this webhook. The WEBHOOK_INFO row
    records the first page's updates (added, modified, removed) and accounts; a pull that joined
    a running loop records none.
    """
    if message.webhook_code == TRANSACTIONS_REMOVED:
        removed = [str(t) for t in message.payload.get("removed_transactions") or []]
        if removed:
            put_records(PageRecord(item.user_id, item.item_id, message.message_id, True, None, removed))
    outcome = sync_mining.start_pull(ItemRef(item.user_id, item.item_id, item.access_token), message.message_id, now)
    if outcome.action not in ("page", "committed"):
        return None
    return UpdateInfo(
        total_transactions=outcome.updates,
        accounts=tuple(str(a.get("account_id")) for a in outcome.accounts),
        institution_id=item.institution_id,
    )


Route = Callable[[WebhookMessage, items.Item, datetime], UpdateInfo | None]

ROUTES: dict[str, Route] = {
    TRANSACTIONS: route_transactions,
    ITEM: lifecycle.route_item,
    AUTH: lifecycle.route_auth,
    LIABILITIES: lifecycle.route_liabilities,
}
