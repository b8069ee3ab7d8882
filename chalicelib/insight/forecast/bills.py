"""The bills a forecast projects: recurring streams, their charges in the history, their dates.

A bill is a recurring outflow stream as the expenses endpoint gives it (Pave's cached mine,
else the service's own detector, ``recurring.detect``): a name, a frequency, an average amount
in cents and the next charge day. Fields a stream may carry besides (``transaction_ids``,
``kind``, ``status``) are used when present: a stream whose status says it ended is not
projected, and its charges are found by id rather than by name.

**Its charges.** The history's outflows that belong to the stream: the ids it lists, else
those whose statement words contain every word of the stream's name (or whose merchant name
is the stream's) at a third to three times its amount. They are not everyday money.

**Which account pays it.** A bill is projected on the forecast's account when its latest
charge was paid from there, or when none of its charges can be found (then it may be, and the
forecast would rather count a bill twice than miss it). A subscription charged to a credit
card is not projected on checking: the card's payment is, when it recurs.

**When and how much.** From its next charge day, each period after it (months as months) up
to the forecast's horizon; a next charge day already past moves on by periods. The amount is
the average; the simulation draws a varying bill's amount from its charges in the history.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from chalicelib.insight.calendar import last_day_of_month
from chalicelib.insight.transactions import Txn

#: Stream statuses that mean the stream no longer charges.
_ENDED = frozenset({"ENDED", "STOPPED", "CANCELLED", "CANCELED", "INACTIVE", "PAUSED"})
_DAYS = {"DAILY": 1, "WEEKLY": 7, "BIWEEKLY": 14}
_MONTHS = {"MONTHLY": 1, "BIMONTHLY": 2, "QUARTERLY": 3, "SEMI_ANNUALLY": 6, "ANNUALLY": 12}
#: A charge of the stream is within this factor of its average.
AMOUNT_FACTOR = 3.0
_WORD = re.compile(r"[A-Z0-9]+")
_NOISE = frozenset({"THE", "INC", "LLC", "COM", "NET", "ORG", "CO", "TO", "OF", "AND", "USA", "US"})


@dataclass(frozen=True, slots=True)
class Bill:
    """A recurring outflow stream. ``amount`` is the average charge in positive cents;
    ``source`` says who found it (``pave`` or ``ours``)."""

    name: str
    frequency: str
    amount: int
    next_date: date
    source: str
    transaction_ids: tuple[str, ...] = ()
    kind: str | None = None
    status: str | None = None


def _field(stream: Any, *names: str) -> Any:
    for name in names:
        value = stream.get(name) if isinstance(stream, Mapping) else getattr(stream, name, None)
        if value is not None:
            return value
    return None


def bill_of(stream: Any, source: str) -> Bill:
    """A stream (``recurring.detect``'s, the expenses endpoint's, or a dict of either shape) as a :class:`Bill`."""
    next_date = _field(stream, "next_date", "due_date")
    if isinstance(next_date, str):
        next_date = date.fromisoformat(next_date[:10])
    return Bill(
        name=str(_field(stream, "merchant", "merchant_name", "name") or ""),
        frequency=str(_field(stream, "frequency") or "UNKNOWN").upper(),
        amount=abs(int(_field(stream, "average_amount", "amount") or 0)),
        next_date=next_date,
        source=source,
        transaction_ids=tuple(str(i) for i in _field(stream, "transaction_ids") or ()),
        kind=_text(_field(stream, "kind")),
        status=_text(_field(stream, "status")),
    )


def _text(value: Any) -> str | None:
    return str(value.value if hasattr(value, "value") else value) if value is not None else None


def _words(text: str | None) -> set[str]:
    return {w for w in _WORD.findall((text or "").upper()) if w not in _NOISE}


def charges(bill: Bill, outflows: Sequence[Txn]) -> list[Txn]:
    """The history's charges of ``bill`` (see the module docstring), oldest first."""
    if bill.transaction_ids:
        ids = set(bill.transaction_ids)
        return [t for t in outflows if t.txn_id in ids]
    named = _words(bill.name)
    if not named or bill.amount <= 0:
        return []
    low, high = bill.amount / AMOUNT_FACTOR, bill.amount * AMOUNT_FACTOR
    return [
        t
        for t in outflows
        if low <= t.amount <= high
        and ((t.merchant_name or "").lower() == bill.name.lower() or named <= _words(t.name) | _words(t.merchant_name))
    ]


@dataclass(frozen=True, slots=True)
class BillCharge:
    """One projected charge: its day, the expected amount and the amounts it may be, and the
    days it may come off that day (each as likely; none: on the day)."""

    bill: Bill
    day: date
    amount: int
    amounts: tuple[int, ...]
    offsets: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Bills:
    charges: tuple[BillCharge, ...]
    #: Ids of the projected bills' charges in the history (not everyday money).
    charge_ids: frozenset[str]
    #: Bills left out: ended, or paid from another account.
    left_out: tuple[tuple[Bill, str], ...]


def project(bills: Iterable[Bill], txns: Sequence[Txn], account_id: str, as_of: date, until: date) -> Bills:
    """The charges of ``bills`` on ``account_id`` after ``as_of`` up to ``until``."""
    outflows = [t for t in txns if t.amount > 0]
    out: list[BillCharge] = []
    ids: set[str] = set()
    left_out: list[tuple[Bill, str]] = []
    for bill in bills:
        if bill.status and bill.status.upper() in _ENDED:
            left_out.append((bill, "ended"))
            continue
        found = charges(bill, outflows)
        if found and found[-1].account_id != account_id:
            left_out.append((bill, "paid from another account"))
            continue
        here = [t for t in found if t.account_id == account_id]
        ids.update(t.txn_id for t in here)
        amounts = tuple(t.amount for t in here[-6:]) if len({t.amount for t in here}) > 1 else ()
        for day in due_days(bill, as_of, until):
            out.append(BillCharge(bill, day, bill.amount, amounts))
    return Bills(tuple(sorted(out, key=lambda c: (c.day, c.bill.name))), frozenset(ids), tuple(left_out))


def due_days(bill: Bill, as_of: date, until: date) -> list[date]:
    """The bill's charge days after ``as_of`` up to ``until``."""
    if bill.next_date is None:
        return []
    days: list[date] = []
    day, n = bill.next_date, 0
    while day <= until and n < 400:
        if day > as_of:
            days.append(day)
        nxt = _step(bill.next_date, bill.frequency, n + 1)
        if nxt is None:
            break
        day, n = nxt, n + 1
    return days


def _step(start: date, frequency: str, n: int) -> date | None:
    if frequency in _DAYS:
        return start + timedelta(days=_DAYS[frequency] * n)
    if frequency == "SEMI_MONTHLY":
        return start + timedelta(days=round(n * 365.25 / 24))
    if frequency in _MONTHS:
        index = start.year * 12 + start.month - 1 + _MONTHS[frequency] * n
        year, month = divmod(index, 12)
        month += 1
        return date(year, month, min(start.day, last_day_of_month(year, month).day))
    return None
