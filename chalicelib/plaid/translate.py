"""The one place SDK and transport exceptions become typed :mod:`chalicelib.plaid.errors`.

Plaid's error body decides first (``error_type`` is the taxonomy Plaid documents), the HTTP
status second (a proxy's 502 page has no PlaidError body). Transport failures come from
urllib3 directly, not as ``ApiException``, and the SDK's response-model failures are plain
``TypeError``/``ApiTypeError``/``ApiValueError``: each has its own branch.
"""

from __future__ import annotations

import json
from typing import Any

import urllib3.exceptions

from chalicelib.plaid.errors import (
    PlaidConnectionError,
    PlaidError,
    PlaidInstitutionError,
    PlaidInvalidInputError,
    PlaidItemError,
    PlaidItemNotFoundError,
    PlaidProductNotReadyError,
    PlaidRateLimitError,
    PlaidResponseError,
    PlaidServerError,
    PlaidSyncMutationError,
    PlaidTimeoutError,
)

SYNC_MUTATION_CODE = "TRANSACTIONS_SYNC_MUTATION_DURING_PAGINATION"
_INVALID_INPUT_TYPES = frozenset({"INVALID_INPUT", "INVALID_REQUEST", "INVALID_RESULT"})
_ITEM_ERROR_CLASSES: dict[str, type[PlaidItemError]] = {
    "PRODUCT_NOT_READY": PlaidProductNotReadyError,
    "ITEM_NOT_FOUND": PlaidItemNotFoundError,
}


def parse_error_body(body: Any) -> dict[str, Any]:
    """Plaid's PlaidError JSON from an ``ApiException.body`` (str or bytes); ``{}`` if it is not one."""
    if isinstance(body, bytes | bytearray):
        body = body.decode("utf-8", errors="replace")
    if not isinstance(body, str) or not body:
        return {}
    try:
        parsed = json.loads(body)
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def from_http_error(endpoint: str, status: int | None, body: Any) -> PlaidError:
    """The typed error for a non-2xx answer with (maybe) a PlaidError body."""
    fields = parse_error_body(body)
    error_type = _str_or_none(fields.get("error_type"))
    error_code = _str_or_none(fields.get("error_code"))
    kwargs: dict[str, Any] = {
        "endpoint": endpoint,
        "error_type": error_type,
        "error_code": error_code,
        "status": status,
        "request_id": _str_or_none(fields.get("request_id")),
        "display_message": _str_or_none(fields.get("display_message")),
        "error_code_reason": _str_or_none(fields.get("error_code_reason")),
    }
    detail = _str_or_none(fields.get("error_message")) or "no PlaidError body"
    message = f"Plaid {endpoint} failed: {error_type or '-'}/{error_code or '-'} (HTTP {status}): {detail}"
    return _classify(error_type, error_code, status)(message, **kwargs)


def _classify(error_type: str | None, error_code: str | None, status: int | None) -> type[PlaidError]:
    if error_code == SYNC_MUTATION_CODE:
        return PlaidSyncMutationError
    if error_type == "RATE_LIMIT_EXCEEDED" or status == 429:
        return PlaidRateLimitError
    if error_type == "ITEM_ERROR":
        return _ITEM_ERROR_CLASSES.get(error_code or "", PlaidItemError)
    if error_type == "API_ERROR":
        return PlaidServerError
    if error_type == "INSTITUTION_ERROR":
        return PlaidInstitutionError
    if error_type in _INVALID_INPUT_TYPES:
        return PlaidInvalidInputError
    if status is not None and 500 <= status <= 599:
        return PlaidServerError
    return PlaidError


def _is_timeout(exc: BaseException) -> bool:
    cause = getattr(exc, "reason", None) or exc  # MaxRetryError wraps the last cause
    if isinstance(cause, urllib3.exceptions.NewConnectionError):
        return False  # refused/unresolvable: urllib3 2 subclasses it from ConnectTimeoutError
    return isinstance(cause, urllib3.exceptions.TimeoutError | TimeoutError)


def from_transport_error(endpoint: str, exc: BaseException) -> PlaidError:
    """The typed error for urllib3/socket failures (the SDK lets them through untranslated)."""
    if _is_timeout(exc):
        return PlaidTimeoutError(f"Plaid {endpoint} timed out: {type(exc).__name__}", endpoint=endpoint)
    return PlaidConnectionError(f"Plaid {endpoint} unreachable: {type(exc).__name__}", endpoint=endpoint)


def from_parse_error(endpoint: str, exc: BaseException, request_id: str | None = None) -> PlaidResponseError:
    """The typed error for a 2xx body the SDK's models (or our schemas) rejected."""
    return PlaidResponseError(
        f"Plaid {endpoint} returned a body that does not match the API: {type(exc).__name__}: {exc}",
        endpoint=endpoint,
        request_id=request_id,
        details={"exception": type(exc).__name__, "message": str(exc)[:2000]},
    )
