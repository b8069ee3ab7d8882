"""plaid-account-changes: never overwritten, idempotent per instant, newest first."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import boto3
import pytest
from boto3.dynamodb.conditions import Key

from chalicelib.data.account_changes import (
    AccountChange,
    ChangeType,
    account_change_item,
    account_changes,
    account_changes_since,
    parse_change_date,
    record_account_change,
)
from chalicelib.infra.bootstrap import bootstrap
from chalicelib.settings import get_settings

T0 = datetime(2025, 7, 1, 15, 30, 0, 250000, tzinfo=UTC)


def a_change(user_id: str, at: datetime = T0, **kw: object) -> AccountChange:
    fields: dict[str, object] = {"item_id": "item-1", "change_type": ChangeType.ITEM_REMOVED, "account_id": "acct-1"}
    fields.update(kw)
    return AccountChange(user_id=user_id, change_date=at, **fields)  # type: ignore[arg-type]


def test_row_shape() -> None:
    row = account_change_item(a_change("u1", is_override=True))
    assert row == {
        "user_id": "u1",
        "change_date": "2025-07-01T15:30:00.250000Z",
        "type": "ACCOUNT_CHANGE",
        "change_type": "ITEM_REMOVED",
        "item_id": "item-1",
        "account_id": "acct-1",
        "is_override": True,
    }


def test_dates_written_by_the_go_service_parse() -> None:
    assert parse_change_date("2025-07-01T15:30:00.250000123Z") == T0
    assert parse_change_date("2025-07-01T15:30:00.25Z") == T0


@pytest.mark.integration
def test_same_change_twice_is_one_row(ddb: str, user_id: str) -> None:
    # GIVEN a change recorded, then redelivered with the same instant
    first = record_account_change(a_change(user_id))
    second = record_account_change(a_change(user_id))

    # THEN one row
    assert first == second
    assert account_changes(user_id) == [first]


@pytest.mark.integration
def test_different_change_at_the_same_instant_moves_later(ddb: str, user_id: str) -> None:
    # GIVEN a removal recorded
    record_account_change(a_change(user_id))

    # WHEN a main-account change of the same instant is recorded
    moved = record_account_change(
        a_change(user_id, change_type=ChangeType.MAIN_ACCOUNT_CHANGED, account_id="acct-0", is_override=True)
    )

    # THEN it is kept one microsecond later; nothing was overwritten
    assert moved.change_date == T0 + timedelta(microseconds=1)
    assert [c.change_type for c in account_changes(user_id)] == [
        ChangeType.MAIN_ACCOUNT_CHANGED,
        ChangeType.ITEM_REMOVED,
    ]


@pytest.mark.integration
def test_newest_first_with_limit_and_since(ddb: str, user_id: str) -> None:
    # GIVEN changes over three days
    for days in (0, 1, 2):
        record_account_change(a_change(user_id, at=T0 + timedelta(days=days), item_id=f"item-{days}"))

    # WHEN read newest first, limited, and since a date
    everything = account_changes(user_id)
    newest = account_changes(user_id, limit=1)
    recent = account_changes_since(user_id, T0 + timedelta(days=1))

    # THEN order is by change_date descending and "since" is inclusive
    assert [c.item_id for c in everything] == ["item-2", "item-1", "item-0"]
    assert [c.item_id for c in newest] == ["item-2"]
    assert [c.item_id for c in recent] == ["item-2", "item-1"]


def test_the_table_lives_in_its_own_region(ddb: str, user_id: str, override_settings: Callable[..., None]) -> None:
    # GIVEN the shared table pinned to a region other than the deploy region, and created there
    deploy_region = get_settings().region
    override_settings(ACCOUNT_CHANGES_REGION="us-west-2")
    assert get_settings().region == deploy_region != "us-west-2"
    bootstrap()
    # WHEN a change is recorded and read back
    record_account_change(a_change(user_id))
    # THEN it is in the us-west-2 table and not in the deploy region's table of the same name
    assert [c.item_id for c in account_changes(user_id)] == ["item-1"]
    name = get_settings().account_changes_table
    in_region = boto3.resource("dynamodb", region_name="us-west-2").Table(name)
    assert in_region.query(KeyConditionExpression=Key("user_id").eq(user_id))["Count"] == 1
    local = boto3.resource("dynamodb", region_name=deploy_region).Table(name)
    assert local.query(KeyConditionExpression=Key("user_id").eq(user_id))["Count"] == 0
