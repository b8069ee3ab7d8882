"""Changes to a user's items: persist, remine, removal, main account; and their history.

Removals and main-account changes are each recorded in ``plaid-account-changes`` with the
main account *before* the change and ``is_override`` = the change was made by a service
(support, back office) rather than the user. Under retries:

* removal: :mod:`chalicelib.pipeline.removal` (mark REMOVED, record the change at the removal
  instant, revoke), so a retry after any partial failure ends with exactly one row;
* main account: the change is recorded *before* the item is updated, so a failure can never
  lose the record; a retried failure may leave one extra row for the same change (harmless
  to the change check, which asks whether anything changed).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from chalicelib.data import accounts, items
from chalicelib.data.account_changes import (
    AccountChange,
    ChangeType,
    account_changes,
    account_changes_since,
    record_account_change,
)
from chalicelib.data.items import Item, ItemStatus
from chalicelib.data.webhook_info import WebhookSource
from chalicelib.errors import NotFoundError
from chalicelib.pipeline import removal
from chalicelib.pipeline.intake import enqueue_synthetic


class AccountNotOnItemError(NotFoundError):
    """The account does not exist, or belongs to another item of the user."""


def _existing_item(user_id: str, item_id: str) -> Item:
    item = items.get_item(user_id, item_id)
    if item is None:
        raise items.ItemNotFoundError(f"item {item_id} not found")
    return item


def persist(user_id: str, item_id: str) -> Item:
    """Clear the item's ttl: a prequal or reactivation item stays linked."""
    return items.persist_item(user_id, item_id)


def remine(user_id: str, item_id: str, webhook_code: str, now: datetime) -> dict[str, Any]:
    """Queue a synthetic ``API_REMINE`` TRANSACTIONS webhook for a live item."""
    item = _existing_item(user_id, item_id)
    if item.status is ItemStatus.REMOVED:
        raise items.ItemRemovedError(f"item {item_id} is removed")
    payload = {"webhook_type": "TRANSACTIONS", "webhook_code": webhook_code, "item_id": item_id}
    message = enqueue_synthetic(WebhookSource.API_REMINE.value, payload, now)
    return {"item_id": item_id, "webhook_code": webhook_code, "message_id": message.message_id}


def set_mining_mode(user_id: str, item_id: str, mode: str) -> Item:
    """Mine the item by ``/transactions/get`` (``GET``) or ``/transactions/sync`` (``SYNC``) from now on.

    Idempotent. A switch to SYNC pulls from the item's committed cursor at its next webhook; an item
    that never synced has none, so its first pull reads its whole history (upserts: no duplicates).
    """
    return items.set_mining_mode(user_id, item_id, items.MiningMode(mode))


def remove_item(user_id: str, item_id: str, reason: str | None, *, is_override: bool, now: datetime) -> Item:
    """Disconnect the item (:func:`chalicelib.pipeline.removal.remove_item`); ``reason="MX"`` forces it.

    Removing a removed item answers it unchanged, after finishing any step its removal left
    undone (a retry after a failure ends exactly where a clean removal ends).
    """
    item = _existing_item(user_id, item_id)
    removed = removal.remove_item(
        item, removal.api_removal(reason == items.REMOVED_REASON_MX, is_override=is_override), now
    )
    return removed.item


def change_main_account(user_id: str, item_id: str, account_id: str, *, is_override: bool, now: datetime) -> Item:
    """Make ``account_id`` (an account of this item) the item's main account."""
    item = _existing_item(user_id, item_id)
    if item.status is ItemStatus.REMOVED:
        raise items.ItemRemovedError(f"item {item_id} is removed")
    account = accounts.get_account(user_id, account_id)
    if account is None or account.item_id != item_id:
        raise AccountNotOnItemError(f"account {account_id} is not an account of item {item_id}")
    if item.main_account_id == account_id:
        return item
    record_account_change(
        AccountChange(
            user_id=user_id,
            item_id=item_id,
            change_date=now,
            change_type=ChangeType.MAIN_ACCOUNT_CHANGED,
            account_id=item.main_account_id,
            is_override=is_override,
        )
    )
    items.set_main_account(user_id, item_id, account_id, changed_at=now)
    return _existing_item(user_id, item_id)


def item_history(user_id: str, limit: int) -> list[AccountChange]:
    """The user's removals and main-account changes, newest first."""
    return account_changes(user_id, limit=limit)


@dataclass(frozen=True)
class ChangeCheck:
    since: datetime
    changes: list[AccountChange]

    @property
    def changed(self) -> bool:
        return bool(self.changes)

    def any_of(self, change_type: ChangeType) -> bool:
        return any(c.change_type is change_type for c in self.changes)


def change_check(user_id: str, days: int, now: datetime) -> ChangeCheck:
    """Whether the user removed an item or changed a main account in the last ``days`` days."""
    since = now - timedelta(days=days)
    return ChangeCheck(since, account_changes_since(user_id, since))
