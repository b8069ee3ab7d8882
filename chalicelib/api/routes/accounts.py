"""Accounts, the live balance refresh, balance history and the QA balance seed."""

from __future__ import annotations

from chalice import Response
from chalice.app import Request

from chalicelib.api import requests, responses
from chalicelib.api.balance_refresh import refresh_balances, seed_qa_balances
from chalicelib.api.http import Call, ok
from chalicelib.data import accounts, balances
from chalicelib.data.ttl import utcnow


def list_accounts(request: Request) -> Response:
    call = Call.for_user(request, requests.UserPath())
    query = call.query(requests.AccountsQuery())
    return ok(responses.accounts_body(accounts.list_accounts(call.user_id, query["item_id"])))


def refresh(request: Request) -> Response:
    """Balances from Plaid now; rewrites ACCOUNT rows and today's BALANCE rows."""
    call = Call.for_user(request, requests.UserPath())
    body = call.body(requests.RefreshBody())
    result = refresh_balances(call.user_id, body["item_id"], utcnow())
    return ok({**responses.accounts_body(result.accounts), "failed_items": result.failed_items})


def balance_history(request: Request) -> Response:
    call = Call.for_user(request, requests.AccountPath())
    query = call.query(requests.BalancesQuery())
    found = balances.list_balances(call.user_id, call.path["account_id"], query["start_date"], query["end_date"])
    return ok(responses.balances_body(found))


def qa_seed(request: Request) -> Response:
    """QA only (404 in prod): BALANCE rows with both flags true and a 30-day ttl."""
    call = Call.for_user(request, requests.UserPath())
    body = call.body(requests.QaSeedBody())
    seeded = seed_qa_balances(
        call.user_id, body["account_id"], body["days"], body["available"], body["current"], utcnow()
    )
    return ok(
        {
            "account_ids": seeded.account_ids,
            "start_date": seeded.start_date.isoformat(),
            "end_date": seeded.end_date.isoformat(),
            "rows_written": seeded.rows_written,
        },
        status=201,
    )
