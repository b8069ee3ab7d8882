"""LIABILITY rows: an account's latest Plaid liability and its history.

Every store overwrites the *current* row (``LIABILITIES#<user>`` / ``ITEM#..#ACCOUNT#..``)
and appends a *history* row (``..#TIMESTAMP#<ts>``), in one TransactWriteItems so the
two never disagree: a current row always has the history row of the same fetch. History
is never deduplicated; a history key already taken (same account, same microsecond) moves
one microsecond later instead of overwriting.

``type`` is ``LIABILITY`` on both rows, like every row's ``type`` names its entity: the
table's stream filters and readers select on it. The kind (CREDIT / MORTGAGE / STUDENT)
is kept as ``liability_type``. Rows written by the system this service took over carry the
kind in ``type`` itself; every read accepts both (:func:`is_liability_row`).

``liability`` holds Plaid's payload for the account with every money field converted to
integer cents (each with its ``_string`` dollars copy); other numbers (rates, counts) are
exact ``Decimal``. Nothing passes through float.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from decimal import Decimal
from enum import StrEnum
from typing import Any

from boto3.dynamodb.conditions import Key

from chalicelib.aws.errors import translated
from chalicelib.data import keys, tables
from chalicelib.data.money import cents_to_string, dollars_to_cents, from_dynamo, to_decimal
from chalicelib.data.query import query_rows
from chalicelib.data.ttl import iso_timestamp
from chalicelib.errors import ConditionFailedError, DataError, ValidationError
from chalicelib.observability import logger

#: Plaid liability fields that are amounts of money (credit, mortgage, student, APRs).
MONEY_FIELDS = frozenset(
    {
        "balance_subject_to_apr",
        "current_late_fee",
        "escrow_balance",
        "interest_charge_amount",
        "last_payment_amount",
        "last_statement_balance",
        "minimum_payment_amount",
        "next_monthly_payment",
        "origination_principal_amount",
        "outstanding_interest_amount",
        "past_due_amount",
        "ytd_interest_paid",
        "ytd_principal_paid",
    }
)
STRING_SUFFIX = "_string"
MAX_HISTORY_PROBES = 50


class LiabilityType(StrEnum):
    CREDIT = "CREDIT"
    MORTGAGE = "MORTGAGE"
    STUDENT = "STUDENT"


#: Plaid's ``liabilities`` object keys, per type.
PLAID_KEYS = {"credit": LiabilityType.CREDIT, "mortgage": LiabilityType.MORTGAGE, "student": LiabilityType.STUDENT}


class LiabilityHistoryCollisionError(DataError):
    """Every probed history timestamp for the account was taken."""

    retryable = True


@dataclass(frozen=True)
class Liability:
    user_id: str
    item_id: str
    acct_id: str
    liability_type: LiabilityType
    #: Plaid's payload: money in integer cents, other numbers Decimal.
    details: Mapping[str, Any]
    #: When it was fetched; None only on a taken-over current row that never said.
    updated_at: datetime | None


def to_cents_shape(value: Any, key: str | None = None) -> Any:
    """Plaid values with money in cents and every other non-integer number as Decimal."""
    if isinstance(value, Mapping):
        return {k: to_cents_shape(v, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_cents_shape(v) for v in value]
    if value is None or isinstance(value, bool):
        return value
    if key in MONEY_FIELDS:
        return dollars_to_cents(value)
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return value
    return to_decimal(value)


def _stored(value: Any, key: str | None = None) -> Any:
    """The DynamoDB shape: cents as they are, plus a ``_string`` copy beside each amount."""
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for k, v in value.items():
            out[k] = _stored(v, k)
            if k in MONEY_FIELDS and isinstance(v, int) and not isinstance(v, bool):
                out[k + STRING_SUFFIX] = cents_to_string(v)
        return out
    if isinstance(value, (list, tuple)):
        return [_stored(v) for v in value]
    if isinstance(value, float):
        return to_decimal(value)
    return value


def _loaded(value: Any, key: str | None = None) -> Any:
    """Back from DynamoDB: money as int cents, whole numbers as int, ``_string`` copies dropped."""
    if isinstance(value, Mapping):
        return {
            k: _loaded(v, k)
            for k, v in value.items()
            if not (k.endswith(STRING_SUFFIX) and k.removesuffix(STRING_SUFFIX) in MONEY_FIELDS)
        }
    if isinstance(value, list):
        return [_loaded(v) for v in value]
    if key in MONEY_FIELDS and value is not None:
        return from_dynamo(value)
    if isinstance(value, Decimal) and value == value.to_integral_value():
        return int(value)
    return value


def _fetched_at(liability: Liability) -> datetime:
    if liability.updated_at is None:
        raise ValidationError(f"liability of account {liability.acct_id} has no fetch time")
    return liability.updated_at


def _common(liability: Liability) -> dict[str, Any]:
    return {
        "type": keys.LIABILITY,
        "liability_type": liability.liability_type.value,
        "user_id": liability.user_id,
        "item_id": liability.item_id,
        "acct_id": liability.acct_id,
        "liability": _stored(liability.details),
        "updated_at": iso_timestamp(_fetched_at(liability)),
    }


def liability_item(liability: Liability) -> dict[str, Any]:
    """The current row for ``liability`` (pure)."""
    return {
        **keys.liability_key(liability.user_id, liability.item_id, liability.acct_id),
        **keys.liability_gsi_keys(liability.user_id, liability.acct_id),
        **_common(liability),
    }


def liability_history_item(liability: Liability) -> dict[str, Any]:
    """The history row for ``liability`` (pure), keyed on its ``updated_at``."""
    stamp = iso_timestamp(_fetched_at(liability))
    return {
        **keys.liability_history_key(liability.user_id, liability.item_id, liability.acct_id, stamp),
        **keys.liability_history_gsi_keys(liability.user_id, liability.acct_id, stamp),
        **_common(liability),
    }


def is_liability_row(row: Mapping[str, Any]) -> bool:
    """A LIABILITY row in either format: ``type=LIABILITY``, or the kind itself in ``type``."""
    kind = row.get("type")
    return kind == keys.LIABILITY or kind in LIABILITY_TYPES


LIABILITY_TYPES = frozenset(t.value for t in LiabilityType)


def from_item(row: Mapping[str, Any]) -> Liability:
    """A current or history row in either format; ids missing as attributes come from the keys."""
    pk, sk = row.get("PK"), row.get("SK")
    kind = row.get("liability_type") or row["type"]
    updated = row.get("updated_at") or keys.key_part(sk, "TIMESTAMP")
    return Liability(
        user_id=str(row.get("user_id") or keys.key_part(pk, "LIABILITIES") or keys.key_part(pk, "LIABILITY_HISTORY")),
        item_id=str(row.get("item_id") or keys.key_part(sk, "ITEM")),
        acct_id=str(row.get("acct_id") or keys.key_part(sk, "ACCOUNT")),
        liability_type=LiabilityType(str(kind)),
        details=_loaded(row.get("liability", {})),
        updated_at=datetime.fromisoformat(str(updated)) if updated else None,
    )


def liabilities_from_plaid(
    user_id: str,
    item_id: str,
    liabilities: Mapping[str, Any] | None,
    now: datetime,
    account_ids: Collection[str] | None = None,
) -> list[Liability]:
    """One :class:`Liability` per account in ``/liabilities/get``'s ``liabilities`` object.

    ``account_ids`` narrows to the accounts a webhook named; entries without an account
    id cannot be keyed and are skipped.
    """
    found: list[Liability] = []
    for plaid_key, liability_type in PLAID_KEYS.items():
        for entry in (liabilities or {}).get(plaid_key) or ():
            acct_id = entry.get("account_id")
            if not acct_id:
                logger.info("liability without an account id skipped", extra={"liability_type": liability_type.value})
                continue
            if account_ids is not None and acct_id not in account_ids:
                continue
            found.append(Liability(user_id, item_id, str(acct_id), liability_type, to_cents_shape(entry), now))
    return found


# --- writes ---------------------------------------------------------------------------


def store_liability(liability: Liability) -> Liability:
    """Overwrite the current row and append a history row, atomically; return what was stored."""
    table = tables.plaid()
    candidate = liability
    for _ in range(MAX_HISTORY_PROBES):
        request = [
            {"Put": {"TableName": table.name, "Item": liability_item(candidate)}},
            {
                "Put": {
                    "TableName": table.name,
                    "Item": liability_history_item(candidate),
                    "ConditionExpression": "attribute_not_exists(PK)",
                }
            },
        ]
        try:
            with translated():
                # The resource's client takes plain Python values (Decimal), like the Table.
                client: Any = table.meta.client
                client.transact_write_items(TransactItems=request)
            return candidate
        except ConditionFailedError:
            candidate = replace(candidate, updated_at=_fetched_at(candidate) + timedelta(microseconds=1))
    raise LiabilityHistoryCollisionError(f"no free history timestamp for account {liability.acct_id}")


def store_liabilities(liabilities: list[Liability]) -> list[Liability]:
    """Store each (one transaction per account); returns what was stored."""
    return [store_liability(liability) for liability in liabilities]


# --- reads ----------------------------------------------------------------------------


def get_current_liability(user_id: str, item_id: str, acct_id: str) -> Liability | None:
    """One account's current row (strongly consistent GetItem)."""
    with translated():
        row = tables.plaid().get_item(Key=keys.liability_key(user_id, item_id, acct_id), ConsistentRead=True)
    item = row.get("Item")
    return from_item(item) if item else None


def current_liabilities(user_id: str) -> list[Liability]:
    """A user's current rows, one per account (base table, strongly consistent)."""
    return _query(None, Key("PK").eq(keys.liabilities_pk(user_id)), forward=True)


def account_current_liability(acct_id: str) -> Liability | None:
    """An account's current row found by account id alone (GSI1, eventually consistent)."""
    rows = _query("GSI1", Key("GSI1PK").eq(keys.liability_account_pk(acct_id)), forward=True, limit=1)
    return rows[0] if rows else None


def liability_history(user_id: str, *, limit: int | None = None) -> list[Liability]:
    """A user's history across accounts, newest first (GSI2, eventually consistent)."""
    return _query("GSI2", Key("GSI2PK").eq(keys.liability_history_pk(user_id)), forward=False, limit=limit)


def account_liability_history(acct_id: str, *, limit: int | None = None) -> list[Liability]:
    """One account's history, newest first (GSI1, eventually consistent)."""
    condition = Key("GSI1PK").eq(keys.liability_history_account_pk(acct_id))
    return _query("GSI1", condition, forward=False, limit=limit)


def item_account_liability_history(
    user_id: str, item_id: str, acct_id: str, *, limit: int | None = None
) -> list[Liability]:
    """One account's history, newest first, from the base table (strongly consistent)."""
    condition = Key("PK").eq(keys.liability_history_pk(user_id)) & Key("SK").begins_with(
        keys.liability_history_prefix(item_id, acct_id)
    )
    return _query(None, condition, forward=False, limit=limit)


def _query(index: str | None, condition: Any, *, forward: bool, limit: int | None = None) -> list[Liability]:
    where: dict[str, Any] = {"IndexName": index} if index else {"ConsistentRead": True}
    rows = query_rows(
        tables.plaid(),
        keep=is_liability_row,
        limit=limit,
        KeyConditionExpression=condition,
        ScanIndexForward=forward,
        **where,
    )
    return [from_item(row) for row in rows]
