"""SQS -> handler, with the SQS event source mapping's semantics.

* ``ReceiveMessage`` (10 at a time) until the batch is full or the queue has nothing
  visible; with a batching window a short batch waits (its messages stay in flight)
  until the window since its first message has passed; a batch never exceeds 6 MB of
  event, and messages that do not fit are made visible again at once;
* records carry ``messageId``, ``receiptHandle``, ``body``, ``attributes`` (with
  ``ApproximateReceiveCount``), ``messageAttributes`` in Lambda's camelCase form,
  ``md5OfBody``, ``eventSource``, ``eventSourceARN`` and ``awsRegion``;
* success deletes the batch; ``batchItemFailures`` deletes only the others; an error
  deletes nothing. Whatever is not deleted becomes visible again when its visibility
  timeout ends (the queue's, or the runtime's ``visibility_timeout`` override, passed as
  ``ReceiveMessage``'s ``VisibilityTimeout``), and the queue's redrive policy moves it to
  the DLQ once it has been received ``maxReceiveCount`` times.
"""

from __future__ import annotations

import base64
import json
import logging
import random
import time
from dataclasses import dataclass, field
from typing import Any

from botocore.exceptions import ClientError

from chalicelib.aws.clients import client
from chalicelib.aws.errors import error_code
from ops.runtime.discovery import SqsSpec
from ops.runtime.errors import SourceNotFoundError
from ops.runtime.invoker import Invoker
from ops.runtime.shards import MAX_EVENT_BYTES

log = logging.getLogger("ops.runtime")

_MISSING_QUEUE = ("AWS.SimpleQueueService.NonExistentQueue", "QueueDoesNotExist")
_COUNTS = ("ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible", "ApproximateNumberOfMessagesDelayed")


def sqs_record(message: dict[str, Any], queue_arn: str, region: str) -> dict[str, Any]:
    """Lambda's record for one received message."""
    record: dict[str, Any] = {
        "messageId": message["MessageId"],
        "receiptHandle": message["ReceiptHandle"],
        "body": message["Body"],
        "attributes": dict(message.get("Attributes", {})),
        "messageAttributes": {
            name: _message_attribute(value) for name, value in message.get("MessageAttributes", {}).items()
        },
        "md5OfBody": message["MD5OfBody"],
    }
    if "MD5OfMessageAttributes" in message:
        record["md5OfMessageAttributes"] = message["MD5OfMessageAttributes"]
    record |= {"eventSource": "aws:sqs", "eventSourceARN": queue_arn, "awsRegion": region}
    return record


def _message_attribute(value: dict[str, Any]) -> dict[str, Any]:
    wire: dict[str, Any] = {"stringListValues": [], "binaryListValues": [], "dataType": value["DataType"]}
    if "StringValue" in value:
        wire["stringValue"] = value["StringValue"]
    if "BinaryValue" in value:
        wire["binaryValue"] = base64.b64encode(value["BinaryValue"]).decode("ascii")
    return wire


def queue_url(name: str) -> str:
    try:
        return str(client("sqs").get_queue_url(QueueName=name)["QueueUrl"])
    except ClientError as exc:
        if error_code(exc) in _MISSING_QUEUE:
            raise SourceNotFoundError(f"no queue {name!r}") from exc
        raise


def queue_depth(url: str) -> dict[str, int]:
    attributes = client("sqs").get_queue_attributes(QueueUrl=url, AttributeNames=list(_COUNTS))["Attributes"]
    return {name: int(attributes.get(name, 0)) for name in _COUNTS}


@dataclass
class SqsPoller:
    """One event source mapping: a queue feeding one function."""

    spec: SqsSpec
    invoker: Invoker
    region: str
    visibility_timeout: int | None = None
    shuffle: bool = False
    rng: random.Random = field(default_factory=random.Random)
    _url: str = ""
    _arn: str = ""
    _held: list[dict[str, Any]] = field(default_factory=list)
    _held_since: float = 0.0

    @property
    def label(self) -> str:
        return f"sqs:{self.spec.queue_name}"

    def start(self) -> None:
        if not self._url:
            self._url = queue_url(self.spec.queue_name)
            attributes = client("sqs").get_queue_attributes(QueueUrl=self._url, AttributeNames=["QueueArn"])
            self._arn = attributes["Attributes"]["QueueArn"]

    def poll(self) -> bool:
        """Receive and deliver at most one batch; True when anything was delivered."""
        self.start()
        self._receive()
        if not self._held:
            return False
        window_open = time.monotonic() - self._held_since < self.spec.batching_window
        if len(self._held) < self.spec.batch_size and window_open:
            return False
        held, self._held = self._held, []
        batch = _fit(held)
        if overflow := held[len(batch) :]:
            self._release(overflow)
        if self.shuffle:
            self.rng.shuffle(batch)
        ids = [r["messageId"] for r in batch]
        outcome = self.invoker.deliver_batch(self.spec.function, self.label, batch, ids)
        self._delete([r for r in batch if outcome.succeeded(r["messageId"])])
        return True

    def idle(self) -> bool:
        self.start()
        return not self._held and not any(queue_depth(self._url).values())

    def pending(self) -> list[str]:
        depth = queue_depth(self._url) if self._url else {}
        counts = ", ".join(
            f"{k.removeprefix('ApproximateNumberOfMessages') or 'Visible'}={v}" for k, v in depth.items()
        )
        return [f"{self.label}: {counts}, held={len(self._held)}"]

    def _receive(self) -> None:
        sqs = client("sqs")
        while len(self._held) < self.spec.batch_size:
            kwargs: dict[str, Any] = {
                "QueueUrl": self._url,
                "MaxNumberOfMessages": min(10, self.spec.batch_size - len(self._held)),
                "MessageSystemAttributeNames": ["All"],
                "MessageAttributeNames": ["All"],
                "WaitTimeSeconds": 0,
            }
            if self.visibility_timeout is not None:
                kwargs["VisibilityTimeout"] = self.visibility_timeout
            messages = sqs.receive_message(**kwargs).get("Messages", [])
            if not messages:
                return
            if not self._held:
                self._held_since = time.monotonic()
            held = {r["messageId"]: i for i, r in enumerate(self._held)}
            again = False
            for message in messages:
                record = sqs_record(message, self._arn, self.region)
                if record["messageId"] in held:
                    # Visible again already (a 0 s visibility timeout): keep the newest receipt handle.
                    self._held[held[record["messageId"]]] = record
                    again = True
                else:
                    self._held.append(record)
            if again or self.visibility_timeout == 0:
                return  # with 0 s, another receive would only fetch these again

    def _delete(self, records: list[dict[str, Any]]) -> None:
        for start in range(0, len(records), 10):
            chunk = records[start : start + 10]
            entries = [{"Id": str(i), "ReceiptHandle": r["receiptHandle"]} for i, r in enumerate(chunk)]
            failed = client("sqs").delete_message_batch(QueueUrl=self._url, Entries=entries).get("Failed", [])
            if failed:
                # Not fatal: the messages come back after their visibility timeout (at-least-once).
                log.warning("%s: %d delete(s) failed: %s", self.label, len(failed), failed)

    def _release(self, records: list[dict[str, Any]]) -> None:
        for start in range(0, len(records), 10):
            chunk = records[start : start + 10]
            entries = [
                {"Id": str(i), "ReceiptHandle": r["receiptHandle"], "VisibilityTimeout": 0} for i, r in enumerate(chunk)
            ]
            client("sqs").change_message_visibility_batch(QueueUrl=self._url, Entries=entries)


def _fit(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The longest prefix of ``records`` whose event stays within Lambda's payload limit."""
    total = len('{"Records": []}')
    for count, record in enumerate(records):
        total += len(json.dumps(record)) + 2
        if count and total > MAX_EVENT_BYTES:
            return records[:count]
    return records
