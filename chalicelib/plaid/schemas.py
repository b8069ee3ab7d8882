"""marshmallow schemas for the raw (un-modelled) Plaid pages on the hot path.

The transactions (``/transactions/get``, ``/transactions/sync``) and institutions pages skip the
SDK's model parsing (1.3 s of CPU per 500-transaction page) and are checked here instead. The
rules mirror the SDK's strict models (plaid.md §1.4): a required key must be present even where
its value may be null, amounts must be numbers (never strings), ``pending`` a real boolean, dates ISO strings.
Unknown keys pass through untouched, so the refiner sees everything Plaid sent, and the
loaded data stays JSON-shaped (dates remain strings, numbers remain numbers).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import date, datetime
from typing import Any

from marshmallow import INCLUDE, Schema, ValidationError, fields, validate


class StrictNumber(fields.Field[float | int]):
    """A JSON number: int or float, never a numeric string, never a bool, never NaN."""

    default_error_messages = {"invalid": "Not a JSON number."}

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> float | int:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.make_error("invalid")
        if isinstance(value, float) and not math.isfinite(value):
            raise self.make_error("invalid")
        return value


class StrictInteger(fields.Field[int]):
    """A JSON integer (not a bool, not a string)."""

    default_error_messages = {"invalid": "Not a JSON integer."}

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.make_error("invalid")
        return value


class StrictBoolean(fields.Field[bool]):
    """A JSON boolean (``"true"`` and ``1`` are not)."""

    default_error_messages = {"invalid": "Not a JSON boolean."}

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid")
        return value


class IsoDate(fields.Field[str]):
    """A ``YYYY-MM-DD`` string, kept as the string."""

    default_error_messages = {"invalid": "Not an ISO date (YYYY-MM-DD)."}

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> str:
        if not isinstance(value, str) or len(value) != 10:
            raise self.make_error("invalid")
        try:
            date.fromisoformat(value)
        except ValueError as exc:
            raise self.make_error("invalid") from exc
        return value


class IsoDateTime(fields.Field[str]):
    """An ISO 8601 date-time string (``Z`` allowed), kept as the string."""

    default_error_messages = {"invalid": "Not an ISO date-time."}

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> str:
        if not isinstance(value, str):
            raise self.make_error("invalid")
        try:
            datetime.fromisoformat(value)
        except ValueError as exc:
            raise self.make_error("invalid") from exc
        return value


def _nullable_str() -> fields.String:
    """A key Plaid always sends whose value may be null."""
    return fields.String(required=True, allow_none=True)


class _PassThrough(Schema):
    class Meta:
        unknown = INCLUDE


class BalancesSchema(_PassThrough):
    available = StrictNumber(required=True, allow_none=True)
    current = StrictNumber(required=True, allow_none=True)
    limit = StrictNumber(required=True, allow_none=True)
    iso_currency_code = _nullable_str()
    unofficial_currency_code = _nullable_str()


class AccountSchema(_PassThrough):
    account_id = fields.String(required=True, validate=validate.Length(min=1))
    balances = fields.Nested(BalancesSchema, required=True)
    mask = _nullable_str()
    name = fields.String(required=True)
    official_name = _nullable_str()
    type = fields.String(required=True)
    subtype = _nullable_str()


class PersonalFinanceCategorySchema(_PassThrough):
    primary = fields.String(required=True)
    detailed = fields.String(required=True)
    confidence_level = fields.String(allow_none=True)


class TransactionSchema(_PassThrough):
    transaction_id = fields.String(required=True, validate=validate.Length(min=1))
    account_id = fields.String(required=True, validate=validate.Length(min=1))
    amount = StrictNumber(required=True)
    iso_currency_code = _nullable_str()
    unofficial_currency_code = _nullable_str()
    date = IsoDate(required=True)
    pending = StrictBoolean(required=True)
    authorized_date = IsoDate(required=True, allow_none=True)
    authorized_datetime = IsoDateTime(required=True, allow_none=True)
    datetime = IsoDateTime(required=True, allow_none=True)
    payment_channel = fields.String(required=True)
    transaction_code = _nullable_str()
    # Optional in the API, but typed when present (the SDK rejects ``name: null``).
    name = fields.String()
    merchant_name = fields.String(allow_none=True)
    original_description = fields.String(allow_none=True)
    pending_transaction_id = fields.String(allow_none=True)
    category = fields.List(fields.String(), allow_none=True)
    category_id = fields.String(allow_none=True)
    personal_finance_category = fields.Nested(PersonalFinanceCategorySchema, allow_none=True)


class ItemSchema(_PassThrough):
    item_id = fields.String(required=True, validate=validate.Length(min=1))
    webhook = _nullable_str()
    error = fields.Dict(required=True, allow_none=True)
    available_products = fields.List(fields.String(), required=True)
    billed_products = fields.List(fields.String(), required=True)
    consent_expiration_time = IsoDateTime(required=True, allow_none=True)
    update_type = fields.String(required=True)


class TransactionsPageSchema(_PassThrough):
    """One ``/transactions/get`` page."""

    accounts = fields.List(fields.Nested(AccountSchema), required=True)
    transactions = fields.List(fields.Nested(TransactionSchema), required=True)
    total_transactions = StrictInteger(required=True, validate=validate.Range(min=0))
    item = fields.Nested(ItemSchema, required=True)
    request_id = fields.String(required=True)


class RemovedTransactionSchema(_PassThrough):
    transaction_id = fields.String(required=True, validate=validate.Length(min=1))
    account_id = fields.String(required=True)


class TransactionsSyncPageSchema(_PassThrough):
    """One ``/transactions/sync`` page: net changes since the cursor, and where the next page starts."""

    transactions_update_status = fields.String(required=True)
    accounts = fields.List(fields.Nested(AccountSchema), required=True)
    added = fields.List(fields.Nested(TransactionSchema), required=True)
    modified = fields.List(fields.Nested(TransactionSchema), required=True)
    removed = fields.List(fields.Nested(RemovedTransactionSchema), required=True)
    next_cursor = fields.String(required=True)
    has_more = StrictBoolean(required=True)
    request_id = fields.String(required=True)


class InstitutionSchema(_PassThrough):
    institution_id = fields.String(required=True, validate=validate.Length(min=1))
    name = fields.String(required=True)
    products = fields.List(fields.String(), required=True)
    country_codes = fields.List(fields.String(), required=True)
    routing_numbers = fields.List(fields.String(), required=True)
    oauth = StrictBoolean(required=True)
    # Required by SDK 46's model, but nothing here reads it: absence must not stop the crawl.
    connection_availability = fields.String()
    url = fields.String(allow_none=True)
    primary_color = fields.String(allow_none=True)
    logo = fields.String(allow_none=True)


class InstitutionsPageSchema(_PassThrough):
    """One ``/institutions/get`` page."""

    institutions = fields.List(fields.Nested(InstitutionSchema), required=True)
    total = StrictInteger(required=True, validate=validate.Range(min=0))
    request_id = fields.String(required=True)


TRANSACTIONS_PAGE = TransactionsPageSchema()
TRANSACTIONS_SYNC_PAGE = TransactionsSyncPageSchema()
INSTITUTIONS_PAGE = InstitutionsPageSchema()

MAX_REPORTED_ERRORS = 20


def flatten_errors(messages: Any, prefix: str = "") -> list[str]:
    """marshmallow's nested error dict as ``path: message`` lines (bounded: a bad page has 500 rows)."""
    out: list[str] = []
    if isinstance(messages, Mapping):
        for key, value in messages.items():
            out.extend(flatten_errors(value, f"{prefix}.{key}" if prefix else str(key)))
    elif isinstance(messages, list) and all(isinstance(m, str) for m in messages):
        out.append(f"{prefix}: {' '.join(messages)}")
    elif isinstance(messages, list):
        for index, value in enumerate(messages):
            out.extend(flatten_errors(value, f"{prefix}[{index}]"))
    else:
        out.append(f"{prefix}: {messages}")
    return out[:MAX_REPORTED_ERRORS]


def load_page(schema: Schema, data: Any) -> dict[str, Any]:
    """``data`` checked against ``schema``; raises marshmallow's ``ValidationError``."""
    if not isinstance(data, dict):
        raise ValidationError("The page is not a JSON object.")
    loaded: dict[str, Any] = schema.load(data)
    return loaded
