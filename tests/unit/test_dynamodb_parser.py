"""The faster DynamoDB response reading gives what botocore's and boto3's own reading give.

Both sides run on the same response bodies: attribute-value trees generated with every type,
nested maps and lists, binaries, and the odd shapes a stock parser tolerates (several members,
an unknown member, a null member, null list elements).
"""

from __future__ import annotations

import base64
import copy
import json
from decimal import Decimal
from typing import Any

import boto3
import botocore.session
import pytest
from boto3.dynamodb.transform import TransformationInjector
from boto3.dynamodb.types import TypeDeserializer
from botocore.parsers import JSONParser
from hypothesis import given, settings
from hypothesis import strategies as st

from chalicelib.aws import clients, dynamodb_parser, dynamodb_types
from chalicelib.data import tables

MODEL = botocore.session.get_session().get_service_model("dynamodb")

numbers = st.integers(-(10**12), 10**12).map(str) | st.decimals(-1000, 1000, places=3, allow_nan=False).map(str)
blobs = st.binary(max_size=12).map(lambda raw: base64.b64encode(raw).decode())
scalars = st.one_of(
    st.builds(lambda s: {"S": s}, st.text(max_size=8)),
    st.builds(lambda n: {"N": n}, numbers),
    st.builds(lambda b: {"B": b}, blobs),
    st.builds(lambda s: {"SS": s}, st.lists(st.text(max_size=4), min_size=1, max_size=3, unique=True)),
    st.builds(lambda s: {"NS": s}, st.lists(numbers, min_size=1, max_size=3, unique=True)),
    st.builds(lambda s: {"BS": s}, st.lists(blobs, min_size=1, max_size=3, unique=True)),
    st.just({"NULL": True}),
    st.builds(lambda b: {"BOOL": b}, st.booleans()),
)
attribute_values = st.recursive(
    scalars,
    lambda inner: (
        st.builds(lambda m: {"M": m}, st.dictionaries(st.text(max_size=5), inner, max_size=4))
        | st.builds(lambda items: {"L": items}, st.lists(inner, max_size=4))
    ),
    max_leaves=12,
)
#: What only a malformed or future response holds; the stock parser tolerates it, so must ours.
odd_values = st.one_of(
    st.just({"S": "a", "N": "1"}),
    st.just({"S": None}),
    st.just({"S": None, "N": "2"}),
    st.just({"X": "unknown"}),
    st.just({"S": "a", "X": "unknown"}),
    st.just({}),
    st.just({"L": [None, {"S": "b"}]}),
    st.just({"BS": [None]}),
    st.just({"SS": ["a", None]}),
)
rows = st.dictionaries(st.text(min_size=1, max_size=6), attribute_values | odd_values, min_size=1, max_size=6)


def _response(body: dict[str, Any]) -> dict[str, Any]:
    return {"body": json.dumps(body).encode(), "headers": {"x-amzn-requestid": "r-1"}, "status_code": 200}


def _parse(parser: Any, operation: str, body: dict[str, Any]) -> Any:
    return parser.parse(_response(body), MODEL.operation_model(operation).output_shape)


@settings(max_examples=300, deadline=None)
@given(items=st.lists(rows, max_size=4), last_key=rows)
def test_a_query_response_parses_as_botocore_parses_it(items: list[dict[str, Any]], last_key: dict[str, Any]) -> None:
    # GIVEN a Query response with generated rows and a LastEvaluatedKey
    body = {"Items": items, "Count": len(items), "ScannedCount": len(items), "LastEvaluatedKey": last_key}
    # WHEN both parsers read it THEN they agree
    assert _parse(dynamodb_parser.DynamoDBJSONParser(), "Query", body) == _parse(JSONParser(), "Query", body)


@settings(max_examples=200, deadline=None)
@given(item=rows, batch=st.lists(rows, max_size=3))
def test_get_item_and_batch_get_responses_parse_as_botocore_parses_them(
    item: dict[str, Any], batch: list[dict[str, Any]]
) -> None:
    # GIVEN a GetItem response and a BatchGetItem response (a map of tables to lists of rows)
    get_body = {"Item": item}
    batch_body = {"Responses": {"t": batch}, "UnprocessedKeys": {}}
    # WHEN both parsers read them THEN they agree
    for operation, body in (("GetItem", get_body), ("BatchGetItem", batch_body)):
        assert _parse(dynamodb_parser.DynamoDBJSONParser(), operation, body) == _parse(JSONParser(), operation, body)


@settings(max_examples=300, deadline=None)
@given(
    items=st.lists(
        st.dictionaries(st.text(min_size=1, max_size=6), attribute_values, min_size=1, max_size=4), max_size=4
    )
)
def test_rows_deserialize_as_boto3_deserializes_them(items: list[dict[str, Any]]) -> None:
    # GIVEN a parsed Query response of well-formed rows
    parsed = _parse(JSONParser(), "Query", {"Items": items, "Count": len(items), "ScannedCount": len(items)})
    stock, fast = copy.deepcopy(parsed), copy.deepcopy(parsed)
    operation: Any = MODEL.operation_model("Query")
    # WHEN boto3's deserializer and the fast one turn them into Python values
    TransformationInjector(deserializer=TypeDeserializer()).inject_attribute_value_output(stock, operation)
    faster = TransformationInjector(deserializer=dynamodb_types.FastTypeDeserializer())
    faster.inject_attribute_value_output(fast, operation)
    # THEN they agree, value for value and type for type
    assert fast == stock
    assert repr(fast) == repr(stock)


def test_an_empty_attribute_value_is_refused_as_boto3_refuses_it() -> None:
    # GIVEN an attribute value with no type WHEN it is deserialized THEN boto3's TypeError comes through
    with pytest.raises(TypeError):
        dynamodb_types.FastTypeDeserializer().deserialize({})


def test_other_json_services_parse_as_before() -> None:
    # GIVEN an SQS response (the json protocol, no attribute values)
    body = {"Messages": [{"MessageId": "m", "ReceiptHandle": "h", "Body": "{}", "Attributes": {"SentTimestamp": "1"}}]}
    # WHEN both parsers read it THEN they agree
    sqs: Any = botocore.session.get_session().get_service_model("sqs").operation_model("ReceiveMessage")
    fast, stock = dynamodb_parser.DynamoDBJSONParser(), JSONParser()
    assert fast.parse(_response(body), sqs.output_shape) == stock.parse(_response(body), sqs.output_shape)


def test_the_factory_s_clients_read_every_type_as_plain_boto3_does(aws_endpoint: str) -> None:
    # GIVEN a row of every attribute type, written through the factory's table handle
    table = tables.plaid()
    key = {"PK": f"PARSER#{id(table)}", "SK": "EVERY-TYPE"}
    row = {
        **key,
        "s": "text",
        "n": 12345,
        "neg": Decimal("-0.5"),
        "b": b"\x00\x01binary",
        "ss": {"a", "b"},
        "ns": {1, 2},
        "bs": {b"x", b"y"},
        "m": {"nested": {"l": [1, "two", None, True, {"deep": b"z"}]}},
        "null": None,
        "bool": False,
    }
    table.put_item(Item=row)
    # WHEN it is read back through the factory's handle and through a resource of boto3's defaults
    plain = boto3.resource(
        "dynamodb",
        endpoint_url=aws_endpoint,
        region_name=clients.dynamodb().meta.client.meta.region_name,
    ).Table(table.name)
    ours = table.get_item(Key=key, ConsistentRead=True)["Item"]
    theirs = plain.get_item(Key=key, ConsistentRead=True)["Item"]
    # THEN both read the same values, and the factory's client parses with the fast parser
    assert ours == theirs
    assert repr(sorted(ours.items(), key=lambda kv: kv[0])) == repr(sorted(theirs.items(), key=lambda kv: kv[0]))
    endpoint: Any = table.meta.client._endpoint  # type: ignore[attr-defined]
    assert isinstance(endpoint._response_parser_factory, dynamodb_parser.DynamoDBParserFactory)
