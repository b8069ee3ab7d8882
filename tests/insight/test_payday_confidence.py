"""The confidence of a V2 payday: a calibrated probability that the date is exact."""

from __future__ import annotations

from dataclasses import replace

from chalicelib.insight.payday.confidence import ConfidenceInputs, confidence

CLEAR = ConfidenceInputs(probability=0.99, likeliest=True, matched=8, on_day=1.0, late=False, once=False)


def test_a_clear_schedule_is_near_certain_and_a_probability() -> None:
    assert 0.9 <= confidence(CLEAR) <= 1.0


def test_doubt_lowers_the_confidence() -> None:
    # a date the posterior doubts, a later date taken over the likeliest, deposits mostly off
    # their day, a last deposit missing, a schedule resting on one deposit
    for doubt in (
        replace(CLEAR, probability=0.4),
        replace(CLEAR, likeliest=False),
        replace(CLEAR, on_day=0.5),
        replace(CLEAR, late=True),
        replace(CLEAR, once=True, matched=1),
    ):
        assert 0.0 <= confidence(doubt) < confidence(CLEAR)
