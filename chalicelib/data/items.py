"""ITEM rows: one per Plaid item (bank login) of a user, in ``<stage>-txn-plaid``.

The status model and who may change it: ``docs/item-lifecycle.md``.

Invariants the writes hold:

* an item is created once (``attribute_not_exists``): a redelivered create or a
  TTL write-back that already happened changes nothing;
* REMOVED is terminal: a refresh from Plaid, a new ttl or a main-account change never
  touches a removed item, and removal clears ``ttl`` so its expiry cannot bring the
  feeder's persist path back to life;
* updates never create a row (``attribute_exists``).

``ttl`` is set on reactivation and prequal items and cleared by persist. When it fires
the row is gone; the feeder writes it back with :func:`create_item` on
:func:`as_removed` or :func:`as_persisted` of the stream's old image.

The access token and processor tokens never appear in a ``repr`` or a log.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum
from typing import Any

from boto3.dynamodb.conditions import Key

from chalicelib.aws.errors import translated
from chalicelib.data import keys, tables
from chalicelib.data.query import query_rows
from chalicelib.data.ttl import epoch, iso_timestamp, utcnow
from chalicelib.errors import ConditionFailedError, ContentionError, DataError, NotFoundError
from chalicelib.observability import logger


class ItemStatus(StrEnum):
    ACTIVE = "ACTIVE"
    ERROR = "ERROR"
    REMOVED = "REMOVED"


class MiningMode(StrEnum):
    """How the item's transactions are mined: ``/transactions/get`` windows, or ``/transactions/sync``."""

    GET = "GET"
    SYNC = "SYNC"


ITEM_SOURCE_PREQUAL = "PREQUAL"
REMOVED_REASON_MX = "MX"
REMOVED_REASON_PREQUAL_EXPIRED = "item expired, user did not complete prequal"
REMOVED_REASON_REACTIVATION_EXPIRED = "item expired, user did not complete reactivation"
#: The re-link rule's reason (its documented text; the rule now matches the same login, not just the institution).
REMOVED_REASON_RELINKED = "relinked: replaced by a new link to the same institution"

#: One account as Plaid described it when the item was linked: (mask, type, subtype).
LinkAccount = tuple[str | None, str | None, str | None]
#: Optimistic retries of a read-modify-write on the processor-token list.
MAX_TOKEN_ATTEMPTS = 3


class ItemNotFoundError(NotFoundError):
    """No ITEM row for this user and item."""


class ItemRemovedError(ConditionFailedError):
    """The item is REMOVED; the write would have revived or changed it."""


class ItemContentionError(ContentionError):
    """The item kept changing during a read-modify-write."""


@dataclass(frozen=True)
class ProcessorToken:
    processor: str
    account_id: str
    processor_token: str = field(repr=False)


@dataclass(frozen=True)
class Item:
    user_id: str
    item_id: str
    access_token: str = field(repr=False)
    institution_id: str | None = None
    institution_name: str | None = None
    status: ItemStatus = ItemStatus.ACTIVE
    error_code: str | None = None
    available_products: tuple[str, ...] = ()
    billed_products: tuple[str, ...] = ()
    last_successful_update: str | None = None
    last_failed_update: str | None = None
    last_webhook_sent_at: str | None = None
    created_at: str | None = None
    main_account_id: str | None = None
    source: str | None = None  # ITEM_SOURCE_PREQUAL or None
    removed_reason: str | None = None
    processor_tokens: tuple[ProcessorToken, ...] = ()
    ttl: int | None = None
    #: Which removal path removed it (``chalicelib.pipeline.removal.RemovalCause``) and when.
    removed_cause: str | None = None
    removed_at: str | None = None
    #: The newer item of the same login that replaced it (re-link rule).
    replaced_by: str | None = None
    #: Its accounts as Plaid listed them at link time; None when unknown (linked before this was kept).
    link_accounts: frozenset[LinkAccount] | None = None
    #: When ``main_account_id`` was last changed through the API (None: never since linking).
    main_account_changed_at: str | None = None
    #: ``/transactions/get`` (rows written before modes existed) or ``/transactions/sync`` (its cursors: SYNC row).
    mining_mode: MiningMode = MiningMode.GET

    @property
    def is_prequal(self) -> bool:
        return self.source == ITEM_SOURCE_PREQUAL

    @property
    def mines_by_sync(self) -> bool:
        return self.mining_mode is MiningMode.SYNC


@dataclass(frozen=True)
class PlaidItemState:
    """What ``/item/get`` reports about an item, as the miner's refresh stores it."""

    error_code: str | None = None
    available_products: tuple[str, ...] = ()
    billed_products: tuple[str, ...] = ()
    last_successful_update: str | None = None
    last_failed_update: str | None = None
    last_webhook_sent_at: str | None = None

    @property
    def status(self) -> ItemStatus:
        return ItemStatus.ERROR if self.error_code else ItemStatus.ACTIVE


def plaid_item_state(response: Mapping[str, Any]) -> PlaidItemState:
    """What to store from an ``/item/get`` response (``item`` and its update ``status``)."""
    plaid_item = response.get("item") or {}
    error = plaid_item.get("error") or {}
    status = response.get("status") or {}
    transactions = status.get("transactions") or {}
    webhook = status.get("last_webhook") or {}
    return PlaidItemState(
        error_code=error.get("error_code") or None,
        available_products=tuple(str(p) for p in plaid_item.get("available_products") or ()),
        billed_products=tuple(str(p) for p in plaid_item.get("billed_products") or ()),
        last_successful_update=transactions.get("last_successful_update"),
        last_failed_update=transactions.get("last_failed_update"),
        last_webhook_sent_at=webhook.get("sent_at"),
    )


def item_item(item: Item, now: datetime) -> dict[str, Any]:
    """The ITEM row for ``item`` (pure). Optional attributes are omitted when empty."""
    row: dict[str, Any] = {
        **keys.item_key(item.user_id, item.item_id),
        **keys.item_gsi_keys(item.user_id, item.item_id),
        "type": keys.ITEM,
        "user_id": item.user_id,
        "item_id": item.item_id,
        "access_token": item.access_token,
        "item_status": item.status.value,
        "item_available_products": list(item.available_products),
        "item_billed_products": list(item.billed_products),
        "item_created_at": item.created_at or iso_timestamp(now),
    }
    optional: dict[str, Any] = {
        "institution_id": item.institution_id,
        "institution_name": item.institution_name,
        "item_error_code": item.error_code,
        "item_last_successful_update": item.last_successful_update,
        "item_last_failed_update": item.last_failed_update,
        "item_last_webhook_sent_at": item.last_webhook_sent_at,
        "main_account_id": item.main_account_id,
        "item_source": item.source,
        "item_removed_reason": item.removed_reason,
        "item_processor_tokens": _tokens(item.processor_tokens),
        "ttl": item.ttl,
        "item_removed_cause": item.removed_cause,
        "item_removed_at": item.removed_at,
        "item_replaced_by": item.replaced_by,
        "item_link_accounts": link_accounts_list(item.link_accounts),
        "main_account_changed_at": item.main_account_changed_at,
        "item_mining_mode": item.mining_mode.value if item.mines_by_sync else None,
    }
    row.update({k: v for k, v in optional.items() if v not in (None, "", [])})
    return row


def _tokens(tokens: Sequence[ProcessorToken]) -> list[dict[str, str]]:
    return [
        {"processor": t.processor, "processor_token": t.processor_token, "account_id": t.account_id} for t in tokens
    ]


def link_accounts_list(accounts: frozenset[LinkAccount] | None) -> list[dict[str, str | None]] | None:
    """The stored shape of the link-time accounts (sorted, so a rewrite is byte-identical)."""
    if not accounts:
        return None
    return [
        {"mask": m, "type": t, "subtype": s} for m, t, s in sorted(accounts, key=lambda a: tuple(x or "" for x in a))
    ]


def link_accounts_from(raw: Any) -> frozenset[LinkAccount] | None:
    """``(mask, type, subtype)`` of each account in a stored list or in Plaid's ``accounts``; None if none."""
    if not raw:
        return None
    found = frozenset(
        (_text(a.get("mask")), _text(a.get("type")), _text(a.get("subtype"))) for a in raw if isinstance(a, Mapping)
    )
    return found or None


def _text(value: Any) -> str | None:
    return str(value) if value is not None else None


def from_item(row: Mapping[str, Any]) -> Item:
    """A stored row; user and item ids come from the keys when not repeated as attributes."""
    return Item(
        user_id=str(row.get("user_id") or keys.key_part(row.get("PK"), "USERS")),
        item_id=str(row.get("item_id") or keys.key_part(row.get("SK"), "ITEMS")),
        access_token=str(row.get("access_token", "")),
        institution_id=row.get("institution_id"),
        institution_name=row.get("institution_name"),
        status=ItemStatus(str(row.get("item_status", ItemStatus.ACTIVE.value))),
        error_code=row.get("item_error_code"),
        available_products=tuple(row.get("item_available_products", ())),
        billed_products=tuple(row.get("item_billed_products", ())),
        last_successful_update=row.get("item_last_successful_update"),
        last_failed_update=row.get("item_last_failed_update"),
        last_webhook_sent_at=row.get("item_last_webhook_sent_at"),
        created_at=row.get("item_created_at"),
        main_account_id=row.get("main_account_id"),
        source=row.get("item_source"),
        removed_reason=row.get("item_removed_reason"),
        processor_tokens=tuple(
            ProcessorToken(str(t["processor"]), str(t["account_id"]), str(t["processor_token"]))
            for t in row.get("item_processor_tokens", ())
        ),
        ttl=int(row["ttl"]) if row.get("ttl") is not None else None,
        removed_cause=row.get("item_removed_cause"),
        removed_at=row.get("item_removed_at"),
        replaced_by=row.get("item_replaced_by"),
        link_accounts=link_accounts_from(row.get("item_link_accounts")),
        main_account_changed_at=row.get("main_account_changed_at"),
        mining_mode=MiningMode.SYNC if row.get("item_mining_mode") == MiningMode.SYNC.value else MiningMode.GET,
    )


def as_removed(item: Item, reason: str | None, *, cause: str | None = None, removed_at: datetime | None = None) -> Item:
    """``item`` as REMOVED with ``reason`` and no ttl (pure; the feeder's write-back).

    An item that was already REMOVED keeps its reason, cause and instant.
    """
    if item.status is ItemStatus.REMOVED:
        return replace(item, removed_reason=item.removed_reason or reason, ttl=None)
    return replace(
        item,
        status=ItemStatus.REMOVED,
        removed_reason=reason or item.removed_reason,
        removed_cause=cause,
        removed_at=iso_timestamp(removed_at) if removed_at else None,
        ttl=None,
    )


def as_persisted(item: Item) -> Item:
    """``item`` without ttl (pure): a prequal item that stays connected."""
    return replace(item, ttl=None)


# --- writes ---------------------------------------------------------------------------


def create_item(item: Item, now: datetime) -> bool:
    """Create the row; ``False`` (and nothing written) when it already exists."""
    try:
        with translated():
            tables.plaid().put_item(Item=item_item(item, now), ConditionExpression="attribute_not_exists(PK)")
    except ConditionFailedError:
        return False
    return True


def refresh_item(user_id: str, item_id: str, state: PlaidItemState) -> Item:
    """Store what Plaid reports: status ERROR when an error code is present, else ACTIVE.

    Raises :class:`ItemNotFoundError` or, for a REMOVED item, :class:`ItemRemovedError`.
    """
    values: dict[str, Any] = {
        "item_status": state.status.value,
        "item_available_products": list(state.available_products),
        "item_billed_products": list(state.billed_products),
        "item_error_code": state.error_code,
        "item_last_successful_update": state.last_successful_update,
        "item_last_failed_update": state.last_failed_update,
        "item_last_webhook_sent_at": state.last_webhook_sent_at,
    }
    return _update(user_id, item_id, values, guard_removed=True)


def refresh_from_plaid(item: Item, response: Mapping[str, Any]) -> Item:
    """:func:`refresh_item` from an ``/item/get`` response."""
    return refresh_item(item.user_id, item.item_id, plaid_item_state(response))


def mark_removed(user_id: str, item_id: str, reason: str | None = None) -> Item:
    """Set REMOVED (idempotent; the first removal's reason stays); clears ``ttl``."""
    return mark_removed_once(user_id, item_id, reason=reason)[0]


def mark_removed_once(
    user_id: str,
    item_id: str,
    *,
    reason: str | None = None,
    cause: str | None = None,
    removed_at: datetime | None = None,
    replaced_by: str | None = None,
) -> tuple[Item, bool]:
    """Make the item REMOVED unless it already is; ``(stored item, whether this call removed it)``.

    The first removal wins: its reason, cause, instant and replacing item stay, whatever
    removal comes later. Removal clears ``ttl``. Raises :class:`ItemNotFoundError`.
    """
    values: dict[str, Any] = {
        "item_status": ItemStatus.REMOVED.value,
        "ttl": None,
        "item_removed_reason": reason or None,
        "item_removed_cause": cause,
        "item_removed_at": iso_timestamp(removed_at) if removed_at else None,
        "item_replaced_by": replaced_by,
    }
    try:
        return _update(
            user_id, item_id, {k: v for k, v in values.items() if v is not None or k == "ttl"}, guard_removed=True
        ), True
    except ItemRemovedError:
        current = get_item(user_id, item_id)
        if current is None:
            raise ItemNotFoundError(f"item {item_id} of user {user_id} not found") from None
        return current, False


def stamp_removed_at(user_id: str, item_id: str, removed_at: datetime) -> Item:
    """Give a REMOVED item that has no removal instant one (rows removed before instants were kept).

    Conditional on there being none, so concurrent callers agree on the first stamp.
    """
    try:
        with translated():
            tables.plaid().update_item(
                Key=keys.item_key(user_id, item_id),
                UpdateExpression="SET item_removed_at = :t",
                ConditionExpression="attribute_exists(PK) AND attribute_not_exists(item_removed_at)",
                ExpressionAttributeValues={":t": iso_timestamp(removed_at)},
            )
    except ConditionFailedError:
        pass
    current = get_item(user_id, item_id)
    if current is None:
        raise ItemNotFoundError(f"item {item_id} of user {user_id} not found")
    return current


def set_item_ttl(user_id: str, item_id: str, expires_at: datetime) -> Item:
    """Give a reactivation or prequal item an expiry (never a REMOVED one)."""
    return _update(user_id, item_id, {"ttl": epoch(expires_at)}, guard_removed=True)


def persist_item(user_id: str, item_id: str) -> Item:
    """Clear the item's ttl so it never expires."""
    return _update(user_id, item_id, {"ttl": None}, guard_removed=False)


def set_main_account(user_id: str, item_id: str, account_id: str, changed_at: datetime | None = None) -> str | None:
    """Set the item's main account (and when it changed); return the previous one (for the account-change row)."""
    table = tables.plaid()
    stamp = iso_timestamp(changed_at or utcnow())
    try:
        with translated():
            response = table.update_item(
                Key=keys.item_key(user_id, item_id),
                UpdateExpression="SET main_account_id = :a, main_account_changed_at = :t",
                ConditionExpression="attribute_exists(PK) AND item_status <> :removed",
                ExpressionAttributeValues={":a": account_id, ":t": stamp, ":removed": ItemStatus.REMOVED.value},
                ReturnValues="UPDATED_OLD",
            )
    except ConditionFailedError as exc:
        raise _why_refused(user_id, item_id, exc) from exc
    previous = response.get("Attributes", {}).get("main_account_id")
    return str(previous) if previous is not None else None


def set_mining_mode(user_id: str, item_id: str, mode: MiningMode) -> Item:
    """Mine the item by ``/transactions/get`` or ``/transactions/sync`` from its next webhook on.

    ``GET`` removes the attribute (rows without it are GET). The sync cursors live on the item's
    SYNC row (:mod:`chalicelib.data.sync_state`) and are kept, so switching back resumes from them.
    """
    return _update(
        user_id, item_id, {"item_mining_mode": mode.value if mode is MiningMode.SYNC else None}, guard_removed=True
    )


def set_processor_tokens(user_id: str, item_id: str, tokens: Sequence[ProcessorToken]) -> Item:
    """Replace the item's processor-token list."""
    return _update(user_id, item_id, {"item_processor_tokens": _tokens(tokens) or None}, guard_removed=True)


def add_processor_token(user_id: str, item_id: str, token: ProcessorToken) -> Item:
    """Add (or replace, by processor and account) one processor token; idempotent.

    A read-modify-write conditioned on the list being unchanged since the read, so two
    concurrent additions cannot lose one another.
    """
    table = tables.plaid()
    for _ in range(MAX_TOKEN_ATTEMPTS):
        current = get_item(user_id, item_id)
        if current is None:
            raise ItemNotFoundError(f"item {item_id} of user {user_id} not found")
        if current.status is ItemStatus.REMOVED:
            raise ItemRemovedError(f"item {item_id} is removed")
        others = [
            t for t in current.processor_tokens if (t.processor, t.account_id) != (token.processor, token.account_id)
        ]
        merged = (*others, token)
        if set(merged) == set(current.processor_tokens):
            return current
        if current.processor_tokens:
            condition = "item_processor_tokens = :old"
            values: dict[str, Any] = {":old": _tokens(current.processor_tokens)}
        else:
            condition, values = "attribute_exists(PK) AND attribute_not_exists(item_processor_tokens)", {}
        try:
            with translated():
                response = table.update_item(
                    Key=keys.item_key(user_id, item_id),
                    UpdateExpression="SET item_processor_tokens = :new",
                    ConditionExpression=condition,
                    ExpressionAttributeValues={**values, ":new": _tokens(merged)},
                    ReturnValues="ALL_NEW",
                )
        except ConditionFailedError:
            continue
        return from_item(response["Attributes"])
    raise ItemContentionError(f"item {item_id} kept changing while adding a processor token")


def _update(user_id: str, item_id: str, values: Mapping[str, Any], *, guard_removed: bool) -> Item:
    """SET the non-``None`` values, REMOVE the ``None`` ones; the row must exist."""
    names = {f"#a{i}": name for i, name in enumerate(values)}
    sets = [f"{alias} = :v{i}" for i, (alias, name) in enumerate(names.items()) if values[name] is not None]
    removes = [alias for alias, name in names.items() if values[name] is None]
    expression = " ".join(
        part
        for part in (f"SET {', '.join(sets)}" if sets else "", f"REMOVE {', '.join(removes)}" if removes else "")
        if part
    )
    attribute_values: dict[str, Any] = {
        f":v{i}": values[name] for i, name in enumerate(values) if values[name] is not None
    }
    condition = "attribute_exists(PK)"
    if guard_removed:
        condition += " AND item_status <> :removed"
        attribute_values[":removed"] = ItemStatus.REMOVED.value
    request: dict[str, Any] = {
        "Key": keys.item_key(user_id, item_id),
        "UpdateExpression": expression,
        "ConditionExpression": condition,
        "ExpressionAttributeNames": names,
        "ReturnValues": "ALL_NEW",
    }
    if attribute_values:  # DynamoDB refuses an empty map (a REMOVE-only update)
        request["ExpressionAttributeValues"] = attribute_values
    try:
        with translated():
            response = tables.plaid().update_item(**request)
    except ConditionFailedError as exc:
        raise _why_refused(user_id, item_id, exc) from exc
    return from_item(response["Attributes"])


def _why_refused(user_id: str, item_id: str, exc: ConditionFailedError) -> DataError:
    """The precise error for a refused item update (one strongly consistent read)."""
    current = get_item(user_id, item_id)
    if current is None:
        return ItemNotFoundError(f"item {item_id} of user {user_id} not found")
    if current.status is ItemStatus.REMOVED:
        return ItemRemovedError(f"item {item_id} is removed")
    return exc


# --- reads ----------------------------------------------------------------------------


def get_item(user_id: str, item_id: str) -> Item | None:
    """One item (strongly consistent GetItem)."""
    with translated():
        row = tables.plaid().get_item(Key=keys.item_key(user_id, item_id), ConsistentRead=True).get("Item")
    return from_item(row) if row else None


def list_items(user_id: str) -> list[Item]:
    """Every item of a user, any status (one partition, strongly consistent, paginated)."""
    condition = Key("PK").eq(keys.users_pk(user_id)) & Key("SK").begins_with(keys.ITEMS_SK_PREFIX)
    rows = query_rows(tables.plaid(), entity=keys.ITEM, KeyConditionExpression=condition, ConsistentRead=True)
    return [from_item(row) for row in rows]


def get_item_by_id(item_id: str) -> Item | None:
    """The item with this id, whoever owns it (GSI1, eventually consistent).

    More than one row for an item id should never happen; when it does, a warning names
    the owners and the first row (lowest user id) is returned.
    """
    condition = Key("GSI1PK").eq(keys.item_gsi_pk(item_id))
    with translated():
        rows = tables.plaid().query(IndexName="GSI1", KeyConditionExpression=condition, Limit=10).get("Items", [])
    rows = [row for row in rows if row.get("type") == keys.ITEM]
    if len(rows) > 1:
        logger.warning(
            "more than one ITEM row for an item id",
            extra={"item_id": item_id, "user_ids": [str(r.get("user_id")) for r in rows]},
        )
    return from_item(rows[0]) if rows else None
