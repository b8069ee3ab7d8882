"""``recurring`` rows: a mine's recurring expenses.

Key ``USERS#<user_id>`` / ``RECURRING#<last_mine>#MERCHANT#<merchant_uuid>#<frequency>#<amount>``
(``last_mine`` the mine's RFC 3339 instant, ``amount`` integer cents). All of one mine are one
Query (``begins_with RECURRING#<last_mine>#``). ``ttl`` is ``due_date`` + ``EXPENSE_TTL_DAYS``.
Rows are written in batches; writing a mine twice writes the same rows. ``ritual`` rows
(:mod:`.rituals`) have the same shape under ``RITUAL#``; both are built here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from boto3.dynamodb.conditions import Key

from chalicelib.data.batch import batch_write, put_items
from chalicelib.data.money import cents_to_string
from chalicelib.data.money import from_dynamo as cents_from_dynamo
from chalicelib.data.query import query_rows
from chalicelib.data.ttl import iso_timestamp
from chalicelib.insight.data import keys, tables
from chalicelib.insight.data.ttl import expense_ttl
from chalicelib.insight.data.values import from_dynamo, parse_day, parse_timestamp, to_dynamo
from chalicelib.settings import get_settings


@dataclass(frozen=True)
class Expense:
    """One recurring (or ritual) expense of one mine. ``amount`` is cents, positive."""

    user_id: str
    last_mine: datetime
    merchant_id: str
    frequency: str
    amount: int
    due_date: date
    merchant_name: str | None = None
    details: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class _Kind:
    entity: str
    merchant_attribute: str
    key: Callable[[str, str, str, str, int], dict[str, str]]
    prefix: Callable[[str], str]


RECURRING = _Kind(keys.RECURRING, "merchant_uuid", keys.recurring_key, keys.recurring_prefix)
RITUAL = _Kind(keys.RITUAL, "merchant_id", keys.ritual_key, keys.ritual_prefix)


def expense_item(expense: Expense, kind: _Kind = RECURRING) -> dict[str, Any]:
    """The row for ``expense`` (pure)."""
    mine = iso_timestamp(expense.last_mine)
    return {
        **kind.key(expense.user_id, mine, expense.merchant_id, expense.frequency, expense.amount),
        "type": kind.entity,
        "user_id": expense.user_id,
        "last_mine": mine,
        kind.merchant_attribute: expense.merchant_id,
        "merchant_name": expense.merchant_name,
        "frequency": expense.frequency,
        "amount": expense.amount,
        "amount_string": cents_to_string(expense.amount),
        "due_date": expense.due_date.isoformat(),
        "details": to_dynamo(dict(expense.details)),
        "ttl": expense_ttl(expense.due_date),
    }


def from_item(row: Mapping[str, Any], kind: _Kind = RECURRING) -> Expense:
    return Expense(
        user_id=str(row["user_id"]),
        last_mine=parse_timestamp(row["last_mine"]),
        merchant_id=str(row[kind.merchant_attribute]),
        frequency=str(row["frequency"]),
        amount=cents_from_dynamo(row["amount"]),
        due_date=parse_day(row["due_date"]),
        merchant_name=row.get("merchant_name"),
        details=dict(from_dynamo(row.get("details") or {})),
    )


def put_expenses(expenses: Iterable[Expense], kind: _Kind = RECURRING) -> int:
    """Batch-write rows (nothing dropped: see :mod:`chalicelib.data.batch`); returns how many."""
    return put_items(get_settings().pave_table, (expense_item(e, kind) for e in expenses), ["PK", "SK"])


def expenses_of_mine(user_id: str, last_mine: datetime, kind: _Kind = RECURRING) -> list[Expense]:
    """Every row of one mine, in key order (strongly consistent Query)."""
    condition = Key("PK").eq(keys.users_pk(user_id)) & Key("SK").begins_with(kind.prefix(iso_timestamp(last_mine)))
    rows = query_rows(tables.pave(), entity=kind.entity, KeyConditionExpression=condition, ConsistentRead=True)
    return [from_item(row, kind) for row in rows]


def replace_expenses_of_mine(
    user_id: str, last_mine: datetime, expenses: Iterable[Expense], kind: _Kind = RECURRING
) -> int:
    """Make the rows of one mine exactly ``expenses``: put them, delete the mine's other rows.

    A repeated mine (a redelivered poll) writes the same rows; one that stopped half-way and
    is repeated with different data from Pave leaves no row of the first attempt behind.
    Returns the rows written.
    """
    rows = {(r["PK"], r["SK"]): r for r in (expense_item(e, kind) for e in expenses)}
    if any(r["user_id"] != user_id or r["last_mine"] != iso_timestamp(last_mine) for r in rows.values()):
        raise ValueError("every expense must belong to the user and the mine being replaced")
    stale = [
        key
        for key in (keys_of(e, kind) for e in expenses_of_mine(user_id, last_mine, kind))
        if (key["PK"], key["SK"]) not in rows
    ]
    requests = [{"PutRequest": {"Item": r}} for r in rows.values()]
    requests += [{"DeleteRequest": {"Key": key}} for key in stale]
    if requests:
        batch_write({get_settings().pave_table: requests})
    return len(rows)


def keys_of(expense: Expense, kind: _Kind = RECURRING) -> dict[str, str]:
    return kind.key(
        expense.user_id, iso_timestamp(expense.last_mine), expense.merchant_id, expense.frequency, expense.amount
    )


def put_recurring_expenses(expenses: Iterable[Expense]) -> int:
    return put_expenses(expenses, RECURRING)


def recurring_expenses(user_id: str, last_mine: datetime) -> list[Expense]:
    """The recurring expenses of the mine ``last_mine`` (find it with ``insights.latest_insights``)."""
    return expenses_of_mine(user_id, last_mine, RECURRING)
