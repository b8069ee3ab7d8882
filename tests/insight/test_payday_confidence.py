"""The confidence of a V2 payday: a calibrated probability that the date is exact."""

from __future__ import annotations

from dataclasses import replace

from chalicelib.insight.payday.confidence import ConfidenceInputs, confidence

CLEAR = ConfidenceInputs(
    probability=0.99,
    likeliest=True,
    matched=8,
    on_day=1.0,
    f1=1.0,
    spread=0.01,
    slipped=False,
    hedged=False,
    monthly=False,
)


def test_a_clear_schedule_is_near_certain_and_a_probability() -> None:
    assert 0.9 <= confidence(CLEAR) <= 1.0


def test_doubt_lowers_the_confidence() -> None:
    # a date the posterior doubts, a later date taken to avoid an early one, few deposits
    # mostly off the day, a slipping bank, another payer that may be the main income
    for doubt in (
        replace(CLEAR, probability=0.3),
        replace(CLEAR, probability=0.3, likeliest=False),
        replace(CLEAR, matched=2, on_day=0.5),
        replace(CLEAR, slipped=True),
        replace(CLEAR, hedged=True),
    ):
        assert 0.0 <= confidence(doubt) < confidence(CLEAR)
    assert confidence(replace(CLEAR, hedged=True)) <= confidence(CLEAR) / 2 + 0.001
