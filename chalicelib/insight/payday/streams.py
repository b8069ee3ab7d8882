"""A payer's stream fitted: the readings of its current deposits ranked by posterior, whether it is
regular, and its status (ACTIVE, LATE, ENDED); a payer paid once read as monthly where that is one."""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date
from typing import Any

from chalicelib.insight.calendar import is_business_day
from chalicelib.insight.payday.candidates import Evidence, Stream, names_a_payer
from chalicelib.insight.payday.posterior import (
    is_published,
    log_likelihood,
    log_prior,
    payer_kind,
    payroll_prior,
    published_rules,
)
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

TOLERANCE = 2


PAYROLL_CADENCES = frozenset(
    {Cadence.WEEKLY, Cadence.BIWEEKLY, Cadence.FOUR_WEEKLY, Cadence.SEMI_MONTHLY, Cadence.MONTHLY}
)


UNLABELLED_MIN_CENTS = 100_00


ACTIVE, LATE, ENDED = "ACTIVE", "LATE", "ENDED"


#: A deposit this far from a stream's median amount (a bonus, a correction) is left out of its
#: fit, when STEADY_SHARE of the deposits, and two or more, are not.
UNUSUAL_AMOUNT, STEADY_SHARE = 0.5, 0.8


#: A gap this many times a stream's typical gap is a pause: the schedule after it is the current one.
PAUSE = 3


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


def _regular(stream: Stream, best: Fit, *, published: bool = False, never_late: bool = False) -> tuple[bool, str]:
    strict = _strict(stream)
    need = _needed(stream, best, published=published)
    on_day = best.exact / best.matched if best.matched else 0.0
    if best.matched < need:
        return False, f"{best.matched} deposit(s) on schedule, {need} needed"
    if best.f1 < (0.85 if strict else 0.7):
        return False, f"schedule fit too weak (F1 {best.f1:.2f})"
    varying = _early_by_varying_leads(stream, best, least=2 if never_late else 3)
    if (best.residual > 0.75 or (strict and on_day < 0.8)) and not varying:
        return False, f"deposits too far from any schedule ({on_day:.0%} on the expected day)"
    if strict and any(not is_business_day(d) for d in stream.days):
        return False, "paid out on days no ACH settles (instant payouts)"
    if stream.evidence is Evidence.UNLABELLED and stream.median_cents() < UNLABELLED_MIN_CENTS:
        return False, "small deposits without income evidence"
    return True, best.schedule.describe()


def _early_by_varying_leads(stream: Stream, best: Fit, *, least: int = 3) -> bool:
    """Pay that a bank posts early by a lead that varies: ``least`` deposits or more of a steady
    amount (three; two for a payer that publishes its schedule, which is never late), none the
    reading leaves unexplained, landing at two offsets or more from the reading's days, all
    within :data:`TOLERANCE` business days of each other (the payday, or one or two business
    days before it). The bank releases a direct deposit when the payer's file arrives, and a
    payroll sends it one or two banking days ahead, not always the same: such pay misses its
    day as often as not under any one lead, and is regular all the same."""
    if best.matched < least or best.unmatched or not steady_amounts(stream):
        return False
    # Where each deposit landed against the reading's day; the latest is the payday (a reading
    # of such pay may put its day at any of the leads: every lead's dates are the same days).
    offsets = {business_days_between(e, o) for e, o in best.pairs if o is not None}
    return len(offsets) > 1 and max(offsets) - min(offsets) <= TOLERANCE


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


def paid_once(stream: Stream) -> bool:
    """A payroll stream (income evidence, not gig) with one deposit so far."""
    return len(stream.deposits) == 1 and stream.evidence is Evidence.INCOME and not stream.gig


def _once_monthly(stream: Stream, as_of: date) -> bool:
    """A payroll stream paid once, long enough ago that only a monthly payer would not have
    paid again."""
    return paid_once(stream) and (as_of - stream.deposits[0].day).days >= ONCE_MONTHLY_DAYS


def read_monthly_once(fits: Sequence[StreamFit], as_of: date, history_start: date) -> list[StreamFit]:
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


def usual_days(stream: Stream) -> list[date]:
    """The days of a stream's deposits of a usual amount: within :data:`UNUSUAL_AMOUNT` of the
    median (a bonus or a correction is not)."""
    median = statistics.median(d.cents for d in stream.deposits)
    return [d.day for d in stream.deposits if abs(d.cents / median - 1) <= UNUSUAL_AMOUNT]


def steady_amounts(stream: Stream) -> bool:
    """Pay that holds its amount: :data:`STEADY_SHARE` of the deposits of a usual amount."""
    return len(usual_days(stream)) >= STEADY_SHARE * len(stream.deposits)


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
        usual = usual_days(current)
        if len(usual) >= 2 and steady_amounts(current):
            return usual
    return current.days


def fit_stream(
    stream: Stream, as_of: date, history_start: date, *, once: bool = False, current_only: bool = False
) -> StreamFit:
    """Fit one stream and judge it (regular or not; ACTIVE, LATE or ENDED). ``once``: the
    stream's one deposit is a monthly payer's (:func:`read_monthly_once` decides), scored against
    every monthly rule unless the payer publishes its schedules. ``current_only``: only the
    deposits that show the current schedule are fitted (:func:`_current_days`)."""
    days = _current_days(stream) if current_only else stream.days
    kind = payer_kind(stream)
    published = published_rules(kind) if len(days) == 1 and not _strict(stream) else ()
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
    posterior = [(log_likelihood(f, kind) + log_prior(f.schedule, kind), -n, f) for n, f in enumerate(fits)]
    ranked = sorted(posterior, key=lambda p: p[:2], reverse=True)
    ordered = tuple(f for _, _, f in ranked)
    # A reading of a schedule the payer publishes: the payer is never late, only the bank's early release.
    never_late = is_published(ordered[0].schedule, kind)
    regular, reason = _regular(stream, ordered[0], published=bool(published), never_late=never_late)
    return StreamFit(stream, ordered, tuple(p for p, _, _ in ranked), regular, _status(ordered[0]), reason)
