"""FloatMe V2: the schedule model of the payday chain.

1. **Candidates** (:mod:`.candidates`): inflows that could be paychecks, one stream per payer
   and account.
2. **Fit**: each stream with two or more deposits is fitted with the calendar schedules of
   :mod:`chalicelib.insight.schedule` (weekly, every two or four weeks, semi-monthly pairs,
   monthly day, last business day, nth weekday), each rolled back or forward over closed Fed
   days and posted 0-2 business days early. The candidates are ranked by posterior: the
   log-likelihood of the deposits under a simple noise model (a deposit on the expected day,
   a day or two late, a day or two early: rarer still where the bank posts on the payday
   itself, missed, extra) plus a log prior from US payroll practice. A monthly federal
   benefit (Social Security, SSI, VA) or military pay (DFAS) with one deposit is scored
   against its published schedules alone: one deposit tells which of them the payee is on.
   When no other payer has a payday to predict, a payroll deposit made once 20 days or more
   before ``as_of`` is scored against every monthly rule (a payer paying more often would
   have paid again): a monthly payer whose deposit before fell outside the history (it is
   within 35 days of its start), or a new job after a payer that stopped. A lone deposit
   long after the history began is a one-off and gives no date.
3. **Regular or not**: a stream is regular when its best schedule matches two deposits or
   more with F1 >= 0.7 and a mean distance under 0.75 day; streams without income evidence
   must do better (3 matches, F1 >= 0.85, 80% on the day, never on a day ACH does not
   settle), gig platforms better still (6 matches); a federal benefit's one deposit on a
   published day is enough.
   Its status is ACTIVE, LATE (the last expected deposit did not come) or ENDED (two did not,
   or another payer followed it: began after its last deposit, or began during its history
   and still pays on schedule). A LATE stream whose payer pays into another account from
   about the missed date on moved accounts: the two are one stream.
4. **Primary**: among regular streams not ENDED, the payer with the largest monthly amount;
   within that payer (a split deposit), the account that receives the most. When another
   ACTIVE payer pays about as much (within the noise of the amounts) or began paying
   recently (a new job), which is the main income is unsure: the later of their paydays.
5. **Next payday**, never early when unsure: each schedule's posterior goes to the date it
   projects next (a paycheck-sized deposit seen within two days before it means that payday
   came early: the one after is next; a schedule expecting an overdue deposit the likeliest
   does not expect is left out: under it the overdue one may still come any day); the
   prediction is the date ``d`` minimising ``EARLY_COST_RATIO * P(payday > d) + P(payday < d)``:
   an early prediction costs ten times a late one. A later date backed by more than about
   1/11 of the posterior wins (a biweekly and a semi-monthly reading of few deposits, a
   monthly day and an early-posting reading); a closed payday the history never showed is
   paid the business day before (a 7% chance that the employer pays after is below that
   threshold). The prediction moves a business day later when the chance that the bank's
   posting slips, judged by a mixture of steady and slipping banks from the lateness of the
   last eight deposits, is above it too.
   Confidence: :mod:`.confidence`, a calibrated probability that the date is exact.
6. **Answers without a date**: the primary's last payday did not arrive (LATE), pay stopped,
   a new payer has paid once so far, too recently to be read as monthly (and, paying more
   at once than the primary pays in a month, may be the main income), or nothing is regular
   (gig payouts, no income): V2 answers "no payday" with the reason. It cannot run at all (the chain falls back) with
   under 14 days of history, or under 45 days when no payer has paid twice yet (and no
   federal benefit's one deposit gave a schedule).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import date
from typing import Any

from chalicelib.insight.calendar import is_business_day
from chalicelib.insight.payday.candidates import Evidence, Stream, candidate_streams
from chalicelib.insight.payday.collection import collection_dates
from chalicelib.insight.payday.confidence import ConfidenceInputs, confidence
from chalicelib.insight.payday.types import Detection, InsufficientHistoryError, PaydayPrediction
from chalicelib.insight.schedule import (
    LAST_DAY,
    PER_YEAR,
    Cadence,
    Fit,
    Roll,
    Schedule,
    fit,
    fit_schedules,
    plausible_cadences,
    shift_business_days,
)
from chalicelib.insight.transactions import Txn

MIN_HISTORY_DAYS = 14
ANSWER_HISTORY_DAYS = 45
TOLERANCE = 2
PAYROLL_CADENCES = frozenset(
    {Cadence.WEEKLY, Cadence.BIWEEKLY, Cadence.FOUR_WEEKLY, Cadence.SEMI_MONTHLY, Cadence.MONTHLY}
)
LATE_LOOKBACK = 8
#: Banks whose posting slips a business day (on SLIP of deposits): SLIPPING_SHARE of those that
#: post early, SLIPPING_BANK_FLOOR of any; ACH_LATE of any deposits come a day late.
SLIPPING_SHARE, SLIPPING_BANK_FLOOR, SLIP, ACH_LATE = 0.15, 0.002, 0.3, 0.005
UNLABELLED_MIN_CENTS = 100_00

ACTIVE, LATE, ENDED = "ACTIVE", "LATE", "ENDED"

# --- the posterior of a schedule given a stream's deposits ------------------------------------
#
# log P(deposits | schedule): each expected date matched on the day, 1 or 2 days late or
# early, or missed; each deposit no expected date explains; each expected date of the last
# two days not seen yet. Late is likelier than early: an employer's file sent late or a bank's
# early posting that slips delays a deposit, while only an early-posting bank that got the file
# sooner than usual posts one early: under a schedule posted on the payday itself (no early
# posting) a deposit before it is rarer still (_OFF_BY_STEADY).
_ON_DAY = math.log(0.93)
_OFF_BY = {1: math.log(0.035), 2: math.log(0.01), -1: math.log(0.015), -2: math.log(0.005)}
_OFF_BY_STEADY = {**_OFF_BY, -1: math.log(0.005), -2: math.log(0.002)}
_MISSED = math.log(0.03)
_EXTRA = math.log(0.02)
_PENDING = math.log(0.5)
#: An early collection (a debit before the money lands) costs this many times a late one: the
#: prediction is the date minimising the expected cost (see :func:`_decide`).
EARLY_COST_RATIO = 10.0

# log P(schedule): US payroll practice (pay-period lengths as the BLS reports them; paydays
# mostly on Fridays; semi-monthly on the 1st/15th or the 15th/last day, then the 5th/20th and
# the 10th/25th, else two days 15 apart; monthly on the 1st, the last day, the 15th or the
# 25th, else any day; Social Security on Wednesdays; a closed payday paid the business day
# before, as payroll services do by default; most banks post on the payday, some one or two
# business days early).
_CADENCE = {
    Cadence.WEEKLY: 0.27,
    Cadence.BIWEEKLY: 0.43,
    Cadence.SEMI_MONTHLY: 0.20,
    Cadence.MONTHLY: 0.10,
    Cadence.FOUR_WEEKLY: 0.01,
}
_WEEKDAY = {4: 0.70, 3: 0.12, 2: 0.07, 1: 0.05, 0: 0.06}
_PAIRS = {
    (1, 15): 0.33,
    (15, LAST_DAY): 0.33,
    (5, 20): 0.07,
    (10, 25): 0.07,
    (7, 22): 0.03,
    (1, 16): 0.02,
    (15, 30): 0.02,
}
_OTHER_PAIR = 0.13 / 13  # another two days 15 apart
_MONTH_DAY = {1: 0.22, LAST_DAY: 0.2, 15: 0.12, 25: 0.08}
_OTHER_DAY = 0.28 / 24
_ROLL = {Roll.PREV: 0.93, Roll.NEXT: 0.07, Roll.NONE: 0.001}
_SHIFT = {0: 0.75, 1: 0.10, 2: 0.15}


def _rule_prior(schedule: Schedule) -> float:
    cadence = schedule.cadence
    if cadence in (Cadence.WEEKLY, Cadence.BIWEEKLY, Cadence.FOUR_WEEKLY):
        weekday = schedule.weekday if cadence is Cadence.WEEKLY else ((schedule.phase or 0) - 1) % 7
        weeks = {Cadence.WEEKLY: 1, Cadence.BIWEEKLY: 2, Cadence.FOUR_WEEKLY: 4}[cadence]
        return _WEEKDAY.get(weekday if weekday is not None else 4, 0.001) / weeks  # which week: uniform
    if cadence is Cadence.SEMI_MONTHLY:
        first, second = schedule.days
        return _PAIRS.get((first, second), _OTHER_PAIR if second != LAST_DAY and second - first == 15 else 0.0005)
    if schedule.nth is not None:
        if schedule.weekday == 2 and schedule.nth in (2, 3, 4):
            return 0.04  # Social Security
        if schedule.weekday == 4:  # a Friday of the month: the last one mostly
            return 0.03 if schedule.nth == -1 else 0.01
        return 0.001
    return _MONTH_DAY.get(schedule.days[0], _OTHER_DAY)


def _government_rule(payer: str) -> Callable[[Schedule], bool] | None:
    """The published schedule of a federal payer, when ``payer`` is one: Social Security on the
    second, third or fourth Wednesday or the 3rd, SSI and VA benefits on the 1st, military pay
    (DFAS) on the 1st and the 15th; all paid the business day before a closed day."""
    if payer == "SSA":
        return lambda s: (
            s.cadence is Cadence.MONTHLY
            and ((s.weekday == 2 and s.nth in (2, 3, 4)) or (s.nth is None and s.days == (3,)))
        )
    if payer in ("SSI", "VA"):
        return lambda s: s.cadence is Cadence.MONTHLY and s.nth is None and s.days == (1,)
    if payer.startswith("DFAS"):
        return lambda s: (
            (s.cadence is Cadence.SEMI_MONTHLY and s.days == (1, 15))
            or (s.cadence is Cadence.MONTHLY and s.nth is None and s.days == (1,))
        )
    return None


def _published(payer: str) -> tuple[Schedule, ...]:
    """A federal payer's published schedules, posted on the day or one or two business days
    early: one deposit tells which one the payee is on (Social Security pays each payee on the
    same Wednesday, or the 3rd, every month; military pay comes on the 1st and the 15th, or
    monthly on the 1st)."""
    if payer == "SSA":
        rules = [Schedule.nth_weekday(nth, 2) for nth in (2, 3, 4)] + [Schedule.monthly(3)]
    elif payer in ("SSI", "VA"):
        rules = [Schedule.monthly(1)]
    elif payer.startswith("DFAS"):
        rules = [Schedule.semi_monthly(1, 15), Schedule.monthly(1)]
    else:
        return ()
    return tuple(rule.posting(Roll.PREV, shift) for rule in rules for shift in (0, 1, 2))


def log_prior(schedule: Schedule, payer: str = "") -> float:
    """How common a payroll schedule is, as a log probability (see the tables above); a
    federal payer's published schedule is near certain."""
    shift = _SHIFT.get(schedule.shift, 0.01)
    government = _government_rule(payer)
    if government is not None:
        rule = 0.9 if government(schedule) else 0.0005
        return math.log(rule * (0.999 if schedule.roll is Roll.PREV else 0.001) * shift)
    return math.log(_CADENCE.get(schedule.cadence, 0.001) * _rule_prior(schedule) * _ROLL[schedule.roll] * shift)


def log_likelihood(f: Fit) -> float:
    """How probable the deposits are if ``f``'s schedule is the payer's (see above)."""
    total = len(f.unmatched) * _EXTRA + len(f.pending) * _PENDING
    off_by = _OFF_BY if f.schedule.shift > 0 else _OFF_BY_STEADY
    for expected, observed in f.pairs:
        if observed is None:
            total += _MISSED
        else:
            off = (observed - expected).days
            total += _ON_DAY if off == 0 else off_by.get(off, _MISSED)
    return total


def payroll_prior(payer: str = "") -> Callable[[Schedule], float]:
    """The engine's tie-breaking prior for ``payer``: a small multiple of the log prior."""
    return lambda schedule: -0.0005 * log_prior(schedule, payer)


# --- streams ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StreamFit:
    """A candidate stream with its schedule fits (best posterior first) and what they say."""

    stream: Stream
    fits: tuple[Fit, ...]
    posteriors: tuple[float, ...]
    regular: bool
    status: str
    reason: str

    @property
    def best(self) -> Fit | None:
        return self.fits[0] if self.fits else None

    @property
    def monthly_cents(self) -> float:
        best = self.best
        per_year = PER_YEAR[best.cadence] if best else 12.0
        return self.stream.median_cents() * per_year / 12

    def with_status(self, status: str, reason: str) -> StreamFit:
        return StreamFit(self.stream, self.fits, self.posteriors, self.regular, status, reason)

    def summary(self) -> dict[str, Any]:
        best = self.best
        return {
            "payer": self.stream.payer,
            "account_id": self.stream.account_id,
            "deposits": len(self.stream.deposits),
            "evidence": self.stream.evidence.value,
            "gig": self.stream.gig,
            "regular": self.regular,
            "status": self.status,
            "reason": self.reason,
            "schedule": best.schedule.describe() if best else None,
            "cadence": best.cadence.value if best else None,
            "f1": round(best.f1, 3) if best else None,
            "median_cents": self.stream.median_cents(),
        }


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


def _strict(stream: Stream) -> bool:
    return stream.gig or stream.evidence is Evidence.UNLABELLED


def _status(best: Fit) -> str:
    missed = best.missed_since_last_match
    return ACTIVE if missed == 0 else LATE if missed == 1 else ENDED


def _regular(stream: Stream, best: Fit, *, published: bool = False) -> tuple[bool, str]:
    strict = _strict(stream)
    need = (6 if stream.gig else 3) if strict else 1 if published else 2
    on_day = best.exact / best.matched if best.matched else 0.0
    if best.matched < need:
        return False, f"{best.matched} deposit(s) on schedule, {need} needed"
    if best.f1 < (0.85 if strict else 0.7):
        return False, f"schedule fit too weak (F1 {best.f1:.2f})"
    if best.residual > 0.75 or (strict and on_day < 0.8):
        return False, f"deposits too far from any schedule ({on_day:.0%} on the expected day)"
    if strict and any(not is_business_day(d) for d in stream.days):
        return False, "paid out on days no ACH settles (instant payouts)"
    if stream.evidence is Evidence.UNLABELLED and stream.median_cents() < UNLABELLED_MIN_CENTS:
        return False, "small deposits without income evidence"
    return True, best.schedule.describe()


#: A payer that has paid once, this many days or more before ``as_of``, pays monthly: a payer
#: paying every week, every two weeks or twice a month would have paid again (the longest gap
#: of a twice-monthly payer, a 15th rolled back to the 13th and a 1st on a Monday, is 19 days).
ONCE_MONTHLY_DAYS = 20
#: The longest gap between a monthly payer's deposits: a 31-day month, the later date on its
#: rule and the earlier one rolled back over a weekend and a holiday Monday, posted early.
MONTH_DAYS = 35


def _monthly_rules() -> tuple[Schedule, ...]:
    """Every monthly rule (each day of the month, each nth weekday) as each roll and early
    posting would post it: one deposit is scored against them all and the priors rank them."""
    rules = [Schedule.monthly(day) for day in range(1, LAST_DAY + 1)]
    rules += [Schedule.nth_weekday(nth, weekday) for nth in (1, 2, 3, 4, -1) for weekday in range(5)]
    return tuple(rule.posting(roll, shift) for rule in rules for roll in (Roll.PREV, Roll.NEXT) for shift in (0, 1, 2))


_MONTHLY_RULES = _monthly_rules()


def _paid_once(stream: Stream) -> bool:
    """A payroll stream (income evidence, not gig) with one deposit so far."""
    return len(stream.deposits) == 1 and stream.evidence is Evidence.INCOME and not stream.gig


def _once_monthly(stream: Stream, as_of: date) -> bool:
    """A payroll stream paid once, long enough ago that only a monthly payer would not have
    paid again."""
    return _paid_once(stream) and (as_of - stream.deposits[0].day).days >= ONCE_MONTHLY_DAYS


def _monthly_once(fits: Sequence[StreamFit], as_of: date, history_start: date) -> list[StreamFit]:
    """Streams paid once read as monthly (:func:`_once_monthly`) where that is a monthly payer,
    not a one-off: the deposit before may have fallen before the history (it is within a
    month of its start), or it follows a payer that stopped (a new job)."""
    stopped = [sf.stream.deposits[-1].day for sf in fits if sf.regular and sf.status in (LATE, ENDED)]
    out = []
    for sf in fits:
        stream = sf.stream
        first = stream.deposits[0].day
        if _once_monthly(stream, as_of) and (
            (first - history_start).days <= MONTH_DAYS or any(last < first for last in stopped)
        ):
            out.append(fit_stream(stream, as_of, history_start, once=True))
        else:
            out.append(sf)
    return out


def fit_stream(stream: Stream, as_of: date, history_start: date, *, once: bool = False) -> StreamFit:
    """Fit one stream and judge it (regular or not; ACTIVE, LATE or ENDED). ``once``: the
    stream's one deposit is a monthly payer's (:func:`_monthly_once` decides), scored against
    every monthly rule unless the payer publishes its schedules."""
    days = stream.days
    published = _published(stream.payer) if len(days) == 1 and not _strict(stream) else ()
    if once and not published:
        assert len(days) == 1, "only a stream paid once is read as monthly from one deposit"
        published = _MONTHLY_RULES
    if published:  # one deposit, against a federal benefit's published schedules or every monthly rule
        fits = fit_schedules(days, published, end=as_of, start=history_start, tolerance=TOLERANCE)
        fits = [f for f in fits if f.exact == 1]  # on the day one of them posts
        if not fits:
            return StreamFit(stream, (), (), False, ENDED, "one deposit so far, on no published schedule")
    else:
        cadences = plausible_cadences(days) & PAYROLL_CADENCES
        if len(days) < 2 or not cadences:
            reason = "one deposit so far" if len(days) < 2 else "deposits on no calendar cadence"
            return StreamFit(stream, (), (), False, ENDED if len(days) < 2 else ACTIVE, reason)
        fits = fit(
            days,
            end=as_of,
            start=history_start,
            cadences=cadences,
            rolls=(Roll.PREV, Roll.NEXT),
            shifts=(0, 1, 2),
            tolerance=TOLERANCE,
            prior=payroll_prior(stream.payer),
            keep=16 if len(days) > 3 else 48,  # a few deposits fit many schedules: keep them all
            limit=30 if len(days) > 3 else 60,
        )
    if not fits:
        return StreamFit(stream, (), (), False, ACTIVE, "no schedule fits")
    posterior = [(log_likelihood(f) + log_prior(f.schedule, stream.payer), -n, f) for n, f in enumerate(fits)]
    ranked = sorted(posterior, key=lambda p: p[:2], reverse=True)
    ordered = tuple(f for _, _, f in ranked)
    regular, reason = _regular(stream, ordered[0], published=bool(published))
    return StreamFit(stream, ordered, tuple(p for p, _, _ in ranked), regular, _status(ordered[0]), reason)


#: A stream that began this many days after a LATE stream's first deposit (or the history's
#: start) is a new job; one that began in the last NEWCOMER_DAYS may be replacing the primary.
NEW_JOB_DAYS = 21
NEWCOMER_DAYS = 45
#: Two payers whose monthly amounts are this close (relative) are equally likely the main income.
TIE_SHARE = 0.05


def _replaced(fitted: Sequence[StreamFit]) -> list[StreamFit]:
    """A LATE stream has ended when another regular payer followed it (began after its last
    deposit: a job change or a new account) or began during its history and is still paying
    on schedule (a new job that overlapped the old one)."""
    out = []
    for sf in fitted:
        first, last = sf.stream.deposits[0].day, sf.stream.deposits[-1].day
        if (
            sf.regular
            and sf.status == LATE
            and any(
                o.regular
                and o.stream.payer != sf.stream.payer
                and (
                    o.stream.deposits[0].day > last
                    or (o.status == ACTIVE and (o.stream.deposits[0].day - first).days >= NEW_JOB_DAYS)
                )
                for o in fitted
            )
        ):
            out.append(sf.with_status(ENDED, "replaced by a newer income stream"))
        else:
            out.append(sf)
    return out


def _moved(fitted: list[StreamFit], as_of: date, history_start: date) -> list[StreamFit]:
    """Pay moved to another account: a LATE stream's payer paying into another account, from
    about the date the LATE stream missed on, is one stream in the new account."""
    out = list(fitted)
    for sf in fitted:
        best = sf.best
        if not sf.regular or sf.status != LATE or best is None or sf not in out:
            continue
        missed, last = best.missed[-1], sf.stream.deposits[-1].day
        for other in fitted:
            stream = other.stream
            if (
                other is not sf
                and other in out
                and stream.payer == sf.stream.payer
                and stream.account_id != sf.stream.account_id
                and stream.deposits[0].day > last
                and abs((stream.deposits[0].day - missed).days) <= TOLERANCE
            ):
                labelled = Evidence.INCOME in (stream.evidence, sf.stream.evidence)
                evidence = Evidence.INCOME if labelled else Evidence.UNLABELLED
                joined = replace(
                    stream,
                    deposits=sf.stream.deposits + stream.deposits,
                    evidence=evidence,
                    gig=stream.gig or sf.stream.gig,
                )
                out[out.index(sf)] = fit_stream(joined, as_of, history_start)
                out.remove(other)
                break
    return out


def _payers(fitted: Sequence[StreamFit]) -> dict[str, list[StreamFit]]:
    """Regular, not ended streams by payer."""
    payers: dict[str, list[StreamFit]] = {}
    for sf in fitted:
        if sf.regular and sf.status != ENDED:
            payers.setdefault(sf.stream.payer, []).append(sf)
    return payers


def _receiving(group: Sequence[StreamFit]) -> StreamFit:
    """A payer's main stream: the account that receives the most (a split deposit)."""
    return max(group, key=lambda sf: (sf.stream.median_cents(), sf.stream.account_id))


def _monthly(group: Sequence[StreamFit]) -> float:
    return sum(sf.monthly_cents for sf in group)


def _primary(fitted: Sequence[StreamFit]) -> StreamFit | None:
    """The receiving stream of the payer with the largest monthly income among regular,
    not ended streams."""
    payers = _payers(fitted)
    if not payers:
        return None
    return _receiving(max(payers.values(), key=lambda group: (_monthly(group), group[0].stream.payer)))


def _uncertainty(sf: StreamFit) -> float:
    """Relative standard error of a stream's monthly amount (the spread of its deposits over
    the root of their number)."""
    return sf.stream.amount_spread() / math.sqrt(min(len(sf.stream.deposits), 6))


def _contenders(fitted: Sequence[StreamFit], primary: StreamFit, history_start: date, as_of: date) -> list[StreamFit]:
    """Other payers that may be the main income as much as the primary: one paying about as
    much a month (which is larger is within the noise of their amounts: two standard errors,
    at least :data:`TIE_SHARE`), or one that began paying recently, more than two of its
    periods into the history (a new job: the primary's pay may be about to stop). Only ACTIVE
    streams; the primary's payday is chosen among them never early."""
    payers = _payers(fitted)
    top = _monthly(payers[primary.stream.payer])
    out = []
    for payer, group in payers.items():
        stream = _receiving(group)
        if payer == primary.stream.payer or stream.status != ACTIVE or stream.best is None:
            continue
        first = stream.stream.deposits[0].day
        noise = max(TIE_SHARE, 2 * math.hypot(_uncertainty(stream), _uncertainty(primary)))
        tie = _monthly(group) >= (1 - noise) * top
        started = (first - history_start).days > 2 * stream.best.schedule.period_days + TOLERANCE
        newcomer = started and (as_of - first).days <= NEWCOMER_DAYS
        if tie or newcomer:
            out.append(stream)
    return out


def _unfitted_rival(fitted: Sequence[StreamFit], primary: StreamFit, as_of: date) -> StreamFit | None:
    """A new payer (one recent deposit, not gig) paying more at once than the primary pays in a
    month: it may be the main income, with a payday not known yet. Its deposit need not be
    labelled income (the feed may call a paycheck a transfer): a large unlabelled credit from
    a payer is a reason to wait, not to predict the smaller payer's payday."""
    for sf in fitted:
        stream = sf.stream
        if (
            len(stream.deposits) == 1
            and not stream.gig
            and stream.payer != primary.stream.payer
            and (as_of - stream.deposits[0].day).days <= NEWCOMER_DAYS
            and stream.deposits[0].cents >= primary.monthly_cents
        ):
            return sf
    return None


def _no_regular_reason(fitted: Sequence[StreamFit], history_days: int) -> str:
    ended = [sf for sf in fitted if sf.regular and sf.status == ENDED]
    newcomers = [sf for sf in fitted if len(sf.stream.deposits) == 1 and sf.stream.evidence is Evidence.INCOME]
    if ended and newcomers:
        old, new = ended[0].stream.display_name, newcomers[0].stream.display_name
        return f"income changed: pay from {old} stopped and {new} has paid once so far"
    if ended:
        last = ended[0].stream.deposits[-1].day
        return f"pay from {ended[0].stream.display_name} stopped after {last.isoformat()}"
    if any(sf.stream.gig for sf in fitted):
        return "income is irregular (gig payouts on no fixed schedule)"
    if fitted:
        return "no income deposits on a regular schedule"
    return f"no income deposits in {history_days} days"


def _decide(sf: StreamFit, cost_ratio: float) -> tuple[Fit, list[date], float, bool]:
    """The next payday that minimises the expected cost when predicting early costs
    ``cost_ratio`` times predicting late: each schedule's posterior goes to the next payday it
    projects (those expecting no overdue deposit the best does not; a paycheck that came
    early moves it to the one after), and the date ``d`` minimising
    ``cost_ratio * P(payday > d) + P(payday < d)`` is chosen (the later on a tie). Returns the
    schedule behind it, its projected paydays, the posterior probability of that date and
    whether it is the most probable one."""
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
    later, earlier, cheapest, chosen_day = total, 0.0, math.inf, min(mass)
    for day in sorted(mass):
        later -= mass[day]
        cost = cost_ratio * later + earlier
        if cost <= cheapest + 1e-12 * total:
            cheapest, chosen_day = cost, day
        earlier += mass[day]
    chosen, upcoming = behind[chosen_day]
    return chosen, upcoming, mass[chosen_day] / total, mass[chosen_day] >= max(mass.values())


def _came_early(sf: StreamFit, chosen: Fit, upcoming: list[date]) -> list[date]:
    """A paycheck-sized deposit the schedule did not expect, within two days before the next
    payday, is that payday come early: the one after is next."""
    last = sf.stream.deposits[-1]
    typical = sf.stream.median_cents()
    if (
        last.day not in {o for _, o in chosen.pairs}
        and 0 < (upcoming[0] - last.day).days <= TOLERANCE
        and abs(last.cents - typical) <= 0.35 * typical
    ):
        return chosen.schedule.next_dates(upcoming[0], 3)
    return upcoming


def _slip_risk(sf: StreamFit, chosen: Fit) -> float:
    """The probability that the next deposit posts a business day later than the schedule:
    the bank either holds its posting day or slips on a share of deposits (early posting
    waits for the employer's file, which sometimes comes a day later), judged from the last
    deposits' lateness; an ACH delay may hit any deposit."""
    recent = [(e, o) for e, o in chosen.pairs if o is not None][-LATE_LOOKBACK:]
    late = sum(1 for e, o in recent if o > e)
    top = sf.posteriors[0]
    weights = [math.exp(p - top) for p in sf.posteriors]
    posts_early = sum(w for f, w in zip(sf.fits, weights, strict=True) if f.schedule.shift > 0) / sum(weights)
    prior = SLIPPING_BANK_FLOOR + SLIPPING_SHARE * posts_early
    slipping = prior * SLIP**late * (1 - SLIP) ** (len(recent) - late)
    steady = (1 - prior) * ACH_LATE**late * (1 - ACH_LATE) ** (len(recent) - late)
    share = slipping / (slipping + steady)
    return share * SLIP + (1 - share) * ACH_LATE


def _prediction(
    sf: StreamFit, as_of: date, fitted: Sequence[StreamFit], cost_ratio: float
) -> tuple[PaydayPrediction, ConfidenceInputs]:
    chosen, upcoming, probability, likeliest = _decide(sf, cost_ratio)
    shift = 1 if _slip_risk(sf, chosen) * (cost_ratio + 1) > 1 else 0  # a slip costs more than a late day
    if shift:
        upcoming = [shift_business_days(d, shift) for d in upcoming]
    upcoming = [d for d in upcoming if d > as_of]
    best = sf.fits[0]
    inputs = ConfidenceInputs(
        probability=probability,
        likeliest=likeliest,
        matched=best.matched,
        on_day=best.exact / best.matched,
        f1=best.f1,
        spread=sf.stream.amount_spread(),
        slipped=bool(shift),
        hedged=False,
        monthly=chosen.cadence in (Cadence.MONTHLY, Cadence.FOUR_WEEKLY),
    )
    schedule = chosen.schedule.describe() + (f"; lately {shift} business day(s) later" if shift else "")
    answer = PaydayPrediction(
        Detection.FLOATME_V2,
        upcoming[0],
        chosen.cadence.value,
        confidence(inputs),
        source=sf.stream.display_name,
        collection=collection_dates(upcoming),
        upcoming=tuple(upcoming),
        schedule=schedule,
        details={"streams": [f.summary() for f in fitted]},
    )
    return answer, inputs


def analyse(txns: Sequence[Txn], as_of: date, *, cost_ratio: float = EARLY_COST_RATIO) -> V2Result:
    """Run V2 on visible transactions (see the module docstring). ``cost_ratio``: how many
    times worse an early prediction is than a late one (1 predicts the posterior median:
    for measuring what the never-early policy costs)."""
    streams = candidate_streams(txns)
    candidates = tuple(t for s in streams for t in s.txns)
    if not txns:
        return V2Result(None, InsufficientHistoryError("no transactions"), candidates, ())
    history_start = min(t.day for t in txns)
    history_days = (as_of - history_start).days + 1
    if history_days < MIN_HISTORY_DAYS:
        error = InsufficientHistoryError(f"{history_days} days of history, {MIN_HISTORY_DAYS} needed")
        return V2Result(None, error, candidates, ())
    fits = [fit_stream(s, as_of, history_start) for s in streams]
    fitted = _replaced(_moved(fits, as_of, history_start))
    primary = _primary(fitted)
    if primary is None or primary.status == LATE:  # no payday otherwise: a payer paid once may be monthly
        once = _monthly_once(fits, as_of, history_start)
        if any(o is not f and o.regular and o.status == ACTIVE for o, f in zip(once, fits, strict=True)):
            fitted = _replaced(_moved(once, as_of, history_start))
            primary = _primary(fitted)
    details = {"streams": [sf.summary() for sf in fitted]}
    if primary is None:
        if history_days < ANSWER_HISTORY_DAYS and not any(len(s.deposits) >= 2 for s in streams):
            error = InsufficientHistoryError(f"no payer has paid twice in {history_days} days")
            return V2Result(None, error, candidates, tuple(fitted))
        reason = _no_regular_reason(fitted, history_days)
        return V2Result(PaydayPrediction.none(Detection.FLOATME_V2, reason, **details), None, candidates, tuple(fitted))
    rival = _unfitted_rival(fitted, primary, as_of)
    if rival is not None:
        reason = (
            f"{rival.stream.display_name} has paid once so far, more than {primary.stream.display_name} pays in a"
            " month: too early to tell which payday is the main one"
        )
        return V2Result(
            PaydayPrediction.none(Detection.FLOATME_V2, reason, **details), None, candidates, tuple(fitted), primary
        )
    if primary.status == LATE:
        best = primary.fits[0]
        missed = best.missed[-1].isoformat() if best.missed else "the last payday"
        reason = f"the pay expected from {primary.stream.display_name} on {missed} has not arrived"
        return V2Result(
            PaydayPrediction.none(Detection.FLOATME_V2, reason, **details), None, candidates, tuple(fitted), primary
        )
    answer, inputs = _prediction(primary, as_of, fitted, cost_ratio)
    for other in _contenders(fitted, primary, history_start, as_of):
        theirs, their_inputs = _prediction(other, as_of, fitted, cost_ratio)
        assert answer.next_payday is not None and theirs.next_payday is not None
        if theirs.next_payday == answer.next_payday:
            continue
        if theirs.next_payday > answer.next_payday:  # unsure which payer: the later payday is never early
            answer, inputs, primary = theirs, their_inputs, other
        inputs = replace(inputs, hedged=True)
        answer = replace(answer, confidence=confidence(inputs))
    return V2Result(answer, None, candidates, tuple(fitted), primary, inputs)


def predict(txns: Sequence[Txn], as_of: date) -> PaydayPrediction:
    """V2's answer alone; raises :class:`InsufficientHistoryError` when it cannot run."""
    result = analyse(txns, as_of)
    if result.prediction is None:
        assert result.error is not None
        raise result.error
    return result.prediction
