"""What each handler asks of AWS, observed with botocore event hooks on the service's clients.

The hooks go on the clients the one factory (:mod:`chalicelib.aws.clients`) builds, so every
request the service's code sends is seen exactly as sent, and nothing else is: the local event
runtime's own polling happens outside any handler and is not attributed. A request is charged
to the current *phase* (a scenario step) and *function* (the handler running, or an API route).

DynamoDB requests are sized in their wire format. To cost a write, the hook reads the item as
it was before (and, for an update, after) through a separate, unobserved client: DynamoDB
charges the larger of the two sizes, and GSI maintenance depends on both.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any

from chalicelib.aws import clients as aws_clients
from ops.capacity.sizes import (
    IndexSpec,
    WireItem,
    base_write_units,
    index_writes,
    item_size,
    read_units,
    same_item,
    write_units,
)

#: Bytes EventBridge adds to every entry's own fields when it sizes a PutEvents entry.
EVENT_TIME_BYTES = 14


@dataclass(frozen=True)
class TableSpec:
    name: str
    hash_key: str
    range_key: str | None
    indexes: tuple[IndexSpec, ...] = ()

    def key_of(self, item: WireItem) -> dict[str, Any]:
        names = [self.hash_key] + ([self.range_key] if self.range_key else [])
        return {n: dict(item[n]) for n in names}


@dataclass
class EntityWrites:
    """Writes of one entity (the item's ``type``), base and index."""

    writes: int = 0
    unchanged: int = 0
    base_units: int = 0
    index_puts: int = 0
    index_deletes: int = 0
    index_updates: int = 0
    index_units: int = 0

    @property
    def index_writes(self) -> int:
        return self.index_puts + self.index_deletes + self.index_updates


@dataclass
class Usage:
    """Everything charged to one (phase, function)."""

    invocations: int = 0
    records: int = 0
    requests: Counter[str] = field(default_factory=Counter)
    #: table -> base write units; "table/GSIn" -> index write units
    write_units: Counter[str] = field(default_factory=Counter)
    #: table or "table/GSIn" -> read units, and the bytes those reads evaluated
    read_units: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))
    read_bytes: Counter[str] = field(default_factory=Counter)
    entities: dict[str, EntityWrites] = field(default_factory=dict)
    #: table -> items written, and the bytes they hold after the write
    items_written: Counter[str] = field(default_factory=Counter)
    bytes_written: Counter[str] = field(default_factory=Counter)
    kinesis_records: int = 0
    kinesis_bytes: int = 0
    sqs_messages: int = 0
    sqs_bytes: int = 0
    events: int = 0
    event_bytes: int = 0
    #: Plaid endpoint -> calls made while this function ran
    plaid_calls: Counter[str] = field(default_factory=Counter)

    def entity(self, name: str) -> EntityWrites:
        return self.entities.setdefault(name, EntityWrites())


def _service(model: Any) -> str:
    return str(model.service_model.service_name)


def _body(params: Mapping[str, Any]) -> dict[str, Any]:
    raw = params.get("body") or b"{}"
    return json.loads(raw) if raw else {}


class Meter:
    """Charges every request of the observed clients to the current phase and function."""

    def __init__(self, tables: Sequence[TableSpec], side_client: Any) -> None:
        self.tables = {t.name: t for t in tables}
        self.side = side_client
        self.phase: str | None = None
        self.function: str | None = None
        self.usage: dict[tuple[str, str], Usage] = {}
        #: entity -> sizes (bytes) of every item written, as stored after the write
        self.sizes: dict[str, list[int]] = {}
        #: entity -> how many GSIs an item of it occupies (seen on its writes)
        self.index_copies: dict[str, int] = {}
        #: entity -> bytes of the GSI key attributes (names and values) of every item written
        self.index_key_bytes: dict[str, list[int]] = {}
        #: Off while writes are charged whose entities must not mix into the sizes above.
        self.record_sizes = True
        self._attached: list[tuple[Any, str, str]] = []
        self._dynamodb_hooks = ExitStack()
        #: (start, end, phase, function) of every charged invocation, to place Plaid's calls
        self._windows: list[tuple[float, float, str, str]] = []

    # --- attribution ----------------------------------------------------------------

    def current(self) -> Usage | None:
        if self.phase is None or self.function is None:
            return None
        return self.usage.setdefault((self.phase, self.function), Usage())

    @contextmanager
    def acting_as(self, function: str, records: int = 1) -> Iterator[Usage | None]:
        """Charge what the block does to ``function`` (a handler, an API route, the intake)."""
        previous, self.function = self.function, function
        started = time.time()
        try:
            usage = self.current()
            if usage is not None:
                usage.invocations += 1
                usage.records += records
            yield usage
        finally:
            if self.phase is not None:
                self._windows.append((started, time.time(), self.phase, function))
            self.function = previous

    def charge_plaid_calls(self, calls: Sequence[tuple[float, str]]) -> None:
        """Charge each ``(time, endpoint)`` Plaid call to the invocation running at that time."""
        for at, endpoint in calls:
            for started, ended, phase, function in self._windows:
                if started <= at <= ended:
                    self.usage.setdefault((phase, function), Usage()).plaid_calls[endpoint] += 1
                    break

    @contextmanager
    def observing_handlers(self, app: Any) -> Iterator[None]:
        """Wrap the app's event handlers so their requests are charged to them."""
        routes = {entry.view_name for methods in app.routes.values() for entry in methods.values()}
        original = dict(app.handler_map)
        for name, handler in original.items():
            if name not in routes:
                app.handler_map[name] = self._wrap(name, handler)
        try:
            yield
        finally:
            app.handler_map.update(original)

    def _wrap(self, name: str, handler: Callable[..., Any]) -> Callable[..., Any]:
        def observed(event: Any, context: Any) -> Any:
            records = len(event.get("Records") or []) if isinstance(event, dict) else 1
            with self.acting_as(name, records):
                return handler(event, context)

        return observed

    # --- hooks ----------------------------------------------------------------------

    def attach(self, clients: Sequence[Any]) -> None:
        """Register the hooks on ``clients`` (each once) and on every DynamoDB client of every thread."""
        hooks: list[tuple[str, Callable[..., Any]]] = [
            ("before-call", self._count),
            ("provide-client-params.sqs.SendMessage", self._sqs),
            ("provide-client-params.kinesis.PutRecord", self._kinesis),
            ("provide-client-params.kinesis.PutRecords", self._kinesis),
            ("provide-client-params.eventbridge.PutEvents", self._events),
        ]
        for client in clients:
            events = client.meta.events
            for event, hook in hooks:
                unique = f"capacity-meter-{id(self)}-{event}"  # registering twice is then a no-op
                events.register(event, hook, unique_id=unique)
                self._attached.append((events, event, unique))
        dynamodb_hooks: list[tuple[str, Callable[..., Any]]] = [
            ("before-call.dynamodb", self._count),
            ("before-call.dynamodb", self._dynamodb_before),
            ("after-call.dynamodb", self._dynamodb_after),
        ]
        for event, hook in dynamodb_hooks:
            self._dynamodb_hooks.enter_context(aws_clients.dynamodb_hook(event, hook))

    def detach(self) -> None:
        for events, event, unique in self._attached:
            events.unregister(event, unique_id=unique)
        self._attached.clear()
        self._dynamodb_hooks.close()

    def _count(self, model: Any, **_: Any) -> None:
        usage = self.current()
        if usage is not None:
            usage.requests[f"{_service(model)}.{model.name}"] += 1

    def _sqs(self, params: Mapping[str, Any], **_: Any) -> None:
        usage = self.current()
        if usage is not None:
            usage.sqs_messages += 1
            usage.sqs_bytes += len(str(params.get("MessageBody", "")).encode())

    def _kinesis(self, params: Mapping[str, Any], **_: Any) -> None:
        usage = self.current()
        if usage is None:
            return
        records = params.get("Records") or [params]
        for record in records:
            data = record.get("Data", b"")
            usage.kinesis_records += 1
            usage.kinesis_bytes += len(data if isinstance(data, bytes) else str(data).encode())
            usage.kinesis_bytes += len(str(record.get("PartitionKey", "")).encode())

    def _events(self, params: Mapping[str, Any], **_: Any) -> None:
        usage = self.current()
        if usage is None:
            return
        for entry in params.get("Entries") or []:
            usage.events += 1
            usage.event_bytes += EVENT_TIME_BYTES + sum(
                len(str(entry.get(k, "")).encode()) for k in ("Source", "DetailType", "Detail")
            )

    # --- DynamoDB -------------------------------------------------------------------

    def _dynamodb_before(self, model: Any, params: Mapping[str, Any], context: dict[str, Any], **_: Any) -> None:
        if self.current() is None:
            return
        body = _body(params)
        context["capacity"] = (self.phase, self.function, body, self._before_images(model.name, body))

    def _dynamodb_after(self, model: Any, http_response: Any, context: dict[str, Any], **_: Any) -> None:
        pending = context.pop("capacity", None)
        if pending is None:
            return
        phase, function, body, before = pending
        usage = self.usage.setdefault((phase, function), Usage())
        response = json.loads(http_response.content or b"{}")
        failed = http_response.status_code >= 300
        operation = model.name
        if operation in ("PutItem", "UpdateItem", "DeleteItem"):
            self._single_write(usage, operation, body, before, response if not failed else None)
        elif operation == "BatchWriteItem" and not failed:
            self._batch_write(usage, body, before, response)
        elif operation == "TransactWriteItems":
            self._transact_write(usage, body, before, failed)
        elif not failed and operation in ("GetItem", "BatchGetItem", "Query", "Scan"):
            self._read(usage, operation, body, response)

    # before images: what each written key held before the write

    def _before_images(self, operation: str, body: Mapping[str, Any]) -> dict[tuple[str, str], WireItem | None]:
        keys: list[tuple[str, dict[str, Any]]] = []
        if operation == "PutItem":
            keys.append((body["TableName"], self._spec(body["TableName"]).key_of(body["Item"])))
        elif operation in ("UpdateItem", "DeleteItem"):
            keys.append((body["TableName"], body["Key"]))
        elif operation == "BatchWriteItem":
            for table, requests in body.get("RequestItems", {}).items():
                for request in requests:
                    if "PutRequest" in request:
                        keys.append((table, self._spec(table).key_of(request["PutRequest"]["Item"])))
                    else:
                        keys.append((table, request["DeleteRequest"]["Key"]))
        elif operation == "TransactWriteItems":
            for entry in body.get("TransactItems", []):
                [(kind, action)] = entry.items()
                table = action["TableName"]
                keys.append((table, self._spec(table).key_of(action["Item"]) if kind == "Put" else action["Key"]))
        return self._fetch(keys)

    def _fetch(self, keys: Sequence[tuple[str, Mapping[str, Any]]]) -> dict[tuple[str, str], WireItem | None]:
        """Current items for ``keys`` through the unobserved client (strongly consistent)."""
        found: dict[tuple[str, str], WireItem | None] = {(t, _key_id(k)): None for t, k in keys}
        by_table: dict[str, list[Mapping[str, Any]]] = {}
        for table, key in keys:
            unique = by_table.setdefault(table, [])
            if all(_key_id(key) != _key_id(k) for k in unique):
                unique.append(key)
        for table, table_keys in by_table.items():
            spec = self._spec(table)
            for start in range(0, len(table_keys), 100):
                request: dict[str, Any] = {
                    table: {"Keys": list(table_keys[start : start + 100]), "ConsistentRead": True}
                }
                while request:
                    response = self.side.batch_get_item(RequestItems=request)
                    for item in response.get("Responses", {}).get(table, []):
                        found[(table, _key_id(spec.key_of(item)))] = item
                    request = {t: r for t, r in response.get("UnprocessedKeys", {}).items() if r.get("Keys")}
        return found

    def _spec(self, table: str) -> TableSpec:
        try:
            return self.tables[table]
        except KeyError:
            raise KeyError(f"table {table!r} is not in the declaration the meter was given") from None

    # writes

    def _charge_write(
        self,
        usage: Usage,
        table: str,
        before: WireItem | None,
        after: WireItem | None,
        *,
        transactional: bool = False,
    ) -> None:
        spec = self._spec(table)
        units = base_write_units(before, after, transactional=transactional)
        usage.write_units[table] += units
        entity = _entity(after) or _entity(before) or "?"
        writes = usage.entity(entity)
        writes.writes += 1
        writes.base_units += units
        if before is not None and after is not None and same_item(before, after):
            writes.unchanged += 1
        for index_write in index_writes(before, after, spec.indexes):
            usage.write_units[f"{table}/{index_write.index}"] += index_write.units
            writes.index_units += index_write.units
            if index_write.kind == "put":
                writes.index_puts += 1
            elif index_write.kind == "delete":
                writes.index_deletes += 1
            else:
                writes.index_updates += 1
        if after is not None:
            usage.items_written[table] += 1
            usage.bytes_written[table] += item_size(after)
        if after is not None and self.record_sizes:
            self.sizes.setdefault(entity, []).append(item_size(after))
            self.index_copies[entity] = sum(1 for index in spec.indexes if index.key_of(after) is not None)
            key_names = {n for index in spec.indexes for n in (index.hash_key, index.range_key) if n and n in after}
            self.index_key_bytes.setdefault(entity, []).append(item_size({n: after[n] for n in key_names}))

    def _single_write(
        self,
        usage: Usage,
        operation: str,
        body: Mapping[str, Any],
        before: Mapping[tuple[str, str], WireItem | None],
        response: Mapping[str, Any] | None,
    ) -> None:
        table = body["TableName"]
        key = body["Key"] if operation != "PutItem" else self._spec(table).key_of(body["Item"])
        old = before.get((table, _key_id(key)))
        if response is None:  # a failed condition still costs the item's size (at least one unit)
            usage.write_units[table] += write_units(item_size(old))
            return
        if operation == "PutItem":
            new: WireItem | None = body["Item"]
        elif operation == "DeleteItem":
            new = None
        else:
            new = self._fetch([(table, key)])[(table, _key_id(key))]
        self._charge_write(usage, table, old, new)

    def _batch_write(
        self,
        usage: Usage,
        body: Mapping[str, Any],
        before: Mapping[tuple[str, str], WireItem | None],
        response: Mapping[str, Any],
    ) -> None:
        unprocessed = {
            (table, json.dumps(request, sort_keys=True))
            for table, requests in response.get("UnprocessedItems", {}).items()
            for request in requests
        }
        for table, requests in body.get("RequestItems", {}).items():
            spec = self._spec(table)
            for request in requests:
                if (table, json.dumps(request, sort_keys=True)) in unprocessed:
                    continue
                if "PutRequest" in request:
                    item = request["PutRequest"]["Item"]
                    self._charge_write(usage, table, before.get((table, _key_id(spec.key_of(item)))), item)
                else:
                    key = request["DeleteRequest"]["Key"]
                    self._charge_write(usage, table, before.get((table, _key_id(key))), None)

    def _transact_write(
        self,
        usage: Usage,
        body: Mapping[str, Any],
        before: Mapping[tuple[str, str], WireItem | None],
        failed: bool,
    ) -> None:
        for entry in body.get("TransactItems", []):
            [(kind, action)] = entry.items()
            table = action["TableName"]
            key = self._spec(table).key_of(action["Item"]) if kind == "Put" else action["Key"]
            old = before.get((table, _key_id(key)))
            if failed or kind == "ConditionCheck":
                usage.write_units[table] += 2 * write_units(item_size(old))
                continue
            if kind == "Put":
                new: WireItem | None = action["Item"]
            elif kind == "Delete":
                new = None
            else:
                new = self._fetch([(table, key)])[(table, _key_id(key))]
            self._charge_write(usage, table, old, new, transactional=True)

    # reads

    def _read(self, usage: Usage, operation: str, body: Mapping[str, Any], response: Mapping[str, Any]) -> None:
        if operation == "GetItem":
            table = body["TableName"]
            item = response.get("Item")
            if "ProjectionExpression" in body:
                item = self._fetch([(table, body["Key"])])[(table, _key_id(body["Key"]))]
            usage.read_units[table] += read_units(item_size(item), consistent=bool(body.get("ConsistentRead")))
            usage.read_bytes[table] += item_size(item)
        elif operation == "BatchGetItem":
            for table, request in body.get("RequestItems", {}).items():
                consistent = bool(request.get("ConsistentRead"))
                unprocessed = response.get("UnprocessedKeys", {}).get(table, {}).get("Keys", [])
                asked = [k for k in request["Keys"] if all(_key_id(k) != _key_id(u) for u in unprocessed)]
                images = self._fetch([(table, k) for k in asked])
                for key in asked:
                    size = item_size(images[(table, _key_id(key))])
                    usage.read_units[table] += read_units(size, consistent=consistent)
                    usage.read_bytes[table] += size
        else:  # Query, Scan: the bytes evaluated, before any filter or projection
            evaluated = response.get("Items", [])
            if any(k in body for k in ("ProjectionExpression", "FilterExpression")):
                evaluated = self._evaluated(operation, body)
            target = body["TableName"] + (f"/{body['IndexName']}" if body.get("IndexName") else "")
            size = sum(item_size(i) for i in evaluated)
            usage.read_units[target] += read_units(size, consistent=bool(body.get("ConsistentRead")))
            usage.read_bytes[target] += size

    def _evaluated(self, operation: str, body: Mapping[str, Any]) -> list[WireItem]:
        """The same page without projection or filter: every item DynamoDB read for it."""
        request = {k: v for k, v in body.items() if k not in ("ProjectionExpression", "FilterExpression", "Select")}
        used = " ".join(str(request.get(k, "")) for k in ("KeyConditionExpression", "ConditionExpression"))
        for field_name in ("ExpressionAttributeNames", "ExpressionAttributeValues"):
            if field_name in request:
                kept = {k: v for k, v in request[field_name].items() if re.search(re.escape(k) + r"\b", used)}
                request[field_name] = kept
                if not kept:
                    del request[field_name]
        call = self.side.query if operation == "Query" else self.side.scan
        return list(call(**request).get("Items", []))


def _key_id(key: Mapping[str, Any]) -> str:
    return json.dumps(key, sort_keys=True)


def _entity(item: WireItem | None) -> str | None:
    if not item or "type" not in item:
        return None
    return str(next(iter(item["type"].values())))
