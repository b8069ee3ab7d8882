"""Reading a Chalice request through marshmallow schemas, and writing JSON responses.

Every route reads its inputs here, so the failure statuses are uniform: a bad path or query
parameter is HTTP 400 (``bad_request``), a body that is not JSON or not the shape the route
accepts is HTTP 422 (``unprocessable_entity``); both carry marshmallow's field messages as
``error.details``. Bodies are parsed from ``raw_body`` (Chalice's own ``json_body`` would
answer a 400 in its own format).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from chalice import Response
from chalice.app import Request
from marshmallow import Schema
from marshmallow import ValidationError as SchemaError

from chalicelib.api.auth import Principal, authenticate
from chalicelib.api.errors import ForbiddenError
from chalicelib.errors import BadRequestBodyError, ValidationError

MAX_BODY_BYTES = 64 * 1024
JSON_HEADERS: dict[str, str | list[str]] = {"Content-Type": "application/json"}


def load_params(schema: Schema, raw: Mapping[str, Any], what: str) -> dict[str, Any]:
    """Path or query parameters through ``schema`` (HTTP 400 on failure)."""
    try:
        return dict(schema.load(dict(raw)))
    except SchemaError as exc:
        raise ValidationError(f"invalid {what}", {"fields": exc.messages}) from exc


def query_params(request: Request) -> dict[str, str]:
    """The query string as single values; a repeated parameter is refused."""
    params = request.query_params
    if not params:
        return {}
    single: dict[str, str] = {}
    for name in params:
        values = params.getlist(name)
        if len(values) != 1:
            raise ValidationError(f"query parameter {name!r} given more than once", {"fields": {name: ["repeated"]}})
        single[name] = values[0]
    return single


def json_body(request: Request, schema: Schema) -> dict[str, Any]:
    """The body through ``schema``; an empty body is ``{}`` (HTTP 422 on failure)."""
    raw = request.raw_body or b""
    if len(raw) > MAX_BODY_BYTES:
        raise BadRequestBodyError("body is too large")
    payload: Any = {}
    if raw.strip():
        try:
            payload = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            raise BadRequestBodyError("body is not JSON") from exc
    if not isinstance(payload, dict):
        raise BadRequestBodyError("body is not a JSON object")
    try:
        return dict(schema.load(payload))
    except SchemaError as exc:
        raise BadRequestBodyError("body does not match the route", {"fields": exc.messages}) from exc


@dataclass(frozen=True)
class Call:
    """An authenticated request with its validated path parameters."""

    request: Request
    principal: Principal
    path: dict[str, Any]

    @classmethod
    def open(cls, request: Request, path_schema: Schema | None = None, **path: str) -> Call:
        """Authenticate (401), then validate the path parameters the view passed (400)."""
        principal = authenticate(request.headers)
        validated = load_params(path_schema, path, "path") if path_schema is not None else dict(path)
        return cls(request, principal, validated)

    @classmethod
    def for_user(cls, request: Request, path_schema: Schema, **path: str) -> Call:
        """:meth:`open`, then require the caller to be the path's ``user_id`` or a service (403)."""
        call = cls.open(request, path_schema, **path)
        if not call.principal.may_act_for(call.user_id):
            raise ForbiddenError("this token may not act for this user")
        return call

    @property
    def user_id(self) -> str:
        return str(self.path["user_id"])

    def query(self, schema: Schema) -> dict[str, Any]:
        return load_params(schema, query_params(self.request), "query")

    def body(self, schema: Schema) -> dict[str, Any]:
        return json_body(self.request, schema)


def ok(body: Any, status: int = 200) -> Response:
    return Response(body=body, status_code=status, headers=dict(JSON_HEADERS))
