"""The forecast's uncertainty: a seeded Monte Carlo over the days ahead.

Each of ``PATHS`` simulated futures starts from today's balance and, day by day, adds:

* the day's expected everyday flow plus a **residual drawn from the history's own days**
  (a day's actual flow minus what the rates expected of it): spending's uncertainty, with its
  real skew and its heavy tail, no distribution assumed;
* the **rates' own error**, one draw per future: the rates are read from a few months of days,
  so a future's mean day may differ from them by about their standard error (a day's residual
  spread over the root of the days read), normally distributed; without it the futures agree
  on the rates and spread too little over two weeks;
* each bill due that day: its average, or for a bill whose amount varies, one of its recent
  charges drawn at random; a flow on a rhythm (a roommate's share, a second job's pay) on a
  day drawn from how its latest occurrences fell against its rule (one draw per occurrence and path);
* each payday's paycheck, one of the payer's last six drawn at random, on the predicted day
  or a business day either side, or on the days of one of the model's other readings of the
  deposits, with the payday model's probabilities (one draw per path: a bank that posts a day
  late posts every paycheck a day late);
  each flow on payday (``on_payday``, :mod:`.payday_flows`) at one of its recent amounts, the
  day the paycheck lands. A flow tied to payday that leads it (another app's advance) is one
  of the bills, at one of its recent amounts.

``risk`` is the share of futures whose end-of-day balance goes below 0 (below the threshold)
on some day from tomorrow to the next payday, that day included; the lowest balance's range
is the spread of each future's lowest day. The random generator is seeded from the inputs, so
the same inputs give the same forecast.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from itertools import accumulate, repeat
from operator import sub

from chalicelib.insight.forecast.bills import BillCharge
from chalicelib.insight.forecast.income import Payday, shift_probabilities, shifted
from chalicelib.insight.forecast.spending import DailyFlows

PATHS = 400


@dataclass(frozen=True, slots=True)
class Simulation:
    risk_below_zero: float
    risk_below_threshold: float | None
    #: The share of futures below the threshold on some day of the requested ones.
    threshold_within_days: float | None
    #: The 10th, 50th and 90th percentiles of the lowest balance over the requested days (cents).
    lowest_quantiles: tuple[int, int, int]


def rate_standard_error(residuals: Sequence[float]) -> float:
    """The standard error of the everyday rates: the spread of a day's residual over the root of
    the days the rates were read from (a future's mean day may be off by about that much)."""
    n = len(residuals)
    if n < 2:
        return 0.0
    mean = math.fsum(residuals) / n
    # (``statistics.pstdev`` is exact but computes in fractions: a thousand times slower here)
    return math.sqrt(math.fsum((r - mean) ** 2 for r in residuals) / n) / math.sqrt(n)


def _index(as_of: date, day: date) -> int:
    return (day - as_of).days - 1


def _landing(as_of: date, horizon: int, day: date) -> int:
    """The day index a payday lands on, clipped to the days simulated."""
    return min(horizon - 1, max(0, _index(as_of, day)))


def simulate(
    *,
    as_of: date,
    start: int,
    horizon: int,
    days: int,
    flows: DailyFlows,
    bills: Sequence[BillCharge],
    paydays: Sequence[Payday],
    payday_confidence: float,
    on_payday: Sequence[tuple[int, ...]] = (),
    alternatives: Sequence[tuple[float, Sequence[Payday]]] = (),
    threshold: int | None,
    seed: str,
    paths: int = PATHS,
) -> Simulation:
    """Simulate ``paths`` futures of ``horizon`` days (see the module docstring)."""
    rng = random.Random(seed)  # noqa: S311 - a reproducible simulation, not a secret
    base = [-flows.expected(as_of + timedelta(days=k + 1)) for k in range(horizon)]
    varying: list[tuple[int, int, tuple[int, ...]]] = []
    moving: list[tuple[int, int, tuple[int, ...], tuple[int, ...]]] = []
    for charge in bills:
        k = _index(as_of, charge.day)
        if 0 <= k < horizon:
            if any(charge.offsets):
                moving.append((k, charge.amount, charge.amounts, charge.offsets))
                continue
            base[k] -= charge.amount
            if charge.amounts:
                varying.append((k, charge.amount, charge.amounts))
    shifts = shift_probabilities(payday_confidence, sum(p for p, _ in alternatives))
    # The paydays of each way the pay may come (the answer moved by a shift, or another
    # reading), each payday's day index clipped to the horizon, and the probability of each.
    ways: list[tuple[Sequence[Payday], list[int]]] = [
        (paydays, [_landing(as_of, horizon, shifted(p.day, s)) for p in paydays]) for s, _ in shifts
    ]
    ways += [(days, [_landing(as_of, horizon, p.day) for p in days]) for _, days in alternatives]
    weights = [p for _, p in shifts] + [p for p, _ in alternatives]
    residuals = flows.residuals or (0.0,)
    rate_error = rate_standard_error(residuals)
    # ``rng.choices(residuals, k=horizon)``, inline: the same draws, without a call per future.
    draw, floor, count, days_ahead = rng.random, math.floor, float(len(residuals)), range(horizon)
    below_zero = below_threshold = 0
    lowest: list[float] = []
    for way in rng.choices(range(len(ways)), weights, k=paths):
        pay, landing = ways[way]
        # Money out: the day's residual, and this future's error in the rates (one per future).
        error = rng.gauss(0.0, rate_error) if rate_error else 0.0
        drawn = [residuals[floor(draw() * count)] for _ in days_ahead]
        row = list(map(sub, map(sub, base, drawn), repeat(error, horizon)))
        for k, mean, amounts in varying:
            row[k] += mean - rng.choice(amounts)
        for k, amount, amounts, offsets in moving:
            row[min(horizon - 1, max(0, k + rng.choice(offsets)))] -= rng.choice(amounts) if amounts else amount
        for payday, k in zip(pay, landing, strict=True):
            row[k] += rng.choice(payday.amounts) if payday.amounts else payday.amount
            for amounts in on_payday:
                row[k] -= rng.choice(amounts)
        balances = list(accumulate(row, initial=float(start)))
        end = landing[0] + 2 if landing else horizon + 1
        window_low = min(balances[1:end])
        below_zero += window_low < 0
        if threshold is not None:
            below_threshold += window_low < threshold
        lowest.append(min(balances[1 : days + 1]))
    lowest.sort()
    quantiles = tuple(round(lowest[min(paths - 1, int(q * paths))]) for q in (0.1, 0.5, 0.9))
    return Simulation(
        risk_below_zero=below_zero / paths,
        risk_below_threshold=below_threshold / paths if threshold is not None else None,
        threshold_within_days=sum(1 for x in lowest if x < threshold) / paths if threshold is not None else None,
        lowest_quantiles=(quantiles[0], quantiles[1], quantiles[2]),
    )
