"""Everyday money: what the projected account spends and receives day to day, from its own history.

Read from the account's settled transactions of the last ``WINDOW_DAYS`` (all of them when the
history is shorter), without the predicted payer's deposits and the projected bills' charges
(those are events of their own), and without one-off large amounts:

* **one-off large**: an amount (either way) above ``LARGE_MULTIPLE`` times the 90th percentile
  of the account's everyday purchases, and at least ``LARGE_FLOOR_CENTS``, that its payee did
  not move at a similar amount (within a third) at another time in the window: a laptop, a
  car repair, money from a friend. Nothing says one comes on a given day, so none is in the
  rates; the simulation may draw one, with the day it came on (below). A tax refund, which
  comes once a year, is left out altogether.

What is left is split in two:

* **everyday spending**: outflows that are not transfers; its daily rate has a weekday
  pattern: the mean of each weekday's days, shrunk toward the overall mean by ``SHRINK_DAYS``
  days' worth (a weekday seen eight times has eight of its own days and four of the average);
* **other flows**: transfers (to savings, card payments, cash, P2P), deposits of other payers,
  refunds: a flat daily rate of their net.

The simulation draws each future day's deviation from its expected flow from the history's
own days (the *residuals*: each day's actual flow, one-offs included, minus what the rates
expect for it), so a heavy-tailed spender's uncertainty is heavy-tailed too.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache

from chalicelib.insight.transactions import Txn, stream_key

#: Days of history the rates read.
WINDOW_DAYS = 84
#: A weekday's rate is shrunk toward the overall one by this many days of it.
SHRINK_DAYS = 4
LARGE_MULTIPLE = 3.0
LARGE_FLOOR_CENTS = 100_00
#: Same payee, an amount within this share: not a one-off.
SIMILAR = 1 / 3
_TRANSFER_PRIMARIES = frozenset({"TRANSFER_IN", "TRANSFER_OUT", "BANK_FEES"})
_TRANSFER_DETAILED = frozenset({"LOAN_PAYMENTS_CREDIT_CARD_PAYMENT"})
_TRANSFER_WORDS = ("TRANSFER", "XFER", "ZELLE", "VENMO", "CASH APP", "PAYPAL", "ATM", "AUTOPAY", "CARD PAYMENT")


@dataclass(frozen=True, slots=True)
class DailyFlows:
    """Rates are cents per day, positive = money out (the transactions' sign)."""

    first_day: date
    window_days: int
    #: Everyday spending by weekday, Monday first.
    weekday_spending: tuple[float, ...]
    other_rate: float
    #: Each window day's flow minus what the rates expect for it.
    residuals: tuple[float, ...]
    #: One-off large amounts left out of the rates.
    one_offs: tuple[Txn, ...]

    @property
    def spending_rate(self) -> float:
        return statistics.fmean(self.weekday_spending)

    def expected(self, day: date) -> float:
        """The expected flow of ``day`` (cents out)."""
        return self.weekday_spending[day.weekday()] + self.other_rate


def is_tax_refund(txn: Txn) -> bool:
    """A tax refund comes once a year: it says nothing about the weeks ahead."""
    return txn.pfc_detailed == "INCOME_TAX_REFUND" or "TAX REF" in txn.name.upper()


def is_transfer(txn: Txn) -> bool:
    """Money that moves between accounts or people rather than buying something."""
    if txn.pfc_primary in _TRANSFER_PRIMARIES or txn.pfc_detailed in _TRANSFER_DETAILED:
        return True
    if txn.category[:1] == ("Transfer",) or txn.category[:2] == ("Payment", "Credit Card"):
        return True
    return _transfer_line(txn.name)


@lru_cache(maxsize=4096)
def _transfer_line(name: str) -> bool:
    """(A user's statement lines repeat, and the forecast asks of each more than once: each
    line is read once.)"""
    line = name.upper()
    return any(word in line for word in _TRANSFER_WORDS)


def _quantile(values: Sequence[int], q: float) -> float:
    ordered = sorted(values)
    return float(ordered[min(len(ordered) - 1, int(q * len(ordered)))]) if ordered else 0.0


def one_offs(txns: Sequence[Txn]) -> list[Txn]:
    """The one-off large amounts among ``txns`` (see the module docstring)."""
    purchases = [t.amount for t in txns if t.amount > 0 and not is_transfer(t)]
    limit = max(LARGE_FLOOR_CENTS, LARGE_MULTIPLE * _quantile(purchases, 0.9))
    by_payee: dict[str, list[Txn]] = defaultdict(list)
    for t in txns:
        by_payee[stream_key(t)].append(t)
    out = []
    for t in txns:
        if t.cents <= limit:
            continue
        similar = [
            o
            for o in by_payee[stream_key(t)]
            if o is not t and (o.amount > 0) == (t.amount > 0) and abs(o.cents - t.cents) <= SIMILAR * t.cents
        ]
        if not similar:
            out.append(t)
    return out


def daily_flows(txns: Sequence[Txn], history_start: date, as_of: date, excluded: Collection[str]) -> DailyFlows:
    """The account's everyday money (see the module docstring); ``txns`` are the account's visible ones."""
    first = max(history_start, as_of - timedelta(days=WINDOW_DAYS - 1))
    days = (as_of - first).days + 1
    window = [t for t in txns if first <= t.day <= as_of and t.txn_id not in excluded and not is_tax_refund(t)]
    large = one_offs(window)
    left_out = {t.txn_id for t in large}
    spent = [0.0] * days
    other = [0.0] * days
    surprises = [0.0] * days
    for t in window:
        index = (t.day - first).days
        if t.txn_id in left_out:
            surprises[index] += t.amount
        elif t.amount > 0 and not is_transfer(t):
            spent[index] += t.amount
        else:
            other[index] += t.amount
    overall = statistics.fmean(spent)
    sums, counts = [0.0] * 7, [0] * 7
    for index, cents in enumerate(spent):
        weekday = (first + timedelta(days=index)).weekday()
        sums[weekday] += cents
        counts[weekday] += 1
    weekday_rates = tuple((sums[w] + SHRINK_DAYS * overall) / (counts[w] + SHRINK_DAYS) for w in range(7))
    other_rate = statistics.fmean(other)
    flows = DailyFlows(first, days, weekday_rates, other_rate, (), tuple(large))
    residuals = tuple(
        spent[i] + other[i] + surprises[i] - flows.expected(first + timedelta(days=i)) for i in range(days)
    )
    return DailyFlows(first, days, weekday_rates, other_rate, residuals, tuple(large))
