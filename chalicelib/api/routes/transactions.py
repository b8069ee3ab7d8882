"""Transactions (newest first, four indexes, opaque cursors) and monthly summaries."""

from __future__ import annotations

from chalice import Response
from chalice.app import Request

from chalicelib.api import requests, responses
from chalicelib.api.http import Call, ok
from chalicelib.data import summaries, transactions
from chalicelib.data.ttl import utcnow
from chalicelib.errors import InvalidRequestError, NotFoundError, ValidationError


class TransactionNotFoundError(NotFoundError):
    """No transaction with this id for this user."""


def list_transactions(request: Request, user_id: str) -> Response:
    """A page of live transactions: all, by account, by category, or by both (GSI1-GSI4)."""
    call = Call.for_user(request, requests.UserPath(), user_id=user_id)
    query = call.query(requests.TransactionsQuery())
    try:
        page = transactions.list_transactions(
            call.user_id,
            acct_id=query["account_id"],
            category_id=query["category_id"],
            start=query["start_date"],
            end=query["end_date"],
            limit=query["limit"],
            cursor=query["cursor"],
        )
    except InvalidRequestError as exc:
        # The only caller-controlled part of the query DynamoDB can refuse is the cursor's position.
        raise ValidationError("the cursor does not belong to this query", {"fields": {"cursor": ["invalid"]}}) from exc
    return ok(responses.TransactionPageOut().dump(page))


def get_transaction(request: Request, user_id: str, txn_id: str) -> Response:
    """One transaction by id, removed or not."""
    call = Call.for_user(request, requests.TransactionPath(), user_id=user_id, txn_id=txn_id)
    txn = transactions.get_transaction(call.path["txn_id"])
    if txn is None or txn.user_id != call.user_id:
        raise TransactionNotFoundError("transaction not found")
    return ok(responses.TransactionOut().dump(txn))


def get_summary(request: Request, user_id: str) -> Response:
    """Summary rows as last written: ``months`` months ending at ``month`` (default: this month)."""
    call = Call.for_user(request, requests.UserPath(), user_id=user_id)
    query = call.query(requests.SummaryQuery())
    last = query["month"] or utcnow().strftime("%Y-%m")
    found = summaries.list_summaries(
        call.user_id,
        months_before(last, query["months"] - 1),
        last,
        granularity=query["granularity"],
        acct_id=query["account_id"],
        category_id=query["category_id"],
    )
    return ok(responses.summaries_body(found))


def months_before(month: str, count: int) -> str:
    """The ``YYYY-MM`` month ``count`` months before ``month``."""
    year, number = (int(part) for part in month.split("-"))
    index = max(0, year * 12 + number - 1 - count)  # never before year 0000
    return f"{index // 12:04d}-{index % 12 + 1:02d}"
