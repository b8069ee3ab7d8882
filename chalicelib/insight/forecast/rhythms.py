"""Flows on a rhythm that neither the payday model nor the bill detector explains.

A roommate's share of the rent every month, a second job's paychecks, a partner's weekly
transfer, another app's advance before each payday, a standing transfer from savings, a card's
autopay: money the projected account receives (or sends as a transfer) on a rhythm. Smeared
into a daily rate it would miss its day, and a roommate's share arriving with the rent is what
keeps the balance up that day. So such a stream is projected on its rhythm instead.

A *stream* is the account's deposits (any but the predicted payer's), or its transfers out,
from one payee (the statement's payee words). It is on a rhythm when it has at least
``MIN_OCCURRENCES`` days in the history, the median gap between them is a week (6-8 days),
two weeks (12-16) or a month (26-35), at least three quarters of the gaps are within
``GAP_TOLERANCE`` of that period, and its last day is no more than a period and a half ago
(it still runs). Weekly and fortnightly streams are projected from their last day, monthly
ones on the median day of the month of their last three; each occurrence at the median of
the last three amounts. Its day is not certain: a roommate's share comes a day before the rent
one month and a day after it the next. So each stream keeps how its last occurrences fell
against its rule (:attr:`Rhythm.offsets`: a monthly one's days of the month against its day, a
weekly one's gaps against its period), and the simulation draws its day from them.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from itertools import pairwise

from chalicelib.insight.calendar import last_day_of_month
from chalicelib.insight.forecast.spending import is_transfer
from chalicelib.insight.transactions import Txn, stream_key

MIN_OCCURRENCES = 3
GAP_TOLERANCE = 0.3
_PERIODS = ((6, 8, 7), (12, 16, 14), (26, 35, 30))
#: The occurrences a stream's offsets are read from (the latest), and the most days one counts.
OFFSET_OCCURRENCES, MAX_OFFSET = 6, 3


@dataclass(frozen=True, slots=True)
class Rhythm:
    name: str
    #: Days between occurrences (30: monthly, on ``day_of_month``).
    period: int
    #: Cents, the transactions' sign (a deposit negative).
    amount: int
    last: date
    day_of_month: int
    ids: frozenset[str]
    #: How its latest occurrences fell against its rule, in days (each at most MAX_OFFSET).
    offsets: tuple[int, ...] = (0,)

    @property
    def frequency(self) -> str:
        return {7: "WEEKLY", 14: "BIWEEKLY"}.get(self.period, "MONTHLY")

    def days(self, as_of: date, until: date) -> list[date]:
        """Its occurrences after ``as_of`` up to ``until``."""
        out: list[date] = []
        if self.period != 30:
            day = self.last + timedelta(days=self.period)
            while day <= until:
                if day > as_of:
                    out.append(day)
                day += timedelta(days=self.period)
            return out
        year, month = as_of.year, as_of.month
        while True:
            day = date(year, month, min(self.day_of_month, last_day_of_month(year, month).day))
            if day > until:
                return out
            if day > as_of and (day - self.last).days >= 20:
                out.append(day)
            year, month = (year + 1, 1) if month == 12 else (year, month + 1)


def _period(gaps: Sequence[int]) -> int | None:
    middle = statistics.median(gaps)
    for low, high, period in _PERIODS:
        if low <= middle <= high:
            near = sum(1 for g in gaps if abs(g - period) <= GAP_TOLERANCE * period)
            return period if 4 * near >= 3 * len(gaps) else None
    return None


def rhythms(txns: Sequence[Txn], as_of: date, excluded: Collection[str]) -> list[Rhythm]:
    """The account's streams on a rhythm (see the module docstring); ``txns``: its visible ones."""
    groups: dict[tuple[str, bool], list[Txn]] = defaultdict(list)
    for t in txns:
        if t.txn_id in excluded or t.pending or not (t.amount < 0 or is_transfer(t)):
            continue
        groups[(stream_key(t), t.amount < 0)].append(t)
    found: list[Rhythm] = []
    for (name, _), group in sorted(groups.items()):
        days = sorted({t.day for t in group})
        if len(days) < MIN_OCCURRENCES:
            continue
        period = _period([(b - a).days for a, b in pairwise(days)])
        if period is None or (as_of - days[-1]).days > 1.5 * period:
            continue
        by_day: dict[date, int] = defaultdict(int)
        for t in group:
            by_day[t.day] += t.amount
        recent = [by_day[d] for d in days[-3:]]
        day_of_month = round(statistics.median(d.day for d in days[-3:]))
        found.append(
            Rhythm(
                name=name.title(),
                period=period,
                amount=round(statistics.median(recent)),
                last=days[-1],
                day_of_month=day_of_month,
                ids=frozenset(t.txn_id for t in group),
                offsets=_offsets(days, period, day_of_month),
            )
        )
    return found


def _offsets(days: Sequence[date], period: int, day_of_month: int) -> tuple[int, ...]:
    """How the latest occurrences fell against the rule: a monthly stream's days of the month
    against ``day_of_month`` (across a month's end, the nearer way), another's gaps against its
    period; each clipped to :data:`MAX_OFFSET` days."""
    latest = days[-OFFSET_OCCURRENCES:]
    if period == 30:
        raw = [_month_offset(day, day_of_month) for day in latest]
    else:
        raw = [(b - a).days - period for a, b in pairwise(days[-OFFSET_OCCURRENCES - 1 :])]
    return tuple(max(-MAX_OFFSET, min(MAX_OFFSET, off)) for off in raw) or (0,)


def _month_offset(day: date, day_of_month: int) -> int:
    """Days from ``day_of_month`` of ``day``'s month (or of the month before or after, whichever
    is nearest) to ``day``."""
    candidates = []
    for shift in (-1, 0, 1):
        month_index = day.year * 12 + day.month - 1 + shift
        year, month = divmod(month_index, 12)
        month += 1
        anchor = date(year, month, min(day_of_month, last_day_of_month(year, month).day))
        candidates.append((day - anchor).days)
    return min(candidates, key=abs)
