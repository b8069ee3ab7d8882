"""The naive recurring-expense detector the model is measured against (not deployed).

What a first attempt looks like: per account and payee (the shared stream key), charges of a
similar amount (within 10 % of the cluster's first) seen at least three times, whose gaps vary
little (coefficient of variation at most 0.25); the frequency is read off the mean gap, the next
charge is the last one plus the median gap, and a stream whose last charge is more than one and
a half gaps old is dropped. No calendar, no transfer rules, no habit rules.
"""

from __future__ import annotations

import itertools
import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping
from datetime import date, timedelta
from typing import Any

from chalicelib.insight.transactions import Txn, stream_key, visible

AMOUNT_TOLERANCE = 0.10
MAX_GAP_CV = 0.25
#: Mean gap (days) → frequency; gaps outside every band are not recurring.
BANDS = (
    (5.0, 10.0, "WEEKLY"),
    (12.0, 14.6, "BIWEEKLY"),
    (14.6, 18.0, "SEMI_MONTHLY"),
    (25.0, 35.0, "MONTHLY"),
    (80.0, 100.0, "QUARTERLY"),
    (340.0, 390.0, "ANNUALLY"),
)


def _clusters(txns: list[Txn]) -> list[list[Txn]]:
    clusters: list[list[Txn]] = []
    for txn in txns:
        for cluster in clusters:
            if abs(txn.amount - cluster[0].amount) <= AMOUNT_TOLERANCE * cluster[0].amount:
                cluster.append(txn)
                break
        else:
            clusters.append([txn])
    return clusters


def naive_detect(transactions: Iterable[Mapping[str, Any]], as_of: date) -> list[dict[str, Any]]:
    groups: dict[tuple[str, str], list[Txn]] = defaultdict(list)
    for txn in visible(transactions, as_of):
        if txn.amount > 0:
            groups[(txn.account_id, stream_key(txn))].append(txn)
    found: list[dict[str, Any]] = []
    for (_, key), txns in groups.items():
        for cluster in _clusters(txns):
            if len(cluster) < 3:
                continue
            gaps = [(b.day - a.day).days for a, b in itertools.pairwise(cluster)]
            mean = statistics.fmean(gaps)
            if mean <= 0 or statistics.pstdev(gaps) / mean > MAX_GAP_CV:
                continue
            frequency = next((f for low, high, f in BANDS if low <= mean < high), None)
            if frequency is None or (as_of - cluster[-1].day).days > 1.5 * mean + 3:
                continue
            step = timedelta(days=round(statistics.median(gaps)))
            next_date = cluster[-1].day + step
            while next_date <= as_of:
                next_date += step
            found.append(
                {
                    "merchant": key.title(),
                    "frequency": frequency,
                    "average_amount": round(statistics.fmean(t.amount for t in cluster)),
                    "next_date": next_date,
                    "transaction_ids": [t.txn_id for t in cluster],
                }
            )
    return found
