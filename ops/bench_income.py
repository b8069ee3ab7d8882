"""Income detection, measured: stream-level precision, recall and F1 of "is income" per method.

Three sets of synthetic users, each seen with 60 and 120 days of history:

- the model's **training** users (generator A with the income-detection inflows, seed 1:
  the first of the users it was fitted on), to show the gap to unseen data;
- an **unseen seed** of the same world (seed 2);
- the **held-out generator B** (seed 3), written separately, never trained on and never
  augmented: its employers, formats and gig payouts are new to the model. Every inflow it
  makes that is not income is removed by the exclusion rules, so on B precision is 1 for
  every method and the figures measure recall.

A stream is income when at least half of its transactions are income by the generator's own
labels; income the exclusion rules removed counts as missed by every method. Rows: the rule
methods a-d, the rules' vote (two agree: what answers when the model is off), the model, and
every stream that passed the exclusions (what the exclusion rules alone achieve). Last, the
CPU time of one detection over a typical user's 120 days, with and without the model.

Run: ``.venv/bin/python -m ops.bench_income`` (also part of ``make bench``).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from chalicelib.insight.income import RULE_VOTES, detect, features, load_model
from chalicelib.insight.income.methods import RULES
from chalicelib.insight.income.profile import Profile
from ops.income_eval import Classifier, UserStreams, counts, score, user_streams
from ops.synthetic import inflows
from ops.synthetic.income_labels import LabelledUser, labelled

USERS_PER_SET = 300
HISTORIES = (60, 120)
TRAINING_SEED, UNSEEN_SEED, HOLDOUT_SEED = 1, 2, 3


def classifiers() -> dict[str, Classifier]:
    model = load_model()

    def by_model(p: Profile) -> bool:
        return model.probability(features.vector(p)) >= model.threshold

    def vote(p: Profile) -> bool:
        return sum(rule(p) for rule in RULES.values()) >= RULE_VOTES

    def everything(p: Profile) -> bool:
        return True

    names = {"a": "a category", "b": "b description", "c": "c schedule", "d": "d regularity"}
    out: dict[str, Classifier] = {names[n]: rule for n, rule in RULES.items()}
    out["rules vote (>= 2)"] = vote
    out["ml (the model)"] = by_model
    out["all after exclusions"] = everything
    return out


def report(title: str, people: Sequence[LabelledUser]) -> dict[int, dict[str, Any]]:
    methods = classifiers()
    print(f"\n== {title}: {len(people)} users ==")
    print("history  method                 precision  recall     F1")
    figures: dict[int, dict[str, Any]] = {}
    for days in HISTORIES:
        streams: list[UserStreams] = [user_streams(p, days) for p in people]
        total, income, lost = counts(streams)
        scores = score(streams, methods)
        figures[days] = scores
        for n, (name, s) in enumerate(scores.items()):
            label = f"{days:>4}d" if n == 0 else ""
            print(f"{label:>7}  {name:<22} {100 * s.precision:6.1f}%  {100 * s.recall:6.1f}%  {s.f1:6.3f}")
        print(f"{'':>7}  {total} streams, {income} income ({lost} removed by the exclusion rules)")
    return figures


def typical_user(people: Sequence[LabelledUser]) -> LabelledUser:
    """A user with the median number of visible transactions among those with two streams or more."""
    pool = [p for p in people if len(user_streams(p, 120).examples) >= 2] or list(people)
    median = statistics.median(len(p.user.visible()) for p in pool)
    return min(pool, key=lambda p: (abs(len(p.user.visible()) - median), p.user.user_id))


def cpu_ms(person: LabelledUser, run: Callable[[list[dict[str, Any]]], object], runs: int = 20) -> float:
    transactions = person.user.visible()
    run(transactions)  # warm caches (holidays, the weights) as a warm Lambda would
    started = time.process_time()
    for _ in range(runs):
        run(transactions)
    return (time.process_time() - started) * 1000 / runs


def main(count: int = USERS_PER_SET) -> int:
    model = load_model()
    print(f"Income detection vs ground truth: stream-level precision / recall / F1 (model {model.prediction_id})")
    report(
        f"training users (generator A + inflows, seed {TRAINING_SEED})",
        [inflows.make_user(TRAINING_SEED, i) for i in range(count)],
    )
    unseen = [inflows.make_user(UNSEEN_SEED, i) for i in range(count)]
    report(f"unseen seed (generator A + inflows, seed {UNSEEN_SEED})", unseen)
    report(f"held-out generator B (seed {HOLDOUT_SEED})", [labelled("B", HOLDOUT_SEED, i) for i in range(count)])
    person = typical_user(unseen)
    as_of = person.user.as_of
    with_ml = cpu_ms(person, lambda t: detect(t, as_of))
    rules = cpu_ms(person, lambda t: detect(t, as_of, ml_enabled=False))
    print(
        f"\nCPU per detection, 120 days of a typical user ({len(person.user.visible())} transactions):"
        f" with the model {with_ml:.1f} ms, rules only {rules:.1f} ms"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
