"""BALANCE rows: one per account per calendar day, a balance history.

Each copies the account row's amounts and reported flags. ``ttl`` is
``ACCOUNT_BALANCE_TTL_DAYS`` (100) after the write; QA-seeded rows (outside prod only)
set both flags true and live 30 days.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from boto3.dynamodb.conditions import Key

from chalicelib.data import keys, tables
from chalicelib.data.accounts import Account, Balances, balance_flags, balances_from, balances_map
from chalicelib.data.batch import put_items
from chalicelib.data.query import query_rows
from chalicelib.data.ttl import QA_BALANCE_TTL_DAYS, days_from
from chalicelib.settings import get_settings


@dataclass(frozen=True)
class BalanceRecord:
    user_id: str
    acct_id: str
    day: date
    balances: Balances


def balance_item(account: Account, day: date, now: datetime, *, qa: bool = False) -> dict[str, Any]:
    """The BALANCE row of ``account`` on ``day`` (pure)."""
    balances = account.balances
    if qa:
        balances = Balances(
            available=balances.available,
            current=balances.current,
            limit=balances.limit,
            iso_currency_code=balances.iso_currency_code,
        )
    ttl_days = QA_BALANCE_TTL_DAYS if qa else get_settings().account_balance_ttl_days
    item: dict[str, Any] = {
        **keys.balance_key(account.user_id, account.acct_id, day.isoformat()),
        "type": keys.BALANCE,
        "user_id": account.user_id,
        "acct_id": account.acct_id,
        "item_id": account.item_id,
        "bal_date": day.isoformat(),
        "acct_balances": balances_map(balances),
        **balance_flags(balances),
        "ttl": days_from(now, ttl_days),
    }
    if balances.iso_currency_code:
        item["acct_iso_cc"] = balances.iso_currency_code
    return item


def from_item(item: Mapping[str, Any]) -> BalanceRecord:
    """A stored row; user, account and day come from the keys when not repeated as attributes."""
    return BalanceRecord(
        user_id=str(item.get("user_id") or keys.key_part(item.get("PK"), "BALANCE")),
        acct_id=str(item.get("acct_id") or keys.key_part(item.get("SK"), "ACCOUNT")),
        day=date.fromisoformat(str(item.get("bal_date") or keys.last_part(item.get("SK")))),
        balances=balances_from(item),
    )


def put_balance_items(items: Iterable[dict[str, Any]]) -> int:
    return put_items(tables.transactions().name, items, ("PK", "SK"))


def list_balances(
    user_id: str, acct_id: str, start: date | None = None, end: date | None = None
) -> list[BalanceRecord]:
    """An account's daily balances in date order (one partition, paginated until done)."""
    prefix = keys.balance_account_prefix(acct_id)
    sk: Any
    if start or end:
        low = prefix + (start.isoformat() if start else "")
        high = prefix + (end.isoformat() if end else "~")
        sk = Key("SK").between(low, high)
    else:
        sk = Key("SK").begins_with(prefix)
    rows = query_rows(tables.transactions(), KeyConditionExpression=Key("PK").eq(keys.balances_pk(user_id)) & sk)
    return [from_item(row) for row in rows]
