"""The local moto server's shortcuts (:mod:`ops.moto_fast`) answer exactly as moto's own code does.

Each replaces a moto path whose cost grew with item size or with the session's data (the
attribute-value serializer, the new-item size check, the table's key order, a table query
and scan, the service list, SQS queue attributes). A moto upgrade that changes any of them
fails here, not as a subtle difference in a pipeline test.
"""

from __future__ import annotations

import base64
import copy
import json
import math
import random
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
from boto3.dynamodb.types import Binary, TypeSerializer
from jsonpath_ng import ext as jsonpath_ext
from moto.backends import list_of_moto_modules
from moto.core.serialize import JSONSerializer, XFormedAttributePicker
from moto.core.utils import camelcase_to_underscores, get_service_model
from moto.dynamodb.comparisons import ConditionExpressionParser, get_filter_expression
from moto.dynamodb.exceptions import ItemSizeTooLarge
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.dynamo_type import DynamoType, Item
from moto.dynamodb.models.table import Table
from moto.dynamodb.responses import DynamoHandler, DynamoResult
from moto.events.responses import EventsHandler
from moto.events.utils import EventTemplateParser
from moto.sqs import models as sqs_models
from moto.sqs.exceptions import InvalidAttributeName
from moto.sqs.models import Queue, SQSBackend, sqs_backends
from moto.sqs.responses import SQSResponse

from ops.moto_fast import (
    ITEM_SIZE_LIMIT,
    MOTO_CAST_VALUE,
    MOTO_GET_QUEUE_ATTRIBUTES,
    MOTO_LEX,
    MOTO_MAKE,
    MOTO_METHOD_NAMES,
    MOTO_PROJECT,
    MOTO_QUERY,
    MOTO_SCAN,
    MOTO_SIZE,
    ItemsAsIsSerializer,
    all_items,
    cached_module_list,
    cast_value,
    get_queue_attributes,
    jsonpath,
    lex_condition_expression,
    method_names,
    new_item,
    parsed_update_expression,
    project,
    query,
    replacements,
    scan,
    tree_copy,
    underscored,
    value_size,
)

#: One attribute of every DynamoDB type, nested both ways, with the edge values.
EVERY_TYPE: dict[str, Any] = {
    "PK": "USER#ü-1",
    "SK": "TXN#2026-11-30",
    "text": "",
    "amount": Decimal("-1234"),
    "ratio": Decimal("0.125"),
    "blob": Binary(b"\x00\xffbytes"),
    "names": {"a", "b"},
    "numbers": {Decimal(1), Decimal("2.5")},
    "blobs": {Binary(b"x"), Binary(b"\x01")},
    "flag": True,
    "nothing": None,
    "empty_map": {},
    "empty_list": [],
    "nested": {"list": [1, "two", None, False, {"deep": Binary(b"d")}, ["x"]], "map": {"n": Decimal(3)}},
}


def wire(attributes: dict[str, Any]) -> dict[str, Any]:
    return {name: TypeSerializer().serialize(value) for name, value in attributes.items()}


def moto_item(attributes: dict[str, Any]) -> Item:
    attrs = wire(attributes)
    return Item(DynamoType(attrs["PK"]), DynamoType(attrs["SK"]), attrs)


def both(service: str, operation: str, result: Any) -> tuple[Any, Any]:
    model = get_service_model(service).operation_model(operation)
    answers = []
    for serializer in (ItemsAsIsSerializer, JSONSerializer):
        response = serializer(operation_model=model, value_picker=XFormedAttributePicker()).serialize(result)
        answers.append((response["status_code"], response["headers"], json.loads(response["body"])))
    return answers[0], answers[1]


def test_every_item_response_serializes_as_moto_does() -> None:
    item = moto_item(EVERY_TYPE)
    attributes = DynamoResult({"Item": item.describe_attrs()["Item"]}).result
    results = {
        "GetItem": attributes,
        "Query": DynamoResult({"Items": [item.attrs, item.attrs], "Count": 2, "ScannedCount": 2}).result,
        "BatchGetItem": DynamoResult({"Responses": {"t": [item.attrs]}, "UnprocessedKeys": {}}).result,
    }
    for operation, result in results.items():
        fast, generic = both("dynamodb", operation, result)
        assert fast == generic, operation
    # AND every value took the shortcut (none fell back to the generic walk), binary as base64
    model = get_service_model("dynamodb").operation_model("GetItem")
    shortcut = ItemsAsIsSerializer(operation_model=model, value_picker=XFormedAttributePicker())
    assert all(shortcut._attribute_value(value) is not None for value in attributes["Item"].values())
    assert fast[2]["Responses"]["t"][0]["blob"] == {"B": base64.b64encode(b"\x00\xffbytes").decode()}


def test_stream_records_serialize_as_moto_does() -> None:
    old, new = moto_item(EVERY_TYPE), moto_item({**EVERY_TYPE, "flag": False})
    record = {
        "eventID": "e1",
        "eventName": "MODIFY",
        "dynamodb": {
            "StreamViewType": "NEW_AND_OLD_IMAGES",
            "SequenceNumber": "1",
            "SizeBytes": 10,
            "Keys": {"PK": old.hash_key.to_json(), "SK": old.range_key.to_json()},  # type: ignore[union-attr]
            "OldImage": old.to_json()["Attributes"],
            "NewImage": new.to_json()["Attributes"],
        },
    }
    fast, generic = both("dynamodbstreams", "GetRecords", {"Records": [record], "NextShardIterator": "i"})
    assert fast == generic
    # AND the server registers the shortcut under the names moto looks serializers up by
    assert {get_service_model(s).service_name for s in ("dynamodb", "dynamodbstreams")} == {
        "dynamodb",
        "dynamodbstreams",
    }


@pytest.mark.parametrize(
    "paths",
    [
        [["PK"], ["SK"], ["amount"], ["names"], ["blob"], ["nested"], ["nothing"], ["empty_map"]],
        [["text"], ["missing"], ["flag"], ["flag"], ["numbers"], ["blobs"], ["ratio"], ["empty_list"]],
        [],
        [["nested", "map"], ["amount"]],  # a nested path: moto's own way
        [["nested", "list[4]", "deep"], ["PK"]],
    ],
)
def test_a_projection_answers_as_moto_does(paths: list[list[str]]) -> None:
    # GIVEN an item holding every type
    item = moto_item(EVERY_TYPE)
    # WHEN it is projected by the shortcut and by moto
    fast, slow = project(item, paths), MOTO_PROJECT(item, paths)
    # THEN both give the same keys and the same attributes, in the same wire form
    assert (fast.hash_key, fast.range_key) == (slow.hash_key, slow.range_key)
    assert fast.to_json() == slow.to_json()
    assert dict(fast.attrs) == dict(slow.attrs)
    assert set(fast.attrs) == {p[0] for p in paths if p[0] in EVERY_TYPE or p[0].startswith("nested")}


def every_value() -> list[DynamoType]:
    """Every attribute of EVERY_TYPE, every member of its nested map and list, and odd sets."""
    item = moto_item(EVERY_TYPE)
    values = list(item.attrs.values())
    nested = item.attrs["nested"]
    values += list(nested.value.values()) + nested.value["list"].value
    values += [
        DynamoType({"SS": ["ü", "", "long" * 50]}),
        DynamoType({"NS": ["1", "-2.50", "1e10"]}),
        DynamoType({"NS": [Decimal(3), 4]}),  # members that are not texts
        DynamoType({"BS": [b"\x00", "YWJj"]}),  # bytes and base64 text mixed
        DynamoType({"SS": []}),
        DynamoType({"M": {"raw": {"S": "a map member still in wire form"}}}),
    ]
    return values


def test_a_value_s_size_is_moto_s() -> None:
    for value in every_value():
        assert value_size(value) == MOTO_SIZE(value), value
    # AND a whole item's size, summed through the shortcut, is moto's
    item = moto_item(EVERY_TYPE)
    assert sum(len(k.encode()) + value_size(v) for k, v in item.attrs.items()) == item.size()


def test_a_value_s_cast_is_moto_s() -> None:
    for value in every_value():
        fast, slow = cast_value(value), MOTO_CAST_VALUE.fget(value)
        assert fast == slow and type(fast) is type(slow), value


def built(attrs: dict[str, Any]) -> Item:
    item = Item.__new__(Item)
    new_item(item, DynamoType(attrs["PK"]), None, attrs)
    return item


@pytest.mark.parametrize("padding", [-1, 0, 1])
def test_the_item_size_limit_refuses_exactly_what_moto_refuses(padding: int) -> None:
    # GIVEN items right around moto's limit (a few attributes, the last one padded)
    attrs = wire({"PK": "p", "a": "x" * 1000, "b": Decimal(7)})
    size = sum(len(name) + DynamoType(value).size() for name, value in attrs.items())
    attrs["c"] = {"S": "y" * (ITEM_SIZE_LIMIT - size - 1 + padding)}
    # WHEN built both ways THEN both accept it, or both refuse it with the same error
    outcomes = []
    for build in (lambda: Item(DynamoType(attrs["PK"]), None, attrs), lambda: built(attrs)):
        try:
            outcomes.append(("ok", build().attrs))
        except ItemSizeTooLarge:
            outcomes.append(("refused", None))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0] == ("refused" if padding > 0 else "ok")


def test_a_new_item_keeps_moto_s_check_for_later_updates() -> None:
    item = built(wire(EVERY_TYPE))
    assert item.attrs == moto_item(EVERY_TYPE).attrs
    with pytest.raises(ItemSizeTooLarge):
        item.attrs["huge"] = DynamoType({"S": "z" * ITEM_SIZE_LIMIT})


# --- a table's items in key order, and a table query reading its partition ----------------------


#: An index whose keys repeat across items (several items per index key, as GSIs allow).
GSI = {
    "IndexName": "GSI1",
    "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}, {"AttributeName": "GS", "KeyType": "RANGE"}],
    "Projection": {"ProjectionType": "ALL"},
}


def table(*, range_key: bool = True, hash_type: str = "S") -> Table:
    schema = [{"AttributeName": "PK", "KeyType": "HASH"}]
    attr = [{"AttributeName": "PK", "AttributeType": hash_type}]
    if range_key:
        schema.append({"AttributeName": "SK", "KeyType": "RANGE"})
        attr.append({"AttributeName": "SK", "AttributeType": "N"})
        attr += [{"AttributeName": "G", "AttributeType": "S"}, {"AttributeName": "GS", "AttributeType": "S"}]
    return Table(
        "t",
        "123456789012",
        "us-east-1",
        schema=schema,
        attr=attr,
        billing_mode="PAY_PER_REQUEST",
        global_indexes=[GSI] if range_key else None,
    )


def filled(rows: list[dict[str, Any]], **shape: Any) -> Table:
    """A table holding ``rows``, put in a shuffled order (moto's dict order is insertion order)."""
    t = table(**shape)
    for row in random.Random(3).sample(rows, len(rows)):
        t.put_item(wire(row))
    return t


#: Partitions with numeric sort keys whose string order differs from their numeric order, and
#: index keys shared by several items (two users' rows on one date), some rows not indexed.
ROWS = [
    {
        "PK": pk,
        "SK": Decimal(sk),
        "v": f"{pk}/{sk}",
        **({"G": f"ACCOUNTS#{pk[-1]}", "GS": f"DATE#{len(sk)}"} if sk != "9" else {}),
    }
    for pk in ("USER#b", "USER#a", "USER#ab", "TXN#1")
    for sk in ("10", "9", "-1", "100.5", "2", "0.25")
]


def answer(result: tuple[list[Item], int, Any]) -> tuple[list[Any], int, Any]:
    items, scanned, last = result
    return [item.to_json() for item in items], scanned, last


def test_all_items_orders_a_table_exactly_as_moto_does() -> None:
    for t in (filled(ROWS), filled([{"PK": Decimal(n)} for n in (10, 9, -3, 2.5)], range_key=False, hash_type="N")):
        assert all_items(t) == Table.all_items(t)
        assert [id(i) for i in all_items(t)] == [id(i) for i in Table.all_items(t)]


QUERIES: dict[str, dict[str, Any]] = {
    "a partition": {},
    "backwards": {"scan_index_forward": False},
    "a page": {"limit": 2},
    "after a key": {"exclusive_start_key": {"PK": {"S": "USER#a"}, "SK": {"N": "2"}}},
    "after a key, backwards": {
        "exclusive_start_key": {"PK": {"S": "USER#a"}, "SK": {"N": "2"}},
        "scan_index_forward": False,
    },
    "sort key above": {"range_comparison": "GT", "range_objs": [DynamoType({"N": "2"})]},
    "sort key between": {
        "range_comparison": "BETWEEN",
        "range_objs": [DynamoType({"N": "0"}), DynamoType({"N": "10"})],
    },
    "no such partition": {"hash_key": DynamoType({"S": "USER#zz"})},
}


@pytest.mark.parametrize("options", QUERIES.values(), ids=QUERIES.keys())
def test_a_table_query_reads_its_partition_and_answers_as_moto_does(options: dict[str, Any]) -> None:
    t = filled(ROWS)
    call = {
        "hash_key": DynamoType({"S": "USER#a"}),
        "range_comparison": None,
        "range_objs": [],
        "limit": None,
        "exclusive_start_key": None,
        "scan_index_forward": True,
        "projection_expressions": None,
        **options,
    }
    # WHEN queried both ways THEN the same items, count and last key, and the table is as it was
    partitions = set(t.items)
    assert answer(query(t, **call)) == answer(MOTO_QUERY(t, **call))
    assert set(t.items) == partitions and "all_items" not in vars(t)


INDEX_QUERIES: dict[str, dict[str, Any]] = {
    "an index key": {},
    "backwards": {"scan_index_forward": False},
    "a page": {"limit": 3},
    "after a key": {
        "exclusive_start_key": {
            "PK": {"S": "USER#b"},
            "SK": {"N": "-1"},
            "G": {"S": "ACCOUNTS#b"},
            "GS": {"S": "DATE#2"},
        }
    },
    "sort key prefix": {"range_comparison": "BEGINS_WITH", "range_objs": [DynamoType({"S": "DATE#2"})]},
    "no such index key": {"hash_key_conditions": [("G", DynamoType({"S": "ACCOUNTS#zz"}))]},
    "a number never equals a string": {"hash_key_conditions": [("G", DynamoType({"N": "1"}))]},
}


@pytest.mark.parametrize("options", INDEX_QUERIES.values(), ids=INDEX_QUERIES.keys())
def test_an_index_query_reads_the_matching_items_and_answers_as_moto_does(options: dict[str, Any]) -> None:
    t = filled(ROWS)
    call = {
        "hash_key": DynamoType({"S": "ACCOUNTS#b"}),
        "range_comparison": None,
        "range_objs": [],
        "limit": None,
        "exclusive_start_key": None,
        "scan_index_forward": True,
        "projection_expressions": None,
        "index_name": "GSI1",
        "hash_key_conditions": [("G", DynamoType({"S": "ACCOUNTS#b"}))],
        **options,
    }
    assert answer(query(t, **call)) == answer(MOTO_QUERY(t, **call))
    assert "all_items" not in vars(t)


def test_an_index_query_of_rows_sharing_index_keys_is_not_trivial() -> None:
    # GIVEN the fixture rows: index keys repeat across users, so the table keys break ties
    t = filled(ROWS)
    call = (DynamoType({"S": "ACCOUNTS#b"}), None, [], None, None, True, None, "GSI1")
    items, _, _ = query(t, *call, hash_key_conditions=[("G", DynamoType({"S": "ACCOUNTS#b"}))])
    keys = [(i.attrs["GS"].value, i.hash_key.value, i.range_key.value) for i in items]  # type: ignore[union-attr]
    assert len(keys) == 10 and keys == sorted(keys, key=lambda k: (k[0], k[1], Decimal(k[2])))
    assert len({k[0] for k in keys}) < len(keys)


def test_a_table_without_a_sort_key_is_queried_as_moto_does() -> None:
    t = filled([{"PK": f"USER#{n}", "v": n} for n in range(5)], range_key=False)
    args = (DynamoType({"S": "USER#3"}), None, [], None, None, True, None)
    assert answer(query(t, *args)) == answer(MOTO_QUERY(t, *args))
    assert answer(query(t, *args))[0] == [{"Attributes": wire({"PK": "USER#3", "v": 3})}]


def test_the_service_list_is_moto_s() -> None:
    assert cached_module_list(list_of_moto_modules)() == tuple(list_of_moto_modules())


# --- update expressions: parsed once per text, validated by traversers that look up once ------


def tree(node: Any) -> Any:
    """A parsed expression as plain data: every node's type, value and children."""
    children = getattr(node, "children", None)
    return (type(node).__name__, getattr(node, "value", None), [tree(c) for c in children or []])


SUMMARY_UPDATE = (
    "SET #type = :type, updated_at = :now REMOVE total_amount_string "
    "ADD total_amount :total, txn_count :count, added_txn_ids :ids DELETE removed_txn_ids :ids"
)
UPDATE_VALUES = {
    ":type": {"S": "SUMMARY"},
    ":now": {"S": "2026-12-01T00:00:00Z"},
    ":total": {"N": "-1250"},
    ":count": {"N": "1"},
    ":ids": {"SS": ["t1", "t2"]},
}


#: An attribute the class inherits (restored by deleting the class's own).
INHERITED = object()


def updated(
    expression: str, values: dict[str, Any], *, fast: bool, names: dict[str, str] | None = None, times: int = 1
) -> Any:
    """The item (or the error) UpdateItems leave on a fresh table, with or without the shortcuts."""
    backend = DynamoDBBackend("us-east-1", "123456789012")
    backend.create_table(
        "t",
        schema=[{"AttributeName": "PK", "KeyType": "HASH"}],
        attr=[{"AttributeName": "PK", "AttributeType": "S"}],
        throughput=None,
        billing_mode="PAY_PER_REQUEST",
        indexes=[],
        global_indexes=[],
        streams=None,
        sse_specification=None,
        tags=[],
        deletion_protection_enabled=False,
        warm_throughput=None,
    )
    backend.put_item("t", {"PK": {"S": "p"}, "removed_txn_ids": {"SS": ["t1", "t9"]}, "total_amount": {"N": "5"}})
    patches = replacements() if fast else []
    saved = [(owner, name, vars(owner).get(name, INHERITED)) for owner, name, _ in patches]
    try:
        for owner, name, replacement in patches:
            setattr(owner, name, replacement)
        kwargs = {"expression_attribute_names": names or {"#type": "type"}, "expression_attribute_values": values}
        for _ in range(times):
            item = backend.update_item(
                "t", {"PK": {"S": "p"}}, update_expression=expression, attribute_updates=None, **kwargs
            )
        return item.to_json()
    except Exception as error:  # noqa: BLE001 - the error is the answer to compare
        return (type(error).__name__, str(error))
    finally:
        for owner, name, original in reversed(saved):
            if original is INHERITED:
                delattr(owner, name)
            else:
                setattr(owner, name, original)


UPDATES = {
    "a summary's update": (SUMMARY_UPDATE, UPDATE_VALUES),
    "a key is refused": ("SET PK = :type", UPDATE_VALUES),
    "overlapping paths are refused": ("SET a = :type, a = :now", UPDATE_VALUES),
    "a missing value is refused": ("SET a = :nothing", UPDATE_VALUES),
    "adding a number to a string set is refused": ("ADD removed_txn_ids :count", UPDATE_VALUES),
}


@pytest.mark.parametrize(("expression", "values"), UPDATES.values(), ids=UPDATES.keys())
def test_an_update_answers_as_moto_does(expression: str, values: dict[str, Any]) -> None:
    assert updated(expression, values, fast=True) == updated(expression, values, fast=False)


def test_an_expression_s_shape_checked_once_is_still_checked_for_other_names() -> None:
    # GIVEN an expression whose shape passed with one set of attribute names (twice, so the
    # second update skipped the shape checks)
    expression = "SET #a = :type, #b = :now"
    assert isinstance(updated(expression, UPDATE_VALUES, fast=True, names={"#a": "x", "#b": "y"}, times=2), dict)
    # WHEN the same text comes with names that update the key, or overlap
    for names in ({"#a": "PK", "#b": "y"}, {"#a": "x", "#b": "x"}):
        fast = updated(expression, UPDATE_VALUES, fast=True, names=names)
        # THEN it is refused exactly as moto refuses it
        assert fast == updated(expression, UPDATE_VALUES, fast=False, names=names)
        assert isinstance(fast, tuple), names


def test_repeated_updates_leave_what_moto_leaves() -> None:
    assert updated(SUMMARY_UPDATE, UPDATE_VALUES, fast=True, times=3) == updated(
        SUMMARY_UPDATE, UPDATE_VALUES, fast=False, times=3
    )


CONDITIONS = [
    "attribute_not_exists(#contribution) AND (attribute_not_exists(PK) OR user_id = :user)",
    "(attribute_not_exists(added_txn_ids) OR size(added_txn_ids) <= :room)",
    "a.b[1] BETWEEN :lo AND :hi OR NOT begins_with(#n, :p) AND c IN (:x, :y)",
    "x<>:y",
]


@pytest.mark.parametrize("condition", CONDITIONS)
def test_a_condition_is_split_into_moto_s_tokens_every_time(condition: str) -> None:
    parser = ConditionExpressionParser(condition, {"#n": "n", "#contribution": "c"}, {})
    expected = list(MOTO_LEX(parser))
    assert list(lex_condition_expression(parser)) == expected
    assert list(lex_condition_expression(parser)) == expected  # the second time from the tokens kept


def test_a_condition_moto_cannot_split_fails_the_same_way_every_time() -> None:
    parser = ConditionExpressionParser("a = :b ; drop", None, None)
    with pytest.raises(ValueError, match="Cannot parse condition") as slow:
        MOTO_LEX(parser)
    for _ in range(2):
        with pytest.raises(ValueError, match="Cannot parse condition") as fast:
            lex_condition_expression(parser)
        assert str(fast.value) == str(slow.value)


def linked(a: Any, b: Any, seen_a: dict[int, int], seen_b: dict[int, int]) -> bool:
    """Whether two object graphs are the same: the same types, values and links (parents too)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(linked(x, y, seen_a, seen_b) for x, y in zip(a, b, strict=True))
    if not hasattr(a, "__dict__"):
        return bool(a == b)
    if id(a) in seen_a or id(b) in seen_b:
        return seen_a.get(id(a)) == seen_b.get(id(b))
    seen_a[id(a)] = seen_b[id(b)] = len(seen_a)
    return vars(a).keys() == vars(b).keys() and all(linked(vars(a)[k], vars(b)[k], seen_a, seen_b) for k in vars(a))


def test_a_tree_copy_is_the_same_graph_as_moto_s_deepcopy() -> None:
    parsed = MOTO_MAKE("SET a.b[2] = if_not_exists(c, :x) + :y, d = list_append(e, :z) REMOVE f[1] " + "ADD g :n")
    fast, slow = tree_copy(parsed), copy.deepcopy(parsed)
    assert fast is not parsed and linked(fast, slow, {}, {})
    # AND anything that is not a tree is deep-copied as before
    value = DynamoType({"L": [{"S": "x"}]})
    assert tree_copy(value).to_json() == value.to_json() and tree_copy(value) is not value


def test_a_parsed_update_expression_is_reused_and_never_changed_by_an_update() -> None:
    # GIVEN an expression parsed through the cache
    parsed = parsed_update_expression(SUMMARY_UPDATE)
    before = tree(parsed)
    # WHEN items are updated with it, both ways
    assert isinstance(updated(SUMMARY_UPDATE, UPDATE_VALUES, fast=True), dict)
    assert isinstance(updated(SUMMARY_UPDATE, UPDATE_VALUES, fast=False), dict)
    # THEN the same tree is handed out again, as it was parsed
    assert parsed_update_expression(SUMMARY_UPDATE) is parsed
    assert tree(parsed) == before == tree(MOTO_MAKE(SUMMARY_UPDATE))


# --- a table scan: its page found by binary search, the stored items read as they are ----------


#: The fixture rows with a nested map and list, for nested projections.
SCAN_ROWS = [{**row, "doc": {"who": row["PK"], "list": [row["SK"], "x"]}} for row in ROWS]
#: A filter expression (applied after the limit) that keeps some of each partition.
FILTER = get_filter_expression("begins_with(#v, :p) OR SK > :n", {"#v": "v"}, {":p": {"S": "USER#a"}, ":n": {"N": "5"}})


def pages(scan_with: Any, t: Table, **options: Any) -> list[tuple[list[Any], int, Any]]:
    """Every page of a scan, each started from the last one's LastEvaluatedKey (in wire form)."""
    call = {"filters": {}, "limit": None, "exclusive_start_key": None, **options}
    answers = []
    for _ in range(len(t.all_items()) + 2):
        answers.append(answer(scan_with(t, **call)))
        last = answers[-1][2]
        if last is None:
            return answers
        call["exclusive_start_key"] = {name: key.to_json() for name, key in last.items()}
    raise AssertionError("the scan never ended")


SCANS: dict[str, dict[str, Any]] = {
    "everything": {},
    "pages of 5": {"limit": 5},
    "pages of 1": {"limit": 1},
    "after a key in the middle": {"exclusive_start_key": {"PK": {"S": "USER#a"}, "SK": {"N": "2"}}},
    "after a key, in pages": {"exclusive_start_key": {"PK": {"S": "USER#a"}, "SK": {"N": "2"}}, "limit": 4},
    "after the last item": {"exclusive_start_key": {"PK": {"S": "USER#b"}, "SK": {"N": "100.5"}}},
    "after a partition not in the table": {"exclusive_start_key": {"PK": {"S": "USER#aa"}, "SK": {"N": "0"}}},
    "after a sort key not in the table": {"exclusive_start_key": {"PK": {"S": "USER#a"}, "SK": {"N": "3"}}},
    "after a key before every item": {"exclusive_start_key": {"PK": {"S": "A"}, "SK": {"N": "0"}}},
    "a start key with other attributes": {
        "exclusive_start_key": {"PK": {"S": "USER#ab"}, "SK": {"N": "9"}, "G": {"S": "ACCOUNTS#b"}},
        "limit": 3,
    },
    "a legacy filter": {"filters": {"v": ("BEGINS_WITH", [DynamoType({"S": "USER#a"})])}},
    "a legacy filter, in pages": {"filters": {"v": ("BEGINS_WITH", [DynamoType({"S": "USER#a"})])}, "limit": 3},
    "a NULL legacy filter, in pages": {"filters": {"G": ("NULL", [])}, "limit": 2},
    "two legacy filters": {
        "filters": {"G": ("NOT_NULL", []), "SK": ("GT", [DynamoType({"N": "1"})])},
        "limit": 4,
    },
    "a filter expression": {"filter_expression": FILTER},
    "a filter expression, in pages": {"filter_expression": FILTER, "limit": 4},
    "top-level projection": {"projection_expression": [["v"], ["PK"], ["missing"]], "limit": 7},
    "nested projection": {"projection_expression": [["doc", "who"], ["doc", "list[0]"], ["SK"]], "limit": 7},
    "segment 0 of 2": {"segments": (0, 2), "limit": 4},
    "segment 1 of 2": {"segments": (1, 2), "limit": 4},
    "segment 2 of 3, after a key": {
        "segments": (2, 3),
        "exclusive_start_key": {"PK": {"S": "TXN#1"}, "SK": {"N": "2"}},
        "limit": 2,
    },
    "an index (moto's way)": {"index_name": "GSI1", "limit": 3},
}


@pytest.mark.parametrize("options", SCANS.values(), ids=SCANS.keys())
def test_a_table_scan_answers_as_moto_does_page_by_page(options: dict[str, Any]) -> None:
    # GIVEN a table with numeric sort keys whose string order differs from their order
    t = filled(SCAN_ROWS)
    # WHEN it is scanned to the end both ways THEN every page, count and last key are the same
    fast = pages(scan, t, **options)
    assert fast == pages(MOTO_SCAN, t, **options)
    assert "all_items" not in vars(t)


def test_a_paginated_scan_reads_every_item_once_in_key_order() -> None:
    t = filled(SCAN_ROWS)
    everything = answer(scan(t, {}, None, None))
    for scan_with in (scan, MOTO_SCAN):
        walked = pages(scan_with, t, limit=7)
        # THEN the pages, concatenated, are the scan of the whole table
        assert [item for page in walked for item in page[0]] == everything[0]
        assert sum(page[1] for page in walked) == everything[1] == len(SCAN_ROWS)
    # AND that is the table in key order (numbers by value, not as text)
    keys = [(i["Attributes"]["PK"]["S"], Decimal(i["Attributes"]["SK"]["N"])) for i in everything[0]]
    assert keys == sorted(keys) and len(keys) == len(SCAN_ROWS)


@pytest.mark.parametrize(
    ("rows", "start"),
    [
        ([{"PK": f"USER#{n}", "v": n} for n in range(9)], {"PK": {"S": "USER#4"}}),
        ([{"PK": f"USER#{n}", "v": n} for n in range(9)], {"PK": {"S": "USER#45"}}),
        ([{"PK": Decimal(n), "v": str(n)} for n in (10, 9, -3, 2.5, 100)], {"PK": {"N": "9.5"}}),
    ],
)
def test_a_table_without_a_sort_key_is_scanned_as_moto_does(rows: list[dict[str, Any]], start: Any) -> None:
    hash_type = "N" if isinstance(rows[0]["PK"], Decimal) else "S"
    t = filled(rows, range_key=False, hash_type=hash_type)
    for options in ({}, {"limit": 2}, {"exclusive_start_key": start}, {"exclusive_start_key": start, "limit": 1}):
        assert pages(scan, t, **options) == pages(MOTO_SCAN, t, **options), options


def test_a_scan_stops_on_moto_s_size_limit() -> None:
    # GIVEN items of 300 KB: a page holds three (moto stops a page before 1 MB)
    t = filled([{"PK": "BIG", "SK": Decimal(n), "blob": "x" * 300_000} for n in range(8)])
    fast = pages(scan, t)
    # THEN both stop each page at the same item
    assert fast == pages(MOTO_SCAN, t)
    assert [len(page[0]) for page in fast] == [3, 3, 2]


@pytest.mark.parametrize(
    "start",
    [
        {"PK": {"S": "USER#a"}},  # no sort key
        {"PK": {"S": "USER#a"}, "SK": {"N": "two"}},  # not a number
        {"PK": {"S": "USER#a"}, "SK": {"S": "2"}},  # not the key's type
        {"PK": {"N": "1"}, "SK": {"N": "2"}},
        {},
    ],
)
def test_an_unusual_start_key_goes_moto_s_way(start: dict[str, Any]) -> None:
    t = filled(SCAN_ROWS)
    outcomes = []
    for scan_with in (scan, MOTO_SCAN):
        try:
            outcomes.append(answer(scan_with(t, {}, None, start)))
        except Exception as error:  # noqa: BLE001 - the error is the answer to compare
            outcomes.append((type(error).__name__, str(error)))
    assert outcomes[0] == outcomes[1]


def test_a_scan_keeps_the_stored_items_and_never_changes_them() -> None:
    # GIVEN a table and a copy of what it stores
    t = filled(SCAN_ROWS)
    stored = Table.all_items(t)
    before = copy.deepcopy([item.to_json() for item in stored])
    # WHEN it is scanned with filters, a filter expression and projections
    for options in SCANS.values():
        pages(scan, t, **options)
    # THEN the stored items are as they were, and a plain scan answers them (no copy made)
    assert [item.to_json() for item in Table.all_items(t)] == before
    assert [id(item) for item in scan(t, {}, None, None)[0]] == [id(item) for item in stored]


def test_a_paginated_scan_finds_each_page_by_binary_search() -> None:
    # GIVEN a table of 256 items and a count of moto's key test
    t = filled([{"PK": f"USER#{n % 16}", "SK": Decimal(n)} for n in range(256)])
    calls: list[int] = []
    test = t._item_comes_before_dct

    def counted(*args: Any) -> bool:
        calls.append(1)
        return test(*args)

    t._item_comes_before_dct = counted  # type: ignore[method-assign]
    # WHEN it is scanned in pages of 10, each page counted
    per_page, call = [], {"filters": {}, "limit": 10, "exclusive_start_key": None}
    while True:
        calls.clear()
        _, _, last = scan(t, **call)
        per_page.append(len(calls))
        if last is None:
            break
        call["exclusive_start_key"] = {name: key.to_json() for name, key in last.items()}
    # THEN each page tests a logarithmic number of items (moto tests every item before it)
    assert len(per_page) == 26
    assert max(per_page) < 2 * math.log2(256) + 2
    calls.clear()
    MOTO_SCAN(t, **call)
    assert len(calls) > 240


# --- SQS: a queue's attributes computed once per GetQueueAttributes ----------------------------


ACCOUNT = "000000000042"
EVERY_NAME = Queue.BASE_ATTRIBUTES + Queue.FIFO_ATTRIBUTES + Queue.KMS_ATTRIBUTES
#: What the event runtime asks while it drains a queue.
COUNTS = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible", "ApproximateNumberOfMessagesDelayed"]


@pytest.fixture
def sqs() -> Iterator[SQSBackend]:
    """moto's SQS backend (a queue's redrive policy finds its dead-letter queue through it),
    holding a queue of each kind: messages visible, delayed and in flight; FIFO; a redrive
    policy; a KMS key and a policy."""
    backend = sqs_backends[ACCOUNT]["us-east-1"]
    backend.create_queue("plain")
    for n in range(5):
        backend.send_message("plain", f"m{n}", delay_seconds=600 if n == 4 else None)
    backend.receive_message("plain", 2, 0, 600)
    backend.create_queue("first.fifo", FifoQueue="true", ContentBasedDeduplication="true")
    backend.send_message("first.fifo", "m", group_id="g")
    dlq = backend.create_queue("dlq")
    backend.create_queue(
        "source", RedrivePolicy=json.dumps({"deadLetterTargetArn": dlq.queue_arn, "maxReceiveCount": 3})
    )
    backend.create_queue("kms", KmsMasterKeyId="alias/key")
    backend.set_queue_attributes("kms", {"Policy": json.dumps({"Version": "2012-10-17", "Statement": []})})
    yield backend
    backend.queues.clear()


QUEUES = ["plain", "first.fifo", "source", "kms", "dlq"]
NAME_LISTS = [
    *([name] for name in EVERY_NAME),
    COUNTS,
    ["RedrivePolicy", "Policy", "QueueArn", "KmsMasterKeyId", "FifoQueue", "QueueArn"],
    ["All"],
    ["VisibilityTimeout", "All"],
    [],
]


def attributes(get: Any, backend: SQSBackend, queue: str, names: list[str]) -> Any:
    """The attributes (in order) or the error of a GetQueueAttributes."""
    try:
        return list(get(backend, queue, names).items())
    except Exception as error:  # noqa: BLE001 - the error is the answer to compare
        return (type(error).__name__, str(error))


@pytest.mark.parametrize("queue", QUEUES)
def test_queue_attributes_answer_as_moto_does(sqs: SQSBackend, queue: str) -> None:
    for names in NAME_LISTS:
        fast = attributes(get_queue_attributes, sqs, queue, names)
        assert fast == attributes(MOTO_GET_QUEUE_ATTRIBUTES, sqs, queue, names), names


def test_queue_attributes_of_each_kind_are_not_trivial(sqs: SQSBackend) -> None:
    counts = [
        "ApproximateNumberOfMessages",
        "ApproximateNumberOfMessagesNotVisible",
        "ApproximateNumberOfMessagesDelayed",
    ]
    assert get_queue_attributes(sqs, "plain", counts) == dict(zip(counts, [2, 2, 1], strict=True))
    assert get_queue_attributes(sqs, "first.fifo", ["FifoQueue"]) == {"FifoQueue": "true"}
    assert "deadLetterTargetArn" in get_queue_attributes(sqs, "source", ["RedrivePolicy"])["RedrivePolicy"]
    # AND "All" keeps the attributes that are None, as moto does
    assert get_queue_attributes(sqs, "plain", ["All"])["Policy"] is None


@pytest.mark.parametrize("names", [["Bogus"], ["QueueArn", "Bogus", "Other"], [""], ["All", ""]])
def test_an_invalid_attribute_name_is_refused_as_moto_refuses_it(sqs: SQSBackend, names: list[str]) -> None:
    with pytest.raises(InvalidAttributeName) as slow:
        MOTO_GET_QUEUE_ATTRIBUTES(sqs, "plain", names)
    with pytest.raises(InvalidAttributeName) as fast:
        get_queue_attributes(sqs, "plain", names)
    assert str(fast.value) == str(slow.value)


def test_a_missing_queue_is_refused_as_moto_refuses_it(sqs: SQSBackend) -> None:
    fast = attributes(get_queue_attributes, sqs, "nowhere", ["All"])
    assert fast == attributes(MOTO_GET_QUEUE_ATTRIBUTES, sqs, "nowhere", ["All"])
    assert fast[0] == "QueueDoesNotExist"


def test_attribute_names_are_converted_as_moto_converts_them(sqs: SQSBackend, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [*EVERY_NAME, "", "already_snake", "ABCDef", "a b", "HTTPSEndpoint"]:
        assert underscored(name) == camelcase_to_underscores(name), name
    # AND moto's queues read with the cached conversion give the same attributes
    before = {queue: sqs.get_queue(queue).attributes for queue in QUEUES}
    monkeypatch.setattr(sqs_models, "camelcase_to_underscores", underscored)
    assert {queue: sqs.get_queue(queue).attributes for queue in QUEUES} == before


def test_queue_attributes_are_computed_once_per_call(sqs: SQSBackend, monkeypatch: pytest.MonkeyPatch) -> None:
    computed: list[int] = []
    moto_attributes = Queue.attributes

    def counted(queue: Queue) -> dict[str, Any]:
        computed.append(1)
        return moto_attributes.fget(queue)  # type: ignore[attr-defined,no-any-return]

    monkeypatch.setattr(Queue, "attributes", property(counted))
    get_queue_attributes(sqs, "plain", COUNTS)
    assert len(computed) == 1
    computed.clear()
    MOTO_GET_QUEUE_ATTRIBUTES(sqs, "plain", COUNTS)
    assert len(computed) > 3


# --- per-request lookups: a response class's methods, EventBridge input paths ----------------


@pytest.mark.parametrize("handler", [DynamoHandler, SQSResponse, EventsHandler])
def test_a_response_class_s_methods_are_moto_s(handler: type) -> None:
    listed = method_names(handler)
    assert listed == MOTO_METHOD_NAMES(handler)
    listed.clear()  # a caller's list is its own: the next request gets every name again
    assert method_names(handler) == MOTO_METHOD_NAMES(handler)


def test_an_event_target_s_input_is_filled_as_moto_does(monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN a target's input transformer reading nested, listed and missing paths
    template = '{"user": "<user>", "ids": <ids>, "first": "<first>", "none": "<none>", "when": "<time>"}'
    paths = {"user": "$.detail.user_id", "ids": "$.detail.ids", "first": "$.detail.ids[0]", "none": "$.detail.x"}
    paths["time"] = "$.time"
    event = {
        "detail": {"user_id": "u-1", "ids": ["a", "b"]},
        "time": "2026-12-01T00:00:00Z",
        "ingestion-time": 1,
    }
    expected = EventTemplateParser.parse(template, paths, event)
    # WHEN the same template is filled with the paths parsed once
    monkeypatch.setattr(jsonpath_ext, "parse", jsonpath)
    # THEN the input is moto's, twice over, and a path is parsed only once
    assert EventTemplateParser.parse(template, paths, event) == expected
    assert EventTemplateParser.parse(template, paths, event) == expected
    assert jsonpath("$.detail.ids") is jsonpath("$.detail.ids")
