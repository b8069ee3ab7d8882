"""Transactions over HTTP: pagination, filters, ranges, removed rows, legacy amounts, summaries."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest

from chalicelib.data import summaries, transactions
from chalicelib.data.summaries import Summary
from tests.api.conftest import Api, error_code
from tests.api.factories import NOW, a_transaction, store_transactions
from tests.factories import uid

pytestmark = pytest.mark.integration

LIST = "/v1/users/{user_id}/transactions"
ONE = "/v1/users/{user_id}/transactions/{txn_id}"
SUMMARY = "/v1/users/{user_id}/transactions/summary"


def all_pages(api: Api, user_id: str, **params: Any) -> list[list[dict[str, Any]]]:
    pages: list[list[dict[str, Any]]] = []
    cursor = None
    while True:
        query = {**params, **({"cursor": cursor} if cursor else {})}
        body = api.get(LIST, path={"user_id": user_id}, params=query).json()
        pages.append(body["transactions"])
        cursor = body["next_cursor"]
        if cursor is None:
            return pages


def test_pages_cover_every_transaction_newest_first_without_repeats(api: Api, user_id: str) -> None:
    # GIVEN 25 transactions on distinct days
    acct = uid("acct")
    txns = [a_transaction(user_id, acct, date(2026, 10, 1) + timedelta(days=n)) for n in range(25)]
    store_transactions(txns)
    # WHEN they are read 10 at a time
    pages = all_pages(api, user_id, limit=10)
    # THEN three pages hold all 25, newest first, and no cursor exposes a DynamoDB key
    assert [len(p) for p in pages] == [10, 10, 5]
    listed = [t["txn_id"] for p in pages for t in p]
    assert listed == [t.txn_id for t in sorted(txns, key=lambda t: t.txn_date, reverse=True)]
    first = api.get(LIST, path={"user_id": user_id}, params={"limit": 10}).json()
    assert "TXN#" not in first["next_cursor"] and "ACCOUNTS#" not in first["next_cursor"]


def test_filters_use_account_category_and_both(api: Api, user_id: str) -> None:
    # GIVEN transactions on two accounts in two categories
    a, b = uid("acct"), uid("acct")
    day = date(2026, 11, 1)
    rows = {
        (acct, cat): a_transaction(user_id, acct, day, category_id=cat) for acct in (a, b) for cat in ("111", "222")
    }
    store_transactions(list(rows.values()))

    def ids(**params: str) -> set[str]:
        return {t["txn_id"] for t in api.get(LIST, path={"user_id": user_id}, params=params).json()["transactions"]}

    # WHEN / THEN each filter selects exactly its rows (GSI1-GSI4)
    assert ids() == {t.txn_id for t in rows.values()}
    assert ids(account_id=a) == {rows[(a, "111")].txn_id, rows[(a, "222")].txn_id}
    assert ids(category_id="222") == {rows[(a, "222")].txn_id, rows[(b, "222")].txn_id}
    assert ids(account_id=b, category_id="111") == {rows[(b, "111")].txn_id}


def test_date_range_is_inclusive_and_validated(api: Api, user_id: str) -> None:
    # GIVEN one transaction per day over ten days
    acct = uid("acct")
    txns = [a_transaction(user_id, acct, date(2026, 9, 1) + timedelta(days=n)) for n in range(10)]
    store_transactions(txns)
    # WHEN asked for the 3rd to the 5th
    body = api.get(LIST, path={"user_id": user_id}, params={"start_date": "2026-09-03", "end_date": "2026-09-05"})
    # THEN exactly those days come back, newest first
    assert [t["date"] for t in body.json()["transactions"]] == ["2026-09-05", "2026-09-04", "2026-09-03"]
    # AND an inverted range or a malformed date is a 400
    inverted = api.get(LIST, path={"user_id": user_id}, params={"start_date": "2026-09-05", "end_date": "2026-09-03"})
    assert inverted.status_code == 400 and error_code(inverted) == "bad_request"
    assert api.get(LIST, path={"user_id": user_id}, params={"start_date": "20260903"}).status_code == 400


def test_removed_transactions_are_not_listed_but_are_readable_by_id(api: Api, user_id: str) -> None:
    # GIVEN two transactions, one then removed by the refiner
    acct = uid("acct")
    kept, gone = (a_transaction(user_id, acct, date(2026, 11, 2)) for _ in range(2))
    store_transactions([kept, gone])
    assert transactions.soft_delete(gone.txn_id, user_id, "any-item") is transactions.SoftDelete.REMOVED
    # WHEN the user lists and reads them
    listed = api.get(LIST, path={"user_id": user_id}).json()["transactions"]
    read = api.get(ONE, path={"user_id": user_id, "txn_id": gone.txn_id})
    # THEN the list skips the removed one and the point read returns it, marked removed
    assert [t["txn_id"] for t in listed] == [kept.txn_id]
    assert read.status_code == 200
    assert read.json()["removed"] is True and read.json()["txn_id"] == gone.txn_id


def test_legacy_negative_amounts_are_corrected(api: Api, user_id: str) -> None:
    # GIVEN a row stored before 07/24 whose txn_amount lost its sign; txn_amount_string kept it
    txn = a_transaction(user_id, uid("acct"), date(2024, 7, 1), amount=2500)
    store_transactions([txn], extra={"txn_amount_string": "-25.00"})
    # WHEN it is read, listed or not
    read = api.get(ONE, path={"user_id": user_id, "txn_id": txn.txn_id}).json()
    listed = api.get(LIST, path={"user_id": user_id}).json()["transactions"]
    # THEN the amount is the corrected one
    assert read["amount"] == -2500
    assert [t["amount"] for t in listed] == [-2500]


def test_another_users_transaction_is_not_found(api: Api, user_id: str) -> None:
    # GIVEN a transaction of another user
    other = a_transaction(uid("user"), uid("acct"), date(2026, 11, 3))
    store_transactions([other])
    # WHEN this user asks for it under their own id
    response = api.get(ONE, path={"user_id": user_id, "txn_id": other.txn_id})
    # THEN it does not exist for them
    assert response.status_code == 404 and error_code(response) == "not_found"


def test_a_forged_or_malformed_cursor_is_a_400(api: Api, user_id: str) -> None:
    # GIVEN / WHEN cursors that are not ours
    forged = api.get(LIST, path={"user_id": user_id}, params={"cursor": "bm90LWEtY3Vyc29y"})
    malformed = api.get(LIST, path={"user_id": user_id}, params={"cursor": "a#b"})
    # THEN both are refused as bad requests
    assert forged.status_code == 400 and error_code(forged) == "bad_request"
    assert malformed.status_code == 400


def test_summary_rows_of_the_previous_writer_are_returned_as_written_at_each_granularity(
    api: Api, user_id: str
) -> None:
    # GIVEN summary rows as the previous writer left them, for October and November at all four granularities
    acct = uid("acct")
    rows = [
        Summary(user_id, month, 10_000, added_txn_ids=frozenset({"t1", "t2"})) for month in ("2026-10", "2026-11")
    ] + [
        Summary(user_id, "2026-11", 4_000, acct_id=acct),
        Summary(user_id, "2026-11", 1_500, acct_id=acct, category_id="13005043"),
        Summary(user_id, "2026-11", 2_500, category_id="13005043", removed_txn_ids=frozenset({"t9"})),
    ]
    summaries.put_summaries(rows, NOW)
    path = {"user_id": user_id}
    # WHEN November is read, then narrowed, then two months are read
    november = api.get(SUMMARY, path=path, params={"month": "2026-11"}).json()["summaries"]
    by_category = api.get(SUMMARY, path=path, params={"month": "2026-11", "granularity": "CATEGORY"}).json()
    both = api.get(SUMMARY, path=path, params={"month": "2026-11", "months": 2, "granularity": "MONTH"}).json()
    # THEN each answer is exactly the stored rows
    assert sorted(s["granularity"] for s in november) == ["ACCOUNT", "ACCOUNT_CATEGORY", "CATEGORY", "MONTH"]
    assert by_category["summaries"] == [
        {
            "month": "2026-11",
            "granularity": "CATEGORY",
            "account_id": None,
            "category_id": "13005043",
            "total_amount": 2500,
            "outflow_amount": None,
            "inflow_amount": None,
            "txn_count": None,
            "added_txn_ids": [],
            "removed_txn_ids": ["t9"],
            "updated_at": by_category["summaries"][0]["updated_at"],
        }
    ]
    assert [(s["month"], s["total_amount"], s["added_txn_ids"]) for s in both["summaries"]] == [
        ("2026-10", 10_000, ["t1", "t2"]),
        ("2026-11", 10_000, ["t1", "t2"]),
    ]


def test_summary_of_refined_transactions_counts_posted_money_out_and_in(api: Api, user_id: str) -> None:
    # GIVEN a page refined with a purchase, a refund, pay, and a pending purchase
    from chalicelib.pipeline.refiner import refine_records
    from tests.factories import kinesis_inputs, page_record, plaid_account, plaid_transaction, transactions_response

    account = plaid_account()
    acct = account["account_id"]
    txns = [
        plaid_transaction(acct, date="2026-11-02", amount=25.0),
        plaid_transaction(acct, date="2026-11-03", amount=-5.0),
        plaid_transaction(acct, date="2026-11-13", amount=-1200.0, category_id="21009000"),
        plaid_transaction(acct, date="2026-11-19", amount=8.0, pending=True),
    ]
    record = page_record(user_id, "item", transactions_response([account], txns))
    assert refine_records(kinesis_inputs(record), now=NOW) == {"batchItemFailures": []}
    # WHEN November's month row is read
    [month] = api.get(SUMMARY, path={"user_id": user_id}, params={"month": "2026-11", "granularity": "MONTH"}).json()[
        "summaries"
    ]
    # THEN it counts the three posted transactions, money out and in apart
    assert (month["outflow_amount"], month["inflow_amount"], month["total_amount"], month["txn_count"]) == (
        2500,
        120500,
        2500 - 120500,
        3,
    )
    assert month["added_txn_ids"] == sorted(t["transaction_id"] for t in txns[:3])
