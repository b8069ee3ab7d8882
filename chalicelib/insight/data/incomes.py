"""``income`` rows (``USERS#<user_id>`` / ``INCOME#<user_id>``): Pave's income insight.

One row per user, replaced by each Pave mine (a write never replaces a newer one). It is
what ``PAVE_PAYDAY_CALCULATION`` reads in the payday chain: the next payday Pave expects,
the cadence, the payer, the typical amount and the monthly income (cents) and the streams as
Pave reported them.
No TTL: a payday reader decides for itself whether ``updated_date`` is recent enough.

**Rows of the previous system** may carry none of these attributes: the user comes from the
key, and every attribute missing reads as unknown (None, no streams), so such a row offers no
payday and the chain goes on without Pave's. A day may be stored as a day or as a timestamp
(its day). A row with an attribute that cannot be read is a miss: it reads as no row (logged
and counted, :mod:`chalicelib.data.tolerant`). Either way the next mine replaces it: a write
replaces a row whose ``updated_date`` is missing or not in this service's format.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from chalicelib.aws.errors import translated
from chalicelib.data.tolerant import (
    Reading,
    RowReader,
    is_service_timestamp,
    put_unless_newer,
    read_or_none,
)
from chalicelib.data.ttl import iso_timestamp
from chalicelib.errors import ValidationError
from chalicelib.insight.data import keys, tables
from chalicelib.insight.data.values import from_dynamo, to_dynamo


@dataclass(frozen=True)
class Income:
    user_id: str
    #: The mine that wrote the row; None only on a row of the previous system without one.
    updated_date: datetime | None
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
    if income.updated_date is None:
        raise ValidationError("an income insight is written with the mine it came from")
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
    """The stored insight; :class:`UnreadableRowError` when it cannot be read (a miss)."""
    reader = RowReader(keys.INCOME, row)
    income = Income(
        user_id=reader.text("user_id", "") or reader.key_part("USERS") or reader.key_part("INCOME", "SK") or "",
        updated_date=reader.timestamp("updated_date", None),
        last_mine=reader.timestamp("last_mine", None),
        next_payday=reader.day("next_payday", None),
        frequency=reader.text("frequency", None),
        source=reader.text("source", None),
        amount=reader.whole("amount", None),
        monthly_income=reader.whole("monthly_income", None),
        streams=tuple(from_dynamo(reader.sequence("streams"))),
        details=dict(from_dynamo(reader.mapping("details"))),
    )
    reader.require_readable()
    return income


def put_income(income: Income) -> bool:
    """Replace the user's income insight; ``False`` if a newer one is already stored."""
    return put_unless_newer(tables.pave(), income_item(income), "updated_date", is_service_timestamp)


def get_income(user_id: str) -> Income | None:
    """The user's insight (strongly consistent GetItem); an unreadable row reads as none (a miss)."""
    with translated():
        row = tables.pave().get_item(Key=keys.income_key(user_id), ConsistentRead=True).get("Item")
    return read_or_none(from_item, row, Reading.MISS)
