"""marshmallow fields for the API's inputs, strict where the OpenAPI document is strict.

Identifiers are restricted to the characters Auth0 and Plaid ids use, which also keeps
``#`` (the key separator) and path tricks (``..``, ``/``) out of every key we build. Dates
are exactly ``YYYY-MM-DD`` (Python's ``fromisoformat`` would also take ``20240101`` and
week dates, which the document does not allow). The patterns here and in
``openapi.yaml`` are the same strings; ``tests/api/test_contract.py`` checks that.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from typing import Any

from marshmallow import fields, validate

#: A user id (Auth0's, without ``auth0|``): no leading dot, so never ``.`` or ``..``.
USER_ID_PATTERN = r"^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$"
#: Plaid and service identifiers: items, accounts, transactions, categories, institutions.
ID_PATTERN = r"^[A-Za-z0-9_-]{1,128}$"
#: A public token or cursor (Plaid's ``public-<env>-<uuid>``, our base64url cursors).
TOKEN_PATTERN = r"^[A-Za-z0-9_-]{1,512}$"  # noqa: S105 - a shape, not a secret
DATE_PATTERN = r"^\d{4}-\d{2}-\d{2}$"
MONTH_PATTERN = r"^\d{4}-(0[1-9]|1[0-2])$"


def _no_null(kwargs: dict[str, Any]) -> dict[str, Any]:
    """marshmallow lets ``null`` through a field whose ``load_default`` is None; the document does not."""
    return {"allow_none": False, **kwargs}


def user_id_field(**kwargs: Any) -> fields.String:
    return fields.String(validate=validate.Regexp(USER_ID_PATTERN, error="not a valid user id"), **_no_null(kwargs))


def id_field(**kwargs: Any) -> fields.String:
    return fields.String(validate=validate.Regexp(ID_PATTERN, error="not a valid identifier"), **_no_null(kwargs))


def token_field(**kwargs: Any) -> fields.String:
    return fields.String(validate=validate.Regexp(TOKEN_PATTERN, error="not a valid token"), **_no_null(kwargs))


def month_field(**kwargs: Any) -> fields.String:
    return fields.String(validate=validate.Regexp(MONTH_PATTERN, error="not a YYYY-MM month"), **_no_null(kwargs))


class StrictDate(fields.Field[date]):
    """A ``YYYY-MM-DD`` string loaded as a :class:`date`."""

    default_error_messages = {"invalid": "Not a date (YYYY-MM-DD)."}
    _shape = re.compile(DATE_PATTERN)

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> date:
        if not isinstance(value, str) or not self._shape.match(value):
            raise self.make_error("invalid")
        try:
            return date.fromisoformat(value)
        except ValueError as exc:
            raise self.make_error("invalid") from exc


class QueryInteger(fields.Field[int]):
    """An integer query parameter: decimal digits only (no sign, spaces, ``1e3`` or ``1.0``)."""

    default_error_messages = {"invalid": "Not an integer."}
    _shape = re.compile(r"^\d{1,9}$")

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> int:
        if isinstance(value, bool) or not (
            isinstance(value, int) or (isinstance(value, str) and self._shape.match(value))
        ):
            raise self.make_error("invalid")
        return int(value)


class QueryBoolean(fields.Field[bool]):
    """A boolean query parameter: exactly ``true`` or ``false``."""

    default_error_messages = {"invalid": "Not a boolean (true or false)."}

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> bool:
        if isinstance(value, bool):
            return value
        if value in ("true", "false"):
            return bool(value == "true")
        raise self.make_error("invalid")
