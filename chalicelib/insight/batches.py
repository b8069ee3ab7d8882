"""SQS batches of the Pave consumers: grouped, deadline-aware, honouring Pave's ``Retry-After``.

A batch may hold several messages about the same thing (a user's batch events, polls of one
upload request): they are handled together, once, and succeed or fail together. The outcome
of each message is Lambda's partial batch response:

* a message that can never succeed (not the expected shape, or a :class:`DropMessageError`)
  is logged, counted and dropped;
* Pave's 429 (:class:`~chalicelib.peers.pave.PaveRateLimitedError`) makes the group's messages
  visible again only after ``Retry-After`` (ChangeMessageVisibility), then reports them failed;
* any other failure reports the group's messages failed: SQS redelivers them after the
  visibility timeout and moves them to the queue's DLQ after five receives;
* when less than ``budget_ms`` of the invocation is left, the remaining groups are reported
  failed without being tried (they come back), so a slow Pave never times the function out
  half-way through a group.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

from chalicelib.aws.messaging import change_visibility
from chalicelib.errors import ValidationError
from chalicelib.observability import count, logger
from chalicelib.peers.pave import PaveRateLimitedError
from chalicelib.pipeline.batches import DropMessageError

T = TypeVar("T")

#: The least time a group needs: one Pave call's worst case (3 x (2 s + 10 s) + backoff) and the writes.
DEFAULT_BUDGET_MS = 45_000
#: When Pave's 429 carries no usable ``Retry-After``.
DEFAULT_RETRY_AFTER_SECONDS = 30
#: SQS' longest visibility timeout.
MAX_VISIBILITY_SECONDS = 43_200


@dataclass(frozen=True)
class Received(Generic[T]):
    """One SQS record and what it says."""

    message_id: str
    receipt_handle: str
    queue_name: str
    value: T


def process_grouped(
    records: Iterable[Mapping[str, object]],
    *,
    parse: Callable[[str], T],
    group: Callable[[T], str],
    handle: Callable[[list[T]], object],
    consumer: str,
    remaining_ms: Callable[[], int] | None = None,
    budget_ms: int = DEFAULT_BUDGET_MS,
) -> dict[str, list[dict[str, str]]]:
    """Parse every record, handle each group once (in order of first appearance), and return
    Lambda's partial batch response (see the module docstring)."""
    groups: dict[str, list[Received[T]]] = {}
    for record in records:
        message_id = str(record.get("messageId", ""))
        try:
            value = parse(str(record.get("body", "")))
        except (ValidationError, DropMessageError) as exc:
            _dropped(consumer, message_id, exc)
            continue
        received = Received(message_id, str(record.get("receiptHandle", "")), _queue_name(record), value)
        groups.setdefault(group(value), []).append(received)

    failures: list[dict[str, str]] = []
    for key, members in groups.items():
        ids = [m.message_id for m in members]
        if remaining_ms is not None and remaining_ms() < budget_ms:
            logger.warning(f"{consumer} deferred a group: too little time left", extra={"group": key})
            count(f"insight.{consumer}.message.deferred", len(members))
            failures += [{"itemIdentifier": i} for i in ids]
            continue
        try:
            handle([m.value for m in members])
        except PaveRateLimitedError as exc:
            delay = _retry_after(exc.retry_after)
            logger.warning(f"{consumer}: pave rate-limited; retried after {delay} s", extra={"group": key})
            count(f"insight.{consumer}.message.rate_limited", len(members))
            _delay(members, delay)
            failures += [{"itemIdentifier": i} for i in ids]
        except (ValidationError, DropMessageError) as exc:
            for message_id in ids:
                _dropped(consumer, message_id, exc)
        except Exception as exc:  # noqa: BLE001 - anything else is retried by SQS
            logger.exception(f"{consumer} failed a group", extra={"group": key, "error": str(exc), "message_ids": ids})
            count(f"insight.{consumer}.message.failed", len(members), error=type(exc).__name__)
            failures += [{"itemIdentifier": i} for i in ids]
    return {"batchItemFailures": failures}


def remaining_time(context: object) -> Callable[[], int] | None:
    """The Lambda context's clock (``get_remaining_time_in_millis``); None without a context."""
    clock = getattr(context, "get_remaining_time_in_millis", None)
    return clock if callable(clock) else None


def _retry_after(seconds: float | None) -> int:
    if seconds is None or not math.isfinite(seconds) or seconds < 0:
        return DEFAULT_RETRY_AFTER_SECONDS
    return min(MAX_VISIBILITY_SECONDS, max(1, math.ceil(seconds)))


def _delay(members: list[Received[T]], seconds: int) -> None:
    """Put the messages back no sooner than ``seconds`` from now (best effort: a failure here
    leaves the queue's own visibility timeout, which is longer)."""
    for member in members:
        if not (member.queue_name and member.receipt_handle):
            continue
        try:
            change_visibility(member.queue_name, member.receipt_handle, seconds)
        except Exception as exc:  # noqa: BLE001 - the message still comes back, later
            logger.warning("could not delay a message", extra={"message_id": member.message_id, "error": str(exc)})


def _queue_name(record: Mapping[str, object]) -> str:
    """``arn:aws:sqs:<region>:<account>:<name>`` -> ``<name>``."""
    return str(record.get("eventSourceARN", "")).rsplit(":", 1)[-1]


def _dropped(consumer: str, message_id: str, exc: Exception) -> None:
    if isinstance(exc, DropMessageError):  # a decision (nothing left to do), not a defect
        logger.info(
            f"{consumer} dropped a message", extra={"message_id": message_id, "reason": exc.reason, **exc.context}
        )
        count(f"insight.{consumer}.message.dropped", reason=exc.reason)
        return
    details = exc.details if isinstance(exc, ValidationError) else {}
    logger.error(
        f"{consumer} dropped an invalid message",
        extra={"message_id": message_id, "error": str(exc), "details": details},
    )
    count(f"insight.{consumer}.message.dropped", reason="invalid")
