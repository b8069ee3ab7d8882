"""The service's typed errors.

Every failure the service can name has a class here, so handlers decide by type (retry,
skip, HTTP status) and never by message text. AWS client errors are translated into
these in exactly one place, :mod:`chalicelib.aws.errors`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


class ServiceError(Exception):
    """Base of every error this service raises on purpose."""

    #: Whether retrying the same input later may succeed.
    retryable: bool = False


class ConfigurationError(ServiceError):
    """A setting is missing or malformed."""


class ValidationError(ServiceError):
    """Input failed validation at a boundary (webhook, message, record, request)."""

    def __init__(self, message: str, details: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.details: dict[str, Any] = dict(details or {})


class BadRequestBodyError(ValidationError):
    """A request body is not what its receiver accepts (not JSON, not an object, wrong shape).

    Raised by the webhook intake and by the API alike; HTTP answers it with 422.
    """


class PayloadTooLargeError(ServiceError):
    """A request body is larger than its receiver accepts; HTTP answers it with 413."""


class RateLimitedError(ServiceError):
    """The caller used up its allowance of a limited call; ``retry_after`` seconds until the next.

    HTTP answers it with 429 and a ``Retry-After`` header.
    """

    retryable = True

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = max(1, retry_after)


# --- data layer -----------------------------------------------------------------------


class DataError(ServiceError):
    """A DynamoDB operation failed."""


class NotFoundError(DataError):
    """The row asked for does not exist."""


class ConditionFailedError(DataError):
    """A conditional write found its precondition false (an invariant held)."""


class TransactionConditionFailedError(ConditionFailedError):
    """A TransactWriteItems was cancelled because conditions failed.

    ``reasons`` holds one code per action, in request order (``None`` where that action was
    not the cause), so a caller can tell which precondition no longer held.
    """

    def __init__(self, message: str, reasons: Sequence[str | None]) -> None:
        super().__init__(message)
        self.reasons: list[str | None] = list(reasons)


class ThrottledError(DataError):
    """DynamoDB or another AWS service throttled the request; retry later."""

    retryable = True


class TransientAWSError(DataError):
    """An AWS call failed for a reason a later retry may fix (5xx, timeout)."""

    retryable = True


class TransactionConflictError(TransientAWSError):
    """Another write held an item this write needed (DynamoDB's TransactionConflict); retry shortly."""


class ResourceMissingError(DataError):
    """A table, queue or stream named in configuration does not exist."""


class AccessDeniedError(DataError):
    """IAM refused the call."""


class ContentionError(DataError):
    """A read-modify-write or a probed key kept colliding with concurrent writers; retry later."""

    retryable = True


class InvalidRequestError(DataError):
    """AWS rejected the request as malformed (``ValidationException``); retrying won't help."""


class BatchUnprocessedError(DataError):
    """A batch read or write left items unprocessed after every allowed attempt.

    ``items`` holds exactly what was not processed, in the request's shape
    (``{table: [request, ...]}`` for writes, ``{table: {"Keys": [...]}}`` for reads),
    so a caller can retry or park them: nothing is dropped silently.
    """

    retryable = True

    def __init__(self, operation: str, items: Mapping[str, Any], attempts: int) -> None:
        count = sum(_count(v) for v in items.values())
        super().__init__(f"{operation} left {count} item(s) unprocessed after {attempts} attempts")
        self.operation = operation
        self.items: dict[str, Any] = dict(items)
        self.attempts = attempts
        self.count = count


def _count(value: Any) -> int:
    if isinstance(value, Mapping):
        keys = value.get("Keys", [])
        return len(keys) if isinstance(keys, Sequence) else 0
    if isinstance(value, Sequence):
        return len(value)
    return 0
