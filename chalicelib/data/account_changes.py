"""``plaid-account-changes`` rows: item removals and main-account changes.

A shared table (no stage prefix) keyed ``user_id`` / ``change_date``, read newest first by
the change check and the item-history endpoint. ``change_date`` is an ISO timestamp in
UTC with microseconds, so key order is time order; ``account_id`` is the main account
*before* the change.

A write never overwrites: it is conditioned on the key being free. If the instant is
taken by the same change (a redelivery that passed the same ``change_date``), the stored
row is returned and nothing is written; if by a different change, the write moves one
microsecond later. Callers that derive ``change_date`` from their event get exactly one
row per event; callers that pass "now" get one row per attempt.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any

from boto3.dynamodb.conditions import Key

from chalicelib.aws.errors import translated
from chalicelib.data import keys, tables
from chalicelib.data.query import query_rows
from chalicelib.data.ttl import iso_timestamp
from chalicelib.errors import ConditionFailedError, ContentionError

MAX_COLLISION_PROBES = 50
#: Go writes up to nanoseconds; Python parses up to microseconds.
_EXTRA_FRACTION = re.compile(r"(\.\d{6})\d+")


class ChangeType(StrEnum):
    ITEM_REMOVED = "ITEM_REMOVED"
    MAIN_ACCOUNT_CHANGED = "MAIN_ACCOUNT_CHANGED"
    #: A row written by the system this service took over, which did not say which kind.
    UNKNOWN = "UNKNOWN"


class AccountChangeCollisionError(ContentionError):
    """Every probed instant for the change was taken by other changes."""


@dataclass(frozen=True)
class AccountChange:
    user_id: str
    item_id: str
    change_date: datetime
    change_type: ChangeType
    #: The main account before the change (absent when the item had none).
    account_id: str | None = None
    is_override: bool = False

    def same_change(self, other: AccountChange) -> bool:
        """Whether ``other`` records the same event (everything but the instant).

        An item is removed once (REMOVED is final), so a removal row of the same item is the
        same removal whoever retried it.
        """
        if self.change_type is ChangeType.ITEM_REMOVED:
            return (self.user_id, self.item_id, other.change_type) == (
                other.user_id,
                other.item_id,
                ChangeType.ITEM_REMOVED,
            )
        return (self.user_id, self.item_id, self.change_type, self.account_id, self.is_override) == (
            other.user_id,
            other.item_id,
            other.change_type,
            other.account_id,
            other.is_override,
        )


def parse_change_date(value: str) -> datetime:
    """A stored ``change_date`` as an aware UTC datetime (tolerates nanosecond text)."""
    moment = datetime.fromisoformat(_EXTRA_FRACTION.sub(r"\1", value))
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def account_change_item(change: AccountChange) -> dict[str, Any]:
    """The row for ``change`` (pure)."""
    row: dict[str, Any] = {
        **keys.account_change_key(change.user_id, iso_timestamp(change.change_date)),
        "type": keys.ACCOUNT_CHANGE,
        "change_type": change.change_type.value,
        "item_id": change.item_id,
        "is_override": change.is_override,
    }
    if change.account_id:
        row["account_id"] = change.account_id
    return row


def from_item(row: Mapping[str, Any]) -> AccountChange:
    return AccountChange(
        user_id=str(row["user_id"]),
        item_id=str(row.get("item_id", "")),
        change_date=parse_change_date(str(row["change_date"])),
        change_type=ChangeType(str(row.get("change_type", ChangeType.UNKNOWN.value))),
        account_id=row.get("account_id"),
        is_override=bool(row.get("is_override", False)),
    )


def record_account_change(change: AccountChange) -> AccountChange:
    """Write the change once; return it as stored (its instant may have moved later)."""
    table = tables.account_changes()
    candidate = change
    for _ in range(MAX_COLLISION_PROBES):
        row = account_change_item(candidate)
        try:
            with translated():
                table.put_item(Item=row, ConditionExpression="attribute_not_exists(user_id)")
            return candidate
        except ConditionFailedError:
            with translated():
                existing = table.get_item(
                    Key=keys.account_change_key(change.user_id, row["change_date"]), ConsistentRead=True
                ).get("Item")
            if existing is not None and from_item(existing).same_change(change):
                return from_item(existing)
        candidate = replace(candidate, change_date=candidate.change_date + timedelta(microseconds=1))
    raise AccountChangeCollisionError(f"no free instant for a change of item {change.item_id}")


def account_changes(user_id: str, *, limit: int | None = None) -> list[AccountChange]:
    """A user's changes, newest first (strongly consistent)."""
    return _query(Key("user_id").eq(user_id), limit)


def account_changes_since(user_id: str, since: datetime, *, limit: int | None = None) -> list[AccountChange]:
    """A user's changes at or after ``since``, newest first (strongly consistent)."""
    return _query(Key("user_id").eq(user_id) & Key("change_date").gte(iso_timestamp(since)), limit)


def _query(condition: Any, limit: int | None) -> list[AccountChange]:
    rows = query_rows(
        tables.account_changes(),
        limit=limit,
        KeyConditionExpression=condition,
        ScanIndexForward=False,
        ConsistentRead=True,
    )
    return [from_item(row) for row in rows]
