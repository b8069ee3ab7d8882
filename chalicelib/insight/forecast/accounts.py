"""The accounts a forecast reads, and the one it projects.

Accounts are plain dicts: ``account_id``, ``type``, ``subtype``, and ``available`` and
``current`` in integer cents as of the forecast's day (either may be None when the bank did
not report it). The balance projected is ``available`` when reported, else ``current``: what
the user can spend, as the balance alert reads it.

**Which account** (the *main checking account*), in this order:

1. the account the service designates as the user's main one (``main_account_id``), when it
   is one of the accounts and a spending account;
2. else the spending account where payroll lands: the most payroll deposits (by amount) of
   the payday model's candidates over the last 60 days;
3. else the spending account with the most transactions in the history (the most active).

A *spending account* is a depository account that is not savings-like (savings, money
market, CD, HSA, ...): checking, prepaid, cash management, an account of no subtype.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from enum import StrEnum
from typing import Any

from chalicelib.errors import ValidationError
from chalicelib.insight.transactions import Txn

#: Depository subtypes that hold savings or restricted money, not spending money.
_NOT_SPENDING = frozenset({"savings", "money market", "cd", "hsa", "ira", "401k", "education savings account"})
#: Payroll over this many days decides where payroll lands.
PAYROLL_LOOKBACK_DAYS = 60


class InvalidAccountError(ValidationError):
    """An account handed to the forecast does not follow the input contract."""


class AccountRule(StrEnum):
    """Why the forecast projects the account it does."""

    DESIGNATED = "designated_main_account"
    PAYROLL = "payroll_lands_here"
    MOST_ACTIVE = "most_active_checking"


@dataclass(frozen=True, slots=True)
class AccountBalance:
    account_id: str
    type: str
    subtype: str | None
    available: int | None
    current: int | None

    @property
    def spending(self) -> bool:
        return self.type.lower() == "depository" and (self.subtype or "").lower() not in _NOT_SPENDING

    @property
    def balance(self) -> tuple[int, str] | None:
        """The balance to project and which one it is; None when the bank reported neither."""
        if self.available is not None:
            return self.available, "available"
        if self.current is not None:
            return self.current, "current"
        return None


def _cents(raw: Mapping[str, Any], field: str, account_id: str) -> int | None:
    value = raw.get(field)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidAccountError(f"account {account_id}: {field} must be integer cents or null, got {value!r}")
    return value


def parse_accounts(accounts: Iterable[Mapping[str, Any]]) -> list[AccountBalance]:
    out: list[AccountBalance] = []
    for raw in accounts:
        account_id = raw.get("account_id")
        if not isinstance(account_id, str) or not account_id:
            raise InvalidAccountError(f"account without an account_id: {raw!r}")
        subtype = raw.get("subtype")
        out.append(
            AccountBalance(
                account_id=account_id,
                type=str(raw.get("type") or ""),
                subtype=str(subtype) if subtype else None,
                available=_cents(raw, "available", account_id),
                current=_cents(raw, "current", account_id),
            )
        )
    return out


@dataclass(frozen=True, slots=True)
class Choice:
    account: AccountBalance
    rule: AccountRule


def choose(
    accounts: Sequence[AccountBalance],
    txns: Sequence[Txn],
    payroll: Sequence[Txn],
    as_of: date,
    main_account_id: str | None = None,
) -> Choice | None:
    """The account to project (see the module docstring); None when the user has no spending account."""
    spending = [a for a in accounts if a.spending]
    if not spending:
        return None
    by_id = {a.account_id: a for a in spending}
    if main_account_id in by_id:
        return Choice(by_id[main_account_id], AccountRule.DESIGNATED)
    since = as_of - timedelta(days=PAYROLL_LOOKBACK_DAYS)
    paid: Counter[str] = Counter()
    for t in payroll:
        if t.account_id in by_id and t.day > since and t.amount < 0:
            paid[t.account_id] -= t.amount
    if paid:
        best = max(paid, key=lambda a: (paid[a], a))
        return Choice(by_id[best], AccountRule.PAYROLL)
    active = Counter(t.account_id for t in txns if t.account_id in by_id)
    busiest = max(spending, key=lambda a: (active[a.account_id], a.account_id))
    return Choice(busiest, AccountRule.MOST_ACTIVE)
