"""``balance`` rows (``USERS#<user_id>`` / ``SAVINGS_MONTH#<YYYY-MM>``): savings progress.

One row per user per calendar month, kept current from new balances: ``accounts`` (each
savings account's ``account_id``, ``amount`` in cents and ``subtype``), ``total_available``
(cents) and ``updated_date``. Each amount keeps a ``_string`` copy in dollars like every stored
balance. A write only replaces a row with an older or equal ``updated_date``, so snapshots
delivered out of order converge on the newest. ``ttl`` is one year after ``updated_date``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from boto3.dynamodb.conditions import Key

from chalicelib.aws.errors import translated
from chalicelib.data.money import cents_to_string
from chalicelib.data.money import from_dynamo as cents_from_dynamo
from chalicelib.data.query import query_rows
from chalicelib.data.ttl import iso_timestamp
from chalicelib.errors import ConditionFailedError, ValidationError
from chalicelib.insight.data import keys, tables
from chalicelib.insight.data.ttl import savings_month_ttl
from chalicelib.insight.data.values import parse_timestamp


@dataclass(frozen=True)
class SavingsAccount:
    account_id: str
    #: Cents.
    amount: int
    subtype: str | None


@dataclass(frozen=True)
class SavingsMonth:
    user_id: str
    #: ``YYYY-MM``.
    month: str
    accounts: tuple[SavingsAccount, ...]
    #: Cents.
    total_available: int
    updated_date: datetime


def savings_month_item(month: SavingsMonth) -> dict[str, Any]:
    """The row for ``month`` (pure)."""
    return {
        **keys.savings_month_key(month.user_id, month.month),
        "type": keys.BALANCE,
        "user_id": month.user_id,
        "month": month.month,
        "accounts": [
            {
                "account_id": a.account_id,
                "amount": a.amount,
                "amount_string": cents_to_string(a.amount),
                "subtype": a.subtype,
            }
            for a in month.accounts
        ],
        "total_available": month.total_available,
        "total_available_string": cents_to_string(month.total_available),
        "updated_date": iso_timestamp(month.updated_date),
        "ttl": savings_month_ttl(month.updated_date),
    }


def from_item(row: Mapping[str, Any]) -> SavingsMonth:
    return SavingsMonth(
        user_id=str(row["user_id"]),
        month=str(row["month"]),
        accounts=tuple(
            SavingsAccount(str(a["account_id"]), cents_from_dynamo(a["amount"]), a.get("subtype"))
            for a in row.get("accounts", [])
        ),
        total_available=cents_from_dynamo(row["total_available"]),
        updated_date=parse_timestamp(row["updated_date"]),
    )


def put_savings_month(month: SavingsMonth) -> bool:
    """Write the month's snapshot; ``False`` if a newer snapshot of that month is already stored."""
    try:
        with translated():
            tables.pave().put_item(
                Item=savings_month_item(month),
                ConditionExpression="attribute_not_exists(PK) OR updated_date <= :updated",
                ExpressionAttributeValues={":updated": iso_timestamp(month.updated_date)},
            )
    except ConditionFailedError:
        return False
    return True


def get_savings_month(user_id: str, month: str) -> SavingsMonth | None:
    with translated():
        row = tables.pave().get_item(Key=keys.savings_month_key(user_id, month), ConsistentRead=True).get("Item")
    return from_item(row) if row else None


def savings_months(user_id: str, first: str, last: str) -> list[SavingsMonth]:
    """The user's snapshots from month ``first`` to ``last`` inclusive, oldest first (strong)."""
    low, high = keys.savings_month_sk(first), keys.savings_month_sk(last)
    if low > high:
        raise ValidationError(f"month {first} is after {last}")
    rows = query_rows(
        tables.pave(),
        entity=keys.BALANCE,
        KeyConditionExpression=Key("PK").eq(keys.users_pk(user_id)) & Key("SK").between(low, high),
        ConsistentRead=True,
    )
    return [from_item(row) for row in rows]


def month_before(month: str, count: int = 1) -> str:
    """The ``YYYY-MM`` month ``count`` months before ``month``."""
    keys.savings_month_sk(month)  # validates the shape
    year, number = (int(part) for part in month.split("-"))
    index = year * 12 + number - 1 - count
    return f"{index // 12:04d}-{index % 12 + 1:02d}"


def recent_savings_months(user_id: str, current: str, count: int = 3) -> list[SavingsMonth]:
    """``current`` and the ``count - 1`` months before it, oldest first (what the API shows)."""
    return savings_months(user_id, month_before(current, count - 1), current)
