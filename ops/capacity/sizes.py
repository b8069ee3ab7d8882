"""DynamoDB's arithmetic, by its documented rules (pure; no I/O).

* **Item size** is the sum of every attribute's name and value, in bytes: strings and binary by
  their UTF-8 / raw length; a number by one byte per two significant digits plus one; a boolean
  or null one byte; a list or map 3 bytes plus its elements, each element one more byte (a map
  element also its name). Items here are in the wire format (``{"S": ...}``, ``{"N": ...}``), so
  numbers are sized from the exact digits DynamoDB receives.
* **Write units**: every item written rounds up to 1 KiB (at least one unit). A put or update
  costs the larger of the item's size before and after; a delete the size of what it deletes.
  A transactional write costs twice.
* **Read units**: every item read (GetItem, each key of a BatchGetItem) rounds up to 4 KiB; a
  Query rounds the sum of the bytes it evaluated. Strong reads cost one unit per 4 KiB,
  eventually consistent reads half. A key that finds nothing still costs the minimum.
* **GSI writes** (projection ALL): an item entering an index is one put of the item, leaving it
  one delete, changing its index keys a delete and a put, changing any other attribute one
  update; an item whose stored attributes do not change costs the index nothing.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

WRITE_UNIT_BYTES = 1024
READ_UNIT_BYTES = 4096
#: Storage (not throughput) overhead DynamoDB bills for every item and every index entry.
STORAGE_OVERHEAD_BYTES = 100
#: Multiplier of a write that is part of TransactWriteItems.
TRANSACTIONAL_FACTOR = 2

WireItem = Mapping[str, Mapping[str, Any]]


def number_size(text: str) -> int:
    """Bytes of a number: one per two significant digits, plus one."""
    significant = len(Decimal(text).normalize().as_tuple().digits)  # leading/trailing zeros trimmed
    return math.ceil(significant / 2) + 1


def value_size(value: Mapping[str, Any]) -> int:
    """Bytes of one attribute value (without its name)."""
    [(kind, content)] = value.items()
    if kind == "S":
        return len(str(content).encode())
    if kind == "N":
        return number_size(str(content))
    if kind == "B":
        return len(base64.b64decode(content)) if isinstance(content, str) else len(content)
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "SS":
        return sum(len(str(s).encode()) for s in content)
    if kind == "NS":
        return sum(number_size(str(n)) for n in content)
    if kind == "BS":
        return sum(len(base64.b64decode(b)) if isinstance(b, str) else len(b) for b in content)
    if kind == "L":
        return 3 + sum(1 + value_size(element) for element in content)
    if kind == "M":
        return 3 + sum(1 + len(name.encode()) + value_size(element) for name, element in content.items())
    raise ValueError(f"unknown DynamoDB type {kind!r}")


def item_size(item: WireItem | None) -> int:
    """Bytes of an item: every attribute name plus its value (0 for no item)."""
    if not item:
        return 0
    return sum(len(name.encode()) + value_size(value) for name, value in item.items())


def write_units(size: int) -> int:
    return max(1, math.ceil(size / WRITE_UNIT_BYTES))


def read_units(size: int, *, consistent: bool) -> float:
    units = max(1, math.ceil(size / READ_UNIT_BYTES))
    return float(units) if consistent else units / 2


@dataclass(frozen=True)
class IndexSpec:
    """A global secondary index projecting ALL attributes."""

    name: str
    hash_key: str
    range_key: str | None

    def key_of(self, item: WireItem | None) -> tuple[Any, ...] | None:
        """The item's key in this index, or None when the item is not in it (sparse)."""
        if not item or self.hash_key not in item:
            return None
        if self.range_key is not None and self.range_key not in item:
            return None
        return (_plain(item[self.hash_key]), _plain(item[self.range_key]) if self.range_key else None)


def _plain(value: Mapping[str, Any]) -> tuple[str, str]:
    [(kind, content)] = value.items()
    return kind, str(content)


@dataclass(frozen=True)
class IndexWrite:
    index: str
    kind: str  # "put" | "delete" | "update"
    units: int


def index_writes(before: WireItem | None, after: WireItem | None, indexes: Sequence[IndexSpec]) -> list[IndexWrite]:
    """What one base-item change costs each GSI (projection ALL)."""
    writes: list[IndexWrite] = []
    old_size, new_size = item_size(before), item_size(after)
    for index in indexes:
        old_key, new_key = index.key_of(before), index.key_of(after)
        if old_key is None and new_key is None:
            continue
        if old_key is None:
            writes.append(IndexWrite(index.name, "put", write_units(new_size)))
        elif new_key is None:
            writes.append(IndexWrite(index.name, "delete", write_units(old_size)))
        elif old_key != new_key:
            writes.append(IndexWrite(index.name, "delete", write_units(old_size)))
            writes.append(IndexWrite(index.name, "put", write_units(new_size)))
        elif not same_item(before, after):
            writes.append(IndexWrite(index.name, "update", write_units(max(old_size, new_size))))
    return writes


def base_write_units(before: WireItem | None, after: WireItem | None, *, transactional: bool = False) -> int:
    """Units of one base-table write: the larger of the sizes before and after."""
    units = write_units(max(item_size(before), item_size(after)))
    return units * (TRANSACTIONAL_FACTOR if transactional else 1)


def same_item(before: WireItem | None, after: WireItem | None) -> bool:
    """Whether two images hold the same attributes and values (a write that changed nothing)."""
    return bool(_canonical(before) == _canonical(after))


def _canonical(item: WireItem | None) -> Any:
    """An order-independent form of an item (sets compare as sets, numbers by value)."""
    if item is None:
        return None
    return {name: _canonical_value(value) for name, value in item.items()}


def _canonical_value(value: Mapping[str, Any]) -> Any:
    [(kind, content)] = value.items()
    if kind == "N":
        return ("N", Decimal(str(content)))
    if kind in ("SS", "BS"):
        return (kind, frozenset(content))
    if kind == "NS":
        return (kind, frozenset(Decimal(str(n)) for n in content))
    if kind == "L":
        return ("L", tuple(_canonical_value(v) for v in content))
    if kind == "M":
        return ("M", tuple(sorted(((k, _canonical_value(v)) for k, v in content.items()), key=lambda kv: kv[0])))
    return (kind, content)
