"""Balances on demand: the live refresh from Plaid, and the QA seed of balance history.

The live refresh calls ``/accounts/balance/get`` (slow, billed per call) for one item or
every live item of the user and rewrites what the refiner would have written from the same
data: the ACCOUNT rows and today's BALANCE rows, then announces the balance update to the
insight service like the refiner. Rewriting is idempotent (same keys). When
refreshing all items, an item Plaid refuses (login required...) is reported in
``failed_items`` and the others still refresh; a single-item refresh fails with the error.

The QA seed (never in prod) writes BALANCE rows for the last ``days`` days of the user's
accounts with both reported flags true and a 30-day ttl, from the account's amounts or
the ones given.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from typing import Any

from chalicelib.api.errors import NotAvailableError
from chalicelib.data import accounts, balances, items
from chalicelib.data.accounts import Account, Balances
from chalicelib.data.items import Item, ItemStatus
from chalicelib.errors import NotFoundError
from chalicelib.insight import balance_updates
from chalicelib.insight.balance_updates import BalanceUpdateSource
from chalicelib.observability import logger
from chalicelib.pipeline.refine import UnconvertibleRecordError, refine_account
from chalicelib.plaid.client import get_plaid
from chalicelib.plaid.errors import PlaidError
from chalicelib.settings import get_settings


class AccountNotFoundError(NotFoundError):
    """The user has no such account."""


@dataclass
class Refreshed:
    accounts: list[Account] = field(default_factory=list)
    failed_items: list[dict[str, Any]] = field(default_factory=list)


def refresh_balances(user_id: str, item_id: str | None, now: datetime) -> Refreshed:
    """Live balances for one item (errors raise) or for every live item (errors reported)."""
    result = Refreshed()
    if item_id is not None:
        item = items.get_item(user_id, item_id)
        if item is None:
            raise items.ItemNotFoundError(f"item {item_id} not found")
        if item.status is ItemStatus.REMOVED:
            raise items.ItemRemovedError(f"item {item_id} is removed")
        result.accounts += _refresh_item(item, now)
        return result
    for item in items.list_items(user_id):
        if item.status is ItemStatus.REMOVED:
            continue
        try:
            result.accounts += _refresh_item(item, now)
        except PlaidError as exc:
            result.failed_items.append({"item_id": item.item_id, "error_code": exc.error_code or type(exc).__name__})
    return result


def _refresh_item(item: Item, now: datetime) -> list[Account]:
    response = get_plaid().accounts_balance_get(item.access_token)
    refreshed: list[Account] = []
    for raw in response.get("accounts") or []:
        try:
            account = refine_account(item.user_id, item.item_id, raw)
        except UnconvertibleRecordError:
            logger.warning("live balance account skipped: not convertible", extra={"item_id": item.item_id})
            continue
        if account is not None:
            refreshed.append(account)
    accounts.put_account_items(accounts.account_item(a, now) for a in refreshed)
    balances.put_balance_items(balances.balance_item(a, now.date(), now) for a in refreshed)
    if refreshed:
        balance_updates.announce(item.user_id, BalanceUpdateSource.BALANCE_REFRESH, item_id=item.item_id, now=now)
    return refreshed


@dataclass(frozen=True)
class QaSeed:
    account_ids: list[str]
    start_date: date
    end_date: date
    rows_written: int


def seed_qa_balances(
    user_id: str,
    account_id: str | None,
    days: int,
    available: int | None,
    current: int | None,
    now: datetime,
) -> QaSeed:
    """BALANCE rows for the last ``days`` days (QA only; 404 in prod)."""
    if not get_settings().enable_qa_seed:
        raise NotAvailableError("the QA balance seed is not available in this stage")
    found = accounts.list_accounts(user_id)
    if account_id is not None:
        found = [a for a in found if a.acct_id == account_id]
        if not found:
            raise AccountNotFoundError(f"account {account_id} not found")
    end = now.date()
    start = end - timedelta(days=days - 1)
    rows = [
        balances.balance_item(_with_amounts(account, available, current), start + timedelta(days=n), now, qa=True)
        for account in found
        for n in range(days)
    ]
    written = balances.put_balance_items(rows)
    return QaSeed([a.acct_id for a in found], start, end, written)


def _with_amounts(account: Account, available: int | None, current: int | None) -> Account:
    held = account.balances
    return replace(
        account,
        balances=Balances(
            available=held.available if available is None else available,
            current=held.current if current is None else current,
            limit=held.limit,
            iso_currency_code=held.iso_currency_code,
        ),
    )
