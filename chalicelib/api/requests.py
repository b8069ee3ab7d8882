"""marshmallow schemas of every route's inputs: path, query string and JSON body.

Each mirrors the operation's parameters and request body in ``openapi.yaml``. Unknown query
parameters and body fields are refused (``additionalProperties: false`` in the document):
a misspelt filter must be an error, never an unfiltered answer.
"""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from chalicelib.api.fields import (
    QueryBoolean,
    QueryInteger,
    StrictDate,
    id_field,
    month_field,
    token_field,
    user_id_field,
)
from chalicelib.data.summaries import Granularity
from chalicelib.plaid.schemas import StrictBoolean, StrictInteger

MAX_PAGE = 500
DEFAULT_PAGE = 100
MAX_SUMMARY_MONTHS = 24
REMINE_CODES = ("DEFAULT_UPDATE", "INITIAL_UPDATE", "HISTORICAL_UPDATE")
#: How an item's transactions are mined: /transactions/get windows or /transactions/sync cursors.
MINING_MODES = ("GET", "SYNC")
#: How an item is linked: a prequal or reactivation item expires unless persisted.
PURPOSES = ("STANDARD", "PREQUAL", "REACTIVATION")
REMOVAL_REASONS = ("MX",)


class _Query(Schema):
    """Query parameters; unknown ones are refused (marshmallow's default, RAISE)."""


def _date_order(data: dict[str, Any], low: str, high: str) -> None:
    if data.get(low) is not None and data.get(high) is not None and data[low] > data[high]:
        raise ValidationError(f"{low} must not be after {high}", field_name=low)


# --- path parameters ------------------------------------------------------------------


class UserPath(Schema):
    user_id = user_id_field(required=True)


class TransactionPath(UserPath):
    txn_id = id_field(required=True)


class AccountPath(UserPath):
    account_id = id_field(required=True)


class ItemPath(UserPath):
    item_id = id_field(required=True)


class InstitutionPath(Schema):
    institution_id = id_field(required=True)


# --- query strings --------------------------------------------------------------------


class TransactionsQuery(_Query):
    account_id = id_field(load_default=None)
    category_id = id_field(load_default=None)
    start_date = StrictDate(load_default=None)
    end_date = StrictDate(load_default=None)
    limit = QueryInteger(load_default=DEFAULT_PAGE, validate=validate.Range(min=1, max=MAX_PAGE))
    cursor = token_field(load_default=None)

    @validates_schema
    def _order(self, data: dict[str, Any], **kwargs: Any) -> None:
        _date_order(data, "start_date", "end_date")


class SummaryQuery(_Query):
    """``months`` months ending at ``month`` (default: the current month alone)."""

    month = month_field(load_default=None)
    months = QueryInteger(load_default=1, validate=validate.Range(min=1, max=MAX_SUMMARY_MONTHS))
    granularity = fields.Enum(Granularity, by_value=True, load_default=None)
    account_id = id_field(load_default=None)
    category_id = id_field(load_default=None)


class AccountsQuery(_Query):
    item_id = id_field(load_default=None)
    #: Accounts of REMOVED items are left out unless asked for.
    include_removed = QueryBoolean(load_default=False)


class BalancesQuery(_Query):
    start_date = StrictDate(load_default=None)
    end_date = StrictDate(load_default=None)
    #: The history of an account of a REMOVED item is empty unless asked for.
    include_removed = QueryBoolean(load_default=False)

    @validates_schema
    def _order(self, data: dict[str, Any], **kwargs: Any) -> None:
        _date_order(data, "start_date", "end_date")


class ItemHistoryQuery(_Query):
    limit = QueryInteger(load_default=50, validate=validate.Range(min=1, max=MAX_PAGE))


class ChangeCheckQuery(_Query):
    days = QueryInteger(load_default=30, validate=validate.Range(min=1, max=365))


class LiabilityHistoryQuery(_Query):
    account_id = id_field(load_default=None)
    limit = QueryInteger(load_default=DEFAULT_PAGE, validate=validate.Range(min=1, max=MAX_PAGE))


class RemoveItemQuery(_Query):
    reason = fields.String(load_default=None, allow_none=False, validate=validate.OneOf(REMOVAL_REASONS))


# --- bodies ---------------------------------------------------------------------------


class RefreshBody(Schema):
    item_id = id_field(load_default=None)


class QaSeedBody(Schema):
    account_id = id_field(load_default=None)
    days = StrictInteger(load_default=30, allow_none=False, validate=validate.Range(min=1, max=90))
    available = StrictInteger(load_default=None, allow_none=False, validate=validate.Range(min=-(10**12), max=10**12))
    current = StrictInteger(load_default=None, allow_none=False, validate=validate.Range(min=-(10**12), max=10**12))


class LinkTokenBody(Schema):
    item_id = id_field(load_default=None)


class AddItemBody(Schema):
    public_token = token_field(required=True)
    main_account_id = id_field(load_default=None)
    purpose = fields.String(load_default="STANDARD", allow_none=False, validate=validate.OneOf(PURPOSES))


class LayerResultsBody(Schema):
    public_token = token_field(required=True)


class LayerItemsBody(Schema):
    public_token = token_field(required=True)
    item_ids = fields.List(id_field(), load_default=None, allow_none=False, validate=validate.Length(min=1, max=20))
    main_account_id = id_field(load_default=None)
    purpose = fields.String(load_default="STANDARD", allow_none=False, validate=validate.OneOf(PURPOSES))


class RemineBody(Schema):
    webhook_code = fields.String(
        load_default="HISTORICAL_UPDATE", allow_none=False, validate=validate.OneOf(REMINE_CODES)
    )


class MainAccountBody(Schema):
    account_id = id_field(required=True)


class MiningModeBody(Schema):
    mode = fields.String(required=True, validate=validate.OneOf(MINING_MODES))


class IdentityVerificationBody(Schema):
    #: The user agreed to share their data with Plaid for verification.
    gave_consent = StrictBoolean(load_default=False, allow_none=False)
    #: Ask Plaid for a URL the user can complete the session at.
    is_shareable = StrictBoolean(load_default=False, allow_none=False)


class EmptyBody(Schema):
    """Routes that take no body accept nothing or ``{}``."""
