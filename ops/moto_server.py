"""moto server with DynamoDB's per-request atomicity: ``python -m ops.moto_server -H host -p port``.

moto's server answers requests on many threads and its DynamoDB backend takes no lock, so
two concurrent conditional writes can both pass the same condition (and an UpdateItem can
lose another's change) — something DynamoDB never does. This entry point runs the same
moto application with every DynamoDB request served one at a time, which makes each
request atomic as in AWS and lets the tests exercise real races (locks, cooldown claims,
concurrent state transitions). Other services (SQS long polls, Kinesis) stay concurrent.

moto makes a TransactWriteItems undoable by deep-copying every table it touches, once per
action: its cost grows with everything the table holds (a 100-action transaction on a
table of a few thousand rows took seconds). Here a transaction backs up only the items it
touches (and the table's stream length) and restores exactly those if it is cancelled,
which is the same all-or-nothing outcome at the cost of the transaction's own items.

Two of moto's DynamoDB costs grow with item size, and they were most of the local stack's
CPU in the test suite; this entry point removes both without changing any answer
(``tests/unit/test_moto_server.py`` compares each with moto's own):

* responses write each attribute value as it is stored (moto keeps items in the wire form)
  instead of walking the value's model shape, which visits ten members per value;
* a new item's 400 KB limit is checked once on its total size instead of re-adding the
  sizes of every earlier attribute as each one is set (quadratic in the attribute count).
"""

from __future__ import annotations

import argparse
import copy
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterable
from typing import Any

from moto.core import serialize
from moto.dynamodb import models as dynamodb_models
from moto.dynamodb.exceptions import ItemSizeTooLarge
from moto.dynamodb.models import DynamoDBBackend, dynamo_type
from moto.dynamodb.models.table import Table
from moto.dynamodb.models.utilities import bytesize
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
from werkzeug.serving import run_simple

Wsgi = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def serialize_dynamodb(app: Wsgi) -> Wsgi:
    """Serve DynamoDB requests (``X-Amz-Target: DynamoDB_…``) under one lock, whole bodies included."""
    lock = threading.Lock()

    def wrapped(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if not environ.get("HTTP_X_AMZ_TARGET", "").startswith("DynamoDB_"):
            return app(environ, start_response)
        with lock:
            return list(app(environ, start_response))

    return wrapped


class _TablesNotCopied:
    """``copy`` for moto's transaction code: tables are not copied (backed up item by item instead)."""

    def __getattr__(self, name: str) -> Any:
        return getattr(copy, name)

    @staticmethod
    def deepcopy(value: Any, memo: Any = None) -> Any:
        return value if isinstance(value, Table) else copy.deepcopy(value, memo)


def back_up_transactions_by_item() -> None:
    """Make TransactWriteItems back up the items it touches rather than whole tables (see above)."""
    original = DynamoDBBackend.transact_write_items
    if getattr(original, "backs_up_items", False):
        return

    def transact_write_items(self: DynamoDBBackend, transact_items: list[dict[str, Any]]) -> None:
        backups: list[tuple[Table, Any, Any, Any]] = []
        streams: dict[int, tuple[Table, int]] = {}
        for entry in transact_items:
            op: dict[str, Any] = next(iter(entry.values()), {})
            table = self.tables.get(op.get("TableName", ""))
            if table is None:
                continue  # moto answers a missing table itself
            key = op.get("Key") or {k: op.get("Item", {})[k] for k in (table.hash_key_attr, table.range_key_attr) if k}
            try:
                hash_key, range_key = self.get_keys_value(table, key)
            except Exception:  # noqa: BLE001, S112 - a malformed key: moto's own validation answers it
                continue
            backups.append((table, hash_key, range_key, copy.deepcopy(table.get_item(hash_key, range_key))))
            if table.stream_shard is not None:
                streams.setdefault(id(table), (table, len(table.stream_shard.items)))
        setattr(dynamodb_models, "copy", _TablesNotCopied())  # noqa: B010 - the module's global, for this call
        try:
            original(self, transact_items)
        except Exception:
            for table, hash_key, range_key, item in reversed(backups):
                _restore(table, hash_key, range_key, item)
            for table, length in streams.values():
                if table.stream_shard is not None:
                    del table.stream_shard.items[length:]
            raise
        finally:
            setattr(dynamodb_models, "copy", copy)  # noqa: B010

    transact_write_items.backs_up_items = True  # type: ignore[attr-defined]
    DynamoDBBackend.transact_write_items = transact_write_items  # type: ignore[method-assign]


def _restore(table: Table, hash_key: Any, range_key: Any, item: Any) -> None:
    if range_key is not None:
        if item is None:
            table.items[hash_key].pop(range_key, None)
        else:
            table.items[hash_key][range_key] = item
    elif item is None:
        table.items.pop(hash_key, None)
    else:
        table.items[hash_key] = item


_STRINGS = frozenset({"S", "N"})
_STRING_SETS = frozenset({"SS", "NS"})
_AS_IS = frozenset({"NULL", "BOOL"})


class ItemsAsIsSerializer(serialize.JSONSerializer):
    """moto's JSON serializer, with each ``AttributeValue`` copied in its wire form.

    Anything it does not recognise (not a dict, an unknown type key) goes the generic way.
    """

    def _serialize_type_structure(self, serialized: Any, value: Any, shape: Any, key: str) -> None:
        if key and shape.name == "AttributeValue" and isinstance(value, dict):
            wire = self._attribute_value(value)
            if wire is not None:
                serialized[self.get_serialized_name(shape, key)] = wire
                return
        super()._serialize_type_structure(serialized, value, shape, key)

    def _attribute_value(self, value: dict[str, Any]) -> dict[str, Any] | None:
        wire: dict[str, Any] = {}
        for kind, payload in value.items():
            if payload is None:
                continue
            if kind in _STRINGS:
                wire[kind] = _string(payload)
            elif kind in _AS_IS:
                wire[kind] = payload
            elif kind == "B":
                wire[kind] = self._base64(payload)
            elif kind in _STRING_SETS:
                wire[kind] = [_string(p) for p in payload]
            elif kind == "BS":
                wire[kind] = [self._base64(p) for p in payload]
            elif kind == "M" and isinstance(payload, dict):
                members = self._attribute_values(list(payload.values()))
                if members is None:
                    return None
                wire[kind] = dict(zip(payload, members, strict=True))
            elif kind == "L" and isinstance(payload, list):
                elements = self._attribute_values(payload)
                if elements is None:
                    return None
                wire[kind] = elements
            else:
                return None
        return wire

    def _attribute_values(self, values: list[Any]) -> list[dict[str, Any]] | None:
        wires = [self._attribute_value(v) if isinstance(v, dict) else None for v in values]
        return None if any(w is None for w in wires) else wires  # type: ignore[return-value]


def _string(value: Any) -> Any:
    """What moto's string serializer writes (it leaves None, {} and [] alone)."""
    return str(value) if value not in (None, {}, []) else value


#: moto's limit on an item's size (between the documented 400 KB and what AWS really accepts).
ITEM_SIZE_LIMIT = 405_000


def new_item(self: dynamo_type.Item, hash_key: Any, range_key: Any, attrs: dict[str, Any]) -> None:
    """``Item.__init__`` with the size limit checked once, on the total.

    moto checks, as each attribute is set, that the attributes so far plus the new one stay
    within the limit; sizes are never negative, so that holds at every step exactly when it
    holds for the whole item, and the same items are refused with the same error.
    """
    self.hash_key = hash_key
    self.range_key = range_key
    values = {key: dynamo_type.DynamoType(value) for key, value in attrs.items()}
    if sum(bytesize(key) + value.size() for key, value in values.items()) > ITEM_SIZE_LIMIT:
        raise ItemSizeTooLarge
    self.attrs = dynamo_type.LimitedSizeDict()
    dict.update(self.attrs, values)  # later updates still go through the per-attribute check


def use_fast_dynamodb() -> None:
    """Serve DynamoDB and DynamoDB Streams with :class:`ItemsAsIsSerializer` and :func:`new_item`."""
    for service in ("dynamodb", "dynamodbstreams"):
        serialize.SERVICE_SPECIFIC_SERIALIZERS.setdefault(service, {})["json"] = ItemsAsIsSerializer
    dynamo_type.Item.__init__ = new_item  # type: ignore[method-assign]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("-H", "--host", default="127.0.0.1")
    parser.add_argument("-p", "--port", type=int, default=4566)
    args = parser.parse_args(argv)
    os.environ.setdefault("MOTO_PORT", str(args.port))  # moto builds queue URLs and ARNs from it
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    back_up_transactions_by_item()
    use_fast_dynamodb()
    dispatcher = DomainDispatcherApplication(create_backend_app)
    run_simple(
        args.host,
        args.port,
        serialize_dynamodb(dispatcher),
        threaded=True,
        request_handler=MotoRequestHandler,
    )


if __name__ == "__main__":
    main()
