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
from ops.runtime.shards import Backoff, ShardGroup, ShardInfo, StreamRecord
from ops.runtime.state import RuntimeState
from ops.runtime.streams import IteratorReader, StreamPoller


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


class KinesisShardReader(IteratorReader):
    """GetRecords on one shard of a Kinesis stream."""

    max_records = 10000

    def __init__(
        self,
        stream_name: str,
        stream_arn: str,
        shard_id: str,
        start: str,
        after: str | None,
        region: str,
        role_arn: str,
    ) -> None:
        self.stream_name, self.stream_arn, self.region, self.role_arn = stream_name, stream_arn, region, role_arn
        super().__init__(shard_id, start, after)

    def _get_iterator(self, kind: str, after: str | None) -> str:
        kwargs: dict[str, Any] = {"StreamName": self.stream_name, "ShardId": self.shard_id, "ShardIteratorType": kind}
        if after is not None:
            kwargs["StartingSequenceNumber"] = after
        return str(client("kinesis").get_shard_iterator(**kwargs)["ShardIterator"])

    def _get_records(self, iterator: str, limit: int) -> dict[str, Any]:
        return dict(client("kinesis").get_records(ShardIterator=iterator, Limit=limit))

    def _record(self, raw: dict[str, Any]) -> StreamRecord:
        return kinesis_record(raw, self.shard_id, self.stream_arn, self.region, self.role_arn)


@dataclass
class KinesisPoller(StreamPoller):
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

    def _find_stream(self) -> None:
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

    def _reader(self, shard_id: str, start: str, after: str | None) -> KinesisShardReader:
        return KinesisShardReader(
            self.spec.stream_name, self._stream_arn, shard_id, start, after, self.region, self.role_arn
        )


def role_arn(app_name: str, stage: str) -> str:
    """The role Chalice creates by default, as Lambda reports it in ``invokeIdentityArn``."""
    return f"arn:aws:iam::{LOCAL_ACCOUNT}:role/{app_name}-{stage}"
