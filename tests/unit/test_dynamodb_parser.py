"""The faster DynamoDB response reading gives what botocore's and boto3's own reading give.

Both sides run on the same response bodies: attribute-value trees generated with every type,
nested maps and lists, binaries, and the odd shapes a stock parser tolerates (several members,
an unknown member, a null member, null list elements).
"""

from __future__ import annotations

import base64
import json
from decimal import Decimal
from typing import Any

import boto3
import botocore.session
from boto3.dynamodb.transform import TransformationInjector
from boto3.dynamodb.types import Binary, TypeDeserializer
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
    st.just({"M": {"a": {"S": "x"}}, "X": "unknown"}),
    st.just({"L": [{"N": "1"}, {"M": {"b": {"S": "y"}}}], "S": "y"}),
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


def _stock_python(operation: str, body: dict[str, Any]) -> Any:
    """What a stock resource's client returns: botocore's parse, then boto3's conversion."""
    model: Any = MODEL.operation_model(operation)
    parsed = _parse(JSONParser(), operation, body)
    TransformationInjector(deserializer=TypeDeserializer()).inject_attribute_value_output(parsed, model)
    return parsed


def _outcome(read: Any) -> tuple[str, str]:
    """A reading's result as comparable text: its value (types included), or its error's type."""
    try:
        return "value", repr(read())
    except (TypeError, ValueError) as error:
        return "error", type(error).__name__


@settings(max_examples=300, deadline=None)
@given(items=st.lists(rows, max_size=4), last_key=rows)
def test_a_resource_s_query_reads_as_a_stock_resource_reads_it(
    items: list[dict[str, Any]], last_key: dict[str, Any]
) -> None:
    # GIVEN a Query response with generated rows (odd shapes included) and a LastEvaluatedKey
    body = {"Items": items, "Count": len(items), "ScannedCount": len(items), "LastEvaluatedKey": last_key}
    # WHEN the one-pass parser and a stock resource read it
    ours = _outcome(lambda: _parse(dynamodb_types.DynamoDBPythonParser(), "Query", body))
    stock = _outcome(lambda: _stock_python("Query", body))
    # THEN they agree, value for value and type for type, or fail alike
    assert ours == stock


@settings(max_examples=200, deadline=None)
@given(item=rows, batch=st.lists(rows, max_size=3), unprocessed=rows)
def test_a_resource_s_get_and_batch_get_read_as_a_stock_resource_reads_them(
    item: dict[str, Any], batch: list[dict[str, Any]], unprocessed: dict[str, Any]
) -> None:
    # GIVEN a GetItem response, and a BatchGetItem response with rows and unprocessed keys
    get_body = {"Item": item}
    batch_body = {"Responses": {"t": batch}, "UnprocessedKeys": {"t": {"Keys": [unprocessed]}}}
    # WHEN the one-pass parser and a stock resource read them THEN they agree
    for operation, body in (("GetItem", get_body), ("BatchGetItem", batch_body)):
        ours = _outcome(lambda: _parse(dynamodb_types.DynamoDBPythonParser(), operation, body))  # noqa: B023
        assert ours == _outcome(lambda: _stock_python(operation, body))  # noqa: B023


def test_well_formed_rows_read_as_python_values() -> None:
    # GIVEN a row of every type on the wire
    blob = base64.b64encode(b"\x00z").decode()
    row = {
        "s": {"S": "x"},
        "n": {"N": "-1.50"},
        "b": {"B": blob},
        "ss": {"SS": ["a"]},
        "ns": {"NS": ["2"]},
        "bs": {"BS": [blob]},
        "null": {"NULL": True},
        "bool": {"BOOL": False},
        "m": {"M": {"l": {"L": [{"N": "3"}, {"S": "y"}]}}},
    }
    # WHEN the one-pass parser reads it
    got = _parse(dynamodb_types.DynamoDBPythonParser(), "GetItem", {"Item": row})["Item"]
    # THEN every value is boto3's Python value
    assert got == {
        "s": "x",
        "n": Decimal("-1.50"),
        "b": Binary(b"\x00z"),
        "ss": {"a"},
        "ns": {Decimal(2)},
        "bs": {Binary(b"\x00z")},
        "null": None,
        "bool": False,
        "m": {"l": [Decimal(3), "y"]},
    }


def test_an_error_s_items_stay_attribute_values_as_a_stock_resource_leaves_them() -> None:
    # GIVEN a cancelled transaction's error, whose reasons carry the item as stored
    body = {
        "__type": "com.amazonaws.dynamodb.v20120810#TransactionCanceledException",
        "message": "Transaction cancelled",
        "CancellationReasons": [{"Code": "ConditionalCheckFailed", "Item": {"n": {"N": "1"}, "s": {"S": "a"}}}],
    }
    response = {"body": json.dumps(body).encode(), "headers": {}, "status_code": 400}
    error_shape: Any = MODEL.shape_for("TransactionCanceledException")
    # WHEN the one-pass parser reads it as the error and as the modeled error fields
    ours = dynamodb_types.DynamoDBPythonParser()
    stock = JSONParser()
    output: Any = MODEL.operation_model("TransactWriteItems").output_shape
    # THEN it reads both as botocore does: attribute values, not Python values
    assert ours.parse(response, output) == stock.parse(response, output)
    modeled = ours.parse(response, error_shape)
    assert modeled == stock.parse(response, error_shape)
    assert modeled["CancellationReasons"][0]["Item"] == {"n": {"N": "1"}, "s": {"S": "a"}}


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
    # THEN both read the same values, and the factory's resource parses to Python values itself
    assert ours == theirs
    assert repr(sorted(ours.items(), key=lambda kv: kv[0])) == repr(sorted(theirs.items(), key=lambda kv: kv[0]))
    endpoint: Any = table.meta.client._endpoint  # type: ignore[attr-defined]
    assert isinstance(endpoint._response_parser_factory, dynamodb_types.DynamoDBPythonParserFactory)
    # AND the factory's low-level client still reads attribute values, as botocore does
    low = clients.client("dynamodb").get_item(TableName=table.name, Key={k: {"S": v} for k, v in key.items()})
    assert low["Item"]["n"] == {"N": "12345"}
    assert low["Item"]["b"] == {"B": b"\x00\x01binary"}
