"""SUMMARY rows (seed 000): monthly spend totals at four granularities.

One partition per user, sorted ``DATE#<YYYY-MM>`` then optional ``#ACCOUNT#<id>`` and/or
``#CATEGORY#<id>``, so a month or a range of months is one Query and one row is one
GetItem. ``total_amount`` is integer cents (Decimal in DynamoDB) with its ``_string``
copy; the transaction ids counted in (``added_txn_ids``) and taken out
(``removed_txn_ids``) are string sets, omitted when empty (DynamoDB stores no empty set).

The seed's only writer is an undeployed batch job; :func:`put_summary` and
:func:`put_summaries` serve local seeding and tests. The API returns what was last written.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from boto3.dynamodb.conditions import Key

from chalicelib.aws.errors import translated
from chalicelib.data import keys, tables
from chalicelib.data.batch import put_items
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
    )


# --- writes (local seeding, tests) ----------------------------------------------------


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
