"""TRANSACTION rows: refined Plaid transactions, listed by four GSIs.

``txn_amount`` is integer cents, positive when money leaves the account. A removed
transaction keeps its row (point reads still return it) but every GSI sort key gains the
``REMOVED#`` prefix, so ``begins_with DATE#`` listings skip it.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import date, datetime
from enum import StrEnum
from typing import Any

from boto3.dynamodb.conditions import Key

from chalicelib.aws.errors import translated
from chalicelib.data import contributions, keys, ownership, summary_writes, tables
from chalicelib.data.batch import put_items
from chalicelib.data.contributions import Contribution
from chalicelib.data.money import dollars_to_cents, from_dynamo
from chalicelib.data.query import projection, query_rows
from chalicelib.data.ttl import transaction_ttl, utcnow
from chalicelib.errors import ValidationError
from chalicelib.settings import get_settings

#: Category used in GSI2/GSI4 keys when Plaid gives none.
UNCATEGORIZED = "UNCATEGORIZED"
GSI_NUMBERS = (1, 2, 3, 4)


@dataclass(frozen=True)
class Transaction:
    user_id: str
    acct_id: str
    txn_id: str
    amount: int  # cents; positive = money leaving the account
    txn_date: date
    name: str = ""
    pending: bool = False
    category_id: str = UNCATEGORIZED
    category: tuple[str, ...] = ()
    authorized_date: date | None = None
    authorized_datetime: str | None = None
    merchant_name: str | None = None
    original_description: str | None = None
    pending_transaction_id: str | None = None
    personal_finance_category: Mapping[str, Any] | None = None
    iso_currency_code: str | None = None
    merchant_logo_url: str | None = None
    merchant_website: str | None = None
    removed: bool = False
    #: The Plaid item it came from (rows written before owners were recorded have none).
    item_id: str | None = None


def transaction_item(txn: Transaction, now: datetime, contribution: Contribution | None = None) -> dict[str, Any]:
    """The row for ``txn`` (pure). Optional attributes are omitted when empty.

    ``contribution`` is what the row records it contributes to the monthly summaries
    (:mod:`chalicelib.data.contributions`); None records nothing.
    """
    item: dict[str, Any] = {
        **keys.transaction_key(txn.txn_id),
        **keys.transaction_gsi_keys(txn.user_id, txn.acct_id, txn.category_id, txn.txn_date.isoformat(), txn.txn_id),
        "type": keys.TRANSACTION,
        "user_id": txn.user_id,
        "acct_id": txn.acct_id,
        "txn_id": txn.txn_id,
        "txn_amount": txn.amount,
        "txn_date": txn.txn_date.isoformat(),
        "txn_pending": txn.pending,
        "txn_category_id": txn.category_id,
        "ttl": transaction_ttl(txn.txn_date, now),
    }
    optional: dict[str, Any] = {
        "txn_name": txn.name,
        "txn_authorized_date": txn.authorized_date.isoformat() if txn.authorized_date else None,
        "txn_authorized_datetime": txn.authorized_datetime,
        "txn_merchant_name": txn.merchant_name,
        "txn_original_description": txn.original_description,
        "txn_pending_transaction_id": txn.pending_transaction_id,
        "txn_category": list(txn.category) if txn.category else None,
        "txn_personal_finance_category": dict(txn.personal_finance_category) if txn.personal_finance_category else None,
        "txn_iso_cc": txn.iso_currency_code,
        "merchant_logo_url": txn.merchant_logo_url,
        "merchant_website": txn.merchant_website,
        "item_id": txn.item_id,
    }
    item.update({k: v for k, v in optional.items() if v not in (None, "", [], {})})
    if txn.removed:
        item.update(_removed_keys(item))
        item["txn_removed"] = True
    if contribution is not None:
        item[contributions.ATTRIBUTE] = contributions.to_attribute(contribution)
    return item


def _removed_keys(item: Mapping[str, Any]) -> dict[str, str]:
    return {f"GSI{n}SK": keys.removed(str(item[f"GSI{n}SK"])) for n in GSI_NUMBERS if f"GSI{n}SK" in item}


def amount_from_item(item: Mapping[str, Any]) -> int:
    """Stored cents, corrected by ``txn_amount_string`` on legacy rows.

    Rows written before 07/24 may hold a wrong ``txn_amount`` for negative amounts (money
    coming in); those rows carry ``txn_amount_string`` (dollars), which wins when it says
    the amount is negative.
    """
    amount = from_dynamo(item["txn_amount"])
    legacy = item.get("txn_amount_string")
    if legacy is None:
        return amount
    try:
        corrected = dollars_to_cents(legacy)
    except ValidationError:
        return amount
    return corrected if corrected < 0 else amount


def acct_id_of(item: Mapping[str, Any]) -> str:
    """A stored row's account (from its GSI3 key when the row does not repeat it)."""
    return str(item.get("acct_id") or keys.key_part(item.get("GSI3PK"), "ACCOUNT"))


def txn_id_of(item: Mapping[str, Any]) -> str:
    """A stored row's transaction id (from its key when the row does not repeat it)."""
    return str(item.get("txn_id") or keys.key_part(item.get("PK"), "TXN"))


def txn_date_of(item: Mapping[str, Any]) -> date:
    """A stored row's date (from its GSI1 sort key when the row does not repeat it)."""
    return date.fromisoformat(str(item.get("txn_date") or keys.key_part(item.get("GSI1SK"), "DATE")))


def authorized_date_of(item: Mapping[str, Any]) -> date | None:
    authorized = item.get("txn_authorized_date")
    return date.fromisoformat(str(authorized)) if authorized else None


def from_item(item: Mapping[str, Any]) -> Transaction:
    """A stored row; identifiers a row does not repeat as attributes come from its keys."""
    return Transaction(
        user_id=str(item.get("user_id") or keys.key_part(item.get("GSI1PK"), "ACCOUNTS")),
        acct_id=acct_id_of(item),
        txn_id=txn_id_of(item),
        amount=amount_from_item(item),
        txn_date=txn_date_of(item),
        name=str(item.get("txn_name", "")),
        pending=bool(item.get("txn_pending", False)),
        category_id=str(item.get("txn_category_id", UNCATEGORIZED)),
        category=tuple(item.get("txn_category", ())),
        authorized_date=authorized_date_of(item),
        authorized_datetime=item.get("txn_authorized_datetime"),
        merchant_name=item.get("txn_merchant_name"),
        original_description=item.get("txn_original_description"),
        pending_transaction_id=item.get("txn_pending_transaction_id"),
        personal_finance_category=item.get("txn_personal_finance_category"),
        iso_currency_code=item.get("txn_iso_cc"),
        merchant_logo_url=item.get("merchant_logo_url"),
        merchant_website=item.get("merchant_website"),
        removed=bool(item.get("txn_removed", False)),
        item_id=item.get("item_id"),
    )


# --- writes ---------------------------------------------------------------------------


def put_transaction_items(items: Iterable[dict[str, Any]]) -> int:
    """Batch-write prepared rows (a repeated txn_id is written once); returns rows written."""
    return put_items(tables.transactions().name, items, ("PK", "SK"))


def write_transactions(txns: Iterable[Transaction], stored: Mapping[str, Mapping[str, Any]], now: datetime) -> int:
    """Write refined transactions, moving the summaries of every row whose contribution changes.

    ``stored`` holds the rows already stored for these ids, read strongly consistent by
    :func:`chalicelib.data.ownership.stored_owners` (which also checked their owners). A row
    whose write moves no summary (its contribution stays what it records, or is a final
    month's), and whose stored content agrees with that record, is batch-written like any
    other row: no other writer touches such a row (a removal of the same item comes through
    the same ordered stream; the backfill only writes rows whose record disagrees with their
    content in an open month). Any other row is written conditioned on its record, together
    with its summary difference (:func:`chalicelib.data.summary_writes.apply`). With
    summaries off, every row is batch-written keeping the contribution it records. Returns
    rows written.
    """
    unique = {t.txn_id: t for t in txns}
    enabled = get_settings().summaries_enabled
    first_open = contributions.first_open_month(now)
    plain: list[dict[str, Any]] = []
    changes: list[summary_writes.RowChange] = []
    for txn in unique.values():
        row = stored.get(txn.txn_id)
        recorded = contributions.recorded(row) if row else None
        desired = contributions.of_transaction(txn)
        if not enabled:
            plain.append(transaction_item(txn, now, recorded))
        elif contributions.deltas(txn.txn_id, recorded, desired, first_open) or _record_disagrees(
            row, recorded, first_open
        ):
            changes.append(_put_change(txn, recorded, now))
        else:  # no summary moves (same contribution, or a final month's): nothing to guard
            plain.append(transaction_item(txn, now, desired))
    return put_transaction_items(plain) + summary_writes.apply(changes, now)


def _record_disagrees(row: Mapping[str, Any] | None, recorded: Contribution | None, first_open: str) -> bool:
    """Whether a stored row records, for an open month, another contribution than its content makes
    (a row written with summaries off, or before them: the backfill may be rewriting its record)."""
    if row is None:
        return False
    content = contributions.of_transaction(from_item(row))
    return contributions.effective(content, first_open) != contributions.effective(recorded, first_open)


def _put_change(txn: Transaction, recorded: Contribution | None, now: datetime) -> summary_writes.RowChange:
    """The row write of ``txn``, conditioned on the row recording ``recorded`` and being its user's."""
    desired = contributions.of_transaction(txn)
    values: dict[str, Any] = {":user": txn.user_id}
    if recorded is None:
        condition = "attribute_not_exists(#contribution) AND (attribute_not_exists(PK) OR user_id = :user)"
    else:
        condition = "#contribution = :recorded AND user_id = :user"
        values[":recorded"] = contributions.to_attribute(recorded)
    action = {
        "Put": {
            "TableName": tables.transactions_name(),
            "Item": transaction_item(txn, now, desired),
            "ConditionExpression": condition,
            "ExpressionAttributeNames": {"#contribution": contributions.ATTRIBUTE},
            "ExpressionAttributeValues": values,
        }
    }
    return summary_writes.RowChange(
        txn.txn_id, txn.user_id, recorded, desired, action, reload=lambda: _reloaded_put(txn, now)
    )


def _reloaded_put(txn: Transaction, now: datetime) -> summary_writes.RowChange | None:
    """The write of ``txn`` planned again from its row as it is now (None: another owner's row)."""
    with translated():
        row = (
            tables.transactions()
            .get_item(
                Key=keys.transaction_key(txn.txn_id),
                ConsistentRead=True,
                ProjectionExpression="user_id, item_id, #contribution",
                ExpressionAttributeNames={"#contribution": contributions.ATTRIBUTE},
            )
            .get("Item")
        )
    if row is not None and not ownership.owner_of(row).admits(txn.user_id, txn.item_id or str(row.get("item_id"))):
        ownership.report_mismatch(
            "transaction", "write", txn.txn_id, txn.user_id, txn.item_id or "", ownership.owner_of(row)
        )
        return None
    return _put_change(txn, contributions.recorded(row) if row else None, now)


class SoftDelete(StrEnum):
    """What a removal did to a transaction row."""

    REMOVED = "removed"
    MISSING = "missing"  # no row yet: the tombstone waits for it
    NOT_OWNER = "not_owner"  # the row is another user's or item's: left alone


def soft_delete(txn_id: str, user_id: str, item_id: str, now: datetime | None = None) -> SoftDelete:
    """Mark one transaction of ``user_id``'s ``item_id`` removed; another owner's row is left alone.

    The GSI sort keys derive from the row's date, read first; the write is conditioned on
    that date, on the owner read and on the summary contribution the row records, so a
    concurrent rewrite makes it retry, never corrupt keys or cross owners. A removed row
    contributes nothing: what it recorded leaves its summaries in the same write
    (:mod:`chalicelib.data.summary_writes`). A row without ``item_id`` (written before owners
    were recorded) belongs to the item its account row names; when that is unknown too, the
    user decides.
    """
    return soft_delete_rows({txn_id: None}, user_id, item_id, now)[txn_id]


def soft_delete_rows(
    rows: Mapping[str, Mapping[str, Any] | None], user_id: str, item_id: str, now: datetime | None = None
) -> dict[str, SoftDelete]:
    """:func:`soft_delete` for several ids at once, their summary moves packed together.

    ``rows`` maps each id to its row as just read strongly consistent (with ``txn_date``,
    ``user_id``, ``item_id``, ``acct_id`` and the recorded contribution, as
    :func:`chalicelib.data.ownership.stored_owners` reads them), or to None to read it here.
    A row that changed since is read again and its removal planned anew.
    """
    now = now or utcnow()
    outcomes: dict[str, SoftDelete] = {}

    def plan(txn_id: str, row: Mapping[str, Any] | None) -> summary_writes.RowChange | None:
        planned = _removal(txn_id, row if row is not None else _removal_row(txn_id), user_id, item_id)
        if isinstance(planned, SoftDelete):
            outcomes[txn_id] = planned
            return None
        outcomes[txn_id] = SoftDelete.REMOVED
        return replace(planned, reload=lambda: plan(txn_id, None))

    changes = [change for txn_id, row in rows.items() if (change := plan(txn_id, row)) is not None]
    summary_writes.apply(changes, now)
    return outcomes


def _removal_row(txn_id: str) -> dict[str, Any] | None:
    with translated():
        return (
            tables.transactions()
            .get_item(
                Key=keys.transaction_key(txn_id),
                ConsistentRead=True,
                ProjectionExpression="txn_date, user_id, item_id, acct_id, #contribution",
                ExpressionAttributeNames={"#contribution": contributions.ATTRIBUTE},
            )
            .get("Item")
        )


def _removal(
    txn_id: str, item: Mapping[str, Any] | None, user_id: str, item_id: str
) -> SoftDelete | summary_writes.RowChange:
    """The soft delete of ``item`` (the row as read), or why there is none to make."""
    names = {"#contribution": contributions.ATTRIBUTE}
    if item is None:
        return SoftDelete.MISSING
    if not _owned_by(item, user_id, item_id):
        return SoftDelete.NOT_OWNER
    txn_date = str(item["txn_date"])
    recorded = contributions.recorded(item)
    removed_sk = keys.removed(keys.transaction_date_sk(txn_date, txn_id))
    condition = "attribute_exists(PK) AND txn_date = :d AND user_id = :u AND "
    condition += "item_id = :i" if item.get("item_id") else "attribute_not_exists(item_id)"
    values: dict[str, Any] = {":t": True, ":sk": removed_sk, ":d": txn_date, ":u": user_id}
    if item.get("item_id"):
        values[":i"] = item_id
    if recorded is None:
        condition += " AND attribute_not_exists(#contribution)"
    else:
        condition += " AND #contribution = :recorded"
        values[":recorded"] = contributions.to_attribute(recorded)
    expression = "SET txn_removed = :t, " + ", ".join(f"GSI{n}SK = :sk" for n in GSI_NUMBERS)
    enabled = get_settings().summaries_enabled
    if enabled and recorded is not None:  # with summaries off the row keeps what the summaries hold
        expression += " REMOVE #contribution"
    update = {
        "TableName": tables.transactions_name(),
        "Key": keys.transaction_key(txn_id),
        "UpdateExpression": expression,
        "ConditionExpression": condition,
        "ExpressionAttributeNames": names,
        "ExpressionAttributeValues": values,
    }
    return summary_writes.RowChange(txn_id, user_id, recorded, None if enabled else recorded, {"Update": update})


def _owned_by(row: Mapping[str, Any], user_id: str, item_id: str) -> bool:
    if row.get("user_id") != user_id:
        return False
    if row.get("item_id"):
        return bool(row["item_id"] == item_id)
    if not row.get("acct_id"):
        return True
    with translated():
        account = (
            tables.transactions()
            .get_item(Key=keys.account_key(user_id, str(row.get("acct_id", ""))), ProjectionExpression="item_id")
            .get("Item")
        )
    return not account or account.get("item_id") in (None, "", item_id)


# --- reads ----------------------------------------------------------------------------


def get_transaction(txn_id: str) -> Transaction | None:
    """Point read by id (strongly consistent); removed rows are returned too."""
    with translated():
        item = tables.transactions().get_item(Key=keys.transaction_key(txn_id), ConsistentRead=True).get("Item")
    return from_item(item) if item else None


@dataclass(frozen=True)
class Page:
    transactions: list[Transaction]
    cursor: str | None


def list_transactions(
    user_id: str,
    *,
    acct_id: str | None = None,
    category_id: str | None = None,
    start: date | None = None,
    end: date | None = None,
    limit: int = 100,
    cursor: str | None = None,
) -> Page:
    """A user's live transactions, newest first, from the GSI that fits the filters.

    GSIs are eventually consistent: a row written a moment ago may not be listed yet.
    The cursor is opaque and only positions within this user's own query.
    """
    index, pk = _index_for(user_id, acct_id, category_id)
    condition = Key(f"{index}PK").eq(pk) & _date_condition(f"{index}SK", start, end)
    kwargs: dict[str, Any] = {
        "IndexName": index,
        "KeyConditionExpression": condition,
        "ScanIndexForward": False,
        "Limit": limit,
    }
    if cursor:
        kwargs["ExclusiveStartKey"] = _start_key(cursor, index, pk)
    with translated():
        response = tables.transactions().query(**kwargs)
    rows = [from_item(i) for i in response.get("Items", [])]
    more = "LastEvaluatedKey" in response and rows
    return Page(rows, encode_cursor(rows[-1].txn_date.isoformat(), rows[-1].txn_id) if more else None)


def soft_deleted_transactions(user_id: str) -> list[Transaction]:
    """The user's soft-deleted rows still retained, oldest first: one GSI1 Query of the
    ``REMOVED#`` sort-key range, paginated to the end. Eventually consistent. (The live rows
    the insight service reads: :func:`user_transactions_between`.)
    """
    condition = Key("GSI1PK").eq(keys.user_transactions_pk(user_id)) & Key("GSI1SK").begins_with(
        keys.removed(keys.DATE_PREFIX)
    )
    rows = query_rows(
        tables.transactions(), entity=keys.TRANSACTION, IndexName="GSI1", KeyConditionExpression=condition
    )
    return [from_item(row) for row in rows]


def _index_for(user_id: str, acct_id: str | None, category_id: str | None) -> tuple[str, str]:
    if acct_id and category_id:
        return "GSI4", keys.account_category_transactions_pk(user_id, acct_id, category_id)
    if acct_id:
        return "GSI3", keys.account_transactions_pk(user_id, acct_id)
    if category_id:
        return "GSI2", keys.user_category_transactions_pk(user_id, category_id)
    return "GSI1", keys.user_transactions_pk(user_id)


def _date_condition(sk: str, start: date | None, end: date | None) -> Any:
    # Sort keys are DATE#<YYYY-MM-DD>#TXN#<id>; '~' sorts after every id character.
    low = keys.DATE_PREFIX + (start.isoformat() if start else "")
    if end is None:
        return Key(sk).begins_with(keys.DATE_PREFIX) if start is None else Key(sk).between(low, keys.DATE_PREFIX + "~")
    return Key(sk).between(low, keys.DATE_PREFIX + end.isoformat() + keys.SEP + "~")


def encode_cursor(txn_date: str, txn_id: str) -> str:
    """An opaque position: the last row's date and id, never a raw DynamoDB key."""
    return base64.urlsafe_b64encode(json.dumps([txn_date, txn_id]).encode()).decode().rstrip("=")


def _start_key(cursor: str, index: str, pk: str) -> dict[str, str]:
    """The ExclusiveStartKey for ``cursor`` within this query's own partition."""
    try:
        txn_date, txn_id = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        date.fromisoformat(txn_date)
        txn_key = keys.transaction_key(txn_id)
        sort_key = keys.transaction_date_sk(txn_date, txn_id)
    except (ValueError, TypeError) as exc:
        raise ValidationError("invalid cursor") from exc
    return {**txn_key, f"{index}PK": pk, f"{index}SK": sort_key}


#: What the insight models read of a transaction (:func:`chalicelib.insight.history.api_shape`,
#: the item a row belongs to) and the keys :func:`from_item` falls back to for identifiers a row
#: does not repeat: a projection that halves the bytes a history read parses. Other fields of
#: rows read with it are their defaults.
MODEL_FIELDS = (
    "PK",
    "GSI1PK",
    "GSI1SK",
    "GSI3PK",
    "type",
    "user_id",
    "acct_id",
    "item_id",
    "txn_id",
    "txn_amount",
    "txn_amount_string",
    "txn_date",
    "txn_authorized_date",
    "txn_name",
    "txn_merchant_name",
    "txn_pending",
    "txn_category",
    "txn_personal_finance_category",
    "txn_iso_cc",
)


#: What the models read of rows that name themselves (:func:`names_itself`): :data:`MODEL_FIELDS`
#: without the keys and the owner, a third of a row's bytes, which the read parses for nothing.
MODEL_VALUE_FIELDS = tuple(f for f in MODEL_FIELDS if f not in ("PK", "GSI1PK", "GSI1SK", "GSI3PK", "user_id"))


def names_itself(row: Mapping[str, Any]) -> bool:
    """The row holds its transaction id, account and date as attributes, as the refiner writes
    every row (a row of the system this service replaced may hold them only in its keys)."""
    return bool(row.get("txn_id") and row.get("acct_id") and row.get("txn_date"))


def user_transactions_between(
    user_id: str, start: date, end: date, *, fields: Iterable[str] | None = None
) -> list[Transaction]:
    """Every live transaction of the user dated ``start`` to ``end`` (inclusive), oldest first.

    One GSI1 Query followed to its last page (the index ``list_transactions`` reads without
    filters, eventually consistent); soft-deleted rows are not listed (their sort keys carry
    the ``REMOVED#`` prefix). What the insight models read as a user's history. ``fields``:
    only these attributes are returned (e.g. :data:`MODEL_FIELDS`); the read costs the same
    units, the response parses faster.
    """
    return [from_item(row) for row in user_transaction_items_between(user_id, start, end, fields=fields)]


def user_transaction_items_between(
    user_id: str, start: date, end: date, *, fields: Iterable[str] | None = None
) -> list[dict[str, Any]]:
    """:func:`user_transactions_between`'s rows as stored (a reader that makes its own values
    of them: the forecast's models, :func:`chalicelib.insight.history.model_txns`)."""
    condition = Key("GSI1PK").eq(keys.user_transactions_pk(user_id)) & _date_condition("GSI1SK", start, end)
    return query_rows(
        tables.transactions(),
        entity=keys.TRANSACTION,
        IndexName="GSI1",
        KeyConditionExpression=condition,
        **(projection(fields) if fields is not None else {}),
    )


def user_transaction_rows(user_id: str) -> list[dict[str, Any]]:
    """Every stored TRANSACTION row of a user, removed ones included, as stored (GSI1, eventual).

    The partition alone, without a sort-key condition, also returns the ``REMOVED#`` keys:
    what the summary backfill and check read.
    """
    return query_rows(
        tables.transactions(),
        entity=keys.TRANSACTION,
        IndexName="GSI1",
        KeyConditionExpression=Key("GSI1PK").eq(keys.user_transactions_pk(user_id)),
    )


def reconcile_change(row: Mapping[str, Any], first_open: str) -> summary_writes.RowChange | None:
    """Make a stored row record what its content contributes, moving its summaries (None: nothing to do).

    For rows whose record disagrees with their content: rows stored before summaries existed
    or written while they were off. Only the record changes, never the content, and only while
    the content is as read. Rows of closed months are left as they are (their summaries are final).
    """
    txn = from_item(row)
    recorded, desired = contributions.recorded(row), contributions.of_transaction(txn)
    if desired == recorded or (
        contributions.effective(desired, first_open) is None and contributions.effective(recorded, first_open) is None
    ):
        return None
    names = {"#contribution": contributions.ATTRIBUTE}
    values: dict[str, Any] = {}
    terms = ["attribute_not_exists(#contribution)" if recorded is None else "#contribution = :recorded"]
    if recorded is not None:
        values[":recorded"] = contributions.to_attribute(recorded)
    for n, name in enumerate(contributions.SOURCE_ATTRIBUTES):
        names[f"#a{n}"] = name
        if name in row:
            terms.append(f"#a{n} = :a{n}")
            values[f":a{n}"] = row[name]
        else:
            terms.append(f"attribute_not_exists(#a{n})")
    update: dict[str, Any] = {
        "TableName": tables.transactions_name(),
        "Key": keys.transaction_key(txn.txn_id),
        "ConditionExpression": "attribute_exists(PK) AND " + " AND ".join(terms),
        "ExpressionAttributeNames": names,
    }
    if desired is None:
        update["UpdateExpression"] = "REMOVE #contribution"
    else:
        update["UpdateExpression"] = "SET #contribution = :desired"
        values[":desired"] = contributions.to_attribute(desired)
    if values:
        update["ExpressionAttributeValues"] = values
    return summary_writes.RowChange(
        txn.txn_id,
        txn.user_id,
        recorded,
        desired,
        {"Update": update},
        reload=lambda: _reloaded_row(txn.txn_id, first_open),
    )


def _reloaded_row(txn_id: str, first_open: str) -> summary_writes.RowChange | None:
    with translated():
        row = tables.transactions().get_item(Key=keys.transaction_key(txn_id), ConsistentRead=True).get("Item")
    return reconcile_change(row, first_open) if row else None
