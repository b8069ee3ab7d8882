"""FloatMe V2: the payday model of the chain, a schedule fit with a small decision layer.

1. **Candidates** (:mod:`.candidates`): inflows that could be paychecks, one stream per payer
   and account.
2. **Fit** (:mod:`.streams`): each stream with two deposits or more is fitted with the calendar
   schedules of :mod:`chalicelib.insight.schedule` (weekly, every two or four weeks, twice a
   month, monthly on a day, the last business day or an nth weekday), each with a closed day
   paid the business day before or after and posted 0-2 business days early; only the deposits
   after a long pause are read (the current schedule), and a deposit of an unusual amount (a
   bonus) is left out when the others hold steady. The readings are ranked by posterior: the
   likelihood of the deposits under a simple noise model (on the day, a day or two off, missed,
   extra) times a prior of a few explained numbers (:mod:`.posterior`). A federal payer (Social
   Security, SSI, VA, military pay) or a pension is near certain to pay on its published
   schedule, and its one deposit is read against it; an employer's one deposit, when only a
   monthly payer would not have paid again, against every monthly rule.
3. **Regular or not**, and **status**: a stream is regular when its best schedule matches two
   deposits or more closely (streams without income evidence and gig platforms must do
   better); ACTIVE, LATE (its last expected deposit did not come) or ENDED (two did not, or a
   newer payer replaced it).
4. **Which payer** (:func:`.payers.primary`): gig payouts never give a payday, by the platform's
   name or by their look (amounts that do not hold, off their days). A payer that stopped while
   a newer one pays is replaced (a job change: the newer payer wins once it has paid twice),
   unless it kept paying alongside the newer one (two jobs); among the rest the largest monthly
   amount, in the account that receives most.
5. **Which date** (:func:`decide`): each reading of the primary's deposits puts its posterior
   on the next date it projects (a paycheck that came a day or two early moves it to the one
   after); the answer is the most probable date, a later one when it is nearly as probable
   (:data:`EARLY_WEIGHT`). A LATE primary keeps its schedule: a missed paycheck is not a lost
   job. The confidence is that date's posterior, calibrated (:mod:`.confidence`).
6. **No date** when nothing is regular (gig payouts, no income), when pay stopped and a new
   payer has paid once so far (a job change too new to read), or when a new payer paid once,
   more than the primary pays in a month. It cannot run (the chain falls back) with under 14
   days of history, or under 45 days when no payer has paid twice yet.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from chalicelib.insight.payday.candidates import candidate_streams
from chalicelib.insight.payday.collection import collection_dates
from chalicelib.insight.payday.confidence import ConfidenceInputs, confidence
from chalicelib.insight.payday.payers import merge_moved, no_regular_reason, primary, rival_of, without_replaced
from chalicelib.insight.payday.streams import ACTIVE, LATE, TOLERANCE, StreamFit, fit_stream, read_monthly_once
from chalicelib.insight.payday.types import Detection, InsufficientHistoryError, PaydayPrediction
from chalicelib.insight.schedule import Fit, business_days_between
from chalicelib.insight.transactions import Txn

MIN_HISTORY_DAYS = 14


ANSWER_HISTORY_DAYS = 45


#: An answer's early chance counts this much against its chance of being exact (:func:`decide`):
#: a later date wins when it is at least four fifths as probable as the likeliest.
EARLY_WEIGHT = 0.25


@dataclass(frozen=True, slots=True)
class V2Result:
    """Everything V2 worked out: its answer (or why it could not run), the payroll-candidate
    transactions it selected and each stream's fit."""

    prediction: PaydayPrediction | None
    error: InsufficientHistoryError | None
    candidates: tuple[Txn, ...]
    streams: tuple[StreamFit, ...]
    primary: StreamFit | None = None
    confidence_inputs: ConfidenceInputs | None = None


@dataclass(frozen=True, slots=True)
class Decision:
    """The date chosen for a stream: the reading behind it, its projected paydays, the
    posterior probability of the date and whether it is the most probable one."""

    fit: Fit
    upcoming: list[date]
    probability: float
    likeliest: bool
    #: Every next date the readings project: (its posterior probability, the paydays from it).
    readings: tuple[tuple[float, tuple[date, ...]], ...] = ()


def decide(sf: StreamFit, early_weight: float = EARLY_WEIGHT) -> Decision:
    """Each reading's posterior goes to the next payday it projects (a paycheck that came early
    moves it to the one after; a reading expecting an overdue deposit the best reading does not
    expect is left out: under it that deposit may still come any day). The answer is the date
    ``d`` with the most ``P(payday = d) - early_weight * P(payday > d)``: the most probable
    date, or a later one when the chance of being early outweighs the exactness it gives up."""
    best, top = sf.fits[0], sf.posteriors[0]
    mass: dict[date, float] = {}
    behind: dict[date, tuple[Fit, list[date]]] = {}
    for f, posterior in zip(sf.fits, sf.posteriors, strict=True):
        upcoming = f.next_dates(3) if set(f.pending) <= set(best.pending) else []
        if upcoming:
            upcoming = _came_early(sf, f, upcoming)
            mass[upcoming[0]] = mass.get(upcoming[0], 0.0) + math.exp(posterior - top)
            behind.setdefault(upcoming[0], (f, upcoming))
    total = sum(mass.values())
    later, chosen_day, chosen_score = total, min(mass), -math.inf
    for day in sorted(mass):
        later -= mass[day]
        value = mass[day] - early_weight * later
        if value > chosen_score + 1e-12 * total:
            chosen_day, chosen_score = day, value
    chosen, upcoming = behind[chosen_day]
    readings = tuple((mass[day] / total, tuple(behind[day][1])) for day in sorted(mass))
    return Decision(chosen, upcoming, mass[chosen_day] / total, mass[chosen_day] >= max(mass.values()), readings)


def _came_early(sf: StreamFit, chosen: Fit, upcoming: list[date]) -> list[date]:
    """A paycheck-sized deposit the schedule did not expect, within two business days before the
    next payday (a bank posting early over a holiday weekend: Friday for Tuesday), is that
    payday come early: the one after is next."""
    last = sf.stream.deposits[-1]
    typical = sf.stream.median_cents()
    if (
        last.day not in {o for _, o in chosen.pairs}
        and last.day < upcoming[0]
        and business_days_between(last.day, upcoming[0]) <= TOLERANCE
        and abs(last.cents - typical) <= 0.35 * typical
    ):
        return chosen.schedule.next_dates(upcoming[0], 3)
    return upcoming


def _prediction(
    sf: StreamFit, as_of: date, fitted: Sequence[StreamFit], early_weight: float
) -> tuple[PaydayPrediction, ConfidenceInputs]:
    decision = decide(sf, early_weight)
    upcoming = [d for d in decision.upcoming if d > as_of]
    best = sf.fits[0]
    inputs = ConfidenceInputs(
        probability=decision.probability,
        likeliest=decision.likeliest,
        matched=best.matched,
        on_day=best.exact / best.matched,
        late=sf.status == LATE,
        once=len(sf.stream.deposits) == 1,
    )
    answer = PaydayPrediction(
        Detection.FLOATME_V2,
        upcoming[0],
        decision.fit.cadence.value,
        confidence(inputs),
        source=sf.stream.display_name,
        collection=collection_dates(upcoming),
        upcoming=tuple(upcoming),
        schedule=decision.fit.schedule.describe(),
        details={"streams": [f.summary() for f in fitted]},
        readings=tuple((share, tuple(d for d in days if d > as_of)) for share, days in decision.readings),
    )
    return answer, inputs


def analyse(txns: Sequence[Txn], as_of: date, *, early_weight: float = EARLY_WEIGHT) -> V2Result:
    """Run V2 on visible transactions (see the module docstring). ``early_weight``: how much an
    answer's chance of being early counts against its chance of being exact (0: the most
    probable date; for measuring the policy)."""
    streams = candidate_streams(txns)
    candidates = tuple(t for s in streams for t in s.txns)
    if not txns:
        return V2Result(None, InsufficientHistoryError("no transactions"), candidates, ())
    history_start = min(t.day for t in txns)
    history_days = (as_of - history_start).days + 1
    if history_days < MIN_HISTORY_DAYS:
        error = InsufficientHistoryError(f"{history_days} days of history, {MIN_HISTORY_DAYS} needed")
        return V2Result(None, error, candidates, ())
    fits = [fit_stream(s, as_of, history_start, current_only=True) for s in streams]
    fitted = without_replaced(merge_moved(fits, as_of, history_start))
    chosen = primary(fitted)
    if chosen is None or chosen.status == LATE:  # no payday otherwise: a payer paid once may be monthly
        once = read_monthly_once(fits, as_of, history_start)
        if any(o is not f and o.regular and o.status == ACTIVE for o, f in zip(once, fits, strict=True)):
            fitted = without_replaced(merge_moved(once, as_of, history_start))
            chosen = primary(fitted)
    details = {"streams": [sf.summary() for sf in fitted]}
    if chosen is None:
        if history_days < ANSWER_HISTORY_DAYS and not any(len(s.deposits) >= 2 for s in streams):
            error = InsufficientHistoryError(f"no payer has paid twice in {history_days} days")
            return V2Result(None, error, candidates, tuple(fitted))
        reason = no_regular_reason(fitted, history_days)
        return V2Result(PaydayPrediction.none(Detection.FLOATME_V2, reason, **details), None, candidates, tuple(fitted))
    rival = rival_of(fitted, chosen, as_of)
    if rival is not None:
        new, old = rival.stream.display_name, chosen.stream.display_name
        reason = (
            f"income changed: {new} has paid once so far, after the pay expected from {old} did not arrive"
            if chosen.status == LATE
            else f"{new} has paid once so far, more than {old} pays in a month: too early to tell which payday"
            " is the main one"
        )
        return V2Result(
            PaydayPrediction.none(Detection.FLOATME_V2, reason, **details), None, candidates, tuple(fitted), chosen
        )
    answer, inputs = _prediction(chosen, as_of, fitted, early_weight)
    return V2Result(answer, None, candidates, tuple(fitted), chosen, inputs)


def predict(txns: Sequence[Txn], as_of: date) -> PaydayPrediction:
    """V2's answer alone; raises :class:`InsufficientHistoryError` when it cannot run."""
    result = analyse(txns, as_of)
    if result.prediction is None:
        assert result.error is not None
        raise result.error
    return result.prediction
