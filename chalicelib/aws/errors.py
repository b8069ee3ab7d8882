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
_TRANSIENT = frozenset({"InternalServerError", "ServiceUnavailable", "RequestTimeout"})
_MISSING = frozenset({"ResourceNotFoundException", "AWS.SimpleQueueService.NonExistentQueue", "QueueDoesNotExist"})
_DENIED = frozenset({"AccessDeniedException", "AccessDenied", "UnrecognizedClientException"})
_INVALID = frozenset({"ValidationException", "SerializationException", "InvalidParameterValue"})


def error_code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


def translate(exc: Exception) -> DataError:
    """The typed error for a botocore exception (never raises itself)."""
    if isinstance(exc, ClientError):
        code = error_code(exc)
        message = f"{exc.operation_name}: {code}: {exc.response.get('Error', {}).get('Message', '')}"
        status = int(exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0) or 0)
        if code == "ConditionalCheckFailedException":
            return ConditionFailedError(message)
        if code == "TransactionCanceledException":
            reasons = [r.get("Code") for r in exc.response.get("CancellationReasons", [])]
            if "ConditionalCheckFailed" in reasons:
                return ConditionFailedError(message)
            return TransientAWSError(message)
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
