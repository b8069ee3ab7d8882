"""The Pave consumers' queue messages, read through marshmallow schemas.

* ``<stage>-insight-pave-feed`` carries the EventBridge envelope of
  ``user_new_txns_batch_completed`` (``detail``: ``user_id``, ``item_id``, ``mine_id``,
  ``event_id``), routed there by the declared rule;
* ``<stage>-insight-replay-feeder`` carries ``{"user_id", "removed": [txn_id, ...]}``: the ids
  the refiner re-tombstoned and the ids of ordinary removals (``TRANSACTIONS_REMOVED``);
* ``<stage>-insight-pave-poll`` carries ``{"user_id", "request_id", "attempt"}``: poll Pave's
  upload request ``request_id`` (attempt ``attempt`` of at most ``PAVE_POLL_MAX_ATTEMPTS``).

A body that is not the expected shape raises :class:`~chalicelib.errors.ValidationError`, which
the consumers log and drop (a retry cannot fix it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from marshmallow import EXCLUDE, RAISE, Schema, fields, validate
from marshmallow import ValidationError as SchemaError

from chalicelib.errors import ValidationError
from chalicelib.infra.declaration import NEW_TXNS_BATCH_COMPLETED

#: An id that can be a key segment: no ``#``, bounded.
_ID = validate.Regexp(r"^[^#\s]{1,256}$", error="Not a usable id.")
#: Pave's request ids (``chalicelib.peers.pave``): they become part of a sort key.
_REQUEST_ID = validate.Regexp(r"^[A-Za-z0-9._:-]{1,128}$", error="Not a Pave request id.")
#: Ids per replay message the refiner sends (a message stays well under SQS' 256 KiB).
MAX_REMOVED_PER_MESSAGE = 1000


class _Detail(Schema):
    class Meta:
        unknown = EXCLUDE

    user_id = fields.String(required=True, validate=_ID)
    item_id = fields.String(load_default=None, allow_none=True)
    mine_id = fields.String(load_default=None, allow_none=True)
    event_id = fields.String(load_default=None, allow_none=True)


class _Envelope(Schema):
    class Meta:
        unknown = EXCLUDE

    detail_type = fields.String(
        data_key="detail-type", required=True, validate=validate.Equal(NEW_TXNS_BATCH_COMPLETED)
    )
    detail = fields.Nested(_Detail, required=True)


class _Removals(Schema):
    class Meta:
        unknown = RAISE

    user_id = fields.String(required=True, validate=_ID)
    removed = fields.List(
        fields.String(validate=_ID), required=True, validate=validate.Length(min=1, max=MAX_REMOVED_PER_MESSAGE)
    )


class _Poll(Schema):
    class Meta:
        unknown = RAISE

    user_id = fields.String(required=True, validate=_ID)
    request_id = fields.String(required=True, validate=_REQUEST_ID)
    attempt = fields.Integer(required=True, strict=True, validate=validate.Range(min=1, max=1000))


_ENVELOPE, _REMOVALS, _POLL = _Envelope(), _Removals(), _Poll()


@dataclass(frozen=True)
class BatchCompleted:
    """A mine of one of the user's items ended with new transactions."""

    user_id: str
    item_id: str | None = None
    event_id: str | None = None


@dataclass(frozen=True)
class Removals:
    """Transaction ids of the user that Pave must forget."""

    user_id: str
    removed: tuple[str, ...]


@dataclass(frozen=True)
class Poll:
    """Ask Pave whether upload request ``request_id`` of ``user_id`` has been processed."""

    user_id: str
    request_id: str
    attempt: int = 1

    def to_json(self) -> str:
        return _dumps({"user_id": self.user_id, "request_id": self.request_id, "attempt": self.attempt})

    def next(self) -> Poll:
        return Poll(self.user_id, self.request_id, self.attempt + 1)


def parse_batch_completed(body: str) -> BatchCompleted:
    detail = _load(_ENVELOPE, body, "user_new_txns_batch_completed envelope")["detail"]
    return BatchCompleted(detail["user_id"], detail["item_id"], detail["event_id"])


def parse_removals(body: str) -> Removals:
    loaded = _load(_REMOVALS, body, "replay-feeder message")
    return Removals(loaded["user_id"], tuple(dict.fromkeys(loaded["removed"])))


def removals_bodies(user_id: str, removed: list[str]) -> list[str]:
    """The replay-feeder messages for ``removed`` (sorted, de-duplicated, in chunks)."""
    ids = sorted(set(removed))
    return [
        _dumps({"user_id": user_id, "removed": ids[start : start + MAX_REMOVED_PER_MESSAGE]})
        for start in range(0, len(ids), MAX_REMOVED_PER_MESSAGE)
    ]


def parse_poll(body: str) -> Poll:
    loaded = _load(_POLL, body, "pave poll message")
    return Poll(loaded["user_id"], loaded["request_id"], loaded["attempt"])


def _load(schema: Schema, body: str, what: str) -> dict[str, Any]:
    try:
        payload = json.loads(body)
    except (ValueError, TypeError) as exc:
        raise ValidationError(f"{what} is not JSON") from exc
    try:
        loaded: dict[str, Any] = schema.load(payload)
    except SchemaError as exc:
        raise ValidationError(f"not a {what}", {"errors": exc.messages}) from exc
    return loaded


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


__all__ = [
    "MAX_REMOVED_PER_MESSAGE",
    "BatchCompleted",
    "Poll",
    "Removals",
    "parse_batch_completed",
    "parse_poll",
    "parse_removals",
    "removals_bodies",
]
