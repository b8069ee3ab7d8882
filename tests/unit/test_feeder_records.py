"""The feeder's pure parts: decoding Lambda's stream records, routing, and what counts as a new account."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest
from boto3.dynamodb.types import TypeSerializer

from chalicelib.data.accounts import Account, Balances
from chalicelib.events.publisher import new_account_id
from chalicelib.pipeline.feeder import (
    Outcome,
    UndecodableRecordError,
    announced_change,
    change_from_record,
    process_records,
    route_plaid_change,
    route_transactions_change,
)

NOW = datetime(2026, 5, 16, tzinfo=UTC)
TTL_IDENTITY = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}
_serializer = TypeSerializer()


def wire(image: dict[str, Any]) -> dict[str, Any]:
    return {k: _serializer.serialize(v) for k, v in image.items()}


def record(
    event_name: str,
    *,
    new: dict[str, Any] | None = None,
    old: dict[str, Any] | None = None,
    identity: dict[str, str] | None = None,
    seq: str = "100",
) -> dict[str, Any]:
    change: dict[str, Any] = {"SequenceNumber": seq, "Keys": {}}
    if new is not None:
        change["NewImage"] = wire(new)
    if old is not None:
        change["OldImage"] = wire(old)
    raw: dict[str, Any] = {"eventName": event_name, "dynamodb": change}
    if identity is not None:
        raw["userIdentity"] = identity
    return raw


def test_a_ttl_remove_decodes_with_numbers_as_decimal() -> None:
    # GIVEN a REMOVE record made by the DynamoDB service, with a number in its old image
    raw = record("REMOVE", old={"type": "ITEM", "ttl": 1700000000, "user_id": "u"}, identity=TTL_IDENTITY)
    # WHEN it is decoded
    change = change_from_record(raw)
    # THEN it is a TTL expiry of an ITEM with the old image deserialized
    assert change.is_ttl_expiry and change.old_type() == "ITEM"
    assert change.old_image == {"type": "ITEM", "ttl": Decimal(1700000000), "user_id": "u"}
    assert change.sequence_number == "100"


@pytest.mark.parametrize(
    "identity",
    [
        None,
        {"type": "Service", "principalId": "someone.amazonaws.com"},
        {"type": "User", "principalId": "dynamodb.amazonaws.com"},
    ],
)
def test_a_remove_by_anyone_else_is_not_a_ttl_expiry(identity: dict[str, str] | None) -> None:
    change = change_from_record(record("REMOVE", old={"type": "LAYER"}, identity=identity))
    assert not change.is_ttl_expiry
    # AND the routes skip it without touching anything
    assert route_transactions_change(change, NOW) is Outcome.SKIPPED


@pytest.mark.parametrize(
    ("raw", "route"),
    [
        (record("INSERT", new={"type": "TRANSACTION"}), route_transactions_change),
        (record("MODIFY", new={"type": "BALANCE"}, old={"type": "BALANCE"}), route_transactions_change),
        (record("REMOVE", old={"type": "ACCOUNT"}, identity=TTL_IDENTITY), route_transactions_change),
        (record("REMOVE", old={"type": "WEBHOOK_INFO"}, identity=TTL_IDENTITY), route_transactions_change),
        (record("INSERT", new={"type": "ITEM"}), route_plaid_change),
        (record("REMOVE", old={"type": "ITEM"}), route_plaid_change),
        (record("REMOVE", old={"type": "LIABILITY"}, identity=TTL_IDENTITY), route_plaid_change),
        (record("REMOVE", old={"type": "LAYER"}, identity=TTL_IDENTITY), route_plaid_change),
    ],
)
def test_anything_else_is_skipped(raw: dict[str, Any], route: Any) -> None:
    assert route(change_from_record(raw), NOW) is Outcome.SKIPPED


ACCOUNT_ROW: dict[str, Any] = {
    "type": "ACCOUNT",
    "item_id": "i1",
    "acct_name": "Checking",
    "acct_official_name": "Everyday Checking",
    "acct_type": "depository",
    "acct_subtype": "checking",
    "acct_mask": "0000",
    "acct_iso_cc": "USD",
    "acct_balances": {"bal_current": 1},
    "acct_updated_at": "2026-05-16T00:00:00Z",
}


@pytest.mark.parametrize(
    ("old", "changes", "expected"),
    [
        (None, {}, True),  # an INSERT
        ({"type": "SOMETHING"}, {}, True),
        (ACCOUNT_ROW, {"item_id": "i2"}, True),
        (ACCOUNT_ROW, {"acct_name": "Joint Checking"}, True),
        (ACCOUNT_ROW, {"acct_official_name": None}, True),
        (ACCOUNT_ROW, {"acct_type": "credit"}, True),
        (ACCOUNT_ROW, {"acct_subtype": "savings"}, True),
        (ACCOUNT_ROW, {"acct_mask": "9999"}, True),
        (ACCOUNT_ROW, {"acct_iso_cc": "CAD"}, True),
        # every mine: new balances and update time only
        (ACCOUNT_ROW, {"acct_balances": {"bal_current": 2}, "acct_updated_at": "2026-05-17T00:00:00Z"}, False),
        (ACCOUNT_ROW, {"bal_available_reported": False}, False),
    ],
)
def test_an_account_is_news_on_insert_and_when_a_field_the_event_carries_changes(
    old: dict[str, Any] | None, changes: dict[str, Any], expected: bool
) -> None:
    new = {**ACCOUNT_ROW, **changes}
    assert announced_change(old, new) is expected


def test_an_item_write_that_keeps_its_main_account_announces_nothing() -> None:
    item = {"type": "ITEM", "user_id": "u1", "item_id": "i1", "item_status": "ACTIVE", "main_account_id": "a1"}
    refreshed = {**item, "item_last_webhook_sent_at": "2026-05-16T00:00:00Z"}
    raw = record("MODIFY", old=item, new=refreshed)
    assert route_plaid_change(change_from_record(raw), NOW) is Outcome.SKIPPED


def test_the_event_id_covers_every_announced_field_and_the_main_account_change() -> None:
    account = Account("u1", "i1", "a1", "Checking", "depository", Balances(100, 100), "checking", "0000", None)
    base = new_account_id(account, is_main=False)
    assert new_account_id(account, is_main=False) == base, "the same fact, the same id"
    assert new_account_id(dataclasses.replace(account, balances=Balances(5, 5)), is_main=False) == base
    variants = [
        new_account_id(account, is_main=True),
        new_account_id(account, is_main=False, main_since="2026-05-16T00:00:00.000000Z"),
        new_account_id(dataclasses.replace(account, name="Joint"), is_main=False),
        new_account_id(dataclasses.replace(account, mask="9999"), is_main=False),
        new_account_id(dataclasses.replace(account, subtype="savings"), is_main=False),
        new_account_id(dataclasses.replace(account, official_name="Everyday"), is_main=False),
    ]
    assert len({base, *variants}) == 1 + len(variants)


def test_an_undecodable_record_is_skipped_and_the_rest_still_run() -> None:
    # GIVEN a batch whose first record has a broken image and whose second is ordinary noise
    broken = {"eventName": "INSERT", "dynamodb": {"SequenceNumber": "1", "NewImage": {"type": {"Q": "x"}}}}
    seen: list[str] = []

    def route(change: Any, now: datetime) -> Outcome:
        seen.append(change.sequence_number)
        return Outcome.SKIPPED

    # WHEN the batch is processed
    result = process_records([broken, record("INSERT", new={"type": "X"}, seq="2")], route, now=NOW)
    # THEN nothing is reported failed and the second record was routed
    assert result == {"batchItemFailures": []}
    assert seen == ["2"]
    with pytest.raises(UndecodableRecordError):
        change_from_record(broken)


def test_the_first_failing_record_is_reported_and_nothing_after_it_runs() -> None:
    # GIVEN three records, the second of which fails for a reason a retry may fix
    seen: list[str] = []

    def route(change: Any, now: datetime) -> Outcome:
        seen.append(change.sequence_number)
        if change.sequence_number == "2":
            raise ConnectionError("peer down")
        return Outcome.SKIPPED

    raws = [record("INSERT", new={"type": "X"}, seq=s) for s in ("1", "2", "3")]
    # WHEN processed
    result = process_records(raws, route, now=NOW)
    # THEN the second is reported by sequence number and the third never ran
    assert result == {"batchItemFailures": [{"itemIdentifier": "2"}]}
    assert seen == ["1", "2"]
