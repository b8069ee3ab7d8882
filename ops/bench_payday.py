"""Payday prediction, measured: the model beside the plain schedule fit and the schedule oracle.

Four synthetic worlds, written apart: A (:mod:`ops.synthetic.users`), the one the model's
settings are chosen on (its seed 1); B (:mod:`ops.synthetic.holdout`) and C
(:mod:`ops.synthetic.phenomena`), never tuned on; D (:mod:`ops.synthetic.blind_payday`), written
by an author who never saw the model or the other worlds. Each user lives 180 days before
``as_of`` and is predicted with the last 60, 90 and 180 days of it by

- **the model**: ``chalicelib.insight.payday.predict`` (the chain without Pave);
- **the plain fit** (:mod:`ops.synthetic.plain_fit`): each payer's best standard schedule by
  the deposits it explains, the payer paid most lately, its next date;
- **the oracle** (:func:`oracle`), told what no history shows (each user's schedule, the bank's
  usual posting, a new job's schedule, the deposits the feed lost) but not what happens after
  ``as_of``, counted where two deposits of the primary's schedule are in the window ("two
  deposits show"): a predictor as good as the oracle wherever the history shows the schedule,
  and no better where it does not.

Per set and history length, on users with a payday: **exact** (an answer without a date is a
miss), **early** (before the payday: a collection before the money lands), **late**, **no
date**, **cadence**, and the early rate on paydays that went **as scheduled** (no unpaid
cycle, no missed early posting, no ACH delay after ``as_of``: the model's own early errors);
the model's misses where the oracle is exact, and the **ties** among them (:func:`ties`: the
deposits seen fit the model's schedule as well as the true one, so the gap is a prior's).
Then exactness by cadence and by phenomenon (the payday moved by a weekend or a holiday, an
early-posting bank, a job change ...) for the model and the plain fit, the slices where the
model trails the plain fit, the users without a payday given no date, and the **reliability**
of the model's confidence per decile (stated against observed exactness). Last, the CPU time
of one prediction over a typical user's 120 days.

Run: ``.venv/bin/python -m ops.bench_payday`` (also part of ``make bench``); ``--sets C:2``,
``--count N`` for fewer users.
"""

from __future__ import annotations

import argparse
import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import partial
from typing import Any, NamedTuple, cast

from chalicelib.insight.payday import predict, v2
from chalicelib.insight.transactions import visible
from ops.cpu import per_call_ms, yardstick_ms
from ops.synthetic import blind_payday, fedcal, holdout, phenomena, plain_fit, users
from ops.synthetic.users import Facts, SyntheticUser, Truth

HISTORIES = (60, 90, 180)
GENERATED_DAYS = max(HISTORIES)
CADENCES = ("WEEKLY", "BIWEEKLY", "SEMI_MONTHLY", "MONTHLY", "FOUR_WEEKLY")
USERS_PER_SET = 300
#: (generator, seed, what the set is): the model's settings are chosen on the first alone.
SETS = (
    ("A", 1, "the tuning set"),
    ("A", 11, "an unseen seed"),
    ("B", 3, "held out; examined by an earlier revision"),
    ("B", 13, "held out, unseen"),
    ("C", 1, "held out; the generator was checked on it"),
    ("C", 2, "held out, unseen"),
    ("D", 1, "written blind; its misses were read"),
    ("D", 5, "written blind, unseen"),
)
GENERATORS: dict[str, Callable[[int, int, int], SyntheticUser]] = {
    "A": users.make_user,
    "B": holdout.make_user,
    "C": phenomena.make_user,
}
NAMES = ("model", "plain")
#: Reliability buckets: deciles of the stated confidence.
DECILES = tuple(n / 10 for n in range(10))


class Answer(NamedTuple):
    next_payday: date | None
    cadence: str
    confidence: float | None = None


Predictor = Callable[[list[dict[str, Any]], date], Answer]


def model(transactions: list[dict[str, Any]], as_of: date) -> Answer:
    result = predict(transactions, as_of)
    return Answer(result.next_payday, result.cadence, result.confidence)


def plain(transactions: list[dict[str, Any]], as_of: date) -> Answer:
    return Answer(*plain_fit.predict(transactions, as_of))


PREDICTORS: dict[str, Predictor] = {"model": model, "plain": plain}


def shown(person: SyntheticUser, days: int) -> bool:
    """The primary's stream had two deposits or more in the window of ``days``: with fewer
    (a new job paid once, deposits the feed lost) no history tells its schedule."""
    facts = person.truth.facts
    if facts is None:
        return False
    first = person.as_of - timedelta(days=days - 1)
    return sum(1 for d in facts.paid if d >= first and d not in facts.lost) >= 2


def oracle_answer(person: SyntheticUser) -> date | None:
    """The oracle's date: the scheduled day (the pay rule, its roll, the bank's usual posting)."""
    return person.truth.scheduled


def phenomena_of(person: SyntheticUser) -> set[str]:
    """The phenomena of a user with a payday, named the same way in every world."""
    truth, facts = person.truth, person.truth.facts
    if facts is None:
        return set()
    found = set(facts.tags)
    if facts.nominal and facts.nominal.weekday() >= 5:
        found.add("weekend-moved payday")
    elif facts.nominal and not fedcal.is_open(facts.nominal):
        found.add("holiday-moved payday")
    if facts.bank_early:
        found.add("early-posting bank")
    if person.archetype in ("job_change", "new_account"):
        found.add("job change")
    elif facts.jobs >= 2:
        found.add("two payers")
    if facts.split != "none":
        found.add("split deposit")
    if facts.lost:
        found.add("deposits lost from the feed")
    if truth.next_payday != truth.scheduled:
        found.add("later than scheduled after as_of")
    if person.archetype in ("benefits", "social_security", "pension"):
        found.add("benefits")
    return found


@dataclass
class Tally:
    n: int = 0
    exact: int = 0
    early: int = 0
    late: int = 0
    none: int = 0
    cadence: int = 0
    planned: int = 0  # paydays that went as scheduled
    planned_early: int = 0  # ... predicted early all the same

    def add(self, person: SyntheticUser, answer: Answer) -> None:
        truth = person.truth
        payday, planned = truth.next_payday, truth.scheduled == truth.next_payday
        assert payday is not None
        predicted = answer.next_payday
        self.n += 1
        self.planned += planned
        self.cadence += answer.cadence == truth.cadence
        if predicted is None:
            self.none += 1
            return
        self.exact += predicted == payday
        self.early += predicted < payday
        self.late += predicted > payday
        self.planned_early += planned and predicted < payday

    def rate(self, name: str) -> float:
        return getattr(self, name) / self.n if self.n else 0.0


@dataclass
class Scores:
    """One predictor's tallies on a set: by (history, slice), slice "all", a cadence or a phenomenon."""

    paid: dict[tuple[int, str], Tally] = field(default_factory=lambda: defaultdict(Tally))
    unpaid: int = 0
    abstained: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    #: (confidence, exact) of each dated answer, on every user
    confidences: list[tuple[float, bool]] = field(default_factory=list)
    #: (user id, history) -> the date answered
    answers: dict[tuple[str, int], date | None] = field(default_factory=dict)


def score(people: Sequence[SyntheticUser], predictor: Predictor, histories: Sequence[int] = HISTORIES) -> Scores:
    out = Scores()
    for person in people:
        truth = person.truth
        out.unpaid += truth.next_payday is None
        for days in histories:
            answer = predictor(person.history(days), person.as_of)
            out.answers[(person.user_id, days)] = answer.next_payday
            if answer.next_payday is not None and answer.confidence is not None:
                out.confidences.append((answer.confidence, answer.next_payday == truth.next_payday))
            if truth.next_payday is None:
                out.abstained[days] += answer.next_payday is None
                continue
            for part in ("all", truth.cadence, *phenomena_of(person)):
                out.paid[(days, part)].add(person, answer)
    return out


@dataclass
class Oracle:
    """The schedule oracle on a set's users with a payday (see :func:`oracle`)."""

    n: int = 0
    exact: int = 0  # its answer is the payday
    early: int = 0  # ... before it: the paydays that came later than scheduled
    #: history length -> exact where two deposits of the primary's schedule are in the window
    shown_exact: dict[int, int] = field(default_factory=lambda: defaultdict(int))

    def rate(self, days: int) -> float:
        return self.shown_exact[days] / self.n if self.n else 0.0


def oracle(people: Sequence[SyntheticUser], histories: Sequence[int] = HISTORIES) -> Oracle:
    """A bound on any predictor. Told each user's scheduled next payday (the pay rule, its roll,
    the bank's usual posting; a new job's schedule from its first day; deposits the feed lost),
    it answers that day. It is not told what happens after ``as_of`` (an unpaid cycle, an early
    posting missed, an ACH delay): those make it early. Per history length it counts as exact
    only where two deposits of the primary's schedule are in the window."""
    out = Oracle()
    for person in people:
        payday, answer = person.truth.next_payday, oracle_answer(person)
        if payday is None or answer is None:
            continue
        out.n += 1
        out.exact += answer == payday
        out.early += answer < payday
        for days in histories:
            out.shown_exact[days] += answer == payday and shown(person, days)
    return out


def ties(
    people: Sequence[SyntheticUser], answers: dict[tuple[str, int], date | None], histories: Sequence[int] = HISTORIES
) -> dict[int, tuple[int, int]]:
    """Per history length, the model's misses where the oracle is exact, and how many of them
    are ties: the model reads the true payer's deposits, and its own schedule puts every one it
    fitted on its day, so the deposits support its date at least as well as the true schedule's
    (two deposits four weeks apart fit a monthly rule and an every-four-weeks one alike), and
    only a prior could choose."""
    out = {}
    for days in histories:
        missed = tied = 0
        for person in people:
            payday = person.truth.next_payday
            if payday is None or oracle_answer(person) != payday or not shown(person, days):
                continue
            predicted = answers[(person.user_id, days)]
            if predicted == payday:
                continue
            missed += 1
            tied += predicted is not None and _every_deposit_on_its_day(person, days)
        out[days] = (missed, tied)
    return out


def _every_deposit_on_its_day(person: SyntheticUser, days: int) -> bool:
    """The model's primary is the true payer's stream, and its schedule fits every deposit."""
    facts = person.truth.facts
    analysis = v2.analyse(visible(person.history(days), person.as_of), person.as_of)
    primary = analysis.primary
    if facts is None or primary is None or not primary.fits:
        return False
    if not {t.txn_id for t in primary.stream.txns} & set(facts.primary_ids):
        return False  # another payer's: not a reading of the true payer's deposits
    best = primary.fits[0]
    return not best.missed and not best.unmatched and best.exact == best.matched


def _pct(value: float) -> str:
    return f"{100 * value:5.1f}%"


def _pair(scores: dict[str, Scores], key: tuple[int, str], field_: str) -> str:
    return " ".join(_pct(scores[name].paid[key].rate(field_)) for name in NAMES)


def report(
    title: str,
    people: Sequence[SyntheticUser],
    scores: dict[str, Scores],
    bound: Oracle,
    histories: Sequence[int] = HISTORIES,
) -> list[str]:
    """Print one set's tables; return the slices where the model trails the plain fit."""
    ours = scores["model"]
    print(f"\n== {title}: {len(people)} users, {len(people) - ours.unpaid} with a payday ==")
    print(
        "history    n | exact model plain oracle | early model plain | late model plain |"
        " no date model plain | cadence model plain | early as scheduled model plain"
    )
    for days in histories:
        key = (days, "all")
        tally = ours.paid[key]
        planned = [scores[name].paid[key] for name in NAMES]
        print(
            f"{days:>5} d {tally.n:>4} | {_pair(scores, key, 'exact')} {_pct(bound.rate(days))} |"
            f" {_pair(scores, key, 'early')} | {_pair(scores, key, 'late')} | {_pair(scores, key, 'none')} |"
            f" {_pair(scores, key, 'cadence')} | "
            + " ".join(_pct(t.planned_early / t.planned if t.planned else 0.0) for t in planned)
        )
    if bound.n:
        print(
            f"the oracle on every payday: exact {_pct(bound.exact / bound.n)}, early {_pct(bound.early / bound.n)}"
            " (paydays that came later than scheduled after as_of: early for any schedule)"
        )
        gap = ties(people, ours.answers, histories)
        print(
            "the model's misses where the oracle is exact, and the ties among them (the true payer's deposits,"
            " each on the day of the model's own schedule): "
            + ", ".join(f"{d} d {gap[d][0]}, {gap[d][1]} ties" for d in histories)
        )
    trailing = _slices(scores, histories)
    if ours.unpaid:
        cells = ", ".join(
            f"{days} d " + " ".join(_pct(scores[name].abstained[days] / ours.unpaid) for name in NAMES)
            for days in histories
        )
        print(f"users without a payday ({ours.unpaid}), no date, model plain: {cells}")
    reliability(ours.confidences)
    return trailing


def _slices(scores: dict[str, Scores], histories: Sequence[int]) -> list[str]:
    """Exactness by cadence and by phenomenon, model and plain fit; the slices where the model
    trails."""
    ours, theirs = scores["model"], scores["plain"]
    parts = sorted({part for _, part in ours.paid if part != "all"}, key=lambda p: (p not in CADENCES, p))
    print(f"{'exact by slice, model plain (n)':<40}" + "".join(f"{days:>6} d{'':>14}" for days in histories))
    trailing = []
    for part in parts:
        cells = []
        for days in histories:
            mine, base = ours.paid.get((days, part)), theirs.paid.get((days, part))
            if mine is None or base is None or not mine.n:
                cells.append(f"{'':>22}")
                continue
            cells.append(f"{_pct(mine.rate('exact'))} {_pct(base.rate('exact'))} ({mine.n:>3})")
            if mine.exact < base.exact:
                trailing.append(f"{part} at {days} d: {mine.exact} against {base.exact} of {mine.n}")
        print(f"  {part:<38}" + " ".join(cells))
    print("model behind the plain fit: " + ("; ".join(trailing) if trailing else "on no slice"))
    return trailing


def reliability(
    answers: Sequence[tuple[float, bool]], buckets: Iterable[float] = DECILES
) -> list[tuple[float, int, float, float]]:
    """Stated confidence against observed exactness per decile of dated answers (all history
    lengths); returns (lower bound, n, mean stated, observed) per bucket."""
    rows: list[tuple[float, int, float, float]] = []
    if not answers:
        return rows
    print("reliability of the model's confidence (dated answers): stated -> observed exact")
    for low in buckets:
        group = [a for a in answers if low <= a[0] < low + 0.1 or (low == 0.9 and a[0] >= 1.0)]
        if not group:
            continue
        stated, observed = statistics.fmean(c for c, _ in group), sum(h for _, h in group) / len(group)
        gap = 100 * (observed - stated)
        flag = "" if len(group) < 50 or abs(gap) <= 5 else "  <- more than 5 points off"
        print(
            f"   [{low:.1f}, {low + 0.1:.1f}) n {len(group):>5}: stated {_pct(stated)}, observed {_pct(observed)}{flag}"
        )
        rows.append((low, len(group), stated, observed))
    brier = statistics.fmean((c - h) ** 2 for c, h in answers)
    print(f"   Brier score {brier:.3f}")
    return rows


def typical_user(people: Sequence[SyntheticUser]) -> SyntheticUser:
    """A salaried biweekly user with the median number of visible transactions in 120 days."""
    pool = [p for p in people if p.archetype == "salaried" and p.truth.cadence == "BIWEEKLY"]
    median = statistics.median(len(p.visible(120)) for p in pool)
    return min(pool, key=lambda p: (abs(len(p.visible(120)) - median), p.user_id))


def cpu_ms(person: SyntheticUser, predictor: Predictor, runs: int = 30) -> float:
    return per_call_ms(partial(predictor, person.visible(120), person.as_of), runs)


def generate(generator: str, seed: int, count: int) -> list[SyntheticUser]:
    if generator == "D":  # generated a set at a time
        return blind_people(seed, count)
    make = GENERATORS[generator]
    return [make(seed, index, GENERATED_DAYS) for index in range(count)]


def blind_people(seed: int, count: int) -> list[SyntheticUser]:
    """World D's users in the shape the other worlds' take (its truth says which deposits were
    the primary's pay: the main account's credits on its paydays)."""
    return [_blind_person(user) for user in blind_payday.generate(seed, count)]


def _blind_person(user: blind_payday.PaydayUser) -> SyntheticUser:
    truth = user["truth"]
    paid = frozenset(truth["paid"])
    main = truth["account_id"]
    primary_ids = frozenset(
        t["txn_id"]
        for t in user["transactions"]
        if t["amount"] < 0 and t["account_id"] == main and date.fromisoformat(t["date"]) in paid
    )
    facts = None
    if truth["next_payday"] is not None:
        facts = Facts(
            roll="PREV",
            nominal=truth["nominal"],
            bank_early=truth["bank_early"],
            wobbly="early posting not every time" in truth["tags"],
            deviation=None,
            split=truth["split"],
            gappy=bool(truth["lost"]),
            account=main,
            paid=tuple(truth["paid"]),
            lost=tuple(truth["lost"]),
            primary_ids=primary_ids,
            payroll_ids=primary_ids,
            jobs=truth["jobs"],
            tags=frozenset(truth["tags"]),
        )
    return SyntheticUser(
        user["user_id"],
        user["as_of"],
        user["archetype"],
        tuple(cast(dict[str, Any], t) for t in user["transactions"]),
        Truth(
            truth["next_payday"], truth["cadence"] or "", user["archetype"], scheduled=truth["scheduled"], facts=facts
        ),
    )


def main(sets: Sequence[tuple[str, int, str]] = SETS, count: int = USERS_PER_SET) -> int:
    print(
        "Payday prediction vs ground truth: the model, the plain schedule fit and the schedule oracle"
        " (exact where two deposits show the schedule)"
    )
    behind: dict[str, list[str]] = {}
    cpu_people: list[SyntheticUser] = []
    for generator, seed, role in sets:
        people = generate(generator, seed, count)
        scores = {name: score(people, PREDICTORS[name]) for name in NAMES}
        title = f"{generator}:{seed} ({role})"
        behind[title] = report(title, people, scores, oracle(people))
        if generator == "A" and not cpu_people:
            cpu_people = people
    print("\nslices where the model trails the plain fit, per set:")
    for title, slices in behind.items():
        print(f"  {title}: {len(slices)}" + (f" ({'; '.join(slices)})" if slices else ""))
    if cpu_people:
        person = typical_user(cpu_people)
        ours, base = cpu_ms(person, model), cpu_ms(person, plain)
        print(
            f"\nCPU per prediction, 120 days of a typical user ({len(person.visible(120))} transactions):"
            f" model {ours:.1f} ms, plain fit {base:.1f} ms (ratio {ours / base:.1f}x; goal < 20 ms);"
            f" CPU yardstick (one million squares summed) {yardstick_ms():.0f} ms"
        )
    return 0


def _sets(text: str) -> list[tuple[str, int, str]]:
    known = {(g, s): role for g, s, role in SETS}
    out = []
    for spec in text.split(","):
        generator, seed = spec.split(":")
        out.append((generator.upper(), int(seed), known.get((generator.upper(), int(seed)), "another seed")))
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", type=_sets, default=SETS, help="e.g. A:1,C:2 (default: every set)")
    parser.add_argument("--count", type=int, default=USERS_PER_SET, help="users per set")
    args = parser.parse_args()
    raise SystemExit(main(args.sets, args.count))
