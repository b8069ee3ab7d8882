"""The forecast against what a synthetic world's later transactions did: a small sample of the
backtest's tuning seed (``make bench`` reports the three worlds in full)."""

from __future__ import annotations

from ops.bench_forecast import TUNING_SEED, evaluate, figures, make_cases
from ops.synthetic import users


def test_the_forecast_beats_the_naive_baseline_on_a_sample_of_generator_a() -> None:
    # GIVEN 15 generated users, each seen on three days with two starting balances
    people = users.generate(TUNING_SEED, 15)
    groups = [make_cases("A", person, offset, 2) for person in people for offset in (0, 14, 28)]
    # WHEN forecast
    found = figures(evaluate(groups))
    # THEN the 14-day lowest balance is far closer than the naive line's, and crossings are told
    assert found.n >= 60
    assert found.model_median <= 0.5 * found.naive_median, (found.model_median, found.naive_median)
    assert found.precision >= 0.75 and found.recall >= 0.75, (found.precision, found.recall)
