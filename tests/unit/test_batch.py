"""The batch helper against botocore's Stubber: moto never leaves items unprocessed."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from boto3.dynamodb.types import TypeSerializer
from botocore.stub import Stubber

from chalicelib.data import batch
from chalicelib.errors import BatchUnprocessedError, InvalidRequestError

TABLE = "t"


@pytest.fixture
def ddb() -> Any:
    resource = boto3.resource("dynamodb", region_name="us-east-1", endpoint_url="http://127.0.0.1:9")
    return resource.meta.client


def puts(n: int, start: int = 0) -> list[dict[str, Any]]:
    return [{"PutRequest": {"Item": {"PK": f"k{i}", "SK": f"k{i}"}}} for i in range(start, start + n)]


def keys(n: int) -> list[dict[str, str]]:
    return [{"PK": f"k{i}", "SK": f"k{i}"} for i in range(n)]


_serializer = TypeSerializer()


def wire(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Requests as DynamoDB sends them back in UnprocessedItems (AttributeValue form)."""
    return [
        {"PutRequest": {"Item": {k: _serializer.serialize(v) for k, v in r["PutRequest"]["Item"].items()}}}
        for r in requests
    ]


class Sleeps(list[float]):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def test_writes_in_chunks_of_25(ddb: Any) -> None:
    # GIVEN 60 puts and a DynamoDB that processes everything
    requests = puts(60)
    with Stubber(ddb) as stub:
        for chunk in (requests[:25], requests[25:50], requests[50:]):
            stub.add_response("batch_write_item", {"UnprocessedItems": {}}, {"RequestItems": {TABLE: chunk}})
        # WHEN they are written
        written = batch.batch_write({TABLE: requests}, client=ddb, sleep=Sleeps())
        # THEN three requests of at most 25 were made, in order
        stub.assert_no_pending_responses()
    assert written == 60


def test_unprocessed_items_are_retried_with_backoff(ddb: Any) -> None:
    # GIVEN a batch where DynamoDB leaves two items, then one, then none
    requests = puts(5)
    sleeps = Sleeps()
    with Stubber(ddb) as stub:
        stub.add_response(
            "batch_write_item", {"UnprocessedItems": {TABLE: wire(requests[3:])}}, {"RequestItems": {TABLE: requests}}
        )
        stub.add_response(
            "batch_write_item",
            {"UnprocessedItems": {TABLE: wire(requests[4:])}},
            {"RequestItems": {TABLE: requests[3:]}},
        )
        stub.add_response("batch_write_item", {"UnprocessedItems": {}}, {"RequestItems": {TABLE: requests[4:]}})
        # WHEN written
        batch.batch_write({TABLE: requests}, client=ddb, sleep=sleeps)
        stub.assert_no_pending_responses()
    # THEN only the leftovers were re-sent, after a jittered, bounded pause each time
    assert len(sleeps) == 2
    assert 0 <= sleeps[0] <= batch.BACKOFF_BASE_SECONDS * 2
    assert 0 <= sleeps[1] <= batch.BACKOFF_BASE_SECONDS * 4


def test_throttling_counts_as_an_attempt_and_is_retried(ddb: Any) -> None:
    # GIVEN DynamoDB throttles the whole request twice, then accepts it
    requests = puts(3)
    with Stubber(ddb) as stub:
        for _ in range(2):
            stub.add_client_error(
                "batch_write_item", service_error_code="ProvisionedThroughputExceededException", http_status_code=400
            )
        stub.add_response("batch_write_item", {"UnprocessedItems": {}}, {"RequestItems": {TABLE: requests}})
        # WHEN written
        written = batch.batch_write({TABLE: requests}, client=ddb, sleep=Sleeps())
        stub.assert_no_pending_responses()
    # THEN everything was written in the end
    assert written == 3


def test_exhausted_attempts_raise_with_exactly_the_leftovers(ddb: Any) -> None:
    # GIVEN two chunks; the first never fully succeeds, the second does
    requests = puts(27)
    with Stubber(ddb) as stub:
        for _ in range(batch.MAX_ATTEMPTS - 1):
            stub.add_response("batch_write_item", {"UnprocessedItems": {TABLE: wire(requests[:2])}})
        stub.add_client_error("batch_write_item", service_error_code="ThrottlingException", http_status_code=400)
        stub.add_response("batch_write_item", {"UnprocessedItems": {}}, {"RequestItems": {TABLE: requests[25:]}})
        # WHEN written
        with pytest.raises(BatchUnprocessedError) as caught:
            batch.batch_write({TABLE: requests}, client=ddb, sleep=Sleeps())
        stub.assert_no_pending_responses()
    # THEN the error carries the two unprocessed puts, after 7 attempts, and the rest was written
    assert caught.value.items == {TABLE: requests[:2]}
    assert caught.value.count == 2
    assert caught.value.attempts == batch.MAX_ATTEMPTS
    assert caught.value.retryable


def test_non_throttling_errors_are_translated_not_retried(ddb: Any) -> None:
    with Stubber(ddb) as stub:
        stub.add_client_error("batch_write_item", service_error_code="ValidationException", http_status_code=400)
        with pytest.raises(InvalidRequestError):
            batch.batch_write({TABLE: puts(1)}, client=ddb, sleep=Sleeps())


def test_put_items_writes_a_repeated_key_once_with_its_last_version(ddb: Any) -> None:
    items = [{"PK": "a", "SK": "a", "v": 1}, {"PK": "b", "SK": "b"}, {"PK": "a", "SK": "a", "v": 2}]
    expected = [
        {"PutRequest": {"Item": {"PK": "a", "SK": "a", "v": 2}}},
        {"PutRequest": {"Item": {"PK": "b", "SK": "b"}}},
    ]
    with Stubber(ddb) as stub:
        stub.add_response("batch_write_item", {"UnprocessedItems": {}}, {"RequestItems": {TABLE: expected}})
        assert batch.put_items(TABLE, items, ("PK", "SK"), client=ddb, sleep=Sleeps()) == 2


def test_reads_in_chunks_of_100_and_retries_unprocessed_keys(ddb: Any) -> None:
    # GIVEN 150 keys; the first chunk leaves 10 keys unprocessed once
    wanted = keys(150)
    with Stubber(ddb) as stub:
        stub.add_response(
            "batch_get_item",
            {
                "Responses": {TABLE: [{"PK": {"S": k["PK"]}, "SK": {"S": k["SK"]}} for k in wanted[:90]]},
                "UnprocessedKeys": {
                    TABLE: {"Keys": [{"PK": {"S": k["PK"]}, "SK": {"S": k["SK"]}} for k in wanted[90:100]]}
                },
            },
        )
        stub.add_response(
            "batch_get_item",
            {"Responses": {TABLE: [{"PK": {"S": k["PK"]}, "SK": {"S": k["SK"]}} for k in wanted[90:100]]}},
        )
        stub.add_response(
            "batch_get_item",
            {"Responses": {TABLE: [{"PK": {"S": k["PK"]}, "SK": {"S": k["SK"]}} for k in wanted[100:]]}},
        )
        # WHEN read
        found = batch.batch_get(TABLE, wanted + wanted[:5], client=ddb, sleep=Sleeps())
        stub.assert_no_pending_responses()
    # THEN every key came back once (duplicates collapsed)
    assert sorted(i["PK"] for i in found) == sorted(k["PK"] for k in wanted)


def test_read_leftovers_raise_after_seven_attempts(ddb: Any) -> None:
    wanted = keys(3)
    with Stubber(ddb) as stub:
        for _ in range(batch.MAX_ATTEMPTS):  # fresh dicts: boto3 deserialises responses in place
            left = [{"PK": {"S": k["PK"]}, "SK": {"S": k["SK"]}} for k in wanted[2:]]
            stub.add_response("batch_get_item", {"Responses": {TABLE: []}, "UnprocessedKeys": {TABLE: {"Keys": left}}})
        with pytest.raises(BatchUnprocessedError) as caught:
            batch.batch_get(TABLE, wanted, client=ddb, sleep=Sleeps())
    assert caught.value.items == {TABLE: {"Keys": [wanted[2]]}}


def test_backoff_is_capped() -> None:
    assert batch.backoff_delay(30, rand=lambda: 1.0) == batch.BACKOFF_CAP_SECONDS
    assert batch.backoff_delay(1, rand=lambda: 0.0) == 0.0
