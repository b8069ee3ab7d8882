"""Translate botocore errors into the service's typed errors, in exactly one place."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    ReadTimeoutError,
)
from botocore.exceptions import (
    ConnectionError as BotoConnectionError,
)

from chalicelib.errors import (
    AccessDeniedError,
    ConditionFailedError,
    DataError,
    InvalidRequestError,
    ResourceMissingError,
    ThrottledError,
    TransactionConditionFailedError,
    TransactionConflictError,
    TransientAWSError,
)

_THROTTLING = frozenset(
    {
        "ProvisionedThroughputExceededException",
        "ThrottlingException",
        "Throttling",
        "RequestLimitExceeded",
        "TooManyRequestsException",
        "LimitExceededException",
        "KMSThrottlingException",
    }
)
#: Cancellation reasons of a transaction that mean throttling.
_THROTTLED_REASONS = frozenset({"ThrottlingError", "ProvisionedThroughputExceeded", "RequestLimitExceeded"})
_TRANSIENT = frozenset({"InternalServerError", "ServiceUnavailable", "RequestTimeout"})
_MISSING = frozenset({"ResourceNotFoundException", "AWS.SimpleQueueService.NonExistentQueue", "QueueDoesNotExist"})
_DENIED = frozenset({"AccessDeniedException", "AccessDenied", "UnrecognizedClientException"})
_INVALID = frozenset({"ValidationException", "SerializationException", "InvalidParameterValue"})


def error_code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


def _reason(reason: object) -> str | None:
    """One action's cancellation code (``None``: that action was not the cause)."""
    code = reason.get("Code") if isinstance(reason, dict) else None
    return None if code in (None, "None") else str(code)


def _cancelled(exc: ClientError, message: str) -> DataError:
    """A cancelled transaction, by its actions' reasons; a single write that met one is a conflict."""
    reasons = [_reason(r) for r in exc.response.get("CancellationReasons", [])]
    if "ConditionalCheckFailed" in reasons:
        return TransactionConditionFailedError(message, reasons)
    if any(r in _THROTTLED_REASONS for r in reasons):
        return ThrottledError(message)
    return TransactionConflictError(message)  # TransactionConflict and the like: a retry may pass


def translate(exc: Exception) -> DataError:
    """The typed error for a botocore exception (never raises itself)."""
    if isinstance(exc, ClientError):
        code = error_code(exc)
        message = f"{exc.operation_name}: {code}: {exc.response.get('Error', {}).get('Message', '')}"
        status = int(exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0) or 0)
        if code == "ConditionalCheckFailedException":
            return ConditionFailedError(message)
        if code in ("TransactionCanceledException", "TransactionConflictException"):
            return _cancelled(exc, message)
        if code in _THROTTLING:
            return ThrottledError(message)
        if code in _MISSING:
            return ResourceMissingError(message)
        if code in _DENIED:
            return AccessDeniedError(message)
        if code in _INVALID:
            return InvalidRequestError(message)
        if code in _TRANSIENT or status >= 500:
            return TransientAWSError(message)
        return DataError(message)
    if isinstance(exc, (ReadTimeoutError, BotoConnectionError)):
        return TransientAWSError(f"{type(exc).__name__}: {exc}")
    if isinstance(exc, BotoCoreError):
        return DataError(f"{type(exc).__name__}: {exc}")
    return DataError(f"{type(exc).__name__}: {exc}")


@contextmanager
def translated() -> Iterator[None]:
    """Run a block of AWS calls, re-raising botocore failures as typed errors."""
    try:
        yield
    except (ClientError, BotoCoreError) as exc:
        raise translate(exc) from exc
