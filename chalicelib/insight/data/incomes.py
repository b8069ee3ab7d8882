"""``income`` rows (``USERS#<user_id>`` / ``INCOME#<user_id>``): Pave's income insight.

One row per user, replaced by each Pave mine (a write never replaces a newer one). It is
what ``PAVE_PAYDAY_CALCULATION`` reads in the payday chain: the next payday Pave expects,
the cadence, the payer, the typical amount and the monthly income (cents) and the streams as
Pave reported them.
No TTL: a payday reader decides for itself whether ``updated_date`` is recent enough.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from chalicelib.aws.errors import translated
from chalicelib.data.ttl import iso_timestamp
from chalicelib.errors import ConditionFailedError
from chalicelib.insight.data import keys, tables
from chalicelib.insight.data.values import from_dynamo, optional_day, optional_int, parse_timestamp, to_dynamo


@dataclass(frozen=True)
class Income:
    user_id: str
    updated_date: datetime
    #: The mine it came from (``insights`` row), when known.
    last_mine: datetime | None = None
    next_payday: date | None = None
    frequency: str | None = None
    source: str | None = None
    #: Typical amount of one payment, cents.
    amount: int | None = None
    #: Income per month, cents.
    monthly_income: int | None = None
    streams: Sequence[Mapping[str, Any]] = ()
    details: Mapping[str, Any] = field(default_factory=dict)


def income_item(income: Income) -> dict[str, Any]:
    return {
        **keys.income_key(income.user_id),
        "type": keys.INCOME,
        "user_id": income.user_id,
        "updated_date": iso_timestamp(income.updated_date),
        "last_mine": iso_timestamp(income.last_mine) if income.last_mine else None,
        "next_payday": income.next_payday.isoformat() if income.next_payday else None,
        "frequency": income.frequency,
        "source": income.source,
        "amount": income.amount,
        "monthly_income": income.monthly_income,
        "streams": to_dynamo(list(income.streams)),
        "details": to_dynamo(dict(income.details)),
    }


def from_item(row: Mapping[str, Any]) -> Income:
    last_mine = row.get("last_mine")
    return Income(
        user_id=str(row["user_id"]),
        updated_date=parse_timestamp(row["updated_date"]),
        last_mine=parse_timestamp(last_mine) if last_mine else None,
        next_payday=optional_day(row.get("next_payday")),
        frequency=row.get("frequency"),
        source=row.get("source"),
        amount=optional_int(row.get("amount")),
        monthly_income=optional_int(row.get("monthly_income")),
        streams=tuple(from_dynamo(row.get("streams") or [])),
        details=dict(from_dynamo(row.get("details") or {})),
    )


def put_income(income: Income) -> bool:
    """Replace the user's income insight; ``False`` if a newer one is already stored."""
    try:
        with translated():
            tables.pave().put_item(
                Item=income_item(income),
                ConditionExpression="attribute_not_exists(PK) OR updated_date <= :updated",
                ExpressionAttributeValues={":updated": iso_timestamp(income.updated_date)},
            )
    except ConditionFailedError:
        return False
    return True


def get_income(user_id: str) -> Income | None:
    with translated():
        row = tables.pave().get_item(Key=keys.income_key(user_id), ConsistentRead=True).get("Item")
    return from_item(row) if row else None
