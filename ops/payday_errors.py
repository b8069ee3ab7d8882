"""Payday errors by cause: why the model missed, was early or abstained, user by user.

The generators record what the world did (:class:`ops.synthetic.users.Facts`: the pay rule's
date behind the next payday, the roll rule, the bank's early posting, deposits lost from the
feed, which credits were payroll, a payday that did not go as scheduled ...). This tool runs
the model as the benchmark does and names the first cause that explains each miss, in this
order:

1. **after as_of**: the payday did not go as scheduled (an ACH delay, a slipped early
   posting, an unpaid cycle) and the model predicted the scheduled day: no schedule model
   can do better. Otherwise the scheduled day is what the model is judged against below.
2. **legacy guess**: V2 could not run (too little history) and the legacy guess answered (or
   had no answer either).
3. **abstained**: the model gave no date; why (its reason, checked against the facts): the
   last payday was lost from the feed, unpaid or delayed before ``as_of``; a new payer has
   paid once (job change, second job); the payroll deposits were not selected as candidates;
   the fit was judged not regular.
4. **wrong primary payer** (job change, second job, a non-payroll stream chosen) or **wrong
   account** (a split deposit).
5. **candidate selection** inside the right stream: a payroll deposit not selected, or a
   non-payroll one selected.
6. **cadence confusion** (``BIWEEKLY>SEMI_MONTHLY`` reads "truly biweekly, predicted
   semi-monthly").
7. **roll**: the next payday's rule date is a closed day (which way it rolls).
8. **early-posting bank** (wobbly: its early posting sometimes slips).
9. **job change, few deposits**: the primary started paying within the history.
10. **missing deposits** from the feed.
11. **other**.

Run: ``.venv/bin/python -m ops.payday_errors`` (A:1 and A:2, 300 users each, 60, 90 and 180
days); ``--sets A:1 --days 90 --show roll`` lists the cases of one cause; ``--weight W`` runs V2
with another early weight.
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date, timedelta

from chalicelib.insight.calendar import is_business_day
from chalicelib.insight.payday import ChainResult, Detection, predict, v2
from chalicelib.insight.payday.candidates import Stream, payer_key
from chalicelib.insight.schedule import business_days_between
from chalicelib.insight.transactions import Txn, visible
from ops.bench_payday import generate
from ops.synthetic.users import Facts, SyntheticUser

OUTCOMES = ("late", "early", "abstain")


@dataclass(frozen=True)
class Case:
    """One user at one history length: what happened and, for a miss, why."""

    user: SyntheticUser
    days: int
    predicted: date | None
    cadence: str
    outcome: str  # exact, late, early, abstain; for users without a payday: held, false_alarm
    cause: str
    detail: str


def people(spec: str, count: int) -> list[SyntheticUser]:
    """``A:<seed>`` (the tuning world), ``B:<seed>`` or ``C:<seed>`` (the held-out ones), as the
    benchmark generates them."""
    generator, seed = spec.split(":")
    return generate(generator.upper(), int(seed), count)


def _outcome(predicted: date | None, target: date) -> str:
    if predicted is None:
        return "abstain"
    return "exact" if predicted == target else "early" if predicted < target else "late"


def classify(person: SyntheticUser, days: int, early_weight: float | None = None) -> Case:
    """``early_weight``: run V2 with this early weight instead of its own."""
    transactions = person.history(days)
    result = predict(transactions, person.as_of)
    if early_weight is not None and result.detection_used is Detection.FLOATME_V2:
        answer = v2.analyse(visible(transactions, person.as_of), person.as_of, early_weight=early_weight).prediction
        assert answer is not None
        result = replace(result, chosen=answer, v2=answer)
    truth = person.truth
    predicted, cadence = result.next_payday, result.cadence
    if truth.next_payday is None:
        if predicted is None:
            return Case(person, days, None, cadence, "held", "", "")
        chosen = result.source or ""
        return Case(person, days, predicted, cadence, "false_alarm", "non-payroll stream chosen", chosen)
    outcome = _outcome(predicted, truth.next_payday)
    if outcome == "exact":
        return Case(person, days, predicted, cadence, outcome, "", "")
    cause, detail = _cause(person, result, visible(transactions, person.as_of))
    return Case(person, days, predicted, cadence, outcome, cause, detail)


def _cause(person: SyntheticUser, result: ChainResult, txns: list[Txn]) -> tuple[str, str]:
    truth, as_of = person.truth, person.as_of
    facts = truth.facts
    assert facts is not None and truth.scheduled is not None
    predicted = result.next_payday
    if truth.next_payday != truth.scheduled and predicted == truth.scheduled:
        return f"after as_of: {facts.deviation}", ""
    note = f" (and after as_of: {facts.deviation})" if truth.next_payday != truth.scheduled else ""
    if result.detection_used is not Detection.FLOATME_V2:
        reason = next((e.message for e in result.errors.values()), "")
        if predicted is None:
            return "abstained: too little history (V2 cannot run, no legacy guess)", reason
        return "legacy guess (V2 cannot run)", reason
    analysis = v2.analyse(txns, as_of)
    mine = [t for t in txns if t.txn_id in facts.primary_ids]
    if predicted is None:
        return _abstention(person, facts, result.reason or "", analysis, mine), (result.reason or "") + note
    assert analysis.primary is not None
    stream = analysis.primary.stream
    wrong = _wrong_stream(person, stream, mine, analysis)
    if wrong:
        return wrong[0], wrong[1] + note
    best = analysis.primary.fits[0] if analysis.primary.fits else None
    schedule = best.schedule.describe() if best else "no fit"
    if result.cadence != truth.cadence:
        return f"cadence {truth.cadence}>{result.cadence}", f"{schedule} ({truth.rule}){note}"
    if facts.nominal and not is_business_day(facts.nominal):
        return f"roll ({facts.roll})", f"{facts.nominal} {schedule}{note}"
    if facts.bank_early:
        kind = "wobbly " if facts.wobbly else ""
        return f"early-posting bank ({kind}{facts.bank_early} bd)", f"{schedule}{note}"
    if facts.first_pay and sum(1 for d in facts.paid if d >= as_of - timedelta(days=120)) <= 3:
        return "job change: few deposits", f"{schedule}{note}"
    if facts.lost:
        return "missing deposits", f"{schedule}{note}"
    return "other", f"{schedule} ({truth.rule}){note}"


def _wrong_stream(
    person: SyntheticUser, stream: Stream, mine: Sequence[Txn], analysis: v2.V2Result
) -> tuple[str, str] | None:
    """The cause when the model followed another payer or account, or its stream holds the
    wrong deposits; None when the stream is the truth's."""
    facts = person.truth.facts
    assert facts is not None
    payer = Counter(payer_key(t) for t in mine).most_common(1)[0][0] if mine else person.truth.payer or ""
    if stream.payer != payer and not mine_canonical(stream, mine):
        detail = f"{stream.payer} over {payer}"
        if not {t.txn_id for t in stream.txns} & facts.payroll_ids:
            return "wrong primary payer: non-payroll stream chosen", detail
        if person.archetype in ("job_change", "new_account") or facts.first_pay:
            return "wrong primary payer: job change", detail
        return "wrong primary payer: second job", detail
    if stream.account_id != facts.account:
        return "split deposit: wrong account", stream.account_id
    foreign = {t.txn_id for t in stream.txns} - facts.primary_ids
    if foreign & facts.payroll_ids:
        return "candidate selection: another payer's pay in the stream", f"{len(foreign)} credit(s)"
    if foreign:
        return "candidate selection: non-payroll selected", f"{len(foreign)} credit(s)"
    skipped = {t.txn_id for t in mine if t.account_id == facts.account} - {t.txn_id for t in analysis.candidates}
    if skipped:
        return "candidate selection: payroll not selected", f"{len(skipped)} credit(s)"
    return None


def mine_canonical(stream: Stream, mine: Sequence[Txn]) -> bool:
    """The stream holds the truth's deposits (its payer key may be the canonical spelling)."""
    return bool({t.txn_id for t in stream.txns} & {t.txn_id for t in mine})


def _abstention(person: SyntheticUser, facts: Facts, reason: str, analysis: v2.V2Result, mine: Sequence[Txn]) -> str:
    as_of = person.as_of
    if "paid once" in reason or "income changed" in reason:
        if person.archetype in ("job_change", "new_account") or facts.first_pay:
            return "abstained: job change, new payer paid once"
        return "abstained: second payer paid once"
    if "stopped" in reason:
        return "abstained: pay stopped (job change)"
    if not {t.txn_id for t in mine} & {t.txn_id for t in analysis.candidates}:
        return "abstained: payroll not selected"
    window = [d for d in facts.paid if d >= min(t.day for t in mine)] if mine else []
    if len(window) < 2 or len({t.day for t in mine if t.day <= as_of}) < 2:
        return "abstained: one deposit so far"
    return "abstained: not judged regular"


def run(spec: str, count: int, histories: Sequence[int], early_weight: float | None = None) -> list[Case]:
    return [classify(person, days, early_weight) for person in people(spec, count) for days in histories]


def report(spec: str, cases: Sequence[Case]) -> None:
    by_days: dict[int, list[Case]] = defaultdict(list)
    for case in cases:
        by_days[case.days].append(case)
    for days, group in sorted(by_days.items()):
        paid = [c for c in group if c.user.truth.next_payday is not None]
        exact = sum(c.outcome == "exact" for c in paid)
        unpaid = [c for c in group if c.user.truth.next_payday is None]
        alarms = sum(c.outcome == "false_alarm" for c in unpaid)
        print(
            f"\n{spec} {days:>3} days: {len(paid)} paydays, exact {exact} ({100 * exact / max(1, len(paid)):.1f}%);"
            f" {len(unpaid)} without a payday, {alarms} given a date"
        )
        table: dict[str, Counter[str]] = defaultdict(Counter)
        for c in paid:
            if c.outcome != "exact":
                table[c.cause][c.outcome] += 1
        print(f"  {'cause':<52} {'late':>5} {'early':>5} {'abst.':>5} {'share':>6}")
        for cause, counts in sorted(table.items(), key=lambda kv: (-sum(kv[1].values()), kv[0])):
            total = sum(counts.values())
            cells = " ".join(f"{counts[o]:>5}" for o in OUTCOMES)
            print(f"  {cause:<52} {cells} {100 * total / max(1, len(paid)):>5.1f}%")


def show(cases: Sequence[Case], cause: str) -> None:
    for c in cases:
        if cause not in c.cause and cause != c.outcome:
            continue
        truth = c.user.truth
        off = ""
        if truth.next_payday and c.predicted:
            off = f" [{business_days_between(truth.next_payday, c.predicted):+d} bd]"
        print(
            f"  {c.user.user_id} {c.days}d as_of {c.user.as_of} {c.user.archetype:<12} truth {truth.next_payday}"
            f" (sched {truth.scheduled}, {truth.cadence} {truth.rule}) predicted {c.predicted} {c.cadence}{off}"
            f" {c.outcome}: {c.cause} | {c.detail}"
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="A:1,A:2", help="comma-separated A:<seed>, B:<seed>, C:<seed>")
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--days", default="60,90,180")
    parser.add_argument("--show", default="", help="list the cases whose cause contains this text")
    parser.add_argument("--weight", type=float, default=None, help="V2's early weight (default: its own)")
    args = parser.parse_args(argv)
    histories = [int(d) for d in args.days.split(",")]
    for spec in args.sets.split(","):
        cases = run(spec, args.count, histories, args.weight)
        report(spec, cases)
        if args.show:
            show(cases, args.show)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
