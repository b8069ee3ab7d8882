"""A user's cash-flow forecast as the service computes it: the rows it already has, the pure model.

:func:`user_forecast` reads, each once, and only what the forecast needs:

* the user's items (one strongly consistent Query of the plaid table, P03): which are REMOVED,
  and the main account the user designated (the balance alert's, :func:`pick_main_account`);
* the user's accounts (one Query of the transactions table, T09) with their stored balances;
* the retained transactions (one GSI1 Query, T34: the 120 days ending today that every insight
  model reads, :mod:`history`), given the items and accounts just read;
* the alert threshold (one GetItem of ``user-balance-settings``, S01);
* the bills as ``GET .../transactions/expenses`` finds them: Pave's newest mine when it is
  fresh (the ``insights`` Query, Limit 1, then that mine's ``recurring`` Query); otherwise the
  forecast runs the service's own detector on the history already read.

The balance alert's path passes the rows and threshold it has read (then they are not read
again). Accounts of REMOVED items do not count, nor do accounts in another currency.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from chalicelib.data import accounts, items
from chalicelib.data.accounts import Account
from chalicelib.data.items import Item, ItemStatus
from chalicelib.insight import expenses, history
from chalicelib.insight.balance_alerts import pick_main_account
from chalicelib.insight.data.balance_settings import low_balance_threshold
from chalicelib.insight.forecast import DEFAULT_DAYS, Bill, Forecast, bill_of, forecast_txns


@dataclass(frozen=True)
class UserForecast:
    user_id: str
    forecast: Forecast
    #: Who found the bills: ``pave`` (its newest mine) or ``ours`` (the service's detector).
    bills_source: str


@dataclass(frozen=True)
class KnownRows:
    """What a caller has already read for the user: then it is not read again."""

    items: Sequence[Item]
    accounts: Sequence[Account]
    #: Cents; None = alerts off.
    threshold: int | None


def account_inputs(user_accounts: Sequence[Account], user_items: Sequence[Item]) -> list[dict[str, object]]:
    """The accounts as the forecast takes them: of items that are not REMOVED, in US dollars, each
    balance in integer cents when the bank reported it (None when it did not)."""
    removed = {i.item_id for i in user_items if i.status is ItemStatus.REMOVED}
    out: list[dict[str, object]] = []
    for account in user_accounts:
        balances = account.balances
        if account.item_id in removed or (balances.iso_currency_code or "USD") != "USD":
            continue
        out.append(
            {
                "account_id": account.acct_id,
                "type": account.type,
                "subtype": account.subtype,
                "available": balances.available if balances.available_reported is True else None,
                "current": balances.current if balances.current_reported is True else None,
            }
        )
    return out


def user_forecast(
    user_id: str, now: datetime, days: int = DEFAULT_DAYS, *, known: KnownRows | None = None
) -> UserForecast:
    """The user's forecast for ``days`` days after today (UTC) (see the module docstring)."""
    as_of = now.astimezone(UTC).date()
    if known is None:
        user_items = items.list_items(user_id)
        known = KnownRows(user_items, accounts.list_accounts(user_id), low_balance_threshold(user_id))
    txns = history.model_txns(user_id, as_of, user_items=known.items, user_accounts=known.accounts)
    pave = expenses.pave_expenses(user_id, now)
    bills: list[Bill] | None = [bill_of(e, "pave") for e in pave.expenses] if pave is not None else None
    owner = pick_main_account(known.items)
    answer = forecast_txns(
        txns,
        account_inputs(known.accounts, known.items),
        as_of,
        days,
        known.threshold,
        bills=bills,
        main_account_id=owner.main_account_id if owner else None,
    )
    return UserForecast(user_id, answer, "pave" if pave is not None else "ours")
