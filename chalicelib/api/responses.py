"""marshmallow schemas that shape every response body from the data layer's objects.

Money is integer cents throughout (positive = money leaving the account, as stored); every
optional value is present as ``null`` rather than missing, so clients see one shape. No
schema here has a field for an access, processor or public token: they cannot leak by
accident. Each schema mirrors a component of ``openapi.yaml``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from marshmallow import Schema, fields

from chalicelib.data.accounts import Account, Balances
from chalicelib.data.balances import BalanceRecord
from chalicelib.data.items import Item
from chalicelib.data.summaries import Summary


def plain(value: Any) -> Any:
    """A stored free-form value as JSON: Decimals become ints (whole) or floats (rates)."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [plain(v) for v in value]
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


def calc_available(balances: Balances) -> int:
    """What the user can spend; rows older than the reported flags took ``available`` as reported."""
    return balances.available if balances.available_reported is None else balances.calc_available


class BalancesOut(Schema):
    available = fields.Integer()
    current = fields.Integer()
    limit = fields.Integer(allow_none=True)
    calc_available = fields.Function(calc_available)
    iso_currency_code = fields.String(allow_none=True)


class AccountOut(Schema):
    account_id = fields.String(attribute="acct_id")
    item_id = fields.String()
    name = fields.String()
    official_name = fields.String(allow_none=True)
    type = fields.String()
    subtype = fields.String(allow_none=True)
    mask = fields.String(allow_none=True)
    updated_at = fields.String(allow_none=True)
    balances = fields.Nested(BalancesOut)
    available_reported = fields.Function(lambda a: a.balances.available_reported)
    current_reported = fields.Function(lambda a: a.balances.current_reported)


class BalanceOut(Schema):
    account_id = fields.String(attribute="acct_id")
    date = fields.Date(attribute="day")
    balances = fields.Nested(BalancesOut)
    available_reported = fields.Function(lambda b: b.balances.available_reported)
    current_reported = fields.Function(lambda b: b.balances.current_reported)


class TransactionOut(Schema):
    txn_id = fields.String()
    account_id = fields.String(attribute="acct_id")
    amount = fields.Integer()
    iso_currency_code = fields.String(allow_none=True)
    date = fields.Date(attribute="txn_date")
    authorized_date = fields.Date(allow_none=True)
    authorized_datetime = fields.String(allow_none=True)
    name = fields.String()
    merchant_name = fields.String(allow_none=True)
    original_description = fields.String(allow_none=True)
    pending = fields.Boolean()
    pending_transaction_id = fields.String(allow_none=True)
    category_id = fields.String()
    category = fields.List(fields.String())
    personal_finance_category = fields.Function(lambda t: plain(t.personal_finance_category))
    merchant_logo_url = fields.String(allow_none=True)
    merchant_website = fields.String(allow_none=True)
    removed = fields.Boolean()


class TransactionPageOut(Schema):
    transactions = fields.List(fields.Nested(TransactionOut))
    next_cursor = fields.String(allow_none=True, attribute="cursor")


class SummaryOut(Schema):
    month = fields.String()
    granularity = fields.Function(lambda s: s.granularity.value)
    account_id = fields.String(attribute="acct_id", allow_none=True)
    category_id = fields.String(allow_none=True)
    total_amount = fields.Integer()
    outflow_amount = fields.Integer(allow_none=True)
    inflow_amount = fields.Integer(allow_none=True)
    txn_count = fields.Integer(allow_none=True)
    added_txn_ids = fields.Function(lambda s: sorted(s.added_txn_ids))
    removed_txn_ids = fields.Function(lambda s: sorted(s.removed_txn_ids))
    updated_at = fields.String(allow_none=True)


def _expires_at(item: Item) -> str | None:
    if item.ttl is None:
        return None
    return datetime.fromtimestamp(item.ttl, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class ItemOut(Schema):
    item_id = fields.String()
    institution_id = fields.String(allow_none=True)
    institution_name = fields.String(allow_none=True)
    status = fields.Function(lambda i: i.status.value)
    error_code = fields.String(allow_none=True)
    available_products = fields.List(fields.String())
    billed_products = fields.List(fields.String())
    created_at = fields.String(allow_none=True)
    last_successful_update = fields.String(allow_none=True)
    main_account_id = fields.String(allow_none=True)
    source = fields.String(allow_none=True)
    removed_reason = fields.String(allow_none=True)
    expires_at = fields.Function(_expires_at)
    mining_mode = fields.Function(lambda i: i.mining_mode.value)


class AccountChangeOut(Schema):
    item_id = fields.String()
    change_type = fields.Function(lambda c: c.change_type.value)
    change_date = fields.Function(lambda c: c.change_date.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"))
    previous_main_account_id = fields.String(attribute="account_id", allow_none=True)
    is_override = fields.Boolean()


class LiabilityOut(Schema):
    item_id = fields.String()
    account_id = fields.String(attribute="acct_id")
    liability_type = fields.Function(lambda li: li.liability_type.value)
    details = fields.Function(lambda li: plain(li.details))
    updated_at = fields.Function(
        lambda li: li.updated_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ") if li.updated_at else None
    )


class IdentityVerificationOut(Schema):
    idv_id = fields.String()
    status = fields.String()
    kyc_status = fields.String(allow_none=True)
    watchlist_status = fields.String(allow_none=True)
    steps = fields.Dict(keys=fields.String(), values=fields.String())
    created_at = fields.Function(lambda v: v.created_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
    completed_at = fields.Function(
        lambda v: v.completed_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if v.completed_at else None
    )
    template_id = fields.String(allow_none=True)


class IdentityVerificationStartedOut(IdentityVerificationOut):
    shareable_url = fields.String(allow_none=True)


class CategoryOut(Schema):
    category_id = fields.String()
    hierarchy = fields.List(fields.String())
    group = fields.String(allow_none=True)


class InstitutionOut(Schema):
    institution_id = fields.String()
    name = fields.String()
    logo = fields.String(allow_none=True)
    primary_color = fields.String(allow_none=True)
    url = fields.String(allow_none=True)
    products = fields.List(fields.String())
    oauth = fields.Boolean()


def dump_many(schema: Schema, objects: Sequence[Any]) -> list[dict[str, Any]]:
    return [dict(schema.dump(o)) for o in objects]


def accounts_body(accounts: Sequence[Account]) -> dict[str, Any]:
    return {"accounts": dump_many(AccountOut(), accounts)}


def balances_body(records: Sequence[BalanceRecord]) -> dict[str, Any]:
    return {"balances": dump_many(BalanceOut(), records)}


def summaries_body(summaries: Sequence[Summary]) -> dict[str, Any]:
    return {"summaries": dump_many(SummaryOut(), summaries)}


def items_body(found: Sequence[Item]) -> dict[str, Any]:
    return {"items": dump_many(ItemOut(), found)}
