"""A faster conversion of DynamoDB attribute values to Python: boto3's result, less CPU.

A resource turns the attribute values of every response into Python ones (``Decimal``,
``str``, ``dict``) with boto3's ``TypeDeserializer``, which looks its method up by name for
every value. :class:`FastTypeDeserializer` answers the common tags (``S``, ``N``, ``M``, ``L``)
first and leaves every other case to boto3's; :func:`install_deserializer` puts it in boto3's
place on a resource, through the injector's own ``deserializer`` argument.
``tests/unit/test_dynamodb_parser.py`` compares both on generated rows.

Imported only where a resource is built (which imports ``boto3.dynamodb`` anyway), so that a
handler using SQS alone never loads it.
"""

from __future__ import annotations

from typing import Any

from boto3.dynamodb.transform import TransformationInjector
from boto3.dynamodb.types import DYNAMODB_CONTEXT, TypeDeserializer

#: boto3's id for a resource's response deserialization handler (``after-call.dynamodb``).
_OUTPUT_HANDLER_ID = "dynamodb-attr-value-output"
_decimal = DYNAMODB_CONTEXT.create_decimal


class FastTypeDeserializer(TypeDeserializer):
    """boto3's deserializer, with the common tags looked up first (the same result)."""

    def deserialize(self, value: Any) -> Any:
        if type(value) is dict and value:
            tag = next(iter(value))
            if tag == "S":
                return value["S"]
            if tag == "N":
                return _decimal(value["N"])
            member = value[tag]
            if tag == "M" and type(member) is dict:
                deserialize = self.deserialize
                return {key: deserialize(item) for key, item in member.items()}
            if tag == "L" and type(member) is list:
                deserialize = self.deserialize
                return [deserialize(item) for item in member]
        return super().deserialize(value)


def install_deserializer(resource: Any) -> Any:
    """``resource`` (boto3's DynamoDB resource), deserializing its responses with :class:`FastTypeDeserializer`."""
    events = resource.meta.client.meta.events
    injector = TransformationInjector(deserializer=FastTypeDeserializer())
    events.unregister("after-call.dynamodb", unique_id=_OUTPUT_HANDLER_ID)
    events.register("after-call.dynamodb", injector.inject_attribute_value_output, unique_id=_OUTPUT_HANDLER_ID)
    return resource
