"""The candidate streams at one payee (amount levels, price changes, the whole varying group),
and which are worth the costly fit: where chance alignments are likely, more is asked."""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Container, Sequence
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

from chalicelib.insight.calendar import is_business_day
from chalicelib.insight.payees import P2P_SERVICES, is_ach_debit_line, is_card_payment, payee_words
from chalicelib.insight.recurring.clocks import charge_day, charge_order
from chalicelib.insight.recurring.kinds import (
    PER_VISIT_PFC_PREFIXES,
    Kind,
    is_bill_charge,
    is_everyday,
    kind_of,
    mostly_bills,
)
from chalicelib.insight.recurring.rules import (
    BUSY_MIN_CHARGES,
    BUSY_MIN_EXACT,
    DEFAULT_MIN_CHARGES,
    LEVEL_TOLERANCE,
    LEVEL_TOLERANCE_CENTS,
    MIN_PRECISION_WITH_EXTRAS,
    PRICE_CHANGE,
    VARIABLE_SPREAD,
)
from chalicelib.insight.transactions import Txn


def same_level(a: int, b: int) -> bool:
    return abs(a - b) <= max(LEVEL_TOLERANCE * max(a, b), LEVEL_TOLERANCE_CENTS)


def amount_levels(group: Sequence[Txn]) -> list[tuple[Txn, ...]]:
    """Charges grouped by amount level (each within tolerance of the level's median)."""
    levels: list[list[Txn]] = []
    for txn in sorted(group, key=lambda t: t.amount):
        # (a level is in ascending order: its low median is its middle charge)
        if levels and same_level(txn.amount, levels[-1][(len(levels[-1]) - 1) // 2].amount):
            levels[-1].append(txn)
        else:
            levels.append([txn])
    return [tuple(sorted(level, key=charge_order)) for level in levels]


@dataclass(frozen=True, slots=True)
class Candidate:
    txns: tuple[Txn, ...]  # by charge day
    segments: tuple[tuple[Txn, ...], ...]  # amount levels in time order; () = the amount varies


def candidates_of(group: Sequence[Txn], all_levels: Sequence[tuple[Txn, ...]]) -> list[Candidate]:
    """Amount levels, pairs of levels one after the other (price changes), the whole group,
    and the charges outside the repeated levels; ``all_levels`` are the group's
    (:func:`amount_levels`)."""
    levels = [level for level in all_levels if len({charge_day(t) for t in level}) >= 2]
    singles = [level[0] for level in all_levels if len(level) == 1]
    out = [Candidate(level, (level,)) for level in levels]
    by_start = sorted(levels, key=lambda lv: charge_day(lv[0]))
    for i, old in enumerate(by_start):
        for new in by_start[i + 1 :]:
            if charge_day(old[-1]) < charge_day(new[0]) and _price_change(old[0], new[0]):
                out.append(Candidate(tuple(sorted(old + new, key=charge_order)), (old, new)))
    if len(levels) == 1 and len(levels[0]) + 1 == len(group):
        # A price change seen once so far; in a busier group a one-off at the right time would
        # pass for one, so there it waits for a second charge at the new price.
        out.extend(_with_single_price(levels[0], singles))
    if len(levels) != 1 or len(levels[0]) != len(group):
        out.append(Candidate(tuple(group), ()))
    # A payee's fixed bill beside a varying one (a bank's loan and its card's payments): the
    # charges outside the repeated levels, their amounts varying.
    fixed = {t.txn_id for level in levels for t in level}
    rest = tuple(t for t in group if t.txn_id not in fixed)
    if fixed and len({charge_day(t) for t in rest}) >= 2:
        out.append(Candidate(rest, ()))
    return out


def _price_change(old: Txn, new: Txn) -> bool:
    return PRICE_CHANGE[0] <= new.amount / old.amount <= PRICE_CHANGE[1]


def _with_single_price(level: tuple[Txn, ...], singles: Sequence[Txn]) -> list[Candidate]:
    """A level and the one charge at another price about a period before or after it: a price
    change seen once so far (or an old price seen once before the window's start)."""
    days = sorted({charge_day(t) for t in level})
    gap = statistics.median((b - a).days for a, b in itertools.pairwise(days))
    out: list[Candidate] = []
    for side, edge in ((1, days[-1]), (-1, days[0])):

        def distance(txn: Txn, edge: date = edge, side: int = side) -> float:
            return abs(side * (charge_day(txn) - edge).days - gap)

        near = [t for t in singles if distance(t) <= gap / 2 and _price_change(level[0], t)]
        if near:
            single = (min(near, key=distance),)
            segments = (level, single) if side == 1 else (single, level)
            out.append(Candidate(tuple(sorted(level + single, key=charge_order)), segments))
    return out


def card_like(txns: Sequence[Txn], authorized_apart: Container[str]) -> bool:
    """Card charges keep their day (weekends included) and post apart from their authorization
    (``authorized_apart``: the ids of those that did, whichever clock is read); ACH debits
    settle on business days and post the same day."""
    return any(t.txn_id in authorized_apart for t in txns) or any(not is_business_day(charge_day(t)) for t in txns)


def merchant_charges(txns: Sequence[Txn], *, reports_authorization: bool) -> bool:
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
        return not (is_bill_charge(txn) and is_ach_debit_line(txn.name))
    categorised = bool(txn.pfc_detailed or txn.category)
    return not reports_authorization and categorised and not is_bill_charge(txn) and not is_ach_debit_line(txn.name)


def worth_fitting(candidate: Candidate, group: Sequence[Txn], repeated: Container[str]) -> bool:
    """Whether the candidate could pass at all (the fit is the costly part): three charge days,
    or two when the payee charged nothing else since but amounts it charges again (``repeated``:
    maybe another bill; see ``_twice_seen``); a price change at a shop only between two fixed
    prices (a shop's baskets fall into amount levels two and two, and every pair of them would be
    fitted); a varying amount only as a bill or a card's autopay."""
    days = len({charge_day(t) for t in candidate.txns})
    if days < DEFAULT_MIN_CHARGES and (days < 2 or busy_payee(candidate, group, since_first=True, bills=repeated)):
        return False
    habit = is_everyday(candidate.txns) and not is_membership(candidate, group, repeated)
    if days < BUSY_MIN_CHARGES and (habit or busy_payee(candidate, group, bills=repeated)):
        return False  # where chance alignments are likely, four charges are needed (_chance_ruled_out)
    if (
        len(candidate.segments) > 1
        and not identical_prices(candidate, candidate.txns)
        and busy_payee(candidate, group, bills=repeated)
    ):
        return False  # at a shop, a price change is read between two fixed prices only (_chance_ruled_out)
    if is_everyday(candidate.txns) and not _could_keep_a_day(candidate.txns):
        return False
    if candidate.segments:
        return True
    if kind_of(candidate.txns) is Kind.CARD_PAYMENT:
        return True
    amounts = [t.amount for t in candidate.txns]
    return mostly_bills(candidate.txns) and max(amounts) <= VARIABLE_SPREAD * min(amounts)


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


def is_membership(candidate: Candidate, group: Sequence[Txn], bills: Container[str]) -> bool:
    """A plan at an everyday merchant (a ride-share or a delivery membership, a transit pass):
    one fixed price, and nothing else charged at the payee since its first charge. Everyday
    spending there would be other charges, at other amounts; the membership's own rides or
    orders, when Plaid names them another merchant, are not the payee's. A haircut is paid per
    visit: its fixed price every four or five weeks is a habit, not a plan."""
    txns = candidate.txns
    if any(t.pfc_detailed and t.pfc_detailed.startswith(PER_VISIT_PFC_PREFIXES) for t in txns):
        return False
    return len({t.amount for t in txns}) == 1 and not busy_payee(candidate, group, since_first=True, bills=bills)


def busy_payee(
    candidate: Candidate,
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


def identical_prices(candidate: Candidate, matched: Sequence[Txn]) -> bool:
    """Every price level charged the very same amount each time (a plan price, not a basket)."""
    on = {t.txn_id for t in matched}
    return all(len({t.amount for t in segment if t.txn_id in on}) <= 1 for segment in candidate.segments)
