"""HTTP status from exception type, in exactly one place.

Chalice turns any exception escaping a view into a bare 500 before middleware sees it,
so every view is registered through :mod:`chalicelib.routing`, whose wrapper hands what a
view raises to :func:`to_response`: the service's typed errors become a status and one
error format, ``{"error": {"code": ..., "message": ...}}``. Errors Chalice answers itself
before any view runs (an unsupported ``Content-Type``) get the same format from
:func:`from_chalice_error`. Codes are stable strings clients may switch on; messages are
for humans.
"""

from __future__ import annotations

import re
from typing import Any

from chalice import Response

from chalicelib.errors import (
    BadRequestBodyError,
    BatchUnprocessedError,
    ConditionFailedError,
    ContentionError,
    NotFoundError,
    PayloadTooLargeError,
    RateLimitedError,
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
    (PayloadTooLargeError, 413, "payload_too_large"),
    (RateLimitedError, 429, "rate_limited"),
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
    (ContentionError, 503, "unavailable"),
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
            extra = _headers_for(exc, status)
            message = str(exc) if status < 500 else code.replace("_", " ")
            details = exc.details if isinstance(exc, ValidationError) else None
            return error_response(status, code, message, extra, details)
    logger.exception("unhandled error in a view", extra={"error_class": type(exc).__name__})
    return error_response(500, "internal_error", "internal error")


def _headers_for(exc: BaseException, status: int) -> dict[str, str] | None:
    if status == 401:
        return {"WWW-Authenticate": "Bearer"}
    if isinstance(exc, RateLimitedError):
        return {"Retry-After": str(exc.retry_after)}
    return None


#: Chalice's own error codes (``{"Code": ..., "Message": ...}``) in the service's words.
CHALICE_CODES = {
    "UnsupportedMediaType": "unsupported_media_type",
    "MethodNotAllowedError": "method_not_allowed",
    "BadRequest": "not_acceptable",  # a binary response the request's Accept does not take
    "InternalServerError": "internal_error",
}


def from_chalice_error(response: Response) -> Response:
    """An error Chalice answered itself, in the one error format; status and headers kept."""
    body = response.body if isinstance(response.body, dict) else {}
    chalice_code = str(body.get("Code", ""))
    code = CHALICE_CODES.get(chalice_code) or re.sub(r"(?<!^)(?=[A-Z])", "_", chalice_code).lower() or "error"
    message = "internal error" if response.status_code >= 500 else str(body.get("Message", code))
    headers = {k: v for k, v in response.headers.items() if k.lower() != "content-type" and isinstance(v, str)}
    return error_response(response.status_code, code, message, headers)
