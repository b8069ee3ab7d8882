"""Rows in the formats the system this service replaces wrote, read through the API.

The service takes over tables that system wrote. Its rows carry the documented keys, the
documented ``type`` of each entity (a LIABILITY row is typed CREDIT, MORTGAGE or STUDENT)
and only the attributes documented for it: identifiers that a row does not repeat as
attributes live only in its keys, a transaction may carry the legacy
``txn_amount_string``, an account may predate the reported flags, timestamps have
nanoseconds. Each row here is written raw, exactly so, and read back over HTTP (every
response is checked against the OpenAPI document by :class:`Api`).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from chalicelib.data import items, tables
from tests.api.conftest import Api
from tests.factories import uid

pytestmark = pytest.mark.integration


def put(table: Any, *rows: dict[str, Any]) -> None:
    for row in rows:
        table.put_item(Item=row)


def item_keys(user_id: str, item_id: str) -> dict[str, str]:
    """An ITEM row's keys and type."""
    return {
        "PK": f"USERS#{user_id}",
        "SK": f"ITEMS#{item_id}",
        "type": "ITEM",
        "GSI1PK": f"ITEMS#{item_id}",
        "GSI1SK": f"USERS#{user_id}",
    }


def test_every_entity_the_api_serves_reads_in_the_taken_over_format(api: Api, user_id: str) -> None:
    item_id, acct, card, loan, school = uid("item"), uid("acct"), uid("acct"), uid("acct"), uid("acct")
    txn, idv, category_id, institution_id = uid("txn"), uid("idv"), uid("cat"), uid("ins")
    date_sk = f"DATE#2026-10-03#TXN#{txn}"
    put(
        tables.transactions(),
        {  # a refund stored before 07/24: the sign lives only in txn_amount_string
            "PK": f"TXN#{txn}",
            "SK": f"TXN#{txn}",
            "type": "TRANSACTION",
            **{f"GSI{n}SK": date_sk for n in (1, 2, 3, 4)},
            "GSI1PK": f"ACCOUNTS#{user_id}",
            "GSI2PK": f"ACCOUNTS#{user_id}#CATEGORY#13005043",
            "GSI3PK": f"ACCOUNTS#{user_id}#ACCOUNT#{acct}",
            "GSI4PK": f"ACCOUNTS#{user_id}#ACCOUNT#{acct}#CATEGORY#13005043",
            "user_id": user_id,
            "acct_id": acct,
            "txn_id": txn,
            "txn_amount": Decimal(1250),
            "txn_amount_string": "-12.50",
            "txn_date": "2026-10-03",
            "txn_name": "Refund",
            "txn_pending": False,
            "txn_category_id": "13005043",
            "txn_iso_cc": "USD",
        },
        {  # an account from before the reported flags; ids only in its keys
            "PK": f"ACCOUNTS#{user_id}",
            "SK": f"ACCOUNT#{acct}",
            "type": "ACCOUNT",
            "acct_balances": {
                "bal_available": Decimal(0),
                "bal_available_string": "0.00",
                "bal_current": Decimal(4200),
                "bal_current_string": "42.00",
                "calc_bal_available": Decimal(0),
                "calc_bal_available_string": "0.00",
            },
        },
        {  # a day of balance history; account and day only in the sort key
            "PK": f"BALANCE#{user_id}",
            "SK": f"ACCOUNT#{acct}#2026-10-03",
            "type": "BALANCE",
            "acct_balances": {"bal_available": Decimal(100), "bal_current": Decimal(4200)},
            "bal_available_reported": True,
            "bal_current_reported": True,
        },
        {
            "PK": "CATEGORIES",
            "SK": f"HIERARCHY#Taken Over#{category_id}",
            "type": "CATEGORY",
            "GSI1PK": f"CATEGORY#{category_id}",
            "GSI1SK": f"CATEGORY#{category_id}",
        },
        {
            "PK": f"SUMMARY#{user_id}",
            "SK": f"DATE#2026-10#ACCOUNT#{acct}",
            "type": "SUMMARY",
            "total_amount": Decimal(-1250),
            "added_txn_ids": {txn},
        },
    )
    put(
        tables.plaid(),
        {
            **item_keys(user_id, item_id),
            "item_status": "ACTIVE",
            "item_source": "PREQUAL",
            "item_processor_tokens": [{"processor": "dwolla", "processor_token": "p-1", "account_id": acct}],
        },
        *(
            {
                "PK": f"LIABILITIES#{user_id}",
                "SK": f"ITEM#{item_id}#ACCOUNT#{account}",
                "type": kind,
                "GSI1PK": f"LIABILITIES#{account}",
                "GSI1SK": f"USERS#{user_id}",
            }
            for account, kind in ((card, "CREDIT"), (loan, "MORTGAGE"), (school, "STUDENT"))
        ),
        {
            "PK": f"LIABILITY_HISTORY#{user_id}",
            "SK": f"ITEM#{item_id}#ACCOUNT#{card}#TIMESTAMP#2026-10-03T04:05:06.123456789Z",
            "type": "CREDIT",
            "GSI1PK": f"LIABILITY_HISTORY#{card}",
            "GSI1SK": "TIMESTAMP#2026-10-03T04:05:06.123456789Z",
            "GSI2PK": f"LIABILITY_HISTORY#{user_id}",
            "GSI2SK": "TIMESTAMP#2026-10-03T04:05:06.123456789Z",
        },
        {  # a KYC session with its KYC and watchlist statuses and steps
            "PK": f"USERS#{user_id}",
            "SK": f"IDENTITY_VERIFICATION#{idv}",
            "type": "IDENTITY_VERIFICATION",
            "GSI1PK": f"USERS#{user_id}",
            "GSI1SK": f"IDENTITY_VERIFICATION#2026-10-01T10:00:00.987654321Z#{idv}",
            "idv_kyc_status": "success",
            "idv_watchlist_status": "pending_review",
            "idv_steps": {"kyc_check": "success", "watchlist_screening": "pending_review"},
        },
    )
    put(
        tables.institutions(),
        {
            "institution_id": institution_id,
            "name": "Taken Over Bank",
            "products": ["transactions", "auth"],
            "country_codes": ["US"],
            "url": "https://bank.example",
            "primary_color": "#004966",
            "logo": None,
            "routing_numbers": ["011000138"],
            "dtc_numbers": [],
            "oauth": False,
        },
    )
    put(
        tables.account_changes(),
        {  # written in Go: nanoseconds, no kind of change recorded
            "user_id": user_id,
            "change_date": "2026-10-02T08:00:00.123456789Z",
            "item_id": item_id,
            "account_id": acct,
            "is_override": False,
        },
    )
    user = {"user_id": user_id}

    # THEN the transaction is listed and read with its corrected (negative) amount
    listed = api.get("/v1/users/{user_id}/transactions", path=user).json()["transactions"]
    assert [(t["txn_id"], t["amount"], t["account_id"]) for t in listed] == [(txn, -1250, acct)]
    one = api.get("/v1/users/{user_id}/transactions/{txn_id}", path={**user, "txn_id": txn}).json()
    assert (one["amount"], one["date"], one["removed"]) == (-1250, "2026-10-03", False)
    # AND the summary, with its month and account from the key
    summary = api.get("/v1/users/{user_id}/transactions/summary", path=user, params={"month": "2026-10"}).json()[
        "summaries"
    ]
    assert [(s["month"], s["account_id"], s["total_amount"], s["added_txn_ids"]) for s in summary] == [
        ("2026-10", acct, -1250, [txn])
    ]
    # AND the account, its flags unknown (null), and its balance history
    [account] = api.get("/v1/users/{user_id}/accounts", path=user).json()["accounts"]
    assert (account["account_id"], account["balances"]["current"], account["available_reported"]) == (
        acct,
        4200,
        None,
    )
    history = api.get("/v1/users/{user_id}/accounts/{account_id}/balances", path={**user, "account_id": acct})
    assert [(b["date"], b["balances"]["available"]) for b in history.json()["balances"]] == [("2026-10-03", 100)]
    # AND the item, ids from its keys
    [item] = api.get("/v1/users/{user_id}/items", path=user).json()["items"]
    assert (item["item_id"], item["status"], item["source"]) == (item_id, "ACTIVE", "PREQUAL")
    # AND the liabilities typed CREDIT, MORTGAGE and STUDENT, current and history
    current = api.get("/v1/users/{user_id}/liabilities", path=user).json()["liabilities"]
    assert {(li["account_id"], li["liability_type"]) for li in current} == {
        (card, "CREDIT"),
        (loan, "MORTGAGE"),
        (school, "STUDENT"),
    }
    assert {li["item_id"] for li in current} == {item_id}
    past = api.get("/v1/users/{user_id}/liabilities/history", path=user).json()["liabilities"]
    assert [(li["account_id"], li["liability_type"], li["updated_at"]) for li in past] == [
        (card, "CREDIT", "2026-10-03T04:05:06.123456Z")
    ]
    # AND the KYC session, its status the KYC status it records
    session = api.get("/v1/users/{user_id}/identity-verification", path=user).json()
    assert (session["idv_id"], session["status"], session["watchlist_status"], session["created_at"]) == (
        idv,
        "success",
        "pending_review",
        "2026-10-01T10:00:00Z",
    )
    # AND the category, the institution and the item history
    categories = api.get("/v1/categories").json()["categories"]
    assert {"category_id": category_id, "hierarchy": ["Taken Over", category_id], "group": None} in categories
    bank = api.get("/v1/institutions/{institution_id}", path={"institution_id": institution_id}).json()
    assert (bank["name"], bank["products"]) == ("Taken Over Bank", ["transactions", "auth"])
    [change] = api.get("/v1/users/{user_id}/items/history", path=user).json()["changes"]
    assert (change["item_id"], change["change_type"], change["previous_main_account_id"]) == (
        item_id,
        "UNKNOWN",
        acct,
    )
    assert change["change_date"] == "2026-10-02T08:00:00.123456Z"


def test_items_of_every_removal_reason_are_read(api: Api, user_id: str) -> None:
    # GIVEN removed items with each reason the previous system wrote (and none), and one with the
    # reason this service adds for the re-link rule
    reasons = [
        "MX",
        "item expired, user did not complete prequal",
        "item expired, user did not complete reactivation",
        None,
        items.REMOVED_REASON_RELINKED,
    ]
    stored = {uid("item"): reason for reason in reasons}
    put(
        tables.plaid(),
        *(
            {**item_keys(user_id, item_id), "item_status": "REMOVED"}
            | ({"item_removed_reason": reason} if reason else {})
            for item_id, reason in stored.items()
        ),
    )
    # WHEN the user's items are listed THEN every one is, with its reason as stored
    listed = api.get("/v1/users/{user_id}/items", path={"user_id": user_id}).json()["items"]
    assert {i["item_id"]: (i["status"], i["removed_reason"]) for i in listed} == {
        item_id: ("REMOVED", reason) for item_id, reason in stored.items()
    }
