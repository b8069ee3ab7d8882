"""ACCOUNT rows: one per bank account, with balances in integer cents.

Plaid may report ``available`` or ``current`` as null. The amount is then stored as 0 and
``bal_available_reported`` / ``bal_current_reported`` is false, so a stored 0 with the flag
true is a genuine $0 reading. Rows written before the flags existed have neither; readers
get ``None`` for them (unknown), never a guess.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from boto3.dynamodb.conditions import Key

from chalicelib.aws.errors import translated
from chalicelib.data import keys, tables
from chalicelib.data.batch import put_items
from chalicelib.data.money import cents_to_string, from_dynamo
from chalicelib.data.query import query_rows
from chalicelib.data.ttl import iso_timestamp


@dataclass(frozen=True)
class Balances:
    available: int  # cents; 0 when not reported
    current: int  # cents; 0 when not reported
    limit: int | None = None
    available_reported: bool | None = True
    current_reported: bool | None = True
    iso_currency_code: str | None = None

    @property
    def calc_available(self) -> int:
        """What the user can spend: reported available, else what current implies."""
        if self.available_reported:
            return self.available
        if self.limit is not None and self.current_reported:
            return self.limit - self.current
        return self.current


@dataclass(frozen=True)
class Account:
    user_id: str
    item_id: str
    acct_id: str
    name: str
    type: str
    balances: Balances
    subtype: str | None = None
    mask: str | None = None
    official_name: str | None = None
    updated_at: str | None = None


def balances_map(balances: Balances) -> dict[str, Any]:
    """``acct_balances``: each amount in cents with its ``_string`` copy in dollars."""
    amounts: dict[str, int | None] = {
        "bal_available": balances.available,
        "bal_current": balances.current,
        "calc_bal_available": balances.calc_available,
        "bal_limit": balances.limit,
    }
    result: dict[str, Any] = {}
    for name, cents in amounts.items():
        if cents is not None:
            result[name] = cents
            result[f"{name}_string"] = cents_to_string(cents)
    return result


def balance_flags(balances: Balances) -> dict[str, bool]:
    flags = {
        "bal_available_reported": balances.available_reported,
        "bal_current_reported": balances.current_reported,
    }
    return {k: v for k, v in flags.items() if v is not None}


def account_item(account: Account, now: datetime) -> dict[str, Any]:
    """The ACCOUNT row for ``account`` (pure)."""
    item: dict[str, Any] = {
        **keys.account_key(account.user_id, account.acct_id),
        "type": keys.ACCOUNT,
        "user_id": account.user_id,
        "item_id": account.item_id,
        "acct_id": account.acct_id,
        "acct_name": account.name,
        "acct_type": account.type,
        "acct_balances": balances_map(account.balances),
        **balance_flags(account.balances),
        "acct_updated_at": account.updated_at or iso_timestamp(now),
    }
    optional = {
        "acct_subtype": account.subtype,
        "acct_mask": account.mask,
        "acct_official_name": account.official_name,
        "acct_iso_cc": account.balances.iso_currency_code,
    }
    item.update({k: v for k, v in optional.items() if v})
    return item


def balances_from(item: Mapping[str, Any]) -> Balances:
    amounts = item.get("acct_balances", {})
    limit = amounts.get("bal_limit")
    return Balances(
        available=from_dynamo(amounts.get("bal_available", 0)),
        current=from_dynamo(amounts.get("bal_current", 0)),
        limit=from_dynamo(limit) if limit is not None else None,
        available_reported=item.get("bal_available_reported"),
        current_reported=item.get("bal_current_reported"),
        iso_currency_code=item.get("acct_iso_cc"),
    )


def from_item(item: Mapping[str, Any]) -> Account:
    """A stored row; identifiers a row does not repeat as attributes come from its keys."""
    return Account(
        user_id=str(item.get("user_id") or keys.key_part(item.get("PK"), "ACCOUNTS")),
        item_id=str(item.get("item_id", "")),
        acct_id=str(item.get("acct_id") or keys.key_part(item.get("SK"), "ACCOUNT")),
        name=str(item.get("acct_name", "")),
        type=str(item.get("acct_type", "")),
        balances=balances_from(item),
        subtype=item.get("acct_subtype"),
        mask=item.get("acct_mask"),
        official_name=item.get("acct_official_name"),
        updated_at=item.get("acct_updated_at"),
    )


def put_account_items(items: Iterable[dict[str, Any]]) -> int:
    return put_items(tables.transactions().name, items, ("PK", "SK"))


def get_account(user_id: str, acct_id: str) -> Account | None:
    with translated():
        item = tables.transactions().get_item(Key=keys.account_key(user_id, acct_id), ConsistentRead=True).get("Item")
    return from_item(item) if item else None


def list_accounts(user_id: str, item_id: str | None = None, *, consistent: bool = False) -> list[Account]:
    """Every account of a user (one partition; paginated until done), optionally of one item.

    ``consistent``: a strongly consistent read, for a reader reacting to a write it was told of.
    """
    condition = Key("PK").eq(keys.accounts_pk(user_id)) & Key("SK").begins_with(keys.ACCOUNT_SK_PREFIX)
    rows = query_rows(
        tables.transactions(),
        entity=keys.ACCOUNT,
        keep=lambda row: item_id is None or row.get("item_id") == item_id,
        KeyConditionExpression=condition,
        ConsistentRead=consistent,
    )
    return [from_item(row) for row in rows]
