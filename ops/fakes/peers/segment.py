"""Fake Segment: the HTTP Tracking API as segment-analytics-python uses it.

``POST /v1/batch`` with ``Authorization: Basic base64("<write key>:")`` (or ``writeKey`` in
the body), optionally ``Content-Encoding: gzip``, body ``{"batch": [message...], "sentAt",
"writeKey"}``; answers 200 ``{"success": true}``. Like Segment it deduplicates by
``messageId``: :attr:`messages` holds every message received, :meth:`tracks` one per id.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any, ClassVar

from chalicelib.peers.config import LOCAL_SEGMENT_WRITE_KEY, SEGMENT_PORT
from ops.fakes.peers.server import FakeServer, RecordedRequest, Reply

MAX_MESSAGE_BYTES = 32 * 1024
_TYPES = frozenset({"track", "identify", "page", "screen", "group", "alias"})


def _segment_error(status: int, code: str, message: str) -> Reply:
    """Segment's own error shape (``{code, message}``), which the library reads."""
    return Reply(status, {"code": code, "message": message})


class FakeSegment(FakeServer):
    name: ClassVar[str] = "segment"
    default_port: ClassVar[int] = SEGMENT_PORT

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, write_key: str = LOCAL_SEGMENT_WRITE_KEY) -> None:
        super().__init__(host, port)
        self.write_key = write_key
        self._messages: list[dict[str, Any]] = []
        self._unique: dict[str, dict[str, Any]] = {}
        self.add_route("POST", r"/v1/batch", self._batch)

    @property
    def messages(self) -> list[dict[str, Any]]:
        """Every message received, duplicates included, in arrival order."""
        with self._lock:
            return [dict(m) for m in self._messages]

    def tracks(self, event: str | None = None) -> list[dict[str, Any]]:
        """Distinct track messages (first of each ``messageId``), optionally one event name only."""
        with self._lock:
            return [
                dict(m)
                for m in self._unique.values()
                if m["type"] == "track" and (event is None or m["event"] == event)
            ]

    def authorized(self, request: RecordedRequest) -> bool:
        return self._basic_key(request) == self.write_key or self._body_key(request) == self.write_key

    def clear_state(self) -> None:
        self._messages.clear()
        self._unique.clear()

    def state(self) -> dict[str, Any]:
        return {"messages": self.messages, "tracks": self.tracks()}

    def _batch(self, request: RecordedRequest, _match: re.Match[str]) -> Reply:
        body = request.json
        batch = body.get("batch") if isinstance(body, dict) else None
        if not isinstance(batch, list) or not batch:
            return _segment_error(400, "invalid_request", "body must be {batch: [...]} with at least one message")
        for message in batch:
            problem = _problem(message)
            if problem:
                return _segment_error(400, "invalid_request", problem)
        for message in batch:
            self._messages.append(message)
            self._unique.setdefault(message["messageId"], message)
        return Reply(200, {"success": True})

    @staticmethod
    def _basic_key(request: RecordedRequest) -> str | None:
        header = request.header("Authorization") or ""
        if not header.startswith("Basic "):
            return None
        try:
            decoded = base64.b64decode(header[len("Basic ") :], validate=True).decode()
        except (binascii.Error, UnicodeDecodeError):
            return None
        return decoded.split(":", 1)[0]

    @staticmethod
    def _body_key(request: RecordedRequest) -> str | None:
        try:
            body = request.json
        except ValueError:
            return None
        key = body.get("writeKey") if isinstance(body, dict) else None
        return key if isinstance(key, str) else None


def _problem(message: Any) -> str | None:
    """Why Segment would reject ``message``, or None."""
    if not isinstance(message, dict):
        return "each message must be an object"
    if message.get("type") not in _TYPES:
        return f"unknown message type {message.get('type')!r}"
    if not isinstance(message.get("messageId"), str) or not message["messageId"]:
        return "messageId is required"
    if not (message.get("userId") or message.get("anonymousId")):
        return "userId or anonymousId is required"
    if message["type"] == "track" and not isinstance(message.get("event"), str):
        return "track needs an event name"
    if len(json.dumps(message).encode()) > MAX_MESSAGE_BYTES:
        return "message exceeds 32KB"
    return None
