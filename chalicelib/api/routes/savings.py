"""Savings progress: the user's savings in the current month and the two before it."""

from __future__ import annotations

from chalice import Response
from chalice.app import Request

from chalicelib.api import insight_schemas as schemas
from chalicelib.api import requests
from chalicelib.api.http import Call, ok
from chalicelib.data.ttl import utcnow
from chalicelib.insight.savings import savings_history


def get_savings(request: Request, user_id: str) -> Response:
    call = Call.for_user(request, requests.UserPath(), user_id=user_id)
    return ok(schemas.savings_body(call.user_id, savings_history(call.user_id, utcnow())))
