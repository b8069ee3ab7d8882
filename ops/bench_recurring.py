"""Recurring-expense detection against ground truth: the model and a naive baseline side by side.

Users come from the seeded generator in :mod:`ops.synthetic.spending`: a development set (the
one the detector's rules were written against) and a held-out set drawn from another seed
that was only ever run for this report. Every user is evaluated on two days 45 days apart, with
the history the service holds: 120 days of retained transactions, and 180 days for an item
linked in the last two weeks (the first pull asks for 180 days and the retention clock gives
new rows at least 14 days).

Streams are matched one to one: a reported stream matches the true stream with which its
transaction ids have the largest Jaccard overlap, if that overlap is at least 0.5 (greedy,
best pairs first). A match with a stream the truth expects (see
:func:`ops.synthetic.spending.expectations`) is a true positive; reporting a stream that was
visibly cancelled, or one that matches nothing, is a false positive; an expected stream left
unmatched is a false negative; matches with streams too young (or too rare) to judge count
neither way. On the true positives: next-due exactness (the reported ``next_date`` is the day
of the next real charge), frequency accuracy and the amount's error against the next charge.
"""

from __future__ import annotations

import random
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from ops.synthetic.spending import DETECTABLE, INACTIVE, Expectation, SpendingUser, expectations, generate

Detector = Callable[[list[dict[str, Any]], date], Sequence[Any]]

DEVELOPMENT_SEED = 11
HELD_OUT_SEED = 90210
USERS = 200
HISTORIES = (120, 180)
MIN_JACCARD = 0.5


def _get(item: Any, name: str) -> Any:
    return item[name] if isinstance(item, Mapping) else getattr(item, name)


@dataclass(frozen=True, slots=True)
class Reported:
    merchant: str
    frequency: str
    average_amount: int
    next_date: date
    transaction_ids: frozenset[str]

    @classmethod
    def of(cls, item: Any) -> Reported:
        return cls(
            str(_get(item, "merchant")),
            str(_get(item, "frequency")),
            int(_get(item, "average_amount")),
            _get(item, "next_date"),
            frozenset(_get(item, "transaction_ids")),
        )


@dataclass
class Scores:
    evaluations: int = 0
    true_positives: int = 0
    false_positives: int = 0
    false_negatives: int = 0
    next_exact: int = 0
    next_within_2_days: int = 0
    #: True positives whose next charge came on its schedule (not retried, late or skipped):
    #: the most next-date exactness any model could reach.
    next_on_schedule: int = 0
    frequency_right: int = 0
    amount_errors: list[float] = field(default_factory=list)
    cpu_seconds: float = 0.0
    #: What the false positives were made of (the majority source of their transactions).
    false_by_source: Counter[str] = field(default_factory=Counter)
    missed_by_kind: Counter[str] = field(default_factory=Counter)
    expected_by_frequency: Counter[str] = field(default_factory=Counter)
    found_by_frequency: Counter[str] = field(default_factory=Counter)
    #: Streams visibly stopped (cancelled, paid off) on the day, and how many were still reported.
    stopped: int = 0
    stopped_reported: int = 0
    #: True positives, false positives, false negatives by user (for the bootstrap interval).
    by_user: dict[str, list[int]] = field(default_factory=dict)

    @property
    def precision(self) -> float:
        return self.true_positives / max(1, self.true_positives + self.false_positives)

    @property
    def recall(self) -> float:
        return self.true_positives / max(1, self.true_positives + self.false_negatives)

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def share(self, count: int) -> float:
        return count / max(1, self.true_positives)


def match(reported: Sequence[Reported], expected: Sequence[Expectation]) -> dict[int, int]:
    """Reported index → expectation index, one to one, best Jaccard overlap first."""
    owner = {txn_id: j for j, e in enumerate(expected) for txn_id in e.visible_ids}
    pairs: list[tuple[float, int, int]] = []
    for i, r in enumerate(reported):
        for j in {owner[t] for t in r.transaction_ids if t in owner}:
            ids = expected[j].visible_ids
            pairs.append((len(r.transaction_ids & ids) / len(r.transaction_ids | ids), i, j))
    matched: dict[int, int] = {}
    taken: set[int] = set()
    for jaccard, i, j in sorted(pairs, reverse=True):
        if jaccard >= MIN_JACCARD and i not in matched and j not in taken:
            matched[i] = j
            taken.add(j)
    return matched


def _source(r: Reported, labels: Mapping[str, str]) -> str:
    kinds = Counter("recurring, split or merged" if "/" in labels[t] else labels[t] for t in r.transaction_ids)
    return kinds.most_common(1)[0][0] if kinds else "nothing"


def score_day(scores: Scores, user: SpendingUser, reported: Sequence[Reported], as_of: date, history: int) -> None:
    before = (scores.true_positives, scores.false_positives, scores.false_negatives)
    _score_day(scores, user, reported, as_of, history)
    after = (scores.true_positives, scores.false_positives, scores.false_negatives)
    tally = scores.by_user.setdefault(user.user_id, [0, 0, 0])
    for k in range(3):
        tally[k] += after[k] - before[k]


def f1_interval(scores: Scores, resamples: int = 1000, seed: int = 1) -> tuple[float, float]:
    """A 95 % interval for F1, resampling users (a user's streams, and the two days one user is
    seen on, are not independent of each other)."""
    rng = random.Random(seed)  # noqa: S311 - a reproducible bootstrap, not a secret
    tallies = list(scores.by_user.values())
    values = []
    for _ in range(resamples):
        tp = fp = fn = 0
        for t in rng.choices(tallies, k=len(tallies)):
            tp, fp, fn = tp + t[0], fp + t[1], fn + t[2]
        values.append(2 * tp / max(1, 2 * tp + fp + fn))
    values.sort()
    return values[int(0.025 * resamples)], values[int(0.975 * resamples) - 1]


def _score_day(scores: Scores, user: SpendingUser, reported: Sequence[Reported], as_of: date, history: int) -> None:
    expected = expectations(user, as_of, history)
    matched = match(reported, expected)
    scores.evaluations += 1
    for i, r in enumerate(reported):
        j = matched.get(i)
        if j is None:
            scores.false_positives += 1
            scores.false_by_source[_source(r, user.labels)] += 1
            continue
        truth = expected[j]
        if truth.status == INACTIVE:
            scores.false_positives += 1
            scores.false_by_source["cancelled, still reported"] += 1
            scores.stopped_reported += 1
        elif truth.status == DETECTABLE and truth.next_charge is not None:
            scores.true_positives += 1
            scores.found_by_frequency[truth.stream.frequency] += 1
            gap = abs((r.next_date - truth.next_charge.day).days)
            scores.next_exact += gap == 0
            scores.next_within_2_days += gap <= 2
            scores.next_on_schedule += truth.next_charge.day == truth.stream.scheduled_after(as_of)
            scores.frequency_right += r.frequency == truth.stream.frequency
            scores.amount_errors.append(abs(r.average_amount - truth.next_charge.amount) / truth.next_charge.amount)
    found = set(matched.values())
    for j, truth in enumerate(expected):
        scores.stopped += truth.status == INACTIVE
        if truth.status == DETECTABLE:
            scores.expected_by_frequency[truth.stream.frequency] += 1
        if truth.status == DETECTABLE and j not in found:
            scores.false_negatives += 1
            scores.missed_by_kind[f"{truth.stream.kind} {truth.stream.frequency.lower()}"] += 1


def evaluate(detector: Detector, users: Iterable[SpendingUser], history: int) -> Scores:
    scores = Scores()
    for user in users:
        for as_of in user.evaluation_days:
            window = user.window(as_of, history)
            started = time.process_time()
            found = detector(window, as_of)
            scores.cpu_seconds += time.process_time() - started
            score_day(scores, user, [Reported.of(item) for item in found], as_of, history)
    return scores


def _row(label: str, s: Scores) -> str:
    amount = statistics.fmean(s.amount_errors) if s.amount_errors else 0.0
    return (
        f"     {label:<9}{s.precision:9.3f}{s.recall:8.3f}{s.f1:7.3f}"
        f"{s.share(s.next_exact):8.3f} ({s.share(s.next_on_schedule):.3f}){s.share(s.next_within_2_days):7.3f}"
        f"{s.share(s.frequency_right):7.3f}{amount:8.1%}{1000 * s.cpu_seconds / max(1, s.evaluations):9.1f}"
    )


def main(users: int = USERS) -> int:
    from chalicelib.insight.recurring import detect
    from ops.recurring_baseline import naive_detect

    detectors: dict[str, Detector] = {"model": detect, "baseline": naive_detect}
    print(f"\n== Recurring expenses against ground truth: {users} synthetic users per set, each on 2 days ==")
    print("   streams matched one to one by transaction ids (Jaccard >= 0.5); next/freq/amount on matches;")
    print("   (ceiling) = share whose next charge came on schedule at all; amount = mean error vs next charge")
    print("                  precision  recall     F1    next (ceiling)  +-2 d   freq  amount  CPU ms/day")
    for name, seed in (("development", DEVELOPMENT_SEED), ("held-out", HELD_OUT_SEED)):
        population = list(generate(seed, users))
        for history in HISTORIES:
            print(f"   {name} set, {history} days of history:")
            results = {label: evaluate(d, population, history) for label, d in detectors.items()}
            for label, scores in results.items():
                print(_row(label, scores))
            model = results["model"]
            print(
                f"     model: {model.true_positives} found, {model.false_positives} false, "
                f"{model.false_negatives} missed; false: {_counts(model.false_by_source) or 'none'}"
            )
            recall = ", ".join(
                f"{f.lower()} {model.found_by_frequency[f]}/{n}" for f, n in sorted(model.expected_by_frequency.items())
            )
            print(f"     model recall by frequency: {recall}")
            print(f"     stopped streams still reported: {model.stopped_reported} of {model.stopped}")
            low, high = f1_interval(model)
            print(f"     model F1 95 % interval (bootstrap over users): {low:.3f} to {high:.3f}")
            baseline = results["baseline"]
            print(f"     baseline false: {_counts(baseline.false_by_source) or 'none'}")
    return 0


def _counts(counter: Counter[str]) -> str:
    return ", ".join(f"{k} {v}" for k, v in counter.most_common(4))


if __name__ == "__main__":
    raise SystemExit(main())
