"""Pave's payday estimate, as the Pave miner cached it: the input of ``PAVE_PAYDAY_CALCULATION``.

The payday endpoint hands the chain :func:`chain_input` (built from :func:`latest`, the one
reader of the cached estimate); the chain decides for itself whether it is usable (a
``next_payday`` on or before the day it predicts for is stale). It reads one row
(``USERS#<user_id>`` / ``INCOME#<user_id>``, strongly consistent), which each Pave mine
replaces unless a newer mine already wrote it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from chalicelib.insight.data import incomes
from chalicelib.insight.payday import PaveIncome


@dataclass(frozen=True)
class PavePayday:
    """Pave's estimate of the user's next payday. Amounts are positive integer cents."""

    user_id: str
    next_payday: date
    #: Pave's cadence of the primary income (``WEEKLY``, ``BIWEEKLY``, ``SEMI_MONTHLY``,
    #: ``MONTHLY``, ... as :class:`chalicelib.peers.pave.Frequency` names), None when Pave gave none.
    frequency: str | None
    #: The payer of the primary income (Pave's normalized name).
    source: str | None
    #: A typical payment of the primary income.
    amount: int | None
    monthly_income: int | None
    #: The mine the estimate came from (the instant of the upload it reflects); None when the
    #: row does not say (a row of the previous system).
    mined_at: datetime | None


def latest(user_id: str) -> PavePayday | None:
    """The user's latest Pave payday estimate; None when Pave has no income insight or no payday."""
    income = incomes.get_income(user_id)
    if income is None or income.next_payday is None:
        return None
    return PavePayday(
        user_id=user_id,
        next_payday=income.next_payday,
        frequency=income.frequency,
        source=income.source,
        amount=income.amount,
        monthly_income=income.monthly_income,
        mined_at=income.last_mine or income.updated_date,
    )


def chain_input(user_id: str) -> PaveIncome | None:
    """:func:`latest` as ``PAVE_PAYDAY_CALCULATION``'s input; None when Pave has no payday."""
    estimate = latest(user_id)
    if estimate is None:
        return None
    return PaveIncome(next_date=estimate.next_payday, cadence=estimate.frequency, source=estimate.source)
