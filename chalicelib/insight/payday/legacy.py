"""FloatMe (legacy): the simple guess the chain always computes and falls back on.

Income is any inflow Plaid categorises as income (a v1 or v2 income category other than tax
refunds, interest and dividends) or as legacy "Payroll"; the payer with the most of it that
paid on two or more days is the source. The next payday is its last deposit plus the median
gap between its deposits (repeated until after ``as_of``), moved back to a Fed business day
(forward if that is not after ``as_of``; the answer's ``moved_from`` then keeps the projected
day); the cadence is read off the gap. No calendar
rules, no early posting, no exclusions beyond the categories: a baseline, and an answer when
the schedule model cannot run.
"""

from __future__ import annotations

import itertools
import statistics
from collections import defaultdict
from collections.abc import Sequence
from datetime import date, timedelta

from chalicelib.insight.calendar import next_business_day, previous_business_day
from chalicelib.insight.payday.candidates import INCOME_CATEGORIES
from chalicelib.insight.payday.collection import collection_dates
from chalicelib.insight.payday.types import NO_CADENCE, Detection, PaydayPrediction
from chalicelib.insight.transactions import Txn, stream_key

_GAP_CADENCES = ((10, "WEEKLY"), (14, "BIWEEKLY"), (17, "SEMI_MONTHLY"), (35, "MONTHLY"))


def cadence_of_gap(gap: float) -> str:
    """The cadence a median gap in days reads as (NONE past five weeks or under four days)."""
    if gap < 4:
        return NO_CADENCE
    return next((name for limit, name in _GAP_CADENCES if gap <= limit), NO_CADENCE)


def _is_income(txn: Txn) -> bool:
    return txn.amount < 0 and (txn.pfc_detailed in INCOME_CATEGORIES or any("Payroll" in c for c in txn.category))


def predict(txns: Sequence[Txn], as_of: date) -> PaydayPrediction:
    """The legacy guess for visible transactions (see the module docstring)."""
    by_payer: dict[str, list[Txn]] = defaultdict(list)
    for t in txns:
        if _is_income(t):
            by_payer[stream_key(t)].append(t)
    payers = [(k, v) for k, v in by_payer.items() if len({t.day for t in v}) >= 2]
    if not payers:
        return PaydayPrediction.none(Detection.FLOATME, "fewer than two income deposits from any payer")
    payer, deposits = max(payers, key=lambda p: (sum(t.cents for t in p[1]), p[0]))
    days = sorted({t.day for t in deposits})
    gap = statistics.median(b.toordinal() - a.toordinal() for a, b in itertools.pairwise(days))
    cadence = cadence_of_gap(gap)
    if cadence == NO_CADENCE:
        return PaydayPrediction.none(Detection.FLOATME, f"income from {payer} comes every {gap:.0f} days")
    step = timedelta(days=round(gap))
    upcoming = [days[-1] + step]
    while upcoming[0] <= as_of:
        upcoming[0] += step
    upcoming.append(upcoming[0] + step)
    projected = upcoming[0]
    upcoming = [_business(d, as_of) for d in upcoming]
    return PaydayPrediction(
        Detection.FLOATME,
        upcoming[0],
        cadence,
        0.3,
        source=payer.title(),
        collection=collection_dates(upcoming),
        upcoming=tuple(upcoming),
        schedule=f"last deposit {days[-1].isoformat()} + every {gap:.0f} days",
        moved_from=projected if projected != upcoming[0] else None,
    )


def _business(day: date, as_of: date) -> date:
    moved = previous_business_day(day)
    return moved if moved > as_of else next_business_day(as_of + timedelta(days=1))
