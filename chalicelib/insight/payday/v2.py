"""FloatMe V2: the payday model of the chain, a schedule fit with a small decision layer.

1. **Candidates** (:mod:`.candidates`): inflows that could be paychecks, one stream per payer
   and account.
2. **Fit**: each stream with two deposits or more is fitted with the calendar schedules of
   :mod:`chalicelib.insight.schedule` (weekly, every two or four weeks, twice a month, monthly
   on a day, the last business day or an nth weekday), each with a closed day paid the
   business day before or after and posted 0-2 business days early; only the deposits after
   a long pause are read (the current schedule), and a deposit of an unusual amount (a bonus)
   is left out when the others hold steady. The readings are ranked by
   posterior: the likelihood of the deposits under a simple noise model (on the day, a day or
   two off, missed, extra) times a prior of a few explained numbers (:func:`log_prior`). A
   federal payer (Social Security, SSI, VA, military pay) or a pension is near certain to pay
   on its published schedule, and its one deposit is read against it; an employer's one
   deposit, when only a monthly payer would not have paid again, against every monthly rule.
3. **Regular or not**, and **status**: a stream is regular when its best schedule matches two
   deposits or more closely (streams without income evidence and gig platforms must do
   better); ACTIVE, LATE (its last expected deposit did not come) or ENDED (two did not, or a
   newer payer replaced it).
4. **Which payer** (:func:`primary`): gig payouts never give a payday, by the platform's name
   or by their look (amounts that do not hold, off their days). A payer that stopped while a
   newer one pays is replaced (a job change: the newer payer wins once it has paid twice),
   unless it kept paying alongside the newer one (two jobs);
   among the rest the largest monthly amount, in the account that receives most.
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

import itertools
import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import date
from functools import lru_cache
from typing import Any

from chalicelib.insight.calendar import is_business_day
from chalicelib.insight.payday.candidates import (
    PENSION_WORDS,
    Deposit,
    Evidence,
    Stream,
    candidate_streams,
    names_a_payer,
)
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
    business_days_between,
    fit,
    fit_schedules,
    plausible_cadences,
)
from chalicelib.insight.transactions import Txn

MIN_HISTORY_DAYS = 14
ANSWER_HISTORY_DAYS = 45
TOLERANCE = 2
PAYROLL_CADENCES = frozenset(
    {Cadence.WEEKLY, Cadence.BIWEEKLY, Cadence.FOUR_WEEKLY, Cadence.SEMI_MONTHLY, Cadence.MONTHLY}
)
UNLABELLED_MIN_CENTS = 100_00

ACTIVE, LATE, ENDED = "ACTIVE", "LATE", "ENDED"

# --- the posterior of a schedule given a stream's deposits ------------------------------------
#
# log P(deposits | schedule): each expected date matched on the day, a day or two late or
# early, or missed; each deposit no expected date explains; each expected date of the last two
# days not seen yet (it may still come).
_ON_DAY = math.log(0.93)
_OFF_BY = {1: math.log(0.03), 2: math.log(0.01), -1: math.log(0.01), -2: math.log(0.005)}
_MISSED = math.log(0.03)
_EXTRA = math.log(0.02)
_PENDING = math.log(0.5)

# log P(schedule): pay periods as common as US employers use them (biweekly most, then weekly,
# semi-monthly and monthly, the last a little more for benefits, which are monthly; every four
# weeks rare); paydays on a Friday two times in five, on each other weekday about one in
# seven; twice a month on a standard pair of days nine times in ten (the 1st and 15th, the
# 15th and the last day, the 5th and 20th, the 10th and 25th), any other two days 13 to 17
# apart sharing the rest; monthly pay on a day of the month three times as often as on an nth
# weekday, the 1st, the 15th and the last day three times as often as another day; a closed
# payday paid the business day before nineteen times in twenty; the bank posting on the payday eight
# times in ten, one or two business days early otherwise.
_PERIOD = {
    Cadence.WEEKLY: 0.25,
    Cadence.BIWEEKLY: 0.40,
    Cadence.SEMI_MONTHLY: 0.20,
    Cadence.MONTHLY: 0.15,
    Cadence.FOUR_WEEKLY: 0.01,
}
_WEEKDAY = {4: 0.4, 0: 0.15, 1: 0.15, 2: 0.15, 3: 0.15}
_WEEKS = {Cadence.WEEKLY: 1, Cadence.BIWEEKLY: 2, Cadence.FOUR_WEEKLY: 4}
STANDARD_PAIRS = frozenset({(1, 15), (15, LAST_DAY), (5, 20), (10, 25)})
STANDARD_PAIR_SHARE = 0.9
_OTHER_PAIRS = 80  # about how many other pairs the engine proposes (two days 13-17 apart)
STANDARD_DAYS = frozenset({1, 15, LAST_DAY})
OTHER_DAY = 1 / 3  # another day's weight against a standard one's
DAY_OF_MONTH = 0.75  # monthly pay on a day of the month, else on an nth weekday (25 rules)
_ROLL = {Roll.PREV: 0.95, Roll.NEXT: 0.05, Roll.NONE: 0.001}
_SHIFT = {0: 0.8, 1: 0.1, 2: 0.1}
#: An answer's early chance counts this much against its chance of being exact (:func:`decide`):
#: a later date wins when it is at least four fifths as probable as the likeliest.
EARLY_WEIGHT = 0.25
#: A deposit this far from a stream's median amount (a bonus, a correction) is left out of its
#: fit, when STEADY_SHARE of the deposits, and two or more, are not.
UNUSUAL_AMOUNT, STEADY_SHARE = 0.5, 0.8
#: A gap this many times a stream's typical gap is a pause: the schedule after it is the current one.
PAUSE = 3


def _rule_prior(schedule: Schedule) -> float:
    cadence = schedule.cadence
    if cadence in _WEEKS:
        weekday = schedule.weekday if cadence is Cadence.WEEKLY else ((schedule.phase or 0) - 1) % 7
        return _WEEKDAY.get(weekday if weekday is not None else 4, 0.0001) / _WEEKS[cadence]
    if cadence is Cadence.SEMI_MONTHLY:
        if schedule.days in STANDARD_PAIRS:
            return STANDARD_PAIR_SHARE / len(STANDARD_PAIRS)
        return (1 - STANDARD_PAIR_SHARE) / _OTHER_PAIRS
    if cadence is Cadence.MONTHLY and schedule.nth is not None:
        return (1 - DAY_OF_MONTH) / 25
    if cadence is Cadence.MONTHLY:
        weight = 1.0 if schedule.days[0] in STANDARD_DAYS else OTHER_DAY
        return DAY_OF_MONTH * weight / (len(STANDARD_DAYS) + OTHER_DAY * (LAST_DAY - len(STANDARD_DAYS)))
    return 0.001


PENSION = "PENSION"


def payer_kind(stream: Stream) -> str:
    """The payer, for its published schedule: the federal payers by their key (SSA, SSI, VA,
    DFAS ...), a pension (:data:`PENSION`) by the words of its deposits, else the key."""
    if _government_rule(stream.payer) is None and any(PENSION_WORDS.search(t.name.upper()) for t in stream.txns):
        return PENSION
    return stream.payer


def _government_rule(payer: str) -> Callable[[Schedule], bool] | None:
    """The published schedule of a federal payer or a pension, when ``payer`` is one: Social
    Security on the second, third or fourth Wednesday or the 3rd, SSI, VA benefits and pensions
    on the 1st, military pay (DFAS) on the 1st and the 15th; all paid the business day before a
    closed day."""
    if payer == "SSA":
        return lambda s: (
            s.cadence is Cadence.MONTHLY
            and ((s.weekday == 2 and s.nth in (2, 3, 4)) or (s.nth is None and s.days == (3,)))
        )
    if payer in ("SSI", "VA", PENSION):
        return lambda s: s.cadence is Cadence.MONTHLY and s.nth is None and s.days == (1,)
    if payer.startswith("DFAS"):
        return lambda s: (
            (s.cadence is Cadence.SEMI_MONTHLY and s.days == (1, 15))
            or (s.cadence is Cadence.MONTHLY and s.nth is None and s.days == (1,))
        )
    return None


def _published(payer: str) -> tuple[Schedule, ...]:
    """A federal payer's or a pension's published schedules, posted on the day or one or two
    business days early: one deposit tells which one the payee is on (Social Security pays each
    payee on the same Wednesday, or the 3rd, every month; military pay comes on the 1st and the
    15th, or monthly on the 1st; pensions on the 1st)."""
    if payer == "SSA":
        rules = [Schedule.nth_weekday(nth, 2) for nth in (2, 3, 4)] + [Schedule.monthly(3)]
    elif payer in ("SSI", "VA", PENSION):
        rules = [Schedule.monthly(1)]
    elif payer.startswith("DFAS"):
        rules = [Schedule.semi_monthly(1, 15), Schedule.monthly(1)]
    else:
        return ()
    return tuple(rule.posting(Roll.PREV, shift) for rule in rules for shift in (0, 1, 2))


@lru_cache(maxsize=1 << 14)
def log_prior(schedule: Schedule, payer: str = "") -> float:
    """How likely a payroll schedule is before any deposit is seen (see the tables above); a
    federal payer's published schedule is near certain."""
    shift = _SHIFT.get(schedule.shift, 0.01)
    government = _government_rule(payer)
    if government is not None:
        rule = 0.9 if government(schedule) else 0.0005
        return math.log(rule * (0.999 if schedule.roll is Roll.PREV else 0.001) * shift)
    period = _PERIOD.get(schedule.cadence, 0.001)
    return math.log(period * _rule_prior(schedule) * _ROLL[schedule.roll] * shift)


def log_likelihood(f: Fit) -> float:
    """How probable the deposits are if ``f``'s schedule is the payer's (see above). A deposit's
    distance counts business days; one posted on a closed day is a day off its business day."""
    total = len(f.unmatched) * _EXTRA + len(f.pending) * _PENDING
    for expected, observed in f.pairs:
        if observed is None:
            total += _MISSED
        elif observed == expected:
            total += _ON_DAY
        else:
            off = business_days_between(expected, observed) or (1 if observed > expected else -1)
            total += _OFF_BY.get(off, _MISSED)
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

    @property
    def first(self) -> date:
        return self.stream.deposits[0].day

    @property
    def last(self) -> date:
        return self.stream.deposits[-1].day

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


def _needed(stream: Stream, best: Fit, *, published: bool) -> int:
    """How many deposits on schedule make a stream payroll. Income by its label: two, or one on
    a schedule its payer publishes. A gig platform: six. A payer without an income label proves
    itself by its schedule: three, or two that the schedule puts exactly on their days (a new
    employer whose bank leaves the category off shows no more in its first two months, nor a
    month's pay in 60 days) when its lines name it. Two deposits a payroll gap apart always fit
    some schedule exactly, so such a pair is held by what holds every payer without a label (no
    transfer, P2P or refund wording, business days, $100 or more) and by a name: two checks
    deposited by phone a month apart say nothing of who paid them."""
    if stream.gig:
        return 6
    if stream.evidence is Evidence.UNLABELLED:
        return 2 if best.exact == best.matched and names_a_payer(stream.payer) else 3
    return 1 if published else 2


def _regular(stream: Stream, best: Fit, *, published: bool = False) -> tuple[bool, str]:
    strict = _strict(stream)
    need = _needed(stream, best, published=published)
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
    stopped = [sf.last for sf in fits if sf.regular and sf.status in (LATE, ENDED)]
    out = []
    for sf in fits:
        stream = sf.stream
        if _once_monthly(stream, as_of) and (
            (sf.first - history_start).days <= MONTH_DAYS or any(last < sf.first for last in stopped)
        ):
            out.append(fit_stream(stream, as_of, history_start, once=True, current_only=True))
        else:
            out.append(sf)
    return out


def _usual(stream: Stream) -> list[date]:
    """The days of a stream's deposits of a usual amount: within :data:`UNUSUAL_AMOUNT` of the
    median (a bonus or a correction is not)."""
    median = statistics.median(d.cents for d in stream.deposits)
    return [d.day for d in stream.deposits if abs(d.cents / median - 1) <= UNUSUAL_AMOUNT]


def _steady(stream: Stream) -> bool:
    """Pay that holds its amount: :data:`STEADY_SHARE` of the deposits of a usual amount."""
    return len(_usual(stream)) >= STEADY_SHARE * len(stream.deposits)


def _current_days(stream: Stream) -> list[date]:
    """The days of the deposits that show a stream's current schedule: those after the last
    pause longer than :data:`PAUSE` typical gaps, when two or more came after it (a payer that
    stopped and started again: a deposit long before the others, a new job whose lines read
    like the old one's); of those, without the deposits of an unusual amount when the others
    are steady (and two or more; payouts that vary throughout, gig work, keep every day, so
    that their lack of a schedule shows)."""
    deposits = stream.deposits
    if len(deposits) >= 3:
        gaps = [(b.day - a.day).days for a, b in itertools.pairwise(deposits)]
        typical = statistics.median(gaps)
        pauses = [n for n, gap in enumerate(gaps) if gap > PAUSE * typical and n + 2 < len(deposits)]
        if pauses:
            deposits = deposits[pauses[-1] + 1 :]
    current = replace(stream, deposits=deposits)
    if len(deposits) >= 3:
        usual = _usual(current)
        if len(usual) >= 2 and _steady(current):
            return usual
    return current.days


def fit_stream(
    stream: Stream, as_of: date, history_start: date, *, once: bool = False, current_only: bool = False
) -> StreamFit:
    """Fit one stream and judge it (regular or not; ACTIVE, LATE or ENDED). ``once``: the
    stream's one deposit is a monthly payer's (:func:`_monthly_once` decides), scored against
    every monthly rule unless the payer publishes its schedules. ``current_only``: only the
    deposits that show the current schedule are fitted (:func:`_current_days`)."""
    days = _current_days(stream) if current_only else stream.days
    kind = payer_kind(stream)
    published = _published(kind) if len(days) == 1 and not _strict(stream) else ()
    if once and not published:
        assert len(days) == 1, "only a stream paid once is read as monthly from one deposit"
        published = _MONTHLY_RULES
    if published:  # one deposit, against a federal benefit's published schedules or every monthly rule
        fits = fit_schedules(days, published, end=as_of, start=history_start, tolerance=TOLERANCE, business=True)
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
            business=True,
            prior=payroll_prior(kind),
            keep=16 if len(days) > 3 else 48,  # a few deposits fit many schedules: keep them all
            limit=30 if len(days) > 3 else 60,
        )
    if not fits:
        return StreamFit(stream, (), (), False, ACTIVE, "no schedule fits")
    posterior = [(log_likelihood(f) + log_prior(f.schedule, kind), -n, f) for n, f in enumerate(fits)]
    ranked = sorted(posterior, key=lambda p: p[:2], reverse=True)
    ordered = tuple(f for _, _, f in ranked)
    regular, reason = _regular(stream, ordered[0], published=bool(published))
    return StreamFit(stream, ordered, tuple(p for p, _, _ in ranked), regular, _status(ordered[0]), reason)


# --- which payer ---------------------------------------------------------------------------------

#: A stream that began this many days after a LATE stream's first deposit is a new job.
NEW_JOB_DAYS = 21
#: A payer that paid this many times after another payer's first deposit worked both jobs: its
#: missing paycheck is a missed one, not the end of the job (a notice period pays once or twice).
TWO_JOBS_ALONGSIDE = 3
#: A new payer's one deposit in these last days, larger than the primary's month, may be the main income.
NEWCOMER_DAYS = 45
#: A payer's deposits, fewer than this share of them on their schedule's day, are not a payroll's
#: when their amounts do not hold either (:func:`_gig_like`).
PUNCTUAL = 0.9


def _replaced(fitted: Sequence[StreamFit]) -> list[StreamFit]:
    """A payer that stopped while another pays has ended (a job change, with or without
    overlap): a LATE stream when another regular payer began after its last deposit, or began
    during its history and still pays on schedule; any stream whose every deposit came before
    a newer regular payer's first, once the newer one has paid twice."""
    out = []
    for sf in fitted:
        if sf.regular and sf.status != ENDED and any(_replaces(o, sf) for o in fitted):
            out.append(sf.with_status(ENDED, "replaced by a newer income stream"))
        else:
            out.append(sf)
    return out


def _replaces(new: StreamFit, old: StreamFit) -> bool:
    if not new.regular or new.stream.gig or new.stream.payer == old.stream.payer:
        return False
    if new.first > old.last and len(new.stream.deposits) >= 2:
        return True
    return (
        old.status == LATE
        and new.status == ACTIVE
        and (new.first - old.first).days >= NEW_JOB_DAYS
        and sum(1 for d in old.stream.deposits if d.day > new.first) < TWO_JOBS_ALONGSIDE  # paid alongside
    )


def _moved(fitted: list[StreamFit], as_of: date, history_start: date) -> list[StreamFit]:
    """Pay moved to another account: a LATE stream's payer paying into another account, from
    about the date the LATE stream missed on, is one stream in the new account."""
    out = list(fitted)
    for sf in fitted:
        best = sf.best
        if not sf.regular or sf.status != LATE or best is None or sf not in out:
            continue
        missed = best.missed[-1]
        for other in fitted:
            stream = other.stream
            if (
                other is not sf
                and other in out
                and stream.payer == sf.stream.payer
                and stream.account_id != sf.stream.account_id
                and other.first > sf.last
                and abs((other.first - missed).days) <= TOLERANCE
            ):
                labelled = Evidence.INCOME in (stream.evidence, sf.stream.evidence)
                evidence = Evidence.INCOME if labelled else Evidence.UNLABELLED
                joined = replace(
                    stream,
                    deposits=sf.stream.deposits + stream.deposits,
                    evidence=evidence,
                    gig=stream.gig or sf.stream.gig,
                )
                out[out.index(sf)] = fit_stream(joined, as_of, history_start, current_only=True)
                out.remove(other)
                break
    return out


def _gig_like(sf: StreamFit) -> bool:
    """Payouts that look like gig work whatever the payer's name: amounts that do not hold
    (:func:`_steady`, on the deposits the schedule explains) landing off a schedule (fewer than
    :data:`PUNCTUAL` of them on their day). A payroll's paychecks hold their amount (hourly pay
    varies by a fifth or so) beside its off-cycle deposits (a bonus, a correction), and when
    they stray (a bank whose early posting slips) the amounts still hold."""
    best = sf.best
    if best is None or not best.matched or len(sf.stream.deposits) < 3:
        return False
    on_schedule = {o for _, o in best.pairs if o is not None}
    paychecks = tuple(d for d in sf.stream.deposits if d.day in on_schedule)
    if best.exact / best.matched >= PUNCTUAL:
        return False
    return not _steady(replace(sf.stream, deposits=paychecks)) or _spread(paychecks) > SPREAD


#: The middle half of a payroll's paychecks spans up to half again (hours that vary week to week:
#: 1.5 at the most on the tuning seeds); a gig payout's, about a factor of two.
SPREAD = 1.75


def _spread(deposits: Sequence[Deposit]) -> float:
    """The upper quartile of the amounts over their lower quartile."""
    cents = sorted(d.cents for d in deposits)
    if len(cents) < 4:
        return 1.0
    lower, _, upper = statistics.quantiles(cents, n=4)
    return upper / lower if lower > 0 else math.inf


def _payers(fitted: Sequence[StreamFit]) -> dict[str, list[StreamFit]]:
    """Regular, not ended streams that are not gig payouts (by name or by look), by payer."""
    payers: dict[str, list[StreamFit]] = {}
    for sf in fitted:
        if sf.regular and sf.status != ENDED and not sf.stream.gig and not _gig_like(sf):
            payers.setdefault(sf.stream.payer, []).append(sf)
    return payers


def _receiving(group: Sequence[StreamFit]) -> StreamFit:
    """A payer's main stream: the account that receives the most (a split deposit)."""
    return max(group, key=lambda sf: (sf.stream.median_cents(), sf.stream.account_id))


def _monthly(group: Sequence[StreamFit]) -> float:
    return sum(sf.monthly_cents for sf in group)


def primary(fitted: Sequence[StreamFit]) -> StreamFit | None:
    """The receiving stream of the payer with the largest monthly income among regular, not
    ended streams (gig payouts never have a payday)."""
    payers = _payers(fitted)
    if not payers:
        return None
    return _receiving(max(payers.values(), key=lambda group: (_monthly(group), group[0].stream.payer)))


def _rival(fitted: Sequence[StreamFit], chosen: StreamFit, as_of: date) -> StreamFit | None:
    """Why the primary's payday may not be the one to predict: a new payer (one deposit, not
    gig) after a LATE primary's last deposit (a job change too new to read), or one paying more
    at once, in the last weeks, than the primary pays in a month (it may be the main income)."""
    for sf in fitted:
        stream = sf.stream
        if len(stream.deposits) != 1 or stream.gig or stream.payer == chosen.stream.payer:
            continue
        day, cents = stream.deposits[0].day, stream.deposits[0].cents
        if chosen.status == LATE and _paid_once(stream) and day > chosen.last:
            return sf
        if (as_of - day).days <= NEWCOMER_DAYS and cents >= chosen.monthly_cents:
            return sf
    return None


def _no_regular_reason(fitted: Sequence[StreamFit], history_days: int) -> str:
    ended = [sf for sf in fitted if sf.regular and sf.status == ENDED]
    newcomers = [sf for sf in fitted if len(sf.stream.deposits) == 1 and sf.stream.evidence is Evidence.INCOME]
    if ended and newcomers:
        old, new = ended[0].stream.display_name, newcomers[0].stream.display_name
        return f"income changed: pay from {old} stopped and {new} has paid once so far"
    if ended:
        return f"pay from {ended[0].stream.display_name} stopped after {ended[0].last.isoformat()}"
    if any(sf.stream.gig for sf in fitted):
        return "income is irregular (gig payouts on no fixed schedule)"
    if fitted:
        return "no income deposits on a regular schedule"
    return f"no income deposits in {history_days} days"


# --- which date ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Decision:
    """The date chosen for a stream: the reading behind it, its projected paydays, the
    posterior probability of the date and whether it is the most probable one."""

    fit: Fit
    upcoming: list[date]
    probability: float
    likeliest: bool


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
    return Decision(chosen, upcoming, mass[chosen_day] / total, mass[chosen_day] >= max(mass.values()))


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
    fitted = _replaced(_moved(fits, as_of, history_start))
    chosen = primary(fitted)
    if chosen is None or chosen.status == LATE:  # no payday otherwise: a payer paid once may be monthly
        once = _monthly_once(fits, as_of, history_start)
        if any(o is not f and o.regular and o.status == ACTIVE for o, f in zip(once, fits, strict=True)):
            fitted = _replaced(_moved(once, as_of, history_start))
            chosen = primary(fitted)
    details = {"streams": [sf.summary() for sf in fitted]}
    if chosen is None:
        if history_days < ANSWER_HISTORY_DAYS and not any(len(s.deposits) >= 2 for s in streams):
            error = InsufficientHistoryError(f"no payer has paid twice in {history_days} days")
            return V2Result(None, error, candidates, tuple(fitted))
        reason = _no_regular_reason(fitted, history_days)
        return V2Result(PaydayPrediction.none(Detection.FLOATME_V2, reason, **details), None, candidates, tuple(fitted))
    rival = _rival(fitted, chosen, as_of)
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
