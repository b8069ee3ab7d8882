"""The local AWS keeps DynamoDB's promise that each request is atomic.

moto alone serves requests on many threads without a lock, so two conditional writes can
both pass one condition (seen here: 14 of 150 rounds of this race had two winners);
ops/moto_server.py serialises DynamoDB requests. Races in other tests (locks, cooldowns,
verification reviews) are only real if this holds.
"""

from __future__ import annotations

import threading
import uuid

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
