"""BatchWriteItem and BatchGetItem that never drop anything.

DynamoDB may answer a batch with part of it left unprocessed (capacity, throttling).
boto3's ``batch_writer`` re-sends those at once, without backoff or bound. Here each
chunk (25 writes, 100 reads) is retried with full-jitter exponential backoff, at most
:data:`MAX_ATTEMPTS` attempts; whatever is still left raises
:class:`~chalicelib.errors.BatchUnprocessedError` carrying exactly those items.
A throttling error on the whole request counts as an attempt with everything unprocessed.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from botocore.exceptions import ClientError

from chalicelib.aws.clients import dynamodb
from chalicelib.aws.errors import translate
from chalicelib.data.query import projection as projection_of
from chalicelib.errors import BatchUnprocessedError, ThrottledError

MAX_WRITE_BATCH = 25
MAX_GET_BATCH = 100
MAX_ATTEMPTS = 7
BACKOFF_BASE_SECONDS = 0.05
BACKOFF_CAP_SECONDS = 5.0

Item = dict[str, Any]
Sleep = Callable[[float], None]


def backoff_delay(attempt: int, rand: Callable[[], float] = random.random) -> float:
    """Full jitter: uniform in [0, min(cap, base * 2**attempt))."""
    return float(rand()) * min(BACKOFF_CAP_SECONDS, BACKOFF_BASE_SECONDS * (1 << attempt))


def _client(client: Any) -> Any:
    # The resource's client accepts and returns plain Python values (Decimal, str, ...).
    return client if client is not None else dynamodb().meta.client


def _chunks(pairs: Sequence[tuple[str, Any]], size: int) -> Iterator[Sequence[tuple[str, Any]]]:
    for start in range(0, len(pairs), size):
        yield pairs[start : start + size]


def _group(pairs: Iterable[tuple[str, Any]]) -> dict[str, list[Any]]:
    grouped: dict[str, list[Any]] = {}
    for table_name, request in pairs:
        grouped.setdefault(table_name, []).append(request)
    return grouped


def _flatten(grouped: Mapping[str, Sequence[Any]]) -> list[tuple[str, Any]]:
    return [(table_name, request) for table_name, requests in grouped.items() for request in requests]


def batch_write(
    request_items: Mapping[str, Sequence[Mapping[str, Any]]],
    *,
    client: Any = None,
    sleep: Sleep = time.sleep,
) -> int:
    """Apply ``{table: [{"PutRequest"|"DeleteRequest": ...}, ...]}``; return requests written.

    Raises :class:`BatchUnprocessedError` with every request still unprocessed after
    :data:`MAX_ATTEMPTS` attempts of its chunk (other chunks are still attempted first),
    and the translated error for anything that is not throttling.
    """
    ddb = _client(client)
    pairs = _flatten(request_items)
    leftovers: list[tuple[str, Any]] = []
    for chunk in _chunks(pairs, MAX_WRITE_BATCH):
        leftovers += _write_chunk(ddb, _group(chunk), sleep)
    if leftovers:
        raise BatchUnprocessedError("BatchWriteItem", _group(leftovers), MAX_ATTEMPTS)
    return len(pairs)


def _write_chunk(ddb: Any, pending: dict[str, list[Any]], sleep: Sleep) -> list[tuple[str, Any]]:
    for attempt in range(MAX_ATTEMPTS):
        if attempt:
            sleep(backoff_delay(attempt))
        try:
            response = ddb.batch_write_item(RequestItems=pending)
        except ClientError as exc:
            if not isinstance(translate(exc), ThrottledError):
                raise translate(exc) from exc
            continue  # the whole chunk stays pending
        pending = {t: list(r) for t, r in response.get("UnprocessedItems", {}).items() if r}
        if not pending:
            return []
    return _flatten(pending)


def put_items(table_name: str, items: Iterable[Item], key_fields: Sequence[str], **kwargs: Any) -> int:
    """Batch-put ``items``; a key repeated in the input is written once (its last version)."""
    unique: dict[tuple[Any, ...], Item] = {}
    for item in items:
        unique[tuple(item[f] for f in key_fields)] = item
    requests = [{"PutRequest": {"Item": item}} for item in unique.values()]
    return batch_write({table_name: requests}, **kwargs) if requests else 0


def batch_get(
    table_name: str,
    keys: Iterable[Mapping[str, Any]],
    *,
    consistent: bool = False,
    projection: Sequence[str] | None = None,
    client: Any = None,
    sleep: Sleep = time.sleep,
) -> list[Item]:
    """Read ``keys`` (duplicates collapsed) in chunks of 100; order is not preserved."""
    ddb = _client(client)
    unique = list({tuple(sorted(k.items())): dict(k) for k in keys}.values())
    found: list[Item] = []
    leftovers: list[Any] = []
    for start in range(0, len(unique), MAX_GET_BATCH):
        chunk = unique[start : start + MAX_GET_BATCH]
        items, left = _get_chunk(ddb, table_name, chunk, consistent, projection, sleep)
        found += items
        leftovers += left
    if leftovers:
        raise BatchUnprocessedError("BatchGetItem", {table_name: {"Keys": leftovers}}, MAX_ATTEMPTS)
    return found


def _get_chunk(
    ddb: Any,
    table_name: str,
    keys: list[Any],
    consistent: bool,
    projection: Sequence[str] | None,
    sleep: Sleep,
) -> tuple[list[Item], list[Any]]:
    request: dict[str, Any] = {"Keys": keys, "ConsistentRead": consistent}
    if projection:
        request.update(projection_of(projection))
    found: list[Item] = []
    for attempt in range(MAX_ATTEMPTS):
        if attempt:
            sleep(backoff_delay(attempt))
        try:
            response = ddb.batch_get_item(RequestItems={table_name: request})
        except ClientError as exc:
            if not isinstance(translate(exc), ThrottledError):
                raise translate(exc) from exc
            continue
        found += response.get("Responses", {}).get(table_name, [])
        remaining = response.get("UnprocessedKeys", {}).get(table_name, {}).get("Keys", [])
        if not remaining:
            return found, []
        request = {**request, "Keys": remaining}
    return found, list(request["Keys"])
