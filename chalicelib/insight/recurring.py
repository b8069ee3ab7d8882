"""Recurring expenses from a user's own transactions: subscriptions, bills, loans, insurance,
and the credit card's autopay.

The detector the expenses endpoint falls back on when Pave has nothing (a new user, Pave
down). :func:`detect` is pure: transactions in, streams out.

How it works:

1. Outflows only, after the shared input rules (:func:`transactions.visible`: dated on or
   before ``as_of``, not pending, each id once). Money that only moves between the user's own
   accounts is not an expense (:mod:`insight.payees`): a transfer whose counterpart inflow
   shows in another of the user's accounts, transfers to savings and investment accounts,
   cash withdrawals, recognised by pairing, category or line. A credit-card payment from
   checking stays (category or line; and any payment to the same payee): for the user's cash
   flow it is a bill, reported with ``kind`` ``card_payment`` so that a view can hide it.
2. Charges are grouped by payee across the user's accounts (:func:`payees.payee_groups`) and
   read on the clock that keeps the calendar: card charges by their authorization day, or by
   their posting day where that repeats more exactly (a merchant billing on the 23rd whose
   authorizations wander a day or two before it); when a payee's charges cannot tell, by the
   clock that keeps the user's other payees' calendars. Each group yields candidate streams:
   each amount level (charges within 2 % of each other), two levels one after the other (a
   price change: a plan repriced or downgraded, a promotion ending, a level seen once at the
   new price), and the whole group (a bill whose amount varies: a utility, a card's autopay).
3. The candidate's schedule is fitted (:mod:`insight.schedule`) on its charge days: weekly,
   every other week, twice a month (not for card merchants), monthly (a day, the last day;
   the n-th weekday only from three charges), quarterly, annually, each with the payer's roll
   when the day is not a Federal Reserve business day (ACH bills usually settle the next
   business day, unless the user's bank posts bills by debit on weekends; card charges keep
   the day). From three known days the fit chooses by exact
   hits, so one late debit does not shift a bill's day; with fewer, within two days. The best
   few schedules are then judged on all the evidence up to ``as_of`` (a charge up to two days
   early or a business day late, a card charge known only by its posting day up to a few days
   after its day).
4. A candidate is a recurring expense when its schedule explains it: at least three charges
   (two for monthly, quarterly and annual bills), at most a fifth of them off schedule and a
   quarter of the scheduled ones missing, nearly all on their day. A monthly or quarterly
   charge at its price level's very amount up to two days off its day is on schedule
   (authorization jitter, a debit a day or two late). A varying amount passes only for a
   monthly, twice-monthly or quarterly bill (utility, insurance, loan categories) and a
   monthly card autopay. Where a chance alignment is likely, more is asked: at a payee that
   also charges other amounts (a shop, an app store; another bill there does not count) or in
   everyday-spending categories (groceries, coffee, fuel, transit, ride shares, lunch), four
   charges, hardly any missing, and at a busy everyday merchant no weekly rhythm at all; a
   monthly or quarterly plan there (one fixed price and nothing else charged at the payee since
   its first charge: a ride-share or delivery membership, a transit pass) is read as a bill, but
   never a haircut's price, which is paid per visit. A bill
   seen only twice (``EARLY_DETECTION``) must be all the payee charged since its first
   charge, none early and the other at most a business day late or a day or two off at the
   same amount. Everyday spending is frequent and near-regular but does not keep to a
   calendar and its amount varies; habits at a fixed price drift off any calendar.
5. A stream whose scheduled charge is overdue (a few days; ten for weekly ones, which may skip
   a week) has stopped: cancelled, paid off, moved. It is not reported.

The amount reported is the mean of the charges at the current price (after a price change,
the new one), or of all charges when the amount varies; ``next_date`` is the schedule's next
charge day strictly after ``as_of`` (on the stream's clock), except for a bill's charge that was
due and has not shown but may still come on time (due on a weekend or holiday, or a debit a day
or two late): that one is next, on the next business day; ``status`` is ``EARLY_DETECTION``
for a stream seen twice and ``MATURE`` from three charges.
"""

from __future__ import annotations

import itertools
import statistics
from collections import Counter, defaultdict
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import date, timedelta
from enum import StrEnum
from functools import lru_cache
from typing import Any

from chalicelib.insight.calendar import add_business_days, is_business_day, next_business_day
from chalicelib.insight.payees import (
    P2P_SERVICES,
    bank_prefixes,
    is_ach_debit_line,
    is_card_payment,
    is_own_transfer,
    line_authorization_day,
    merchant_key,
    paired_transfers,
    payee_groups,
    payee_words,
    readable_name,
    unnamed_p2p,
)
from chalicelib.insight.schedule import Cadence, Fit, Roll, Schedule, fit, plausible_cadences
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


class Status(StrEnum):
    """How much evidence a stream has (the statuses Plaid's recurring streams use)."""

    EARLY_DETECTION = "EARLY_DETECTION"  # two charges: a new bill, or a new user's
    MATURE = "MATURE"  # three charges or more


class Kind(StrEnum):
    """What a stream pays, so that an expenses view can show or hide it."""

    BILL = "bill"  # a subscription, a utility, rent, a loan, insurance: money spent
    CARD_PAYMENT = "card_payment"  # a credit card's autopay from checking: it pays the card's own charges


#: Charges a stream needs to be MATURE.
MATURE_CHARGES = 3
#: Cadences whose identical charges may sit off their day by up to ``TOLERANCE_DAYS`` and still
#: count as on schedule (authorization jitter, a debit a day or two late): bills, not habits.
JITTER_CADENCES = frozenset({Cadence.MONTHLY, Cadence.QUARTERLY})

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
#: The best few schedules of the fit are judged on all the evidence; the best judged wins (four:
#: a card plan known by one authorization day and two posting days ranks its own day fourth
#: as often as not).
SCHEDULES_TRIED = 4
#: Calendar rules per cadence the fit scores in full (those explaining most days exactly).
RULES_SCORED = 4
#: A cadence whose period is within this share of the typical gap is tried first.
DIRECT_GAP_SHARE = 0.25
#: Known charge days the fit needs to choose a rule by exact hits; fewer (a bill seen twice, one
#: charge a day or two off) are fitted within ``TOLERANCE_DAYS`` and the judge decides.
EXACT_FIT_DAYS = 3
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
#: Matched charges a stream needs before it is reported: two for a monthly bill (an early
#: detection, with more rules: see ``_twice_seen``), quarterly and annual ones.
MIN_CHARGES = {Cadence.MONTHLY: 2, Cadence.QUARTERLY: 2, Cadence.ANNUALLY: 2}
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
#: Weekly and every-other-week streams: most charges on their day (a car wash "every two weeks
#: or so" lines up with some weekday now and then).
SHORT_CADENCES = frozenset({Cadence.WEEKLY, Cadence.BIWEEKLY})
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
#: Everyday services paid per visit, where no plan is sold (see ``_membership``).
_PER_VISIT_PFC_PREFIXES = ("PERSONAL_CARE_HAIR_AND_BEAUTY",)
#: Categories of bills whose amount varies from one charge to the next.
_BILL_PFC_PREFIXES = ("RENT_AND_UTILITIES_", "GENERAL_SERVICES_INSURANCE", "LOAN_PAYMENTS_")
#: Bills that people pay by card as often as by debit.
_CARD_PAID_BILLS = ("RENT_AND_UTILITIES_TELEPHONE", "RENT_AND_UTILITIES_INTERNET_AND_CABLE")


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
    status: str  # EARLY_DETECTION (two charges) or MATURE
    kind: str  # bill, or card_payment (a credit card's autopay)

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
    return detect_visible(visible(transactions, as_of), as_of)


def detect_visible(txns: Sequence[Txn], as_of: date, *, account_id: str | None = None) -> list[RecurringExpense]:
    """:func:`detect` for transactions already made visible at ``as_of``
    (:func:`transactions.visible`): a caller that runs several models parses once.
    ``account_id``: only the streams of payees that charged that account (the forecast projects
    one account); each is found as without it, the whole history read (transfers are paired
    across accounts, the bank's habits read from every payee)."""
    paired = paired_transfers(txns)
    # A card's payments are a stream (kind card_payment), those whose category or pairing with
    # the card's side would make them a transfer included: the same payee as a card payment.
    card_payees = {merchant_key(t) for t in txns if is_card_payment(t)}
    outflows = [
        t
        for t in txns
        if t.amount > 0 and (not is_own_transfer(t, paired) or is_card_payment(t) or merchant_key(t) in card_payees)
    ]
    # Whether the bank reports authorization days is read before the lines' own dates fill them in.
    reports_authorization = any(t.authorized_day for t in outflows)
    outflows = [t if t.authorized_day else _dated_by_line(t) for t in outflows]
    found: list[RecurringExpense] = []
    prefixes = bank_prefixes(txns)
    groups = payee_groups(outflows, prefixes)
    bank = _Bank(
        authorized_apart=frozenset(t.txn_id for t in outflows if t.authorized_day and t.authorized_day != t.day),
        prefixes=prefixes,
        debits_keep_weekends=_debits_keep_weekends(outflows, reports_authorization=reports_authorization),
        reports_authorization=reports_authorization,
    )
    hits = [_clock_hits(group) for group in groups]
    posting_clock = _posting_clock_keeps_calendar(hits)
    for group, clocks in zip(groups, hits, strict=True):
        if account_id is not None and all(t.account_id != account_id for t in group):
            continue
        on_clock = _on_the_calendar(group, clocks, posting_clock=posting_clock)
        found.extend(_streams(sorted(on_clock, key=_charge_order), as_of, bank))
    return sorted(found, key=lambda s: (-_monthly_cost(s), s.merchant, s.next_date))


def _dated_by_line(txn: Txn) -> Txn:
    """A charge without an authorization day whose statement line prints the day the card was
    charged (``POS PURCHASE 12/09``) is authorized on that day."""
    printed = line_authorization_day(txn.name, txn.day)
    return txn if printed is None else txn.authorized_on(printed)


@dataclass(frozen=True, slots=True)
class _Bank:
    """What the user's bank shows across all payees."""

    authorized_apart: frozenset[str]  # ids of charges whose authorization and posting days differ
    prefixes: frozenset[str]  # words the bank opens its statement lines with
    #: Bills paid by debit (no authorization day) posted on a weekend: this bank does not move a
    #: debit due on a weekend to a business day, so a debit keeps its day unless its own days
    #: show a roll.
    debits_keep_weekends: bool
    #: Whether the bank reports card authorization days at all: where it never does, a charge
    #: without one may still be a card's.
    reports_authorization: bool


def _debits_keep_weekends(outflows: Iterable[Txn], *, reports_authorization: bool) -> bool:
    """A bill's debit (no authorization day) posted on a weekend. At a bank that reports no
    authorization day at all, a phone or internet bill paid by card looks the same, so there
    such a bill counts only when its line reads as an ACH debit."""
    return any(
        not t.authorized_day
        and (_bill(t) or is_card_payment(t))
        and not is_business_day(t.day)
        and (reports_authorization or is_ach_debit_line(t.name) or _debited_bill(t))
        for t in outflows
    )


def _debited_bill(txn: Txn) -> bool:
    """A bill paid by debit whatever the bank shows: rent, a utility, a loan, insurance (not a
    phone or an internet bill, often paid by card)."""
    return _bill(txn) and not (txn.pfc_detailed or "").startswith(_CARD_PAID_BILLS)


def charge_day(txn: Txn) -> date:
    """When the payee charged: the card authorization day when reported, else the posting day."""
    return txn.authorized_day or txn.day


def _charge_order(txn: Txn) -> tuple[date, str]:
    return charge_day(txn), txn.txn_id


def _clock_hits(group: Sequence[Txn]) -> tuple[int, int] | None:
    """How well each clock keeps the payee's calendar (:func:`_calendar_hits`, monthly), by
    posting days and by authorization days, compared where both are known; None when no charge
    was authorized on another day than it posted (the clocks agree)."""
    if not any(t.authorized_day and t.authorized_day != t.day for t in group):
        return None
    both = [t for t in group if t.authorized_day]
    return _calendar_hits(both, _posting_day, monthly=True), _calendar_hits(both, charge_day, monthly=True)


def _on_the_calendar(group: Sequence[Txn], clocks: tuple[int, int] | None, *, posting_clock: bool) -> Sequence[Txn]:
    """The payee's charges on the clock that keeps the calendar: their authorization days, or
    their posting days when those repeat more exactly (``clocks``, :func:`_clock_hits`: a
    merchant that bills on the 23rd, posts on the 23rd and whose authorizations wander a day or
    two before it); when the payee's charges cannot tell (a bill seen twice), the clock that
    keeps the user's other payees' calendars (``posting_clock``: how the user's bank dates card
    charges). A stream's schedule, and so its next date, are in that clock's days."""
    if clocks is None:
        return group
    by_posting, by_authorization = clocks
    if by_posting > by_authorization or (by_posting == by_authorization and posting_clock):
        return [t.posted_as_charged() for t in group]
    return group


def _posting_day(txn: Txn) -> date:
    return txn.day


def _posting_clock_keeps_calendar(hits: Iterable[tuple[int, int] | None]) -> bool:
    """Whether, over all the user's payees (``hits``: each one's :func:`_clock_hits`), posting
    days fall on the same day of the next month at the same amount more often than
    authorization days (monthly bills: everyday spending's weekly rhythms say nothing about how
    a bank dates a bill)."""
    known = [h for h in hits if h is not None]
    return sum(p for p, _ in known) > sum(a for _, a in known)


def _calendar_hits(txns: Sequence[Txn], day_of: Callable[[Txn], date], *, monthly: bool = False) -> int:
    """Charges at an amount charged before, a whole number of weeks or the same day of the
    month (the last day being one) after the previous one (``monthly``: the same day of the
    next month only), each charge on the clock ``day_of``: how well a clock keeps a calendar."""
    days: dict[int, set[date]] = defaultdict(set)
    for txn in txns:
        days[txn.amount].add(day_of(txn))
    hits = 0
    for seen in days.values():
        if len(seen) < 2:  # an amount charged once (most everyday purchases)
            continue
        for a, b in itertools.pairwise(sorted(seen)):
            same_day = a.day == b.day or (_month_end(a) and _month_end(b))
            if monthly:
                hits += same_day and 27 < (b - a).days < 32
            else:
                hits += (b - a).days % 7 == 0 or same_day
    return hits


def _month_end(day: date) -> bool:
    return (day + timedelta(days=1)).day == 1


def _same_level(a: int, b: int) -> bool:
    return abs(a - b) <= max(LEVEL_TOLERANCE * max(a, b), LEVEL_TOLERANCE_CENTS)


def _levels(group: Sequence[Txn]) -> list[tuple[Txn, ...]]:
    """Charges grouped by amount level (each within tolerance of the level's median)."""
    levels: list[list[Txn]] = []
    for txn in sorted(group, key=lambda t: t.amount):
        # (a level is in ascending order: its low median is its middle charge)
        if levels and _same_level(txn.amount, levels[-1][(len(levels[-1]) - 1) // 2].amount):
            levels[-1].append(txn)
        else:
            levels.append([txn])
    return [tuple(sorted(level, key=_charge_order)) for level in levels]


@dataclass(frozen=True, slots=True)
class _Candidate:
    txns: tuple[Txn, ...]  # by charge day
    segments: tuple[tuple[Txn, ...], ...]  # amount levels in time order; () = the amount varies


def _candidates(group: Sequence[Txn], all_levels: Sequence[tuple[Txn, ...]]) -> list[_Candidate]:
    """Amount levels, pairs of levels one after the other (price changes), the whole group;
    ``all_levels`` are the group's (:func:`_levels`)."""
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
    """At least half the charges that carry a category carry an everyday one, and more than carry
    a bill's (a rent debit miscategorised once is still rent; a haircut once filed under general
    merchandise is still a haircut)."""
    categorised = [t.pfc_detailed for t in txns if t.pfc_detailed]
    everyday = sum(c.startswith(_EVERYDAY_PFC_PREFIXES) for c in categorised)
    bills = sum(c.startswith(_BILL_PFC_PREFIXES) for c in categorised)
    return everyday > bills and 2 * everyday >= len(categorised)


def _card_like(txns: Sequence[Txn], authorized_apart: Container[str]) -> bool:
    """Card charges keep their day (weekends included) and post apart from their authorization
    (``authorized_apart``: the ids of those that did, whichever clock is read); ACH debits
    settle on business days and post the same day."""
    return any(t.txn_id in authorized_apart for t in txns) or any(not is_business_day(charge_day(t)) for t in txns)


def _merchant_charges(txns: Sequence[Txn], *, reports_authorization: bool) -> bool:
    """Charges that look like a card's at a merchant, though none shows it yet (each authorized,
    on its posting day, on a business day; :func:`_merchant_charge`). Such a merchant keeps its
    billing day on a weekend, so keeping the day is the first reading; a roll still wins where
    a charge's own day shows one."""
    return all(_merchant_charge(t, reports_authorization) for t in txns)


def _merchant_charge(txn: Txn, reports_authorization: bool) -> bool:
    """A charge with an authorization day, unless it is a bill whose statement line reads as an
    ACH debit (a bank may stamp its debits with an authorization day too; a phone bill paid by
    card keeps the card's). At a bank that reports no authorization day at all
    (``reports_authorization`` false) a missing one says nothing: a charge categorised as a
    merchant's (a category, not a bill's), without an ACH line, is a card's too."""
    if is_card_payment(txn):
        return False
    if txn.authorized_day:
        return not (_bill(txn) and is_ach_debit_line(txn.name))
    categorised = bool(txn.pfc_detailed or txn.category)
    return not reports_authorization and categorised and not _bill(txn) and not is_ach_debit_line(txn.name)


@dataclass(frozen=True, slots=True)
class _Evidence:
    """How well a schedule explains a candidate's charges."""

    candidate: _Candidate
    schedule: Schedule
    matched: tuple[Txn, ...]  # one charge per scheduled day it was matched to, oldest first
    due: int  # scheduled charges that should have shown by now
    exact: int  # matched on the scheduled day itself
    jittered: int  # dated, off the day by at most TOLERANCE_DAYS, at the level's very amount (JITTER_CADENCES)
    dated: int  # matched charges whose charge day is known (not only a card's posting day)
    early: int  # dated charges before their scheduled day
    #: Charges before their scheduled day, a day or two of jitter included: a biller debits on its
    #: day or late, and a card is charged on its day or retried later, so between two readings the
    #: one no charge came before wins.
    ahead: int
    residual: float  # mean days between a dated charge and its scheduled day
    overdue: date | None  # the first scheduled charge missing since the last one, overdue
    trailing: int  # scheduled charges missing since the last one, overdue
    #: A bill's (not a card charge's) scheduled charge not seen yet but still on time: as_of is
    #: within its late window (due on a weekend or a holiday, it posts on the next business day).
    waiting: date | None = None

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
        if self.waiting is not None:
            return next_business_day(as_of + timedelta(days=1))
        return self.schedule.next_dates(as_of, 1)[0]


def _schedules(txns: Sequence[Txn], *, card: bool, keep_weekends: bool = False) -> list[Schedule]:
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


def _judge(candidate: _Candidate, schedules: Iterable[Schedule], as_of: date, *, card: bool) -> _Evidence | None:
    """The schedule the evidence supports best, with its evidence."""
    identical = _identical_amounts(candidate)
    judged = [_match(candidate, schedule, as_of, card=card, identical=identical) for schedule in schedules]
    if not judged:
        return None
    # The pick's tie-breaks (an nth weekday, charges ahead of their day) apply only between
    # readings that the schedule's own evidence accepts alike: they must not cost a stream the
    # reading that kept it.
    kept = _keeps_schedule(min(judged, key=_rank))
    return min((e for e in judged if _keeps_schedule(e) == kept), key=_rank_to_pick)


def _worth_fitting(candidate: _Candidate, group: Sequence[Txn], repeated: Container[str]) -> bool:
    """Whether the candidate could pass at all (the fit is the costly part): three charge days,
    or two when the payee charged nothing else since but amounts it charges again (``repeated``:
    maybe another bill; see ``_twice_seen``); a price change at a shop only between two fixed
    prices (a shop's baskets fall into amount levels two and two, and every pair of them would be
    fitted); a varying amount only as a bill or a card's autopay."""
    days = len({charge_day(t) for t in candidate.txns})
    if days < DEFAULT_MIN_CHARGES and (days < 2 or _busy(candidate, group, since_first=True, bills=repeated)):
        return False
    habit = _everyday(candidate.txns) and not _membership(candidate, group, repeated)
    if days < BUSY_MIN_CHARGES and (habit or _busy(candidate, group, bills=repeated)):
        return False  # where chance alignments are likely, four charges are needed (_chance_ruled_out)
    if (
        len(candidate.segments) > 1
        and not _identical(candidate, candidate.txns)
        and _busy(candidate, group, bills=repeated)
    ):
        return False  # at a shop, a price change is read between two fixed prices only (_chance_ruled_out)
    if _everyday(candidate.txns) and not _could_keep_a_day(candidate.txns):
        return False
    if candidate.segments:
        return True
    if _kind(candidate.txns) is Kind.CARD_PAYMENT:
        return True
    amounts = [t.amount for t in candidate.txns]
    return _mostly_bills(candidate.txns) and max(amounts) <= VARIABLE_SPREAD * min(amounts)


def _could_keep_a_day(txns: Sequence[Txn]) -> bool:
    """Whether enough charges share a weekday or a day of the month for everyday spending to
    pass as a bill: ``_chance_ruled_out`` asks three quarters of the matched charges on the day,
    and a schedule matches at least 60 % of them (``MIN_PRECISION_WITH_EXTRAS``). Coffee most
    mornings and a car wash every two weeks or so fail here, before the costly fit."""
    weekdays, month_days = [0] * 7, [0] * 32
    for txn in txns:
        day = charge_day(txn)
        weekdays[day.weekday()] += 1
        month_days[day.day] += 1
    return max(*weekdays, *month_days) >= BUSY_MIN_EXACT * MIN_PRECISION_WITH_EXTRAS * len(txns)


def _could_explain(cadence: Cadence, days: Sequence[date]) -> bool:
    """Whether a schedule of ``cadence`` has room for enough of ``days``: coffee bought most
    mornings cannot be a weekly bill whatever its weekday, so it is not fitted at all."""
    room = (days[-1] - days[0]).days / PERIOD_DAYS[cadence] + 1.5
    return len(days) * MIN_PRECISION_WITH_EXTRAS <= room


def _rank(e: _Evidence) -> tuple[int, int, int, int, float]:
    """Most charges explained, fewest scheduled charges missing between them (those missing
    since the last one say whether the stream stopped, not which schedule it kept: the weekend
    roll that puts a missed charge a day later must not win by it), most on the day, fewest
    early (a debit runs late, not early: "the 8th, one late" beats "the 9th or the business day
    before, one early"), closest."""
    return (-len(e.matched), e.due - e.trailing - len(e.matched), -e.exact, e.early, e.residual)


def _rank_to_pick(e: _Evidence) -> tuple[int, int, bool, int, int, int, float]:
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
    candidate: _Candidate, schedule: Schedule, as_of: date, *, card: bool, identical: Mapping[str, bool]
) -> _Evidence:
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
    identical = identical if schedule.cadence in JITTER_CADENCES else {}
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
                if offset and abs(offset) <= TOLERANCE_DAYS and identical.get(best.txn_id):
                    jittered += 1  # on schedule: the authorization or the debit a day or two off
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
    return _Evidence(
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


def _identical_amounts(candidate: _Candidate) -> dict[str, bool]:
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


def _accepted(e: _Evidence, group: Sequence[Txn], bills: Container[str] = frozenset()) -> bool:
    """Whether the evidence makes ``e`` a recurring expense (see the module docstring).
    ``bills``: the ids of the payee's charges that other streams explain (not shopping)."""
    return _keeps_schedule(e) and _chance_ruled_out(e, group, bills) and _amounts_fit(e, group, bills)


def _keeps_schedule(e: _Evidence) -> bool:
    """What :func:`_accepted` asks of the evidence itself, whatever else the payee charged."""
    if e.overdue is not None:
        return False  # stopped: cancelled, paid off, moved
    if len(e.matched) < MIN_CHARGES.get(e.cadence, DEFAULT_MIN_CHARGES) or e.recall < MIN_RECALL:
        return False
    if e.precision < MIN_PRECISION and not _exact_despite_extras(e):
        return False
    off_day = e.dated - e.exact - e.jittered
    if e.residual > MAX_RESIDUAL or off_day > max(1, int(MAX_OFF_DAY_SHARE * e.dated)):
        return False
    if e.exact < MIN_EXACT_CHARGES:
        return False  # known only by posting days (a card's lag): too loose to tell a habit
    # A habit every week or two drifts a day or two; a weekly bill keeps its day.
    return not (e.cadence in SHORT_CADENCES and e.exact < BUSY_MIN_EXACT * e.dated)


def _chance_ruled_out(e: _Evidence, group: Sequence[Txn], bills: Container[str]) -> bool:
    """A shop the user visits anyway, or everyday spending: a few visits can line up with some
    schedule by chance, so ask for more charges, mostly on the day, and (at a busy payee) none
    missing and not a weekly rhythm an everyday shop falls into."""
    monthly = e.cadence in {Cadence.MONTHLY, Cadence.QUARTERLY}
    busy, everyday = _busy(e.candidate, group, bills=bills, products=monthly), _everyday(e.matched)
    if not (busy or everyday):
        return True
    if monthly and _membership(e.candidate, group, bills):
        return True
    matched = len(e.matched)
    missing_allowed = 0 if busy else max(1, int(EVERYDAY_MAX_MISSED * e.due))
    if matched < BUSY_MIN_CHARGES or e.due - matched > missing_allowed or e.exact < BUSY_MIN_EXACT * e.dated:
        return False
    if busy and everyday and e.cadence in {Cadence.WEEKLY, Cadence.BIWEEKLY}:
        return False
    return not (busy and e.candidate.segments and not _identical(e.candidate, e.matched))


def _membership(candidate: _Candidate, group: Sequence[Txn], bills: Container[str]) -> bool:
    """A plan at an everyday merchant (a ride-share or a delivery membership, a transit pass):
    one fixed price, and nothing else charged at the payee since its first charge. Everyday
    spending there would be other charges, at other amounts; the membership's own rides or
    orders, when Plaid names them another merchant, are not the payee's. A haircut is paid per
    visit: its fixed price every four or five weeks is a habit, not a plan."""
    txns = candidate.txns
    if any(t.pfc_detailed and t.pfc_detailed.startswith(_PER_VISIT_PFC_PREFIXES) for t in txns):
        return False
    return len({t.amount for t in txns}) == 1 and not _busy(candidate, group, since_first=True, bills=bills)


def _amounts_fit(e: _Evidence, group: Sequence[Txn], bills: Container[str]) -> bool:
    """A fixed price per level; a varying amount only for a bill, any for a card's autopay
    (the statement balance); twice seen, see ``_twice_seen``."""
    amounts = [t.amount for t in e.matched]
    card_payment = _kind(e.matched) is Kind.CARD_PAYMENT
    if not e.candidate.segments:
        if e.precision < VARYING_MIN_PRECISION:
            return False
        if card_payment:
            return e.cadence is Cadence.MONTHLY and (len(amounts) > 2 or _twice_seen(e, group, bills))
        varying_ok = e.cadence in {Cadence.MONTHLY, Cadence.SEMI_MONTHLY, Cadence.QUARTERLY}
        if not varying_ok or not _mostly_bills(e.matched):
            return False
        if max(amounts) > VARIABLE_SPREAD * min(amounts):
            return False
    if len(amounts) == 2:
        if not _twice_seen(e, group, bills):
            return False
        same = _same_level(amounts[0], amounts[1])
        bill = any(_bill(t) for t in e.matched)
        return (same or bill) and max(amounts) <= TWICE_SEEN_SPREAD * min(amounts)
    return True


def _twice_seen(e: _Evidence, group: Sequence[Txn], bills: Container[str]) -> bool:
    """A stream seen twice (a monthly bill's early detection, a quarterly or annual bill): the
    payee charged nothing else since the first charge (a shop's purchases can repeat an amount
    a month apart by chance; Plaid naming them another merchant clears them), and on its day:
    none early, and the other at most a business day late, or a day or two off at the very
    same amount; a P2P payment only when its line names whom it paid."""
    on_day = e.early == 0 and e.exact + e.jittered >= max(1, e.dated - 1)
    if any(unnamed_p2p(t) for t in e.matched):
        return False  # the same payee? the line does not say
    return on_day and not _busy(e.candidate, group, since_first=True, bills=bills)


def _kind(txns: Sequence[Txn]) -> Kind:
    cards = sum(is_card_payment(t) for t in txns)
    return Kind.CARD_PAYMENT if 2 * cards >= len(txns) else Kind.BILL


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


def _busy(
    candidate: _Candidate,
    group: Sequence[Txn],
    *,
    since_first: bool = False,
    bills: Container[str] = frozenset(),
    products: bool = True,
) -> bool:
    """The payee charged other amounts while the candidate ran (or, ``since_first``, since its
    first charge): a shop, not only a bill. Charges Plaid names another merchant do not count
    ("Amazon Prime" among "Amazon" orders; when Plaid names none of the candidate's, a merchant
    whose name is not on its lines: "The Home Depot" beside "WF HOME MTG AUTO PAY"), nor
    ``bills``, another stream's charges (two loans with one servicer). With ``products`` (a
    monthly or quarterly plan: not for weekly streams), a candidate at one fixed price whose
    lines all name a word another charge's line lacks is a product of the payee's, apart from
    its shopping ("DOORDASH DASHPASS" among "DOORDASH*CHIPOTLE" orders); not a P2P payment's
    line, whose other word is a person's name."""
    first = charge_day(candidate.txns[0])
    last = date.max if since_first else charge_day(candidate.txns[-1])
    names = {t.merchant_name for t in candidate.txns if t.merchant_name}
    lines = set() if names else {w for t in candidate.txns for w in payee_words(t.name)}
    plan = products and len({t.amount for t in candidate.txns}) == 1
    product = frozenset.intersection(*(_name_words(t.name) for t in candidate.txns)) if plan else frozenset()
    if product & P2P_SERVICES:
        product = frozenset()  # the word after a P2P service's is a person paid, not a plan
    ids = {t.txn_id for t in candidate.txns}

    def same_merchant(txn: Txn) -> bool:
        if product and not product <= _name_words(txn.name):
            return False  # the candidate's lines name a product this charge's line does not
        if not txn.merchant_name:
            return True
        return txn.merchant_name in names if names else set(payee_words(txn.merchant_name)) <= lines

    return any(
        first <= charge_day(t) <= last and same_merchant(t)
        for t in group
        if t.txn_id not in ids and t.txn_id not in bills
    )


@lru_cache(maxsize=4096)
def _name_words(line: str) -> frozenset[str]:
    """A line's payee words of three letters or more (a state's code is not a product's name);
    read once per line, as :func:`payee_words` is."""
    return frozenset(w for w in payee_words(line) if len(w) >= 3)


def _identical(candidate: _Candidate, matched: Sequence[Txn]) -> bool:
    """Every price level charged the very same amount each time (a plan price, not a basket)."""
    on = {t.txn_id for t in matched}
    return all(len({t.amount for t in segment if t.txn_id in on}) <= 1 for segment in candidate.segments)


def _streams(group: Sequence[Txn], as_of: date, bank: _Bank) -> list[RecurringExpense]:
    if len({charge_day(t) for t in group}) < 2:
        return []
    judged: list[_Evidence] = []
    fitted: dict[tuple[Txn, ...], list[Schedule]] = {}
    levels = _levels(group)
    repeated = frozenset(t.txn_id for level in levels if len({charge_day(t) for t in level}) > 1 for t in level)
    for candidate in _candidates(group, levels):
        if not _worth_fitting(candidate, group, repeated):
            continue
        card = _card_like(candidate.txns, bank.authorized_apart)
        if len(candidate.segments) == 2 and any(seg in fitted for seg in candidate.segments):
            # A price change keeps the schedule: reuse what its levels were fitted to.
            schedules = [s for seg in candidate.segments for s in fitted.get(seg, ())]
        else:
            keep_weekends = bank.debits_keep_weekends or _merchant_charges(
                candidate.txns, reports_authorization=bank.reports_authorization
            )
            schedules = _schedules(candidate.txns, card=card, keep_weekends=keep_weekends)
            if len(candidate.segments) == 1:
                fitted[candidate.segments[0]] = schedules
        evidence = _judge(candidate, schedules, as_of, card=card)
        if evidence is not None:
            judged.append(evidence)
    accepted = _accepted_at(group, judged)
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
        out.append(_expense(evidence, as_of, bank.prefixes))
    return out


def _accepted_at(group: Sequence[Txn], judged: Sequence[_Evidence]) -> list[_Evidence]:
    """The candidates accepted at one payee. A candidate that fails only because the payee
    charged other amounts is accepted when other candidates there, accepted or seen three
    times, explain those charges: two bills at one payee (two loans with one servicer, two plans
    with one app store) are not shopping."""
    accepted = [e for e in judged if _accepted(e, group)]
    if len(accepted) == len(judged):
        return accepted
    everything = frozenset(t.txn_id for t in group)
    quiet = [e for e in judged if e not in accepted and _accepted(e, group, everything)]
    pool = accepted + [e for e in quiet if len(e.matched) >= MATURE_CHARGES]
    for e in quiet:
        own = {t.txn_id for t in e.candidate.txns}
        others = frozenset(t.txn_id for o in pool if o is not e for t in o.matched) - own
        if _accepted(e, group, others):
            accepted.append(e)
    return accepted


def _expense(e: _Evidence, as_of: date, prefixes: Container[str]) -> RecurringExpense:
    matched, segments = e.matched, e.candidate.segments
    current = [t for t in matched if t in segments[-1]] if segments else list(matched)
    last = matched[-1]
    return RecurringExpense(
        merchant=readable_name(matched, prefixes),
        frequency=e.cadence.value,
        average_amount=round(statistics.fmean(t.amount for t in current or matched)),
        next_date=e.next_date(as_of),
        transaction_ids=tuple(t.txn_id for t in matched),
        account_id=last.account_id,
        last_date=charge_day(last),
        last_amount=last.amount,
        fixed_amount=bool(segments),
        schedule=e.schedule.describe(),
        status=(Status.MATURE if len(matched) >= MATURE_CHARGES else Status.EARLY_DETECTION).value,
        kind=_kind(matched).value,
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
