"""Payday prediction, measured: accuracy against ground truth and CPU per prediction.

Sets of synthetic users: the tuning generator's seeds the model was tuned on, seeds of the same
generator it never saw, and the separately written held-out generator (never tuned on). Each
user is predicted with 30, 60, 90 and 120 days of history by the model
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

Below each history length: the early rate on paydays that went **as scheduled** (no ACH delay,
no slipped early posting, no unpaid cycle: a payday that comes later than its schedule is an
early error no date predictor can avoid, so this is the model's own early rate), and the
**ceilings**: the share of paydays that went as scheduled (what a model knowing every schedule
would score), and of those the share whose paying stream had two deposits or more in the
window (with fewer, no schedule can be known: a new job paid once, deposits lost from the
feed). Per set, the **reliability** of the model's confidence (predictions at 60 days and more,
by confidence bucket: how often the date was exact or early), and the **policy** lines at 60
and 90 days: the model with its early-to-late cost ratio against V2 predicting the most probable
date (ratio 1), which shows what the never-early policy costs in exactness and buys in early
errors. Last per set, the **schedule oracle**: a predictor told what no history shows (each
user's pay schedule, the bank's usual posting and whether it slips, a new job's schedule), but
not what happens after ``as_of``. It bounds every predictor: where even it cannot be exact for
97% of paydays while early on at most 1%, a model can only by luck (:func:`oracle`).

Run: ``.venv/bin/python -m ops.bench_payday`` (also part of ``make bench``);
``--survey N`` runs only the oracle, on N seeds of the tuning generator that no other figure uses.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any, NamedTuple

from chalicelib.insight.payday import predict, v2
from chalicelib.insight.schedule import business_days_between
from chalicelib.insight.transactions import visible
from ops.synthetic import baseline, fedcal, holdout, users
from ops.synthetic.users import SyntheticUser

HISTORIES = (30, 60, 90, 120)
CADENCES = ("WEEKLY", "BIWEEKLY", "SEMI_MONTHLY", "MONTHLY", "FOUR_WEEKLY")
USERS_PER_SET = 300
#: (title, generator, seed): tuned on, never seen while tuning, held out.
SETS = (
    ("tuning set (generator A, seed 1)", "A", 1),
    ("unseen seed (generator A, seed 11)", "A", 11),
    ("held-out generator B (seed 3, examined while tuning)", "B", 3),
    ("held-out generator B, unseen seed (seed 13)", "B", 13),
)
TARGETS = "targets: exact >= 97% from 90 days, >= 95% at 60 days; early <= 1% everywhere; abstain >= 98%"
#: The joint target the oracle is judged by at 90 days: exact for this share, early on at most that.
EXACT_TARGET, EARLY_TARGET = 0.97, 0.01
#: Seeds of the tuning generator for the oracle survey (``--survey``): none is used elsewhere.
SURVEY_FIRST_SEED = 20
#: Confidence buckets of the reliability table (lower bounds).
BUCKETS = (0.0, 0.2, 0.4, 0.6, 0.8, 0.9)


class Answer(NamedTuple):
    next_payday: date | None
    cadence: str
    confidence: float | None = None


Predictor = Callable[[list[dict[str, Any]], date], Answer]


def model(transactions: list[dict[str, Any]], as_of: date) -> Answer:
    result = predict(transactions, as_of)
    return Answer(result.next_payday, result.cadence, result.confidence)


def naive(transactions: list[dict[str, Any]], as_of: date) -> Answer:
    return Answer(*baseline.predict(transactions, as_of))


def most_probable(transactions: list[dict[str, Any]], as_of: date) -> Answer:
    """V2 predicting the most probable date (cost ratio 1), for the policy line."""
    answer = v2.analyse(visible(transactions, as_of), as_of, cost_ratio=1.0).prediction
    if answer is None:
        return model(transactions, as_of)
    return Answer(answer.next_payday, answer.cadence, answer.confidence)


def knowable(person: SyntheticUser, days: int) -> bool:
    """The payday went as scheduled and its stream had two deposits or more in the window."""
    truth = person.truth
    return truth.next_payday == truth.scheduled and shown(person, days)


def shown(person: SyntheticUser, days: int) -> bool:
    """The primary's stream had two deposits or more in the window of ``days``: with fewer
    (a new job paid once, deposits the feed lost) no history tells its schedule."""
    facts = person.truth.facts
    if facts is None:
        return False
    first = person.as_of - timedelta(days=days - 1)
    return sum(1 for d in facts.paid if d >= first and d not in facts.lost) >= 2


@dataclass
class Tally:
    n: int = 0
    exact: int = 0
    near: int = 0
    early: int = 0
    cadence: int = 0
    planned: int = 0  # paydays that went as scheduled
    planned_early: int = 0  # ... predicted early all the same
    known: int = 0  # ... whose stream had two deposits or more in the window

    def add(self, person: SyntheticUser, days: int, answer: Answer) -> None:
        truth = person.truth
        payday, planned = truth.next_payday, truth.scheduled == truth.next_payday
        assert payday is not None
        predicted = answer.next_payday
        self.n += 1
        self.planned += planned
        self.known += knowable(person, days)
        self.cadence += answer.cadence == truth.cadence
        if predicted is None:
            return
        self.exact += predicted == payday
        self.near += abs(business_days_between(payday, predicted)) <= 1
        self.early += predicted < payday
        self.planned_early += planned and predicted < payday

    def rate(self, name: str) -> float:
        return getattr(self, name) / self.n if self.n else 0.0


@dataclass
class Scores:
    paid: dict[tuple[int, str], Tally]
    abstained: Counter[int]
    unpaid: int
    #: (confidence, exact, early) of each dated answer on a user with a payday, by history length
    confidences: dict[int, list[tuple[float, bool, bool]]] = field(default_factory=dict)


def score(people: Sequence[SyntheticUser], predictor: Predictor, histories: Sequence[int] = HISTORIES) -> Scores:
    paid: dict[tuple[int, str], Tally] = defaultdict(Tally)
    abstained: Counter[int] = Counter()
    confidences: dict[int, list[tuple[float, bool, bool]]] = defaultdict(list)
    unpaid = 0
    for person in people:
        truth = person.truth
        unpaid += truth.next_payday is None
        for days in histories:
            answer = predictor(person.history(days), person.as_of)
            if truth.next_payday is None:
                abstained[days] += answer.next_payday is None
                continue
            paid[(days, "all")].add(person, days, answer)
            paid[(days, truth.cadence)].add(person, days, answer)
            if answer.next_payday is not None and answer.confidence is not None:
                hit, early = answer.next_payday == truth.next_payday, answer.next_payday < truth.next_payday
                confidences[days].append((answer.confidence, hit, early))
    return Scores(paid, abstained, unpaid, confidences)


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
            print(
                f"{'':>7} ceiling        {mine.n:>4} | {_pct(mine.rate('planned'))} went as scheduled,"
                f" {_pct(mine.rate('known'))} as scheduled with two deposits or more of their stream in the window"
            )
        if ours.unpaid:
            held, guessed = ours.abstained[days] / ours.unpaid, base.abstained[days] / ours.unpaid
            print(f"{'':>7} no payday      {ours.unpaid:>4} | abstained: model {_pct(held)}, baseline {_pct(guessed)}")
    if ours.confidences:
        reliability(ours)


def reliability(ours: Scores, least_days: int = 60) -> None:
    """Predicted confidence against how often the date was exact (and early), by bucket."""
    answers = [a for days, group in ours.confidences.items() if days >= least_days for a in group]
    if not answers:
        return
    print(f"reliability (dated answers, {least_days} days of history and more): confidence -> exact, early")
    for n, low in enumerate(BUCKETS):
        high = BUCKETS[n + 1] if n + 1 < len(BUCKETS) else 1.01
        group = [a for a in answers if low <= a[0] < high]
        if group:
            mean = statistics.fmean(c for c, _, _ in group)
            hits, early = sum(h for _, h, _ in group) / len(group), sum(e for _, _, e in group) / len(group)
            print(
                f"   [{low:.1f}, {min(high, 1.0):.1f}) n {len(group):>4}: mean confidence {_pct(mean)},"
                f" exact {_pct(hits)}, early {_pct(early)}"
            )
    brier = statistics.fmean((c - h) ** 2 for c, h, _ in answers)
    print(f"   Brier score {brier:.3f} (confidence as the probability of an exact date)")


def policy(people: Sequence[SyntheticUser], ours: Scores, histories: Sequence[int] = (60, 90)) -> None:
    alone = score(people, most_probable, tuple(histories))
    for days in histories:
        mine, theirs = ours.paid[(days, "all")], alone.paid[(days, "all")]
        print(
            f"policy at {days} days: cost ratio {v2.EARLY_COST_RATIO:g} exact {_pct(mine.rate('exact'))},"
            f" early {_pct(mine.rate('early'))} (as scheduled {_pct(mine.planned_early / max(1, mine.planned))});"
            f" most probable date (ratio 1) exact {_pct(theirs.rate('exact'))}, early {_pct(theirs.rate('early'))}"
            f" (as scheduled {_pct(theirs.planned_early / max(1, theirs.planned))})"
        )


@dataclass
class Oracle:
    """The schedule oracle's two answers on a set's users with a payday (see :func:`oracle`)."""

    n: int = 0
    deviated: Counter[str] = field(default_factory=Counter)  # why a payday came later than scheduled
    exact: int = 0  # predicting the scheduled day
    early: int = 0
    hedged_exact: int = 0  # ... a business day later where the bank's early posting slips
    hedged_early: int = 0
    #: history length -> hedged answers exact on a stream with two deposits or more in the window
    shown_exact: Counter[int] = field(default_factory=Counter)

    def add(self, other: Oracle) -> None:
        self.n += other.n
        self.deviated.update(other.deviated)
        self.exact, self.early = self.exact + other.exact, self.early + other.early
        self.hedged_exact += other.hedged_exact
        self.hedged_early += other.hedged_early
        self.shown_exact.update(other.shown_exact)

    def meets(self, exact: float = EXACT_TARGET, early: float = EARLY_TARGET) -> bool:
        """Some point between the two answers (hedging a share of the slipping banks) is exact
        for ``exact`` of the paydays while early on at most ``early`` of them."""
        low, high = 0.0, 1.0  # the share hedged
        for start, end, floor in (
            (self.exact, self.hedged_exact, exact * self.n - 1e-9),  # a float product: a tie counts as met
            (-self.early, -self.hedged_early, -early * self.n - 1e-9),
        ):  # start + t * (end - start) >= floor
            slope = end - start
            if slope == 0:
                if start < floor:
                    return False
            elif slope > 0:
                low = max(low, (floor - start) / slope)
            else:
                high = min(high, (floor - start) / slope)
        return low <= high

    def verdict(self) -> str:
        met = "meets" if self.meets() else "misses"
        return f"{met} exact >= {EXACT_TARGET:.0%} with early <= {EARLY_TARGET:.0%}"

    def line(self) -> str:
        deviated = ", ".join(f"{cause} {count}" for cause, count in sorted(self.deviated.items())) or "none"
        shown = ", ".join(f"{days} d {_pct(exact / self.n)}" for days, exact in sorted(self.shown_exact.items()))
        return (
            f"schedule oracle ({self.n} paydays; later than scheduled after as_of: {deviated}):"
            f" the scheduled day exact {_pct(self.exact / self.n)}, early {_pct(self.early / self.n)};"
            f" a day later where early posting slips exact {_pct(self.hedged_exact / self.n)},"
            f" early {_pct(self.hedged_early / self.n)}; the same knowing only schedules two deposits"
            f" in the window show, exact at {shown}"
        )


def oracle(people: Sequence[SyntheticUser], histories: Sequence[int] = (60, 90)) -> Oracle:
    """An upper bound on any predictor for ``people``. The oracle is told each user's scheduled
    next payday (the pay rule, its roll, the bank's usual posting; a new job's schedule from its
    first day; deposits the feed lost) and answers that day; or, told which banks' early
    posting slips, the business day after it there (the hedge that removes the most early
    answers per exact one given up). It is not told what happens after ``as_of``: an ACH
    delay, a slip, an unpaid cycle move the payday later, and the scheduled day is early then.
    Hedging a share of the slipping banks at random lands, in expectation, between its two
    answers; a predictor that knows less does no better, so where no point between them is
    exact for 97% with at most 1% early, a predictor meets both targets on these users only by
    guessing what happened after ``as_of``. Per history length, the hedged answers that are
    exact on a stream with two deposits or more in the window: a predictor as good as the
    oracle wherever the history shows the schedule, and no better."""
    out = Oracle()
    for person in people:
        truth = person.truth
        if truth.next_payday is None or truth.scheduled is None or truth.facts is None:
            continue
        payday, scheduled = truth.next_payday, truth.scheduled
        hedged = fedcal.business_days_before(scheduled, -1) if truth.facts.wobbly else scheduled
        out.n += 1
        if payday != scheduled:
            out.deviated[truth.facts.deviation or "other"] += 1
        out.exact += scheduled == payday
        out.early += scheduled < payday
        out.hedged_exact += hedged == payday
        out.hedged_early += hedged < payday
        for days in histories:
            out.shown_exact[days] += hedged == payday and shown(person, days)
    return out


def survey(seeds: int, count: int = USERS_PER_SET) -> Oracle:
    """The oracle on ``seeds`` seeds of the tuning generator, per seed and pooled."""
    print(f"Schedule oracle on {seeds} seeds of generator A, {count} users each ({TARGETS})")
    pooled = Oracle()
    for seed in range(SURVEY_FIRST_SEED, SURVEY_FIRST_SEED + seeds):
        found = oracle(users.generate(seed, count))
        print(f"  seed {seed}: {found.line()} -> {found.verdict()}")
        pooled.add(found)
    print(f"  all: {pooled.line()} -> {pooled.verdict()}")
    return pooled


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


def generate(generator: str, seed: int, count: int) -> list[SyntheticUser]:
    return (users.generate if generator == "A" else holdout.generate)(seed, count)


def main(count: int = USERS_PER_SET) -> int:
    print(f"Payday prediction vs ground truth ({TARGETS})")
    tuning: list[SyntheticUser] = []
    for n, (title, generator, seed) in enumerate(SETS):
        people = generate(generator, seed, count)
        ours, base = score(people, model), score(people, naive)
        report(title, people, ours, base)
        policy(people, ours)
        found = oracle(people)
        print(f"{found.line()}: {found.verdict()}")
        if n == 0:
            tuning = people
    person = typical_user(tuning)
    ours_ms, base_ms = cpu_ms(person, model), cpu_ms(person, naive)
    print(
        f"\nCPU per prediction, 120 days of a typical user ({len(person.visible())} transactions):"
        f" model {ours_ms:.1f} ms, baseline {base_ms:.1f} ms (ratio {ours_ms / base_ms:.1f}x; goal < 20 ms)"
    )
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--survey", type=int, metavar="N", help="only the schedule oracle, on N seeds of generator A")
    args = parser.parse_args()
    if args.survey:
        survey(args.survey)
        raise SystemExit(0)
    raise SystemExit(main())
