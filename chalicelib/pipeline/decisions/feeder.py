"""The feeder's decisions (pure): what a stream record is, what an expiry does, when ``new_account`` goes out.

:mod:`chalicelib.pipeline.feeder` decodes each DynamoDB stream record into a
:class:`StreamChange`, classifies it (:func:`transactions_change`, :func:`plaid_change`) and acts:

* **LAYER stub expiry**: each entry whose item never became an ITEM row is revoked
  (:func:`stub_entry_fate`); one held by another user's ITEM row is kept and reported;
* **ITEM expiry**: a prequal item with a main account of an ACTIVE user is written back
  without ttl, any other is removed (:func:`asks_user_status`, :func:`item_expiry`);
* **ACCOUNT rows**: an INSERT, or a MODIFY of a field ``new_account`` carries, publishes
  (:func:`publishes_account`); a main-account change of an ITEM publishes for the new and the
  previous main account (:func:`main_account_announcements`, :func:`announces`), with
  ``is_main`` and the main-account change time as the user's items say (:func:`is_main_account`,
  :func:`main_since`).

The tables: ``docs/item-lifecycle.md`` (TTL expiry, Feeder).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from chalicelib.data import keys
from chalicelib.data.accounts import Account
from chalicelib.data.items import Item, ItemStatus


@dataclass(frozen=True)
class StreamChange:
    """One DynamoDB stream record, its images deserialized (numbers as ``Decimal``)."""

    sequence_number: str
    event_name: str  # INSERT | MODIFY | REMOVE
    by_ttl: bool
    new_image: dict[str, Any] | None = None
    old_image: dict[str, Any] | None = None

    @property
    def is_ttl_expiry(self) -> bool:
        return self.event_name == "REMOVE" and self.by_ttl and self.old_image is not None

    def new_type(self) -> str | None:
        return type_of(self.new_image)

    def old_type(self) -> str | None:
        return type_of(self.old_image)


def type_of(image: Mapping[str, Any] | None) -> str | None:
    value = (image or {}).get("type")
    return value if isinstance(value, str) else None


class Change(StrEnum):
    """What a stream record is to the feeder. The filters let only these through; the rest is skipped."""

    LAYER_EXPIRED = "layer_expired"
    ACCOUNT_WRITTEN = "account_written"
    ITEM_EXPIRED = "item_expired"
    ITEM_MODIFIED = "item_modified"
    OTHER = "other"


def transactions_change(change: StreamChange) -> Change:
    """The transactions table: a LAYER stub's TTL expiry, or an ACCOUNT row written."""
    if change.is_ttl_expiry and change.old_type() == keys.LAYER:
        return Change.LAYER_EXPIRED
    if change.event_name in ("INSERT", "MODIFY") and change.new_type() == keys.ACCOUNT:
        return Change.ACCOUNT_WRITTEN
    return Change.OTHER


def plaid_change(change: StreamChange) -> Change:
    """The plaid table: an ITEM's TTL expiry, or an ITEM row modified."""
    if change.is_ttl_expiry and change.old_type() == keys.ITEM:
        return Change.ITEM_EXPIRED
    if change.event_name == "MODIFY" and change.new_type() == keys.ITEM:
        return Change.ITEM_MODIFIED
    return Change.OTHER


# --- LAYER expiry ---------------------------------------------------------------------------------


class StubEntryFate(StrEnum):
    REVOKE = "revoke"  # it never became an ITEM row: the token is revoked at Plaid
    OWNED = "owned"  # the stub's user holds it as an ITEM row (of any status)
    FOREIGN = "foreign"  # another user's ITEM row holds the item: kept, and reported


def stub_entry_fate(item: Item | None, stub_user_id: str) -> StubEntryFate:
    """What an expired stub's entry becomes, given the ITEM row holding its item id, if any.

    An ITEM row of any status owns the token (a REMOVED one was revoked by its removal). A row
    of another user should never exist (the exchange saves items for the stub's user); it is
    never revoked from here, since that would disconnect the other user's item, but reported.
    """
    if item is None:
        return StubEntryFate.REVOKE
    return StubEntryFate.OWNED if item.user_id == stub_user_id else StubEntryFate.FOREIGN


# --- ITEM expiry ----------------------------------------------------------------------------------


class ItemExpiry(StrEnum):
    PERSIST = "persist"  # written back without ttl: the item stays connected
    REMOVE = "remove"  # removed: written back REMOVED, the change recorded, the token revoked


def asks_user_status(item: Item) -> bool:
    """Only a live prequal item with a main account depends on its user's status."""
    return item.status is not ItemStatus.REMOVED and item.is_prequal and bool(item.main_account_id)


def item_expiry(item: Item, user_active: bool | None) -> ItemExpiry:
    """What an item whose ttl expired becomes.

    ``user_active`` is the User Service's answer (a user it does not know is not active), or
    ``None`` when it was not asked (:func:`asks_user_status` is false). An already REMOVED image
    (rows removed before removal cleared ttl) is removed again, which keeps its reason.
    """
    if asks_user_status(item) and user_active:
        return ItemExpiry.PERSIST
    return ItemExpiry.REMOVE


# --- ACCOUNT rows and main accounts ---------------------------------------------------------------

#: ACCOUNT attributes ``new_account`` carries besides the balances: a change to one is news.
ANNOUNCED_ATTRIBUTES = (
    "item_id",
    "acct_name",
    "acct_official_name",
    "acct_type",
    "acct_subtype",
    "acct_mask",
    "acct_iso_cc",
)


def publishes_account(change: StreamChange) -> bool:
    """An ACCOUNT row written: publish ``new_account`` on an INSERT, or a MODIFY that changes what it carries.

    Every mine rewrites its accounts (balances, ``acct_updated_at``), so most MODIFYs of an
    account row change only balances; those publish nothing, or every mine would flood consumers.
    """
    return change.event_name != "MODIFY" or announced_change(change.old_image, change.new_image or {})


def announced_change(old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> bool:
    """Whether a write changed what ``new_account`` says about the row (balances aside)."""
    if old is None or type_of(old) != keys.ACCOUNT:
        return True
    return any(old.get(name) != new.get(name) for name in ANNOUNCED_ATTRIBUTES)


def main_account_announcements(old: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> tuple[str, ...] | None:
    """An ITEM row modified: ``None`` when its main account stayed; else the accounts to announce,
    the new main account first, then the previous one (either may be absent)."""
    before, after = (old or {}).get("main_account_id"), (new or {}).get("main_account_id")
    if before == after:
        return None
    return tuple(str(acct_id) for acct_id in (after, before) if acct_id)


def announces(account: Account | None, item: Item) -> bool:
    """A main-account change announces an account only if its row is stored and belongs to the item.

    An account not stored yet is announced by its own INSERT.
    """
    return account is not None and account.item_id == item.item_id


def is_main_account(account: Account, user_items: Iterable[Item]) -> bool:
    """``is_main``: an ACTIVE item of the user has this account as its main account."""
    return any(i.status is ItemStatus.ACTIVE and i.main_account_id == account.acct_id for i in user_items)


def main_since(account: Account, user_items: Iterable[Item]) -> str | None:
    """When the account's item last changed its main account (part of the event id), if known."""
    owner = next((i for i in user_items if i.item_id == account.item_id), None)
    return owner.main_account_changed_at if owner is not None else None
