"""DynamoDB stream delivery: Lambda-shaped records, filter criteria, partial failures."""

from __future__ import annotations

from typing import Any

import pytest
from chalice.app import DynamoDBEvent

from chalicelib.aws.clients import client, table
from chalicelib.infra.declaration import Infrastructure
from ops.runtime import Backoff, EventRuntime
from tests.runtime.factories import Recorder, build_app, ok

pytestmark = pytest.mark.integration


def write_history(infra: Infrastructure) -> None:
    """Five changes: two ACCOUNT upserts the feeder wants, three it must never see."""
    rows = table(infra.tables[0].name)
    rows.put_item(Item={"PK": "USER#1", "SK": "ACCOUNT#1", "type": "ACCOUNT", "name": "Checking"})
    rows.put_item(Item={"PK": "USER#1", "SK": "TXN#1", "type": "TRANSACTION", "amount": 1250})
    rows.update_item(
        Key={"PK": "USER#1", "SK": "ACCOUNT#1"},
        UpdateExpression="SET #n = :n",
        ExpressionAttributeNames={"#n": "name"},
        ExpressionAttributeValues={":n": "Main checking"},
    )
    rows.put_item(Item={"PK": "USER#1", "SK": "LAYER#1", "type": "LAYER", "blob": b"\x00\xff"})
    rows.delete_item(Key={"PK": "USER#1", "SK": "LAYER#1"})  # a user's delete, not TTL


def summary(records: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(r["eventName"], r["dynamodb"]["Keys"]["SK"]["S"]) for r in records]


def test_records_are_shaped_like_lambdas_and_chalice_parses_them(infra: Infrastructure, recorder: Recorder) -> None:
    # GIVEN five changes on a streamed table and an unfiltered consumer
    write_history(infra)
    runtime = EventRuntime(build_app(infra, recorder, on_changes=ok), infra)
    # WHEN drained
    result = runtime.drain(timeout=10)
    # THEN it saw every change in order
    records = recorder.records("on_changes")
    assert result.idle
    assert summary(records) == [
        ("INSERT", "ACCOUNT#1"),
        ("INSERT", "TXN#1"),
        ("MODIFY", "ACCOUNT#1"),
        ("INSERT", "LAYER#1"),
        ("REMOVE", "LAYER#1"),
    ]
    # AND each record carries what Lambda sends (and moto leaves out)
    stream_arn = client("dynamodb").describe_table(TableName=infra.tables[0].name)["Table"]["LatestStreamArn"]
    modify, remove = records[2], records[4]
    assert modify["eventSource"] == "aws:dynamodb"
    assert modify["eventSourceARN"] == stream_arn
    assert modify["awsRegion"] == "us-east-1"
    assert modify["eventVersion"] == "1.1"
    assert modify["eventID"]
    change = modify["dynamodb"]
    assert isinstance(change["ApproximateCreationDateTime"], int)
    assert change["Keys"] == {"PK": {"S": "USER#1"}, "SK": {"S": "ACCOUNT#1"}}
    assert change["OldImage"]["name"] == {"S": "Checking"}
    assert change["NewImage"]["name"] == {"S": "Main checking"}
    assert change["StreamViewType"] == "NEW_AND_OLD_IMAGES"
    assert change["SequenceNumber"].isdigit() and change["SizeBytes"] > 0
    assert records[3]["dynamodb"]["NewImage"]["blob"] == {"B": "AP8="}  # binary travels as base64
    assert "NewImage" not in remove["dynamodb"] and "userIdentity" not in remove
    parsed = list(DynamoDBEvent({"Records": records}, None))
    assert parsed[2].table_name == infra.tables[0].name
    assert parsed[2].new_image["name"] == {"S": "Main checking"}
    assert parsed[2].event_name == "MODIFY"


def test_filter_criteria_drop_records_before_the_handler(infra: Infrastructure, recorder: Recorder) -> None:
    # GIVEN the feeder-like consumer declared with its two filters
    write_history(infra)
    runtime = EventRuntime(build_app(infra, recorder, on_feed=ok), infra)
    # WHEN drained
    result = runtime.drain(timeout=10)
    # THEN only ACCOUNT inserts/modifies reached it; the user's REMOVE of a LAYER did not
    assert summary(recorder.records("on_feed")) == [("INSERT", "ACCOUNT#1"), ("MODIFY", "ACCOUNT#1")]
    assert result.of("on_feed").filtered == 3
    assert result.of("on_feed").records == 2


def test_filtered_out_changes_do_not_invoke_at_all(infra: Infrastructure, recorder: Recorder) -> None:
    rows = table(infra.tables[0].name)
    rows.put_item(Item={"PK": "USER#2", "SK": "TXN#1", "type": "TRANSACTION"})
    result = EventRuntime(build_app(infra, recorder, on_feed=ok), infra).drain(timeout=10)
    assert result.of("on_feed").invocations == 0
    assert result.of("on_feed").filtered == 1


def test_partial_failure_retries_from_the_failed_change(infra: Infrastructure, recorder: Recorder) -> None:
    # GIVEN a handler that fails the second change once
    write_history(infra)
    failures = [1]

    def behaviour(records: list[dict[str, Any]]) -> dict[str, Any]:
        if len(records) > 1 and failures:
            failures.pop()
            return {"batchItemFailures": [{"itemIdentifier": records[1]["dynamodb"]["SequenceNumber"]}]}
        return {}

    runtime = EventRuntime(
        build_app(infra, recorder, on_changes=behaviour), infra, retry_backoff=Backoff(first=0.01, maximum=0.05)
    )
    # WHEN drained THEN the retry started at the second change
    runtime.drain(timeout=10)
    assert recorder.sizes("on_changes") == [5, 4]
    assert summary(recorder.batches["on_changes"][1])[0] == ("INSERT", "TXN#1")


def test_two_functions_on_one_table_each_get_every_change(infra: Infrastructure, recorder: Recorder) -> None:
    write_history(infra)
    EventRuntime(build_app(infra, recorder, on_changes=ok, on_feed=ok), infra).drain(timeout=10)
    assert len(recorder.records("on_changes")) == 5
    assert len(recorder.records("on_feed")) == 2
