"""The user's next payday: the same-day cache in front of the payday chain."""

from __future__ import annotations

import re

from chalice import Response
from chalice.app import Request

from chalicelib.api import insight_schemas as schemas
from chalicelib.api import requests
from chalicelib.api.http import Call, ok
from chalicelib.data import ttl
from chalicelib.insight import payday_evaluation
from chalicelib.insight.payday_evaluation import PaydayFlags

#: API Gateway's request ids (UUIDs); anything else is not used in a key.
_REQUEST_ID = re.compile(r"^[A-Za-z0-9-]{1,64}$")


def get_payday(request: Request, user_id: str) -> Response:
    """Next payday, cadence, income source and collection dates; ``loan_id`` is optional."""
    call = Call.for_user(request, requests.UserPath(), user_id=user_id)
    query = call.query(schemas.PaydayQuery())
    answer = payday_evaluation.evaluate(
        call.user_id,
        query["loan_id"],
        now=ttl.utcnow(),
        flags=PaydayFlags.from_settings(),
        capture_id=request_id(request),
    )
    return ok(schemas.payday_body(answer))


def request_id(request: Request) -> str | None:
    """The API Gateway request id, when there is one (``chalice local`` has none)."""
    value = (request.context or {}).get("requestId")
    return value if isinstance(value, str) and _REQUEST_ID.match(value) else None
