"""Fake Admin API: ``POST /v1/users/{user_id}/notes`` honouring ``Idempotency-Key``.

A new key creates the note (201). The same key with the same user, text and source answers
the stored note again (200, ``Idempotent-Replayed: true``) and creates nothing; with a
different note it answers 409 ``IDEMPOTENCY_KEY_REUSED``. No key: 400. Users listed with
:meth:`FakeAdminApi.forget_user` answer 404 ``USER_NOT_FOUND``.
"""

from __future__ import annotations

import re
import uuid
from typing import Any, ClassVar

from chalicelib import clock
from chalicelib.peers.config import ADMIN_API_PORT, LOCAL_ADMIN_API_TOKEN
from ops.fakes.peers.server import FakeServer, RecordedRequest, Reply, error_reply, path_param

_NOTES_PATH = r"/v1/users/(?P<user_id>[^/]+)/notes"
MAX_TEXT_LENGTH = 2000


class FakeAdminApi(FakeServer):
    name: ClassVar[str] = "admin-api"
    default_port: ClassVar[int] = ADMIN_API_PORT

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, token: str = LOCAL_ADMIN_API_TOKEN) -> None:
        super().__init__(host, port)
        self.token = token
        self._notes: dict[str, list[dict[str, Any]]] = {}
        self._by_key: dict[str, tuple[tuple[str, str, str], dict[str, Any]]] = {}
        self._unknown_users: set[str] = set()
        self.add_route("POST", _NOTES_PATH, self._add_note)
        self.add_route("GET", _NOTES_PATH, self._list_notes)

    def notes_for(self, user_id: str) -> list[dict[str, Any]]:
        with self._lock:
            return [dict(note) for note in self._notes.get(user_id, [])]

    def forget_user(self, user_id: str) -> None:
        """Make the Admin API answer 404 for ``user_id``."""
        with self._lock:
            self._unknown_users.add(user_id)

    def authorized(self, request: RecordedRequest) -> bool:
        return request.header("Authorization") == f"Bearer {self.token}"

    def clear_state(self) -> None:
        self._notes.clear()
        self._by_key.clear()
        self._unknown_users.clear()

    def state(self) -> dict[str, Any]:
        with self._lock:
            return {"notes": {user: [dict(n) for n in notes] for user, notes in self._notes.items()}}

    def _add_note(self, request: RecordedRequest, match: re.Match[str]) -> Reply:
        user_id = path_param(match, "user_id")
        key = request.header("Idempotency-Key")
        if not key:
            return error_reply(400, "IDEMPOTENCY_KEY_REQUIRED")
        if user_id in self._unknown_users:
            return error_reply(404, "USER_NOT_FOUND", f"no user {user_id}")
        body = request.json
        text = body.get("text") if isinstance(body, dict) else None
        source = body.get("source") if isinstance(body, dict) else None
        if not isinstance(text, str) or not text or len(text) > MAX_TEXT_LENGTH or not isinstance(source, str):
            return error_reply(422, "INVALID_NOTE", "text (1-2000 chars) and source are required")
        fingerprint = (user_id, text, source)
        seen = self._by_key.get(key)
        if seen is not None:
            if seen[0] != fingerprint:
                return error_reply(409, "IDEMPOTENCY_KEY_REUSED", "the key was used for a different note")
            return Reply(200, dict(seen[1]), {"Idempotent-Replayed": "true"})
        note = {
            "note_id": f"note-{uuid.uuid4().hex[:16]}",
            "user_id": user_id,
            "text": text,
            "source": source,
            "created_at": clock.utcnow().isoformat(timespec="milliseconds"),
        }
        self._notes.setdefault(user_id, []).append(note)
        self._by_key[key] = (fingerprint, note)
        return Reply(201, dict(note))

    def _list_notes(self, _request: RecordedRequest, match: re.Match[str]) -> Reply:
        return Reply(200, {"notes": self.notes_for(path_param(match, "user_id"))})
