"""LAYER stubs: the items a resolved Plaid Layer session produced.

The API writes a stub (``items`` = ``[{item_id, access_token}]``) that lives 7 days. The
user's items are created from it; :func:`consume_layer_stub` then drops the entries that
became ITEM rows and deletes the stub once none is left. Entries still present when the
TTL fires are disconnected at Plaid by the feeder. The order (create items, then consume)
makes a crash in between harmless: the stub survives and the feeder revokes only entries
that never became an ITEM.

A public token belongs to one user: a write or consume by another user is refused.
Access and public tokens never reach a log or a ``repr``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from chalicelib.aws.errors import translated
from chalicelib.data import keys, tables
from chalicelib.data.ttl import LAYER_TTL_DAYS, days_from, epoch, utcnow
from chalicelib.errors import ConditionFailedError, ContentionError

#: Optimistic retries when the stub changes between read and write.
MAX_CONSUME_ATTEMPTS = 3


class LayerStubOwnerError(ConditionFailedError):
    """The stub belongs to another user."""


class LayerStubContentionError(ContentionError):
    """The stub kept changing while being consumed."""


@dataclass(frozen=True)
class LayerStubEntry:
    item_id: str
    access_token: str = field(repr=False)


@dataclass(frozen=True)
class LayerStub:
    public_token: str = field(repr=False)
    user_id: str = ""
    items: tuple[LayerStubEntry, ...] = ()
    ttl: int | None = None


def layer_item(stub: LayerStub, now: datetime) -> dict[str, Any]:
    """The row for ``stub`` (pure); ``ttl`` is 7 days after ``now``."""
    return {
        **keys.layer_key(stub.public_token),
        "type": keys.LAYER,
        "user_id": stub.user_id,
        "items": _entries(stub.items),
        "ttl": days_from(now, LAYER_TTL_DAYS),
    }


def _entries(entries: Iterable[LayerStubEntry]) -> list[dict[str, str]]:
    return [{"item_id": e.item_id, "access_token": e.access_token} for e in entries]


def from_item(item: Mapping[str, Any]) -> LayerStub:
    return LayerStub(
        public_token=str(item["PK"]).removeprefix("LAYER" + keys.SEP),
        user_id=str(item["user_id"]),
        items=tuple(LayerStubEntry(str(e["item_id"]), str(e["access_token"])) for e in item.get("items", ())),
        ttl=int(item["ttl"]) if "ttl" in item else None,
    )


def put_layer_stub(stub: LayerStub, now: datetime) -> None:
    """Write the stub; rewriting one's own stub is allowed, another user's is not."""
    try:
        with translated():
            tables.transactions().put_item(
                Item=layer_item(stub, now),
                ConditionExpression="attribute_not_exists(PK) OR user_id = :u",
                ExpressionAttributeValues={":u": stub.user_id},
            )
    except ConditionFailedError as exc:
        raise LayerStubOwnerError("the Layer session belongs to another user") from exc


def get_layer_stub(public_token: str, *, now: datetime | None = None) -> LayerStub | None:
    """The stub (strongly consistent); ``None`` when absent or past its ttl."""
    with translated():
        item = tables.transactions().get_item(Key=keys.layer_key(public_token), ConsistentRead=True).get("Item")
    if item is None:
        return None
    stub = from_item(item)
    if stub.ttl is not None and stub.ttl <= epoch(now or utcnow()):
        return None
    return stub


def delete_layer_stub(public_token: str) -> None:
    """Delete the stub (no-op when absent). Its entries will not be revoked by the feeder."""
    with translated():
        tables.transactions().delete_item(Key=keys.layer_key(public_token))


def consume_layer_stub(public_token: str, user_id: str, created_item_ids: Iterable[str]) -> tuple[LayerStubEntry, ...]:
    """Drop the entries whose ITEM rows now exist; return the entries left (none: deleted).

    Idempotent: consuming an already consumed or absent stub returns ``()``. Each write is
    conditioned on the stub being unchanged since it was read.
    """
    created = set(created_item_ids)
    table = tables.transactions()
    key = keys.layer_key(public_token)
    for _ in range(MAX_CONSUME_ATTEMPTS):
        with translated():
            item = table.get_item(Key=key, ConsistentRead=True).get("Item")
        if item is None:
            return ()
        stub = from_item(item)
        if stub.user_id != user_id:
            raise LayerStubOwnerError("the Layer session belongs to another user")
        remaining = tuple(e for e in stub.items if e.item_id not in created)
        if remaining == stub.items:
            return remaining
        condition = "user_id = :u AND #items = :old"  # unchanged since read
        names = {"#items": "items"}
        values: dict[str, Any] = {":u": user_id, ":old": _entries(stub.items)}
        try:
            with translated():
                if remaining:
                    table.update_item(
                        Key=key,
                        UpdateExpression="SET #items = :new",
                        ConditionExpression=condition,
                        ExpressionAttributeNames=names,
                        ExpressionAttributeValues={**values, ":new": _entries(remaining)},
                    )
                else:
                    table.delete_item(
                        Key=key,
                        ConditionExpression=condition,
                        ExpressionAttributeNames=names,
                        ExpressionAttributeValues=values,
                    )
            return remaining
        except ConditionFailedError:
            continue
    raise LayerStubContentionError("the Layer stub kept changing while being consumed")
