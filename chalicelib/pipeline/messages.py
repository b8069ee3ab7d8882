"""The pipeline's messages: webhook queue messages, MineRequests and Kinesis page records.

Each has a marshmallow schema; a message that fails its schema raises
:class:`~chalicelib.errors.ValidationError`, which the consumers treat as unfixable.

Kinesis records are gzip-compressed JSON. A record may not exceed Kinesis' 1 MiB limit,
so a page whose compressed form is still too large is split into parts by transactions;
only the final part carries ``last_page``.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import date
from typing import Any

from marshmallow import EXCLUDE, INCLUDE, Schema, fields, validate
from marshmallow import ValidationError as SchemaError

from chalicelib.errors import ValidationError

SOURCES = ("PLAID", "FROM_LISTENER", "FROM_ADD_ITEM", "FROM_LAYER_STUB", "API_REMINE")
#: Kinesis' limit per record is 1 MiB (data + partition key); keep a margin for the key.
MAX_RECORD_BYTES = 1024 * 1024 - 1024


def _load(schema: Schema, data: Any, what: str) -> dict[str, Any]:
    try:
        loaded = schema.load(data)
    except SchemaError as exc:
        raise ValidationError(f"invalid {what}", {"errors": exc.messages}) from exc
    return dict(loaded)


def _json(body: str | bytes, what: str) -> Any:
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValidationError(f"{what} is not JSON") from exc


# --- webhook queue ---------------------------------------------------------------------


class _PayloadSchema(Schema):
    """A Plaid webhook: the routing fields are checked, everything else is kept as is."""

    class Meta:
        unknown = INCLUDE

    webhook_type = fields.String(required=True, validate=validate.Length(min=1))
    webhook_code = fields.String(required=True, validate=validate.Length(min=1))
    item_id = fields.String(load_default=None, allow_none=True)


class _WebhookMessageSchema(Schema):
    class Meta:
        unknown = EXCLUDE

    message_id = fields.String(required=True, validate=validate.Length(min=1, max=128))
    source = fields.String(required=True, validate=validate.OneOf(SOURCES))
    received_at = fields.String(required=True)
    payload = fields.Dict(required=True)


@dataclass(frozen=True)
class WebhookMessage:
    """What the intake (or a synthetic producer) puts on the webhooks queue."""

    message_id: str
    source: str
    received_at: str
    payload: dict[str, Any]

    @property
    def webhook_type(self) -> str:
        return str(self.payload["webhook_type"])

    @property
    def webhook_code(self) -> str:
        return str(self.payload["webhook_code"])

    @property
    def item_id(self) -> str | None:
        value = self.payload.get("item_id")
        return str(value) if value else None

    def to_json(self) -> str:
        return json.dumps(
            {
                "message_id": self.message_id,
                "source": self.source,
                "received_at": self.received_at,
                "payload": self.payload,
            },
            separators=(",", ":"),
        )


def webhook_message_id(source: str, payload_bytes: bytes, received_at: str) -> str:
    """A stable id: the same delivery always maps to the same id (idempotent consumers)."""
    return hashlib.sha256(b"|".join([source.encode(), received_at.encode(), payload_bytes])).hexdigest()[:32]


def parse_webhook_message(body: str) -> WebhookMessage:
    message = _load(_WebhookMessageSchema(), _json(body, "webhook message"), "webhook message")
    payload = _load(_PayloadSchema(), message["payload"], "webhook payload")
    return WebhookMessage(message["message_id"], message["source"], message["received_at"], payload)


# --- throttle queue --------------------------------------------------------------------


class _MineRequestSchema(Schema):
    class Meta:
        unknown = EXCLUDE

    item_id = fields.String(required=True, validate=validate.Length(min=1))
    user_id = fields.String(required=True, validate=validate.Length(min=1))
    start_date = fields.Date(required=True)
    end_date = fields.Date(required=True)
    offset = fields.Integer(required=True, validate=validate.Range(min=0))
    mine_id = fields.String(required=True, validate=validate.Length(min=1))


@dataclass(frozen=True)
class MineRequest:
    item_id: str
    user_id: str
    start_date: date
    end_date: date
    offset: int
    mine_id: str

    def to_json(self) -> str:
        return json.dumps(
            {
                "item_id": self.item_id,
                "user_id": self.user_id,
                "start_date": self.start_date.isoformat(),
                "end_date": self.end_date.isoformat(),
                "offset": self.offset,
                "mine_id": self.mine_id,
            },
            separators=(",", ":"),
        )


class _SyncRequestSchema(Schema):
    class Meta:
        unknown = EXCLUDE

    item_id = fields.String(required=True, validate=validate.Length(min=1))
    user_id = fields.String(required=True, validate=validate.Length(min=1))
    loop_id = fields.String(required=True, validate=validate.Length(min=1, max=160))
    page = fields.Integer(required=True, validate=validate.Range(min=0))


@dataclass(frozen=True)
class SyncRequest:
    """The next page of a ``/transactions/sync`` loop; the cursor it reads is on the item's SYNC row."""

    item_id: str
    user_id: str
    loop_id: str
    page: int

    def to_json(self) -> str:
        return json.dumps(
            {"item_id": self.item_id, "user_id": self.user_id, "loop_id": self.loop_id, "page": self.page},
            separators=(",", ":"),
        )


def parse_throttle_message(body: str) -> MineRequest | SyncRequest:
    """A throttle-queue message: a ``/transactions/get`` MineRequest, or a sync loop's page (it names a loop)."""
    data = _json(body, "throttle message")
    if isinstance(data, dict) and "loop_id" in data:
        return SyncRequest(**_load(_SyncRequestSchema(), data, "sync request"))
    return MineRequest(**_load(_MineRequestSchema(), data, "mine request"))


# --- Kinesis page records --------------------------------------------------------------


class _PageRecordSchema(Schema):
    class Meta:
        unknown = EXCLUDE

    user_id = fields.String(required=True, validate=validate.Length(min=1))
    item_id = fields.String(required=True, validate=validate.Length(min=1))
    mine_id = fields.String(required=True, validate=validate.Length(min=1))
    transactions = fields.Dict(load_default=None, allow_none=True)
    removed = fields.List(fields.String(), load_default=None, allow_none=True)
    last_page = fields.Boolean(required=True)
    announce = fields.Boolean(load_default=False)


@dataclass(frozen=True)
class PageRecord:
    """One Kinesis record: a page of a transactions response, or removed ids."""

    user_id: str
    item_id: str
    mine_id: str
    last_page: bool
    transactions: dict[str, Any] | None = None
    removed: list[str] | None = None
    #: On a mine's last record: earlier records of the mine stored transactions, so the batch is
    #: announced even if this record has none (a sync loop's last page may hold only removals).
    announce: bool = False

    def as_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "user_id": self.user_id,
            "item_id": self.item_id,
            "mine_id": self.mine_id,
            "last_page": self.last_page,
        }
        if self.transactions is not None:
            body["transactions"] = self.transactions
        if self.removed is not None:
            body["removed"] = self.removed
        if self.announce:
            body["announce"] = True
        return body


def encode_page_record(record: PageRecord) -> list[bytes]:
    """The record as one or more Kinesis payloads, each under :data:`MAX_RECORD_BYTES`."""
    data = _compress(record.as_dict())
    if len(data) <= MAX_RECORD_BYTES:
        return [data]
    txns = (record.transactions or {}).get("transactions") or []
    removed = record.removed or []
    if len(txns) > 1:
        half = len(txns) // 2
        # The record's removals stay with its second part: they apply after all of its transactions.
        first = replace(_with_transactions(record, txns[:half]), last_page=False, removed=None, announce=False)
        second = _with_transactions(record, txns[half:])
        return encode_page_record(first) + encode_page_record(second)
    if len(removed) > 1:
        half = len(removed) // 2
        first = replace(record, last_page=False, removed=removed[:half], announce=False)
        second = replace(record, removed=removed[half:])
        return encode_page_record(first) + encode_page_record(second)
    raise ValidationError(f"a single transaction of item {record.item_id} exceeds the Kinesis record limit")


def _with_transactions(record: PageRecord, txns: list[Any]) -> PageRecord:
    response = dict(record.transactions or {})
    response["transactions"] = txns
    return replace(record, transactions=response)


def _compress(body: Mapping[str, Any]) -> bytes:
    return gzip.compress(json.dumps(body, separators=(",", ":")).encode(), compresslevel=6, mtime=0)


def decode_page_record(data: bytes) -> PageRecord:
    """Parse a Kinesis payload (gzip or plain JSON); unfixable input raises ValidationError."""
    try:
        raw = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
    except (OSError, EOFError) as exc:
        raise ValidationError("record is not valid gzip") from exc
    loaded = _load(_PageRecordSchema(), _json(raw, "record"), "record")
    return PageRecord(
        user_id=loaded["user_id"],
        item_id=loaded["item_id"],
        mine_id=loaded["mine_id"],
        last_page=loaded["last_page"],
        transactions=loaded["transactions"],
        removed=loaded["removed"],
        announce=loaded["announce"],
    )
