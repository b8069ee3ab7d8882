"""Shard lineage after a reshard, with an in-memory stream (moto never closes a parent shard)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from chalice import Chalice

from ops.runtime.invoker import Invoker
from ops.runtime.patterns import FilterCriteria
from ops.runtime.shards import Backoff, ShardConsumer, ShardGroup, ShardInfo, StreamRecord


@dataclass
class MemoryShard:
    """A shard holding ``records``; closed ones end (read returns None) once read."""

    shard_id: str
    records: list[int]
    closed: bool
    _position: int = 0

    def read(self, limit: int) -> list[StreamRecord] | None:
        if self._position >= len(self.records) and self.closed:
            return None
        batch = self.records[self._position : self._position + limit]
        self._position += len(batch)
        return [StreamRecord.of(str(n), {"n": n}, time.time()) for n in batch]


@dataclass
class Delivered:
    batches: list[list[int]] = field(default_factory=list)


def consumer_group(shards: dict[str, tuple[str | None, MemoryShard]], delivered: Delivered) -> ShardGroup:
    app = Chalice(app_name="rt-shards", configure_logs=False)

    @app.lambda_function(name="consume")
    def consume(event: dict[str, Any], context: Any) -> None:
        delivered.batches.append([r["n"] for r in event["Records"]])

    invoker = Invoker(app, "dev", "us-east-1", {})
    checkpoints: list[str] = []

    def make(info: ShardInfo, initial: bool) -> ShardConsumer:
        return ShardConsumer(
            function="consume",
            source=info.shard_id,
            reader=shards[info.shard_id][1],
            batch_size=10,
            batching_window=0,
            bisect_on_error=False,
            filters=FilterCriteria(),
            retention_seconds=3600,
            invoker=invoker,
            backoff=Backoff(),
            on_checkpoint=checkpoints.append,
        )

    def list_shards() -> list[ShardInfo]:
        return [ShardInfo(sid, parent, shard.closed) for sid, (parent, shard) in shards.items()]

    return ShardGroup(list_shards, make)


def test_children_are_read_only_after_their_parent_is_finished() -> None:
    # GIVEN a closed parent shard with three records and two children listed before it
    delivered = Delivered()
    shards = {
        "child-a": ("parent", MemoryShard("child-a", [10, 11], closed=False)),
        "child-b": ("parent", MemoryShard("child-b", [20], closed=False)),
        "parent": (None, MemoryShard("parent", [1, 2, 3], closed=True)),
    }
    group = consumer_group(shards, delivered)
    # WHEN polled until idle
    for _ in range(10):
        if not group.poll() and group.idle():
            break
    # THEN the parent's records came first, then the children's
    assert delivered.batches[0] == [1, 2, 3]
    assert sorted(delivered.batches[1:]) == [[10, 11], [20]]
    assert group.idle()


def test_a_child_waiting_on_an_unfinished_idle_parent_does_not_keep_the_group_busy() -> None:
    # GIVEN a parent that never ends (as in moto) and a child with nothing to read yet
    delivered = Delivered()
    shards = {
        "parent": (None, MemoryShard("parent", [1], closed=False)),
        "child": ("parent", MemoryShard("child", [], closed=False)),
    }
    group = consumer_group(shards, delivered)
    group.poll()
    group.poll()
    # THEN once the parent is caught up the group is idle
    assert delivered.batches == [[1]]
    assert group.idle()


def test_a_record_failing_until_it_outlives_retention_is_dropped_and_the_shard_moves_on() -> None:
    # GIVEN a shard whose first record always fails, and a clock we can move
    now = [time.time()]
    attempts: list[list[int]] = []
    app = Chalice(app_name="rt-shards", configure_logs=False)

    @app.lambda_function(name="consume")
    def consume(event: dict[str, Any], context: Any) -> dict[str, Any]:
        numbers = [r["n"] for r in event["Records"]]
        attempts.append(numbers)
        return {"batchItemFailures": [{"itemIdentifier": "1"}]} if 1 in numbers else {}

    invoker = Invoker(app, "dev", "us-east-1", {})
    checkpoints: list[str] = []
    consumer = ShardConsumer(
        function="consume",
        source="shard",
        reader=MemoryShard("shard", [1, 2, 3], closed=False),
        batch_size=10,
        batching_window=0,
        bisect_on_error=False,
        filters=FilterCriteria(),
        retention_seconds=3600,
        invoker=invoker,
        backoff=Backoff(first=0.0, maximum=0.0),
        on_checkpoint=checkpoints.append,
        wall_clock=lambda: now[0],
    )
    # WHEN it fails twice, then the records are older than the stream's retention
    consumer.poll()
    consumer.poll()
    now[0] += 3601
    consumer.poll()
    # THEN the failed records expired with it (all three arrived together) and were checkpointed past
    assert attempts == [[1, 2, 3], [1, 2, 3]]
    assert invoker.stats["consume"].expired == 3
    assert checkpoints[-1] == "3"
    assert not consumer.poll()
    assert consumer.idle
