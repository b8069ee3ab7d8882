"""The plain reference detector the model is measured against (not deployed).

What a careful first attempt looks like, with nothing learned from either synthetic world:

* outflows grouped by normalized payee (:func:`chalicelib.insight.transactions.stream_key`:
  Plaid's merchant name, else the statement line without card and ACH noise) and, within a
  payee, by amount level (sorted amounts, a new level where one is more than
  ``LEVEL_TOLERANCE`` above the previous);
* a level of at least two charges is a stream when its median gap between posting days sits
  within ``GAP_SLACK_DAYS`` of a week, two weeks, a month (30.4 days) or a quarter (91.3 days),
  and so does every gap;
* the next date is the last charge's posting day plus one period (calendar months for monthly
  and quarterly streams, days for the others), stepped past ``as_of``; a stream whose last
  charge is more than a period and ``GAP_SLACK_DAYS`` old has stopped.

No transfer rules, no calendar, no habits: the figures show what the model's rules buy.
"""

from __future__ import annotations

import calendar
import itertools
import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping
from datetime import date, timedelta
from typing import Any

from chalicelib.insight.transactions import Txn, stream_key, visible

LEVEL_TOLERANCE = 0.05
GAP_SLACK_DAYS = 3
#: (period in days, frequency, months per period or 0 for a period counted in days)
PERIODS = ((7.0, "WEEKLY", 0), (14.0, "BIWEEKLY", 0), (30.4, "MONTHLY", 1), (91.3, "QUARTERLY", 3))


def _levels(txns: list[Txn]) -> list[list[Txn]]:
    levels: list[list[Txn]] = []
    for txn in sorted(txns, key=lambda t: t.amount):
        if levels and txn.amount <= levels[-1][-1].amount * (1 + LEVEL_TOLERANCE):
            levels[-1].append(txn)
        else:
            levels.append([txn])
    return [sorted(level, key=lambda t: (t.day, t.txn_id)) for level in levels]


def _add_months(day: date, months: int, anchor: int) -> date:
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    return date(year, month + 1, min(anchor, calendar.monthrange(year, month + 1)[1]))


def _next(last: date, days: float, months: int, as_of: date) -> date:
    step = 1
    while True:
        following = _add_months(last, months * step, last.day) if months else last + timedelta(days=days * step)
        if following > as_of:
            return following
        step += 1


def reference_detect(transactions: Iterable[Mapping[str, Any]], as_of: date) -> list[dict[str, Any]]:
    """The reference's streams at ``as_of`` (see the module docstring), in the model's fields."""
    payees: dict[str, list[Txn]] = defaultdict(list)
    for txn in visible(transactions, as_of):
        if txn.amount > 0:
            payees[stream_key(txn)].append(txn)
    found: list[dict[str, Any]] = []
    for key, txns in payees.items():
        for level in _levels(txns):
            days = sorted({t.day for t in level})
            if len(days) < 2:
                continue
            gaps = [(b - a).days for a, b in itertools.pairwise(days)]
            median = statistics.median(gaps)
            period = next((p for p in PERIODS if abs(median - p[0]) <= GAP_SLACK_DAYS), None)
            if period is None or any(abs(gap - period[0]) > GAP_SLACK_DAYS for gap in gaps):
                continue
            length, frequency, months = period
            if (as_of - days[-1]).days > length + GAP_SLACK_DAYS:
                continue
            found.append(
                {
                    "merchant": key.title(),
                    "frequency": frequency,
                    "average_amount": round(statistics.fmean(t.amount for t in level)),
                    "next_date": _next(days[-1], length, months, as_of),
                    "transaction_ids": [t.txn_id for t in level],
                }
            )
    return found
