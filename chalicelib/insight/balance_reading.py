"""Which stored balance of an account the insight service reads: available, else current.

Plaid may report ``available`` or ``current`` as null; the refiner then stores 0 with
``bal_available_reported`` / ``bal_current_reported`` false. The amount a user can rely on
is ``available`` when the bank reported it and ``current`` when only that was reported.
Rows written before the flags existed say neither (``None``): their amounts cannot be told
from a stored 0, so they give no reading rather than a guess.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from chalicelib.data.accounts import Balances


class BalanceSource(StrEnum):
    AVAILABLE = "available"
    CURRENT = "current"


@dataclass(frozen=True)
class Reading:
    #: Cents.
    amount: int
    source: BalanceSource


def spendable(balances: Balances) -> Reading | None:
    """``available`` when reported, else ``current`` when reported, else ``None`` (pure)."""
    if balances.available_reported is True:
        return Reading(balances.available, BalanceSource.AVAILABLE)
    if balances.current_reported is True:
        return Reading(balances.current, BalanceSource.CURRENT)
    return None
