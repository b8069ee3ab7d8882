"""Savings progress: one ``balance`` row per user per calendar month, kept current from new balances.

**What counts as savings.** A *depository* account whose subtype is ``savings``,
``money market`` or ``cd`` (certificate of deposit), in US dollars (a stored account without
a currency code counts as dollars; other currencies are left out rather than added to
dollars), of an item that is not REMOVED. Checking, prepaid, cash management, PayPal, HSA
and EBT accounts are spending or restricted-purpose money, and credit, loan and investment
accounts are not deposits, so none of them counts. An account's amount is its ``available``
balance when the bank reported it, else its ``current`` one (:mod:`balance_reading`); an
account reporting neither is left out.

**When.** Every balance update (:mod:`balance_updates`) recomputes the month of *now* (UTC)
from the stored ACCOUNT and ITEM rows, read strongly consistent after the instant ``now``
was taken. That instant is the row's ``updated_date``, and a write replaces the row only
if its ``updated_date`` is no newer (:func:`chalicelib.insight.data.savings.put_savings_month`).
So an older computation never overwrites a newer one, and because every change to the rows
is followed by its own update message, the computation that runs last reads them all. A
month's row therefore holds the savings as last seen during that month; a month the service
saw no balances in has no row.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from chalicelib.data import accounts, items
from chalicelib.data.accounts import Account
from chalicelib.data.items import Item, ItemStatus
from chalicelib.insight.balance_reading import spendable
from chalicelib.insight.data import savings as savings_rows
from chalicelib.insight.data.savings import SavingsAccount, SavingsMonth, month_before
from chalicelib.observability import logger

DEPOSITORY = "depository"
SAVINGS_SUBTYPES = frozenset({"savings", "money market", "cd"})
DOLLARS = "USD"
#: The API shows the current month and the two before it.
HISTORY_MONTHS = 3


def month_of(moment: datetime) -> str:
    """The ``YYYY-MM`` calendar month (UTC) of ``moment``."""
    return f"{moment.year:04d}-{moment.month:02d}"


def is_savings(account: Account) -> bool:
    """A dollar deposit account of a savings subtype (see the module docstring)."""
    currency = account.balances.iso_currency_code
    return (
        account.type.lower() == DEPOSITORY
        and (account.subtype or "").lower() in SAVINGS_SUBTYPES
        and currency in (None, DOLLARS)
    )


def savings_snapshot(
    user_id: str, user_accounts: Iterable[Account], user_items: Iterable[Item], now: datetime
) -> SavingsMonth:
    """The month of ``now`` as the given rows describe it (pure)."""
    live = {i.item_id for i in user_items if i.status is not ItemStatus.REMOVED}
    counted: list[SavingsAccount] = []
    for account in sorted(user_accounts, key=lambda a: a.acct_id):
        if not is_savings(account) or account.item_id not in live:
            continue
        reading = spendable(account.balances)
        if reading is None:
            logger.info("savings account without a reported balance left out", extra={"account_id": account.acct_id})
            continue
        counted.append(SavingsAccount(account.acct_id, reading.amount, account.subtype))
    return SavingsMonth(
        user_id=user_id,
        month=month_of(now),
        accounts=tuple(counted),
        total_available=sum(a.amount for a in counted),
        updated_date=now,
    )


@dataclass(frozen=True)
class SavingsUpdate:
    month: SavingsMonth
    #: False when a computation that started later had already written the month.
    written: bool


def update_savings(
    user_id: str,
    now: datetime,
    user_accounts: Sequence[Account] | None = None,
    user_items: Sequence[Item] | None = None,
) -> SavingsUpdate:
    """Recompute the user's month of ``now`` from the stored rows and write it (idempotent).

    ``now`` must be taken before the rows are read (strongly consistent; pass them if the
    caller has just read them), so a computation that read older rows never carries a newer
    ``updated_date``.
    """
    if user_accounts is None:
        user_accounts = accounts.list_accounts(user_id, consistent=True)
    if user_items is None:
        user_items = items.list_items(user_id)
    snapshot = savings_snapshot(user_id, user_accounts, user_items, now)
    return SavingsUpdate(snapshot, savings_rows.put_savings_month(snapshot))


@dataclass(frozen=True)
class MonthOfSavings:
    #: ``YYYY-MM``.
    month: str
    #: None when the service saw no balances of the user that month.
    snapshot: SavingsMonth | None


def savings_history(user_id: str, now: datetime, months: int = HISTORY_MONTHS) -> Sequence[MonthOfSavings]:
    """The month of ``now`` and the ``months - 1`` before it, oldest first (one Query)."""
    current = month_of(now)
    stored = {m.month: m for m in savings_rows.recent_savings_months(user_id, current, months)}
    wanted = [month_before(current, back) for back in range(months - 1, -1, -1)]
    return [MonthOfSavings(month, stored.get(month)) for month in wanted]
