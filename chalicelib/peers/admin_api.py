"""The Admin API: leave a note on a user for support agents (e.g. "revoked bank access").

``POST /v1/users/{user_id}/notes`` creates a note, so a redelivered message would add it
twice; the caller therefore derives an ``Idempotency-Key`` from what the note is about
(:func:`chalicelib.peers.idempotency.derive_key`) and the Admin API answers a repeat with
the note it already created. The same key with a different body is a caller bug (409).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from marshmallow import EXCLUDE, Schema, fields
from marshmallow import ValidationError as SchemaError

from chalicelib.peers.errors import AdminApiError
from chalicelib.peers.transport import PeerTransport, RetryPolicy, Timeouts

#: Who wrote the note, as support agents see it.
NOTE_SOURCE = "txn-service"
MAX_NOTE_LENGTH = 2000
MAX_IDEMPOTENCY_KEY_LENGTH = 255


@dataclass(frozen=True)
class Note:
    """A note as stored by the Admin API; ``replayed`` is True when the key had been used before."""

    note_id: str
    user_id: str
    text: str
    source: str
    created_at: str
    replayed: bool


class _NoteSchema(Schema):
    class Meta:
        unknown = EXCLUDE

    note_id = fields.String(required=True)
    user_id = fields.String(required=True)
    text = fields.String(required=True)
    source = fields.String(required=True)
    created_at = fields.String(required=True)


_NOTE = _NoteSchema()


class AdminApiClient:
    """``POST /v1/users/{user_id}/notes`` with ``Idempotency-Key``. Build with :func:`get_admin_api`."""

    def __init__(
        self, base_url: str, token: str, *, timeouts: Timeouts | None = None, retry: RetryPolicy | None = None
    ) -> None:
        self.transport = PeerTransport(base_url, token, error_type=AdminApiError, timeouts=timeouts, retry=retry)

    def __repr__(self) -> str:
        return f"AdminApiClient(base_url={self.transport.base_url!r})"

    def add_note(self, user_id: str, text: str, *, idempotency_key: str, source: str = NOTE_SOURCE) -> Note:
        """Add ``text`` to the user's notes once per ``idempotency_key``; returns the stored note.

        Raises :class:`AdminApiError`: retryable for 5xx and timeouts; not for 404 (no such
        user), 409 (key reused with a different note) or other 4xx.
        """
        if not user_id:
            raise ValueError("user_id must not be empty")
        if not text or len(text) > MAX_NOTE_LENGTH:
            raise ValueError(f"note text must be 1-{MAX_NOTE_LENGTH} characters")
        if not idempotency_key or len(idempotency_key) > MAX_IDEMPOTENCY_KEY_LENGTH:
            raise ValueError(f"idempotency_key must be 1-{MAX_IDEMPOTENCY_KEY_LENGTH} characters")
        response = self.transport.send(
            "POST",
            f"/v1/users/{quote(user_id, safe='')}/notes",
            json_body={"text": text, "source": source},
            headers={"Idempotency-Key": idempotency_key},
        )
        if response.status_code not in (200, 201):
            raise self.transport.failure(response, "add note")
        try:
            body: Any = response.json()
            loaded: dict[str, Any] = _NOTE.load(body)
        except (ValueError, SchemaError) as exc:
            raise self.transport.malformed("add note", type(exc).__name__, response.status_code) from exc
        return Note(**loaded, replayed=response.status_code == 200)
