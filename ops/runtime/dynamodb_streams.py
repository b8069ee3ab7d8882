"""DynamoDB Streams -> handler, shaped exactly like Lambda's DynamoDB event.

The stream is found with ``DescribeTable`` on the declared table (the ARN Chalice holds
is a placeholder until deploy). Records get what moto leaves out: ``eventSourceARN``,
the epoch-seconds ``ApproximateCreationDateTime`` Chalice's ``DynamoDBRecord`` indexes,
base64 binary values, and, for the REMOVE records the TTL emulation caused, Lambda's
``userIdentity`` of the DynamoDB service.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from botocore.exceptions import ClientError

from chalicelib.aws.clients import client
from chalicelib.aws.errors import error_code
from ops.runtime.discovery import DynamoStreamSpec
from ops.runtime.errors import RuntimeConfigError, SourceNotFoundError
from ops.runtime.invoker import Invoker
from ops.runtime.shards import Backoff, ShardGroup, ShardInfo, StreamRecord
from ops.runtime.state import RuntimeState
from ops.runtime.streams import IteratorReader, StreamPoller

#: DynamoDB Streams keep records for 24 hours.
STREAM_RETENTION_SECONDS = 24 * 3600.0
#: What Lambda puts on REMOVE records that TTL expiry (not a user) caused.
TTL_USER_IDENTITY = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}


def dynamodb_record(raw: dict[str, Any], stream_arn: str, region: str, by_ttl: bool) -> StreamRecord:
    """Lambda's record for one ``GetRecords`` entry of a DynamoDB stream."""
    change = raw["dynamodb"]
    created = change["ApproximateCreationDateTime"]
    arrival = created.timestamp() if isinstance(created, datetime) else float(created)
    sequence = str(change["SequenceNumber"])
    dynamodb: dict[str, Any] = {"ApproximateCreationDateTime": int(arrival), "Keys": wire_item(change["Keys"])}
    for image in ("NewImage", "OldImage"):
        if image in change:
            dynamodb[image] = wire_item(change[image])
    dynamodb |= {
        "SequenceNumber": sequence,
        "SizeBytes": int(change["SizeBytes"]),
        "StreamViewType": change["StreamViewType"],
    }
    record: dict[str, Any] = {
        "eventID": raw["eventID"],
        "eventName": raw["eventName"],
        "eventVersion": "1.1",
        "eventSource": "aws:dynamodb",
        "awsRegion": region,
        "dynamodb": dynamodb,
        "eventSourceARN": stream_arn,
    }
    identity = raw.get("userIdentity") or (TTL_USER_IDENTITY if by_ttl else None)
    if identity:
        record["userIdentity"] = {"type": identity["type"], "principalId": identity["principalId"]}
    return StreamRecord.of(sequence, record, arrival)


def wire_item(item: dict[str, Any]) -> dict[str, Any]:
    """An item in DynamoDB JSON as it travels in Lambda events (binary as base64 text)."""
    return {name: _wire_value(value) for name, value in item.items()}


def _wire_value(value: dict[str, Any]) -> dict[str, Any]:
    (kind, payload), *_ = value.items()
    if kind == "B":
        return {"B": _b64(payload)}
    if kind == "BS":
        return {"BS": [_b64(p) for p in payload]}
    if kind == "M":
        return {"M": wire_item(payload)}
    if kind == "L":
        return {"L": [_wire_value(v) for v in payload]}
    return {kind: payload}


def _b64(payload: bytes | str) -> str:
    return base64.b64encode(payload).decode("ascii") if isinstance(payload, bytes) else payload


def latest_stream_arn(table_name: str) -> str:
    """The table's current stream, which is what an event source mapping would read."""
    try:
        table = client("dynamodb").describe_table(TableName=table_name)["Table"]
    except ClientError as exc:
        if error_code(exc) == "ResourceNotFoundException":
            raise SourceNotFoundError(f"no table {table_name!r}") from exc
        raise
    arn = table.get("LatestStreamArn")
    if not arn or not table.get("StreamSpecification", {}).get("StreamEnabled", False):
        raise RuntimeConfigError(f"table {table_name!r} has no stream enabled")
    return str(arn)


def list_stream_shards(stream_arn: str) -> list[ShardInfo]:
    streams = client("dynamodbstreams")
    shards: list[ShardInfo] = []
    kwargs: dict[str, Any] = {"StreamArn": stream_arn}
    while True:
        description = streams.describe_stream(**kwargs)["StreamDescription"]
        for shard in description.get("Shards", []):
            closed = "EndingSequenceNumber" in shard.get("SequenceNumberRange", {})
            shards.append(ShardInfo(shard["ShardId"], shard.get("ParentShardId"), closed))
        last = description.get("LastEvaluatedShardId")
        if not last:
            return shards
        kwargs["ExclusiveStartShardId"] = last


class DynamoShardReader(IteratorReader):
    """GetRecords on one shard of a table's stream."""

    max_records = 1000

    def __init__(
        self, stream_arn: str, shard_id: str, start: str, after: str | None, region: str, state: RuntimeState
    ) -> None:
        self.stream_arn, self.region, self.state = stream_arn, region, state
        super().__init__(shard_id, start, after)

    def _get_iterator(self, kind: str, after: str | None) -> str:
        kwargs: dict[str, Any] = {"StreamArn": self.stream_arn, "ShardId": self.shard_id, "ShardIteratorType": kind}
        if after is not None:
            kwargs["SequenceNumber"] = after
        return str(client("dynamodbstreams").get_shard_iterator(**kwargs)["ShardIterator"])

    def _get_records(self, iterator: str, limit: int) -> dict[str, Any]:
        return dict(client("dynamodbstreams").get_records(ShardIterator=iterator, Limit=limit))

    def _record(self, raw: dict[str, Any]) -> StreamRecord:
        sequence = str(raw["dynamodb"]["SequenceNumber"])
        by_ttl = self.state.is_service_remove(self.stream_arn, sequence)
        return dynamodb_record(raw, self.stream_arn, self.region, by_ttl=by_ttl)


@dataclass
class DynamoStreamPoller(StreamPoller):
    """One event source mapping: a table's stream feeding one function, through its filters."""

    spec: DynamoStreamSpec
    invoker: Invoker
    state: RuntimeState
    region: str
    backoff: Backoff
    _group: ShardGroup | None = None
    _stream_arn: str = ""
    _retention_seconds: float = STREAM_RETENTION_SECONDS

    @property
    def label(self) -> str:
        return f"dynamodb:{self.spec.table_name}"

    def _find_stream(self) -> None:
        self._stream_arn = latest_stream_arn(self.spec.table_name)
        self.state.adopt_stream(self._stream_arn, self._stream_arn.rsplit("/", 1)[-1])

    def _list_shards(self) -> list[ShardInfo]:
        return list_stream_shards(self._stream_arn)

    def _reader(self, shard_id: str, start: str, after: str | None) -> DynamoShardReader:
        return DynamoShardReader(self._stream_arn, shard_id, start, after, self.region, self.state)
