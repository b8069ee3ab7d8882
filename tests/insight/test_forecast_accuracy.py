"""The forecast against what a synthetic world's later transactions did: a small sample of the
backtest's tuning seed (``make bench`` reports the worlds in full)."""

from __future__ import annotations

from dataclasses import replace
from functools import partial

from chalicelib.insight.forecast import forecast
from ops.bench_forecast import (
    HORIZON,
    TUNING_SEED,
    Case,
    Outcome,
    blind_generate,
    evaluate,
    figures,
    make_cases,
    probability_integral,
    score,
)
from ops.synthetic import holdout, users


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


def test_a_forecast_whose_next_payday_outlasts_the_worlds_feed_is_left_out_of_calibration() -> None:
    # GIVEN world D's user 18 of seed 7, paid monthly, seen 21 days after the world's as-of day:
    # its feed ends 35 days after that day, before the next paycheck
    [person] = [p for p in blind_generate(7, 19) if p.user_id == "bw7-00018"]
    [case] = make_cases("D", person, 21, 1)
    seen = [t for t in case.transactions if t["date"] <= case.as_of.isoformat()]
    # WHEN forecast and scored
    outcome = score(case, forecast(seen, case.accounts, case.as_of, HORIZON, case.threshold))
    # THEN its 14 days are scored, but whether it crossed before payday is unknown, not "no"
    assert case.known_days == 14 and outcome.true_lowest is not None
    assert outcome.censored and outcome.crossed_before_payday is None


def test_a_forecast_whose_next_payday_falls_inside_the_feed_is_calibrated() -> None:
    # GIVEN the same user seen on the world's as-of day, the next paycheck inside the feed
    [person] = [p for p in blind_generate(7, 19) if p.user_id == "bw7-00018"]
    [case] = make_cases("D", person, 0, 1)
    seen = [t for t in case.transactions if t["date"] <= case.as_of.isoformat()]
    # WHEN forecast and scored
    outcome = score(case, forecast(seen, case.accounts, case.as_of, HORIZON, case.threshold))
    # THEN whether it crossed before payday is known
    assert case.known_days == 35 and not outcome.censored
    assert outcome.crossed_before_payday is not None


def placed(case: Case) -> Outcome:
    """``case`` forecast and scored as the bench does a user-day's first draw, its truth placed."""
    seen = [t for t in case.transactions if t["date"] <= case.as_of.isoformat()]
    answer = forecast(seen, case.accounts, case.as_of, HORIZON, case.threshold)
    return probability_integral(score(case, answer), partial(forecast, seen, case.accounts, case.as_of, HORIZON))


def tomorrow_also(case: Case, cents: int) -> Case:
    """``case`` whose checking account pays out ``cents`` more the day after as-of (negative:
    receives them)."""
    account = f"{case.user_id}-chk"
    flows = dict(case.futures[account])
    flows[1] = flows.get(1, 0) + cents
    return replace(case, futures={**case.futures, account: flows})


def test_a_truth_far_below_every_forecast_future_falls_at_the_bottom_of_its_distribution() -> None:
    # GIVEN generator A's user 1, paid three days after as-of (the model has the day right),
    # whose true future also holds a $100,000 debit tomorrow
    [person] = users.generate(TUNING_SEED, 2)[1:]
    [case] = make_cases("A", person, 0, 1)
    # WHEN its truth is placed in the forecast's distribution
    outcome = placed(tomorrow_also(case, 100_000_00))
    # THEN the forecast gave no chance of a balance that low
    assert outcome.payday_right is True
    assert outcome.pit == 0.0


def test_a_truth_far_above_every_forecast_future_falls_at_the_top_of_its_distribution() -> None:
    # GIVEN the same user-day whose true future holds a $100,000 deposit tomorrow
    [person] = users.generate(TUNING_SEED, 2)[1:]
    [case] = make_cases("A", person, 0, 1)
    # WHEN its truth is placed
    outcome = placed(tomorrow_also(case, -100_000_00))
    # THEN every future the forecast drew went lower; untouched, the truth falls inside it
    untouched = placed(case).pit
    assert outcome.pit == 1.0
    assert untouched is not None and 0.0 < untouched < 1.0


def test_an_account_that_never_moves_is_placed_in_the_middle_of_its_forecast() -> None:
    # GIVEN world B's user 2 of seed 3, whose checking account only ever receives its
    # paychecks: every future the forecast draws, and the truth, stay at today's balance
    [case] = make_cases("B", holdout.generate(3, 3)[2], 0, 1)
    # WHEN its truth is placed in the forecast's distribution
    outcome = placed(case)
    # THEN it ties every future, and counts as the middle of them, not the bottom
    assert outcome.payday_right is True
    assert outcome.pit == 0.5
