"""The schedules that could explain a candidate, and the judge that picks one on all the evidence:
each scheduled day paired with its nearest charge, within the jitter a bill may show."""

from __future__ import annotations

import itertools
import statistics
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import date, timedelta
from functools import lru_cache

from chalicelib.insight.calendar import add_business_days, is_business_day, next_business_day
from chalicelib.insight.recurring.acceptance import keeps_schedule
from chalicelib.insight.recurring.candidates import Candidate
from chalicelib.insight.recurring.clocks import charge_day
from chalicelib.insight.recurring.evidence import Evidence
from chalicelib.insight.recurring.kinds import is_bill_charge
from chalicelib.insight.recurring.rules import (
    ALWAYS_MONTHLY_SPAN_DAYS,
    CARD_STOP_EXTRA_DAYS,
    DIRECT_GAP_SHARE,
    EARLIEST_SCHEDULED_DAYS,
    EXACT_FIT_DAYS,
    FREQUENCIES,
    JITTER_CADENCES,
    LATE_DAYS,
    MATURE_CHARGES,
    MIN_PRECISION_WITH_EXTRAS,
    PERIOD_DAYS,
    POSTING_LAG_DAYS,
    RULES_SCORED,
    SCHEDULES_TRIED,
    STOP_AFTER_DAYS,
    TOLERANCE_DAYS,
)
from chalicelib.insight.schedule import Cadence, Fit, Roll, Schedule, fit, plausible_cadences
from chalicelib.insight.transactions import Txn


def schedules_for(txns: Sequence[Txn], *, card: bool, keep_weekends: bool = False) -> list[Schedule]:
    """The few schedules that best explain ``txns``' charge days.

    Chosen on the charges whose day is known (a card's authorization day, an ACH debit's
    settlement day) by exact hits, over the span the charges cover: a bill keeps its day, so
    the rule hitting most days exactly is the bill's rule, and one late ACH file does not
    shift it. Charges known only by their posting day are placed afterwards (``_match``).
    """
    charged = sorted({charge_day(t) for t in txns})
    cadences = plausible_cadences(charged) & set(FREQUENCIES)
    if (charged[-1] - charged[0]).days >= ALWAYS_MONTHLY_SPAN_DAYS:
        cadences.add(Cadence.MONTHLY)  # most bills are monthly: extras or a gap must not hide it
    if card:
        cadences.discard(Cadence.SEMI_MONTHLY)  # card merchants bill on one day, not two a month
    cadences = {c for c in cadences if _could_explain(c, charged)}
    if not cadences:
        return []
    posting_clock = not card or not any(t.authorized_day for t in txns)
    dated = charged if posting_clock else sorted({charge_day(t) for t in txns if t.authorized_day})
    days, tolerance = (dated, 0) if len(dated) >= EXACT_FIT_DAYS else (charged, TOLERANCE_DAYS)
    # Card charges keep their day; ACH debits roll to a business day (their days are all
    # business days, so keeping the day explains nothing a roll does not), unless the user's
    # bank posts debits on weekends (``keep_weekends``): then keeping the day comes first.
    rolls = (Roll.NONE,) if card else (Roll.NONE, Roll.NEXT, Roll.PREV) if keep_weekends else (Roll.NEXT, Roll.PREV)
    gap = statistics.median(b.toordinal() - a.toordinal() for a, b in itertools.pairwise(charged))
    direct = {c for c in cadences if abs(gap - PERIOD_DAYS[c]) <= DIRECT_GAP_SHARE * PERIOD_DAYS[c]}
    if Cadence.MONTHLY in direct and tolerance == 0 and len({d.day for d in days}) == 1 and days[0].day <= 28:
        # Every known day on one day of the month (the commonest bill): the fit's answer, without it.
        return [Schedule.monthly(days[0].day, roll=roll) for roll in rolls]

    def fitted(tried: set[Cadence]) -> list[Fit]:
        return fit(
            days,
            end=days[-1],
            cadences=tried,
            rolls=rolls,
            default_roll=rolls[0],
            tolerance=tolerance,
            keep=RULES_SCORED,
            limit=SCHEDULES_TRIED,
        )

    # The cadences the typical gap itself fits first: when one explains every day, the
    # cadences that fit only with every other charge missing need not be tried.
    fits = fitted(direct) if direct and direct != cadences else []
    if not fits or fits[0].f1 < 1.0:
        fits = fitted(cadences)
    # Two days share a weekday's rank in the month as often as not: a rule "the third Monday"
    # needs a third charge to tell it from the day of the month.
    schedules = [f.schedule for f in fits if f.schedule.nth is None or len(charged) >= MATURE_CHARGES]
    if schedules and all(s.nth is not None for s in schedules):
        # Only nth weekdays hit every day exactly (a loan due on the 25th, debited a day late
        # once, is three last Tuesdays): the judge weighs the day of the month most charges
        # fell on too, and prefers it when it explains as many (``_rank_to_pick``).
        counts = Counter(d.day for d in days)
        day = min(counts, key=lambda n: (-counts[n], n))
        if day <= 28:
            schedules += [Schedule.monthly(day, roll=roll) for roll in rolls]
    return schedules


def judge_candidate(candidate: Candidate, schedules: Iterable[Schedule], as_of: date, *, card: bool) -> Evidence | None:
    """The schedule the evidence supports best, with its evidence."""
    identical = _identical_amounts(candidate)
    judged = [_match(candidate, schedule, as_of, card=card, identical=identical) for schedule in schedules]
    if not judged:
        return None
    # The pick's tie-breaks (an nth weekday, charges ahead of their day) apply only between
    # readings that the schedule's own evidence accepts alike: they must not cost a stream the
    # reading that kept it.
    kept = keeps_schedule(min(judged, key=_rank))
    return min((e for e in judged if keeps_schedule(e) == kept), key=_rank_to_pick)


def _could_explain(cadence: Cadence, days: Sequence[date]) -> bool:
    """Whether a schedule of ``cadence`` has room for enough of ``days``: coffee bought most
    mornings cannot be a weekly bill whatever its weekday, so it is not fitted at all."""
    room = (days[-1] - days[0]).days / PERIOD_DAYS[cadence] + 1.5
    return len(days) * MIN_PRECISION_WITH_EXTRAS <= room


def _rank(e: Evidence) -> tuple[int, int, int, int, float]:
    """Most charges explained, fewest scheduled charges missing between them (those missing
    since the last one say whether the stream stopped, not which schedule it kept: the weekend
    roll that puts a missed charge a day later must not win by it), most on the day, fewest
    early (a debit runs late, not early: "the 8th, one late" beats "the 9th or the business day
    before, one early"), closest."""
    return (-len(e.matched), e.due - e.trailing - len(e.matched), -e.exact, e.early, e.residual)


def _rank_to_pick(e: Evidence) -> tuple[int, int, bool, int, int, int, float]:
    """How the judge picks between readings that the evidence accepts alike: :func:`_rank`, with
    a day of the month before an nth weekday that explains as many charges, even with fewer of
    them on the day (a bill charges on a day of the month: three charges on the 22nd, the last
    posted a card's lag later, fall on three fourth Mondays as often as not; rent due on the
    1st and paid two days late once falls on three first Mondays), and fewest charges ahead of
    their day even within the jitter before the closest (rent due on the 1st and paid a day
    late now and then is not due on the 2nd, twice a day early; a plan billed on the 1st and
    retried on the 3rd once is not billed on the 3rd)."""
    nth = e.schedule.nth is not None
    return (-len(e.matched), e.due - e.trailing - len(e.matched), nth, -e.exact, e.early, e.ahead, e.residual)


def _match(
    candidate: Candidate, schedule: Schedule, as_of: date, *, card: bool, identical: Mapping[str, bool]
) -> Evidence:
    """Pair scheduled days with charges, oldest first, each with its nearest free charge:
    one on its day, up to ``TOLERANCE_DAYS`` early or ``LATE_DAYS`` (a business day) late;
    a charge known only by its posting day, up to ``POSTING_LAG_DAYS`` after its day.
    Scheduled days before the first match do not count (the stream had not started)."""
    stop_after = STOP_AFTER_DAYS[schedule.cadence] + (CARD_STOP_EXTRA_DAYS if card else 0)
    first = min(charge_day(t) for t in candidate.txns) - timedelta(days=EARLIEST_SCHEDULED_DAYS)
    free = [(charge_day(t).toordinal(), t) for t in candidate.txns]
    # A card charge known only by its posting day is placed within its posting lag; when the
    # bank reports no authorization day for any of them, the posting days are the clock.
    posting_clock = not card or not any(t.authorized_day for t in candidate.txns)
    jitters = schedule.cadence in JITTER_CADENCES
    matched: list[Txn] = []
    exact, jittered, distance, due, dated, early, trailing, ahead = 0, 0, 0, 0, 0, 0, 0, 0
    recent = 0  # scheduled charges missing since the last match, not yet overdue
    overdue: date | None = None
    waiting: date | None = None
    for day in schedule.dates(first, as_of):
        index = _nearest(free, day.toordinal(), *_window(day))
        if index >= 0:
            charged, best = free.pop(index)
            matched.append(best)
            if best.authorized_day or posting_clock:
                dated += 1
                offset = charged - day.toordinal()
                ahead += offset < 0
                # On schedule a day or two off: the authorization of a plan's very price, or a
                # bill (a phone bill's taxes move its cents; a utility paid by bill pay wanders).
                steady = identical.get(best.txn_id) or is_bill_charge(best)
                if offset and abs(offset) <= TOLERANCE_DAYS and jitters and steady:
                    jittered += 1
                else:
                    exact += offset == 0
                    early += offset < 0
                    distance += abs(offset)
            due += 1 + recent  # (a charge missing before a later one was missed, overdue or not)
            overdue, trailing, recent, waiting = None, 0, 0, None
        elif matched and (as_of - day).days > stop_after:
            due += 1
            overdue, trailing = overdue or day, trailing + 1
        elif matched:
            recent += 1
            waiting = day if not card and _still_on_time(day, as_of) else None
    return Evidence(
        candidate=candidate,
        schedule=schedule,
        matched=tuple(matched),
        due=due,
        exact=exact,
        jittered=jittered,
        dated=dated,
        early=early,
        ahead=ahead,
        residual=distance / (dated - jittered) if dated > jittered else 0.0,
        overdue=overdue,
        trailing=trailing,
        waiting=waiting,
    )


def _identical_amounts(candidate: Candidate) -> dict[str, bool]:
    """Per charge, whether it is at its price level's most common amount to the cent (a plan's
    price: strong evidence that a charge a day or two off its day is still the bill's)."""
    out: dict[str, bool] = {}
    for segment in candidate.segments:
        common = Counter(t.amount for t in segment).most_common(1)[0][0]
        out.update((t.txn_id, t.amount == common) for t in segment)
    return out


@lru_cache(maxsize=4096)
def _window(day: date) -> tuple[int, int]:
    """Days after ``day`` a charge may come late, and a card charge may post."""
    late = max(LATE_DAYS, (add_business_days(day, 1) - day).days)
    posted_by = (next_business_day(day + timedelta(days=POSTING_LAG_DAYS)) - day).days
    return late, posted_by


def _still_on_time(day: date, as_of: date) -> bool:
    """Whether a bill due on ``day``, not seen by ``as_of``, may still come on time: ``as_of`` is
    within its late window, and ``day`` is past or a day the bank is closed (a charge due today,
    a business day, may still post today)."""
    return (as_of - day).days < _window(day)[0] and (day < as_of or not is_business_day(day))


def _nearest(free: Sequence[tuple[int, Txn]], day: int, late: int, posted_by: int) -> int:
    """The index in ``free`` (charges with their charge days' ordinals) of the charge nearest
    the scheduled ordinal ``day`` within its window (see :func:`_match`); -1 when none is."""
    best, best_distance = -1, 99
    for index, (charged, txn) in enumerate(free):
        offset = charged - day
        on_time = -TOLERANCE_DAYS <= offset <= late
        if not on_time and (txn.authorized_day or not 0 <= offset <= posted_by):
            continue
        if abs(offset) < best_distance:
            best, best_distance = index, abs(offset)
    return best
