"""TTL emulation: expired rows deleted, their REMOVE records marked as the DynamoDB service's."""

from __future__ import annotations

import time
from typing import Any

import pytest

from chalicelib.aws.clients import table
from chalicelib.infra.declaration import Infrastructure
from ops.runtime import EventRuntime
from ops.runtime.ttl import delete_if_expired
from tests.runtime.factories import Recorder, build_app, ok

pytestmark = pytest.mark.integration

SERVICE = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}


def layer(sk: str, **attributes: Any) -> dict[str, Any]:
    return {"PK": "USER#1", "SK": sk, "type": "LAYER", **attributes}


def clear_ttl(infra: Infrastructure, sk: str) -> None:
    """What a "persist" does: the row stays, without a TTL."""
    table(infra.tables[0].name).update_item(
        Key={"PK": "USER#1", "SK": sk}, UpdateExpression="REMOVE #t", ExpressionAttributeNames={"#t": "ttl"}
    )


def exists(infra: Infrastructure, sk: str) -> bool:
    return "Item" in table(infra.tables[0].name).get_item(Key={"PK": "USER#1", "SK": sk}, ConsistentRead=True)


def test_expired_rows_are_deleted_and_their_removes_carry_the_service_identity(
    infra: Infrastructure, recorder: Recorder
) -> None:
    # GIVEN rows: expired, live, expired-then-persisted, without ttl, expired-but-deleted-by-a-user,
    # expired more than five years ago, and with a non-number ttl
    now = int(time.time())
    rows = table(infra.tables[0].name)
    rows.put_item(Item=layer("EXPIRED", ttl=now - 10))
    rows.put_item(Item=layer("LIVE", ttl=now + 3600))
    rows.put_item(Item=layer("PERSISTED", ttl=now - 10))
    rows.update_item(
        Key={"PK": "USER#1", "SK": "PERSISTED"}, UpdateExpression="REMOVE #t", ExpressionAttributeNames={"#t": "ttl"}
    )
    rows.put_item(Item=layer("NO-TTL"))
    rows.put_item(Item=layer("USER-DELETED", ttl=now - 10))
    rows.delete_item(Key={"PK": "USER#1", "SK": "USER-DELETED"})
    rows.put_item(Item=layer("ANCIENT", ttl=1))
    rows.put_item(Item=layer("TEXT-TTL", ttl=str(now - 10)))
    # AND a feeder whose first invocation fails, plus an unfiltered consumer
    failures = [1]

    def feeder(records: list[dict[str, Any]]) -> None:
        if failures:
            failures.pop()
            raise RuntimeError("user service unavailable")

    runtime = EventRuntime(build_app(infra, recorder, on_feed=feeder, on_changes=ok), infra)
    # WHEN TTL is emulated and the streams drained
    report = runtime.expire_ttl(now)
    runtime.drain(timeout=10)
    # THEN only the expired row was deleted
    assert report.deleted == ((infra.tables[0].name, {"PK": "USER#1", "SK": "EXPIRED"}),)
    assert not exists(infra, "EXPIRED")
    assert all(exists(infra, sk) for sk in ("LIVE", "PERSISTED", "NO-TTL", "ANCIENT", "TEXT-TTL"))
    # AND the feeder (TTL-REMOVE-of-LAYER filter) got that REMOVE with the service identity,
    # again on the retry after its failure
    feed = recorder.records("on_feed")
    assert [(r["eventName"], r["dynamodb"]["Keys"]["SK"]["S"]) for r in feed] == [("REMOVE", "EXPIRED")] * 2
    assert all(r["userIdentity"] == SERVICE for r in feed)
    assert feed[0]["dynamodb"]["OldImage"]["ttl"] == {"N": str(now - 10)}
    # AND the user's own delete reached the unfiltered consumer without a userIdentity
    removes = {
        r["dynamodb"]["Keys"]["SK"]["S"]: r for r in recorder.records("on_changes") if r["eventName"] == "REMOVE"
    }
    assert set(removes) == {"USER-DELETED", "EXPIRED"}
    assert "userIdentity" not in removes["USER-DELETED"]
    assert removes["EXPIRED"]["userIdentity"] == SERVICE


def test_a_row_whose_ttl_was_cleared_or_extended_after_the_scan_is_not_deleted(infra: Infrastructure) -> None:
    # GIVEN two rows that were expired when a sweep scanned them
    now = int(time.time())
    rows = table(infra.tables[0].name)
    rows.put_item(Item=layer("PERSIST-RACE", ttl=now - 10))
    rows.put_item(Item=layer("EXTEND-RACE", ttl=now - 10))
    key = {"PK": {"S": "USER#1"}, "SK": {"S": "PERSIST-RACE"}}
    extend_key = {"PK": {"S": "USER#1"}, "SK": {"S": "EXTEND-RACE"}}
    # WHEN a concurrent writer clears one ttl and extends the other before the sweep's delete
    rows.update_item(
        Key={"PK": "USER#1", "SK": "PERSIST-RACE"}, UpdateExpression="REMOVE #t", ExpressionAttributeNames={"#t": "ttl"}
    )
    rows.update_item(
        Key={"PK": "USER#1", "SK": "EXTEND-RACE"},
        UpdateExpression="SET #t = :t",
        ExpressionAttributeNames={"#t": "ttl"},
        ExpressionAttributeValues={":t": now + 3600},
    )
    # THEN the sweep's conditional delete leaves both alone
    assert delete_if_expired(infra.tables[0].name, key, "ttl", now) is False
    assert delete_if_expired(infra.tables[0].name, extend_key, "ttl", now) is False
    assert exists(infra, "PERSIST-RACE") and exists(infra, "EXTEND-RACE")


def test_the_clock_override_decides_what_has_expired(infra: Infrastructure, recorder: Recorder) -> None:
    # GIVEN a row that expires tomorrow and a runtime whose clock says it is two days from now
    now = time.time()
    table(infra.tables[0].name).put_item(Item=layer("TOMORROW", ttl=int(now + 86400)))
    runtime = EventRuntime(build_app(infra, recorder, on_feed=ok), infra, clock=lambda: now + 2 * 86400)
    # WHEN TTL is emulated without an explicit time THEN the row is gone and the feeder heard of it
    assert len(runtime.expire_ttl().deleted) == 1
    runtime.drain(timeout=10)
    assert [r["userIdentity"] for r in recorder.records("on_feed")] == [SERVICE]


def test_run_forever_sweeps_ttl_and_delivers_in_the_background(infra: Infrastructure, recorder: Recorder) -> None:
    # GIVEN an expired row and a runtime running in a thread with a short TTL interval
    table(infra.tables[0].name).put_item(Item=layer("BACKGROUND", ttl=int(time.time()) - 5))
    runtime = EventRuntime(build_app(infra, recorder, on_feed=ok), infra, ttl_interval=0.2, poll_interval=0.05)
    # WHEN it runs for a while THEN the feeder got the TTL REMOVE without anyone calling expire_ttl
    with runtime.running():
        delivered = recorder.wait_for("on_feed", timeout=10)
    assert [r["dynamodb"]["Keys"]["SK"]["S"] for r in delivered] == ["BACKGROUND"]
    assert not exists(infra, "BACKGROUND")
