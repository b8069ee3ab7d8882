"""Removing an item: the one function every removal path calls.

Four paths remove an item: the API (``DELETE .../items/{item_id}``), Plaid's
``USER_PERMISSION_REVOKED`` webhook, the feeder when an item's ttl expires, and the
re-link rule when a new link of the same login replaces an older item. Each calls
:func:`remove_item`, which runs these steps in this order:

1. **Mark** the ITEM row REMOVED with its reason, the cause, the removal instant and (re-link)
   the replacing item; ``ttl`` is cleared. The first removal wins: a later one finds the row
   REMOVED and keeps what the first stored. An expired item's row is already gone (TTL
   deleted it), so this step writes it back REMOVED instead, unless the key was taken again
   by a new link of the same item (then nothing is removed).
2. **Record** one ``ITEM_REMOVED`` row in ``plaid-account-changes`` at the removal instant,
   with the main account the item had and whether a service asked for it. Its key derives
   from the instant stored in step 1, so every retry writes the same row.
3. **Revoke** the access token at Plaid (ends billing). Plaid's ``ITEM_NOT_FOUND`` (already
   revoked) and ``INVALID_ACCESS_TOKEN`` (a token Plaid no longer knows) count as done and are
   counted (``txn.item.revoke``, ``result:unknown_token``).
4. **Announce**, for the path that made the removal: ``USER_PERMISSION_REVOKED`` adds an
   Admin API note (idempotency key from the item) and publishes
   ``plaid_item_connection_revoked`` (event id from the item, the reason and the instant).

5. **Recount** the user's balances: a balance update goes to the insight service, whose
   savings month stops counting the removed item's accounts.

Every step is idempotent and the steps run again on every call, so a delivery that failed
after any step finishes on redelivery with the same rows, peer calls and events as a clean
run. Steps 2, 3 and 5 also run for an item some other path removed (they finish whatever that
path left undone); step 4 runs only for the path whose removal it was. A step that fails is
counted (``txn.item.removal.failed``, by step and cause) before its error reaches the caller.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from chalicelib.data import items
from chalicelib.data.account_changes import (
    AccountChange,
    ChangeType,
    account_changes,
    parse_change_date,
    record_account_change,
)
from chalicelib.data.items import Item, ItemStatus
from chalicelib.events import publisher
from chalicelib.insight import balance_updates
from chalicelib.insight.balance_updates import BalanceUpdateSource
from chalicelib.observability import count, logger
from chalicelib.peers import derive_key, get_admin_api
from chalicelib.plaid.client import get_plaid
from chalicelib.plaid.errors import PlaidError, PlaidItemNotFoundError

REVOKE_METRIC = "txn.item.revoke"
REMOVED_METRIC = "txn.item.removed"
STEP_FAILED_METRIC = "txn.item.removal.failed"
#: Plaid's answers for a token it no longer knows: revoking it again can never succeed, nor is it needed.
UNKNOWN_TOKEN_CODES = frozenset({"ITEM_NOT_FOUND", "INVALID_ACCESS_TOKEN"})
#: How far back an item removed before instants were kept is searched for its change row.
LEGACY_LOOKBACK = 500
ADMIN_NOTE_KIND = "admin_note.user_permission_revoked"


class RemovalCause(StrEnum):
    """Which path removed an item (``item_removed_cause``)."""

    API = "API"
    USER_PERMISSION_REVOKED = "USER_PERMISSION_REVOKED"
    EXPIRED = "EXPIRED"
    RELINKED = "RELINKED"


@dataclass(frozen=True)
class Removal:
    """One request to remove an item: why, the reason stored, and who asked."""

    cause: RemovalCause
    reason: str | None = None
    #: A service (support, back office) asked, not the user.
    is_override: bool = False
    #: Re-link: the newer item of the same login.
    replaced_by: str | None = None


def api_removal(forced: bool, *, is_override: bool) -> Removal:
    """The API's removal: a forced removal carries ``MX``; a plain one no reason."""
    return Removal(RemovalCause.API, items.REMOVED_REASON_MX if forced else None, is_override)


def expiry_removal(item: Item) -> Removal:
    """A ttl expiry: the prequal reason for a prequal item, the reactivation reason otherwise."""
    reason = items.REMOVED_REASON_PREQUAL_EXPIRED if item.is_prequal else items.REMOVED_REASON_REACTIVATION_EXPIRED
    return Removal(RemovalCause.EXPIRED, reason)


def permission_revoked_removal() -> Removal:
    """The user revoked access at the bank; no reason is stored for it."""
    return Removal(RemovalCause.USER_PERMISSION_REVOKED)


def relink_removal(new_item_id: str, *, is_override: bool) -> Removal:
    return Removal(RemovalCause.RELINKED, items.REMOVED_REASON_RELINKED, is_override, replaced_by=new_item_id)


class RevokeResult(StrEnum):
    REVOKED = "revoked"
    UNKNOWN_TOKEN = "unknown_token"  # noqa: S105 - an outcome, not a secret


@dataclass(frozen=True)
class RemovalOutcome:
    """What :func:`remove_item` found and left."""

    item: Item
    #: This call made the item REMOVED (False: it already was, or the key was taken again).
    removed_now: bool
    #: The stored removal is this path's own (its cause, and for a re-link the same new item).
    owned: bool
    #: An expired item whose key was taken by a new link: nothing was removed.
    recreated: bool = False
    revoke: RevokeResult | None = None


def remove_item(item: Item, removal: Removal, now: datetime) -> RemovalOutcome:
    """Remove ``item`` (steps 1-5 of the module docstring); safe to call again after any failure.

    ``item`` is the row as the caller read it; for an expiry, the old image TTL deleted.
    Raises :class:`~chalicelib.data.items.ItemNotFoundError` when the row does not exist
    (never for an expiry), and whatever a step raised when it failed for a reason a retry
    may fix (DynamoDB, Plaid 5xx or 429, the Admin API, EventBridge).
    """
    with _step("mark", removal):
        if removal.cause is RemovalCause.EXPIRED:
            marked = _write_back(item, removal, now)
            if marked is None:
                logger.warning("expired item was linked again; left connected", extra=_context(item))
                return RemovalOutcome(item, removed_now=False, owned=False, recreated=True)
            stored, removed_now = marked
        else:
            stored, removed_now = items.mark_removed_once(
                item.user_id,
                item.item_id,
                reason=removal.reason,
                cause=removal.cause.value,
                removed_at=now,
                replaced_by=removal.replaced_by,
            )
        legacy = stored.removed_at is None
        if legacy:  # removed before instants were kept: give it one so retries agree
            stored = items.stamp_removed_at(stored.user_id, stored.item_id, now)
    owned = stored.removed_cause == removal.cause.value and stored.replaced_by == removal.replaced_by
    if removed_now:
        count(REMOVED_METRIC, cause=removal.cause.value)
    with _step("record", removal):
        record_removal(stored, removal.is_override, legacy=legacy)
    with _step("revoke", removal):
        result = revoke(stored)
    if owned and removal.cause is RemovalCause.USER_PERMISSION_REVOKED:
        with _step("announce", removal):
            _announce_permission_revoked(stored)
    with _step("recount", removal):
        balance_updates.announce(stored.user_id, BalanceUpdateSource.ITEM_REMOVED, item_id=stored.item_id, now=now)
    logger.info(
        "item removed",
        extra={**_context(stored), "cause": removal.cause.value, "removed_now": removed_now, "owned": owned},
    )
    return RemovalOutcome(stored, removed_now=removed_now, owned=owned, revoke=result)


@contextmanager
def _step(name: str, removal: Removal) -> Iterator[None]:
    """Count a removal step that failed (not an item that is not there), then let it raise."""
    try:
        yield
    except items.ItemNotFoundError:
        raise
    except Exception:
        count(STEP_FAILED_METRIC, detail={"step": name, "cause": removal.cause.value})
        raise


def _write_back(item: Item, removal: Removal, now: datetime) -> tuple[Item, bool] | None:
    """Step 1 for an expiry: put the deleted row back REMOVED; None if the key was taken again."""
    removed = items.as_removed(item, removal.reason, cause=removal.cause.value, removed_at=now)
    if items.create_item(removed, now):
        return removed, item.status is not ItemStatus.REMOVED
    current = items.get_item(item.user_id, item.item_id)
    if current is None:
        raise items.ItemContentionError(f"item {item.item_id} vanished while being written back")
    if current.status is not ItemStatus.REMOVED:
        return None
    return current, False


def record_removal(item: Item, is_override: bool, *, legacy: bool = False) -> AccountChange:
    """Step 2: the item's one ``ITEM_REMOVED`` change row, keyed on its removal instant."""
    if legacy:
        recorded = account_changes(item.user_id, limit=LEGACY_LOOKBACK)
        for change in recorded:
            if change.item_id == item.item_id and change.change_type in (ChangeType.ITEM_REMOVED, ChangeType.UNKNOWN):
                return change
    if item.removed_at is None:
        raise ValueError(f"item {item.item_id} has no removal instant")
    return record_account_change(
        AccountChange(
            user_id=item.user_id,
            item_id=item.item_id,
            change_date=parse_change_date(item.removed_at),
            change_type=ChangeType.ITEM_REMOVED,
            account_id=item.main_account_id,
            is_override=is_override,
        )
    )


def revoke(item: Item) -> RevokeResult:
    """Step 3: revoke the item's token at Plaid (see :func:`revoke_token`)."""
    return revoke_token(item.item_id, item.access_token)


def revoke_token(item_id: str, access_token: str) -> RevokeResult:
    """Remove the item at Plaid (ends billing); a token Plaid no longer knows counts as done.

    ``ITEM_NOT_FOUND`` (already revoked, typically by an earlier attempt) and
    ``INVALID_ACCESS_TOKEN`` (a token Plaid does not know) can never succeed later, so they
    end the step and are counted. Any other failure raises, for the caller's retry.
    """
    if not access_token:
        logger.warning("item has no token to revoke", extra={"item_id": item_id})
        count(REVOKE_METRIC, result=RevokeResult.UNKNOWN_TOKEN.value, code="NO_TOKEN")
        return RevokeResult.UNKNOWN_TOKEN
    try:
        get_plaid().item_remove(access_token)
    except PlaidError as exc:
        if not isinstance(exc, PlaidItemNotFoundError) and exc.error_code not in UNKNOWN_TOKEN_CODES:
            raise
        logger.info("token unknown to Plaid: counted as revoked", extra={"item_id": item_id, "code": exc.error_code})
        count(REVOKE_METRIC, result=RevokeResult.UNKNOWN_TOKEN.value, code=str(exc.error_code))
        return RevokeResult.UNKNOWN_TOKEN
    count(REVOKE_METRIC, result=RevokeResult.REVOKED.value)
    return RevokeResult.REVOKED


def _announce_permission_revoked(item: Item) -> None:
    """Step 4 of a ``USER_PERMISSION_REVOKED`` removal: the Admin API note, then the event."""
    get_admin_api().add_note(
        item.user_id,
        f"Plaid item {item.item_id} removed: the user revoked permission at their bank",
        idempotency_key=derive_key(ADMIN_NOTE_KIND, item.item_id),
    )
    publisher.connection_revoked(
        item.user_id, item.item_id, RemovalCause.USER_PERMISSION_REVOKED.value, str(item.removed_at)
    )


def _context(item: Item) -> dict[str, str | None]:
    return {"user_id": item.user_id, "item_id": item.item_id, "item_source": item.source}
