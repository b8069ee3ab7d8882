"""The user's cash-flow forecast: the main checking account's balance for the days ahead."""

from __future__ import annotations

from chalice import Response
from chalice.app import Request

from chalicelib.api import insight_schemas as schemas
from chalicelib.api import requests
from chalicelib.api.http import Call, ok
from chalicelib.data.ttl import utcnow
from chalicelib.insight.cash_flow import user_forecast


def get_forecast(request: Request, user_id: str) -> Response:
    """``days`` (1-35, default 14) after today (UTC); ``confidence: none`` and the reason when there is none."""
    call = Call.for_user(request, requests.UserPath(), user_id=user_id)
    query = call.query(schemas.ForecastQuery())
    return ok(schemas.forecast_body(user_forecast(call.user_id, utcnow(), query["days"])))
