"""Free-form values (model outputs, Pave payloads, analytics) in and out of DynamoDB.

boto3 refuses ``float``; a model's confidence or a Pave payload has them. Going in, floats
become ``Decimal`` from their shortest text (``0.1`` stays ``0.1``), non-finite floats become
null (DynamoDB cannot hold them), dates and datetimes become ISO text, enums their value,
dataclasses and mappings maps, sequences lists. Coming out, whole ``Decimal`` values become
``int`` and the others ``float``. Money is already integer cents everywhere, so it round-trips
exactly.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from datetime import date, datetime
from decimal import Decimal
from enum import Enum
from typing import Any

from chalicelib.data.ttl import iso_timestamp
from chalicelib.errors import ValidationError


class UnstorableValueError(ValidationError):
    """A value has no DynamoDB representation (an arbitrary object)."""


def to_dynamo(value: Any) -> Any:
    """``value`` as boto3 can store it (see the module docstring)."""
    if value is None or isinstance(value, (bool, str, int)):
        return value
    if isinstance(value, float):
        return Decimal(repr(value)) if math.isfinite(value) else None
    if isinstance(value, Decimal):
        return value if value.is_finite() else None
    if isinstance(value, datetime):
        return iso_timestamp(value) if value.tzinfo else value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Enum):
        return to_dynamo(value.value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_dynamo(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): to_dynamo(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_dynamo(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return [to_dynamo(v) for v in sorted(value, key=repr)]
    raise UnstorableValueError(f"cannot store a {type(value).__name__} in DynamoDB")


def from_dynamo(value: Any) -> Any:
    """A stored free-form value back as plain JSON-able Python (no ``Decimal``)."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, Mapping):
        return {str(k): from_dynamo(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [from_dynamo(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(from_dynamo(v) for v in value)
    return value


def optional_int(value: object) -> int | None:
    """A stored whole number (boto3 gives ``Decimal``) or null."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, Decimal)) or value != int(value):
        raise ValidationError(f"stored value is not a whole number: {value!r}")
    return int(value)
