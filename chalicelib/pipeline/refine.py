"""Refining Plaid data into rows: pure functions, no I/O.

A transactions response becomes ACCOUNT and BALANCE rows (one per account; accounts in an
unknown currency are skipped, and their transactions with them: a crypto account's rows cannot
be stored as cents) and TRANSACTION rows. Any other transaction that cannot be converted
(null, bad date, unknown currency, bad amount) makes the whole record unconvertible:
:class:`UnconvertibleRecordError`, which the refiner logs and skips (retrying cannot fix Plaid's data).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from chalicelib.data.accounts import Account, Balances
from chalicelib.data.money import dollars_to_cents
from chalicelib.data.transactions import UNCATEGORIZED, Transaction
from chalicelib.errors import ServiceError, ValidationError
from chalicelib.pipeline.currencies import is_known_currency


class UnconvertibleRecordError(ServiceError):
    """Plaid data that cannot become rows; retrying the record cannot help."""


@dataclass(frozen=True)
class RefinedPage:
    accounts: list[Account]
    transactions: list[Transaction]
    skipped_accounts: list[str]


def refine_page(user_id: str, item_id: str, response: Mapping[str, Any]) -> RefinedPage:
    """Accounts and transactions of one transactions page (pure)."""
    accounts: list[Account] = []
    skipped: list[str] = []
    for raw in response.get("accounts") or []:
        account = refine_account(user_id, item_id, raw)
        if account is None:
            skipped.append(str(raw.get("account_id", "")) if isinstance(raw, Mapping) else "")
        else:
            accounts.append(account)
    skipped_ids = set(skipped)
    txns = [
        refine_transaction(user_id, raw, item_id)
        for raw in response.get("transactions") or []
        if not (isinstance(raw, Mapping) and raw.get("account_id") in skipped_ids)
    ]
    return RefinedPage(accounts, txns, skipped)


def _cents_or_none(value: Any, what: str) -> int | None:
    if value is None:
        return None
    try:
        return dollars_to_cents(value)
    except ValidationError as exc:
        raise UnconvertibleRecordError(f"bad {what}: {value!r}") from exc


def refine_balances(raw: Mapping[str, Any]) -> Balances:
    available = _cents_or_none(raw.get("available"), "available balance")
    current = _cents_or_none(raw.get("current"), "current balance")
    return Balances(
        available=available or 0,
        current=current or 0,
        limit=_cents_or_none(raw.get("limit"), "limit"),
        available_reported=available is not None,
        current_reported=current is not None,
        iso_currency_code=raw.get("iso_currency_code"),
    )


def refine_account(user_id: str, item_id: str, raw: Any) -> Account | None:
    """An account, or None when its currency is unknown (such accounts are skipped)."""
    if not isinstance(raw, Mapping) or not raw.get("account_id"):
        raise UnconvertibleRecordError("account without an account_id")
    balances_raw = raw.get("balances") or {}
    if not is_known_currency(balances_raw.get("iso_currency_code")):
        return None
    updated = balances_raw.get("last_updated_datetime")
    return Account(
        user_id=user_id,
        item_id=item_id,
        acct_id=str(raw["account_id"]),
        name=str(raw.get("name") or ""),
        type=str(raw.get("type") or ""),
        balances=refine_balances(balances_raw),
        subtype=raw.get("subtype"),
        mask=raw.get("mask"),
        official_name=raw.get("official_name"),
        updated_at=str(updated) if updated else None,
    )


def balance_day(account: Account, now: datetime) -> date:
    """The calendar day a balance belongs to: Plaid's update time, else today (UTC)."""
    if account.updated_at:
        try:
            return datetime.fromisoformat(account.updated_at.replace("Z", "+00:00")).date()
        except ValueError:
            pass
    return now.date()


def _date(value: Any, what: str) -> date:
    try:
        return date.fromisoformat(str(value))
    except (TypeError, ValueError) as exc:
        raise UnconvertibleRecordError(f"bad {what}: {value!r}") from exc


def refine_transaction(user_id: str, raw: Any, item_id: str | None = None) -> Transaction:
    if not isinstance(raw, Mapping):
        raise UnconvertibleRecordError("null transaction")
    txn_id, acct_id = raw.get("transaction_id"), raw.get("account_id")
    if not txn_id or not acct_id:
        raise UnconvertibleRecordError("transaction without transaction_id or account_id")
    currency = raw.get("iso_currency_code")
    if not is_known_currency(currency):
        raise UnconvertibleRecordError(f"transaction {txn_id} has unknown currency {currency!r}")
    amount = _cents_or_none(raw.get("amount"), "amount")
    if amount is None:
        raise UnconvertibleRecordError(f"transaction {txn_id} has no amount")
    authorized = raw.get("authorized_date")
    pfc = raw.get("personal_finance_category")
    counterparty_logo = raw.get("logo_url")
    return Transaction(
        user_id=user_id,
        acct_id=str(acct_id),
        txn_id=str(txn_id),
        amount=amount,
        txn_date=_date(raw.get("date"), "date"),
        name=str(raw.get("name") or ""),
        pending=bool(raw.get("pending", False)),
        category_id=str(raw.get("category_id") or UNCATEGORIZED),
        category=tuple(str(c) for c in (raw.get("category") or ())),
        authorized_date=_date(authorized, "authorized_date") if authorized else None,
        authorized_datetime=raw.get("authorized_datetime"),
        merchant_name=raw.get("merchant_name"),
        original_description=raw.get("original_description"),
        pending_transaction_id=raw.get("pending_transaction_id"),
        personal_finance_category=dict(pfc) if isinstance(pfc, Mapping) else None,
        iso_currency_code=str(currency),
        merchant_logo_url=counterparty_logo,
        merchant_website=raw.get("website"),
        item_id=item_id,
    )


def transaction_ids(response: Mapping[str, Any]) -> Sequence[str]:
    return [str(t["transaction_id"]) for t in response.get("transactions") or [] if isinstance(t, Mapping)]
