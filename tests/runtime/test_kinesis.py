"""Kinesis delivery: order, checkpoints, retry from the failed record, bisect, backoff."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from chalice.app import KinesisEvent

from chalicelib.aws.clients import client
from chalicelib.infra.declaration import Infrastructure
from ops.runtime import Backoff, EventRuntime
from tests.runtime.factories import Recorder, build_app, ok

pytestmark = pytest.mark.integration


def put(infra: Infrastructure, numbers: range, key: str = "item-1") -> None:
    for n in numbers:
        client("kinesis").put_record(
            StreamName=infra.streams[0].name, Data=json.dumps({"n": n}).encode(), PartitionKey=key
        )


def number(record: dict[str, Any]) -> int:
    return int(json.loads(base64.b64decode(record["kinesis"]["data"]))["n"])


def numbers(batch: list[dict[str, Any]]) -> list[int]:
    return [number(r) for r in batch]


def test_records_arrive_in_order_in_batches_shaped_like_lambdas(infra: Infrastructure, recorder: Recorder) -> None:
    # GIVEN 25 records of one partition key and a consumer with batch size 10
    put(infra, range(25))
    runtime = EventRuntime(build_app(infra, recorder, on_stream=ok), infra)
    # WHEN drained
    result = runtime.drain(timeout=10)
    # THEN they arrived in order, 10 at a time
    assert result.idle
    assert recorder.sizes("on_stream") == [10, 10, 5]
    assert numbers(recorder.records("on_stream")) == list(range(25))
    # AND each record is Lambda's Kinesis record, which Chalice's KinesisEvent parses
    record = recorder.records("on_stream")[0]
    stream_arn = f"arn:aws:kinesis:us-east-1:123456789012:stream/{infra.streams[0].name}"
    sequence = record["kinesis"]["sequenceNumber"]
    assert record["eventSource"] == "aws:kinesis"
    assert record["eventName"] == "aws:kinesis:record"
    assert record["eventSourceARN"] == stream_arn
    assert record["eventID"] == f"shardId-000000000000:{sequence}"
    assert record["kinesis"]["partitionKey"] == "item-1"
    assert record["kinesis"]["kinesisSchemaVersion"] == "1.0"
    assert isinstance(record["kinesis"]["approximateArrivalTimestamp"], float)
    parsed = next(iter(KinesisEvent({"Records": [record]}, None)))
    assert json.loads(parsed.data) == {"n": 0}
    assert parsed.sequence_number == sequence


def test_partial_failure_retries_from_the_failed_record_and_holds_back_later_ones(
    infra: Infrastructure, recorder: Recorder
) -> None:
    # GIVEN a refiner-like handler that applies records in order and fails on record 3 twice
    put(infra, range(6))
    applied: list[int] = []
    failures = [1, 1]

    def behaviour(records: list[dict[str, Any]]) -> dict[str, Any]:
        for record in records:
            if number(record) == 3 and failures:
                failures.pop()
                return {"batchItemFailures": [{"itemIdentifier": record["kinesis"]["sequenceNumber"]}]}
            applied.append(number(record))
        return {"batchItemFailures": []}

    runtime = EventRuntime(
        build_app(infra, recorder, on_stream=behaviour), infra, retry_backoff=Backoff(first=0.01, maximum=0.05)
    )
    # WHEN drained
    result = runtime.drain(timeout=10)
    # THEN the retries started at record 3, so 0-2 were applied once and 4-5 only after 3 succeeded
    assert [numbers(batch) for batch in recorder.batches["on_stream"]] == [[0, 1, 2, 3, 4, 5], [3, 4, 5], [3, 4, 5]]
    assert applied == [0, 1, 2, 3, 4, 5]
    assert result.of("on_stream").failures == 2


def atomic_handler(poison: int, failures: list[int], applied: list[int]) -> Any:
    """Raises (applying nothing) while the batch holds ``poison`` and ``failures`` remain."""

    def behaviour(records: list[dict[str, Any]]) -> None:
        if poison in numbers(records) and failures:
            failures.pop()
            raise ValueError(f"cannot refine record {poison}")
        applied.extend(numbers(records))

    return behaviour


def test_bisect_on_error_splits_the_batch_until_the_failing_record_is_alone(
    make_infra: Any, recorder: Recorder
) -> None:
    # GIVEN 8 records, a consumer declared with batch size 8 and BisectBatchOnFunctionError,
    # and a handler that raises whenever its batch holds record 4, the first four times
    infra = make_infra(kinesis_batch=8)
    put(infra, range(8))
    applied: list[int] = []
    behaviour = atomic_handler(4, [1, 1, 1, 1], applied)
    runtime = EventRuntime(
        build_app(infra, recorder, on_stream=behaviour), infra, retry_backoff=Backoff(first=0.01, maximum=0.05)
    )
    # WHEN drained
    result = runtime.drain(timeout=10)
    # THEN the batch was halved, first half first, down to record 4 alone, retried until it passed
    assert [numbers(b) for b in recorder.batches["on_stream"]] == [
        [0, 1, 2, 3, 4, 5, 6, 7],
        [0, 1, 2, 3],
        [4, 5, 6, 7],
        [4, 5],
        [4],
        [4],
        [5],
        [6, 7],
    ]
    assert applied == list(range(8))
    assert result.of("on_stream").errors == 4


def test_without_bisect_the_whole_batch_is_retried(make_infra: Any, recorder: Recorder) -> None:
    infra = make_infra(kinesis_batch=8)
    put(infra, range(8))
    applied: list[int] = []
    behaviour = atomic_handler(4, [1, 1], applied)
    runtime = EventRuntime(
        build_app(infra, recorder, on_stream_plain=behaviour), infra, retry_backoff=Backoff(first=0.01, maximum=0.05)
    )
    runtime.drain(timeout=10)
    assert recorder.sizes("on_stream_plain") == [8, 8, 8]
    assert applied == list(range(8))


def test_a_poison_record_is_retried_with_backoff_not_in_a_hot_loop(infra: Infrastructure, recorder: Recorder) -> None:
    # GIVEN a record that always fails, and records behind it
    put(infra, range(3))
    applied: list[int] = []
    behaviour = atomic_handler(0, [1] * 1000, applied)
    runtime = EventRuntime(
        build_app(infra, recorder, on_stream_plain=behaviour), infra, retry_backoff=Backoff(first=0.1, maximum=0.4)
    )
    # WHEN drained for 1.5 s
    result = runtime.drain(timeout=1.5, require_idle=False)
    # THEN it is still retrying (streams retry until the record expires), but only a few times,
    # and nothing behind the poison record was applied
    assert not result.idle
    assert 3 <= result.of("on_stream_plain").invocations <= 7
    assert applied == []
    assert any("kinesis:" in line for line in result.pending)


def test_checkpoints_persist_so_a_restarted_runtime_resumes(
    infra: Infrastructure, recorder: Recorder, tmp_path: Path
) -> None:
    # GIVEN a runtime with a state file that consumed three records
    state = tmp_path / "runtime-state.json"
    put(infra, range(3))
    EventRuntime(build_app(infra, recorder, on_stream=ok), infra, state_path=state).drain(timeout=10)
    # WHEN two more arrive and a new runtime starts from the same state file
    put(infra, range(3, 5))
    later = Recorder()
    EventRuntime(build_app(infra, later, on_stream=ok), infra, state_path=state).drain(timeout=10)
    # THEN it delivers only the new ones, while a runtime without state starts from TRIM_HORIZON
    assert numbers(later.records("on_stream")) == [3, 4]
    fresh = Recorder()
    EventRuntime(build_app(infra, fresh, on_stream=ok), infra).drain(timeout=10)
    assert numbers(fresh.records("on_stream")) == [0, 1, 2, 3, 4]


def test_latest_starting_position_skips_records_from_before_the_runtime(
    infra: Infrastructure, recorder: Recorder
) -> None:
    put(infra, range(2))
    runtime = EventRuntime(build_app(infra, recorder, on_stream=ok, starting_position="LATEST"), infra)
    put(infra, range(2, 4))
    runtime.drain(timeout=10)
    assert numbers(recorder.records("on_stream")) == [2, 3]


def test_duplicate_delivery_knob_delivers_every_batch_twice(infra: Infrastructure, recorder: Recorder) -> None:
    put(infra, range(3))
    result = EventRuntime(build_app(infra, recorder, on_stream=ok), infra, duplicate_delivery=True).drain(timeout=10)
    assert [numbers(b) for b in recorder.batches["on_stream"]] == [[0, 1, 2], [0, 1, 2]]
    assert result.of("on_stream").records == 6


def test_each_shard_keeps_its_own_order(make_infra: Any, recorder: Recorder) -> None:
    # GIVEN a two-shard stream and records of ten partition keys, five per key
    infra = make_infra(shards=2)
    for n in range(50):
        client("kinesis").put_record(
            StreamName=infra.streams[0].name, Data=json.dumps({"n": n}).encode(), PartitionKey=f"item-{n % 10}"
        )
    # WHEN drained
    EventRuntime(build_app(infra, recorder, on_stream=ok), infra).drain(timeout=10)
    # THEN every record arrived once, from both shards, and each key's records in order
    records = recorder.records("on_stream")
    assert sorted(numbers(records)) == list(range(50))
    assert {r["eventID"].split(":")[0] for r in records} == {"shardId-000000000000", "shardId-000000000001"}
    for key in range(10):
        mine = [number(r) for r in records if r["kinesis"]["partitionKey"] == f"item-{key}"]
        assert mine == sorted(mine)
