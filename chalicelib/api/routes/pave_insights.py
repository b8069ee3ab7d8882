"""Pave insights: the user's recurring expenses (Pave's latest mine, or ours) and cash-advance score."""

from __future__ import annotations

from chalice import Response
from chalice.app import Request

from chalicelib.api import insight_schemas as schemas
from chalicelib.api import requests
from chalicelib.api.http import Call, ok
from chalicelib.data.ttl import utcnow
from chalicelib.errors import NotFoundError
from chalicelib.insight import cash_advance, expenses


class ScoreNotFoundError(NotFoundError):
    """No current cash-advance score for the user."""


def list_recurring_expenses(request: Request, user_id: str) -> Response:
    call = Call.for_user(request, requests.UserPath(), user_id=user_id)
    return ok(schemas.recurring_expenses_body(expenses.recurring_expenses_of(call.user_id, utcnow())))


def get_cash_advance_score(request: Request, user_id: str) -> Response:
    call = Call.for_user(request, requests.UserPath(), user_id=user_id)
    score = cash_advance.current_score(call.user_id, utcnow())
    if score is None:
        raise ScoreNotFoundError("no cash-advance score for this user yet")
    return ok(schemas.cash_advance_score_body(score))
