"""The local moto server's shortcuts (:mod:`ops.moto_fast`) answer exactly as moto's own code does.

Each replaces a moto path whose cost grew with item size or with the session's data (the
attribute-value serializer, the new-item size check, the table's key order, a table query,
the service list). A moto upgrade that changes any of them fails here, not as a subtle
difference in a pipeline test.
"""

from __future__ import annotations

import base64
import json
import random
from decimal import Decimal
from typing import Any

import pytest
from boto3.dynamodb.types import Binary, TypeSerializer
from moto.backends import list_of_moto_modules
from moto.core.serialize import JSONSerializer, XFormedAttributePicker
from moto.core.utils import get_service_model
from moto.dynamodb.exceptions import ItemSizeTooLarge
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.dynamo_type import DynamoType, Item
from moto.dynamodb.models.table import Table
from moto.dynamodb.parsing.ast_nodes import DepthFirstTraverser
from moto.dynamodb.parsing.expressions import UpdateExpressionParser
from moto.dynamodb.responses import DynamoResult

from ops.moto_fast import (
    ITEM_SIZE_LIMIT,
    MOTO_MAKE,
    MOTO_QUERY,
    ItemsAsIsSerializer,
    all_items,
    cached_module_list,
    new_item,
    nodes_to_be_processed,
    parsed_update_expression,
    process,
    query,
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


def updated(expression: str, values: dict[str, Any], *, fast: bool) -> Any:
    """The item (or the error) an UpdateItem leaves on a fresh table, with or without the shortcuts."""
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
    patches = (
        (UpdateExpressionParser, "make", staticmethod(parsed_update_expression)),
        (DepthFirstTraverser, "nodes_to_be_processed", nodes_to_be_processed),
        (DepthFirstTraverser, "process", process),
    )
    saved = [(owner, name, owner.__dict__[name]) for owner, name, _ in patches]
    try:
        if fast:
            for owner, name, replacement in patches:
                setattr(owner, name, replacement)
        kwargs = {"expression_attribute_names": {"#type": "type"}, "expression_attribute_values": values}
        item = backend.update_item(
            "t", {"PK": {"S": "p"}}, update_expression=expression, attribute_updates=None, **kwargs
        )
        return item.to_json()
    except Exception as error:  # noqa: BLE001 - the error is the answer to compare
        return (type(error).__name__, str(error))
    finally:
        for owner, name, original in saved:
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
