"""A resource's DynamoDB reading in one pass: wire JSON straight to boto3's Python values.

A stock resource reads a response twice: botocore's parser turns the JSON into attribute
values (``{"N": "12"}``), then boto3's ``TypeDeserializer`` walks the result again, looking
its method up by name for every value, to make Python ones (``Decimal("12")``).
:class:`DynamoDBPythonParser` does both in one walk: where the service model says
``AttributeValue``, it builds the Python value from the wire form directly. Anything but the
plain case (one member, of its wire type) is parsed by botocore and converted by boto3's own
deserializer, so even a malformed value ends as boto3 would end it. Errors are parsed as
attribute values: boto3 leaves an error's items (a cancelled transaction's reasons) as they
came.

The resource's client is built from a session whose parser factory is
:class:`DynamoDBPythonParserFactory`, and boto3's own output conversion is taken off it
(:func:`python_values`): its responses are then what a stock resource's are
(``tests/unit/test_dynamodb_parser.py`` compares them on generated rows).

Imported only where a resource is built (which imports ``boto3.dynamodb`` anyway), so that a
handler using SQS alone never loads it.
"""

from __future__ import annotations

from typing import Any

from boto3.dynamodb.types import DYNAMODB_CONTEXT, Binary, TypeDeserializer
from botocore.model import Shape

from chalicelib.aws.dynamodb_parser import DynamoDBJSONParser, DynamoDBParserFactory, is_attribute_value

#: boto3's id for a resource's response conversion handler (``after-call.dynamodb``).
_OUTPUT_HANDLER_ID = "dynamodb-attr-value-output"
_SETS = frozenset(("SS", "NS", "BS"))
_decimal = DYNAMODB_CONTEXT.create_decimal
_deserialize = TypeDeserializer().deserialize


class DynamoDBPythonParser(DynamoDBJSONParser):
    """The ``json`` parser of a resource's client: a response's attribute values as Python values."""

    #: Python values while a response is parsed; attribute values while an error is.
    _python = False

    def _do_parse(self, response: Any, shape: Shape) -> Any:
        self._python = True
        try:
            return super()._do_parse(response, shape)
        finally:
            self._python = False

    def _handle_structure(self, shape: Shape, value: Any) -> Any:
        if self._python and is_attribute_value(shape):
            return self._value(shape, value)
        return super()._handle_structure(shape, value)

    def _handle_map(self, shape: Shape, value: Any) -> Any:
        value_shape = shape.value  # type: ignore[attr-defined]
        if self._python and is_attribute_value(value_shape) and type(value) is dict:
            convert = self._value
            row: dict[str, Any] = {}
            for key, member in value.items():
                # The commonest attributes inline: a string, a number.
                if type(member) is dict and len(member) == 1:
                    if type(scalar := member.get("S")) is str:
                        row[key] = scalar
                        continue
                    if type(scalar := member.get("N")) is str:
                        row[key] = _decimal(scalar)
                        continue
                row[key] = convert(value_shape, member)
            return row
        return super()._handle_map(shape, value)

    def _value(self, shape: Shape, value: Any) -> Any:
        """The Python value of one attribute value, as boto3's deserializer makes it."""
        if type(value) is dict and len(value) == 1:
            ((tag, member),) = value.items()
            kind = type(member)
            if tag == "S" and kind is str:
                return member
            if tag == "N" and kind is str:
                return _decimal(member)
            if tag == "M" and kind is dict:
                return {key: self._value(shape, item) for key, item in member.items()}
            if tag == "L" and kind is list:
                return [self._value(shape, item) for item in member]
            if tag == "BOOL" and kind is bool:
                return member
            if tag == "NULL" and kind is bool:
                return None
            if tag == "B" and kind is str:
                return Binary(self._blob_parser(member))
            if tag in _SETS and kind is list and all(type(item) is str for item in member):
                return self._set(tag, member)
        # Anything else: botocore's parse, then boto3's conversion (its result, or its error).
        self._python = False
        try:
            parsed = super()._handle_structure(shape, value)
        finally:
            self._python = True
        return _deserialize(parsed)

    def _set(self, tag: str, members: list[str]) -> set[Any]:
        if tag == "NS":
            return {_decimal(item) for item in members}
        if tag == "BS":
            return {Binary(self._blob_parser(item)) for item in members}
        return set(members)


class DynamoDBPythonParserFactory(DynamoDBParserFactory):
    """The parser factory of a resource's session: :class:`DynamoDBPythonParser` for ``json``."""

    def create_parser(self, protocol_name: str) -> Any:
        if protocol_name == "json":
            return DynamoDBPythonParser(**self._defaults)
        return super().create_parser(protocol_name)


def _already_python(**_: Any) -> None:
    """In boto3's conversion's place: the parser has made the response's values Python ones."""


def python_values(resource: Any) -> Any:
    """``resource``, built from a session of :class:`DynamoDBPythonParserFactory`, without boto3's
    second conversion of its responses. A handler takes the conversion's id, so that the
    ``Table`` handles built on the resource later (each registers the conversion again, under
    the same id) leave it out too."""
    events = resource.meta.client.meta.events
    events.unregister("after-call.dynamodb", unique_id=_OUTPUT_HANDLER_ID)
    events.register("after-call.dynamodb", _already_python, unique_id=_OUTPUT_HANDLER_ID)
    return resource
