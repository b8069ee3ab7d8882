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

It also serves DynamoDB without the moto costs that grow with the data (:mod:`ops.moto_fast`), and
keeps each client's connection open between requests (:mod:`ops.keep_alive`).
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

from moto.dynamodb import models as dynamodb_models
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.table import Table
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
from werkzeug.serving import run_simple

from ops import moto_fast
from ops.heap import freeze_survivors_of_full_collections
from ops.keep_alive import KeepAliveMixin

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


class KeepAliveRequestHandler(KeepAliveMixin, MotoRequestHandler):
    """moto's request handler, keeping each client's connection open (:mod:`ops.keep_alive`)."""


class QuietRequestHandler(KeepAliveRequestHandler):
    """The same without a log line per request (errors are still logged): a test session
    makes tens of thousands of requests, and the lines cost CPU."""

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        pass


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("-H", "--host", default="127.0.0.1")
    parser.add_argument("-p", "--port", type=int, default=4566)
    parser.add_argument("--quiet", action="store_true", help="log errors only, not a line per request")
    args = parser.parse_args(argv)
    os.environ.setdefault("MOTO_PORT", str(args.port))  # moto builds queue URLs and ARNs from it
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    back_up_transactions_by_item()
    moto_fast.install()
    freeze_survivors_of_full_collections()
    dispatcher = DomainDispatcherApplication(create_backend_app)
    run_simple(
        args.host,
        args.port,
        serialize_dynamodb(dispatcher),
        threaded=True,
        request_handler=QuietRequestHandler if args.quiet else KeepAliveRequestHandler,
    )


if __name__ == "__main__":
    main()
