"""The feeder: DynamoDB stream records of both tables (``docs/item-lifecycle.md``).

* TTL expiry of a LAYER row (transactions table): revoke at Plaid every stub entry that
  never became an ITEM.
* TTL expiry of an ITEM row (plaid table): a prequal item with a main account whose user
  is ACTIVE is written back without ttl; any other is removed
  (:func:`chalicelib.pipeline.removal.remove_item`: written back REMOVED with its
  ``item_removed_reason``, recorded in ``plaid-account-changes``, its token revoked).
* INSERT of an ACCOUNT row, or a MODIFY that changes a field ``new_account`` carries (not
  a balance-only update): publish ``new_account`` with ``is_main``.
* MODIFY of an ITEM row that changes its main account (plaid table): publish
  ``new_account`` for the new main account and for the previous one.
* Anything else: skipped.

The event source mappings filter records before invocation; the handlers check again, so
a widened filter can never make them act on a user's own DeleteItem or another entity.

Records are handled in order by the loop the refiner shares (:mod:`chalicelib.pipeline.in_order`).
The first one that fails for a reason a retry may fix is reported by its sequence number and
nothing after it runs in this invocation (Lambda retries from it, bisecting). A record no retry
can fix (an image that does not decode) is logged and skipped. Every action is idempotent,
because Lambda delivers stream records at least once.

What a record is, what an expiry does and when ``new_account`` goes out are pure decisions
(:mod:`chalicelib.pipeline.decisions.feeder`); Plaid, the User Service, the tables, the bus
and the removal are reached through :class:`~chalicelib.pipeline.effects.Effects`. Details
and the item status model: ``docs/item-lifecycle.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from enum import StrEnum
from typing import Any

from boto3.dynamodb.types import TypeDeserializer

from chalicelib.data import accounts, items, layers
from chalicelib.data.ttl import utcnow
from chalicelib.errors import InvalidRequestError, ValidationError
from chalicelib.observability import count, logger
from chalicelib.peers import UserNotFoundError
from chalicelib.pipeline import removal
from chalicelib.pipeline.decisions import feeder as rules
from chalicelib.pipeline.decisions.feeder import Change, ItemExpiry, StreamChange, announced_change
from chalicelib.pipeline.effects import Effects, get_effects
from chalicelib.pipeline.in_order import InOrderLoop

__all__ = [
    "Outcome",
    "StreamChange",
    "UndecodableRecordError",
    "announced_change",
    "change_from_record",
    "handle_plaid_stream",
    "handle_transactions_stream",
    "process_records",
    "route_plaid_change",
    "route_transactions_change",
]

#: Who deletes a row whose TTL passed: Lambda puts this on exactly those REMOVE records.
TTL_PRINCIPAL = "dynamodb.amazonaws.com"
FAILED_METRIC = "txn.feeder.record.failed"
PREQUAL_EXPIRY_METRIC = "txn.item.prequal.expiry"
FOREIGN_STUB_ITEM_METRIC = "txn.layer.stub.foreign_item"

_deserializer = TypeDeserializer()


class UndecodableRecordError(ValidationError):
    """A stream record or image that does not decode into the entity it claims to be."""


#: Failures no retry can fix: the record is logged and skipped.
UNFIXABLE = (UndecodableRecordError, ValidationError, InvalidRequestError)


class Outcome(StrEnum):
    """What the feeder did with one record (logged, and returned for tests)."""

    SKIPPED = "skipped"
    LAYER_REVOKED = "layer_revoked"
    ITEM_PERSISTED = "item_persisted"
    ITEM_REMOVED = "item_removed"
    ITEM_RECREATED = "item_recreated"
    ACCOUNT_PUBLISHED = "account_published"
    ACCOUNT_UNCHANGED = "account_unchanged"
    MAIN_ACCOUNT_PUBLISHED = "main_account_published"


def sequence_number(record: Mapping[str, Any]) -> str:
    return str((record.get("dynamodb") or {}).get("SequenceNumber", ""))


def change_from_record(record: Mapping[str, Any]) -> StreamChange:
    """Lambda's DynamoDB stream record as a :class:`StreamChange` (raises when undecodable)."""
    change = record.get("dynamodb")
    if not isinstance(change, Mapping):
        raise UndecodableRecordError("stream record without a dynamodb section")
    identity = record.get("userIdentity") or {}
    by_ttl = (
        isinstance(identity, Mapping)
        and identity.get("type") == "Service"
        and identity.get("principalId") == TTL_PRINCIPAL
    )
    return StreamChange(
        sequence_number=str(change.get("SequenceNumber", "")),
        event_name=str(record.get("eventName", "")),
        by_ttl=by_ttl,
        new_image=_image(change.get("NewImage")),
        old_image=_image(change.get("OldImage")),
    )


def _image(raw: Any) -> dict[str, Any] | None:
    if raw is None:
        return None
    try:
        return {name: _deserializer.deserialize(value) for name, value in raw.items()}
    except (AttributeError, TypeError, ValueError, KeyError) as exc:
        raise UndecodableRecordError(f"stream image does not decode: {type(exc).__name__}") from exc


# --- the Lambda entries -----------------------------------------------------------------

Route = Callable[[StreamChange, datetime], Outcome]


def handle_transactions_stream(
    event: Mapping[str, Any], now: datetime | None = None, fx: Effects | None = None
) -> dict[str, list[dict[str, str]]]:
    """``feed_transactions_table``: LAYER expiries and ACCOUNT rows."""
    effects = fx or get_effects()
    return process_records(event.get("Records", []), lambda c, at: route_transactions_change(c, at, effects), now=now)


def handle_plaid_stream(
    event: Mapping[str, Any], now: datetime | None = None, fx: Effects | None = None
) -> dict[str, list[dict[str, str]]]:
    """``feed_plaid_table``: ITEM expiries and main-account changes."""
    effects = fx or get_effects()
    return process_records(event.get("Records", []), lambda c, at: route_plaid_change(c, at, effects), now=now)


def _count_failure(result: str, error: Exception) -> None:
    count(FAILED_METRIC, result=result)


LOOP: InOrderLoop[Mapping[str, Any]] = InOrderLoop(
    "feeder", UNFIXABLE, sequence_number=sequence_number, count_failure=_count_failure
)


def process_records(
    records: Iterable[Mapping[str, Any]], route: Route, *, now: datetime | None = None
) -> dict[str, list[dict[str, str]]]:
    """Route records in order; return Lambda's partial batch response (first failure only)."""

    def handle(record: Mapping[str, Any]) -> None:
        outcome = route(change_from_record(record), now or utcnow())
        if outcome not in (Outcome.SKIPPED, Outcome.ACCOUNT_UNCHANGED):  # those two are every mine's noise
            logger.info(
                "feeder handled a record", extra={"sequence_number": sequence_number(record), "outcome": outcome.value}
            )

    return LOOP.run(records, handle)


def route_transactions_change(change: StreamChange, now: datetime, fx: Effects | None = None) -> Outcome:
    kind = rules.transactions_change(change)
    if kind is Change.LAYER_EXPIRED:
        return expire_layer_stub(change.old_image or {}, fx or get_effects())
    if kind is Change.ACCOUNT_WRITTEN:
        return account_written(change, fx or get_effects())
    return Outcome.SKIPPED


def route_plaid_change(change: StreamChange, now: datetime, fx: Effects | None = None) -> Outcome:
    kind = rules.plaid_change(change)
    if kind is Change.ITEM_EXPIRED:
        return expire_item(change.old_image or {}, now, fx or get_effects())
    if kind is Change.ITEM_MODIFIED:
        return main_account_changed(change, fx or get_effects())
    return Outcome.SKIPPED


# --- LAYER expiry -------------------------------------------------------------------------


def expire_layer_stub(old_image: Mapping[str, Any], fx: Effects) -> Outcome:
    """Revoke every entry of an expired stub that never became an ITEM (idempotent)."""
    try:
        stub = layers.from_item(old_image)
    except (KeyError, TypeError, ValueError) as exc:
        raise UndecodableRecordError(f"LAYER image does not decode: {type(exc).__name__}") from exc
    revoked = kept = 0
    for entry in stub.items:
        holder = fx.store.get_item_by_id(entry.item_id)
        fate = rules.stub_entry_fate(holder, stub.user_id)
        if fate is rules.StubEntryFate.REVOKE:
            fx.removals.revoke_token(entry.item_id, entry.access_token)
            revoked += 1
            continue
        kept += 1
        if fate is rules.StubEntryFate.FOREIGN:
            count(FOREIGN_STUB_ITEM_METRIC)
            logger.warning(
                "expired Layer stub names an item another user holds; not revoked",
                extra={"user_id": stub.user_id, "item_id": entry.item_id, "holder": holder.user_id if holder else None},
            )
    logger.info("expired Layer stub cleaned up", extra={"user_id": stub.user_id, "revoked": revoked, "kept": kept})
    return Outcome.LAYER_REVOKED


# --- ITEM expiry --------------------------------------------------------------------------


def expire_item(old_image: Mapping[str, Any], now: datetime, fx: Effects) -> Outcome:
    """Decide the fate of an item TTL deleted, and write the row back accordingly.

    TTL has already deleted the row; "keep" and "remove" both put it back from the old
    image, conditioned on the key being free, so a row created again since is never
    overwritten. Removal is :func:`chalicelib.pipeline.removal.remove_item` (write back
    REMOVED, record the change, revoke). ``UserServiceError`` propagates: the record is retried.
    """
    item = _item_from(old_image)
    user_active = user_is_active(item.user_id, fx) if rules.asks_user_status(item) else None
    if rules.item_expiry(item, user_active) is ItemExpiry.PERSIST:
        if fx.store.create_item(items.as_persisted(item), now):
            count(PREQUAL_EXPIRY_METRIC, outcome="persisted")
        logger.info("expired prequal item kept: the user is active", extra=_item_context(item))
        return Outcome.ITEM_PERSISTED
    # An already REMOVED image (rows removed before removal cleared ttl) keeps its reason.
    outcome = fx.removals.remove_item(item, removal.expiry_removal(item), now)
    if outcome.recreated:
        return Outcome.ITEM_RECREATED
    if outcome.removed_now and item.is_prequal:
        count(PREQUAL_EXPIRY_METRIC, outcome="removed")
    return Outcome.ITEM_REMOVED


def user_is_active(user_id: str, fx: Effects) -> bool:
    """Whether the User Service reports the user ACTIVE; a user it does not know is not."""
    try:
        return fx.peers.get_user(user_id).is_active
    except UserNotFoundError:
        logger.info("user of an expired prequal item not found: treated as not active", extra={"user_id": user_id})
        return False


def _item_from(old_image: Mapping[str, Any]) -> items.Item:
    try:
        return items.from_item(old_image)
    except (KeyError, TypeError, ValueError) as exc:
        raise UndecodableRecordError(f"ITEM image does not decode: {type(exc).__name__}") from exc


def _item_context(item: items.Item) -> dict[str, Any]:
    return {"user_id": item.user_id, "item_id": item.item_id, "item_source": item.source}


# --- ACCOUNT rows and main accounts -------------------------------------------------------


def account_written(change: StreamChange, fx: Effects) -> Outcome:
    """Publish ``new_account`` for a new account, or one whose announced fields changed (balances aside)."""
    if not rules.publishes_account(change):
        return Outcome.ACCOUNT_UNCHANGED
    publish_account(_account_from(change.new_image or {}), fx)
    return Outcome.ACCOUNT_PUBLISHED


def main_account_changed(change: StreamChange, fx: Effects) -> Outcome:
    """An ITEM's main account changed: publish ``new_account`` for the new main and the previous one.

    ``is_main`` is part of what the event says, so the new main account is announced as soon
    as the change is stored, and the previous main account as no longer main.
    """
    announced = rules.main_account_announcements(change.old_image, change.new_image)
    if announced is None:
        return Outcome.SKIPPED
    item = _item_from(change.new_image or {})
    for acct_id in announced:
        account = fx.store.get_account(item.user_id, acct_id)
        if account is not None and rules.announces(account, item):
            publish_account(account, fx)
    return Outcome.MAIN_ACCOUNT_PUBLISHED


def publish_account(account: accounts.Account, fx: Effects) -> str:
    """``new_account`` with ``is_main`` as the user's items say now (one strongly consistent Query)."""
    user_items = fx.store.list_items(account.user_id)
    return fx.events.new_account(
        account, is_main=rules.is_main_account(account, user_items), main_since=rules.main_since(account, user_items)
    )


def _account_from(image: Mapping[str, Any]) -> accounts.Account:
    try:
        return accounts.from_item(image)
    except (KeyError, TypeError, ValueError, ArithmeticError) as exc:
        raise UndecodableRecordError(f"ACCOUNT image does not decode: {type(exc).__name__}") from exc
