"""The plain schedule fit, the baseline the payday model must beat: no priors, nothing learned.

1. Group the payroll candidates' deposits by payer (the model's exclusion rules and payer
   names, every account together).
2. Fit each standard schedule, with its business-day roll (a closed payday paid the business
   day before) and a bank's early posting (0-2 business days), to each payer's deposit days:
   weekly on a weekday, every other week on a weekday, twice a month (the 1st and 15th, the 15th
   and the last day, the 5th and 20th), monthly (a day of the month, the last business day, an
   nth weekday).
3. Keep the schedule that explains the most deposits: deposits posted on one of its days,
   less its days without a deposit (so weekly does not win every biweekly payer); a payer needs
   two more of the first than of the second.
4. Among payers, the one that paid the most in the last 45 days; answer its schedule's next date.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from datetime import date, timedelta
from functools import lru_cache
from typing import Any

from chalicelib.insight.payday.candidates import candidate_streams
from chalicelib.insight.payday.types import NO_CADENCE
from chalicelib.insight.schedule import LAST_DAY, Roll, Schedule
from chalicelib.insight.transactions import visible

RECENT_DAYS = 45
#: The span the schedules' posting days are listed for once (the benchmark's users live in it).
SPAN = (date(2020, 1, 1), date(2030, 12, 31))


@lru_cache(maxsize=1)
def standard_schedules() -> tuple[Schedule, ...]:
    monday = date(2024, 1, 1)
    rules = [Schedule.weekly(weekday) for weekday in range(5)]
    rules += [Schedule.biweekly(monday + timedelta(days=n)) for n in range(14) if n % 7 < 5]
    rules += [Schedule.semi_monthly(a, b) for a, b in ((1, 15), (15, LAST_DAY), (5, 20))]
    rules += [Schedule.monthly(day) for day in range(1, LAST_DAY + 1)]
    rules += [Schedule.nth_weekday(nth, weekday) for nth in (1, 2, 3, 4, -1) for weekday in range(5)]
    return tuple(rule.posting(Roll.PREV, shift) for rule in rules for shift in (0, 1, 2))


@lru_cache(maxsize=1)
def _postings() -> tuple[tuple[Schedule, list[int], frozenset[int]], ...]:
    """Each standard schedule with its posting days over :data:`SPAN` (ordinals, sorted and as a set)."""
    out = []
    for schedule in standard_schedules():
        days = [d.toordinal() for d in schedule.dates(*SPAN)]
        out.append((schedule, days, frozenset(days)))
    return tuple(out)


def best_schedule(days: set[date], as_of: date) -> tuple[Schedule, int] | None:
    """The standard schedule explaining the most of ``days`` (less its days without one), and
    that margin; None when no schedule explains two deposits more than it misses."""
    seen = {d.toordinal() for d in days}
    lo, hi = min(seen), as_of.toordinal()
    best: tuple[int, int, int, Schedule] | None = None
    for n, (schedule, posting, posting_set) in enumerate(_postings()):
        expected = bisect.bisect_right(posting, hi) - bisect.bisect_left(posting, lo)
        hits = len(seen & posting_set)
        key = (2 * hits - expected, -schedule.shift, -n, schedule)
        if best is None or key[:3] > best[:3]:
            best = key
    if best is None or best[0] < 2:
        return None
    return best[3], best[0]


def predict(transactions: list[dict[str, Any]], as_of: date) -> tuple[date | None, str]:
    """``(next payday or None, cadence)``."""
    days: dict[str, set[date]] = defaultdict(set)
    recent: dict[str, int] = defaultdict(int)
    for stream in candidate_streams(visible(transactions, as_of)):
        for deposit in stream.deposits:
            days[stream.payer].add(deposit.day)
            if (as_of - deposit.day).days < RECENT_DAYS:
                recent[stream.payer] += deposit.cents
    fitted = {}
    for payer, seen in days.items():
        found = best_schedule(seen, as_of) if len(seen) >= 2 else None
        if found is not None:
            fitted[payer] = found[0]
    if not fitted:
        return None, NO_CADENCE
    payer = max(fitted, key=lambda p: (recent[p], p))
    schedule = fitted[payer]
    return schedule.next_dates(as_of, 1)[0], schedule.cadence.value
