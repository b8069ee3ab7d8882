"""Plaid's error responses as the fake sends them, and the faults a test can inject.

Status codes and types follow plaid.md §1.3: Item errors are HTTP 400 ``ITEM_ERROR``;
``RATE_LIMIT_EXCEEDED`` is an error *type* answered with 429 and an endpoint-specific code;
``API_ERROR`` is 5xx.
"""

from __future__ import annotations

import secrets
import string
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ErrorSpec:
    status: int
    error_type: str
    message: str
    display_message: str | None = None


# fmt: off
ERRORS: dict[str, ErrorSpec] = {
    "ITEM_LOGIN_REQUIRED": ErrorSpec(400, "ITEM_ERROR",
        "the login details of this item have changed (credentials, MFA, or required user action) and a user login "
        "is required to update this information. use Link's update mode to restore the item to a good state",
        "The login details of this item have changed. Please log in again."),
    "ITEM_LOCKED": ErrorSpec(400, "ITEM_ERROR", "the account is locked. prompt the user to visit the institution's "
        "site and unlock their account", "Your account is locked."),
    "PASSWORD_RESET_REQUIRED": ErrorSpec(400, "ITEM_ERROR", "user must reset their password at the institution",
        "You need to reset your password."),
    "USER_SETUP_REQUIRED": ErrorSpec(400, "ITEM_ERROR", "the user must log into their financial institution and "
        "complete a required action", "Please log in to your bank and complete the required action."),
    "NO_ACCOUNTS": ErrorSpec(400, "ITEM_ERROR", "no valid accounts were found for this item",
        "No valid accounts were found at the bank."),
    "PRODUCT_NOT_READY": ErrorSpec(400, "ITEM_ERROR", "the requested product is not yet ready. please provide a "
        "webhook or try the request again later"),
    "ITEM_NOT_FOUND": ErrorSpec(400, "ITEM_ERROR", "the Item you requested cannot be found. This Item does not "
        "exist, has been previously removed via /item/remove, or has had access removed by the user"),
    "RATE_LIMIT_EXCEEDED": ErrorSpec(429, "RATE_LIMIT_EXCEEDED", "rate limit exceeded for attempts to access this "
        "item. please try again later"),
    "INTERNAL_SERVER_ERROR": ErrorSpec(500, "API_ERROR", "an unexpected error occurred",
        "Something went wrong. Please try again later."),
    "PLANNED_MAINTENANCE": ErrorSpec(503, "API_ERROR", "the Plaid API is temporarily unavailable due to planned "
        "maintenance", "Plaid is under maintenance."),
    "INSTITUTION_DOWN": ErrorSpec(400, "INSTITUTION_ERROR", "this institution is not currently responding to this "
        "request. please try again soon", "This bank is temporarily unavailable."),
    "INSTITUTION_NOT_RESPONDING": ErrorSpec(400, "INSTITUTION_ERROR", "this institution is not currently responding "
        "to this request. please try again soon", "This bank is not responding."),
    "INVALID_API_KEYS": ErrorSpec(401, "INVALID_INPUT", "invalid client_id or secret provided"),
    "INVALID_ACCESS_TOKEN": ErrorSpec(400, "INVALID_INPUT", "provided access token is in an invalid format. "
        "expected format: access-<environment>-<identifier>"),
    "INVALID_PUBLIC_TOKEN": ErrorSpec(400, "INVALID_INPUT", "provided public token is expired. Public tokens "
        "expire 30 minutes after creation at which point they can no longer be exchanged"),
    "INVALID_ACCOUNT_ID": ErrorSpec(400, "INVALID_INPUT", "one or more of the account IDs is invalid"),
    "INVALID_INSTITUTION": ErrorSpec(400, "INVALID_INPUT", "invalid institution_id provided"),
    "INVALID_WEBHOOK_VERIFICATION_KEY_ID": ErrorSpec(400, "INVALID_INPUT", "invalid key_id provided"),
    "INVALID_FIELD": ErrorSpec(400, "INVALID_REQUEST", "a field in the request is invalid"),
    "MISSING_FIELDS": ErrorSpec(400, "INVALID_REQUEST", "the following required fields are missing"),
    "NOT_FOUND": ErrorSpec(404, "INVALID_REQUEST", "not found"),
    "INVALID_BODY": ErrorSpec(400, "INVALID_REQUEST", "body could not be parsed as JSON"),
    "INVALID_IDENTITY_VERIFICATION_ID": ErrorSpec(400, "INVALID_INPUT", "identity verification not found"),
    "INVALID_WATCHLIST_SCREENING_ID": ErrorSpec(400, "INVALID_INPUT", "watchlist screening not found"),
    "TRANSACTIONS_SYNC_MUTATION_DURING_PAGINATION": ErrorSpec(400, "TRANSACTIONS_ERROR", "underlying transaction "
        "data changed since last page was fetched. please restart pagination from last update."),
}
# fmt: on

#: The ``error_code`` a 429 carries on each endpoint (RATE_LIMIT_EXCEEDED is the type, not the code).
RATE_LIMIT_CODES = {
    "/transactions/get": "TRANSACTIONS_LIMIT",
    "/transactions/sync": "TRANSACTIONS_SYNC_LIMIT",
    "/accounts/get": "ACCOUNTS_LIMIT",
    "/accounts/balance/get": "ACCOUNTS_BALANCE_GET_LIMIT",
    "/item/get": "ITEM_GET_LIMIT",
    "/institutions/get": "INSTITUTIONS_GET_LIMIT",
    "/identity_verification/get": "IDENTITY_VERIFICATION_GET_LIMIT",
}


def request_id() -> str:
    """A fresh request id shaped like Plaid's."""
    alphabet = string.ascii_letters + string.digits
    return "".join(secrets.choice(alphabet) for _ in range(15))


class FakeApiError(Exception):
    """Raised by a handler to answer with a PlaidError body."""

    def __init__(self, code: str, message: str | None = None, *, endpoint: str = "") -> None:
        if code not in ERRORS:
            raise ValueError(f"unknown Plaid error {code!r}; known: {sorted(ERRORS)}")
        spec = ERRORS[code]
        super().__init__(message or spec.message)
        self.code = code
        self.spec = spec
        self.endpoint = endpoint
        self.message = message or spec.message

    @property
    def status(self) -> int:
        return self.spec.status

    def body(self, endpoint: str | None = None) -> dict[str, Any]:
        """Plaid's error JSON (every key the SDK's ``PlaidError`` model knows)."""
        where = endpoint or self.endpoint
        code = RATE_LIMIT_CODES.get(where, "RATE_LIMIT") if self.code == "RATE_LIMIT_EXCEEDED" else self.code
        return {
            "error_type": self.spec.error_type,
            "error_code": code,
            "error_code_reason": None,
            "error_message": self.message,
            "display_message": self.spec.display_message,
            "request_id": request_id(),
            "causes": [],
            "status": self.spec.status,
            "documentation_url": f"https://plaid.com/docs/errors/#{code.lower()}",
            "suggested_action": None,
        }


@dataclass
class Fault:
    """What to do to the next matching call(s): delay, fail with an error, or answer a given body."""

    endpoint: str  # "/transactions/get", or "*" for every Plaid endpoint
    error: str | None = None
    delay: float = 0.0
    times: int | None = 1  # None: until cleared
    access_token: str | None = None
    response: Any = None  # a body (dict/list/str) answered with ``response_status`` instead of the real one
    response_status: int = 200
    id: int = 0
    hits: int = field(default=0)

    def __post_init__(self) -> None:
        if self.error is not None and self.error not in ERRORS:
            raise ValueError(f"unknown Plaid error {self.error!r}; known: {sorted(ERRORS)}")

    def matches(self, endpoint: str, body: dict[str, Any]) -> bool:
        if self.endpoint not in ("*", endpoint):
            return False
        return self.access_token is None or body.get("access_token") == self.access_token

    def describe(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "endpoint": self.endpoint,
            "error": self.error,
            "delay": self.delay,
            "times": self.times,
            "access_token_bound": self.access_token is not None,
            "hits": self.hits,
        }
