"""The confidence of a FloatMe V2 payday: the probability that the predicted date is exact.

A logistic model over what the schedule model knows when it answers: the posterior probability
of the date it chose and whether it is the most probable one, how many deposits the schedule
matched and how many on the day itself, how well it fits, how much the amounts vary, whether
the date was moved a day later for a bank whose early posting slips, and the cadence (a
monthly payday has fewer deposits to learn from). Its weights are fitted by
``ops/calibrate_payday.py`` on the tuning generator's seeds (never on the held-out generator)
and printed by it in the form below; the benchmark prints the reliability table (confidence
bucket against how often the date was exact) on every set. When another payer may be the
main income, the probability is halved.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: The logistic model's weights, in the order of :func:`features`, and its intercept: fitted on
#: 3,516 dated answers of generator A seeds 1, 2, 4 and 5 at 30-120 days (Brier score 0.037).
WEIGHTS = (0.4546, 1.8255, 0.6635, 0.0247, 1.4137, -0.1200, -1.2665, -4.6053, 0.1951)
INTERCEPT = -2.5064


@dataclass(frozen=True, slots=True)
class ConfidenceInputs:
    """What the schedule model knew when it chose the date."""

    probability: float  # posterior probability of the chosen date
    likeliest: bool  # it is the most probable date (not a later one taken to avoid an early one)
    matched: int  # deposits the best schedule matched
    on_day: float  # share of them on the expected day
    f1: float  # the best schedule's F1
    spread: float  # coefficient of variation of the recent amounts
    slipped: bool  # moved a business day later for a slipping bank
    hedged: bool  # another payer may be the main income: the later payday was taken
    monthly: bool  # the cadence is monthly (or every four weeks)


def features(inputs: ConfidenceInputs) -> list[float]:
    """The model's inputs as numbers (log-odds of the date's probability first)."""
    p = min(0.999, max(0.01, inputs.probability))
    return [
        math.log(p / (1 - p)),
        p,
        float(inputs.likeliest),
        min(inputs.matched, 8) / 8,
        inputs.on_day,
        inputs.f1,
        min(inputs.spread, 0.5),
        float(inputs.slipped),
        float(inputs.monthly),
    ]


def confidence(inputs: ConfidenceInputs) -> float:
    """The probability that the date is exact, rounded to three places; halved when another
    payer may be the main income (which one is a coin toss the tuning data do not show)."""
    z = INTERCEPT + sum(w * x for w, x in zip(WEIGHTS, features(inputs), strict=True))
    probability = 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))
    return round(probability / 2 if inputs.hedged else probability, 3)
