"""The re-link rule: a new link of the same login replaces the user's older item.

Linking a bank login again (Link run a second time instead of update mode) gives Plaid a
second item for the same login: the old item keeps billing and, once its credentials go
stale, only errors. So when a user links a login they already have, **the newest link
survives**: it has the fresh token and credentials the user just entered, and its first
mine is queued; the older items of that login are removed (reason
:data:`~chalicelib.data.items.REMOVED_REASON_RELINKED`, ``item_replaced_by`` = the new item).

Two items are the **same login** only when both are certain (:func:`same_login`): the same
institution, and an equal set of ``(mask, type, subtype)`` over their accounts as Plaid
listed them when each was linked. If either item's accounts are unknown (linked before they
were kept, or Plaid did not answer at link time), both are kept. So a person with a
personal and a business login at one bank keeps both items.

The rule runs twice for every new item, both times safely: in the link request (best
effort, so a failure there never fails a link whose public token is already spent) and when
the miner handles the item's first synthetic webhook, where the queue's retries finish it.
"""

from __future__ import annotations

from datetime import datetime

from chalicelib.data import items
from chalicelib.data.items import Item, ItemStatus
from chalicelib.pipeline import removal
from chalicelib.pipeline.removal import RemovalCause


def same_login(new: Item, old: Item) -> bool:
    """Whether ``old`` is certainly the same bank login as ``new`` (pure)."""
    if not new.institution_id or new.institution_id != old.institution_id:
        return False
    if not new.link_accounts or not old.link_accounts:
        return False
    return new.link_accounts == old.link_accounts


def is_replaceable(new: Item, old: Item) -> bool:
    """An item the rule removes for ``new``: a live one of the same login, or one it already
    began to replace (a retry finishes that removal)."""
    if old.item_id == new.item_id or not same_login(new, old):
        return False
    if old.status is not ItemStatus.REMOVED:
        return True
    return old.removed_cause == RemovalCause.RELINKED.value and old.replaced_by == new.item_id


def older_logins(item: Item) -> list[Item]:
    """The user's items the rule removes for ``item`` (one strongly consistent Query)."""
    if item.status is ItemStatus.REMOVED:
        return []
    return [other for other in items.list_items(item.user_id) if is_replaceable(item, other)]


def retire(item: Item, older: list[Item], *, is_override: bool, now: datetime) -> tuple[str, ...]:
    """Remove each of ``older`` for ``item``; a call after a partial failure finishes the rest."""
    for other in older:
        removal.remove_item(other, removal.relink_removal(item.item_id, is_override=is_override), now)
    return tuple(o.item_id for o in older)


def retire_older_logins(item: Item, *, is_override: bool, now: datetime) -> tuple[str, ...]:
    """:func:`older_logins`, then :func:`retire` them; returns their ids."""
    return retire(item, older_logins(item), is_override=is_override, now=now)
