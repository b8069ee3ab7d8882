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

from chalicelib.errors import (
    ConditionFailedError,
    NotFoundError,
    ServiceError,
    ThrottledError,
    ValidationError,
)
from chalicelib.observability import logger
from chalicelib.plaid.errors import WebhookUnauthorizedError, WebhookVerificationUnavailableError

P = ParamSpec("P")


class BadRequestBodyError(ValidationError):
    """The request body is not what the route accepts (not JSON, wrong shape): HTTP 422."""


class UnauthorizedError(ServiceError):
    """No valid credentials: HTTP 401."""


class ForbiddenError(ServiceError):
    """Valid credentials that may not touch this resource: HTTP 403."""


#: Most specific first: the first matching class decides.
STATUS_BY_ERROR: tuple[tuple[type[BaseException], int, str], ...] = (
    (WebhookUnauthorizedError, 401, "unauthorized"),
    (WebhookVerificationUnavailableError, 500, "verification_unavailable"),
    (UnauthorizedError, 401, "unauthorized"),
    (ForbiddenError, 403, "forbidden"),
    (BadRequestBodyError, 422, "unprocessable_entity"),
    (ValidationError, 400, "bad_request"),
    (NotFoundError, 404, "not_found"),
    (ConditionFailedError, 409, "conflict"),
    (ThrottledError, 503, "unavailable"),
)


def error_response(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> Response:
    all_headers: dict[str, str | list[str]] = {"Content-Type": "application/json", **(headers or {})}
    return Response(body={"error": {"code": code, "message": message}}, status_code=status, headers=all_headers)


def to_response(exc: BaseException) -> Response:
    for error_type, status, code in STATUS_BY_ERROR:
        if isinstance(exc, error_type):
            extra = {"WWW-Authenticate": "Bearer"} if status == 401 else None
            return error_response(status, code, str(exc) if status < 500 else code.replace("_", " "), extra)
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
