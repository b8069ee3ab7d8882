"""Lambda's stream semantics, shared by Kinesis and DynamoDB streams.

One :class:`ShardConsumer` per (function, shard) plays the part of an event source
mapping's shard poller:

* records are delivered in order, at most ``batch_size`` (and 6 MB of event) at a time;
  with a batching window, a short batch waits until the window since its first record
  has passed;
* records no filter matches are dropped before batching (and count as processed);
* a partial batch response checkpoints just before the failed record with the lowest
  sequence number and retries from it; nothing after it is delivered until it succeeds;
* an error (exception, timeout, invalid response) retries the batch; with
  BisectBatchOnFunctionError the batch is split in halves, first half first,
  recursively, until the failing record is alone;
* retries are unlimited (Lambda's default ``MaximumRetryAttempts`` of -1): a record is
  retried until it outlives the stream's retention, but retries back off exponentially
  so a poison record does not spin the CPU.

A :class:`ShardGroup` follows the shard lineage: a child shard is read only once its
parent is fully processed, as Lambda does after a reshard.
"""

from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ops.runtime.invoker import BatchOutcome, Invoker
from ops.runtime.patterns import FilterCriteria

#: Lambda's synchronous invocation payload limit.
MAX_EVENT_BYTES = 6 * 1024 * 1024
_ENVELOPE_BYTES = len('{"Records": []}')


@dataclass(frozen=True)
class StreamRecord:
    sequence: str
    #: The record exactly as Lambda puts it in ``event["Records"]``.
    record: dict[str, Any]
    #: When the record reached the stream (epoch seconds), for retention.
    arrival: float
    size: int

    @classmethod
    def of(cls, sequence: str, record: dict[str, Any], arrival: float) -> StreamRecord:
        return cls(sequence, record, arrival, len(json.dumps(record)) + 2)


class ShardReader(Protocol):
    shard_id: str

    def read(self, limit: int) -> list[StreamRecord] | None:
        """The next records of the shard (possibly none); None once a closed shard is exhausted."""
        ...


@dataclass(frozen=True)
class ShardInfo:
    shard_id: str
    parent_id: str | None
    closed: bool


@dataclass(frozen=True)
class Backoff:
    """Exponential retry delays for stream batches that keep failing."""

    first: float = 0.05
    maximum: float = 2.0

    def after(self, attempt: int) -> float:
        return float(min(self.maximum, self.first * (2 ** max(0, attempt - 1))))


@dataclass
class ShardConsumer:
    function: str
    source: str
    reader: ShardReader
    batch_size: int
    batching_window: float
    bisect_on_error: bool
    filters: FilterCriteria
    retention_seconds: float
    invoker: Invoker
    backoff: Backoff
    on_checkpoint: Callable[[str], None]
    wall_clock: Callable[[], float] = time.time
    _buffer: deque[StreamRecord] = field(default_factory=deque)
    #: Sizes of the sub-batches still to run after a bisect; the last entry runs next.
    _plan: list[int] = field(default_factory=list)
    _failures_in_row: int = 0
    _retry_at: float = 0.0
    _first_buffered_at: float = 0.0
    _read_through: str | None = None
    _exhausted: bool = False
    _caught_up: bool = False

    @property
    def finished(self) -> bool:
        """A closed shard whose every record is processed."""
        return self._exhausted and not self._buffer

    @property
    def idle(self) -> bool:
        return self.finished or (self._caught_up and not self._buffer)

    def pending(self) -> str:
        if self._buffer:
            head = self._buffer[0].sequence
            return f"{self.source}: {len(self._buffer)} record(s) buffered from {head} ({self._failures_in_row} failed)"
        return f"{self.source}: not caught up"

    def poll(self) -> bool:
        """Read and deliver at most one batch; True when anything happened."""
        if self.finished or time.monotonic() < self._retry_at:
            return False
        worked = self._fill()
        worked = self._drop_expired() or worked
        batch = self._next_batch()
        if not batch:
            return worked
        outcome = self.invoker.deliver_batch(
            self.function, self.source, [r.record for r in batch], [r.sequence for r in batch]
        )
        self._settle(batch, outcome)
        return True

    # --- reading ----------------------------------------------------------------------

    def _fill(self) -> bool:
        if len(self._buffer) >= self.batch_size or self._exhausted:
            self._caught_up = self._exhausted
            return False
        fetched = self.reader.read(max(self.batch_size, 100))
        if fetched is None:
            self._exhausted = True
            self._caught_up = True
            return False
        self._caught_up = not fetched
        for record in fetched:
            self._read_through = record.sequence
            if self.filters.accepts(record.record):
                if not self._buffer:
                    self._first_buffered_at = time.monotonic()
                self._buffer.append(record)
            else:
                self.invoker.stats_for(self.function).filtered += 1
        if fetched and not self._buffer:
            self._advance_checkpoint()
        return bool(fetched)

    def _drop_expired(self) -> bool:
        horizon = self.wall_clock() - self.retention_seconds
        dropped: list[StreamRecord] = []
        while self._buffer and self._buffer[0].arrival < horizon:
            dropped.append(self._buffer.popleft())
        if dropped:
            self.invoker.stats_for(self.function).expired += len(dropped)
            self._plan.clear()
            self._advance_checkpoint(dropped[-1].sequence)
        return bool(dropped)

    def _next_batch(self) -> list[StreamRecord]:
        if not self._buffer:
            return []
        size = self._plan[-1] if self._plan else self.batch_size
        waiting = time.monotonic() - self._first_buffered_at < self.batching_window
        if not self._plan and len(self._buffer) < size and waiting and not self._exhausted:
            return []
        batch: list[StreamRecord] = []
        total = _ENVELOPE_BYTES
        for record in self._buffer:
            if len(batch) == size or (batch and total + record.size > MAX_EVENT_BYTES):
                break
            batch.append(record)
            total += record.size
        return batch

    # --- outcomes ---------------------------------------------------------------------

    def _settle(self, batch: list[StreamRecord], outcome: BatchOutcome) -> None:
        if outcome.ok:
            self._done(batch)
            self._shrink_plan(len(batch))
            self._failures_in_row = 0
            return
        if outcome.error is None:
            # Partial failure: checkpoint before the lowest failed sequence number, retry from it.
            first_failed = next(i for i, r in enumerate(batch) if r.sequence in outcome.failed)
            self._done(batch[:first_failed])
            self._shrink_plan(first_failed)
            self._retry_later()
            return
        if self.bisect_on_error and len(batch) > 1:
            self._shrink_plan(len(batch))
            half = len(batch) // 2
            self._plan += [len(batch) - half, half]
            return
        self._retry_later()

    def _shrink_plan(self, processed: int) -> None:
        """Account ``processed`` records against the sub-batch at the top of the bisect plan."""
        if not self._plan:
            return
        remaining = self._plan.pop() - processed
        if remaining > 0:
            self._plan.append(remaining)

    def _retry_later(self) -> None:
        self._failures_in_row += 1
        self._retry_at = time.monotonic() + self.backoff.after(self._failures_in_row)

    def _done(self, records: list[StreamRecord]) -> None:
        for _ in records:
            self._buffer.popleft()
        if records:
            self._advance_checkpoint(records[-1].sequence)

    def _advance_checkpoint(self, through: str | None = None) -> None:
        """Checkpoint past everything processed, filtered or expired before the buffer head."""
        if not self._buffer and self._read_through is not None:
            through = self._read_through
        if through is not None:
            self.on_checkpoint(through)


@dataclass
class ShardGroup:
    """The consumers of every shard of one stream for one function, in lineage order."""

    list_shards: Callable[[], list[ShardInfo]]
    make_consumer: Callable[[ShardInfo, bool], ShardConsumer]
    refresh_seconds: float = 10.0
    _consumers: dict[str, ShardConsumer] = field(default_factory=dict)
    _parents: dict[str, str | None] = field(default_factory=dict)
    _refreshed_at: float | None = None

    def poll(self) -> bool:
        self.refresh(force=False)
        worked = False
        for shard_id, consumer in list(self._consumers.items()):
            if self._ready(shard_id):
                worked = consumer.poll() or worked
        return worked

    def idle(self) -> bool:
        # A child waiting for its parent has nothing to do before the parent finishes, so
        # it is as idle as the parent (moto never finishes a closed parent shard).
        self.refresh(force=True)
        return all(
            consumer.idle if self._ready(shard_id) else self._consumers[self._parents[shard_id] or ""].idle
            for shard_id, consumer in self._consumers.items()
        )

    def pending(self) -> list[str]:
        return [c.pending() for c in self._consumers.values() if not c.idle]

    def _ready(self, shard_id: str) -> bool:
        parent = self._parents.get(shard_id)
        return parent is None or parent not in self._consumers or self._consumers[parent].finished

    def refresh(self, force: bool = True) -> None:
        """Pick up shards created since the last look (a reshard)."""
        now = time.monotonic()
        if not force and self._refreshed_at is not None and now - self._refreshed_at < self.refresh_seconds:
            return
        initial = self._refreshed_at is None
        self._refreshed_at = now
        for shard in self.list_shards():
            if shard.shard_id not in self._consumers:
                self._consumers[shard.shard_id] = self.make_consumer(shard, initial)
                self._parents[shard.shard_id] = shard.parent_id
