"""A faster parsing of DynamoDB's responses: botocore's result, a fraction of the CPU.

botocore turns every JSON response into Python by walking the service model, and DynamoDB's
items are that walk's worst case: each attribute is an ``AttributeValue`` structure of ten
possible members, so one row of twenty attributes visits more than two hundred model nodes.
Parsing is most of the CPU of a read (a user's 120-day history, 360 rows, spends about four
fifths of its read in it).

The wire form of an ``AttributeValue`` is already the parsed form (``{"S": "x"}`` parses to
``{"S": "x"}``) except for binary values, which are base64. :class:`DynamoDBJSONParser`
therefore takes an attribute value as it came, decoding binaries and descending into maps
and lists, whenever it is the plain case (one member, set); anything else (no member, several,
an unknown one) goes to botocore's own walk. The result is equal to botocore's for every
input (``tests/unit/test_dynamodb_parser.py`` compares them on generated trees).

Installed on the session that builds every client (:func:`install`). It applies to the
``json`` protocol's responses only, and only to shapes that are DynamoDB's ``AttributeValue``.

A resource's client parses straight to Python values instead: see
:mod:`chalicelib.aws.dynamodb_types`.
"""

from __future__ import annotations

from typing import Any

from botocore import parsers
from botocore.model import Shape
from botocore.session import Session

#: The members of DynamoDB's ``AttributeValue``: what marks the shape as DynamoDB's.
_MEMBERS = ("S", "N", "B", "SS", "NS", "BS", "M", "L", "NULL", "BOOL")
#: Members whose wire value is their parsed value.
_AS_IS = frozenset(("S", "N", "SS", "NS", "NULL", "BOOL"))
#: botocore's parser and factory, whose stubs leave out the hooks overridden here.
_JSONParser: Any = parsers.JSONParser
_ResponseParserFactory: Any = parsers.ResponseParserFactory
_PARSERS: dict[str, Any] = parsers.PROTOCOL_PARSERS


def is_attribute_value(shape: Shape) -> bool:
    """Whether ``shape`` is DynamoDB's ``AttributeValue``."""
    return shape.name == "AttributeValue" and tuple(shape.members) == _MEMBERS  # type: ignore[attr-defined]


class DynamoDBJSONParser(_JSONParser):  # type: ignore[misc]
    """botocore's ``json`` parser with a direct path for DynamoDB attribute values."""

    def _handle_structure(self, shape: Shape, value: Any) -> Any:
        if is_attribute_value(shape):
            return self._attribute_value(shape, value)
        return super()._handle_structure(shape, value)

    def _handle_map(self, shape: Shape, value: Any) -> Any:
        value_shape = shape.value  # type: ignore[attr-defined]
        if is_attribute_value(value_shape) and isinstance(value, dict):
            convert = self._attribute_value
            parsed = {}
            for key, member in value.items():
                # The commonest case inline (a row's strings and numbers): its wire value.
                plain = type(member) is dict and len(member) == 1 and member.keys() <= _AS_IS
                if plain and None not in member.values():
                    parsed[key] = member
                else:
                    parsed[key] = convert(value_shape, member)
            return parsed
        return super()._handle_map(shape, value)

    def _attribute_value(self, shape: Shape, value: Any) -> Any:
        if type(value) is dict and len(value) == 1:
            ((tag, member),) = value.items()
            if member is not None:
                if tag in _AS_IS:
                    return value
                if tag == "M" and type(member) is dict:
                    return {"M": {key: self._attribute_value(shape, item) for key, item in member.items()}}
                if tag == "L" and type(member) is list:
                    return {"L": [None if item is None else self._attribute_value(shape, item) for item in member]}
                if tag == "B":
                    return {"B": self._blob_parser(member)}
                if tag == "BS" and type(member) is list:
                    return {"BS": [None if item is None else self._blob_parser(item) for item in member]}
        return super()._handle_structure(shape, value)


class DynamoDBParserFactory(_ResponseParserFactory):  # type: ignore[misc]
    """botocore's parser factory, with :class:`DynamoDBJSONParser` for the ``json`` protocol."""

    def create_parser(self, protocol_name: str) -> Any:
        if protocol_name == "json":
            return DynamoDBJSONParser(**self._defaults)
        return _PARSERS[protocol_name](**self._defaults)


def install(session: Session) -> Session:
    """``session``, whose clients built from now on parse with :class:`DynamoDBParserFactory`."""
    session.register_component("response_parser_factory", DynamoDBParserFactory())
    return session
