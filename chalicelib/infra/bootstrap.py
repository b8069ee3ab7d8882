"""Rendering (b) of the declaration: create its resources on a local endpoint, idempotently.

Run it against whatever ``AWS_ENDPOINT_URL`` names (moto server, LocalStack); running it
twice changes nothing the second time. It refuses to run without an endpoint override so
it can never be pointed at a real account by accident (deploy with ``chalice package``).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from botocore.exceptions import ClientError

from chalicelib.aws.clients import client, dynamodb
from chalicelib.aws.errors import error_code
from chalicelib.errors import ConfigurationError
from chalicelib.infra.declaration import (
    DLQ_RETENTION_SECONDS,
    QUEUE_RETENTION_SECONDS,
    EventBus,
    Infrastructure,
    Queue,
    Rule,
    Stream,
    Table,
    declare,
)
from chalicelib.settings import get_settings


@dataclass
class BootstrapReport:
    """What the bootstrap found or made, by resource name."""

    created: list[str] = field(default_factory=list)
    existing: list[str] = field(default_factory=list)
    queue_urls: dict[str, str] = field(default_factory=dict)
    stream_arns: dict[str, str] = field(default_factory=dict)

    def note(self, name: str, created: bool) -> None:
        (self.created if created else self.existing).append(name)


def bootstrap(infra: Infrastructure | None = None) -> BootstrapReport:
    """Create every declared resource that is missing; return what exists afterwards."""
    if not get_settings().aws_endpoint_url:
        raise ConfigurationError("AWS_ENDPOINT_URL is not set: the bootstrap only targets a local endpoint")
    infra = infra or declare()
    report = BootstrapReport()
    for table in infra.tables:
        report.stream_arns.update(_ensure_table(table, report))
    for queue in infra.queues:
        report.queue_urls[queue.logical_id] = _ensure_queue(queue, report)
    for stream in infra.streams:
        _ensure_stream(stream, report)
    for bus in infra.buses:
        _ensure_bus(bus, report)
    for rule in infra.rules:
        _ensure_rule(infra, rule, report)
    return report


# --- tables ---------------------------------------------------------------------------


def table_definition(table: Table) -> dict[str, Any]:
    """The CreateTable request for ``table`` (shared with tests that compare renderings)."""
    key_schema = [{"AttributeName": table.hash_key, "KeyType": "HASH"}]
    if table.range_key:
        key_schema.append({"AttributeName": table.range_key, "KeyType": "RANGE"})
    request: dict[str, Any] = {
        "TableName": table.name,
        "KeySchema": key_schema,
        "AttributeDefinitions": [{"AttributeName": a, "AttributeType": "S"} for a in table.key_attributes],
        "BillingMode": "PAY_PER_REQUEST",
    }
    if table.indexes:
        request["GlobalSecondaryIndexes"] = [
            {
                "IndexName": index.name,
                "KeySchema": [
                    {"AttributeName": index.hash_key, "KeyType": "HASH"},
                    {"AttributeName": index.range_key, "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            }
            for index in table.indexes
        ]
    if table.stream_view:
        request["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": table.stream_view}
    return request


def _ensure_table(table: Table, report: BootstrapReport) -> dict[str, str]:
    # A table pinned to another region (the shared one) is created there.
    ddb = dynamodb(table.region).meta.client if table.region else client("dynamodb")
    try:
        description = ddb.describe_table(TableName=table.name)["Table"]
        report.note(table.name, created=False)
    except ClientError as exc:
        if error_code(exc) != "ResourceNotFoundException":
            raise
        description = ddb.create_table(**table_definition(table))["TableDescription"]
        ddb.get_waiter("table_exists").wait(TableName=table.name, WaiterConfig={"Delay": 1, "MaxAttempts": 60})
        report.note(table.name, created=True)
    if table.ttl_attribute:
        ttl = ddb.describe_time_to_live(TableName=table.name)["TimeToLiveDescription"]
        if ttl.get("TimeToLiveStatus") not in ("ENABLED", "ENABLING"):
            ddb.update_time_to_live(
                TableName=table.name,
                TimeToLiveSpecification={"Enabled": True, "AttributeName": table.ttl_attribute},
            )
    arn = description.get("LatestStreamArn")
    return {table.logical_id: arn} if arn else {}


# --- queues ---------------------------------------------------------------------------


def queue_attributes(queue: Queue, dlq_arn: str) -> dict[str, str]:
    return {
        "DelaySeconds": str(queue.delay_seconds),
        "VisibilityTimeout": str(queue.visibility_timeout),
        "MessageRetentionPeriod": str(QUEUE_RETENTION_SECONDS),
        "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": queue.max_receive_count}),
    }


def _ensure_queue(queue: Queue, report: BootstrapReport) -> str:
    sqs = client("sqs")
    dlq_attributes = {"MessageRetentionPeriod": str(DLQ_RETENTION_SECONDS)}
    dlq_url = _create_or_update_queue(sqs, queue.dlq_name, dlq_attributes, report)
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    return _create_or_update_queue(sqs, queue.name, queue_attributes(queue, dlq_arn), report)


def _create_or_update_queue(sqs: Any, name: str, attributes: dict[str, str], report: BootstrapReport) -> str:
    try:
        url = str(sqs.get_queue_url(QueueName=name)["QueueUrl"])
    except ClientError as exc:
        if error_code(exc) not in ("AWS.SimpleQueueService.NonExistentQueue", "QueueDoesNotExist"):
            raise
        url = str(sqs.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"])
        report.note(name, created=True)
        return url
    sqs.set_queue_attributes(QueueUrl=url, Attributes=attributes)
    report.note(name, created=False)
    return url


# --- stream, buses, rules -------------------------------------------------------------


def _ensure_stream(stream: Stream, report: BootstrapReport) -> None:
    kinesis = client("kinesis")
    try:
        kinesis.describe_stream_summary(StreamName=stream.name)
        report.note(stream.name, created=False)
    except ClientError as exc:
        if error_code(exc) != "ResourceNotFoundException":
            raise
        kinesis.create_stream(StreamName=stream.name, ShardCount=stream.shard_count)
        report.note(stream.name, created=True)
    for _ in range(100):
        status = kinesis.describe_stream_summary(StreamName=stream.name)["StreamDescriptionSummary"]
        if status["StreamStatus"] == "ACTIVE":
            return
        time.sleep(0.1)
    raise TimeoutError(f"stream {stream.name} did not become ACTIVE")


def _ensure_bus(bus: EventBus, report: BootstrapReport) -> None:
    # Locally the Auth0 partner bus is an ordinary custom bus of the same name.
    events = client("events")
    try:
        events.describe_event_bus(Name=bus.name)
        report.note(bus.name, created=False)
    except ClientError as exc:
        if error_code(exc) != "ResourceNotFoundException":
            raise
        events.create_event_bus(Name=bus.name)
        report.note(bus.name, created=True)


def _ensure_rule(infra: Infrastructure, rule: Rule, report: BootstrapReport) -> None:
    events, sqs = client("events"), client("sqs")
    bus = infra.bus(rule.bus).name
    queue_url = sqs.get_queue_url(QueueName=infra.queue(rule.target_queue).name)["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    existing = {r["Name"] for r in events.list_rules(EventBusName=bus).get("Rules", [])}
    rule_arn = events.put_rule(
        Name=rule.name, EventBusName=bus, EventPattern=json.dumps(rule.pattern), State="ENABLED"
    )["RuleArn"]
    events.put_targets(Rule=rule.name, EventBusName=bus, Targets=[{"Id": rule.target_queue, "Arn": queue_arn}])
    policy = {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": rule.logical_id,
                "Effect": "Allow",
                "Principal": {"Service": "events.amazonaws.com"},
                "Action": "sqs:SendMessage",
                "Resource": queue_arn,
                "Condition": {"ArnEquals": {"aws:SourceArn": rule_arn}},
            }
        ],
    }
    sqs.set_queue_attributes(QueueUrl=queue_url, Attributes={"Policy": json.dumps(policy)})
    report.note(rule.name, created=rule.name not in existing)
