"""The feeder: DynamoDB stream records of both tables (seed 002, Feeder).

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

Records are handled in order. The first one that fails for a reason a retry may fix is
reported by its sequence number and nothing after it runs in this invocation (Lambda
retries from it, bisecting), exactly like the refiner. A record no retry can fix (an image
that does not decode) is logged and skipped. Every action
is idempotent, because Lambda delivers stream records at least once. Details and the item
status model: ``docs/item-lifecycle.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from boto3.dynamodb.types import TypeDeserializer

from chalicelib.data import accounts, items, keys, layers
from chalicelib.data.ttl import utcnow
from chalicelib.errors import InvalidRequestError, ValidationError
from chalicelib.events import publisher
from chalicelib.observability import count, logger
from chalicelib.peers import UserNotFoundError, get_user_service
from chalicelib.pipeline import removal

#: Who deletes a row whose TTL passed: Lambda puts this on exactly those REMOVE records.
TTL_PRINCIPAL = "dynamodb.amazonaws.com"
FAILED_METRIC = "txn.feeder.record.failed"
PREQUAL_EXPIRY_METRIC = "txn.item.prequal.expiry"

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
        return _type_of(self.new_image)

    def old_type(self) -> str | None:
        return _type_of(self.old_image)


def _type_of(image: Mapping[str, Any] | None) -> str | None:
    value = (image or {}).get("type")
    return value if isinstance(value, str) else None


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
    event: Mapping[str, Any], now: datetime | None = None
) -> dict[str, list[dict[str, str]]]:
    """``feed_transactions_table``: LAYER expiries and ACCOUNT rows."""
    return process_records(event.get("Records", []), route_transactions_change, now=now)


def handle_plaid_stream(event: Mapping[str, Any], now: datetime | None = None) -> dict[str, list[dict[str, str]]]:
    """``feed_plaid_table``: ITEM expiries."""
    return process_records(event.get("Records", []), route_plaid_change, now=now)


def process_records(
    records: Iterable[Mapping[str, Any]], route: Route, *, now: datetime | None = None
) -> dict[str, list[dict[str, str]]]:
    """Route records in order; return Lambda's partial batch response (first failure only)."""
    for record in records:
        seq = sequence_number(record)
        try:
            outcome = route(change_from_record(record), now or utcnow())
        except UNFIXABLE as exc:
            logger.error("feeder skipped a record", extra={"sequence_number": seq, "error": str(exc)})
            count(FAILED_METRIC, result="skipped")
            continue
        except Exception as exc:  # noqa: BLE001 - anything else is retried from this record
            logger.exception(
                "feeder failed a record; it will be retried",
                extra={"sequence_number": seq, "error": str(exc), "error_class": type(exc).__name__},
            )
            count(FAILED_METRIC, result="retried")
            return {"batchItemFailures": [{"itemIdentifier": seq}]}
        if outcome not in (Outcome.SKIPPED, Outcome.ACCOUNT_UNCHANGED):  # those two are every mine's noise
            logger.info("feeder handled a record", extra={"sequence_number": seq, "outcome": outcome.value})
    return {"batchItemFailures": []}


def route_transactions_change(change: StreamChange, now: datetime) -> Outcome:
    if change.is_ttl_expiry and change.old_type() == keys.LAYER:
        return expire_layer_stub(change.old_image or {})
    if change.event_name in ("INSERT", "MODIFY") and change.new_type() == keys.ACCOUNT:
        return account_written(change)
    return Outcome.SKIPPED


def route_plaid_change(change: StreamChange, now: datetime) -> Outcome:
    if change.is_ttl_expiry and change.old_type() == keys.ITEM:
        return expire_item(change.old_image or {}, now)
    if change.event_name == "MODIFY" and change.new_type() == keys.ITEM:
        return main_account_changed(change)
    return Outcome.SKIPPED


# --- LAYER expiry -------------------------------------------------------------------------


def expire_layer_stub(old_image: Mapping[str, Any]) -> Outcome:
    """Revoke every entry of an expired stub that never became an ITEM (idempotent)."""
    try:
        stub = layers.from_item(old_image)
    except (KeyError, TypeError, ValueError) as exc:
        raise UndecodableRecordError(f"LAYER image does not decode: {type(exc).__name__}") from exc
    revoked = kept = 0
    for entry in stub.items:
        if items.get_item_by_id(entry.item_id) is not None:
            kept += 1
            continue
        removal.revoke_token(entry.item_id, entry.access_token)
        revoked += 1
    logger.info("expired Layer stub cleaned up", extra={"user_id": stub.user_id, "revoked": revoked, "kept": kept})
    return Outcome.LAYER_REVOKED


# --- ITEM expiry --------------------------------------------------------------------------


def expire_item(old_image: Mapping[str, Any], now: datetime) -> Outcome:
    """Decide the fate of an item TTL deleted, and write the row back accordingly.

    TTL has already deleted the row; "keep" and "remove" both put it back from the old
    image, conditioned on the key being free, so a row created again since is never
    overwritten. Removal is :func:`chalicelib.pipeline.removal.remove_item` (write back
    REMOVED, record the change, revoke). ``UserServiceError`` propagates: the record is retried.
    """
    item = _item_from(old_image)
    if item.status is not items.ItemStatus.REMOVED and (
        item.is_prequal and item.main_account_id and user_is_active(item.user_id)
    ):
        if items.create_item(items.as_persisted(item), now):
            count(PREQUAL_EXPIRY_METRIC, outcome="persisted")
        logger.info("expired prequal item kept: the user is active", extra=_item_context(item))
        return Outcome.ITEM_PERSISTED
    # An already REMOVED image (rows removed before removal cleared ttl) keeps its reason.
    outcome = removal.remove_item(item, removal.expiry_removal(item), now)
    if outcome.recreated:
        return Outcome.ITEM_RECREATED
    if outcome.removed_now and item.is_prequal:
        count(PREQUAL_EXPIRY_METRIC, outcome="removed")
    return Outcome.ITEM_REMOVED


def user_is_active(user_id: str) -> bool:
    """Whether the User Service reports the user ACTIVE; a user it does not know is not."""
    try:
        return get_user_service().get_user(user_id).is_active
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


def account_written(change: StreamChange) -> Outcome:
    """Publish ``new_account`` for a new account, or one whose announced fields changed.

    Every mine rewrites its accounts (balances, ``acct_updated_at``), so most MODIFYs of an
    account row change only balances; those publish nothing, or every mine would flood
    consumers. An INSERT, or a MODIFY that changes what the event carries (item, name,
    official name, type, subtype, mask, currency), publishes.
    """
    new = change.new_image or {}
    if change.event_name == "MODIFY" and not announced_change(change.old_image, new):
        return Outcome.ACCOUNT_UNCHANGED
    publish_account(_account_from(new))
    return Outcome.ACCOUNT_PUBLISHED


def announced_change(old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> bool:
    """Whether a write changed what ``new_account`` says about the row (balances aside)."""
    if old is None or _type_of(old) != keys.ACCOUNT:
        return True
    return any(old.get(name) != new.get(name) for name in ANNOUNCED_ATTRIBUTES)


def main_account_changed(change: StreamChange) -> Outcome:
    """An ITEM's main account changed: publish ``new_account`` for the new main and the previous one.

    ``is_main`` is part of what the event says, so the new main account is announced as soon
    as the change is stored, and the previous main account as no longer main. An account not
    stored yet is announced by its own INSERT.
    """
    old, new = change.old_image or {}, change.new_image or {}
    before, after = old.get("main_account_id"), new.get("main_account_id")
    if before == after:
        return Outcome.SKIPPED
    item = _item_from(new)
    for acct_id in (after, before):
        if not acct_id:
            continue
        account = accounts.get_account(item.user_id, str(acct_id))
        if account is not None and account.item_id == item.item_id:
            publish_account(account)
    return Outcome.MAIN_ACCOUNT_PUBLISHED


def publish_account(account: accounts.Account) -> str:
    """``new_account`` with ``is_main`` as the user's items say now (one strongly consistent Query)."""
    user_items = items.list_items(account.user_id)
    is_main = any(i.status is items.ItemStatus.ACTIVE and i.main_account_id == account.acct_id for i in user_items)
    owner = next((i for i in user_items if i.item_id == account.item_id), None)
    main_since = owner.main_account_changed_at if owner is not None else None
    return publisher.new_account(account, is_main=is_main, main_since=main_since)


def _account_from(image: Mapping[str, Any]) -> accounts.Account:
    try:
        return accounts.from_item(image)
    except (KeyError, TypeError, ValueError, ArithmeticError) as exc:
        raise UndecodableRecordError(f"ACCOUNT image does not decode: {type(exc).__name__}") from exc
