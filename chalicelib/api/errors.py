"""HTTP status from exception type, in exactly one place.

Chalice turns any exception escaping a view into a bare 500 before middleware sees it,
so views are wrapped with :func:`http_errors`, which maps the service's typed errors to
a status and one error format: ``{"error": {"code": ..., "message": ...}}``. Codes are
stable strings clients may switch on; messages are for humans.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, ParamSpec

from chalice import Response

from chalicelib.data.account_changes import AccountChangeCollisionError
from chalicelib.data.items import ItemContentionError
from chalicelib.data.layers import LayerStubContentionError
from chalicelib.errors import (
    BatchUnprocessedError,
    ConditionFailedError,
    NotFoundError,
    ServiceError,
    ThrottledError,
    TransientAWSError,
    ValidationError,
)
from chalicelib.insight.verification import IllegalTransitionError, VerificationContentionError
from chalicelib.observability import logger
from chalicelib.plaid.errors import (
    PlaidError,
    PlaidItemError,
    PlaidRateLimitError,
    WebhookNotQueuedError,
    WebhookUnauthorizedError,
    WebhookVerificationUnavailableError,
)

P = ParamSpec("P")


class BadRequestBodyError(ValidationError):
    """The request body is not what the route accepts (not JSON, wrong shape): HTTP 422."""


class UnauthorizedError(ServiceError):
    """No valid credentials: HTTP 401."""


class ForbiddenError(ServiceError):
    """Valid credentials that may not touch this resource: HTTP 403."""


class AuthUnavailableError(ServiceError):
    """The identity provider's keys could not be read, so no token can be checked: HTTP 503."""

    retryable = True


class NotAvailableError(NotFoundError):
    """The route exists in the code but not in this stage (the QA seed in prod): HTTP 404."""


#: Most specific first: the first matching class decides.
STATUS_BY_ERROR: tuple[tuple[type[BaseException], int, str], ...] = (
    (WebhookUnauthorizedError, 401, "unauthorized"),
    (WebhookVerificationUnavailableError, 500, "verification_unavailable"),
    (WebhookNotQueuedError, 500, "webhook_not_queued"),
    (UnauthorizedError, 401, "unauthorized"),
    (ForbiddenError, 403, "forbidden"),
    (BadRequestBodyError, 422, "unprocessable_entity"),
    (ValidationError, 400, "bad_request"),
    (NotFoundError, 404, "not_found"),
    (IllegalTransitionError, 409, "illegal_transition"),
    (ConditionFailedError, 409, "conflict"),
    (ThrottledError, 503, "unavailable"),
    (TransientAWSError, 503, "unavailable"),
    (BatchUnprocessedError, 503, "unavailable"),
    (ItemContentionError, 503, "unavailable"),
    (LayerStubContentionError, 503, "unavailable"),
    (AccountChangeCollisionError, 503, "unavailable"),
    (VerificationContentionError, 503, "unavailable"),
    (AuthUnavailableError, 503, "auth_unavailable"),
    (PlaidRateLimitError, 429, "plaid_rate_limited"),
    (PlaidItemError, 409, "plaid_item_error"),
    (PlaidError, 502, "plaid_unavailable"),
)


def error_response(
    status: int,
    code: str,
    message: str,
    headers: dict[str, str] | None = None,
    details: dict[str, Any] | None = None,
) -> Response:
    """The one error body; ``details`` (field errors of a 400/422) only when there are some."""
    all_headers: dict[str, str | list[str]] = {"Content-Type": "application/json", **(headers or {})}
    error: dict[str, Any] = {"code": code, "message": message}
    if details:
        error["details"] = details
    return Response(body={"error": error}, status_code=status, headers=all_headers)


def to_response(exc: BaseException) -> Response:
    for error_type, status, code in STATUS_BY_ERROR:
        if isinstance(exc, error_type):
            extra = {"WWW-Authenticate": "Bearer"} if status == 401 else None
            message = str(exc) if status < 500 else code.replace("_", " ")
            details = exc.details if isinstance(exc, ValidationError) else None
            return error_response(status, code, message, extra, details)
    logger.exception("unhandled error in a view", extra={"error_class": type(exc).__name__})
    return error_response(500, "internal_error", "internal error")


def http_errors(view: Callable[P, Any]) -> Callable[P, Any]:
    """Wrap a Chalice view so typed errors become their HTTP status and error body."""

    @functools.wraps(view)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> Any:
        try:
            return view(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - the one place errors become responses
            return to_response(exc)

    return wrapper
