"""The detector against generated ground truth: a small sample of the benchmark's development set
(``make bench`` reports the full sets, and a held-out one)."""

from __future__ import annotations

from chalicelib.insight.recurring import detect
from ops.bench_recurring import DEVELOPMENT_SEED, evaluate
from ops.recurring_baseline import naive_detect
from ops.synthetic.spending import generate


def test_the_detector_finds_generated_recurring_expenses_with_a_margin_over_the_goal() -> None:
    # GIVEN 12 generated users, each seen on two days with the 120 days the service keeps
    users = list(generate(DEVELOPMENT_SEED, 12))
    # WHEN both detectors run
    model = evaluate(detect, users, 120)
    baseline = evaluate(naive_detect, users, 120)
    # THEN the model clears the F1 goal (0.95) with a margin, and far above the naive baseline
    assert model.true_positives > 150
    assert model.f1 >= 0.97, (model.precision, model.recall)
    assert model.f1 >= baseline.f1 + 0.1
    # AND its next charge days are right for nearly every stream it finds
    assert model.share(model.next_exact) >= 0.9
    assert model.share(model.frequency_right) >= 0.98
