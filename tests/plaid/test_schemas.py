"""The hot path's marshmallow schemas: accept what the SDK accepts, refuse what it refuses."""

from __future__ import annotations

from typing import Any

import pytest
from marshmallow import ValidationError

from chalicelib.plaid.client import PlaidClient
from chalicelib.plaid.errors import PlaidResponseError
from chalicelib.plaid.schemas import INSTITUTIONS_PAGE, TRANSACTIONS_PAGE, flatten_errors, load_page
from ops.fakes.plaid import FakePlaid
from ops.fakes.plaid.api import transactions_get
from tests.plaid.factories import account, history, new_item, transaction, transactions_page


def test_a_minimal_page_with_nulls_loads_unchanged() -> None:
    # GIVEN a page whose nullable keys are present and null, plus a key the schema does not know
    page = transactions_page(transactions=[transaction(future_field={"x": 1})])
    # WHEN loaded
    loaded = load_page(TRANSACTIONS_PAGE, page)
    # THEN it is accepted and stays JSON-shaped, unknown keys included
    assert loaded == page


def test_a_fake_page_loads(fake_plaid: FakePlaid) -> None:
    # GIVEN a real page from the fake (all optional fields present)
    item = new_item(fake_plaid, transaction_count=50)
    start, end = history(item)
    page = transactions_get(
        fake_plaid.state,
        {
            "access_token": item.access_token,
            "start_date": start.isoformat(),
            "end_date": end.isoformat(),
            "options": {"count": 500, "include_personal_finance_category": True},
        },
    )
    page["request_id"] = "req"
    # WHEN loaded THEN nothing is refused
    assert load_page(TRANSACTIONS_PAGE, page)["total_transactions"] == 50


INVALID_TRANSACTIONS: list[tuple[str, dict[str, Any], str]] = [
    ("amount as string", {"amount": "12.50"}, "transactions.0.amount"),
    ("amount NaN", {"amount": float("nan")}, "transactions.0.amount"),
    ("pending as string", {"pending": "true"}, "transactions.0.pending"),
    ("name null", {"name": None}, "transactions.0.name"),
    ("bad date", {"date": "05/01/2024"}, "transactions.0.date"),
    ("bad datetime", {"datetime": "yesterday"}, "transactions.0.datetime"),
    ("empty id", {"transaction_id": ""}, "transactions.0.transaction_id"),
    ("category not a list", {"category": "Food"}, "transactions.0.category"),
]


@pytest.mark.parametrize(("case", "change", "path"), INVALID_TRANSACTIONS, ids=[c[0] for c in INVALID_TRANSACTIONS])
def test_mistyped_transaction_fields_are_refused(case: str, change: dict[str, Any], path: str) -> None:
    # GIVEN a page with one mistyped field
    page = transactions_page(transactions=[transaction(**change)])
    # WHEN loaded THEN it is refused, naming the field
    with pytest.raises(ValidationError) as raised:
        load_page(TRANSACTIONS_PAGE, page)
    assert any(line.startswith(path) for line in flatten_errors(raised.value.messages))


@pytest.mark.parametrize(
    "key",
    [
        "transaction_id",
        "account_id",
        "amount",
        "date",
        "pending",
        "payment_channel",
        "iso_currency_code",
        "unofficial_currency_code",
        "authorized_date",
        "authorized_datetime",
        "datetime",
        "transaction_code",
    ],
)
def test_every_sdk_required_transaction_key_must_be_present(key: str) -> None:
    # GIVEN a transaction missing one key the SDK requires (even the nullable ones)
    txn = transaction()
    del txn[key]
    # WHEN loaded THEN it is refused
    with pytest.raises(ValidationError):
        load_page(TRANSACTIONS_PAGE, transactions_page(transactions=[txn]))


@pytest.mark.parametrize("key", ["available", "current", "limit", "iso_currency_code", "unofficial_currency_code"])
def test_every_balance_key_must_be_present(key: str) -> None:
    acc = account()
    del acc["balances"][key]
    with pytest.raises(ValidationError):
        load_page(TRANSACTIONS_PAGE, transactions_page(accounts=[acc]))


@pytest.mark.parametrize("key", ["accounts", "transactions", "total_transactions", "item", "request_id"])
def test_page_level_keys_are_required(key: str) -> None:
    page = transactions_page()
    del page[key]
    with pytest.raises(ValidationError):
        load_page(TRANSACTIONS_PAGE, page)


def test_a_json_list_is_not_a_page() -> None:
    with pytest.raises(ValidationError):
        load_page(TRANSACTIONS_PAGE, [transactions_page()])


def test_error_report_is_bounded() -> None:
    # GIVEN 500 bad transactions WHEN the errors are flattened THEN the report stays short
    page = transactions_page(transactions=[transaction(amount="1")] * 500)
    with pytest.raises(ValidationError) as raised:
        load_page(TRANSACTIONS_PAGE, page)
    assert len(flatten_errors(raised.value.messages)) == 20


def test_institution_without_connection_availability_is_accepted() -> None:
    # GIVEN an institution without the newer connection_availability field
    institution = {
        "institution_id": "ins_1",
        "name": "Bank",
        "products": ["transactions"],
        "country_codes": ["US"],
        "routing_numbers": [],
        "oauth": False,
    }
    # WHEN loaded THEN the crawl is not stopped by a field nothing reads
    page = load_page(INSTITUTIONS_PAGE, {"institutions": [institution], "total": 1, "request_id": "r"})
    assert page["institutions"][0]["institution_id"] == "ins_1"
    # AND a mistyped oauth is still refused
    with pytest.raises(ValidationError):
        load_page(INSTITUTIONS_PAGE, {"institutions": [{**institution, "oauth": "no"}], "total": 1, "request_id": "r"})


# --- through the client: an invalid page becomes a typed error ------------------------------------


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        (transactions_page(transactions=[transaction(amount="12.50")]), "transactions.0.amount"),
        (transactions_page(total_transactions=None), "total_transactions"),
        ("this is not json", "JSONDecodeError"),
        ([1, 2, 3], "not a JSON object"),
    ],
    ids=["string amount", "null total", "not json", "json list"],
)
def test_invalid_transactions_page_raises_response_error(
    body: Any, fragment: str, client: PlaidClient, fake_plaid: FakePlaid
) -> None:
    # GIVEN the fake answers /transactions/get with an invalid 200 body
    item = new_item(fake_plaid, transaction_count=5)
    fake_plaid.respond("/transactions/get", body)
    # WHEN the hot path fetches the page
    with pytest.raises(PlaidResponseError) as raised:
        client.transactions_get(item.access_token, *history(item))
    # THEN a typed, non-retryable response error names the problem
    error = raised.value
    assert error.endpoint == "/transactions/get"
    assert not error.retryable
    assert fragment in str(error) or fragment in str(error.details)


def test_invalid_institutions_page_raises_response_error(client: PlaidClient, fake_plaid: FakePlaid) -> None:
    # GIVEN an institutions page whose total is a string
    fake_plaid.respond("/institutions/get", {"institutions": [], "total": "300", "request_id": "r1"})
    # WHEN fetched THEN a typed response error carries Plaid's request id
    with pytest.raises(PlaidResponseError) as raised:
        client.institutions_get()
    assert raised.value.request_id == "r1"
    assert raised.value.details["errors"] == ["total: Not a JSON integer."]
