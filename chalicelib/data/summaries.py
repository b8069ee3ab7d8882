"""SUMMARY rows: monthly spend totals at four granularities.

One partition per user, sorted ``DATE#<YYYY-MM>`` then optional ``#ACCOUNT#<id>`` and/or
``#CATEGORY#<id>``, so a month or a range of months is one Query and one row is one
GetItem. Amounts are integer cents (Decimal in DynamoDB): ``outflow_amount`` (money out)
and ``inflow_amount`` (money in) of the posted transactions counted, ``total_amount`` their
difference (positive = money spent) and ``txn_count`` how many were counted. The ids counted
in (``added_txn_ids``) and taken out (``removed_txn_ids``) are string sets, omitted when
empty (DynamoDB stores no empty set) and listing at most ``SUMMARY_ID_LIMIT`` ids each.

The refiner keeps the rows current through :func:`summary_update` (see
:mod:`chalicelib.data.summary_writes`); rows have no ``ttl``: they outlive the transactions.
Rows written by the system this service took over carry only ``total_amount`` (with its
``_string`` copy) and are read as they are. :func:`put_summary` and :func:`put_summaries`
overwrite rows for local seeding and tests.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from boto3.dynamodb.conditions import Key

from chalicelib.aws.errors import translated
from chalicelib.data import keys, tables
from chalicelib.data.batch import put_items
from chalicelib.data.contributions import SummaryDelta, SummaryKey
from chalicelib.data.money import cents_to_string, from_dynamo
from chalicelib.data.query import query_rows
from chalicelib.data.ttl import iso_timestamp
from chalicelib.errors import ValidationError

_MONTH = re.compile(r"^\d{4}-(0[1-9]|1[0-2])$")


class Granularity(StrEnum):
    MONTH = "MONTH"
    ACCOUNT = "ACCOUNT"
    ACCOUNT_CATEGORY = "ACCOUNT_CATEGORY"
    CATEGORY = "CATEGORY"


@dataclass(frozen=True)
class Summary:
    user_id: str
    month: str  # YYYY-MM
    total_amount: int  # cents; positive = money spent
    acct_id: str | None = None
    category_id: str | None = None
    added_txn_ids: frozenset[str] = field(default_factory=frozenset)
    removed_txn_ids: frozenset[str] = field(default_factory=frozenset)
    updated_at: str | None = None
    #: Money out and in, and transactions counted; None on rows of the previous writer.
    outflow_amount: int | None = None
    inflow_amount: int | None = None
    txn_count: int | None = None

    @property
    def granularity(self) -> Granularity:
        if self.acct_id and self.category_id:
            return Granularity.ACCOUNT_CATEGORY
        if self.acct_id:
            return Granularity.ACCOUNT
        if self.category_id:
            return Granularity.CATEGORY
        return Granularity.MONTH


def check_month(month: str) -> str:
    if not _MONTH.match(month):
        raise ValidationError(f"not a YYYY-MM month: {month!r}")
    return month


def summary_item(summary: Summary, now: datetime) -> dict[str, Any]:
    """The row for ``summary`` (pure)."""
    month = check_month(summary.month)
    item: dict[str, Any] = {
        "PK": keys.summary_pk(summary.user_id),
        "SK": keys.summary_sk(month, summary.acct_id, summary.category_id),
        "type": keys.SUMMARY,
        "user_id": summary.user_id,
        "month": month,
        "total_amount": summary.total_amount,
        "total_amount_string": cents_to_string(summary.total_amount),
        "updated_at": summary.updated_at or iso_timestamp(now),
    }
    optional: dict[str, Any] = {
        "acct_id": summary.acct_id,
        "category_id": summary.category_id,
        "added_txn_ids": set(summary.added_txn_ids),
        "removed_txn_ids": set(summary.removed_txn_ids),
    }
    item.update({k: v for k, v in optional.items() if v})
    counted = {"outflow_amount": summary.outflow_amount, "inflow_amount": summary.inflow_amount}
    counted["txn_count"] = summary.txn_count
    item.update({k: v for k, v in counted.items() if v is not None})
    return item


def from_item(item: Mapping[str, Any]) -> Summary:
    """A stored row; user, month, account and category come from the keys when not attributes."""
    sk = item.get("SK")
    return Summary(
        user_id=str(item.get("user_id") or keys.key_part(item.get("PK"), "SUMMARY")),
        month=str(item.get("month") or keys.key_part(sk, "DATE")),
        total_amount=from_dynamo(item["total_amount"]),
        acct_id=item.get("acct_id") or keys.key_part(sk, "ACCOUNT"),
        category_id=item.get("category_id") or keys.key_part(sk, "CATEGORY"),
        added_txn_ids=frozenset(item.get("added_txn_ids", ())),
        removed_txn_ids=frozenset(item.get("removed_txn_ids", ())),
        updated_at=item.get("updated_at"),
        outflow_amount=_cents(item.get("outflow_amount")),
        inflow_amount=_cents(item.get("inflow_amount")),
        txn_count=_cents(item.get("txn_count")),
    )


def _cents(value: object) -> int | None:
    return None if value is None else from_dynamo(value)


def summary_key(user_id: str, key: SummaryKey) -> dict[str, str]:
    return {"PK": keys.summary_pk(user_id), "SK": keys.summary_sk(key.month, key.acct_id, key.category_id)}


# --- live updates ---------------------------------------------------------------------


def summary_update(
    user_id: str,
    key: SummaryKey,
    delta: SummaryDelta,
    now: datetime,
    *,
    listed_in: Collection[str],
    listed_out: Collection[str],
    id_limit: int,
) -> dict[str, Any]:
    """The TransactWriteItems ``Update`` that applies ``delta`` to one row (pure).

    Amounts and the count are ADDed, so updates of one row commute. Ids entering the row
    leave ``removed_txn_ids`` and the listed ones (``listed_in``) join ``added_txn_ids``;
    ids leaving do the reverse. One update moves ids in one direction only (an attribute
    may appear once in an update expression). A set grows only on condition that it
    stays within ``id_limit``: a failed condition tells the writer the set is full.
    """
    if delta.entering and delta.leaving:
        raise ValueError("one summary update moves ids in one direction only")
    names = {"#type": "type", "#month": "month"}
    values: dict[str, Any] = {
        ":type": keys.SUMMARY,
        ":user": user_id,
        ":month": check_month(key.month),
        ":now": iso_timestamp(now),
        ":outflow": delta.outflow,
        ":inflow": delta.inflow,
        ":total": delta.total,
        ":count": delta.count,
    }
    sets = ["#type = :type", "user_id = :user", "#month = :month", "updated_at = :now"]
    if key.acct_id is not None:
        sets.append("acct_id = :acct")
        values[":acct"] = key.acct_id
    if key.category_id is not None:
        sets.append("category_id = :category")
        values[":category"] = key.category_id
    adds = ["outflow_amount :outflow", "inflow_amount :inflow", "total_amount :total", "txn_count :count"]
    deletes: list[str] = []
    conditions: list[str] = []
    for moving, listed, into, out_of in (
        (delta.entering, listed_in, "added_txn_ids", "removed_txn_ids"),
        (delta.leaving, listed_out, "removed_txn_ids", "added_txn_ids"),
    ):
        if not moving:
            continue
        deletes.append(f"{out_of} :moving")
        values[":moving"] = set(moving)
        if listed:
            adds.append(f"{into} :listed")
            values[":listed"] = set(listed)
            conditions.append(f"(attribute_not_exists({into}) OR size({into}) <= :room)")
            values[":room"] = id_limit - len(listed)
    expression = "SET " + ", ".join(sets) + " REMOVE total_amount_string ADD " + ", ".join(adds)
    if deletes:
        expression += " DELETE " + ", ".join(deletes)
    update: dict[str, Any] = {
        "TableName": tables.transactions_name(),
        "Key": summary_key(user_id, key),
        "UpdateExpression": expression,
        "ExpressionAttributeNames": names,
        "ExpressionAttributeValues": values,
    }
    if conditions:
        update["ConditionExpression"] = " AND ".join(conditions)
    return {"Update": update}


def listed_id_counts(user_id: str, key: SummaryKey) -> tuple[int, int]:
    """How many ids a row lists in ``added_txn_ids`` and ``removed_txn_ids`` (strongly consistent)."""
    with translated():
        item = (
            tables.transactions()
            .get_item(
                Key=summary_key(user_id, key),
                ConsistentRead=True,
                ProjectionExpression="added_txn_ids, removed_txn_ids",
            )
            .get("Item")
        )
    row: Mapping[str, Any] = item or {}
    return len(row.get("added_txn_ids") or ()), len(row.get("removed_txn_ids") or ())


# --- overwrites (local seeding, tests) ------------------------------------------------


def put_summary(summary: Summary, now: datetime) -> None:
    """Overwrite one summary row."""
    with translated():
        tables.transactions().put_item(Item=summary_item(summary, now))


def put_summaries(summaries: Iterable[Summary], now: datetime) -> int:
    """Batch-overwrite summary rows; returns rows written."""
    return put_items(tables.transactions().name, (summary_item(s, now) for s in summaries), ("PK", "SK"))


# --- reads ----------------------------------------------------------------------------


def get_summary(user_id: str, month: str, acct_id: str | None = None, category_id: str | None = None) -> Summary | None:
    """One row at the granularity the arguments name (strongly consistent GetItem)."""
    key = {"PK": keys.summary_pk(user_id), "SK": keys.summary_sk(check_month(month), acct_id, category_id)}
    with translated():
        item = tables.transactions().get_item(Key=key, ConsistentRead=True).get("Item")
    return from_item(item) if item else None


def list_summaries(
    user_id: str,
    start_month: str,
    end_month: str,
    *,
    granularity: Granularity | None = None,
    acct_id: str | None = None,
    category_id: str | None = None,
) -> list[Summary]:
    """Rows of the months ``start..end`` (inclusive) in key order, optionally narrowed.

    One Query (``BETWEEN``) reads every granularity of the range; the narrowing happens
    here, so a range costs what the user's rows for those months weigh.
    """
    low, high = keys.summary_month_range(check_month(start_month), check_month(end_month))
    condition = Key("PK").eq(keys.summary_pk(user_id)) & Key("SK").between(low, high)
    rows = query_rows(tables.transactions(), entity=keys.SUMMARY, KeyConditionExpression=condition, ConsistentRead=True)
    found = [from_item(row) for row in rows]
    return [
        s
        for s in found
        if (granularity is None or s.granularity == granularity)
        and (acct_id is None or s.acct_id == acct_id)
        and (category_id is None or s.category_id == category_id)
    ]


def month_summaries(user_id: str, month: str, granularity: Granularity | None = None) -> list[Summary]:
    """Every row of one month (all four granularities unless narrowed)."""
    return list_summaries(user_id, month, month, granularity=granularity)
