"""Accounts, the live balance refresh, balance history and the QA balance seed."""

from __future__ import annotations

from chalice import Response
from chalice.app import Request

from chalicelib.api import requests, responses
from chalicelib.api.balance_refresh import refresh_balances, seed_qa_balances
from chalicelib.api.http import Call, ok
from chalicelib.data import accounts, balances, items, rate_limits
from chalicelib.data.ttl import utcnow
from chalicelib.settings import get_settings


def list_accounts(request: Request, user_id: str) -> Response:
    """The user's accounts; those of REMOVED items only with ``include_removed=true``."""
    call = Call.for_user(request, requests.UserPath(), user_id=user_id)
    query = call.query(requests.AccountsQuery())
    found = accounts.list_accounts(call.user_id, query["item_id"])
    if not query["include_removed"]:
        removed = removed_item_ids(call.user_id)
        found = [a for a in found if a.item_id not in removed]
    return ok(responses.accounts_body(found))


def removed_item_ids(user_id: str) -> set[str]:
    """The user's REMOVED items (one strongly consistent Query of the user's items)."""
    return {i.item_id for i in items.list_items(user_id) if i.status is items.ItemStatus.REMOVED}


def _of_removed_item(user_id: str, account_id: str) -> bool:
    """Whether the account belongs to a REMOVED item (unknown account or item: no)."""
    account = accounts.get_account(user_id, account_id)
    if account is None or not account.item_id:
        return False
    item = items.get_item(user_id, account.item_id)
    return item is not None and item.status is items.ItemStatus.REMOVED


def refresh(request: Request, user_id: str) -> Response:
    """Balances from Plaid now; rewrites ACCOUNT rows and today's BALANCE rows.

    Plaid bills every live balance call, so each user has an allowance per window
    (``BALANCE_REFRESH_LIMIT`` per ``BALANCE_REFRESH_WINDOW_SECONDS``): past it, 429 with
    ``Retry-After`` until the window ends. A request refused before this point (auth, body)
    takes nothing from it.
    """
    call = Call.for_user(request, requests.UserPath(), user_id=user_id)
    body = call.body(requests.RefreshBody())
    now = utcnow()
    settings = get_settings()
    allowance = rate_limits.Allowance(settings.balance_refresh_limit, settings.balance_refresh_window_seconds)
    rate_limits.take(call.user_id, rate_limits.BALANCE_REFRESH, allowance, now)
    result = refresh_balances(call.user_id, body["item_id"], now)
    return ok({**responses.accounts_body(result.accounts), "failed_items": result.failed_items})


def balance_history(request: Request, user_id: str, account_id: str) -> Response:
    call = Call.for_user(request, requests.AccountPath(), user_id=user_id, account_id=account_id)
    query = call.query(requests.BalancesQuery())
    account_id = call.path["account_id"]
    if not query["include_removed"] and _of_removed_item(call.user_id, account_id):
        return ok(responses.balances_body([]))
    found = balances.list_balances(call.user_id, account_id, query["start_date"], query["end_date"])
    return ok(responses.balances_body(found))


def qa_seed(request: Request, user_id: str) -> Response:
    """QA only (404 in prod): BALANCE rows with both flags true and a 30-day ttl."""
    call = Call.for_user(request, requests.UserPath(), user_id=user_id)
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
