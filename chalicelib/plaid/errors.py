"""Typed Plaid failures: callers decide by class (retry, end the mine, drop) and never by text.

Every error the client layer raises is a :class:`PlaidError` carrying Plaid's ``error_type``,
``error_code``, the HTTP status and the ``request_id`` (for support tickets), and a
``retryable`` flag that says whether the same call later may succeed. Messages never
contain access tokens or secrets.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chalicelib.errors import ServiceError

#: Item error codes that only the user can fix in Link's update mode (seed: "connection lost").
CONNECTION_LOST_CODES = frozenset(
    {"ITEM_LOGIN_REQUIRED", "ITEM_LOCKED", "PASSWORD_RESET_REQUIRED", "USER_SETUP_REQUIRED"}
)


class PlaidError(ServiceError):
    """A Plaid call failed; base of every error the Plaid client raises."""

    retryable = False

    def __init__(
        self,
        message: str,
        *,
        endpoint: str = "",
        error_type: str | None = None,
        error_code: str | None = None,
        status: int | None = None,
        request_id: str | None = None,
        display_message: str | None = None,
        error_code_reason: str | None = None,
    ) -> None:
        super().__init__(message)
        self.endpoint = endpoint
        self.error_type = error_type
        self.error_code = error_code
        self.status = status
        self.request_id = request_id
        self.display_message = display_message
        self.error_code_reason = error_code_reason

    def describe(self) -> dict[str, Any]:
        """The fields worth logging (no tokens, no secrets)."""
        return {
            "endpoint": self.endpoint,
            "error_class": type(self).__name__,
            "error_type": self.error_type,
            "error_code": self.error_code,
            "status": self.status,
            "request_id": self.request_id,
            "retryable": self.retryable,
        }


class PlaidRateLimitError(PlaidError):
    """HTTP 429 / ``RATE_LIMIT_EXCEEDED`` (code per endpoint, e.g. ``TRANSACTIONS_LIMIT``): back off."""

    retryable = True


class PlaidServerError(PlaidError):
    """Plaid itself failed (5xx, ``API_ERROR``): retry later."""

    retryable = True


class PlaidInstitutionError(PlaidError):
    """The bank is down or not responding (``INSTITUTION_ERROR``): retry later."""

    retryable = True


class PlaidConnectionError(PlaidError):
    """No usable HTTP exchange with Plaid (refused, reset, TLS): retry later."""

    retryable = True


class PlaidTimeoutError(PlaidConnectionError):
    """Plaid did not connect or answer within the call's timeout: retry later."""


class PlaidItemError(PlaidError):
    """The Item is in a state that blocks the call (``ITEM_ERROR``); see ``error_code``."""

    @property
    def needs_user_action(self) -> bool:
        """Whether only the user can repair the Item (Link update mode)."""
        return self.error_code in CONNECTION_LOST_CODES


class PlaidProductNotReadyError(PlaidItemError):
    """``PRODUCT_NOT_READY``: Plaid has not finished the first pull yet; the same call later succeeds."""

    retryable = True


class PlaidItemNotFoundError(PlaidItemError):
    """``ITEM_NOT_FOUND``: the Item was removed at Plaid; removing it again is already done."""


class PlaidSyncMutationError(PlaidError):
    """``TRANSACTIONS_SYNC_MUTATION_DURING_PAGINATION``: the Item's data changed between two pages of a
    ``/transactions/sync`` loop. Retrying this page cannot help; the whole loop restarts from its first cursor."""


class PlaidInvalidInputError(PlaidError):
    """Plaid (or the SDK, before sending) rejected the request itself; retrying won't help."""


class PlaidResponseError(PlaidError):
    """Plaid answered 2xx with a body we cannot trust (not JSON, missing or mistyped fields)."""

    def __init__(self, message: str, *, details: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.details: dict[str, Any] = dict(details or {})


#: The family of a failure Plaid gave no ``error_type`` for, by the class the client chose.
_FAMILY_BY_CLASS: tuple[tuple[type[PlaidError], str], ...] = (
    (PlaidTimeoutError, "TIMEOUT"),
    (PlaidConnectionError, "CONNECTION"),
    (PlaidResponseError, "BAD_RESPONSE"),
    (PlaidRateLimitError, "RATE_LIMIT_EXCEEDED"),
    (PlaidServerError, "API_ERROR"),
    (PlaidInvalidInputError, "INVALID_REQUEST"),
)
_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def error_family(error: PlaidError) -> str:
    """Plaid's ``error_type`` of a failure, or the family of one Plaid did not describe.

    A bounded set (Plaid's documented types plus TIMEOUT, CONNECTION, BAD_RESPONSE, OTHER):
    it is a metric dimension the alarms watch.
    """
    if error.error_type and len(error.error_type) <= 64 and set(error.error_type) <= _WORD:
        return error.error_type
    return next((family for kind, family in _FAMILY_BY_CLASS if isinstance(error, kind)), "OTHER")


def error_code_of(error: PlaidError) -> str:
    """Plaid's ``error_code`` (``NONE`` when it sent none), bounded as a metric dimension."""
    code = error.error_code
    return code if code and len(code) <= 64 and set(code) <= _WORD else "NONE"


# --- webhook verification ------------------------------------------------------------


class WebhookVerificationError(ServiceError):
    """Base of webhook-verification failures; ``reason`` is a short machine-readable tag."""

    def __init__(self, reason: str, message: str | None = None) -> None:
        super().__init__(message or reason)
        self.reason = reason


class WebhookUnauthorizedError(WebhookVerificationError):
    """The webhook is not provably from Plaid (answer HTTP 401)."""


class WebhookVerificationUnavailableError(WebhookVerificationError):
    """The verification key could not be fetched from Plaid (answer HTTP 500 so Plaid retries)."""

    retryable = True


class WebhookNotQueuedError(ServiceError):
    """A verified webhook could not be queued (answer HTTP 500 so Plaid delivers it again)."""

    retryable = True
