"""Money that moves with payday: another app's advance before it, collected on it.

Another cash-advance app lends a user money a business day or three before payday and collects
it the day the paycheck lands; a standing transfer may move part of the pay that day. Smeared
into the daily rates, such flows would land a share of themselves on every day of the cycle:
the collection would take a share from the days before payday, the days the balance is lowest,
and the advance would hold the balance up on days it has not come yet. So a flow tied to
payday is projected on the paydays instead, at its lead.

A payee's debits, or its deposits (any but the predicted payer's), are *tied to payday* when at
least ``MIN_PAYDAYS`` of their days are the same number of business days (the *lead*, 0 to
``MAX_LEAD``) before a day the payer's deposits landed, and those days are at least
``TIED_SHARE`` of the payee's days in that direction (a shop visited on paydays and on other
days stays everyday spending), and one of them leads one of the last two paydays (it still
runs). Each projected payday brings one of the amounts it brought on the payer's last
``PAYDAYS`` paydays since its first, a payday without one counting as 0: a flow on four paydays
in five is drawn four times in five, and the expected path takes their mean. A flow on payday
itself moves with the paycheck (a paycheck a day late is collected a day late); one before it
comes its lead before the predicted payday.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import date

from chalicelib.insight.calendar import add_business_days
from chalicelib.insight.transactions import Txn, stream_key

MIN_PAYDAYS = 3
TIED_SHARE = 0.75
#: The most business days before payday a flow may lead it by, and the calendar days they span
#: at most (a weekend and a holiday between).
MAX_LEAD = 3
LEAD_DAYS = MAX_LEAD + 3
#: The paydays a flow's amounts are read from (the latest).
PAYDAYS = 6


@dataclass(frozen=True, slots=True)
class PaydayFlow:
    name: str
    #: Business days before payday (0: on payday).
    lead: int
    #: Cents on each of the latest paydays since its first, the transactions' sign (a deposit
    #: negative; 0: none that payday).
    amounts: tuple[int, ...]
    #: Its transactions tied to paydays (not everyday money).
    ids: frozenset[str]

    @property
    def expected(self) -> float:
        return statistics.fmean(self.amounts)

    @property
    def kind(self) -> str:
        return "payday_deposit" if self.expected < 0 else "payday_debit"

    def day(self, payday: date) -> date:
        """The day it comes for ``payday``."""
        return add_business_days(payday, -self.lead)


def tied_to_payday(txns: Sequence[Txn], paydays: Collection[date], excluded: Collection[str]) -> list[PaydayFlow]:
    """The account's flows tied to payday (see the module docstring); ``txns``: its visible ones,
    ``paydays``: the days the predicted payer's deposits landed in it."""
    landed = sorted(set(paydays))
    if len(landed) < MIN_PAYDAYS:
        return []
    # Each day within MAX_LEAD business days before a payday: (payday, lead).
    led: dict[date, list[tuple[date, int]]] = defaultdict(list)
    for payday in landed:
        for lead in range(MAX_LEAD + 1):
            led[add_business_days(payday, -lead)].append((payday, lead))
    groups: dict[tuple[str, bool], list[Txn]] = defaultdict(list)
    for t in txns:
        if t.amount and not t.pending and t.txn_id not in excluded:
            groups[(stream_key(t), t.amount < 0)].append(t)
    found: list[PaydayFlow] = []
    for (name, _), group in sorted(groups.items()):
        days = {t.day for t in group}
        leads = Counter(lead for day in days for _, lead in led.get(day, ()))
        if not leads:
            continue
        lead, count = min(leads.items(), key=lambda item: (-item[1], item[0]))
        tied = {payday: day for day in days for payday, at in led.get(day, ()) if at == lead}
        if count < MIN_PAYDAYS or count < TIED_SHARE * len(days) or max(tied) < landed[-2]:
            continue
        by_day: dict[date, int] = defaultdict(int)
        for t in group:
            by_day[t.day] += t.amount
        recent = [payday for payday in landed if payday >= min(tied)][-PAYDAYS:]
        tied_days = set(tied.values())
        found.append(
            PaydayFlow(
                name=name.title(),
                lead=lead,
                amounts=tuple(by_day[tied[payday]] if payday in tied else 0 for payday in recent),
                ids=frozenset(t.txn_id for t in group if t.day in tied_days),
            )
        )
    return found
