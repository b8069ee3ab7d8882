"""Typed failures of the peer services, so handlers decide by class and ``retryable``.

``retryable`` is set per failure: a 5xx, 408/429, a timeout or a refused connection may
succeed later; a 4xx or a response that breaks the contract will not. A missing user is
not a failure of the User Service: :class:`UserNotFoundError` is deliberately *not* a
:class:`UserServiceError`, so ``except UserServiceError`` never swallows it (the miner
drops the message on not-found and retries on everything else).
"""

from __future__ import annotations

from typing import Any

from chalicelib.errors import ServiceError


class PeerServiceError(ServiceError):
    """A call to a peer service failed; base of every error in this package."""

    #: Which peer answered (``user_service``, ``payments_service``, ``admin_api``, ``segment``).
    peer = "peer"

    def __init__(self, message: str, *, status: int | None = None, retryable: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.retryable = retryable

    def describe(self) -> dict[str, Any]:
        """The fields worth logging (never tokens or request bodies)."""
        return {
            "peer": self.peer,
            "error_class": type(self).__name__,
            "status": self.status,
            "retryable": self.retryable,
            "message": str(self),
        }


class UserServiceError(PeerServiceError):
    """The User Service could not answer (5xx, timeout, auth, malformed response)."""

    peer = "user_service"


class UserNotFoundError(PeerServiceError):
    """The User Service answered that the user does not exist (404); never retryable."""

    peer = "user_service"

    def __init__(self, user_id: str) -> None:
        super().__init__(f"user {user_id} not found", status=404, retryable=False)
        self.user_id = user_id


class PaymentsServiceError(PeerServiceError):
    """The Payments Service could not delete the stored bank account."""

    peer = "payments_service"


class AdminApiError(PeerServiceError):
    """The Admin API refused or failed to add a note."""

    peer = "admin_api"


class SegmentError(PeerServiceError):
    """Segment did not accept a track call."""

    peer = "segment"
