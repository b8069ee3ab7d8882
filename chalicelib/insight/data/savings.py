"""``balance`` rows (``USERS#<user_id>`` / ``SAVINGS_MONTH#<YYYY-MM>``): savings progress.

One row per user per calendar month, kept current from new balances: ``accounts`` (each
savings account's ``account_id``, ``amount`` in cents and ``subtype``), ``total_available``
(cents) and ``updated_date``. Each amount keeps a ``_string`` copy in dollars like every stored
balance. A write only replaces a row with an older or equal ``updated_date``, so snapshots
delivered out of order converge on the newest. ``ttl`` is one year after ``updated_date``.

**Rows of the previous system** are typed ``balance`` and carry ``accounts``, ``total_available``
and ``updated_date`` (amounts in cents, as everywhere); user and month come from the key. A
missing ``total_available`` reads as the sum of the accounts, a missing ``updated_date`` as
unknown (None), a missing ``subtype`` as None. An account entry that cannot be read (no id, an
amount that is no whole number) is left out of the reading and an unreadable total is summed
again from the accounts read; the row is logged and counted (:mod:`chalicelib.data.tolerant`)
and left as it is. A snapshot of the current month replaces a row whose ``updated_date`` is
missing or not in this service's format, as it replaces an older one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from boto3.dynamodb.conditions import Key

from chalicelib.aws.errors import translated
from chalicelib.data.money import cents_to_string
from chalicelib.data.query import query_rows
from chalicelib.data.tolerant import Reading, RowReader, is_service_timestamp, put_unless_newer
from chalicelib.data.ttl import iso_timestamp
from chalicelib.errors import ValidationError
from chalicelib.insight.data import keys, tables
from chalicelib.insight.data.ttl import savings_month_ttl


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
    #: None only on a row of the previous system that did not record it.
    updated_date: datetime | None


def savings_month_item(month: SavingsMonth) -> dict[str, Any]:
    """The row for ``month`` (pure); only a month with its ``updated_date`` is written."""
    if month.updated_date is None:
        raise ValidationError("a savings month is written with the instant it was computed")
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
    """The stored month, read tolerantly (see the module docstring)."""
    reader = RowReader(keys.BALANCE, row)
    accounts = tuple(a for a in (_account(entry, reader) for entry in reader.sequence("accounts")) if a)
    month = SavingsMonth(
        user_id=reader.text("user_id", "") or reader.key_part("USERS") or "",
        month=reader.text("month", "") or reader.key_part("SAVINGS_MONTH", "SK") or "",
        accounts=accounts,
        total_available=reader.whole("total_available", sum(a.amount for a in accounts)),
        updated_date=reader.timestamp("updated_date", None),
    )
    reader.report(Reading.CONSERVATIVE)
    return month


def _account(entry: object, reader: RowReader) -> SavingsAccount | None:
    """One ``accounts`` entry; None (a problem) when it has no id or its amount is no whole number."""
    if not isinstance(entry, Mapping):
        reader.problem("accounts", "an entry is not a map")
        return None
    account = RowReader(keys.BALANCE, entry)
    account_id, amount = account.text("account_id", None), account.whole("amount", 0)
    subtype = account.text("subtype", None)
    if not account_id or not account.readable:
        reader.problem("accounts", "an entry without an id or with an amount that is no whole number")
        return None
    return SavingsAccount(account_id, amount, subtype)


def put_savings_month(month: SavingsMonth) -> bool:
    """Write the month's snapshot; ``False`` if a newer snapshot of that month is already stored."""
    return put_unless_newer(tables.pave(), savings_month_item(month), "updated_date", is_service_timestamp)


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
        keep=keys.of_entity(keys.BALANCE),
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
