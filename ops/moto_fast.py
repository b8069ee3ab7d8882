"""moto's DynamoDB, and its request routing, without the costs that grow with the data.

Most of the local stack's CPU in the test suite went to a few moto paths whose cost grows
with item size or with everything the session has stored. :func:`install` (called by
:mod:`ops.moto_server`) replaces each with code that gives exactly moto's answer;
``tests/unit/test_moto_fast.py`` compares every one with moto's own:

* responses write each attribute value as it is stored (moto keeps items in the wire form)
  instead of walking the value's model shape, which visits ten members per value;
* a new item's 400 KB limit is checked once on its total size instead of re-adding the
  sizes of every earlier attribute as each one is set (quadratic in the attribute count);
* a table's items are put in key order by each key's value computed once per item, not
  twice per comparison (moto sorts the whole table for every Query and Scan);
* a Query of the table reads its partition, not the whole table; a Query of an index reads
  the items its hash key matches, unsorted (moto sorts what it keeps anyway);
* the list of moto's services, which decides each request's backend, is read from disk
  once instead of once per request;
* an UpdateExpression is parsed once per distinct text (every validation works on its own
  deep copy of the tree, so the parsed tree is never changed), and each validator of the
  tree looks up its node types once instead of rebuilding them at every node it visits.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

from moto import backends
from moto.core import serialize
from moto.dynamodb.exceptions import ItemSizeTooLarge
from moto.dynamodb.models import dynamo_type
from moto.dynamodb.models.table import Table
from moto.dynamodb.models.utilities import bytesize
from moto.dynamodb.parsing.ast_nodes import DepthFirstTraverser  # type: ignore[attr-defined]
from moto.dynamodb.parsing.expressions import UpdateExpressionParser  # type: ignore[attr-defined]

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


def key_order(item: dynamo_type.Item) -> Any:
    """The key moto's ``all_items`` sorts by, with each DynamoType replaced by its value.

    DynamoType compares by type, then value (``cast_value``); a table's key attributes have
    one type each, so comparing the values orders the items exactly as moto does.
    """
    if item.range_key:
        return (item.hash_key.cast_value, item.range_key.cast_value)
    return item.hash_key.cast_value


def stored_items(table: Table) -> list[dynamo_type.Item]:
    """Every item of ``table``, in moto's storage order (what ``all_items`` sorts)."""
    items: list[dynamo_type.Item] = []
    for hash_set in table.items.values():
        if table.range_key_attr:
            items.extend(hash_set.values())
        else:
            items.append(hash_set)  # type: ignore[arg-type]  # moto keeps the item itself here
    return items


def all_items(self: Table) -> list[dynamo_type.Item]:
    """``Table.all_items``: the same items in the same (stable) order, keys computed once each."""
    return sorted(stored_items(self), key=key_order)


def has_value(item: dynamo_type.Item, name: str, value: dynamo_type.DynamoType) -> bool:
    """``item.attrs[name] == value`` as moto's query tests it, strings compared directly."""
    mine = item.attrs.get(name)
    if mine is None or mine.type != value.type:
        return False
    if value.type in PLAIN_TYPES:  # DynamoType compares these by the value itself
        return bool(mine.value == value.value)
    return bool(mine == value)


#: Types whose ``cast_value`` is the stored value.
PLAIN_TYPES = frozenset({"S", "B"})
MOTO_QUERY = Table.query
QUERY_SIGNATURE = inspect.signature(MOTO_QUERY)


def query(self: Table, *args: Any, **kwargs: Any) -> Any:
    """``Table.query``, given only the items that can match instead of the sorted table.

    * A query of the table itself: moto keeps, from every item in key order, those whose hash
      key equals the query's: exactly the items stored under that hash key (DynamoType hashes
      as it compares), in range-key order.
    * A query of an index: moto keeps the items whose index hash attributes equal the
      conditions' values, then sorts them by the index keys and then the table keys, a total
      order, so the order they come in changes nothing and the table is not sorted first.
    """
    call = QUERY_SIGNATURE.bind(self, *args, **kwargs)
    hash_key = call.arguments["hash_key"]
    if call.arguments.get("index_name"):
        conditions = call.arguments.get("hash_key_conditions") or []
        items = [i for i in stored_items(self) if all(has_value(i, name, v) for name, v in conditions)]
    elif isinstance(hash_key, dynamo_type.DynamoType):
        partition = dict.get(self.items, hash_key)  # dict.get: a defaultdict would add the key
        if partition is None:
            items = []
        elif self.range_key_attr:
            items = sorted(partition.values(), key=key_order)
        else:
            items = [partition]  # type: ignore[list-item]  # moto keeps the item itself here
    else:
        return MOTO_QUERY(self, *args, **kwargs)
    with items_read_as(self, items):
        return MOTO_QUERY(self, *args, **kwargs)


@contextmanager
def items_read_as(table: Table, items: list[dynamo_type.Item]) -> Iterator[None]:
    """``table.all_items()`` answers ``items`` for the duration (DynamoDB requests are served
    one at a time by :mod:`ops.moto_server`, so no other request sees it)."""
    table.all_items = lambda: list(items)  # type: ignore[method-assign]
    try:
        yield
    finally:
        del table.all_items


def cached_module_list(modules: Callable[[], Any]) -> Callable[[], tuple[str, ...]]:
    """``backends.list_of_moto_modules``, read once (moto's installed folders do not change)."""
    listed = tuple(modules())
    return lambda: listed


MOTO_MAKE = UpdateExpressionParser.make


@lru_cache(maxsize=4096)
def parsed_update_expression(expression: str) -> Any:
    """``UpdateExpressionParser.make``, once per text: its tree is only read (moto's Validator
    deep-copies it before changing anything; ``tests/unit/test_moto_fast.py`` checks)."""
    return MOTO_MAKE(expression)


def processing(traverser: DepthFirstTraverser) -> tuple[tuple[tuple[type, Any], ...], tuple[type, ...]]:
    """A traverser's ``_processing_map()`` (a constant per instance), built once."""
    cached = traverser.__dict__.get("_moto_fast_processing")
    if cached is None:
        mapping = traverser._processing_map()
        cached = traverser.__dict__["_moto_fast_processing"] = (tuple(mapping.items()), tuple(mapping))
    return cached  # type: ignore[no-any-return]


def nodes_to_be_processed(self: DepthFirstTraverser) -> tuple[type, ...]:
    """``DepthFirstTraverser.nodes_to_be_processed`` from the map built once."""
    return processing(self)[1]


def process(self: DepthFirstTraverser, node: Any) -> Any:
    """``DepthFirstTraverser.process`` from the map built once: the first class that matches."""
    for node_class, processor in processing(self)[0]:
        if isinstance(node, node_class):
            return processor(node)
    return None


def install() -> None:
    """Put every shortcut of this module in place of moto's code (in the server process only)."""
    for service in ("dynamodb", "dynamodbstreams"):
        serialize.SERVICE_SPECIFIC_SERIALIZERS.setdefault(service, {})["json"] = ItemsAsIsSerializer
    dynamo_type.Item.__init__ = new_item  # type: ignore[method-assign]
    Table.all_items = all_items  # type: ignore[method-assign]
    Table.query = query  # type: ignore[method-assign]
    backends.list_of_moto_modules = cached_module_list(backends.list_of_moto_modules)
    UpdateExpressionParser.make = staticmethod(parsed_update_expression)
    DepthFirstTraverser.nodes_to_be_processed = nodes_to_be_processed
    DepthFirstTraverser.process = process
