"""Take every visible message off a queue: for benchmarks and tests that play Lambda's part.

Uses the service's cached SQS client and queue URL (:mod:`chalicelib.aws`), so it reaches
whatever local AWS the process is configured for, and deletes ten messages a request.
"""

from __future__ import annotations

from typing import Any


def take_all(queue_name: str) -> list[dict[str, Any]]:
    """Receive every visible message of ``queue_name`` and delete it; the messages, in receive order."""
    from chalicelib.aws.clients import sqs as sqs_client
    from chalicelib.aws.messaging import queue_url

    sqs: Any = sqs_client()  # the messages are plain dicts to the callers
    url = queue_url(queue_name)
    taken: list[dict[str, Any]] = []
    while messages := sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", []):
        entries = [{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(messages)]
        failed = sqs.delete_message_batch(QueueUrl=url, Entries=entries).get("Failed", [])
        if failed:
            raise RuntimeError(f"could not delete messages from {queue_name}: {failed}")
        taken += messages
    return taken
