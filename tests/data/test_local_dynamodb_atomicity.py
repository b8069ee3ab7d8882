"""The local AWS keeps DynamoDB's promise that each request is atomic.

moto alone serves requests on many threads without a lock, so two conditional writes can
both pass one condition (seen here: 14 of 150 rounds of this race had two winners);
ops/moto_server.py serialises DynamoDB requests. Races in other tests (locks, cooldowns,
verification reviews) are only real if this holds.
"""

from __future__ import annotations

import threading
import uuid
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

pytestmark = pytest.mark.integration

RACERS = 16
ROUNDS = 20


def test_conditional_updates_racing_on_one_row_have_exactly_one_winner(aws_endpoint: str) -> None:
    from chalicelib.settings import get_settings

    table = get_settings().transactions_table
    client = boto3.client("dynamodb")
    for _ in range(ROUNDS):
        # GIVEN a row at version 0 and sixteen writers released at once, each moving it to version 1
        key = f"ATOMICITY#{uuid.uuid4().hex}"
        client.put_item(TableName=table, Item={"PK": {"S": key}, "SK": {"S": key}, "v": {"N": "0"}, "notes": {"L": []}})
        start = threading.Barrier(RACERS)
        winners: list[int] = []

        def claim(n: int, key: str = key, start: threading.Barrier = start, winners: list[int] = winners) -> None:
            start.wait()
            try:
                client.update_item(
                    TableName=table,
                    Key={"PK": {"S": key}, "SK": {"S": key}},
                    UpdateExpression="SET v = v + :one, notes = list_append(notes, :note)",
                    ConditionExpression="v = :zero",
                    ExpressionAttributeValues={
                        ":one": {"N": "1"},
                        ":zero": {"N": "0"},
                        ":note": {"L": [{"N": str(n)}]},
                    },
                )
                winners.append(n)
            except ClientError as error:
                assert error.response["Error"]["Code"] == "ConditionalCheckFailedException"

        threads = [threading.Thread(target=claim, args=(n,)) for n in range(RACERS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        # THEN exactly one update succeeded, and the row holds only that writer's change
        assert len(winners) == 1
        stored = client.get_item(TableName=table, Key={"PK": {"S": key}, "SK": {"S": key}})["Item"]
        assert (stored["v"], stored["notes"]) == ({"N": "1"}, {"L": [{"N": str(winners[0])}]})


def test_a_cancelled_transaction_leaves_every_item_and_the_stream_as_they_were(aws_endpoint: str) -> None:
    """The local AWS backs a transaction up item by item (moto copies whole tables); undo must stay whole."""
    from chalicelib.settings import get_settings

    table = get_settings().transactions_table
    client = boto3.client("dynamodb")
    streams = boto3.client("dynamodbstreams")
    kept, fresh, guard = (f"ATOMICITY#{uuid.uuid4().hex}" for _ in range(3))

    def key(k: str) -> dict[str, dict[str, str]]:
        return {"PK": {"S": k}, "SK": {"S": k}}

    client.put_item(TableName=table, Item={**key(kept), "v": {"N": "1"}})
    client.put_item(TableName=table, Item={**key(guard), "v": {"N": "1"}})
    arn = client.describe_table(TableName=table)["Table"]["LatestStreamArn"]
    [shard] = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
    before = _stream_records(streams, arn, shard["ShardId"])
    # WHEN a transaction updates one item, creates another, and fails its last condition
    with pytest.raises(ClientError) as cancelled:
        client.transact_write_items(
            TransactItems=[
                {
                    "Update": {
                        "TableName": table,
                        "Key": key(kept),
                        "UpdateExpression": "SET v = :two",
                        "ExpressionAttributeValues": {":two": {"N": "2"}},
                    }
                },
                {"Put": {"TableName": table, "Item": {**key(fresh), "v": {"N": "1"}}}},
                {
                    "ConditionCheck": {
                        "TableName": table,
                        "Key": key(guard),
                        "ConditionExpression": "v = :two",
                        "ExpressionAttributeValues": {":two": {"N": "2"}},
                    }
                },
            ]
        )
    # THEN it was cancelled for that condition, and nothing it did remains, in the table or on its stream
    reasons = [r["Code"] for r in cancelled.value.response["CancellationReasons"]]
    assert reasons == ["None", "None", "ConditionalCheckFailed"]
    assert client.get_item(TableName=table, Key=key(kept))["Item"]["v"] == {"N": "1"}
    assert "Item" not in client.get_item(TableName=table, Key=key(fresh))
    assert _stream_records(streams, arn, shard["ShardId"]) == before
    # AND the same transaction without the failing condition does both, and its writes reach the stream
    client.transact_write_items(
        TransactItems=[
            {
                "Update": {
                    "TableName": table,
                    "Key": key(kept),
                    "UpdateExpression": "SET v = :two",
                    "ExpressionAttributeValues": {":two": {"N": "2"}},
                }
            },
            {"Put": {"TableName": table, "Item": {**key(fresh), "v": {"N": "1"}}}},
        ]
    )
    assert client.get_item(TableName=table, Key=key(kept))["Item"]["v"] == {"N": "2"}
    assert _stream_records(streams, arn, shard["ShardId"]) == before + 2


def _stream_records(streams: Any, arn: str, shard_id: str) -> int:
    """How many records the table's stream holds (read to its end)."""
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard_id, ShardIteratorType="TRIM_HORIZON")
    position, total = iterator["ShardIterator"], 0
    while True:
        page = streams.get_records(ShardIterator=position, Limit=1000)
        if not page["Records"]:
            return total
        total += len(page["Records"])
        position = page["NextShardIterator"]
