"""The local moto server's two DynamoDB shortcuts answer exactly as moto's own code does.

``ops.moto_server`` replaces moto's generic serializer for attribute values and its
per-attribute size check on new items (both were most of the suite's CPU). A moto upgrade
that changes either behaviour fails here, not as a subtle difference in a pipeline test.
"""

from __future__ import annotations

import base64
import json
from decimal import Decimal
from typing import Any

import pytest
from boto3.dynamodb.types import Binary, TypeSerializer
from moto.core.serialize import JSONSerializer, XFormedAttributePicker
from moto.core.utils import get_service_model
from moto.dynamodb.exceptions import ItemSizeTooLarge
from moto.dynamodb.models.dynamo_type import DynamoType, Item
from moto.dynamodb.responses import DynamoResult

from ops.moto_server import ITEM_SIZE_LIMIT, ItemsAsIsSerializer, new_item

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
