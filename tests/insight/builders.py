"""Builders of API-shaped transactions for the payday model's tests."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from datetime import date
from typing import Any

from chalicelib.insight.schedule import Schedule

_ids = itertools.count()

#: The keys of an API-shaped transaction, as every synthetic generator writes them.
TRANSACTION_KEYS = frozenset(
    {
        "txn_id",
        "account_id",
        "amount",
        "iso_currency_code",
        "date",
        "authorized_date",
        "name",
        "merchant_name",
        "personal_finance_category",
        "category",
        "pending",
    }
)

#: PFC (v1) for payroll, and its legacy category.
WAGES = {"primary": "INCOME", "detailed": "INCOME_WAGES"}
SALARY_V2 = {"primary": "INCOME", "detailed": "INCOME_SALARY"}


def d(text: str) -> date:
    return date.fromisoformat(text)


def txn(day: date | str, amount: int, name: str, **overrides: Any) -> dict[str, Any]:
    """One API-shaped transaction (``amount`` in cents, negative = money in)."""
    base: dict[str, Any] = {
        "txn_id": f"t{next(_ids)}",
        "account_id": "chk",
        "amount": amount,
        "iso_currency_code": "USD",
        "date": day if isinstance(day, str) else day.isoformat(),
        "authorized_date": None,
        "name": name,
        "merchant_name": None,
        "personal_finance_category": None,
        "category": None,
        "pending": False,
    }
    return {**base, **overrides}


def paycheck(day: date, cents: int = 150_000, employer: str = "ACME CORP", **overrides: Any) -> dict[str, Any]:
    overrides.setdefault("personal_finance_category", WAGES)
    overrides.setdefault("category", ["Transfer", "Payroll"])
    return txn(
        day, -cents, f"{employer} DES:PAYROLL ID:{next(_ids):010d} INDN:PAT DOE CO ID:1234567890 PPD", **overrides
    )


def paychecks(
    days: Iterable[date], cents: int = 150_000, employer: str = "ACME CORP", **kw: Any
) -> list[dict[str, Any]]:
    return [paycheck(day, cents, employer, **kw) for day in days]


def on_schedule(schedule: Schedule, start: str, end: str, **kw: Any) -> list[dict[str, Any]]:
    """Paychecks on every day ``schedule`` posts in ``[start, end]``."""
    return paychecks(schedule.dates(d(start), d(end)), **kw)


def spending(start: str, end: str) -> list[dict[str, Any]]:
    """A purchase every other day, so the history spans the window like a real feed."""
    first, last = d(start).toordinal(), d(end).toordinal()
    return [txn(date.fromordinal(o), 2_345, "KROGER #432", merchant_name="Kroger") for o in range(first, last + 1, 2)]
