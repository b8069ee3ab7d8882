"""The confidence of a FloatMe V2 payday: the probability that the predicted date is exact.

The schedule model's own probability of the date (its posterior) knows only the readings of
the deposits; what else makes a date wrong (a payday the world moves: a delay, a missed
cycle) shows in a few more facts. A logistic model maps the posterior's log-odds and those
facts to a calibrated probability: whether a later date was taken over the likeliest, the
share of the deposits the schedule matched on the day itself, whether the last expected
deposit is missing, and whether the schedule rests on one deposit. Its weights are fitted by
``ops/calibrate_payday.py`` on the tuning world only; the benchmark prints its reliability
table (stated against observed exactness, per decile) on the worlds it was not fitted on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: The logistic model's weights, in the order of :func:`features`, and its intercept: fitted on
#: 3,664 dated answers of world A's tuning seeds 1, 2, 4 and 5 at 60-180 days (Brier score 0.032).
WEIGHTS = (0.5000, -0.4893, 3.2662, -0.9414, -0.0815)
INTERCEPT = -2.4670


@dataclass(frozen=True, slots=True)
class ConfidenceInputs:
    """What the schedule model knew when it chose the date."""

    probability: float  # posterior probability of the chosen date
    likeliest: bool  # it is the most probable date (not a later one taken to avoid an early one)
    matched: int  # deposits the best schedule matched
    on_day: float  # share of them on the expected day
    late: bool  # the last expected deposit has not come
    once: bool  # the schedule rests on one deposit


def features(inputs: ConfidenceInputs) -> list[float]:
    """The model's inputs as numbers (log-odds of the date's probability first)."""
    p = min(0.999, max(0.001, inputs.probability))
    return [
        math.log(p / (1 - p)),
        float(not inputs.likeliest),
        inputs.on_day,
        float(inputs.late),
        float(inputs.once),
    ]


def confidence(inputs: ConfidenceInputs) -> float:
    """The calibrated probability that the date is exact, rounded to three places."""
    z = INTERCEPT + sum(w * x for w, x in zip(WEIGHTS, features(inputs), strict=True))
    return round(1 / (1 + math.exp(-max(-30.0, min(30.0, z)))), 3)
