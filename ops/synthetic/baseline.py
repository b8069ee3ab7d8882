"""The naive baseline the payday model is measured against: the last deposit of the largest
payroll-candidate payer plus the median gap between its deposits, repeated until after
``as_of``; the cadence read off the gap. It shares the model's candidate selection, so the
comparison isolates the schedule model (calendar rules, rolls, early posting, abstention)."""

from __future__ import annotations

import itertools
import statistics
from datetime import date, timedelta
from typing import Any

from chalicelib.insight.payday.candidates import candidate_streams
from chalicelib.insight.payday.legacy import cadence_of_gap
from chalicelib.insight.payday.types import NO_CADENCE
from chalicelib.insight.transactions import visible


def predict(transactions: list[dict[str, Any]], as_of: date) -> tuple[date | None, str]:
    """``(next payday or None, cadence)``."""
    streams = [s for s in candidate_streams(visible(transactions, as_of)) if len(s.deposits) >= 2]
    if not streams:
        return None, NO_CADENCE
    stream = max(streams, key=lambda s: sum(d.cents for d in s.deposits))
    days = stream.days
    gap = statistics.median(b.toordinal() - a.toordinal() for a, b in itertools.pairwise(days))
    step = timedelta(days=max(1, round(gap)))
    nxt = days[-1] + step
    while nxt <= as_of:
        nxt += step
    return nxt, cadence_of_gap(gap)
