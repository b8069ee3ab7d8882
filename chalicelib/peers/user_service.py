"""The User Service: who a user is and whether their account is ACTIVE.

The miner, the feeder (prequal item expiry: keep the item only while the user is ACTIVE)
and the listener ask ``GET /v1/users/{user_id}``. A 404 ``USER_NOT_FOUND`` is an answer, not
a failure: it raises :class:`UserNotFoundError`, which callers treat as "drop". Anything else
raises :class:`UserServiceError` (retryable for 5xx and timeouts), including a 404 without
that code: a wrong base URL must fail loudly, not make every user look deleted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any
from urllib.parse import quote

from marshmallow import EXCLUDE, Schema, fields
from marshmallow import ValidationError as SchemaError

from chalicelib.observability import logger
from chalicelib.peers.errors import UserNotFoundError, UserServiceError
from chalicelib.peers.transport import PeerTransport, RetryPolicy, Timeouts, error_code

#: The error code that makes a 404 mean "no such user" (any other 404 is a failure: wrong URL, proxy).
USER_NOT_FOUND = "USER_NOT_FOUND"


class UserStatus(StrEnum):
    """Account states the User Service reports; only ACTIVE users keep prequal items.

    PENDING: signed up, onboarding not finished. SUSPENDED: blocked for now (fraud, collections),
    may return to ACTIVE. CLOSED: closed by the user or the company. DELETED: erased (personal
    data gone; the id stays reserved). UNKNOWN: a status this service does not know yet; it is
    treated as "not active" rather than failing, so a new status upstream cannot stall the feeder.
    """

    ACTIVE = "ACTIVE"
    PENDING = "PENDING"
    SUSPENDED = "SUSPENDED"
    CLOSED = "CLOSED"
    DELETED = "DELETED"
    UNKNOWN = "UNKNOWN"

    @classmethod
    def parse(cls, raw: str) -> UserStatus:
        try:
            return cls(raw.strip().upper())
        except ValueError:
            return cls.UNKNOWN


@dataclass(frozen=True)
class User:
    """A user as the User Service reports them. ``email`` is personal data: kept out of ``repr``."""

    user_id: str
    status: UserStatus
    email: str | None = field(default=None, repr=False)
    created_at: str | None = None
    #: The status string as sent, for logs when ``status`` is UNKNOWN.
    raw_status: str = ""

    @property
    def is_active(self) -> bool:
        return self.status is UserStatus.ACTIVE


class _UserSchema(Schema):
    class Meta:
        unknown = EXCLUDE

    user_id = fields.String(required=True)
    status = fields.String(required=True)
    email = fields.String(load_default=None, allow_none=True)
    created_at = fields.String(load_default=None, allow_none=True)


_USER = _UserSchema()


class UserServiceClient:
    """``GET /v1/users/{user_id}`` with a bearer service token. Build with :func:`get_user_service`."""

    def __init__(
        self, base_url: str, token: str, *, timeouts: Timeouts | None = None, retry: RetryPolicy | None = None
    ) -> None:
        self.transport = PeerTransport(base_url, token, error_type=UserServiceError, timeouts=timeouts, retry=retry)

    def __repr__(self) -> str:
        return f"UserServiceClient(base_url={self.transport.base_url!r})"

    def get_user(self, user_id: str) -> User:
        """The user, or :class:`UserNotFoundError` (404) / :class:`UserServiceError` (anything else)."""
        if not user_id:
            raise ValueError("user_id must not be empty")
        response = self.transport.send("GET", f"/v1/users/{quote(user_id, safe='')}")
        if response.status_code == 404 and error_code(response) == USER_NOT_FOUND:
            raise UserNotFoundError(user_id)
        if response.status_code != 200:
            raise self.transport.failure(response, "get user")
        try:
            body: Any = response.json()
            loaded: dict[str, Any] = _USER.load(body)
        except (ValueError, SchemaError) as exc:
            raise self.transport.malformed("get user", type(exc).__name__, response.status_code) from exc
        if loaded["user_id"] != user_id:
            raise self.transport.malformed("get user", "user_id differs from the one asked for", response.status_code)
        user = User(
            user_id=loaded["user_id"],
            status=UserStatus.parse(loaded["status"]),
            email=loaded["email"],
            created_at=loaded["created_at"],
            raw_status=loaded["status"],
        )
        if user.status is UserStatus.UNKNOWN:
            logger.warning("user service sent an unknown status", extra={"status": user.raw_status})
        return user
