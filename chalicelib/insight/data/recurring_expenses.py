"""``recurring`` rows: a mine's recurring expenses.

Key ``USERS#<user_id>`` / ``RECURRING#<last_mine>#MERCHANT#<merchant_uuid>#<frequency>#<amount>``
(``last_mine`` the mine's RFC 3339 instant, ``amount`` integer cents). All of one mine are one
Query (``begins_with RECURRING#<last_mine>#``). ``ttl`` is ``due_date`` + ``EXPENSE_TTL_DAYS``.
Rows are written in batches; writing a mine twice writes the same rows. ``ritual`` rows
(:mod:`.rituals`) have the same shape under ``RITUAL#``; both are built here.

**Rows of the previous system** may carry nothing but their keys and ``ttl``: the user comes
from the partition key; the mine, the merchant, the frequency and the amount from the sort
key; a missing ``due_date`` from ``ttl`` (the inverse of the rule that sets it); a missing
``merchant_name`` reads as None. A row that still cannot be read (no due date at all, an amount
that is no whole number) makes its mine's expenses a miss: :func:`expenses_of_mine` raises
:class:`UnreadableRowError`, and the expenses endpoint answers with its own detector instead.
Replacing a mine never deletes such a row (logged and counted, :mod:`chalicelib.data.tolerant`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from boto3.dynamodb.conditions import Key

from chalicelib.data.batch import batch_write, put_items
from chalicelib.data.keys import SEP
from chalicelib.data.money import cents_to_string
from chalicelib.data.query import query_rows
from chalicelib.data.tolerant import Reading, RowReader, parse_timestamp_text, readable_by
from chalicelib.data.ttl import iso_timestamp
from chalicelib.insight.data import keys, tables
from chalicelib.insight.data.ttl import expense_ttl
from chalicelib.insight.data.values import from_dynamo, to_dynamo
from chalicelib.settings import get_settings

#: A mine: its instant, or the text naming it in the keys (a mine of the previous system's).
MineName = datetime | str


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
    """The stored expense; :class:`UnreadableRowError` when it cannot be read (see the module docstring)."""
    reader = RowReader(kind.entity, row)
    # <KIND>#<last_mine>#MERCHANT#<merchant>#<frequency>#<amount>
    parts = str(row.get("SK", "")).split(SEP)
    from_key = parts[1:2] + parts[3:6] if len(parts) == 6 and parts[2] == "MERCHANT" else [None] * 4
    last_mine = reader.timestamp("last_mine", None) or parse_timestamp_text(from_key[0])
    amount = reader.whole("amount", None)
    if amount is None and from_key[3] is not None and from_key[3].lstrip("-").isdigit():
        amount = int(from_key[3])
    due = reader.day("due_date", None) or _due_from_ttl(reader)
    for name, value in (("last_mine", last_mine), ("amount", amount), ("due_date", due)):
        if value is None:
            reader.problem(name, "missing, and not in the key")
    expense = Expense(
        user_id=reader.text("user_id", "") or reader.key_part("USERS") or "",
        last_mine=last_mine or datetime.min,
        merchant_id=reader.text(kind.merchant_attribute, "") or from_key[1] or "",
        frequency=reader.text("frequency", "") or from_key[2] or "UNKNOWN",
        amount=amount or 0,
        due_date=due or date.min,
        merchant_name=reader.text("merchant_name", None),
        details=dict(from_dynamo(reader.mapping("details"))),
    )
    reader.require_readable()
    return expense


def _due_from_ttl(reader: RowReader) -> date | None:
    """The due date :func:`expense_ttl` made ``ttl`` from (``EXPENSE_TTL_DAYS`` before it)."""
    ttl = reader.whole("ttl", None)
    if ttl is None:
        return None
    expires = datetime.fromtimestamp(ttl, UTC) - timedelta(days=get_settings().expense_ttl_days)
    return expires.date()


def put_expenses(expenses: Iterable[Expense], kind: _Kind = RECURRING) -> int:
    """Batch-write rows (nothing dropped: see :mod:`chalicelib.data.batch`); returns how many."""
    return put_items(get_settings().pave_table, (expense_item(e, kind) for e in expenses), ["PK", "SK"])


def _mine_text(last_mine: MineName) -> str:
    return last_mine if isinstance(last_mine, str) else iso_timestamp(last_mine)


def _rows_of_mine(user_id: str, last_mine: MineName, kind: _Kind) -> list[dict[str, Any]]:
    condition = Key("PK").eq(keys.users_pk(user_id)) & Key("SK").begins_with(kind.prefix(_mine_text(last_mine)))
    return query_rows(
        tables.pave(), keep=keys.of_entity(kind.entity), KeyConditionExpression=condition, ConsistentRead=True
    )


def expenses_of_mine(user_id: str, last_mine: MineName, kind: _Kind = RECURRING) -> list[Expense]:
    """Every row of one mine, in key order (strongly consistent Query); ``last_mine`` is the
    mine's instant or its name in the keys (``Mine.last_mine``). :class:`UnreadableRowError`
    when a row cannot be read: the mine's expenses are a miss."""
    return [from_item(row, kind) for row in _rows_of_mine(user_id, last_mine, kind)]


def replace_expenses_of_mine(
    user_id: str, last_mine: datetime, expenses: Iterable[Expense], kind: _Kind = RECURRING
) -> int:
    """Make the rows of one mine exactly ``expenses``: put them, delete the mine's other rows.

    A repeated mine (a redelivered poll) writes the same rows; one that stopped half-way and
    is repeated with different data from Pave leaves no row of the first attempt behind.
    A row of the mine that cannot be read is left in place (and reported). Returns the rows
    written.
    """
    rows = {(r["PK"], r["SK"]): r for r in (expense_item(e, kind) for e in expenses)}
    if any(r["user_id"] != user_id or r["last_mine"] != iso_timestamp(last_mine) for r in rows.values()):
        raise ValueError("every expense must belong to the user and the mine being replaced")
    readable = readable_by(lambda row: from_item(row, kind), Reading.MISS)
    stale = [
        {"PK": row["PK"], "SK": row["SK"]}
        for row in _rows_of_mine(user_id, last_mine, kind)
        if (row["PK"], row["SK"]) not in rows and readable(row)
    ]
    requests = [{"PutRequest": {"Item": r}} for r in rows.values()]
    requests += [{"DeleteRequest": {"Key": key}} for key in stale]
    if requests:
        batch_write({get_settings().pave_table: requests})
    return len(rows)


def put_recurring_expenses(expenses: Iterable[Expense]) -> int:
    return put_expenses(expenses, RECURRING)


def recurring_expenses(user_id: str, last_mine: MineName) -> list[Expense]:
    """The recurring expenses of the mine ``last_mine`` (find it with ``insights.latest_insights``)."""
    return expenses_of_mine(user_id, last_mine, RECURRING)
