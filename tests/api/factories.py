"""Rows for API tests, written through the data layer exactly as the pipeline writes them."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from chalicelib.data import accounts, items, tables, transactions
from chalicelib.data.accounts import Account, Balances
from chalicelib.data.transactions import Transaction
from tests.factories import uid

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


def a_transaction(user_id: str, acct_id: str, day: date, **overrides: Any) -> Transaction:
    fields: dict[str, Any] = {
        "user_id": user_id,
        "acct_id": acct_id,
        "txn_id": uid("txn"),
        "amount": 1234,
        "txn_date": day,
        "name": "Coffee Shop",
        "category_id": "13005043",
        "category": ("Food and Drink", "Coffee Shop"),
        "iso_currency_code": "USD",
    }
    fields.update(overrides)
    return Transaction(**fields)


WAGES = {"primary": "INCOME", "detailed": "INCOME_WAGES", "confidence_level": "VERY_HIGH"}


def paycheck(user_id: str, acct_id: str, item_id: str | None, day: date, employer: str = "ACME CORP") -> Transaction:
    """A payroll direct deposit as banks describe it, categorised as wages."""
    return a_transaction(
        user_id,
        acct_id,
        day,
        amount=-152_310,
        name=f"{employer} DES:PAYROLL ID:{day:%y%m%d}01 INDN:PAT DOE CO ID:1234567890 PPD",
        category_id="21009000",
        category=("Transfer", "Payroll"),
        personal_finance_category=WAGES,
        item_id=item_id,
    )


def store_transactions(txns: list[Transaction], *, extra: dict[str, Any] | None = None) -> None:
    """Write rows as the refiner does (``extra`` adds raw attributes, e.g. legacy ones)."""
    transactions.put_transaction_items({**transactions.transaction_item(t, NOW), **(extra or {})} for t in txns)


def an_account(user_id: str, item_id: str, **overrides: Any) -> Account:
    fields: dict[str, Any] = {
        "user_id": user_id,
        "item_id": item_id,
        "acct_id": uid("acct"),
        "name": "Checking",
        "type": "depository",
        "subtype": "checking",
        "mask": "0000",
        "balances": Balances(available=10_025, current=11_050, iso_currency_code="USD"),
    }
    fields.update(overrides)
    return Account(**fields)


def store_account(account: Account, *, drop: tuple[str, ...] = ()) -> None:
    """Write an ACCOUNT row; ``drop`` removes attributes (rows older than the reported flags)."""
    row = accounts.account_item(account, NOW)
    for name in drop:
        row.pop(name, None)
    tables.transactions().put_item(Item=row)


def an_item(user_id: str, **overrides: Any) -> items.Item:
    fields: dict[str, Any] = {
        "user_id": user_id,
        "item_id": uid("item"),
        "access_token": f"access-local-{uid('tok')}",
        "institution_id": "ins_109508",
        "institution_name": "First Platypus Bank",
    }
    fields.update(overrides)
    item = items.Item(**fields)
    items.create_item(item, NOW)
    return item
