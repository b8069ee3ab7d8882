"""Whether a judged candidate is a recurring expense: its schedule explains it, and at a busy
payee or in everyday categories, chance is ruled out."""

from __future__ import annotations

from collections.abc import Container, Sequence

from chalicelib.insight.payees import unnamed_p2p
from chalicelib.insight.recurring.candidates import busy_payee, identical_prices, is_membership, same_level
from chalicelib.insight.recurring.evidence import Evidence
from chalicelib.insight.recurring.kinds import Kind, is_bill_charge, is_everyday, kind_of, mostly_bills
from chalicelib.insight.recurring.rules import (
    BUSY_MIN_CHARGES,
    BUSY_MIN_EXACT,
    DEFAULT_MIN_CHARGES,
    EVERYDAY_MAX_MISSED,
    MAX_OFF_DAY_SHARE,
    MAX_RESIDUAL,
    MIN_CHARGES,
    MIN_EXACT_CHARGES,
    MIN_PRECISION,
    MIN_PRECISION_WITH_EXTRAS,
    MIN_RECALL,
    SHORT_CADENCES,
    TWICE_SEEN_SPREAD,
    VARIABLE_SPREAD,
    VARYING_MIN_PRECISION,
)
from chalicelib.insight.schedule import Cadence
from chalicelib.insight.transactions import Txn


def is_accepted(e: Evidence, group: Sequence[Txn], bills: Container[str] = frozenset()) -> bool:
    """Whether the evidence makes ``e`` a recurring expense (see the module docstring).
    ``bills``: the ids of the payee's charges that other streams explain (not shopping)."""
    return keeps_schedule(e) and _chance_ruled_out(e, group, bills) and _amounts_fit(e, group, bills)


def keeps_schedule(e: Evidence) -> bool:
    """What :func:`is_accepted` asks of the evidence itself, whatever else the payee charged."""
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


def _chance_ruled_out(e: Evidence, group: Sequence[Txn], bills: Container[str]) -> bool:
    """A shop the user visits anyway, or everyday spending: a few visits can line up with some
    schedule by chance, so ask for more charges, mostly on the day, and (at a busy payee) none
    missing and not a weekly rhythm an everyday shop falls into."""
    monthly = e.cadence in {Cadence.MONTHLY, Cadence.QUARTERLY}
    busy, everyday = busy_payee(e.candidate, group, bills=bills, products=monthly), is_everyday(e.matched)
    if not (busy or everyday):
        return True
    if monthly and is_membership(e.candidate, group, bills):
        return True
    matched = len(e.matched)
    missing_allowed = 0 if busy else max(1, int(EVERYDAY_MAX_MISSED * e.due))
    if matched < BUSY_MIN_CHARGES or e.due - matched > missing_allowed or e.exact < BUSY_MIN_EXACT * e.dated:
        return False
    if busy and everyday and e.cadence in {Cadence.WEEKLY, Cadence.BIWEEKLY}:
        return False
    return not (busy and e.candidate.segments and not identical_prices(e.candidate, e.matched))


def _amounts_fit(e: Evidence, group: Sequence[Txn], bills: Container[str]) -> bool:
    """A fixed price per level; a varying amount only for a bill, any for a card's autopay
    (the statement balance); twice seen, see ``_twice_seen``."""
    amounts = [t.amount for t in e.matched]
    card_payment = kind_of(e.matched) is Kind.CARD_PAYMENT
    if not e.candidate.segments:
        if e.precision < VARYING_MIN_PRECISION:
            return False
        if card_payment:
            return e.cadence is Cadence.MONTHLY and (len(amounts) > 2 or _twice_seen(e, group, bills))
        varying_ok = e.cadence in {Cadence.MONTHLY, Cadence.SEMI_MONTHLY, Cadence.QUARTERLY}
        if not varying_ok or not mostly_bills(e.matched):
            return False
        if max(amounts) > VARIABLE_SPREAD * min(amounts):
            return False
    if len(amounts) == 2:
        if not _twice_seen(e, group, bills):
            return False
        same = same_level(amounts[0], amounts[1])
        bill = any(is_bill_charge(t) for t in e.matched)
        return (same or bill) and max(amounts) <= TWICE_SEEN_SPREAD * min(amounts)
    return True


def _twice_seen(e: Evidence, group: Sequence[Txn], bills: Container[str]) -> bool:
    """A stream seen twice (a monthly bill's early detection, a quarterly or annual bill): the
    payee charged nothing else since the first charge (a shop's purchases can repeat an amount
    a month apart by chance; Plaid naming them another merchant clears them), and on its day:
    none early, and the other at most a business day late, or a day or two off at the very
    same amount; a P2P payment only when its line names whom it paid."""
    on_day = e.early == 0 and e.exact + e.jittered >= max(1, e.dated - 1)
    if any(unnamed_p2p(t) for t in e.matched):
        return False  # the same payee? the line does not say
    return on_day and not busy_payee(e.candidate, group, since_first=True, bills=bills)


def _exact_despite_extras(e: Evidence) -> bool:
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
