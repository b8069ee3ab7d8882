"""moto's DynamoDB, SQS queue attributes and request routing, without the costs that grow with the data.

Most of the local stack's CPU in the test suite went to a few moto paths whose cost grows
with item size or with everything the session has stored. :func:`install` (called by
:mod:`ops.moto_server`) replaces each with code that gives exactly moto's answer;
``tests/unit/test_moto_fast.py`` compares every one with moto's own:

* responses write each attribute value as it is stored (moto keeps items in the wire form)
  instead of walking the value's model shape, which visits ten members per value;
* a new item's 400 KB limit is checked once on its total size instead of re-adding the
  sizes of every earlier attribute as each one is set (quadratic in the attribute count);
* a value's size (which moto adds up for the whole item at every attribute an update sets,
  and for every item a Query reads) is summed over a set's members directly instead of
  wrapping each member in a value object first, and a set's members are compared (a
  condition's ``size()``, an ``ADD``) as the set of its values directly;
* a table's items are put in key order by each key's value computed once per item, not
  twice per comparison (moto sorts the whole table for every Query and Scan), a text key's
  value read directly;
* a Query of the table reads its partition, not the whole table; a Query of an index reads
  the items its hash key matches, unsorted (moto sorts what it keeps anyway);
* a Scan of the table finds where its page starts by binary search instead of testing every
  item before it (a paginated scan was quadratic), and keeps the stored items instead of
  deep-copying each;
* a projection of top-level attributes (what GetItem, BatchGetItem and Query ask with a
  ``ProjectionExpression`` of plain names) converts each projected attribute once instead of
  deep-copying and converting the whole item once per projected name;
* the list of moto's services, which decides each request's backend, is read from disk
  once instead of once per request;
* an UpdateExpression is parsed once per distinct text (every validation works on its own
  copy of the tree, so the parsed tree is never changed; the copy is made by pickling, the
  same objects three times faster than ``copy.deepcopy``), and each validator of the
  tree looks up its node types once instead of rebuilding them at every node it visits, and
  which processor (if any) a node's class gets once per class, not by ``isinstance`` checks
  against abstract classes at every node;
* a condition expression's text is split into tokens once per distinct text (the tokens
  are read, never changed, by the parser's later steps);
* the checks of an UpdateExpression's shape alone (one clause of each kind, no overlapping
  paths, no key attribute updated) run once per text, attribute names and table keys, not
  at every update: their answer depends on nothing else;
* SQS GetQueueAttributes computes a queue's attributes once per call, not once or twice per
  name asked, and each attribute's name is converted once per process.
"""

from __future__ import annotations

import copy
import inspect
import pickle
from bisect import bisect_left
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from decimal import Decimal, InvalidOperation
from functools import cache, lru_cache
from typing import Any

from jsonpath_ng import ext as jsonpath_ext
from jsonpath_ng.ext.parser import parse as jsonpath_parse
from moto import backends
from moto.core import responses as core_responses
from moto.core import serialize
from moto.core.utils import camelcase_to_underscores, method_names_from_class
from moto.dynamodb.comparisons import ConditionExpressionParser
from moto.dynamodb.exceptions import ItemSizeTooLarge
from moto.dynamodb.models import dynamo_type
from moto.dynamodb.models.table import RESULT_SIZE_LIMIT, Table
from moto.dynamodb.models.utilities import bytesize
from moto.dynamodb.parsing import validators
from moto.dynamodb.parsing.ast_nodes import DepthFirstTraverser, Node  # type: ignore[attr-defined]
from moto.dynamodb.parsing.expressions import UpdateExpressionParser  # type: ignore[attr-defined]
from moto.dynamodb.parsing.validators import (
    ActionCountValidator,
    OverlappingPathsValidator,
    UpdateExpressionValidator,
    UpdateHashRangeKeyValidator,
)
from moto.sqs import models as sqs_models
from moto.sqs.exceptions import InvalidAttributeName

_STRINGS = frozenset({"S", "N"})
_STRING_SETS = frozenset({"SS", "NS"})
_AS_IS = frozenset({"NULL", "BOOL"})
#: Sets whose members are sized and cast as they are stored (numbers are not).
_MEMBER_SETS = frozenset({"SS", "BS"})
#: Types whose ``cast_value`` is the stored value.
PLAIN_TYPES = frozenset({"S", "B"})


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


MOTO_SIZE = dynamo_type.DynamoType.size


def value_size(self: dynamo_type.DynamoType) -> int:
    """``DynamoType.size``, branch for branch, without a value object per set member.

    moto sizes a set member ``v`` as ``DynamoType({sub_type: v}).size()``: for a number its
    text's length, for anything else 1 for a bool and the UTF-8 length otherwise (what
    :func:`_scalar_size` does); a map's members are value objects already, or are wrapped
    as moto does.
    """
    kind, value = self.type, self.value
    if kind == "N":
        return len(str(value))
    if kind == "NS":
        try:  # members are number texts: the length of them all at once
            return len("".join(value))
        except TypeError:  # a member that is not a str
            return sum(len(str(member)) for member in value)
    if kind in _MEMBER_SETS:
        try:  # str members: the UTF-8 length of them all at once
            return len("".join(value).encode("utf-8"))
        except TypeError:  # bytes (or anything else) among them
            return sum(_scalar_size(member) for member in value)
    if kind == "L":
        return sum(member.size() for member in value)
    if kind == "M":
        return sum(bytesize(name) + _as_value(member).size() for name, member in value.items())
    return _scalar_size(value)


def _as_value(member: Any) -> dynamo_type.DynamoType:
    """A map member as moto sizes it: the value object itself, or one made from it."""
    return member if type(member) is dynamo_type.DynamoType else dynamo_type.DynamoType(member)


def _scalar_size(value: Any) -> int:
    return 1 if isinstance(value, bool) else bytesize(value)


MOTO_CAST_VALUE = dynamo_type.DynamoType.cast_value


def cast_value(self: dynamo_type.DynamoType) -> Any:
    """``DynamoType.cast_value``; a set's without a value object per member.

    moto casts each member ``v`` as ``DynamoType({sub_type: v}).cast_value``: a ``Decimal``
    for a number, the value itself for a string or binary member. A string, a binary and a
    number are answered here too, as moto does (the value itself; its ``Decimal``), without
    moto's chain of type tests: every key of every item is cast at every sort.
    """
    kind = self.type
    if kind in PLAIN_TYPES:
        return self.value
    if kind == "N":
        return Decimal(self.value)
    if kind in _MEMBER_SETS:
        return set(self.value)
    if kind == "NS":
        return {Decimal(member) for member in self.value}
    return MOTO_CAST_VALUE.fget(self)  # type: ignore[attr-defined]


def key_order(item: dynamo_type.Item) -> Any:
    """The key moto's ``all_items`` sorts by, with each DynamoType replaced by its value.

    DynamoType compares by type, then value (``cast_value``); a table's key attributes have
    one type each, so comparing the values orders the items exactly as moto does.
    """
    hash_key, range_key = item.hash_key, item.range_key
    # a string's or a binary's cast_value is its value: read without a call (every item, every sort)
    hash_value = hash_key.value if hash_key.type in PLAIN_TYPES else hash_key.cast_value
    if range_key:
        return (hash_value, range_key.value if range_key.type in PLAIN_TYPES else range_key.cast_value)
    return hash_value


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


MOTO_SCAN = Table.scan


def scan(
    self: Table,
    filters: dict[str, Any],
    limit: int,
    exclusive_start_key: dict[str, Any],
    filter_expression: Any = None,
    index_name: str | None = None,
    consistent_read: bool = False,
    projection_expression: list[list[str]] | None = None,
    segments: tuple[None, None] | tuple[int, int] = (None, None),
) -> tuple[list[dynamo_type.Item], int, dict[str, Any] | None]:
    """``Table.scan`` of the table itself, page by page at the cost of the page.

    moto walks every item before the start key to skip it (a paginated scan is quadratic),
    deep-copies every item it keeps and sizes each twice. Here the start is found by binary
    search with moto's own test (see :func:`_start`), each item is sized once, and the stored
    items are kept as they are: the response, the filter expression and the projection only
    read them (a projection builds a new item), and :mod:`ops.moto_server` serves DynamoDB
    requests one at a time. Limits, counts, the last key (moto's: the last item kept), the
    legacy ``ScanFilter`` and the filter expression applied after the limit are moto's. An
    index scan, or a start key moto's test could fail on, goes moto's way.
    """
    if index_name or (exclusive_start_key is not None and not _plain_start_key(self, exclusive_start_key)):
        return MOTO_SCAN(
            self,
            filters,
            limit,
            exclusive_start_key,
            filter_expression,
            index_name,
            consistent_read,
            projection_expression,
            segments=segments,
        )
    items = self.all_items()
    start = 0 if exclusive_start_key is None else _start(self, items, exclusive_start_key)
    results: list[dynamo_type.Item] = []
    result_size = scanned_count = 0
    last_evaluated_key = None
    for item in items[start:]:
        if not item.is_within_segment(segments):
            continue
        size = item.size()
        if len(results) == limit or result_size + size > RESULT_SIZE_LIMIT:
            last_evaluated_key = self._get_last_evaluated_key(results[-1], index_name)
            break
        if _passes(item, filters):
            results.append(item)
            result_size += size
        scanned_count += 1
    if filter_expression is not None:
        results = [item for item in results if filter_expression.expr(item)]
    if projection_expression:
        results = [item.project(projection_expression) for item in results]
    return results, scanned_count, last_evaluated_key


#: Key types whose start-key values :func:`scan` compares itself (texts, finite numbers).
_SEARCHED_KEY_TYPES = frozenset({"S", "N"})


def _plain_start_key(table: Table, start_key: Any) -> bool:
    """Whether the start key holds each table key as a text of the key's type (S, or N that is
    a finite number): then moto's test compares it with every item's key without failing."""
    if not isinstance(start_key, dict):
        return False
    for name, kind in ((table.hash_key_attr, table.hash_key_type), (table.range_key_attr, table.range_key_type)):
        if name is None:
            continue
        value = start_key.get(name)
        if kind not in _SEARCHED_KEY_TYPES or not isinstance(value, dict) or list(value) != [kind]:
            return False
        text = value[kind]
        if not isinstance(text, str):
            return False
        if kind == "N":
            try:
                if not Decimal(text).is_finite():
                    return False
            except InvalidOperation:
                return False
    return True


def _start(table: Table, items: list[dynamo_type.Item], start_key: dict[str, Any]) -> int:
    """Where moto's scan stops skipping: the first item its test says is past the start key.

    moto skips items while ``_item_comes_before_dct`` holds. For the table's own keys that
    test compares the hash keys and, when they are equal, the range keys: it holds exactly
    when the item's (hash, range) key is at or before the start key's, in the order of their
    values, which is the order ``all_items`` sorts by. So it holds for a run of items at the
    start of the sorted list and for none after it: a binary search with the same test finds
    the end of that run. (Segments do not change it: moto only skips items of other segments
    without testing them.)
    """
    hash_attrs, range_attrs = [table.hash_key_attr], [table.range_key_attr]

    def past(item: dynamo_type.Item) -> bool:
        return not table._item_comes_before_dct(item, start_key, hash_attrs, range_attrs, True)

    return bisect_left(items, True, key=past)


def _passes(item: dynamo_type.Item, filters: dict[str, Any]) -> bool:
    """moto's test of a legacy ``ScanFilter``: every condition holds (a missing attribute
    passes only ``NULL``)."""
    for name, (operator, values) in filters.items():
        attribute = item.attrs.get(name)
        if attribute:
            if not attribute.compare(operator, values):
                return False
        elif operator != "NULL":
            return False
    return True


def cached_module_list(modules: Callable[[], Any]) -> Callable[[], tuple[str, ...]]:
    """``backends.list_of_moto_modules``, read once (moto's installed folders do not change)."""
    listed = tuple(modules())
    return lambda: listed


MOTO_PROJECT = dynamo_type.Item.project


def project(self: dynamo_type.Item, projection_expressions: list[list[str]]) -> dynamo_type.Item:
    """``Item.project`` for plain top-level names, each converted once.

    moto reads the whole item as Python values (a deep copy, then boto3's deserializer) for
    every projected path, keeps that path's value and serializes the merged result. For a
    path that is one attribute name (no nesting, no list index), that value is the
    attribute's own value read the same way, and names that differ never merge, so
    converting just the projected attributes gives the same item. Anything else (nested
    paths, list elements) goes moto's way.
    """
    if not all(len(path) == 1 and "[" not in path[0] for path in projection_expressions):
        return MOTO_PROJECT(self, projection_expressions)
    values: dict[str, Any] = {}
    for (name,) in projection_expressions:
        attribute = self.attrs.get(name)
        if attribute is not None:
            values[name] = dynamo_type.deserializer.deserialize(attribute.to_regular_json())
    return dynamo_type.Item(
        hash_key=self.hash_key,
        range_key=self.range_key,
        attrs=dict(dynamo_type.serializer.serialize(values)["M"]),
    )


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


def first_processor(traverser: DepthFirstTraverser, node: Any) -> Callable[[Any], Any] | None:
    """The processor of the first class in the traverser's map that ``node`` is an instance of."""
    return next((processor for cls, processor in processing(traverser)[0] if isinstance(node, cls)), None)


def process(self: DepthFirstTraverser, node: Any) -> Any:
    """``DepthFirstTraverser.process`` from the map built once: the first class that matches."""
    processor = first_processor(self, node)
    return processor(node) if processor is not None else None


#: Per class: whether its objects are parse-tree nodes (moto registers no virtual subclasses,
#: so ``isinstance`` gives one answer per class).
_NODE_CLASSES: dict[type, bool] = {}


def _processors_by_class(traverser: DepthFirstTraverser) -> dict[type, Callable[[Any], Any] | None]:
    """Per node class, what ``process`` would call (None: the class is not processed), filled
    in as classes are met."""
    by_class = traverser.__dict__.get("_moto_fast_by_class")
    if by_class is None:
        by_class = traverser.__dict__["_moto_fast_by_class"] = {}
    return by_class  # type: ignore[no-any-return]


MOTO_HOOK = DepthFirstTraverser.pre_processing_of_child


def traverse_node_recursively(self: DepthFirstTraverser, node: Any, child_id: int = -1) -> Any:
    """``DepthFirstTraverser.traverse_node_recursively`` with the class checks looked up once.

    The same walk: children first (each after its ``pre_processing_of_child`` hook, skipped
    where it is the base class's, which does nothing), then the node itself when a processor
    takes its class, the result put in the node's place.
    """
    processors = _processors_by_class(self)
    hook = None if type(self).pre_processing_of_child is MOTO_HOOK else self.pre_processing_of_child

    def walk(node: Any, child_id: int) -> Any:
        kind = type(node)
        is_node = _NODE_CLASSES.get(kind)
        if is_node is None:
            is_node = _NODE_CLASSES[kind] = isinstance(node, Node)
        if not is_node:
            return node
        parent_node = node.parent
        children = node.children
        if children is not None:
            for i, child_node in enumerate(children):
                if hook is not None:
                    hook(node, i)
                walk(child_node, i)
        if kind in processors:
            processor = processors[kind]
        else:
            processor = processors[kind] = first_processor(self, node)
        if processor is not None:
            node = processor(node)
            node.parent = parent_node
            if parent_node:
                parent_node.children[child_id] = node
        return node

    return walk(node, child_id)


def tree_copy(value: Any) -> Any:
    """``copy.deepcopy`` for the validators: a parsed tree is copied by a pickle round trip.

    A tree is plain objects (node classes, lists, strings) linked both ways (children and
    parent); pickling rebuilds the same objects with the same links, as ``deepcopy`` does
    (``tests/unit/test_moto_fast.py`` compares the two). Anything else, or a tree that does
    not pickle, goes to ``deepcopy``.
    """
    if isinstance(value, Node):
        try:
            return pickle.loads(pickle.dumps(value, pickle.HIGHEST_PROTOCOL))  # noqa: S301 - our own objects
        except (pickle.PicklingError, TypeError, AttributeError):
            pass
    return copy.deepcopy(value)


MOTO_LEX = ConditionExpressionParser._lex_condition_expression


@lru_cache(maxsize=4096)
def condition_tokens(expression: str) -> tuple[Any, ...]:
    """The tokens of a condition expression's text (a failure is raised again, not kept)."""
    return tuple(MOTO_LEX(ConditionExpressionParser(expression, None, None)))


def lex_condition_expression(self: ConditionExpressionParser) -> deque[Any]:
    """``ConditionExpressionParser._lex_condition_expression`` from the tokens of the text,
    read once: a token depends on the text alone and is a tuple the later steps replace,
    never change (``tests/unit/test_moto_fast.py`` parses both ways)."""
    return deque(condition_tokens(self.condition_expression or ""))


#: The validators that look at an UpdateExpression's shape only (its tree, the attribute
#: names and the table's key attributes): they raise or hand the node back unchanged.
SHAPE_CHECKS = (ActionCountValidator, OverlappingPathsValidator, UpdateHashRangeKeyValidator)
MOTO_VALIDATOR_INIT = UpdateExpressionValidator.__init__
MOTO_VALIDATE = UpdateExpressionValidator.validate
#: Per parsed tree (kept alive here, so its id is not reused): the names and keys it passed with.
_SHAPES_PASSED: dict[int, tuple[Any, set[Any]]] = {}


def _shape_key(names: dict[str, str] | None, table: Table) -> Any:
    return (tuple(sorted((names or {}).items())), tuple(table.table_key_attrs))


def validator_init(self: UpdateExpressionValidator, expression: Any, *args: Any, **kwargs: Any) -> None:
    """``UpdateExpressionValidator.__init__``, leaving out the shape checks this tree passed
    already with the same attribute names and table keys (the parsed tree is shared: see
    :func:`parsed_update_expression`)."""
    MOTO_VALIDATOR_INIT(self, expression, *args, **kwargs)
    key = _shape_key(self.expression_attribute_names, self.table)
    passed = _SHAPES_PASSED.get(id(expression))
    if passed is not None and passed[0] is expression and key in passed[1]:
        self.processors = [p for p in self.processors if not isinstance(p, SHAPE_CHECKS)]
    self.__dict__["_moto_fast_shape"] = (expression, key)


def validate(self: UpdateExpressionValidator) -> Any:
    """``Validator.validate``, remembering that the tree's shape passed (it raised otherwise)."""
    node = MOTO_VALIDATE(self)
    expression, key = self.__dict__["_moto_fast_shape"]
    _SHAPES_PASSED.setdefault(id(expression), (expression, set()))[1].add(key)
    return node


MOTO_GET_QUEUE_ATTRIBUTES = sqs_models.SQSBackend.get_queue_attributes


def get_queue_attributes(self: sqs_models.SQSBackend, queue_name: str, attribute_names: list[str]) -> dict[str, Any]:
    """``SQSBackend.get_queue_attributes`` reading ``queue.attributes`` once.

    That property recomputes every attribute (counting the queue's messages three times);
    moto reads it once per name asked and twice more per name kept. The same names are
    checked and refused the same way, and the same attributes kept in the same order: all of
    them for "All", otherwise the names asked whose value is not None.
    """
    queue = self.get_queue(queue_name)
    if not attribute_names:
        return {}
    valid_names = ["All", *queue.BASE_ATTRIBUTES, *queue.FIFO_ATTRIBUTES, *queue.KMS_ATTRIBUTES]
    invalid_name = next((name for name in attribute_names if name not in valid_names), None)
    if invalid_name is not None:  # moto: ``invalid_name or invalid_name == ""``
        raise InvalidAttributeName(invalid_name)
    attributes: dict[str, Any] = queue.attributes
    if "All" in attribute_names:
        return attributes
    return {name: attributes[name] for name in attribute_names if attributes.get(name) is not None}


#: ``camelcase_to_underscores`` for moto's SQS models, once per name: ``Queue.attributes``
#: converts each attribute's name, every time it is read.
underscored = lru_cache(maxsize=1024)(camelcase_to_underscores)

#: moto's JSONPath parser, once per path: EventBridge parses every input path of a target's
#: input template for every event it delivers (about 1 ms a path); a parsed path is only read.
jsonpath = lru_cache(maxsize=1024)(jsonpath_parse)

MOTO_METHOD_NAMES = method_names_from_class


@cache
def _method_names(clazz: object) -> tuple[str, ...]:
    return tuple(MOTO_METHOD_NAMES(clazz))


def method_names(clazz: object) -> list[str]:
    """``method_names_from_class``, read once per response class: moto lists a class's
    functions with ``inspect.getmembers`` on every request to find the action's method."""
    return list(_method_names(clazz))


def replacements() -> list[tuple[Any, str, Any]]:
    """Every shortcut as (owner, attribute, replacement): what :func:`install` sets, and what
    ``tests/unit/test_moto_fast.py`` sets and restores to compare an update both ways."""
    return [
        (dynamo_type.Item, "__init__", new_item),
        (Table, "all_items", all_items),
        (Table, "query", query),
        (Table, "scan", scan),
        (dynamo_type.Item, "project", project),
        (dynamo_type.DynamoType, "size", value_size),
        (dynamo_type.DynamoType, "cast_value", property(cast_value)),
        (UpdateExpressionValidator, "__init__", validator_init),
        (UpdateExpressionValidator, "validate", validate),
        (validators, "deepcopy", tree_copy),
        (UpdateExpressionParser, "make", staticmethod(parsed_update_expression)),
        (ConditionExpressionParser, "_lex_condition_expression", lex_condition_expression),
        (DepthFirstTraverser, "nodes_to_be_processed", nodes_to_be_processed),
        (DepthFirstTraverser, "process", process),
        (DepthFirstTraverser, "traverse_node_recursively", traverse_node_recursively),
        (sqs_models.SQSBackend, "get_queue_attributes", get_queue_attributes),
        (sqs_models, "camelcase_to_underscores", underscored),
        (jsonpath_ext, "parse", jsonpath),
        (core_responses, "method_names_from_class", method_names),
    ]


def install() -> None:
    """Put every shortcut of this module in place of moto's code (in the server process only)."""
    for service in ("dynamodb", "dynamodbstreams"):
        serialize.SERVICE_SPECIFIC_SERIALIZERS.setdefault(service, {})["json"] = ItemsAsIsSerializer
    backends.list_of_moto_modules = cached_module_list(backends.list_of_moto_modules)
    for owner, name, replacement in replacements():
        setattr(owner, name, replacement)
