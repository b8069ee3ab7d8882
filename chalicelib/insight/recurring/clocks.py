"""Which day a charge was charged: the clock that keeps the calendar (a card's authorization day,
or its posting day where that repeats more exactly), and what the user's bank shows across payees."""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from chalicelib.insight.calendar import is_business_day
from chalicelib.insight.payees import is_ach_debit_line, is_card_payment, line_authorization_day
from chalicelib.insight.recurring.kinds import CARD_PAID_BILLS, is_bill_charge
from chalicelib.insight.transactions import Txn


def dated_by_line(txn: Txn) -> Txn:
    """A charge without an authorization day whose statement line prints the day the card was
    charged (``POS PURCHASE 12/09``) is authorized on that day."""
    printed = line_authorization_day(txn.name, txn.day)
    return txn if printed is None else txn.authorized_on(printed)


@dataclass(frozen=True, slots=True)
class Bank:
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


def debits_posted_on_weekends(outflows: Iterable[Txn], *, reports_authorization: bool) -> bool:
    """A bill's debit (no authorization day) posted on a weekend. At a bank that reports no
    authorization day at all, a phone or internet bill paid by card looks the same, so there
    such a bill counts only when its line reads as an ACH debit."""
    return any(
        not t.authorized_day
        and (is_bill_charge(t) or is_card_payment(t))
        and not is_business_day(t.day)
        and (reports_authorization or is_ach_debit_line(t.name) or _debited_bill(t))
        for t in outflows
    )


def _debited_bill(txn: Txn) -> bool:
    """A bill paid by debit whatever the bank shows: rent, a utility, a loan, insurance (not a
    phone or an internet bill, often paid by card)."""
    return is_bill_charge(txn) and not (txn.pfc_detailed or "").startswith(CARD_PAID_BILLS)


def charge_day(txn: Txn) -> date:
    """When the payee charged: the card authorization day when reported, else the posting day."""
    return txn.authorized_day or txn.day


def charge_order(txn: Txn) -> tuple[date, str]:
    return charge_day(txn), txn.txn_id


def clock_hits(group: Sequence[Txn]) -> tuple[int, int] | None:
    """How well each clock keeps the payee's calendar (:func:`_calendar_hits`, monthly), by
    posting days and by authorization days, compared where both are known; None when no charge
    was authorized on another day than it posted (the clocks agree)."""
    if not any(t.authorized_day and t.authorized_day != t.day for t in group):
        return None
    both = [t for t in group if t.authorized_day]
    return _calendar_hits(both, _posting_day, monthly=True), _calendar_hits(both, charge_day, monthly=True)


def on_the_calendar(group: Sequence[Txn], clocks: tuple[int, int] | None, *, posting_clock: bool) -> Sequence[Txn]:
    """The payee's charges on the clock that keeps the calendar: their authorization days, or
    their posting days when those repeat more exactly (``clocks``, :func:`clock_hits`: a
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


def posting_clock_keeps_calendar(hits: Iterable[tuple[int, int] | None]) -> bool:
    """Whether, over all the user's payees (``hits``: each one's :func:`clock_hits`), posting
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
