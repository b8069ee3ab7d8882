"""SQS delivery: batches, partial failures, visibility timeouts and redrive, against moto."""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from typing import Any

import pytest

from chalicelib.aws.clients import client
from chalicelib.infra.declaration import Infrastructure
from ops.runtime import EventRuntime
from ops.runtime import sqs as runtime_sqs
from tests.runtime.factories import Recorder, build_app, ok

pytestmark = pytest.mark.integration


def queue_url(name: str) -> str:
    return str(client("sqs").get_queue_url(QueueName=name)["QueueUrl"])


def send(infra: Infrastructure, *bodies: str) -> None:
    url = queue_url(infra.queues[0].name)
    for body in bodies:
        client("sqs").send_message(
            QueueUrl=url,
            MessageBody=body,
            MessageAttributes={
                "origin": {"DataType": "String", "StringValue": "test"},
                "blob": {"DataType": "Binary", "BinaryValue": b"\x00\x01"},
            },
        )


def bodies(n: int) -> list[str]:
    tag = uuid.uuid4().hex[:8]
    return [json.dumps({"n": i, "tag": tag}) for i in range(n)]


def depth(name: str) -> int:
    attributes = client("sqs").get_queue_attributes(
        QueueUrl=queue_url(name),
        AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
    )["Attributes"]
    return sum(int(v) for v in attributes.values())


def fail_bodies(*failing: str) -> Any:
    def behaviour(records: list[dict[str, Any]]) -> dict[str, Any]:
        return {"batchItemFailures": [{"itemIdentifier": r["messageId"]} for r in records if r["body"] in failing]}

    return behaviour


def test_a_batch_is_delivered_as_lambda_records_and_deleted(infra: Infrastructure, recorder: Recorder) -> None:
    # GIVEN three messages on the queue
    messages = bodies(3)
    send(infra, *messages)
    runtime = EventRuntime(build_app(infra, recorder, on_queue=ok), infra)
    # WHEN the runtime drains
    result = runtime.drain(timeout=10)
    # THEN one invocation got all three as Lambda SQS records and the queue is empty
    assert result.idle
    assert recorder.sizes("on_queue") == [3]
    assert sorted(r["body"] for r in recorder.records("on_queue")) == sorted(messages)
    record = recorder.records("on_queue")[0]
    queue_arn = f"arn:aws:sqs:us-east-1:123456789012:{infra.queues[0].name}"
    assert record["eventSource"] == "aws:sqs"
    assert record["eventSourceARN"] == queue_arn
    assert record["awsRegion"] == "us-east-1"
    assert record["messageId"] and record["receiptHandle"]
    assert record["md5OfBody"] == hashlib.md5(record["body"].encode(), usedforsecurity=False).hexdigest()
    assert record["attributes"]["ApproximateReceiveCount"] == "1"
    assert {"SentTimestamp", "SenderId", "ApproximateFirstReceiveTimestamp"} <= set(record["attributes"])
    assert record["messageAttributes"]["origin"] == {
        "stringValue": "test",
        "stringListValues": [],
        "binaryListValues": [],
        "dataType": "String",
    }
    assert record["messageAttributes"]["blob"]["binaryValue"] == "AAE="
    assert result.of("on_queue").invocations == 1
    assert result.of("on_queue").records == 3
    assert depth(infra.queues[0].name) == 0


def test_batch_size_is_honoured(make_infra: Any, recorder: Recorder) -> None:
    # GIVEN a consumer declared with batch size 2 and five messages
    infra = make_infra(batch_size=2)
    send(infra, *bodies(5))
    # WHEN drained THEN no invocation got more than two records, and all five arrived once
    EventRuntime(build_app(infra, recorder, on_queue=ok), infra).drain(timeout=10)
    assert max(recorder.sizes("on_queue")) == 2
    assert len(recorder.records("on_queue")) == 5


def test_partial_failure_deletes_only_successes_and_retries_after_visibility_timeout(
    infra: Infrastructure, recorder: Recorder
) -> None:
    # GIVEN three messages, the second of which fails on its first delivery only
    first, second, third = bodies(3)
    send(infra, first, second, third)
    seen: dict[str, list[float]] = {}

    def behaviour(records: list[dict[str, Any]]) -> dict[str, Any]:
        failed = [r for r in records if r["body"] == second and second not in seen]
        for r in records:
            seen.setdefault(r["body"], []).append(time.monotonic())
        return {"batchItemFailures": [{"itemIdentifier": r["messageId"]} for r in failed]}

    runtime = EventRuntime(build_app(infra, recorder, on_queue=behaviour), infra, visibility_timeout=1)
    # WHEN drained
    result = runtime.drain(timeout=10)
    # THEN only the failed message came back, once, after the 1 s visibility timeout, with its receive count
    delivered = [r["body"] for r in recorder.records("on_queue")]
    assert sorted(delivered) == sorted([first, second, third, second])
    retry = recorder.batches["on_queue"][-1]
    assert [r["body"] for r in retry] == [second]
    assert retry[0]["attributes"]["ApproximateReceiveCount"] == "2"
    first_try, retry_at = seen[second]
    assert retry_at - first_try >= 0.9
    assert result.of("on_queue").failures == 1
    assert depth(infra.queues[0].name) == 0


def test_poison_message_reaches_the_dlq_after_five_receives_while_batch_mates_succeed(
    infra: Infrastructure, recorder: Recorder
) -> None:
    # GIVEN a poison message among good ones, on a queue whose redrive policy allows 5 receives
    poison, *good = bodies(4)
    send(infra, poison, *good)
    runtime = EventRuntime(build_app(infra, recorder, on_queue=fail_bodies(poison)), infra, visibility_timeout=1)
    # WHEN drained (failures come back every second)
    result = runtime.drain(timeout=20)
    # THEN the good messages were delivered once, the poison exactly 5 times, and it sits in the DLQ
    delivered = [r["body"] for r in recorder.records("on_queue")]
    assert sorted(b for b in delivered if b != poison) == sorted(good)
    assert delivered.count(poison) == 5
    assert result.of("on_queue").failures == 5
    dlq = client("sqs").receive_message(QueueUrl=queue_url(infra.queues[0].dlq_name), MaxNumberOfMessages=10)
    assert [m["Body"] for m in dlq["Messages"]] == [poison]
    assert depth(infra.queues[0].name) == 0


def test_an_exception_deletes_nothing_so_the_whole_batch_comes_back(infra: Infrastructure, recorder: Recorder) -> None:
    # GIVEN a handler that raises on its first invocation
    messages = bodies(3)
    send(infra, *messages)
    calls: list[int] = []

    def behaviour(records: list[dict[str, Any]]) -> None:
        calls.append(len(records))
        if len(calls) == 1:
            raise RuntimeError("database unavailable")

    runtime = EventRuntime(build_app(infra, recorder, on_queue=behaviour), infra, visibility_timeout=0)
    # WHEN drained THEN every message was delivered twice and then deleted
    result = runtime.drain(timeout=10)
    assert sorted(r["body"] for r in recorder.records("on_queue")) == sorted(messages * 2)
    assert result.of("on_queue").errors == 1
    assert depth(infra.queues[0].name) == 0


@pytest.mark.parametrize(
    "response",
    [
        {"batchItemFailures": [{"itemIdentifier": "no-such-message"}]},
        {"batchItemFailures": [{"itemIdentifier": ""}]},
        {"batchItemFailures": [{"id": "wrong key"}]},
        "not a batch response",
    ],
)
def test_an_invalid_batch_response_fails_the_whole_batch(
    infra: Infrastructure, recorder: Recorder, response: Any
) -> None:
    # GIVEN a handler whose first answer is not a valid partial batch response
    messages = bodies(2)
    send(infra, *messages)
    answers = [response]

    def behaviour(records: list[dict[str, Any]]) -> Any:
        return answers.pop() if answers else None

    runtime = EventRuntime(build_app(infra, recorder, on_queue=behaviour), infra, visibility_timeout=0)
    # WHEN drained THEN Lambda's rule applies: nothing was deleted, so both came back
    result = runtime.drain(timeout=10)
    assert sorted(r["body"] for r in recorder.records("on_queue")) == sorted(messages * 2)
    assert result.of("on_queue").errors == 1


def test_duplicate_delivery_knob_delivers_every_batch_twice(infra: Infrastructure, recorder: Recorder) -> None:
    # GIVEN the duplicate-delivery knob
    messages = bodies(3)
    send(infra, *messages)
    runtime = EventRuntime(build_app(infra, recorder, on_queue=ok), infra, duplicate_delivery=True)
    # WHEN drained THEN the handler saw the same batch (same message ids) twice, and the queue is empty
    result = runtime.drain(timeout=10)
    first, second = recorder.batches["on_queue"]
    assert [r["messageId"] for r in first] == [r["messageId"] for r in second]
    assert result.of("on_queue").invocations == 2
    assert result.of("on_queue").records == 6
    assert depth(infra.queues[0].name) == 0


def test_shuffle_knob_reorders_batches(infra: Infrastructure, recorder: Recorder) -> None:
    # GIVEN ten messages received in send order, and the shuffle knob with a fixed seed
    messages = bodies(10)
    send(infra, *messages)
    runtime = EventRuntime(build_app(infra, recorder, on_queue=ok), infra, shuffle=True, seed=7)
    # WHEN drained THEN the batch held every message once, in another order
    runtime.drain(timeout=10)
    delivered = [r["body"] for r in recorder.records("on_queue")]
    assert sorted(delivered) == sorted(messages)
    assert delivered != messages


def test_drain_waits_for_messages_in_flight(infra: Infrastructure, recorder: Recorder) -> None:
    # GIVEN a message someone else received and holds invisible for a second
    message, *_ = bodies(1)
    send(infra, message)
    client("sqs").receive_message(QueueUrl=queue_url(infra.queues[0].name), VisibilityTimeout=1)
    runtime = EventRuntime(build_app(infra, recorder, on_queue=ok), infra)
    # WHEN drained THEN the drain did not stop while it was in flight: it delivered it afterwards
    result = runtime.drain(timeout=10)
    assert [r["body"] for r in recorder.records("on_queue")] == [message]
    assert result.seconds >= 0.5


def test_drain_waits_for_a_failed_message_even_when_the_counts_miss_it(
    infra: Infrastructure, recorder: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    # GIVEN a message that fails once, and queue counts that read empty throughout: the
    # server computes each count at its own instant, so a message turning visible again
    # between two counts is in neither, which is how a drain once ended before a retry
    message, *_ = bodies(1)
    send(infra, message)
    monkeypatch.setattr(runtime_sqs, "queue_depth", lambda url: dict.fromkeys(runtime_sqs._COUNTS, 0))
    failed_once: list[str] = []

    def behaviour(records: list[dict[str, Any]]) -> dict[str, Any]:
        first = [r for r in records if r["body"] not in failed_once]
        failed_once.extend(r["body"] for r in first)
        return {"batchItemFailures": [{"itemIdentifier": r["messageId"]} for r in first]}

    runtime = EventRuntime(build_app(infra, recorder, on_queue=behaviour), infra, visibility_timeout=1)
    # WHEN drained
    runtime.drain(timeout=10)
    # THEN the drain knew the failed message was coming back and delivered it again
    assert [r["body"] for r in recorder.records("on_queue")] == [message, message]


def test_a_later_runtime_looks_no_queue_up_again_but_reads_a_changed_visibility(
    infra: Infrastructure, recorder: Recorder
) -> None:
    # GIVEN a runtime started over the queue, and the queue's visibility timeout changed since
    calls: list[str] = []
    events = client("sqs").meta.events

    def count(model: Any, **_: Any) -> None:
        calls.append(model.name)

    app = build_app(infra, recorder, on_queue=ok)
    EventRuntime(app, infra, visibility_timeout=1)
    url = queue_url(infra.queues[0].name)
    client("sqs").set_queue_attributes(QueueUrl=url, Attributes={"VisibilityTimeout": "7"})
    events.register("before-call.sqs", count)
    try:
        # WHEN another runtime starts with a visibility of its own, and one with the queue's
        EventRuntime(app, infra, visibility_timeout=1)
        with_own = list(calls)
        later = EventRuntime(app, infra)
    finally:
        events.unregister("before-call.sqs", count)
    # THEN the queue's URL and ARN are not looked up again; only the queue's visibility is read
    assert with_own == []
    assert calls == ["GetQueueAttributes"]
    poller = next(p for p in later._pollers if isinstance(p, runtime_sqs.SqsPoller))
    assert poller._queue_visibility == 7
