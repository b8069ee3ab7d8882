"""What the fake Pave computes from a user's processed transactions: simple, deterministic, real.

Not Pave's models, but honest output of the uploaded data, so a change in what the service
uploads shows in what comes back. Transactions are grouped by counterparty (Plaid's merchant
name, else the description without digits and card noise) and by direction:

* a **recurring expenditure** is an outflow group of at least three charges whose gaps fit one
  cadence (weekly ... annual, each gap within 40 % of the median) and whose amounts stay within
  25 % of their median, still active (last seen within two periods of today);
* a **ritual** is any other outflow group of at least four charges less than ten days apart on
  average (weekly coffee, groceries): habitual, not a bill;
* a **recurring income** is an inflow group that fits a cadence with amounts within 35 %; the
  largest by monthly equivalent is the primary income, whose next date is the payday estimate;
* the **cash-advance score** rises with 90-day net inflow and an active income, falls with
  overdraft or NSF fees and with the advance amount (:class:`ScoreDrivers` holds the rule).

Amounts are integer cents inside and dollars on the wire, as Pave sends them.
"""

from __future__ import annotations

import calendar
import itertools
import re
import statistics
import uuid
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

_NAMESPACE = uuid.UUID("0b5f7a3e-9d2c-5e41-8f6a-4c1d2e3f5a69")
_NOISE = re.compile(r"[0-9#*:/.,'-]+|\b(?:POS|ACH|DEBIT|CREDIT|PURCHASE|PPD|WEB|ID|PMT|PAYMENT|ONLINE)\b")
#: Whole words only: "NSF" is inside "TRANSFER", and a transfer is no fee.
_FEE_WORDS = re.compile(r"\b(?:OVERDRAFT|NSF|INSUFFICIENT FUNDS)\b")

#: (wire name, shortest and longest median gap in days, step: days or months, days per period).
_CADENCES: tuple[tuple[str, float, float, tuple[str, int], float], ...] = (
    ("daily", 1, 2, ("days", 1), 1.0),
    ("weekly", 5, 9, ("days", 7), 7.0),
    ("biweekly", 12, 17, ("days", 14), 14.0),
    ("monthly", 26, 35, ("months", 1), 30.4375),
    ("bimonthly", 55, 66, ("months", 2), 60.875),
    ("quarterly", 85, 97, ("months", 3), 91.3125),
    ("semi_annual", 170, 195, ("months", 6), 182.625),
    ("annual", 350, 380, ("months", 12), 365.25),
)
_SEMI_MONTHLY_DAYS = frozenset({1, 2, 13, 14, 15, 16, 27, 28, 29, 30, 31})
SCORE_BANDS = (25, 50, 75, 100, 125, 150, 175, 200)


@dataclass(frozen=True)
class Txn:
    txn_id: str
    day: date
    #: Cents, positive when money left the account (Plaid's sign).
    cents: int
    name: str
    merchant: str | None
    currency: str
    category: str | None

    @property
    def key(self) -> str:
        if self.merchant:
            return " ".join(self.merchant.upper().split())
        tokens = _NOISE.sub(" ", self.name.upper()).split()
        return " ".join(tokens[:3]) or self.name.upper().strip()

    @property
    def is_fee(self) -> bool:
        return self.category == "BANK_FEES" or _FEE_WORDS.search(self.name.upper()) is not None


def to_txn(raw: Mapping[str, Any]) -> Txn:
    """A stored (already validated) Plaid transaction; its amount is a Decimal of dollars."""
    pfc = raw.get("personal_finance_category") or {}
    return Txn(
        txn_id=str(raw["transaction_id"]),
        day=date.fromisoformat(str(raw["date"])),
        cents=int((Decimal(raw["amount"]) * 100).quantize(Decimal(1), rounding=ROUND_HALF_EVEN)),
        name=str(raw.get("name") or ""),
        merchant=raw.get("merchant_name") or None,
        currency=str(raw.get("iso_currency_code") or "USD"),
        category=pfc.get("primary") if isinstance(pfc, Mapping) else None,
    )


@dataclass(frozen=True)
class _Stream:
    direction: str
    txns: tuple[Txn, ...]
    cadence: str
    step: tuple[str, int]
    period_days: float
    next_date: date

    @property
    def average(self) -> int:
        total = Decimal(sum(abs(t.cents) for t in self.txns))
        return int((total / len(self.txns)).quantize(Decimal(1), rounding=ROUND_HALF_EVEN))

    @property
    def monthly(self) -> int:
        return round(self.average * 30.4375 / self.period_days)


def _add_months(day: date, months: int, anchor_day: int) -> date:
    month = day.month - 1 + months
    year, month = day.year + month // 12, month % 12 + 1
    return date(year, month, min(anchor_day, calendar.monthrange(year, month)[1]))


def _next_date(last: date, step: tuple[str, int], cadence: str, today: date) -> date:
    """The first date of the cadence strictly after ``today`` (and after ``last``)."""
    floor = max(last, today)
    if cadence == "semi_monthly":
        day = last
        while True:
            end = calendar.monthrange(day.year, day.month)[1]
            for candidate in (date(day.year, day.month, 15), date(day.year, day.month, end)):
                if candidate > floor:
                    return candidate
            day = _add_months(day, 1, 1)
    unit, size = step
    k = 1
    while True:
        candidate = last + timedelta(days=size * k) if unit == "days" else _add_months(last, size * k, last.day)
        if candidate > floor:
            return candidate
        k += 1


def _cadence(txns: list[Txn]) -> tuple[str, tuple[str, int], float] | None:
    days = sorted({t.day for t in txns})
    gaps = [(b - a).days for a, b in itertools.pairwise(days)]
    if len(gaps) < 2:
        return None
    median = statistics.median(gaps)
    if any(not 0.6 * median <= gap <= 1.4 * median for gap in gaps):
        return None
    for name, low, high, step, period in _CADENCES:
        if low <= median <= high:
            if name == "biweekly" and {d.day for d in days} <= _SEMI_MONTHLY_DAYS:
                return "semi_monthly", ("months", 0), 15.21875
            return name, step, period
    return None


def _steady(txns: list[Txn], tolerance: float) -> bool:
    amounts = [abs(t.cents) for t in txns]
    middle = statistics.median(amounts)
    return middle > 0 and max(amounts) - min(amounts) <= tolerance * middle


def _streams(txns: Iterable[Txn], today: date) -> tuple[list[_Stream], list[_Stream], list[_Stream]]:
    groups: dict[tuple[str, str], list[Txn]] = defaultdict(list)
    for txn in txns:
        if txn.cents:
            groups[("out" if txn.cents > 0 else "in", txn.key)].append(txn)
    recurring: list[_Stream] = []
    rituals: list[_Stream] = []
    income: list[_Stream] = []
    for (direction, _key), members in sorted(groups.items()):
        members.sort(key=lambda t: (t.day, t.txn_id))
        last = members[-1].day
        found = _cadence(members) if len(members) >= 3 else None
        steady = _steady(members, 0.25 if direction == "out" else 0.35)
        if found is not None and steady and found[0] != "daily" and (today - last).days <= 2 * found[2]:
            name, step, period = found
            stream = _Stream(direction, tuple(members), name, step, period, _next_date(last, step, name, today))
            (recurring if direction == "out" else income).append(stream)
        elif direction == "out" and len(members) >= 4:
            gaps = [(b.day - a.day).days for a, b in itertools.pairwise(members)]
            mean = sum(gaps) / len(gaps)
            if mean < 10 and (today - last).days <= 30:
                name, size = ("weekly", 7) if mean >= 4 else ("daily", 1)
                step = ("days", max(1, round(mean)))
                rituals.append(
                    _Stream(direction, tuple(members), name, step, float(size), _next_date(last, step, name, today))
                )
    return recurring, rituals, income


def _dollars(cents: int) -> float:
    return cents / 100


def _name(stream: _Stream) -> str:
    latest = stream.txns[-1]
    return latest.merchant or latest.key.title()


def _primary(income: list[_Stream]) -> _Stream | None:
    """The largest income by monthly equivalent (the latest paid on a tie)."""
    return max(income, key=lambda s: (s.monthly, s.txns[-1].day), default=None)


def _stream_json(stream: _Stream) -> dict[str, Any]:
    txns = stream.txns
    latest = txns[-1]
    previous = txns[-2] if len(txns) > 1 else latest
    delta = abs(latest.cents) - abs(previous.cents)
    gaps = [(b.day - a.day).days for a, b in itertools.pairwise(txns)]
    return {
        "merchant_uuid": str(uuid.uuid5(_NAMESPACE, f"{stream.direction}:{latest.key}")),
        "normalized_merchant_name": _name(stream),
        "normalized_frequency": stream.cadence,
        "avg_amount": _dollars(stream.average),
        "last_amount": _dollars(abs(latest.cents)),
        "next_amount": _dollars(abs(latest.cents) if stream.direction == "out" else stream.average),
        "last_date": latest.day.isoformat(),
        "next_date": stream.next_date.isoformat(),
        "count": len(txns),
        "avg_period_days": round(sum(gaps) / len(gaps), 1) if gaps else None,
        "iso_currency_code": latest.currency,
        "delta_amount": _dollars(delta),
        "delta_percent": round(delta / abs(previous.cents), 4) if previous.cents else 0.0,
        "tags": [latest.category.lower()] if latest.category else [],
        "transactions": [
            {"transaction_id": t.txn_id, "date": t.day.isoformat(), "amount": _dollars(t.cents), "name": t.name}
            for t in txns
        ],
    }


def unified_insights(user_id: str, txns: Iterable[Txn], today: date) -> dict[str, Any]:
    """The ``cashflow/unified_insights`` answer for ``txns`` as of ``today``."""
    settled = [t for t in txns if t.day <= today]
    recurring, rituals, income = _streams(settled, today)
    primary = _primary(income)
    days = sorted(t.day for t in settled)
    return {
        "user_id": user_id,
        "from": days[0].isoformat() if days else None,
        "to": days[-1].isoformat() if days else None,
        "recurring_expenditures": [_stream_json(s) for s in recurring],
        "ritual_expenses": [_stream_json(s) for s in rituals],
        "recurring_income": [_stream_json(s) for s in income],
        "income": {
            "monthly_income": _dollars(sum(s.monthly for s in income)) if income else None,
            "next_payday": primary.next_date.isoformat() if primary else None,
            "pay_frequency": primary.cadence if primary else None,
            "primary_source": _name(primary) if primary else None,
        },
    }


#: The score's rule: a base, points per unit of net inflow share, per fee, for (or without) an
#: active income, and per dollar of advance above the first band.
SCORE_BASE, INFLOW_POINTS, FEE_POINTS, INCOME_POINTS, POINTS_PER_DOLLAR = 60, 30, 8, 10, 0.15
SCORE_DAYS = 90


@dataclass(frozen=True)
class ScoreDrivers:
    """What a user's cash-advance score is made of: the last ``SCORE_DAYS`` days of what was sent."""

    #: Cents in and out over the window (every account, transfers between them included).
    inflow: int
    outflow: int
    #: Overdraft and NSF fees charged in the window.
    fees: int
    #: The primary recurring income ("Gusto, biweekly"), None without an active one.
    income: str | None

    @property
    def net_share(self) -> float:
        """Net inflow as a share of inflow, within [-1, 1]."""
        return max(-1.0, min(1.0, (self.inflow - self.outflow) / max(self.inflow, 1)))

    @property
    def base(self) -> float:
        """The score of the first band, before clamping to 0..100."""
        income = INCOME_POINTS if self.income else -INCOME_POINTS
        return SCORE_BASE + INFLOW_POINTS * self.net_share - FEE_POINTS * self.fees + income

    def band_score(self, highest_dollars: int) -> int:
        return max(0, min(100, round(self.base - (highest_dollars - SCORE_BANDS[0]) * POINTS_PER_DOLLAR)))

    def describe(self) -> str:
        """The rule with this user's figures, on one line."""
        net = self.inflow - self.outflow
        sign = "-" if net < 0 else "+"
        income = f"+{INCOME_POINTS} for an active income ({self.income})" if self.income else "no active income"
        if not self.income:
            income = f"-{INCOME_POINTS} for {income}"
        return (
            f"{SCORE_BASE} + {INFLOW_POINTS} x net inflow share {self.net_share:+.2f}"
            f" ({sign}${abs(net) / 100:,.0f} on ${self.inflow / 100:,.0f} in over {SCORE_DAYS} days),"
            f" {income}, -{FEE_POINTS} x {self.fees} overdraft/NSF fees = {self.base:.0f} for advances up to"
            f" ${SCORE_BANDS[0]}, {POINTS_PER_DOLLAR} less per dollar above"
        )


def score_drivers(txns: Iterable[Txn], today: date) -> ScoreDrivers:
    """The inputs of the score as of ``today`` (pending and future-dated rows left out)."""
    settled = [t for t in txns if t.day <= today]
    recent = [t for t in settled if (today - t.day).days <= SCORE_DAYS]
    primary = _primary(_streams(settled, today)[2])
    return ScoreDrivers(
        inflow=-sum(t.cents for t in recent if t.cents < 0),
        outflow=sum(t.cents for t in recent if t.cents > 0),
        fees=sum(1 for t in recent if t.is_fee),
        income=f"{_name(primary)}, {primary.cadence}" if primary else None,
    )


def cash_advance_score(user_id: str, txns: Iterable[Txn], today: date, now: datetime) -> dict[str, Any]:
    """The ``scores/cash_advance`` answer: one score per advance band, from the last 90 days."""
    drivers = score_drivers(txns, today)
    return {
        "user_id": user_id,
        "date": now.isoformat(),
        "scores": [
            {
                "score": drivers.band_score(high),
                "lowest_amount": high - SCORE_BANDS[0],
                "highest_amount": high,
            }
            for high in SCORE_BANDS
        ],
    }
