"""Recurring expenses from a user's own transactions: subscriptions, bills, loans, insurance.

The detector the expenses endpoint falls back on when Pave has nothing (a new user, Pave
down). :func:`detect` is pure: transactions in, streams out.

How it works:

1. Outflows only, after the shared input rules (:func:`transactions.visible`: dated on or
   before ``as_of``, not pending, each id once). Money that only moves between the user's own
   accounts is not an expense (:mod:`insight.payees`): a transfer whose counterpart inflow
   shows in another of the user's accounts, transfers to savings and investment accounts,
   cash withdrawals and credit-card payments, recognised by pairing, category or line.
2. Charges are grouped by payee across the user's accounts (:func:`payees.payee_groups`),
   and each group yields candidate streams: each amount level (charges within 2 % of each
   other), two levels one after the other (a price change: a plan repriced or downgraded, a
   promotion ending, a level seen once at the new price), and the whole group (a bill whose
   amount varies, such as a utility).
3. The candidate's schedule is fitted (:mod:`insight.schedule`) on its charge days (a card's
   authorization day when the bank reports it, an ACH debit's settlement day): weekly, every
   other week, twice a month (not for card merchants), monthly (a day, the last day),
   quarterly, annually, each with the payer's roll when the day is not a Federal Reserve
   business day (ACH bills usually settle the next business day; card charges keep the day).
   The fit chooses by exact hits over the span the charges cover, so one late debit does not
   shift a bill's day; the best few schedules are then judged on all the evidence up to
   ``as_of`` (a charge up to two days early or a business day late, a card charge known only
   by its posting day up to a few days after its day).
4. A candidate is a recurring expense when its schedule explains it: at least three charges
   (two for quarterly and annual bills), at most a fifth of them off schedule and a quarter of
   the scheduled ones missing, nearly all on their day. A varying amount passes only for a
   monthly, twice-monthly or quarterly bill (utility, insurance, loan categories). Where a
   chance alignment is likely, more is asked: at a payee that also charges other amounts (a
   shop, an app store) or in everyday-spending categories (groceries, coffee, fuel, transit,
   ride shares, lunch), four charges, hardly any missing, and at a busy everyday merchant no
   weekly rhythm at all. A bill seen only twice must be the payee's only charges. Everyday
   spending is frequent and near-regular but does not keep to a calendar and its amount
   varies; habits at a fixed price drift off any calendar (a car wash every two weeks or so).
5. A stream whose scheduled charge is overdue (a few days; ten for weekly ones, which may skip
   a week) has stopped: cancelled, paid off, moved. It is not reported.

The amount reported is the mean of the charges at the current price (after a price change,
the new one), or of all charges when the amount varies; ``next_date`` is the schedule's next
charge day strictly after ``as_of``.
"""

from __future__ import annotations

import itertools
import statistics
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import date, timedelta
from functools import lru_cache
from typing import Any

from chalicelib.insight.calendar import add_business_days, is_business_day, next_business_day
from chalicelib.insight.payees import is_own_transfer, paired_transfers, payee_groups, readable_name
from chalicelib.insight.schedule import Cadence, Roll, Schedule, fit, plausible_cadences
from chalicelib.insight.transactions import Txn, visible

#: The frequencies a stream is reported with.
FREQUENCIES = (
    Cadence.WEEKLY,
    Cadence.BIWEEKLY,
    Cadence.SEMI_MONTHLY,
    Cadence.MONTHLY,
    Cadence.QUARTERLY,
    Cadence.ANNUALLY,
)
PERIOD_DAYS = {
    Cadence.WEEKLY: 7.0,
    Cadence.BIWEEKLY: 14.0,
    Cadence.SEMI_MONTHLY: 365.25 / 24,
    Cadence.MONTHLY: 365.25 / 12,
    Cadence.QUARTERLY: 365.25 / 4,
    Cadence.ANNUALLY: 365.25,
}

# --- amounts
#: Charges within this share (or these cents) of each other are one amount level.
LEVEL_TOLERANCE = 0.02
LEVEL_TOLERANCE_CENTS = 5
#: A price change keeps the new level within this factor of the old one.
PRICE_CHANGE = (0.4, 1.75)
#: How far the amounts of a varying bill may spread (largest / smallest), and of one seen twice.
VARIABLE_SPREAD = 3.0
TWICE_SEEN_SPREAD = 2.0

# --- the schedule and the evidence
#: The best few schedules of the fit are judged on all the evidence; the best judged wins.
SCHEDULES_TRIED = 4
#: Charges spread over this many days are always tried as a monthly bill.
ALWAYS_MONTHLY_SPAN_DAYS = 50
#: A charge may come this many days early, or late by ``LATE_DAYS`` or a business day (a card
#: charge retried after a decline, an ACH file a day late: a Friday debit on Monday).
TOLERANCE_DAYS = 2
LATE_DAYS = 3
#: A card charge known only by its posting day posted up to this many days after the charge
#: (then the next business day).
POSTING_LAG_DAYS = 3
#: How far before the first charge its scheduled day can be (posting lag over a long weekend).
EARLIEST_SCHEDULED_DAYS = 7

# --- acceptance
#: Matched charges a stream needs before it is reported.
MIN_CHARGES = {Cadence.QUARTERLY: 2, Cadence.ANNUALLY: 2}
DEFAULT_MIN_CHARGES = 3
#: Shares of the candidate's charges on schedule and of scheduled charges present, and the mean
#: distance (days) of a dated charge from its scheduled day.
MIN_PRECISION = 0.8
MIN_PRECISION_WITH_EXTRAS = 0.6
VARYING_MIN_PRECISION = 0.9
MIN_RECALL = 0.75
MAX_RESIDUAL = 1.5
#: Charges off their scheduled day allowed: a quarter of them, or one. Bills keep their day; a
#: habit's timing wanders around any schedule laid over it.
MAX_OFF_DAY_SHARE = 0.25
#: Charges exactly on their scheduled day a stream needs.
MIN_EXACT_CHARGES = 1
#: More evidence where chance alignments are likely (see ``_chance_ruled_out``).
BUSY_MIN_CHARGES = 4
BUSY_MIN_EXACT = 0.75
#: Everyday-category streams (a weekly meal kit) may skip this share of their charges.
EVERYDAY_MAX_MISSED = 0.15
#: Days past a missing charge's scheduled day before the stream counts as stopped (an ACH file
#: can run a business day late); card charges post a few days after the charge and get more.
STOP_AFTER_DAYS = {
    Cadence.WEEKLY: 10,  # a week skipped (meal kits let you skip) is not a cancellation
    Cadence.BIWEEKLY: 4,
    Cadence.SEMI_MONTHLY: 4,
    Cadence.MONTHLY: 5,
    Cadence.QUARTERLY: 10,
    Cadence.ANNUALLY: 20,
}
CARD_STOP_EXTRA_DAYS = 2

#: Everyday spending: frequent, near-regular, never a bill by itself.
_EVERYDAY_PFC_PREFIXES = (
    "FOOD_AND_DRINK_",
    "TRANSPORTATION_GAS",
    "TRANSPORTATION_PUBLIC_TRANSIT",
    "TRANSPORTATION_TAXIS_AND_RIDE_SHARES",
    "GENERAL_MERCHANDISE_SUPERSTORES",
    "PERSONAL_CARE_HAIR_AND_BEAUTY",
)
#: Categories of bills whose amount varies from one charge to the next.
_BILL_PFC_PREFIXES = ("RENT_AND_UTILITIES_", "GENERAL_SERVICES_INSURANCE", "LOAN_PAYMENTS_")


@dataclass(frozen=True, slots=True)
class RecurringExpense:
    """One active recurring outflow stream."""

    merchant: str  # a readable name: Plaid's merchant name, else the statement line's payee
    frequency: str  # WEEKLY, BIWEEKLY, SEMI_MONTHLY, MONTHLY, QUARTERLY or ANNUALLY
    average_amount: int  # cents, positive: the current price's mean, or all charges' if it varies
    next_date: date  # the next charge day strictly after as_of
    transaction_ids: tuple[str, ...]  # the charges on schedule, oldest first
    account_id: str  # the account of the latest charge
    last_date: date
    last_amount: int
    fixed_amount: bool
    schedule: str  # the schedule in words ("the 1st, or the business day after")

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["next_date"] = self.next_date.isoformat()
        out["last_date"] = self.last_date.isoformat()
        out["transaction_ids"] = list(self.transaction_ids)
        return out


def detect(transactions: Iterable[Mapping[str, Any]], as_of: date) -> list[RecurringExpense]:
    """The user's active recurring expenses at ``as_of``, largest monthly cost first.

    ``transactions``: API-shaped transaction dicts, any order (see ``insight.transactions``);
    only those dated on or before ``as_of`` are read.
    """
    txns = visible(transactions, as_of)
    paired = paired_transfers(txns)
    outflows = [t for t in txns if t.amount > 0 and not is_own_transfer(t, paired)]
    found: list[RecurringExpense] = []
    for group in payee_groups(outflows):
        found.extend(_streams(sorted(group, key=_charge_order), as_of))
    return sorted(found, key=lambda s: (-_monthly_cost(s), s.merchant, s.next_date))


def charge_day(txn: Txn) -> date:
    """When the payee charged: the card authorization day when reported, else the posting day."""
    return txn.authorized_day or txn.day


def _charge_order(txn: Txn) -> tuple[date, str]:
    return charge_day(txn), txn.txn_id


def _same_level(a: int, b: int) -> bool:
    return abs(a - b) <= max(LEVEL_TOLERANCE * max(a, b), LEVEL_TOLERANCE_CENTS)


def _levels(group: Sequence[Txn]) -> list[list[Txn]]:
    """Charges grouped by amount level (each within tolerance of the level's median)."""
    levels: list[list[Txn]] = []
    for txn in sorted(group, key=lambda t: t.amount):
        if levels and _same_level(txn.amount, statistics.median_low(t.amount for t in levels[-1])):
            levels[-1].append(txn)
        else:
            levels.append([txn])
    return [sorted(level, key=_charge_order) for level in levels]


@dataclass(frozen=True, slots=True)
class _Candidate:
    txns: tuple[Txn, ...]  # by charge day
    segments: tuple[tuple[Txn, ...], ...]  # amount levels in time order; () = the amount varies


def _candidates(group: Sequence[Txn]) -> list[_Candidate]:
    """Amount levels, pairs of levels one after the other (price changes), the whole group."""
    all_levels = [tuple(level) for level in _levels(group)]
    levels = [level for level in all_levels if len({charge_day(t) for t in level}) >= 2]
    singles = [level[0] for level in all_levels if len(level) == 1]
    out = [_Candidate(level, (level,)) for level in levels]
    by_start = sorted(levels, key=lambda lv: charge_day(lv[0]))
    for i, old in enumerate(by_start):
        for new in by_start[i + 1 :]:
            if charge_day(old[-1]) < charge_day(new[0]) and _price_change(old[0], new[0]):
                out.append(_Candidate(tuple(sorted(old + new, key=_charge_order)), (old, new)))
    if len(levels) == 1 and len(levels[0]) + 1 == len(group):
        # A price change seen once so far; in a busier group a one-off at the right time would
        # pass for one, so there it waits for a second charge at the new price.
        out.extend(_with_single_price(levels[0], singles))
    if len(levels) != 1 or len(levels[0]) != len(group):
        out.append(_Candidate(tuple(group), ()))
    return out


def _price_change(old: Txn, new: Txn) -> bool:
    return PRICE_CHANGE[0] <= new.amount / old.amount <= PRICE_CHANGE[1]


def _with_single_price(level: tuple[Txn, ...], singles: Sequence[Txn]) -> list[_Candidate]:
    """A level and the one charge at another price about a period before or after it: a price
    change seen once so far (or an old price seen once before the window's start)."""
    days = sorted({charge_day(t) for t in level})
    gap = statistics.median((b - a).days for a, b in itertools.pairwise(days))
    out: list[_Candidate] = []
    for side, edge in ((1, days[-1]), (-1, days[0])):

        def distance(txn: Txn, edge: date = edge, side: int = side) -> float:
            return abs(side * (charge_day(txn) - edge).days - gap)

        near = [t for t in singles if distance(t) <= gap / 2 and _price_change(level[0], t)]
        if near:
            single = (min(near, key=distance),)
            segments = (level, single) if side == 1 else (single, level)
            out.append(_Candidate(tuple(sorted(level + single, key=_charge_order)), segments))
    return out


def _everyday(txns: Sequence[Txn]) -> bool:
    categories = Counter(t.pfc_detailed for t in txns if t.pfc_detailed)
    if not categories:
        return False
    return categories.most_common(1)[0][0].startswith(_EVERYDAY_PFC_PREFIXES)


def _card_like(txns: Sequence[Txn]) -> bool:
    """Card charges keep their day (weekends included) and post a few days later; ACH debits
    settle on business days and post the same day."""
    return any(t.authorized_day and t.authorized_day != t.day for t in txns) or any(
        not is_business_day(charge_day(t)) for t in txns
    )


@dataclass(frozen=True, slots=True)
class _Evidence:
    """How well a schedule explains a candidate's charges."""

    candidate: _Candidate
    schedule: Schedule
    matched: tuple[Txn, ...]  # one charge per scheduled day it was matched to, oldest first
    due: int  # scheduled charges that should have shown by now
    exact: int  # matched on the scheduled day itself
    dated: int  # matched charges whose charge day is known (not only a card's posting day)
    early: int  # dated charges before their scheduled day
    residual: float  # mean days between a dated charge and its scheduled day
    overdue: date | None  # the first scheduled charge missing since the last one, overdue

    @property
    def precision(self) -> float:
        return len(self.matched) / len(self.candidate.txns)

    @property
    def recall(self) -> float:
        return len(self.matched) / max(1, self.due)

    @property
    def cadence(self) -> Cadence:
        return self.schedule.cadence

    def next_date(self, as_of: date) -> date:
        return self.schedule.next_dates(as_of, 1)[0]


def _schedules(txns: Sequence[Txn]) -> list[Schedule]:
    """The few schedules that best explain ``txns``' charge days.

    Chosen on the charges whose day is known (a card's authorization day, an ACH debit's
    settlement day) by exact hits, over the span the charges cover: a bill keeps its day, so
    the rule hitting most days exactly is the bill's rule, and one late ACH file does not
    shift it. Charges known only by their posting day are placed afterwards (``_match``).
    """
    card = _card_like(txns)
    charged = sorted({charge_day(t) for t in txns})
    cadences = plausible_cadences(charged) & set(FREQUENCIES)
    if (charged[-1] - charged[0]).days >= ALWAYS_MONTHLY_SPAN_DAYS:
        cadences.add(Cadence.MONTHLY)  # most bills are monthly: extras or a gap must not hide it
    if card:
        cadences.discard(Cadence.SEMI_MONTHLY)  # card merchants bill on one day, not two a month
    cadences = {c for c in cadences if _could_explain(c, charged)}
    if not cadences:
        return []
    dated = sorted({charge_day(t) for t in txns if t.authorized_day or not card})
    days, tolerance = (dated, 0) if len(dated) >= 2 else (charged, TOLERANCE_DAYS)
    default = Roll.NONE if card else Roll.NEXT
    fits = fit(days, end=days[-1], cadences=cadences, default_roll=default, tolerance=tolerance, limit=SCHEDULES_TRIED)
    return [f.schedule for f in fits]


def _judge(candidate: _Candidate, schedules: Iterable[Schedule], as_of: date) -> _Evidence | None:
    """The schedule the evidence supports best, with its evidence."""
    card = _card_like(candidate.txns)
    judged = [_match(candidate, schedule, as_of, card=card) for schedule in schedules]
    return min(judged, key=_rank, default=None)


def _worth_fitting(candidate: _Candidate, group: Sequence[Txn]) -> bool:
    """Whether the candidate could pass at all (the fit is the costly part): three charge days,
    or two when they are all the payee charged (a quarterly or annual bill); a varying amount
    only as a bill."""
    days = len({charge_day(t) for t in candidate.txns})
    if days < DEFAULT_MIN_CHARGES and (days < 2 or len(candidate.txns) != len(group)):
        return False
    if candidate.segments:
        return True
    amounts = [t.amount for t in candidate.txns]
    return _mostly_bills(candidate.txns) and max(amounts) <= VARIABLE_SPREAD * min(amounts)


def _could_explain(cadence: Cadence, days: Sequence[date]) -> bool:
    """Whether a schedule of ``cadence`` has room for enough of ``days``: coffee bought most
    mornings cannot be a weekly bill whatever its weekday, so it is not fitted at all."""
    room = (days[-1] - days[0]).days / PERIOD_DAYS[cadence] + 1.5
    return len(days) * MIN_PRECISION_WITH_EXTRAS <= room


def _rank(e: _Evidence) -> tuple[int, int, int, int, float]:
    """Most charges explained, fewest scheduled charges missing, most on the day, fewest early
    (a debit runs late, not early: "the 8th, one late" beats "the 9th or the business day
    before, one early"), closest."""
    return (-len(e.matched), e.due - len(e.matched), -e.exact, e.early, e.residual)


def _match(candidate: _Candidate, schedule: Schedule, as_of: date, *, card: bool) -> _Evidence:
    """Pair scheduled days with charges, oldest first, each with its nearest free charge:
    one on its day, up to ``TOLERANCE_DAYS`` early or ``LATE_DAYS`` (a business day) late;
    a charge known only by its posting day, up to ``POSTING_LAG_DAYS`` after its day.
    Scheduled days before the first match do not count (the stream had not started)."""
    stop_after = STOP_AFTER_DAYS[schedule.cadence] + (CARD_STOP_EXTRA_DAYS if card else 0)
    first = min(charge_day(t) for t in candidate.txns) - timedelta(days=EARLIEST_SCHEDULED_DAYS)
    free = list(candidate.txns)
    matched: list[Txn] = []
    exact, distance, due, dated, early = 0, 0, 0, 0, 0
    overdue: date | None = None
    for day in schedule.dates(first, as_of):
        best = _nearest(free, day, *_window(day))
        if best is not None:
            free.remove(best)
            matched.append(best)
            if best.authorized_day or not card:
                dated += 1
                exact += charge_day(best) == day
                early += charge_day(best) < day
                distance += abs((charge_day(best) - day).days)
            due += 1
            overdue = None
        elif matched and (as_of - day).days > stop_after:
            due += 1
            overdue = overdue or day
    return _Evidence(
        candidate=candidate,
        schedule=schedule,
        matched=tuple(matched),
        due=due,
        exact=exact,
        dated=dated,
        early=early,
        residual=distance / dated if dated else 0.0,
        overdue=overdue,
    )


@lru_cache(maxsize=4096)
def _window(day: date) -> tuple[int, int]:
    """Days after ``day`` a charge may come late, and a card charge may post."""
    late = max(LATE_DAYS, (add_business_days(day, 1) - day).days)
    posted_by = (next_business_day(day + timedelta(days=POSTING_LAG_DAYS)) - day).days
    return late, posted_by


def _nearest(free: Sequence[Txn], day: date, late: int, posted_by: int) -> Txn | None:
    best: Txn | None = None
    best_distance = 99
    for txn in free:
        offset = (charge_day(txn) - day).days
        on_time = -TOLERANCE_DAYS <= offset <= late
        if not on_time and (txn.authorized_day or not 0 <= offset <= posted_by):
            continue
        if abs(offset) < best_distance:
            best, best_distance = txn, abs(offset)
    return best


def _accepted(e: _Evidence, group: Sequence[Txn]) -> bool:
    """Whether the evidence makes ``e`` a recurring expense (see the module docstring)."""
    matched = len(e.matched)
    if e.overdue is not None:
        return False  # stopped: cancelled, paid off, moved
    if matched < MIN_CHARGES.get(e.cadence, DEFAULT_MIN_CHARGES) or e.recall < MIN_RECALL:
        return False
    if e.precision < MIN_PRECISION and not _exact_despite_extras(e):
        return False
    if e.residual > MAX_RESIDUAL or e.dated - e.exact > max(1, int(MAX_OFF_DAY_SHARE * e.dated)):
        return False
    if e.exact < MIN_EXACT_CHARGES:
        return False  # known only by posting days (a card's lag): too loose to tell a habit
    return _chance_ruled_out(e, group) and _amounts_fit(e, group)


def _chance_ruled_out(e: _Evidence, group: Sequence[Txn]) -> bool:
    """A shop the user visits anyway, or everyday spending: a few visits can line up with some
    schedule by chance, so ask for more charges, mostly on the day, and (at a busy payee) none
    missing and not a weekly rhythm an everyday shop falls into."""
    busy, everyday = _busy(e.candidate, group), _everyday(e.matched)
    if not (busy or everyday):
        return True
    matched = len(e.matched)
    missing_allowed = 0 if busy else max(1, int(EVERYDAY_MAX_MISSED * e.due))
    if matched < BUSY_MIN_CHARGES or e.due - matched > missing_allowed or e.exact < BUSY_MIN_EXACT * e.dated:
        return False
    if busy and everyday and e.cadence in {Cadence.WEEKLY, Cadence.BIWEEKLY}:
        return False
    return not (busy and e.candidate.segments and not _identical(e.candidate, e.matched))


def _amounts_fit(e: _Evidence, group: Sequence[Txn]) -> bool:
    """A fixed price per level; a varying amount only for a bill; twice seen, nothing else."""
    amounts = [t.amount for t in e.matched]
    if not e.candidate.segments:
        varying_ok = e.cadence in {Cadence.MONTHLY, Cadence.SEMI_MONTHLY, Cadence.QUARTERLY}
        if not varying_ok or not _mostly_bills(e.matched) or e.precision < VARYING_MIN_PRECISION:
            return False
        if max(amounts) > VARIABLE_SPREAD * min(amounts):
            return False
    if len(amounts) == 2:
        # Seen twice (a quarterly or annual bill): nothing else from the payee, on the day (or
        # one late debit), and the same amount unless it is a utility or insurance bill.
        same = _same_level(amounts[0], amounts[1])
        bill = any(_bill(t) for t in e.matched)
        on_day = e.early == 0 and e.exact >= max(1, e.dated - 1)
        if len(group) != len(e.candidate.txns) or not on_day or not (same or bill):
            return False
        if max(amounts) > TWICE_SEEN_SPREAD * min(amounts):
            return False
    return True


def _mostly_bills(txns: Sequence[Txn]) -> bool:
    """Most charges that carry a category carry a bill's (some carry none)."""
    bills = sum(_bill(t) for t in txns)
    return bills > 0 and 2 * bills >= sum(1 for t in txns if t.pfc_detailed)


def _bill(txn: Txn) -> bool:
    return bool(txn.pfc_detailed and txn.pfc_detailed.startswith(_BILL_PFC_PREFIXES))


def _exact_despite_extras(e: _Evidence) -> bool:
    """A subscription billed under the same line as occasional purchases at its price (an
    app bought for 0.99 next to a 0.99 storage plan): every scheduled charge present, on its
    day, and the extras a minority."""
    return (
        e.recall == 1.0
        and e.residual == 0.0
        and len(e.matched) >= 4
        and e.precision >= MIN_PRECISION_WITH_EXTRAS
        and e.candidate.segments != ()
    )


def _busy(candidate: _Candidate, group: Sequence[Txn]) -> bool:
    """The payee charged other amounts while the candidate ran (a shop, not only a bill).
    Charges Plaid names another merchant do not count: "Amazon Prime" among "Amazon" orders."""
    first, last = charge_day(candidate.txns[0]), charge_day(candidate.txns[-1])
    names = {t.merchant_name for t in candidate.txns if t.merchant_name}
    ids = {t.txn_id for t in candidate.txns}
    return any(
        first <= charge_day(t) <= last and (not names or t.merchant_name in names or not t.merchant_name)
        for t in group
        if t.txn_id not in ids
    )


def _identical(candidate: _Candidate, matched: Sequence[Txn]) -> bool:
    """Every price level charged the very same amount each time (a plan price, not a basket)."""
    on = {t.txn_id for t in matched}
    return all(len({t.amount for t in segment if t.txn_id in on}) <= 1 for segment in candidate.segments)


def _streams(group: Sequence[Txn], as_of: date) -> list[RecurringExpense]:
    if len({charge_day(t) for t in group}) < 2:
        return []
    accepted = []
    fitted: dict[tuple[Txn, ...], list[Schedule]] = {}
    for candidate in _candidates(group):
        if not _worth_fitting(candidate, group):
            continue
        if len(candidate.segments) == 2 and any(seg in fitted for seg in candidate.segments):
            # A price change keeps the schedule: reuse what its levels were fitted to.
            schedules = [s for seg in candidate.segments for s in fitted.get(seg, ())]
        else:
            schedules = _schedules(candidate.txns)
            if len(candidate.segments) == 1:
                fitted[candidate.segments[0]] = schedules
        evidence = _judge(candidate, schedules, as_of)
        if evidence is not None and _accepted(evidence, group):
            accepted.append(evidence)
    # Overlapping candidates (a level and the price change containing it): the one that
    # explains most charges, then the one with fewer charges off schedule.
    accepted.sort(key=lambda e: (-len(e.matched), -e.precision, e.residual, len(e.candidate.segments) or 9))
    taken: set[str] = set()
    out: list[RecurringExpense] = []
    for evidence in accepted:
        ids = {t.txn_id for t in evidence.matched}
        if ids & taken:
            continue
        taken |= ids
        out.append(_expense(evidence, as_of))
    return out


def _expense(e: _Evidence, as_of: date) -> RecurringExpense:
    matched, segments = e.matched, e.candidate.segments
    current = [t for t in matched if t in segments[-1]] if segments else list(matched)
    last = matched[-1]
    return RecurringExpense(
        merchant=readable_name(matched),
        frequency=e.cadence.value,
        average_amount=round(statistics.fmean(t.amount for t in current or matched)),
        next_date=e.next_date(as_of),
        transaction_ids=tuple(t.txn_id for t in matched),
        account_id=last.account_id,
        last_date=charge_day(last),
        last_amount=last.amount,
        fixed_amount=bool(segments),
        schedule=e.schedule.describe(),
    )


_PER_MONTH = {
    Cadence.WEEKLY.value: 52 / 12,
    Cadence.BIWEEKLY.value: 26 / 12,
    Cadence.SEMI_MONTHLY.value: 2,
    Cadence.MONTHLY.value: 1,
    Cadence.QUARTERLY.value: 1 / 3,
    Cadence.ANNUALLY.value: 1 / 12,
}


def _monthly_cost(stream: RecurringExpense) -> float:
    return stream.average_amount * _PER_MONTH[stream.frequency]
