"""Partial batch responses for SQS consumers (the miner and the throttle-miner), by Powertools.

Each message is handled on its own: one that fails for a reason a retry may fix is
reported in ``batchItemFailures`` (SQS redelivers it after the visibility timeout and
moves it to the DLQ after five receives); one that can never succeed is dropped with a log
line and a metric, never retried forever and never silently.

The batch is run by Powertools' ``BatchProcessor`` (``EventType.SQS``), whose semantics are
exactly these: messages are independent, a record handler that raises reports its message.
A batch whose every message failed is reported message by message too (not raised), so SQS
redelivers it the same way, and Powertools is imported only when a batch arrives. Not every
SQS consumer fits: the listener never retries (:mod:`.listener`) and ``track_balances``
handles a user's messages together (:mod:`chalicelib.insight.balance_tracker`); they keep
their own loops.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from chalicelib.errors import ServiceError, ValidationError
from chalicelib.observability import count, logger
from chalicelib.pipeline.decisions import Drop


class DropMessageError(ServiceError):
    """The message must not be retried (unroutable, item gone, ...: ``docs/pipeline.md``)."""

    def __init__(self, reason: str, **context: Any) -> None:
        super().__init__(reason)
        self.reason = reason
        self.context = context

    @classmethod
    def of(cls, drop: Drop) -> DropMessageError:
        """The error that carries a decision to drop out of a handler."""
        return cls(drop.reason, **drop.context)


def process_sqs(
    records: Iterable[Mapping[str, Any]],
    handle: Callable[[str], object],
    *,
    consumer: str,
) -> dict[str, list[dict[str, str]]]:
    """Run ``handle(body)`` per record; return Lambda's partial batch response."""
    from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
    from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

    batch = list(records)
    if not batch:  # Powertools refuses an empty batch; Lambda never sends one
        return {"batchItemFailures": []}

    def handle_record(record: SQSRecord) -> None:
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
        except Exception as exc:  # the processor reports it: SQS retries it
            logger.exception(f"{consumer} failed a message", extra={"message_id": message_id, "error": str(exc)})
            count(f"txn.{consumer}.message.failed", error=type(exc).__name__)
            raise

    processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)
    response = process_partial_response({"Records": batch}, handle_record, processor)
    return {"batchItemFailures": [{"itemIdentifier": str(f["itemIdentifier"])} for f in response["batchItemFailures"]]}
