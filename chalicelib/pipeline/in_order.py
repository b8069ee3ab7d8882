"""The in-order loop of the stream consumers: the refiner (Kinesis) and the feeder (DynamoDB streams).

Records of a shard are applied in order, because a later record may depend on an earlier
one (an item's pages and removals; an item's writes). So, unlike an SQS batch, a batch is
not a set of independent messages:

* the first record that fails for a reason a retry may fix is reported as the batch item
  failure, by its sequence number, and nothing after it runs in this invocation: Lambda
  retries from that record (bisecting on error), so no later record is applied before it;
* a record no retry can fix (each consumer names those errors) is logged, counted and
  skipped, so one bad record cannot stall its shard for the stream's retention.

Powertools' ``BatchProcessor`` does not fit: it goes on with the records after a failure,
which would apply them before the failed one. Each consumer says what is unfixable and how a
failure is counted (its metric and dimensions are its own), and logs as ``<consumer> ...``.
This module must stay light: the refiner's cold start loads it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

from chalicelib.observability import logger

R = TypeVar("R")
SKIPPED = "skipped"
RETRIED = "retried"


@dataclass(frozen=True)
class InOrderLoop(Generic[R]):
    """One consumer's loop: its name (for the log lines), what it skips, and how it counts failures."""

    consumer: str
    #: Errors no retry can fix: the record is logged, counted (``skipped``) and skipped.
    unfixable: tuple[type[Exception], ...]
    sequence_number: Callable[[R], str]
    #: Counts a failed record: ``(result, error)`` with result ``skipped`` or ``retried``.
    count_failure: Callable[[str, Exception], None]

    def run(self, records: Iterable[R], handle: Callable[[R], object]) -> dict[str, list[dict[str, str]]]:
        """``handle`` each record in order; return Lambda's partial batch response (the first retryable failure)."""
        for record in records:
            try:
                handle(record)
            except self.unfixable as exc:
                sequence = self.sequence_number(record)
                logger.error(
                    f"{self.consumer} skipped a record", extra={"sequence_number": sequence, "error": str(exc)}
                )
                self.count_failure(SKIPPED, exc)
            except Exception as exc:  # noqa: BLE001 - anything else is retried from this record
                sequence = self.sequence_number(record)
                logger.exception(
                    f"{self.consumer} failed a record; it will be retried",
                    extra={"sequence_number": sequence, "error": str(exc), "error_class": type(exc).__name__},
                )
                self.count_failure(RETRIED, exc)
                return {"batchItemFailures": [{"itemIdentifier": sequence}]}
        return {"batchItemFailures": []}
