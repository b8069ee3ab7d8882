"""Fake User Service: ``GET /v1/users/{user_id}`` over users you seed.

Unknown users answer 404 ``USER_NOT_FOUND`` unless ``auto_status`` is set, in which case
they are created on first lookup with that status (the local run command uses ACTIVE so
users created through the API exist without seeding).
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from chalicelib import clock
from chalicelib.peers.config import LOCAL_USER_SERVICE_TOKEN, USER_SERVICE_PORT
from ops.fakes.peers.server import FakeServer, RecordedRequest, Reply, error_reply, path_param

_USER_PATH = r"/v1/users/(?P<user_id>[^/]+)"


class FakeUserService(FakeServer):
    name: ClassVar[str] = "user-service"
    default_port: ClassVar[int] = USER_SERVICE_PORT

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        token: str = LOCAL_USER_SERVICE_TOKEN,
        auto_status: str | None = None,
    ) -> None:
        super().__init__(host, port)
        self.token = token
        self.auto_status = auto_status
        self._users: dict[str, dict[str, Any]] = {}
        self.add_route("GET", _USER_PATH, self._get_user)
        self.add_control("PUT", r"/_fake/users/(?P<user_id>[^/]+)", self._put_user)
        self.add_control("DELETE", r"/_fake/users/(?P<user_id>[^/]+)", self._delete_user)

    def add_user(self, user_id: str, status: str = "ACTIVE", email: str | None = None) -> dict[str, Any]:
        """Create or replace a user; any status string is allowed (to test unknown ones)."""
        user = {
            "user_id": user_id,
            "status": status,
            "email": email,
            "created_at": clock.utcnow().isoformat(timespec="seconds"),
        }
        with self._lock:
            self._users[user_id] = user
        return dict(user)

    def remove_user(self, user_id: str) -> None:
        with self._lock:
            self._users.pop(user_id, None)

    def user(self, user_id: str) -> dict[str, Any] | None:
        with self._lock:
            found = self._users.get(user_id)
            return dict(found) if found else None

    def authorized(self, request: RecordedRequest) -> bool:
        return request.header("Authorization") == f"Bearer {self.token}"

    def clear_state(self) -> None:
        self._users.clear()

    def state(self) -> dict[str, Any]:
        with self._lock:
            return {"users": [dict(u) for u in self._users.values()]}

    def _get_user(self, _request: RecordedRequest, match: re.Match[str]) -> Reply:
        user_id = path_param(match, "user_id")
        user = self._users.get(user_id)
        if user is None and self.auto_status is not None:
            user = self.add_user(user_id, self.auto_status)
        if user is None:
            return error_reply(404, "USER_NOT_FOUND", f"no user {user_id}")
        return Reply(200, dict(user))

    def _put_user(self, request: RecordedRequest, match: re.Match[str]) -> Reply:
        body = request.json or {}
        return Reply(200, self.add_user(path_param(match, "user_id"), body.get("status", "ACTIVE"), body.get("email")))

    def _delete_user(self, _request: RecordedRequest, match: re.Match[str]) -> Reply:
        self.remove_user(path_param(match, "user_id"))
        return Reply(204)
