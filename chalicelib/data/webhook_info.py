"""WEBHOOK_INFO rows: one per webhook the miner handled, read by the listener.

Idempotent under redelivery. The row's timestamp is the queue message's ``SentTimestamp``,
which SQS keeps across redeliveries, and the row records the message id. The write is
conditional on the key being free: a redelivered message finds its own row (same
``message_id``) and writes nothing; a *different* message that lands on the same
millisecond moves one microsecond later and tries again. ``ttl`` is 30 days after that
timestamp (the first write, give or take queue latency), so the row is a pure function
of the message and a rewrite could never extend its life.

``payload`` is the raw JSON text of the message, stored as a string rather than a map:
it keeps exactly what Plaid (or the synthetic sender) sent, needs no float-to-Decimal
conversion (boto3 refuses floats), and nothing queries inside it. A payload carrying a
secret-named field is stored redacted.

IDENTITY_VERIFICATION and SCREENING webhooks carry no item id and get no row.

**Rows of the previous system** carry the keys, ``source``, the raw payload (a map, or text),
``update_info`` and ``ttl``: type, code and instant come from the sort key, the item from the
partition key, the user from GSI1's or GSI3's partition key, and a missing ``source`` reads as
``PLAID`` (GSI4's sort key names it too); ``update_info`` may name the institution
``institution`` and list accounts as maps. A row that still cannot be read (no instant, type or
code in its key, an unknown source) is left out of every read (logged and counted,
:mod:`chalicelib.data.tolerant`): the listener then reads the item as not mined lately, and
queues a mine, which costs a Plaid call and loses nothing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from enum import StrEnum
from typing import Any

from boto3.dynamodb.conditions import Key

from chalicelib.aws.errors import translated
from chalicelib.data import keys, tables
from chalicelib.data.query import query_rows
from chalicelib.data.tolerant import Reading, RowReader, choice_of, parse_timestamp_text, readable_by
from chalicelib.data.ttl import WEBHOOK_INFO_TTL_DAYS, days_from, epoch, iso_timestamp, utcnow
from chalicelib.errors import ConditionFailedError, DataError, ValidationError
from chalicelib.observability import redact

#: How many microseconds past a colliding timestamp a write tries before giving up.
MAX_COLLISION_PROBES = 50


class WebhookSource(StrEnum):
    """Where a webhook came from: Plaid itself, or a synthetic sender."""

    PLAID = "PLAID"
    FROM_LISTENER = "FROM_LISTENER"
    FROM_ADD_ITEM = "FROM_ADD_ITEM"
    FROM_LAYER_STUB = "FROM_LAYER_STUB"
    API_REMINE = "API_REMINE"


class WebhookInfoCollisionError(DataError):
    """Every probed timestamp for a webhook was taken by other messages."""

    retryable = True


@dataclass(frozen=True)
class UpdateInfo:
    """What a transaction mine's first page reported."""

    total_transactions: int
    accounts: tuple[str, ...] = ()
    institution_id: str | None = None


@dataclass(frozen=True)
class WebhookInfo:
    user_id: str
    item_id: str
    webhook_type: str
    webhook_code: str
    source: WebhookSource
    #: When the message was first enqueued (SQS ``SentTimestamp``); the row's DATETIME.
    received_at: datetime
    message_id: str
    #: The message body as JSON text.
    payload: str
    update_info: UpdateInfo | None = None
    ttl: int | None = None

    @property
    def timestamp(self) -> str:
        return iso_timestamp(self.received_at)

    def payload_json(self) -> Any:
        """The payload parsed, numbers with a fraction as ``Decimal`` (never float)."""
        return json.loads(self.payload, parse_float=Decimal)


def sent_at(sent_timestamp_ms: str | int) -> datetime:
    """An SQS ``SentTimestamp`` attribute (epoch milliseconds) as a UTC datetime."""
    try:
        millis = int(sent_timestamp_ms)
    except (TypeError, ValueError) as exc:
        raise ValidationError(f"not an SQS SentTimestamp: {sent_timestamp_ms!r}") from exc
    return datetime.fromtimestamp(0, UTC) + timedelta(milliseconds=millis)


def stored_payload(raw: str) -> str:
    """``raw`` as stored: unchanged, unless it carries a secret, which is then blanked."""
    try:
        parsed = json.loads(raw, parse_float=Decimal)
    except ValueError as exc:
        raise ValidationError("webhook payload is not JSON") from exc
    if not isinstance(parsed, dict):
        raise ValidationError("webhook payload is not a JSON object")
    cleaned = redact(parsed)
    if cleaned == parsed:
        return raw
    return json.dumps(cleaned, default=str, separators=(",", ":"))


def webhook_info_item(info: WebhookInfo) -> dict[str, Any]:
    """The row for ``info`` (pure): same message, same row."""
    stamp = info.timestamp
    item: dict[str, Any] = {
        **keys.webhook_info_keys(
            info.user_id, info.item_id, stamp, info.webhook_type, info.webhook_code, info.source.value
        ),
        "type": keys.WEBHOOK_INFO,
        "user_id": info.user_id,
        "item_id": info.item_id,
        "webhook_type": info.webhook_type,
        "webhook_code": info.webhook_code,
        "source": info.source.value,
        "created_at": stamp,
        "message_id": info.message_id,
        "payload": stored_payload(info.payload),
        "ttl": days_from(info.received_at, WEBHOOK_INFO_TTL_DAYS),
    }
    if info.update_info is not None:
        update: dict[str, Any] = {
            "total_transactions": info.update_info.total_transactions,
            "accounts": list(info.update_info.accounts),
        }
        if info.update_info.institution_id:
            update["institution_id"] = info.update_info.institution_id
        item["update_info"] = update
    return item


def from_item(item: Mapping[str, Any]) -> WebhookInfo:
    """The stored row, read tolerantly (see the module docstring); :class:`UnreadableRowError`
    when it cannot be read."""
    reader = RowReader(keys.WEBHOOK_INFO, item)
    received = reader.timestamp("created_at", None) or parse_timestamp_text(reader.key_part("DATETIME", "SK"))
    webhook_type = reader.text("webhook_type", "") or reader.key_part("TYPE", "SK")
    code = reader.text("webhook_code", "") or reader.key_part("CODE", "SK")
    source = reader.choice("source", WebhookSource, None) or choice_of(
        WebhookSource, reader.key_part("SOURCE", "GSI4SK")
    )
    if received is None or not webhook_type or not code:
        reader.problem("SK", "no instant, type or code of the webhook")
    user_id = reader.text("user_id", "") or reader.key_part("WEBHOOK_USER", "GSI1PK")
    info = WebhookInfo(
        user_id=user_id or reader.key_part("WEBHOOK_USER", "GSI3PK") or "",
        item_id=reader.text("item_id", "") or reader.key_part("WEBHOOK_ITEM") or "",
        webhook_type=webhook_type or "",
        webhook_code=code or "",
        source=source or WebhookSource.PLAID,
        received_at=received or datetime.fromtimestamp(0, UTC),
        message_id=reader.text("message_id", ""),
        payload=_payload_text(item.get("payload"), reader),
        update_info=_update_info(reader),
        ttl=reader.whole("ttl", None),
    )
    reader.require_readable()
    return info


def _payload_text(stored: object, reader: RowReader) -> str:
    """The payload as JSON text: stored as text by this service, possibly as a map before."""
    if stored is None:
        return "{}"
    if isinstance(stored, str):
        return stored
    if isinstance(stored, Mapping):
        return json.dumps(stored, default=_json_number, separators=(",", ":"))
    reader.problem("payload", "neither text nor a map")
    return "{}"


def _json_number(value: object) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    return str(value)


def _update_info(reader: RowReader) -> UpdateInfo | None:
    if not reader.has("update_info"):
        return None
    update = RowReader(keys.WEBHOOK_INFO, reader.mapping("update_info"))
    institution = update.row.get("institution_id", update.row.get("institution"))
    if isinstance(institution, Mapping):
        institution = institution.get("institution_id")
    return UpdateInfo(
        total_transactions=update.whole("total_transactions", 0),
        accounts=tuple(
            str(a.get("account_id", "")) if isinstance(a, Mapping) else str(a) for a in update.sequence("accounts")
        ),
        institution_id=institution if isinstance(institution, str) else None,
    )


# --- writes ---------------------------------------------------------------------------


def record_webhook(info: WebhookInfo) -> WebhookInfo:
    """Write the row for one handled webhook, once per message; return the row as stored.

    A redelivered message returns the row its first delivery wrote (unchanged). Raises
    :class:`WebhookInfoCollisionError` only if :data:`MAX_COLLISION_PROBES` consecutive
    microseconds are all taken by other messages.
    """
    table = tables.transactions()
    candidate = info
    for _ in range(MAX_COLLISION_PROBES):
        item = webhook_info_item(candidate)
        try:
            with translated():
                table.put_item(Item=item, ConditionExpression="attribute_not_exists(PK)")
            return from_item(item)
        except ConditionFailedError:
            existing = _get_row(item["PK"], item["SK"])
            if existing is not None and existing.get("message_id") == info.message_id:
                return from_item(existing)
            if existing is None:
                continue  # the row expired and vanished in between: try the same key again
        candidate = replace(candidate, received_at=candidate.received_at + timedelta(microseconds=1))
    raise WebhookInfoCollisionError(
        f"no free timestamp for {info.webhook_type}/{info.webhook_code} of item {info.item_id}"
    )


def _get_row(pk: str, sk: str) -> dict[str, Any] | None:
    with translated():
        return tables.transactions().get_item(Key={"PK": pk, "SK": sk}, ConsistentRead=True).get("Item")


# --- reads ----------------------------------------------------------------------------


def transaction_webhooks(item_id: str, *, now: datetime | None = None) -> list[WebhookInfo]:
    """The item's TRANSACTIONS rows (GSI2, eventually consistent), newest first.

    GSI2 sorts by code before time, so rows of all codes are read and ordered here; an
    item holds at most 30 days of rows. This is the listener's read.
    """
    return item_webhooks_of_type(item_id, "TRANSACTIONS", now=now)


def item_webhooks_of_type(
    item_id: str, webhook_type: str, code: str | None = None, *, now: datetime | None = None
) -> list[WebhookInfo]:
    """An item's rows of one type (optionally one code) from GSI2, newest first."""
    condition = Key("GSI2PK").eq(keys.webhook_item_pk(item_id)) & Key("GSI2SK").begins_with(
        keys.webhook_type_prefix(webhook_type, code)
    )
    return _newest_first(_query("GSI2", condition, now=now))


def latest_item_webhook(
    item_id: str, webhook_type: str, code: str, *, now: datetime | None = None
) -> WebhookInfo | None:
    """The newest row of one type and code for an item (GSI2; one short read)."""
    condition = Key("GSI2PK").eq(keys.webhook_item_pk(item_id)) & Key("GSI2SK").begins_with(
        keys.webhook_type_prefix(webhook_type, code)
    )
    rows = _query("GSI2", condition, now=now, forward=False, limit=1)
    return rows[0] if rows else None


def item_webhooks(item_id: str, *, limit: int | None = None, now: datetime | None = None) -> list[WebhookInfo]:
    """An item's rows of every type, newest first (base table, strongly consistent)."""
    condition = Key("PK").eq(keys.webhook_item_pk(item_id))
    return _query(None, condition, now=now, forward=False, limit=limit)


def user_webhooks(user_id: str, *, limit: int | None = None, now: datetime | None = None) -> list[WebhookInfo]:
    """A user's rows across items, newest first (GSI1)."""
    return _query("GSI1", Key("GSI1PK").eq(keys.webhook_user_pk(user_id)), now=now, forward=False, limit=limit)


def user_webhooks_of_type(
    user_id: str, webhook_type: str, code: str | None = None, *, now: datetime | None = None
) -> list[WebhookInfo]:
    """A user's rows of one type (optionally one code) across items (GSI3), newest first."""
    condition = Key("GSI3PK").eq(keys.webhook_user_pk(user_id)) & Key("GSI3SK").begins_with(
        keys.webhook_type_prefix(webhook_type, code)
    )
    return _newest_first(_query("GSI3", condition, now=now))


def item_webhooks_from_source(
    item_id: str,
    source: WebhookSource,
    webhook_type: str | None = None,
    code: str | None = None,
    *,
    now: datetime | None = None,
) -> list[WebhookInfo]:
    """An item's rows from one source (GSI4), optionally of one type and code, newest first."""
    if code is not None and webhook_type is None:
        raise ValidationError("a webhook code needs its type")
    condition = Key("GSI4PK").eq(keys.webhook_item_pk(item_id)) & Key("GSI4SK").begins_with(
        keys.webhook_source_prefix(source.value, webhook_type, code)
    )
    return _newest_first(_query("GSI4", condition, now=now))


def _newest_first(rows: list[WebhookInfo]) -> list[WebhookInfo]:
    return sorted(rows, key=lambda r: r.received_at, reverse=True)


def _query(
    index: str | None,
    condition: Any,
    *,
    now: datetime | None,
    forward: bool = True,
    limit: int | None = None,
) -> list[WebhookInfo]:
    """Every unexpired row matching ``condition`` (up to ``limit``), paginated until done.

    TTL deletion lags expiry by up to days, so expired rows are dropped here: a reader
    never depends on the reaper having run.
    """
    cutoff = epoch(now or utcnow())
    where: dict[str, Any] = {"IndexName": index} if index else {"ConsistentRead": True}
    readable = readable_by(from_item, Reading.LEFT_OUT)
    rows = query_rows(
        tables.transactions(),
        entity=keys.WEBHOOK_INFO,
        keep=lambda row: _unexpired(row, cutoff) and readable(row),
        limit=limit,
        KeyConditionExpression=condition,
        ScanIndexForward=forward,
        **where,
    )
    return [from_item(row) for row in rows]


def _unexpired(row: Mapping[str, Any], cutoff: int) -> bool:
    """Not past its ``ttl`` (a row without a readable one never expires)."""
    ttl = row.get("ttl")
    return not isinstance(ttl, (int, Decimal)) or isinstance(ttl, bool) or int(ttl) > cutoff
