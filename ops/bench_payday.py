"""Payday prediction, measured: accuracy against ground truth and CPU per prediction.

Three sets of synthetic users: the tuning generator's seed (what the model was tuned on), an
unseen seed of the same generator, and the separately written held-out generator (never
tuned on). Each user is predicted with 30, 60, 90 and 120 days of history by the model
(``chalicelib.insight.payday.predict``: the chain without Pave) and by the naive baseline
(last deposit + median gap, :mod:`ops.synthetic.baseline`). Per history length and true
cadence of the user's primary income:

- **exact**: the predicted next payday is the true one; an abstention on a user who has a
  payday counts as a miss;
- **±1 bd**: within one business day of it;
- **early**: predicted before the true payday (an advance collected before the money lands:
  the costly error); an abstention is never early;
- **cadence**: the predicted cadence is the true one;
- **abstain**: for users without a payday (gig-only, no income), the share given no date.

The ceiling line is the share of users whose payday went as their schedule said (no ACH
delay, no slipped early posting, no unpaid cycle): what a model that knew every schedule
would score; the "as scheduled" rows give the early rate on those paydays alone, since a
payday that comes later than its schedule is an early error no schedule model can avoid.
The policy line shows what predicting the later date when unsure costs and saves: the
model with that rule off (the single most probable schedule) on the tuning set.

Run: ``.venv/bin/python -m ops.bench_payday`` (also part of ``make bench``).
"""

from __future__ import annotations

import statistics
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from chalicelib.insight.payday import predict, v2
from chalicelib.insight.schedule import business_days_between
from chalicelib.insight.transactions import visible
from ops.synthetic import baseline, holdout, users
from ops.synthetic.users import SyntheticUser

HISTORIES = (30, 60, 90, 120)
CADENCES = ("WEEKLY", "BIWEEKLY", "SEMI_MONTHLY", "MONTHLY", "FOUR_WEEKLY")
USERS_PER_SET = 300
TUNING_SEED, UNSEEN_SEED, HOLDOUT_SEED = 1, 2, 3
TARGETS = "targets: exact >= 97% from 90 days, >= 95% at 60 days; early <= 1% everywhere; abstain >= 98%"

Predictor = Callable[[list[dict[str, Any]], date], tuple[date | None, str]]


def model(transactions: list[dict[str, Any]], as_of: date) -> tuple[date | None, str]:
    result = predict(transactions, as_of)
    return result.next_payday, result.cadence


def best_schedule_only(transactions: list[dict[str, Any]], as_of: date) -> tuple[date | None, str]:
    """V2 with "later when unsure" off: the most probable schedule's date (for the policy line)."""
    result = v2.analyse(visible(transactions, as_of), as_of, cost_ratio=1.0)
    answer = result.prediction
    if answer is None:
        return model(transactions, as_of)
    return answer.next_payday, answer.cadence


@dataclass
class Tally:
    n: int = 0
    exact: int = 0
    near: int = 0
    early: int = 0
    cadence: int = 0
    planned: int = 0  # paydays that went as scheduled
    planned_early: int = 0  # ... predicted early all the same

    def add(self, truth: SyntheticUser, predicted: date | None, cadence: str) -> None:
        payday, planned = truth.truth.next_payday, truth.truth.scheduled == truth.truth.next_payday
        assert payday is not None
        self.n += 1
        self.planned += planned
        self.cadence += cadence == truth.truth.cadence
        if predicted is None:
            return
        self.exact += predicted == payday
        self.near += abs(business_days_between(payday, predicted)) <= 1
        self.early += predicted < payday
        self.planned_early += planned and predicted < payday

    def rate(self, field: str) -> float:
        return getattr(self, field) / self.n if self.n else 0.0


@dataclass
class Scores:
    paid: dict[tuple[int, str], Tally]
    abstained: Counter[int]
    unpaid: int


def score(people: Sequence[SyntheticUser], predictor: Predictor, histories: Sequence[int] = HISTORIES) -> Scores:
    paid: dict[tuple[int, str], Tally] = defaultdict(Tally)
    abstained: Counter[int] = Counter()
    unpaid = 0
    for person in people:
        truth = person.truth
        unpaid += truth.next_payday is None
        for days in histories:
            predicted, cadence = predictor(person.history(days), person.as_of)
            if truth.next_payday is None:
                abstained[days] += predicted is None
                continue
            paid[(days, "all")].add(person, predicted, cadence)
            paid[(days, truth.cadence)].add(person, predicted, cadence)
    return Scores(paid, abstained, unpaid)


def _pct(value: float) -> str:
    return f"{100 * value:5.1f}%"


def report(title: str, people: Sequence[SyntheticUser], ours: Scores, base: Scores) -> None:
    with_payday = len(people) - ours.unpaid
    print(f"\n== {title}: {len(people)} users, {with_payday} with a payday, {ours.unpaid} without ==")
    print("history cadence          n |  exact model/base | ±1 bd model/base | early model/base | cadence model/base")
    for days in sorted({days for days, _ in ours.paid}):
        for cadence in ("all", *CADENCES):
            mine, theirs = ours.paid.get((days, cadence)), base.paid.get((days, cadence))
            if mine is None or theirs is None or not mine.n:
                continue
            cells = " | ".join(
                f"{_pct(mine.rate(f))} {_pct(theirs.rate(f))}" for f in ("exact", "near", "early", "cadence")
            )
            label = f"{days:>4}d" if cadence == "all" else ""
            print(f"{label:>7} {cadence:<14} {mine.n:>4} | {cells}")
        mine, theirs = ours.paid[(days, "all")], base.paid[(days, "all")]
        if mine.planned:
            print(
                f"{'':>7} as scheduled   {mine.planned:>4} | early: model {_pct(mine.planned_early / mine.planned)},"
                f" baseline {_pct(theirs.planned_early / mine.planned)} (paydays with no delay, slip or unpaid cycle)"
            )
        if ours.unpaid:
            held, guessed = ours.abstained[days] / ours.unpaid, base.abstained[days] / ours.unpaid
            print(f"{'':>7} no payday      {ours.unpaid:>4} | abstained: model {_pct(held)}, baseline {_pct(guessed)}")
    planned = [p for p in people if p.truth.next_payday is not None]
    on_schedule = sum(p.truth.next_payday == p.truth.scheduled for p in planned) / len(planned)
    print(f"ceiling: {_pct(on_schedule)} of paydays went as scheduled (no ACH delay, slipped early post, unpaid cycle)")


def policy(people: Sequence[SyntheticUser], ours: Scores, days: int = 90) -> None:
    alone = score(people, best_schedule_only, (days,)).paid[(days, "all")]
    mine = ours.paid[(days, "all")]
    print(
        f"policy at {days} days (tuning set): later-when-unsure exact {_pct(mine.rate('exact'))}, early"
        f" {_pct(mine.rate('early'))}; most probable schedule alone exact {_pct(alone.rate('exact'))},"
        f" early {_pct(alone.rate('early'))}"
    )


def typical_user(people: Sequence[SyntheticUser]) -> SyntheticUser:
    """A salaried biweekly user with the median number of visible transactions."""
    pool = [p for p in people if p.archetype == "salaried" and p.truth.cadence == "BIWEEKLY"]
    median = statistics.median(len(p.visible()) for p in pool)
    return min(pool, key=lambda p: (abs(len(p.visible()) - median), p.user_id))


def cpu_ms(person: SyntheticUser, predictor: Predictor, runs: int = 30) -> float:
    transactions = person.visible()
    predictor(transactions, person.as_of)  # warm caches (holidays, month starts) as a warm Lambda would
    started = time.process_time()
    for _ in range(runs):
        predictor(transactions, person.as_of)
    return (time.process_time() - started) * 1000 / runs


def main(count: int = USERS_PER_SET) -> int:
    print(f"Payday prediction vs ground truth ({TARGETS})")
    sets = (
        (f"tuning set (generator A, seed {TUNING_SEED})", users.generate(TUNING_SEED, count)),
        (f"unseen seed (generator A, seed {UNSEEN_SEED})", users.generate(UNSEEN_SEED, count)),
        (f"held-out generator B (seed {HOLDOUT_SEED})", holdout.generate(HOLDOUT_SEED, count)),
    )
    for n, (title, people) in enumerate(sets):
        ours, base = score(people, model), score(people, baseline.predict)
        report(title, people, ours, base)
        if n == 0:
            policy(people, ours)
    person = typical_user(sets[0][1])
    ours_ms, base_ms = cpu_ms(person, model), cpu_ms(person, baseline.predict)
    print(
        f"\nCPU per prediction, 120 days of a typical user ({len(person.visible())} transactions):"
        f" model {ours_ms:.1f} ms, baseline {base_ms:.1f} ms (ratio {ours_ms / base_ms:.1f}x; goal < 20 ms)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
