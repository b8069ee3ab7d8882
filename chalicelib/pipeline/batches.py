"""Partial batch responses for SQS consumers.

Each message is handled on its own: one that fails for a reason a retry may fix is
reported in ``batchItemFailures`` (SQS redelivers it after the visibility timeout and
moves it to the DLQ after five receives); one that can never succeed is dropped with a log
line and a metric, never retried forever and never silently.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from chalicelib.errors import ServiceError, ValidationError
from chalicelib.observability import count, logger


class DropMessageError(ServiceError):
    """The message must not be retried (seed rules: unroutable, item gone, ...)."""

    def __init__(self, reason: str, **context: Any) -> None:
        super().__init__(reason)
        self.reason = reason
        self.context = context


def process_sqs(
    records: Iterable[Mapping[str, Any]],
    handle: Callable[[str], object],
    *,
    consumer: str,
) -> dict[str, list[dict[str, str]]]:
    """Run ``handle(body)`` per record; return Lambda's partial batch response."""
    failures: list[dict[str, str]] = []
    for record in records:
        message_id = str(record.get("messageId", ""))
        try:
            handle(str(record.get("body", "")))
        except DropMessageError as exc:
            logger.info(
                f"{consumer} dropped a message", extra={"message_id": message_id, "reason": exc.reason, **exc.context}
            )
            count(f"txn.{consumer}.message.dropped", reason=exc.reason)
        except ValidationError as exc:
            logger.error(
                f"{consumer} dropped an invalid message",
                extra={"message_id": message_id, "error": str(exc), "details": exc.details},
            )
            count(f"txn.{consumer}.message.dropped", reason="invalid")
        except Exception as exc:  # noqa: BLE001 - anything else is retried by SQS
            logger.exception(f"{consumer} failed a message", extra={"message_id": message_id, "error": str(exc)})
            count(f"txn.{consumer}.message.failed", error=type(exc).__name__)
            failures.append({"itemIdentifier": message_id})
    return {"batchItemFailures": failures}
