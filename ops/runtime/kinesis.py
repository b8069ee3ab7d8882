"""Kinesis Data Streams -> handler, shaped exactly like Lambda's Kinesis event."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError

from chalicelib.aws.clients import client
from chalicelib.aws.errors import error_code
from ops.runtime.context import LOCAL_ACCOUNT
from ops.runtime.discovery import KinesisSpec
from ops.runtime.errors import SourceNotFoundError
from ops.runtime.invoker import Invoker
from ops.runtime.shards import Backoff, ShardConsumer, ShardGroup, ShardInfo, StreamRecord
from ops.runtime.state import RuntimeState


def kinesis_record(raw: dict[str, Any], shard_id: str, stream_arn: str, region: str, role_arn: str) -> StreamRecord:
    """Lambda's record for one ``GetRecords`` entry."""
    sequence = str(raw["SequenceNumber"])
    arrival = raw["ApproximateArrivalTimestamp"].timestamp()
    record = {
        "kinesis": {
            "kinesisSchemaVersion": "1.0",
            "partitionKey": raw["PartitionKey"],
            "sequenceNumber": sequence,
            "data": base64.b64encode(raw["Data"]).decode("ascii"),
            "approximateArrivalTimestamp": arrival,
        },
        "eventSource": "aws:kinesis",
        "eventVersion": "1.0",
        "eventID": f"{shard_id}:{sequence}",
        "eventName": "aws:kinesis:record",
        "invokeIdentityArn": role_arn,
        "awsRegion": region,
        "eventSourceARN": stream_arn,
    }
    return StreamRecord.of(sequence, record, arrival)


@dataclass
class KinesisShardReader:
    """GetRecords on one shard, resuming after a checkpoint or from the starting position."""

    stream_name: str
    stream_arn: str
    shard_id: str
    start: str  # TRIM_HORIZON | LATEST
    after: str | None
    region: str
    role_arn: str
    _iterator: str | None = None
    _closed: bool = False

    def __post_init__(self) -> None:
        if self.start == "LATEST" and self.after is None:
            self._iterator = self._new_iterator()  # LATEST means "from when the runtime started"

    def read(self, limit: int) -> list[StreamRecord] | None:
        if self._closed:
            return None
        kinesis = client("kinesis")
        if self._iterator is None:
            self._iterator = self._new_iterator()
        try:
            response = kinesis.get_records(ShardIterator=self._iterator, Limit=min(limit, 10000))
        except ClientError as exc:
            if error_code(exc) != "ExpiredIteratorException":
                raise
            self._iterator = self._new_iterator()
            response = kinesis.get_records(ShardIterator=self._iterator, Limit=min(limit, 10000))
        records = [
            kinesis_record(r, self.shard_id, self.stream_arn, self.region, self.role_arn) for r in response["Records"]
        ]
        if records:
            self.after = records[-1].sequence
        self._iterator = response.get("NextShardIterator")
        if self._iterator is None:
            self._closed = True
        return records

    def _new_iterator(self) -> str:
        kwargs: dict[str, Any] = {"StreamName": self.stream_name, "ShardId": self.shard_id}
        if self.after is not None:
            kwargs |= {"ShardIteratorType": "AFTER_SEQUENCE_NUMBER", "StartingSequenceNumber": self.after}
        else:
            kwargs["ShardIteratorType"] = self.start
        return str(client("kinesis").get_shard_iterator(**kwargs)["ShardIterator"])


@dataclass
class KinesisPoller:
    """One event source mapping: a Kinesis stream feeding one function."""

    spec: KinesisSpec
    invoker: Invoker
    state: RuntimeState
    region: str
    role_arn: str
    backoff: Backoff
    _group: ShardGroup | None = None
    _stream_arn: str = ""
    _retention_seconds: float = 24 * 3600.0

    @property
    def label(self) -> str:
        return f"kinesis:{self.spec.stream_name}"

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
            self._group = self._resolve()
        return self._group

    def _resolve(self) -> ShardGroup:
        try:
            summary = client("kinesis").describe_stream_summary(StreamName=self.spec.stream_name)
        except ClientError as exc:
            if error_code(exc) == "ResourceNotFoundException":
                raise SourceNotFoundError(f"{self.spec.function}: no stream {self.spec.stream_name!r}") from exc
            raise
        description = summary["StreamDescriptionSummary"]
        self._stream_arn = description["StreamARN"]
        self._retention_seconds = float(description["RetentionPeriodHours"]) * 3600
        self.state.adopt_stream(self._stream_arn, description["StreamCreationTimestamp"].isoformat())
        group = ShardGroup(self._list_shards, self._consumer)
        group.refresh()
        return group

    def _list_shards(self) -> list[ShardInfo]:
        shards: list[ShardInfo] = []
        kwargs: dict[str, Any] = {"StreamName": self.spec.stream_name}
        while True:
            page = client("kinesis").list_shards(**kwargs)
            for shard in page["Shards"]:
                closed = "EndingSequenceNumber" in shard.get("SequenceNumberRange", {})
                shards.append(ShardInfo(shard["ShardId"], shard.get("ParentShardId"), closed))
            if not page.get("NextToken"):
                return shards
            kwargs = {"NextToken": page["NextToken"]}

    def _consumer(self, shard: ShardInfo, initial: bool) -> ShardConsumer:
        function = self.spec.function
        checkpoint = self.state.checkpoint(function, self._stream_arn, shard.shard_id)
        reader = KinesisShardReader(
            self.spec.stream_name,
            self._stream_arn,
            shard.shard_id,
            self.spec.starting_position if initial else "TRIM_HORIZON",
            checkpoint,
            self.region,
            self.role_arn,
        )
        return ShardConsumer(
            function=function,
            source=f"{self.label}/{shard.shard_id}",
            reader=reader,
            batch_size=self.spec.batch_size,
            batching_window=self.spec.batching_window,
            bisect_on_error=self.spec.options.bisect_on_error,
            filters=self.spec.options.filters,
            retention_seconds=self._retention_seconds,
            invoker=self.invoker,
            backoff=self.backoff,
            on_checkpoint=lambda seq: self.state.set_checkpoint(function, self._stream_arn, shard.shard_id, seq),
        )


def role_arn(app_name: str, stage: str) -> str:
    """The role Chalice creates by default, as Lambda reports it in ``invokeIdentityArn``."""
    return f"arn:aws:iam::{LOCAL_ACCOUNT}:role/{app_name}-{stage}"
