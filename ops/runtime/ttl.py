"""TTL expiry, which moto never performs.

A sweep scans every declared table that has TTL enabled for rows whose TTL attribute
(epoch seconds, a Number) is in the past, and deletes each with a condition that it is
still expired, so a concurrent write that cleared or extended the TTL wins, as it would
against DynamoDB's own reaper. Like DynamoDB, it ignores TTL values more than five years
in the past (they are taken for mistakes, not expiries) and non-number TTL values.

Each deletion's REMOVE stream record is then located (reading forward from where the
stream's tip was before the deletes) and remembered, so the stream poller gives exactly
those records Lambda's ``userIdentity`` of the DynamoDB service. A user's own DeleteItem
stays without it. A Scan is fine here: this is local tooling, never an online path.
"""

from __future__ import annotations

import json
import logging
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from boto3.dynamodb.types import TypeDeserializer
from botocore.exceptions import ClientError

from chalicelib.aws.clients import client
from chalicelib.aws.errors import error_code
from ops.runtime.discovery import TtlTable
from ops.runtime.dynamodb_streams import list_stream_shards, wire_item
from ops.runtime.state import RuntimeState
from ops.runtime.stats import TtlReport

log = logging.getLogger("ops.runtime")

#: DynamoDB does not delete items whose TTL lies more than five years in the past.
IGNORED_AFTER_SECONDS = 5 * 365 * 24 * 3600
#: How long to wait for a deletion's REMOVE record to show up on the stream.
STREAM_LOOKUP_SECONDS = 5.0

#: Expired at ``:now``; the type test comes first so non-number TTLs never reach the
#: comparisons (DynamoDB ignores them; moto would fail comparing a string with a number).
EXPIRED = "attribute_type(#ttl, :number) AND #ttl < :now AND #ttl >= :floor"

_deserializer = TypeDeserializer()


def _expired_values(now: int) -> dict[str, Any]:
    return {":number": {"S": "N"}, ":now": {"N": str(now)}, ":floor": {"N": str(now - IGNORED_AFTER_SECONDS)}}


@dataclass
class TtlSweeper:
    tables: tuple[TtlTable, ...]
    state: RuntimeState

    def expire(self, now: float) -> TtlReport:
        """Delete every row expired at ``now`` (epoch seconds) and mark their stream records."""
        deleted: list[tuple[str, dict[str, object]]] = []
        spared = 0
        for table in self.tables:
            table_deleted, table_spared = self._expire_table(table, int(now))
            deleted += [(table.name, _plain(key)) for key in table_deleted]
            spared += table_spared
        return TtlReport(tuple(deleted), spared)

    def _expire_table(self, table: TtlTable, now: int) -> tuple[list[dict[str, Any]], int]:
        ddb = client("dynamodb")
        ttl = ddb.describe_time_to_live(TableName=table.name)["TimeToLiveDescription"]
        if ttl.get("TimeToLiveStatus") != "ENABLED":
            log.debug("TTL is not enabled on %s; nothing expires there", table.name)
            return [], 0
        attribute = str(ttl["AttributeName"])
        description = ddb.describe_table(TableName=table.name)["Table"]
        key_names = [k["AttributeName"] for k in description["KeySchema"]]
        streaming = description.get("StreamSpecification", {}).get("StreamEnabled", False)
        stream_arn = description.get("LatestStreamArn") if streaming else None
        tips = _stream_tips(stream_arn) if stream_arn else []
        deleted: list[dict[str, Any]] = []
        spared = 0
        for key in _expired_keys(table.name, attribute, key_names, now):
            if delete_if_expired(table.name, key, attribute, now):
                deleted.append(key)
            else:
                spared += 1
        if stream_arn and deleted:
            self._mark_removes(stream_arn, tips, deleted)
        return deleted, spared

    def _mark_removes(self, stream_arn: str, tips: list[str], keys: list[dict[str, Any]]) -> None:
        pending = Counter(_canonical(key) for key in keys)
        streams = client("dynamodbstreams")
        deadline = time.monotonic() + STREAM_LOOKUP_SECONDS
        iterators = list(tips)
        while pending and iterators and time.monotonic() < deadline:
            advanced: list[str] = []
            found = False
            for iterator in iterators:
                response = streams.get_records(ShardIterator=iterator, Limit=1000)
                for raw in response.get("Records", []):
                    found = True
                    canonical = _canonical(raw["dynamodb"]["Keys"])
                    if raw["eventName"] == "REMOVE" and pending[canonical] > 0:
                        pending[canonical] -= 1
                        self.state.mark_service_remove(stream_arn, str(raw["dynamodb"]["SequenceNumber"]))
                if response.get("NextShardIterator"):
                    advanced.append(response["NextShardIterator"])
            iterators = advanced
            pending = +pending
            if not found:
                time.sleep(0.05)
        if pending:
            log.warning(
                "TTL: %d REMOVE record(s) not found on %s; they will lack userIdentity",
                sum(pending.values()),
                stream_arn,
            )


def delete_if_expired(table_name: str, key: dict[str, Any], attribute: str, now: int) -> bool:
    """Delete the row at ``key`` only if its TTL is still expired at ``now``; True if deleted."""
    try:
        client("dynamodb").delete_item(
            TableName=table_name,
            Key=key,
            ConditionExpression=EXPIRED,
            ExpressionAttributeNames={"#ttl": attribute},
            ExpressionAttributeValues=_expired_values(now),
        )
    except ClientError as exc:
        if error_code(exc) == "ConditionalCheckFailedException":
            return False
        raise
    return True


def _expired_keys(table_name: str, attribute: str, key_names: list[str], now: int) -> Iterator[dict[str, Any]]:
    names = {f"#k{i}": name for i, name in enumerate(key_names)} | {"#ttl": attribute}
    kwargs: dict[str, Any] = {
        "TableName": table_name,
        "FilterExpression": EXPIRED,
        "ProjectionExpression": ", ".join(names),
        "ExpressionAttributeNames": names,
        "ExpressionAttributeValues": _expired_values(now),
        "ConsistentRead": True,
    }
    while True:
        page = client("dynamodb").scan(**kwargs)
        for item in page.get("Items", []):
            yield {name: item[name] for name in key_names}
        if "LastEvaluatedKey" not in page:
            return
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def _stream_tips(stream_arn: str) -> list[str]:
    streams = client("dynamodbstreams")
    return [
        str(
            streams.get_shard_iterator(StreamArn=stream_arn, ShardId=shard.shard_id, ShardIteratorType="LATEST")[
                "ShardIterator"
            ]
        )
        for shard in list_stream_shards(stream_arn)
        if not shard.closed
    ]


def _canonical(key: dict[str, Any]) -> str:
    return json.dumps(wire_item(key), sort_keys=True)


def _plain(key: dict[str, Any]) -> dict[str, object]:
    return {name: _deserializer.deserialize(value) for name, value in key.items()}
