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
2. Charges are grouped by payee across the user's accounts (:func:`payees.payee_groups`:
   payees Plaid names apart stay apart, a charge Plaid left unnamed goes with the merchant
   printing its line) and read on the clock that keeps the calendar: card charges by their authorization day, or by
   their posting day where that repeats more exactly (a merchant billing on the 23rd whose
   authorizations wander a day or two before it); when a payee's charges cannot tell, by the
   clock that keeps the user's other payees' calendars. Each group yields candidate streams:
   each amount level (charges within 2 % of each other), two levels one after the other (a
   price change: a plan repriced or downgraded, a promotion ending, a level seen once at the
   new price), the whole group (a bill whose amount varies: a utility, a card's autopay), and
   the charges outside the repeated levels (a bank's fixed loan beside its card's autopay). A
   card's autopay is also judged on its payments on schedule alone (the user's extra payments
   to the card are not its charges).
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
   also charges other amounts (a shop, an app store; another bill there does not count, nor
   other plans that between them explain every charge there) or in
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

import statistics
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import date
from enum import StrEnum
from typing import Any

from chalicelib.insight.payees import (
    bank_prefixes,
    is_card_payment,
    is_own_transfer,
    merchant_key,
    paired_transfers,
    payee_groups,
    readable_name,
)
from chalicelib.insight.recurring.acceptance import is_accepted
from chalicelib.insight.recurring.candidates import (
    Candidate,
    amount_levels,
    candidates_of,
    card_like,
    merchant_charges,
    worth_fitting,
)
from chalicelib.insight.recurring.clocks import (
    Bank,
    charge_day,
    charge_order,
    clock_hits,
    dated_by_line,
    debits_posted_on_weekends,
    on_the_calendar,
    posting_clock_keeps_calendar,
)
from chalicelib.insight.recurring.evidence import Evidence
from chalicelib.insight.recurring.judge import judge_candidate, schedules_for
from chalicelib.insight.recurring.kinds import Kind, kind_of
from chalicelib.insight.recurring.rules import MATURE_CHARGES
from chalicelib.insight.schedule import Cadence, Schedule
from chalicelib.insight.transactions import Txn, visible

__all__ = ["Kind", "RecurringExpense", "Status", "detect", "detect_visible"]


class Status(StrEnum):
    """How much evidence a stream has (the statuses Plaid's recurring streams use)."""

    EARLY_DETECTION = "EARLY_DETECTION"  # two charges: a new bill, or a new user's
    MATURE = "MATURE"  # three charges or more


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
    outflows = [t if t.authorized_day else dated_by_line(t) for t in outflows]
    found: list[RecurringExpense] = []
    prefixes = bank_prefixes(txns)
    groups = payee_groups(outflows, prefixes)
    bank = Bank(
        authorized_apart=frozenset(t.txn_id for t in outflows if t.authorized_day and t.authorized_day != t.day),
        prefixes=prefixes,
        debits_keep_weekends=debits_posted_on_weekends(outflows, reports_authorization=reports_authorization),
        reports_authorization=reports_authorization,
    )
    hits = [clock_hits(group) for group in groups]
    posting_clock = posting_clock_keeps_calendar(hits)
    for group, clocks in zip(groups, hits, strict=True):
        if account_id is not None and all(t.account_id != account_id for t in group):
            continue
        on_clock = on_the_calendar(group, clocks, posting_clock=posting_clock)
        found.extend(_streams(sorted(on_clock, key=charge_order), as_of, bank))
    return sorted(found, key=lambda s: (-_monthly_cost(s), s.merchant, s.next_date))


def _streams(group: Sequence[Txn], as_of: date, bank: Bank) -> list[RecurringExpense]:
    if len({charge_day(t) for t in group}) < 2:
        return []
    judged: list[Evidence] = []
    fitted: dict[tuple[Txn, ...], list[Schedule]] = {}
    levels = amount_levels(group)
    repeated = frozenset(t.txn_id for level in levels if len({charge_day(t) for t in level}) > 1 for t in level)
    for candidate in candidates_of(group, levels):
        if not worth_fitting(candidate, group, repeated):
            continue
        card = card_like(candidate.txns, bank.authorized_apart)
        if len(candidate.segments) == 2 and any(seg in fitted for seg in candidate.segments):
            # A price change keeps the schedule: reuse what its levels were fitted to.
            schedules = [s for seg in candidate.segments for s in fitted.get(seg, ())]
        else:
            keep_weekends = bank.debits_keep_weekends or merchant_charges(
                candidate.txns, reports_authorization=bank.reports_authorization
            )
            schedules = schedules_for(candidate.txns, card=card, keep_weekends=keep_weekends)
            if len(candidate.segments) == 1:
                fitted[candidate.segments[0]] = schedules
        evidence = judge_candidate(candidate, schedules, as_of, card=card)
        if evidence is not None:
            judged.append(evidence)
            autopay = _autopay_alone(evidence, schedules, as_of, card=card)
            if autopay is not None:
                judged.append(autopay)
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


def _autopay_alone(e: Evidence, schedules: Sequence[Schedule], as_of: date, *, card: bool) -> Evidence | None:
    """A card's autopay judged on its payments on schedule alone: the user's other payments to
    the card (part of a balance paid early, a payoff) are not its charges."""
    if (
        len(e.matched) < 2
        or len(e.matched) == len(e.candidate.txns)
        or kind_of(e.candidate.txns) is not Kind.CARD_PAYMENT
    ):
        return None
    return judge_candidate(Candidate(tuple(e.matched), ()), schedules, as_of, card=card)


def _card_extras(e: Evidence, group: Sequence[Txn]) -> frozenset[str]:
    """For a card's autopay, the payee's other payments to a card (not shopping)."""
    if kind_of(e.candidate.txns) is not Kind.CARD_PAYMENT:
        return frozenset()
    own = {t.txn_id for t in e.candidate.txns}
    return frozenset(t.txn_id for t in group if t.txn_id not in own and is_card_payment(t))


def _accepted_at(group: Sequence[Txn], judged: Sequence[Evidence]) -> list[Evidence]:
    """The candidates accepted at one payee. A candidate that fails only because the payee
    charged other amounts is accepted when other candidates there, accepted or seen three
    times, explain those charges, or when the candidates there between them explain every
    charge at the payee: two bills at one payee (two loans with one servicer, two plans with
    one app store) are not shopping."""
    accepted = [e for e in judged if is_accepted(e, group, _card_extras(e, group))]
    if len(accepted) == len(judged):
        return accepted
    everything = frozenset(t.txn_id for t in group)
    quiet = [e for e in judged if e not in accepted and is_accepted(e, group, everything)]
    explained = {t.txn_id for e in accepted + quiet for t in e.matched}
    # Plans that between them explain every charge at the payee (an app store's two plans, each
    # seen twice) vouch for each other; otherwise only plans seen three times vouch.
    pool = accepted + [e for e in quiet if len(e.matched) >= MATURE_CHARGES or explained >= everything]
    for e in quiet:
        own = {t.txn_id for t in e.candidate.txns}
        others = frozenset(t.txn_id for o in pool if o is not e for t in o.matched) - own
        if is_accepted(e, group, others):
            accepted.append(e)
    return accepted


def _expense(e: Evidence, as_of: date, prefixes: Container[str]) -> RecurringExpense:
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
        kind=kind_of(matched).value,
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
