"""What a Kinesis stream and a DynamoDB stream share as event sources: a shard read through its
shard iterator, and one event source mapping's poller over the stream's shards. Each service's
module adds the names of its calls and the shape of Lambda's record."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from botocore.exceptions import ClientError

from chalicelib.aws.errors import error_code
from ops.runtime.discovery import DynamoStreamSpec, KinesisSpec
from ops.runtime.invoker import Invoker
from ops.runtime.shards import Backoff, ShardConsumer, ShardGroup, ShardInfo, StreamRecord
from ops.runtime.state import RuntimeState


class IteratorReader(ABC):
    """GetRecords on one shard, resuming after a checkpoint or else from the starting position
    (``TRIM_HORIZON``, or ``LATEST``: from when the runtime started). An expired iterator is
    renewed after the last record read."""

    #: The most records one GetRecords call may ask for.
    max_records: int

    def __init__(self, shard_id: str, start: str, after: str | None) -> None:
        self.shard_id = shard_id
        self.start = start
        self.after = after
        self._iterator: str | None = None
        self._closed = False
        if start == "LATEST" and after is None:
            self._iterator = self._new_iterator()

    def read(self, limit: int) -> list[StreamRecord] | None:
        if self._closed:
            return None
        if self._iterator is None:
            self._iterator = self._new_iterator()
        try:
            response = self._get_records(self._iterator, min(limit, self.max_records))
        except ClientError as exc:
            if error_code(exc) != "ExpiredIteratorException":
                raise
            self._iterator = self._new_iterator()
            response = self._get_records(self._iterator, min(limit, self.max_records))
        records = [self._record(raw) for raw in response.get("Records", [])]
        if records:
            self.after = records[-1].sequence
        self._iterator = response.get("NextShardIterator")
        if self._iterator is None:
            self._closed = True
        return records

    def _new_iterator(self) -> str:
        if self.after is not None:
            return self._get_iterator("AFTER_SEQUENCE_NUMBER", self.after)
        return self._get_iterator(self.start, None)

    @abstractmethod
    def _get_iterator(self, kind: str, after: str | None) -> str:
        """A ``GetShardIterator`` of ``kind``, after the sequence number ``after`` if given."""

    @abstractmethod
    def _get_records(self, iterator: str, limit: int) -> dict[str, Any]:
        """One ``GetRecords`` response."""

    @abstractmethod
    def _record(self, raw: dict[str, Any]) -> StreamRecord:
        """Lambda's record for one ``GetRecords`` entry."""


class StreamPoller(ABC):
    """One event source mapping: a stream feeding one function. The stream and its shards are
    found on first use; each shard is read by a :class:`ShardConsumer` from its checkpoint."""

    spec: KinesisSpec | DynamoStreamSpec
    invoker: Invoker
    state: RuntimeState
    backoff: Backoff
    _group: ShardGroup | None
    _stream_arn: str
    _retention_seconds: float

    @property
    @abstractmethod
    def label(self) -> str: ...

    @abstractmethod
    def _find_stream(self) -> None:
        """Find the stream: set ``_stream_arn`` and ``_retention_seconds``, adopt it in the state."""

    @abstractmethod
    def _list_shards(self) -> list[ShardInfo]: ...

    @abstractmethod
    def _reader(self, shard_id: str, start: str, after: str | None) -> IteratorReader: ...

    def start(self) -> None:
        self._shards()

    def poll(self) -> bool:
        return self._shards().poll()

    def idle(self) -> bool:
        return self._shards().idle()

    def pending(self) -> list[str]:
        return self._shards().pending()

    def _shards(self) -> ShardGroup:
        if self._group is None:
            self._find_stream()
            group = ShardGroup(self._list_shards, self._consumer)
            group.refresh()
            self._group = group
        return self._group

    def _consumer(self, shard: ShardInfo, initial: bool) -> ShardConsumer:
        function, stream_arn, shard_id = self.spec.function, self._stream_arn, shard.shard_id
        reader = self._reader(
            shard_id,
            self.spec.starting_position if initial else "TRIM_HORIZON",
            self.state.checkpoint(function, stream_arn, shard_id),
        )
        return ShardConsumer(
            function=function,
            source=f"{self.label}/{shard_id}",
            reader=reader,
            batch_size=self.spec.batch_size,
            batching_window=self.spec.batching_window,
            bisect_on_error=self.spec.options.bisect_on_error,
            filters=self.spec.options.filters,
            retention_seconds=self._retention_seconds,
            invoker=self.invoker,
            backoff=self.backoff,
            on_checkpoint=lambda seq: self.state.set_checkpoint(function, stream_arn, shard_id, seq),
        )
