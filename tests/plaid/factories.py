"""Small builders for Plaid-shaped inputs used across the Plaid tests."""

from __future__ import annotations

import copy
import socket
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from chalicelib import clock
from chalicelib.plaid.client import PlaidClient
from chalicelib.plaid.config import PlaidTimeouts
from ops.fakes.plaid import DEFAULT_CLIENT_ID, DEFAULT_SECRET, FakeItem, FakePlaid

#: Short timeouts so timeout tests take fractions of a second; balance keeps a longer read.
TEST_TIMEOUTS = PlaidTimeouts(connect=1.0, read=0.6, balance_read=3.0)

ROOT = Path(__file__).resolve().parents[2]
HISTORY_DAYS = 730


def today() -> date:
    """The process clock's UTC date, read when asked (never fixed at import: a run may cross midnight)."""
    return clock.today()


def history(item: FakeItem) -> tuple[date, date]:
    """The window of ``item``'s whole history: two years up to the day the fake generated it.

    Anchored on the item, not on the clock, so the window holds every transaction whenever
    the query runs, midnight or not.
    """
    return item.today - timedelta(days=HISTORY_DAYS), item.today


def new_item(fake: FakePlaid, **overrides: Any) -> FakeItem:
    options: dict[str, Any] = {"transaction_count": 120}
    options.update(overrides)
    return fake.create_item(**options)


def transaction(**overrides: Any) -> dict[str, Any]:
    """A transaction with every key the SDK requires (nullable ones null)."""
    txn: dict[str, Any] = {
        "transaction_id": "txn-1",
        "account_id": "acc-1",
        "amount": 12.5,
        "iso_currency_code": "USD",
        "unofficial_currency_code": None,
        "date": "2024-05-01",
        "pending": False,
        "authorized_date": None,
        "authorized_datetime": None,
        "datetime": None,
        "payment_channel": "online",
        "transaction_code": None,
        "name": "Coffee",
    }
    txn.update(overrides)
    return txn


def account(**overrides: Any) -> dict[str, Any]:
    acc: dict[str, Any] = {
        "account_id": "acc-1",
        "balances": {
            "available": None,
            "current": 100.0,
            "limit": None,
            "iso_currency_code": "USD",
            "unofficial_currency_code": None,
        },
        "mask": "0000",
        "name": "Checking",
        "official_name": None,
        "type": "depository",
        "subtype": "checking",
    }
    acc.update(overrides)
    return acc


def item_json(**overrides: Any) -> dict[str, Any]:
    item: dict[str, Any] = {
        "item_id": "item-1",
        "webhook": None,
        "error": None,
        "available_products": [],
        "billed_products": ["transactions"],
        "consent_expiration_time": None,
        "update_type": "background",
    }
    item.update(overrides)
    return item


def transactions_page(**overrides: Any) -> dict[str, Any]:
    page: dict[str, Any] = {
        "accounts": [account()],
        "transactions": [transaction()],
        "total_transactions": 1,
        "item": item_json(),
        "request_id": "req-1",
    }
    page.update(overrides)
    return copy.deepcopy(page)


def closed_port() -> int:
    """A local port nothing listens on (bound then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def unreachable_client() -> PlaidClient:
    return PlaidClient(f"http://127.0.0.1:{closed_port()}", DEFAULT_CLIENT_ID, DEFAULT_SECRET, timeouts=TEST_TIMEOUTS)
