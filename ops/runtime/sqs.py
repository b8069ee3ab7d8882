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
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from botocore.exceptions import ClientError

from chalicelib.aws.clients import client
from chalicelib.aws.errors import error_code
from chalicelib.settings import get_settings
from ops.runtime.discovery import SqsSpec
from ops.runtime.errors import SourceNotFoundError
from ops.runtime.invoker import Invoker
from ops.runtime.shards import MAX_EVENT_BYTES

log = logging.getLogger("ops.runtime")

_MISSING_QUEUE = ("AWS.SimpleQueueService.NonExistentQueue", "QueueDoesNotExist")
#: Slack between the server's visibility deadline and ours (the two clocks differ by the call's latency).
_VISIBILITY_MARGIN_SECONDS = 0.05
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


@lru_cache(maxsize=512)
def queue_identity(endpoint: str | None, region: str, name: str) -> tuple[str, str]:
    """A queue's URL and ARN, looked up once per process: neither changes while the queue
    exists, and one made again under the same name gets the same ones. (A test session
    starts some ninety runtimes over ten queues: this was a tenth of its AWS requests.)"""
    url = queue_url(name)
    attributes = client("sqs").get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]
    return url, str(attributes["QueueArn"])


def queue_depth(url: str) -> dict[str, int]:
    attributes = client("sqs").get_queue_attributes(QueueUrl=url, AttributeNames=list(_COUNTS))["Attributes"]
    return {name: int(attributes.get(name, 0)) for name in _COUNTS}


def queue_empty(url: str) -> bool:
    """No visible, in-flight or delayed message, by two readings in a row.

    The server computes each count at its own instant, so a message that changes state
    between two counts (in flight -> visible, delayed -> visible) can be in neither: one
    reading of all zeros is not proof. A message changes state once on its way to visible,
    so it cannot slip between the counts of two readings.
    """
    return not any(queue_depth(url).values()) and not any(queue_depth(url).values())


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
    _queue_visibility: int = 30
    #: When each held record was received (monotonic), to know when a failed one is back.
    _received_at: dict[str, float] = field(default_factory=dict)
    #: Failed records not yet visible again, by message id: until then the queue is not idle.
    _returning: dict[str, float] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"sqs:{self.spec.queue_name}"

    def start(self) -> None:
        if not self._url:
            settings = get_settings()
            self._url, self._arn = queue_identity(settings.aws_endpoint_url, self.region, self.spec.queue_name)
            if self.visibility_timeout is None:  # the queue's own, which can change: read it now
                attributes = client("sqs").get_queue_attributes(
                    QueueUrl=self._url, AttributeNames=["VisibilityTimeout"]
                )
                self._queue_visibility = int(attributes["Attributes"].get("VisibilityTimeout", 30))

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
        self._note_returning(batch, outcome.succeeded)
        return True

    def idle(self) -> bool:
        """Nothing held, no failed message still to come back, and the queue empty."""
        self.start()
        now = time.monotonic()
        self._returning = {message_id: at for message_id, at in self._returning.items() if at > now}
        return not self._held and not self._returning and queue_empty(self._url)

    def pending(self) -> list[str]:
        depth = queue_depth(self._url) if self._url else {}
        counts = ", ".join(
            f"{k.removeprefix('ApproximateNumberOfMessages') or 'Visible'}={v}" for k, v in depth.items()
        )
        return [f"{self.label}: {counts}, held={len(self._held)}, returning={len(self._returning)}"]

    def _note_returning(self, batch: list[dict[str, Any]], succeeded: Callable[[str], bool]) -> None:
        """Remember when each failed record becomes visible again; forget the delivered ones.

        A failed message is in flight until its visibility timeout ends, and a drain must
        not call the queue idle in between, whatever one reading of the counts says.
        """
        timeout = self._queue_visibility if self.visibility_timeout is None else self.visibility_timeout
        for record in batch:
            message_id = record["messageId"]
            received_at = self._received_at.pop(message_id, time.monotonic())
            if succeeded(message_id):
                self._returning.pop(message_id, None)
            else:
                self._returning[message_id] = received_at + timeout + _VISIBILITY_MARGIN_SECONDS

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
            received_at = time.monotonic()  # after the server set the messages' visibility deadline
            for message in messages:
                self._received_at[message["MessageId"]] = received_at
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
        for record in records:
            self._received_at.pop(record["messageId"], None)
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
