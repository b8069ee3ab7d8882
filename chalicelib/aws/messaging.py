"""Sending to the service's queues, stream and event bus (errors translated here)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from chalicelib.aws.clients import events, kinesis, sqs
from chalicelib.aws.errors import translated
from chalicelib.errors import TransientAWSError

#: EventBridge ``source`` of every event this service publishes.
EVENT_SOURCE = "txn.service"


@lru_cache(maxsize=32)
def queue_url(queue_name: str) -> str:
    with translated():
        return str(sqs().get_queue_url(QueueName=queue_name)["QueueUrl"])


def send_message(queue_name: str, body: str, *, delay_seconds: int | None = None) -> str:
    """Enqueue ``body``; returns the SQS message id."""
    kwargs: dict[str, Any] = {"QueueUrl": queue_url(queue_name), "MessageBody": body}
    if delay_seconds is not None:
        kwargs["DelaySeconds"] = delay_seconds
    with translated():
        return str(sqs().send_message(**kwargs)["MessageId"])


def change_visibility(queue_name: str, receipt_handle: str, seconds: int) -> None:
    """Make a received message visible again ``seconds`` from now (0-43200, SQS' range)."""
    with translated():
        sqs().change_message_visibility(
            QueueUrl=queue_url(queue_name), ReceiptHandle=receipt_handle, VisibilityTimeout=seconds
        )


def put_record(stream_name: str, data: bytes, partition_key: str, *, after_sequence: str | None = None) -> str:
    """Put one Kinesis record; ``after_sequence`` keeps a producer's records in order."""
    kwargs: dict[str, Any] = {"StreamName": stream_name, "Data": data, "PartitionKey": partition_key}
    if after_sequence:
        kwargs["SequenceNumberForOrdering"] = after_sequence
    with translated():
        return str(kinesis().put_record(**kwargs)["SequenceNumber"])


def put_event(bus_name: str, detail_type: str, detail: Mapping[str, Any]) -> None:
    """Publish one event; a rejected entry raises (EventBridge reports it per entry)."""
    with translated():
        response = events().put_events(
            Entries=[
                {
                    "EventBusName": bus_name,
                    "Source": EVENT_SOURCE,
                    "DetailType": detail_type,
                    "Detail": json.dumps(detail, separators=(",", ":"), default=str),
                }
            ]
        )
    if response.get("FailedEntryCount"):
        entry = response["Entries"][0]
        raise TransientAWSError(
            f"PutEvents rejected {detail_type}: {entry.get('ErrorCode')} {entry.get('ErrorMessage')}"
        )
