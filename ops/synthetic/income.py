"""The income side of the generator: employers' pay rules, the paydays they produce on the
Fed calendar, and the days a bank posts the deposits.

Written independently of the model's schedule engine (month arithmetic here, the Fed table
in :mod:`ops.synthetic.fedcal`), so the world and the model do not share a bug.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, timedelta

from ops.synthetic import fedcal

WEEKDAY_NAMES = ("MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN")
PER_YEAR = {"WEEKLY": 52.18, "BIWEEKLY": 26.09, "FOUR_WEEKLY": 13.04, "SEMI_MONTHLY": 24.0, "MONTHLY": 12.0}


def _month_end(year: int, month: int) -> date:
    nxt = date(year + (month == 12), month % 12 + 1, 1)
    return nxt - timedelta(days=1)


def _day_in_month(year: int, month: int, day: int) -> date:
    """``day`` 0 is the month's last day; a day past the end is the last day."""
    end = _month_end(year, month)
    return end if day == 0 or day > end.day else date(year, month, day)


@dataclass(frozen=True)
class PayRule:
    """When an employer (or an agency) pays: ``kind`` is ``weekday`` (every ``every`` weeks on
    the weekday of ``anchor``), ``days`` (days of the month, 0 = last day) or ``nth``
    (the ``nth`` ``weekday`` of the month, -1 = last); ``roll`` moves a closed day
    back (``PREV``) or forward (``NEXT``)."""

    cadence: str
    kind: str
    anchor: date = date(2021, 1, 1)
    every: int = 1
    days: tuple[int, ...] = ()
    nth: int = 0
    weekday: int = 4
    roll: str = "PREV"

    def nominal(self, start: date, end: date) -> list[date]:
        if self.kind == "weekday":
            step = timedelta(weeks=self.every)
            day = self.anchor + step * ((start - self.anchor).days // step.days)
            out = []
            while day <= end:
                if day >= start:
                    out.append(day)
                day += step
            return out
        out = []
        year, month = start.year, start.month
        while date(year, month, 1) <= end:
            out.extend(self._in_month(year, month))
            year, month = (year + 1, 1) if month == 12 else (year, month + 1)
        return [d for d in out if start <= d <= end]

    def _in_month(self, year: int, month: int) -> list[date]:
        if self.kind == "days":
            return [_day_in_month(year, month, d) for d in self.days]
        if self.nth > 0:
            first = date(year, month, 1)
            return [first + timedelta(days=(self.weekday - first.weekday()) % 7 + 7 * (self.nth - 1))]
        last = _month_end(year, month)
        return [last - timedelta(days=(last.weekday() - self.weekday) % 7)]

    def paydays(self, start: date, end: date) -> list[date]:
        return sorted(self.rolled(start, end))

    def rolled(self, start: date, end: date) -> dict[date, date]:
        """Each payday (a business day) with the nominal date it was rolled from."""
        roll = fedcal.roll_back if self.roll == "PREV" else fedcal.roll_forward
        return {roll(d): d for d in self.nominal(start - timedelta(days=7), end + timedelta(days=7))}

    def describe(self) -> str:
        if self.kind == "weekday":
            return f"every {self.every} week(s) on {WEEKDAY_NAMES[self.anchor.weekday()]} ({self.roll})"
        if self.kind == "days":
            return "days " + "/".join("EOM" if d == 0 else str(d) for d in self.days) + f" ({self.roll})"
        return f"nth {self.nth} {WEEKDAY_NAMES[self.weekday]} ({self.roll})"


@dataclass(frozen=True)
class Bank:
    """How a bank posts an incoming ACH credit: ``early`` business days before the payday
    (0 for most banks; 1-2 for banks that release a direct deposit when the file arrives),
    one business day less early on a share ``wobble`` of deposits (the file came late)."""

    name: str
    early: int = 0
    wobble: float = 0.0

    def posting_day(self, payday: date, rng: random.Random) -> date:
        early = self.early
        if early and self.wobble and rng.random() < self.wobble:
            early -= 1
        return fedcal.business_days_before(payday, early) if early else payday


@dataclass
class Job:
    """One income source with a pay rule: an employer, or a benefit agency."""

    payer: str
    rule: PayRule
    per_check_cents: int
    kind: str = "employer"  # employer | benefits
    hourly: bool = False
    first_pay: date | None = None
    last_pay: date | None = None
    raise_on: date | None = None
    raise_pct: float = 0.0
    bonuses: list[tuple[date, int]] = field(default_factory=list)

    @property
    def monthly_cents(self) -> float:
        return self.per_check_cents * PER_YEAR[self.rule.cadence] / 12

    def active_on(self, day: date) -> bool:
        return (self.first_pay is None or self.first_pay <= day) and (self.last_pay is None or self.last_pay >= day)

    def paydays(self, start: date, end: date) -> list[date]:
        return [d for d in self.rule.paydays(start, end) if self.active_on(d) and start <= d <= end]

    def amount(self, payday: date, rng: random.Random) -> int:
        base = self.per_check_cents * (1 + self.raise_pct if self.raise_on and payday >= self.raise_on else 1)
        spread = 0.18 if self.hourly else 0.004
        return max(2_000, round(base * (1 + rng.gauss(0, spread))))


def pick_rule(rng: random.Random, cadence: str, *, roll: str) -> PayRule:
    """An employer's pay rule of ``cadence``, drawn from common US payroll practice."""
    if cadence in ("WEEKLY", "BIWEEKLY", "FOUR_WEEKLY"):
        weekday = rng.choices([4, 3, 2, 1, 0], weights=[75, 15, 5, 3, 2])[0]
        every = {"WEEKLY": 1, "BIWEEKLY": 2, "FOUR_WEEKLY": 4}[cadence]
        anchor = date(2021, 1, 4) + timedelta(days=weekday + 7 * rng.randrange(every))
        return PayRule(cadence, "weekday", anchor=anchor, every=every, roll=roll)
    if cadence == "SEMI_MONTHLY":
        pair = rng.choices([(15, 0), (1, 15), (5, 20), (10, 25), (7, 22)], weights=[45, 30, 8, 10, 7])[0]
        return PayRule(cadence, "days", days=pair, roll=roll)
    choice = rng.choices(["1", "eom", "15", "25", "last_fri", "other"], weights=[25, 20, 15, 10, 10, 20])[0]
    if choice == "last_fri":
        return PayRule(cadence, "nth", nth=-1, weekday=4, roll=roll)
    day = {"1": 1, "eom": 0, "15": 15, "25": 25}.get(choice) or rng.randint(3, 28)
    return PayRule(cadence, "days", days=(day,), roll=roll)


def social_security_rule(rng: random.Random) -> tuple[str, PayRule]:
    """Social Security on the 2nd/3rd/4th Wednesday by birthday, on the 3rd for older claims,
    or SSI on the 1st; every one rolls back to the business day before."""
    pick = rng.choices(["wed", "third", "ssi"], weights=[70, 15, 15])[0]
    if pick == "wed":
        return "SSA", PayRule("MONTHLY", "nth", nth=rng.choice([2, 3, 4]), weekday=2)
    if pick == "third":
        return "SSA", PayRule("MONTHLY", "days", days=(3,))
    return "SSI", PayRule("MONTHLY", "days", days=(1,))
