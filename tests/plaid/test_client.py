"""The Plaid client layer against the fake Plaid over real HTTP."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any, cast

import pytest
import urllib3.exceptions

from chalicelib.plaid.client import LINK_DAYS_REQUESTED, PlaidClient, get_plaid, reset_plaid
from chalicelib.plaid.config import PlaidTimeouts
from chalicelib.plaid.errors import (
    PlaidConnectionError,
    PlaidError,
    PlaidInstitutionError,
    PlaidInvalidInputError,
    PlaidItemError,
    PlaidItemNotFoundError,
    PlaidProductNotReadyError,
    PlaidRateLimitError,
    PlaidResponseError,
    PlaidServerError,
    PlaidSyncMutationError,
    PlaidTimeoutError,
)
from chalicelib.plaid.translate import from_transport_error
from chalicelib.settings import get_settings, reset_settings
from ops.fakes.plaid import DEFAULT_CLIENT_ID, FakeItem, FakePlaid
from tests.plaid.factories import ROOT, TEST_TIMEOUTS, history, new_item, today, unreachable_client


def _roundtrips_as_json(value: Any) -> bool:
    return bool(json.loads(json.dumps(value)) == value)


# --- construction -------------------------------------------------------------------------------


def test_importing_and_building_the_client_does_not_import_the_sdk() -> None:
    # GIVEN a fresh interpreter WHEN the package is imported and get_plaid() called
    code = (
        "import sys; import chalicelib.plaid.client as p; import chalicelib.plaid.webhook_verification;"
        "c = p.get_plaid(); assert not [m for m in sys.modules if m == 'plaid' or m.startswith('plaid.')];"
        "print(type(c).__name__)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False)
    # THEN the SDK is still not imported (cold starts of handlers that never call Plaid)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "PlaidClient"


def test_get_plaid_reads_settings_and_reset_rereads(plaid_env: FakePlaid, monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN settings pointing at the fake
    client = get_plaid()
    # THEN the client uses them, once per process
    assert client.base_url == plaid_env.url
    assert client.timeouts == PlaidTimeouts(connect=2.0, read=2.0, balance_read=45.0)
    assert get_plaid() is client
    # WHEN the environment changes and the client is reset
    monkeypatch.setenv("PLAID_TIMEOUT_SECONDS", "7")
    reset_settings()
    reset_plaid()
    # THEN the new settings apply
    assert get_plaid().timeouts.read == 7.0
    assert get_settings().plaid_timeout_seconds == 7.0


def test_repr_never_shows_the_secret() -> None:
    client = PlaidClient("http://127.0.0.1:1", "client-xyz", "very-secret-value")
    assert "very-secret-value" not in repr(client)
    assert "client-xyz" not in repr(client)


# --- every call returns JSON-shaped dicts ----------------------------------------------------------


def _calls(fake: FakePlaid, item: FakeItem) -> dict[str, Callable[[PlaidClient], dict[str, Any]]]:
    idv = fake.create_identity_verification("user-9")
    screening = fake.create_screening("user-9")
    return {
        "item_get": lambda c: c.item_get(item.access_token),
        "transactions_get": lambda c: c.transactions_get(item.access_token, *history(item), count=50),
        "transactions_sync": lambda c: c.transactions_sync(item.access_token, count=50),
        "accounts_get": lambda c: c.accounts_get(item.access_token),
        "accounts_balance_get": lambda c: c.accounts_balance_get(item.access_token),
        "liabilities_get": lambda c: c.liabilities_get(item.access_token),
        "institutions_get": lambda c: c.institutions_get(count=20),
        "identity_verification_get": lambda c: c.identity_verification_get(idv["id"]),
        "watchlist_screening_individual_get": lambda c: c.watchlist_screening_individual_get(screening["id"]),
        "webhook_verification_key_get": lambda c: c.webhook_verification_key_get(fake.current_key.kid),
        "link_token_create": lambda c: c.link_token_create(client_user_id="user-9", webhook="https://x.test/hook"),
        "processor_token_create": lambda c: c.processor_token_create(
            item.access_token, item.account_id("checking"), "dwolla"
        ),
        "session_token_create": lambda c: c.session_token_create(template_id="tpl", client_user_id="user-9"),
    }


def test_every_call_returns_a_json_shaped_dict(client: PlaidClient, fake_plaid: FakePlaid) -> None:
    # GIVEN an Item and KYC sessions at the fake
    item = new_item(fake_plaid)
    for name, call in _calls(fake_plaid, item).items():
        # WHEN each call is made
        result = call(client)
        # THEN it is a plain dict that survives JSON (no SDK models, dates as strings)
        assert isinstance(result, dict), name
        assert _roundtrips_as_json(result), name
        assert result["request_id"], name


def test_item_get_dict_carries_status_and_error(client: PlaidClient, fake_plaid: FakePlaid) -> None:
    # GIVEN an Item in ITEM_LOGIN_REQUIRED
    item = new_item(fake_plaid)
    fake_plaid.set_item_error(item.access_token, "ITEM_LOGIN_REQUIRED")
    # WHEN refreshed
    result = client.item_get(item.access_token)
    # THEN the error code, products and update times are there as JSON values
    assert result["item"]["error"]["error_code"] == "ITEM_LOGIN_REQUIRED"
    assert result["item"]["billed_products"] == ["auth", "liabilities", "transactions"]
    assert isinstance(result["status"]["transactions"]["last_successful_update"], str)


def test_layer_session_results_come_back_with_items(client: PlaidClient, fake_plaid: FakePlaid) -> None:
    # GIVEN a Layer session the user completed with one Item
    session = client.session_token_create(template_id="tpl", client_user_id="user-7", webhook="https://x.test/h")
    public_token = fake_plaid.complete_layer_session(session["link"]["link_token"], transaction_count=5)
    # WHEN the results are read
    result = client.user_account_session_get(public_token)
    # THEN the Item's access token and the identity are returned
    assert len(result["items"]) == 1
    assert result["items"][0]["access_token"].startswith("access-")
    assert result["identity"]["name"]["first_name"]


def test_public_token_exchange_then_remove(client: PlaidClient, fake_plaid: FakePlaid) -> None:
    # GIVEN a fresh public token
    item = new_item(fake_plaid)
    # WHEN exchanged
    exchanged = client.item_public_token_exchange(item.public_token)
    assert (exchanged["access_token"], exchanged["item_id"]) == (item.access_token, item.item_id)
    # THEN it cannot be exchanged twice
    with pytest.raises(PlaidInvalidInputError) as raised:
        client.item_public_token_exchange(item.public_token)
    assert raised.value.error_code == "INVALID_PUBLIC_TOKEN"
    # AND once the Item is removed, removing again says ITEM_NOT_FOUND (what the feeder tolerates)
    client.item_remove(item.access_token, reason_code="OTHER", reason_note="user left")
    with pytest.raises(PlaidItemNotFoundError) as gone:
        client.item_remove(item.access_token)
    assert gone.value.error_code == "ITEM_NOT_FOUND"
    assert fake_plaid.calls("/item/remove")[0].body["reason_code"] == "OTHER"


# --- what the service asks Plaid -------------------------------------------------------------------


def test_transactions_pages_cover_the_window_exactly_once(client: PlaidClient, fake_plaid: FakePlaid) -> None:
    # GIVEN an Item with 1,200 transactions
    item = new_item(fake_plaid, transaction_count=1200)
    # WHEN paged 500 at a time until offset reaches total
    seen: list[str] = []
    offset, total = 0, None
    while total is None or offset < total:
        page = client.transactions_get(item.access_token, *history(item), offset=offset)
        total = page["total_transactions"]
        seen.extend(t["transaction_id"] for t in page["transactions"])
        offset += len(page["transactions"])
    # THEN every transaction came exactly once, in three calls
    assert total == 1200
    assert len(seen) == len(set(seen)) == 1200
    calls = fake_plaid.calls("/transactions/get")
    assert [c.body["options"]["offset"] for c in calls] == [0, 500, 1000]
    # AND each request asked for 500 with categories and original descriptions, without credentials
    options = calls[0].body["options"]
    assert options == {
        "count": 500,
        "offset": 0,
        "include_personal_finance_category": True,
        "include_original_description": True,
    }
    assert "secret" not in calls[0].body and "client_id" not in calls[0].body
    assert calls[0].body["start_date"] == history(item)[0].isoformat()


def test_transactions_page_is_passed_through_raw(client: PlaidClient, fake_plaid: FakePlaid) -> None:
    # GIVEN an Item WHEN a 14-day window is fetched
    item = new_item(fake_plaid, transaction_count=300)
    end = item.today
    start = end - timedelta(days=14)
    page = client.transactions_get(item.access_token, start, end, account_ids=[item.account_id("checking")])
    # THEN only that window and account come back, exactly as Plaid sent them
    assert all(start.isoformat() <= t["date"] <= end.isoformat() for t in page["transactions"])
    assert {t["account_id"] for t in page["transactions"]} <= {item.account_id("checking")}
    assert all(t["personal_finance_category"]["primary"] for t in page["transactions"])
    assert all(isinstance(t["original_description"], str) for t in page["transactions"])
    assert [a["account_id"] for a in page["accounts"]] == [item.account_id("checking")]


def test_sync_pages_carry_every_change_once_and_raw(client: PlaidClient, fake_plaid: FakePlaid) -> None:
    # GIVEN an Item with 1,200 transactions
    item = new_item(fake_plaid, transaction_count=1200)
    # WHEN its history is synced 500 at a time, following next_cursor while has_more
    seen: list[str] = []
    cursor = None
    while True:
        page = client.transactions_sync(item.access_token, cursor=cursor)
        seen.extend(t["transaction_id"] for t in page["added"])
        cursor = page["next_cursor"]
        if not page["has_more"]:
            break
    # THEN every transaction came once, in three calls: the first without a cursor
    assert len(seen) == len(set(seen)) == 1200
    calls = fake_plaid.calls("/transactions/sync")
    assert len(calls) == 3 and "cursor" not in calls[0].body and calls[1].body["cursor"]
    assert calls[0].body["count"] == 500
    assert calls[0].body["options"] == {"include_original_description": True, "include_personal_finance_category": True}
    # AND the page is Plaid's JSON as sent (categories and descriptions included)
    assert all(t["personal_finance_category"]["primary"] for t in page["added"])
    assert all(isinstance(t["original_description"], str) for t in page["added"])
    # AND with nothing new, the next sync is empty and hands back a cursor
    quiet = client.transactions_sync(item.access_token, cursor=cursor)
    assert (quiet["added"], quiet["modified"], quiet["removed"], quiet["has_more"]) == ([], [], [], False)


def test_sync_mutation_is_its_own_typed_error(client: PlaidClient, fake_plaid: FakePlaid) -> None:
    # GIVEN Plaid answers the mutation error for the next sync page
    item = new_item(fake_plaid, transaction_count=5)
    fake_plaid.fail("/transactions/sync", "TRANSACTIONS_SYNC_MUTATION_DURING_PAGINATION")
    # WHEN the page is asked for THEN the error says to restart the loop, and is not retryable as such
    with pytest.raises(PlaidSyncMutationError) as raised:
        client.transactions_sync(item.access_token)
    assert (raised.value.error_type, raised.value.status, raised.value.retryable) == ("TRANSACTIONS_ERROR", 400, False)
    # AND a cursor of another Item is refused as invalid input
    other = new_item(fake_plaid, transaction_count=5)
    cursor = client.transactions_sync(other.access_token)["next_cursor"]
    with pytest.raises(PlaidInvalidInputError) as refused:
        client.transactions_sync(item.access_token, cursor=cursor)
    assert refused.value.error_code == "INVALID_FIELD"


def test_sync_page_that_breaks_the_contract_is_a_response_error(client: PlaidClient, fake_plaid: FakePlaid) -> None:
    # GIVEN a sync page whose has_more is the string "false"
    item = new_item(fake_plaid, transaction_count=5)
    body = {
        "transactions_update_status": "HISTORICAL_UPDATE_COMPLETE",
        "accounts": [],
        "added": [],
        "modified": [],
        "removed": [{"transaction_id": "t1"}],
        "next_cursor": "c",
        "has_more": "false",
        "request_id": "req-9",
    }
    fake_plaid.respond("/transactions/sync", body)
    # WHEN read THEN the schema refuses it with both problems named
    with pytest.raises(PlaidResponseError) as raised:
        client.transactions_sync(item.access_token)
    errors = " ".join(raised.value.details["errors"])
    assert "has_more" in errors and "removed.0.account_id" in errors
    assert raised.value.request_id == "req-9"


def test_link_token_asks_for_180_days_and_update_mode_sends_the_token(
    client: PlaidClient, fake_plaid: FakePlaid
) -> None:
    # GIVEN an Item WHEN a new-Item token and an update-mode token are created
    item = new_item(fake_plaid)
    client.link_token_create(client_user_id="user-1", webhook="https://api.test/v1/plaid")
    client.link_token_create(client_user_id="user-1", access_token=item.access_token)
    new, update = (c.body for c in fake_plaid.calls("/link/token/create"))
    # THEN the new Item asks for 180 days of transactions with the webhook
    assert new["transactions"] == {"days_requested": LINK_DAYS_REQUESTED}
    assert new["products"] == ["transactions"]
    assert new["webhook"] == "https://api.test/v1/plaid"
    assert new["user"] == {"client_user_id": "user-1"}
    # AND update mode sends the access token and no products
    assert update["access_token"] == item.access_token
    assert "products" not in update


def test_liabilities_for_given_accounts(client: PlaidClient, fake_plaid: FakePlaid) -> None:
    item = new_item(fake_plaid)
    result = client.liabilities_get(item.access_token, account_ids=[item.account_id("mortgage")])
    assert result["liabilities"]["credit"] is None
    assert result["liabilities"]["mortgage"][0]["account_id"] == item.account_id("mortgage")
    assert fake_plaid.calls("/liabilities/get")[0].body["options"] == {"account_ids": [item.account_id("mortgage")]}


def test_institutions_page_with_metadata(client: PlaidClient, fake_plaid: FakePlaid) -> None:
    # WHEN the second page of 100 is fetched with optional metadata
    page = client.institutions_get(offset=100, count=100)
    # THEN it holds 100 of 300, with logo, colour and url
    assert page["total"] == 300
    assert len(page["institutions"]) == 100
    assert all(i["logo"] and i["primary_color"].startswith("#") and i["url"] for i in page["institutions"])
    assert fake_plaid.calls("/institutions/get")[0].body == {
        "count": 100,
        "offset": 100,
        "country_codes": ["US"],
        "options": {"include_optional_metadata": True},
    }


def test_request_the_sdk_refuses_is_invalid_input_and_never_sent(client: PlaidClient, fake_plaid: FakePlaid) -> None:
    # GIVEN a page size above Plaid's 500 WHEN requested
    with pytest.raises(PlaidInvalidInputError):
        client.transactions_get("access-local-x", today() - timedelta(days=30), today(), count=501)
    # THEN nothing reached Plaid
    assert fake_plaid.calls() == []


# --- timeouts and transport -------------------------------------------------------------------------


def test_slow_answer_is_a_retryable_timeout(client: PlaidClient, fake_plaid: FakePlaid) -> None:
    # GIVEN /item/get answers after 5 s and the client reads for 0.6 s
    item = new_item(fake_plaid)
    fake_plaid.delay("/item/get", 5.0)
    started = time.monotonic()
    # WHEN called
    with pytest.raises(PlaidTimeoutError) as raised:
        client.item_get(item.access_token)
    # THEN it gives up at its read timeout, long before the answer (with room for a loaded machine),
    # with a retryable typed error
    assert time.monotonic() - started < 4.0
    assert raised.value.retryable
    assert raised.value.endpoint == "/item/get"


def test_slow_raw_page_is_a_timeout_too(client: PlaidClient, fake_plaid: FakePlaid) -> None:
    item = new_item(fake_plaid)
    fake_plaid.delay("/transactions/get", 1.5)
    with pytest.raises(PlaidTimeoutError):
        client.transactions_get(item.access_token, *history(item))


def test_balance_refresh_waits_longer_than_other_calls(client: PlaidClient, fake_plaid: FakePlaid) -> None:
    # GIVEN both /accounts/get and /accounts/balance/get take 1.2 s (read timeout 0.6 s, balance 3 s)
    item = new_item(fake_plaid)
    fake_plaid.delay("/accounts/get", 1.2)
    fake_plaid.delay("/accounts/balance/get", 1.2)
    # WHEN both are called
    with pytest.raises(PlaidTimeoutError):
        client.accounts_get(item.access_token)
    balances = client.accounts_balance_get(item.access_token)
    # THEN only the balance refresh waited long enough
    assert len(balances["accounts"]) == 5


def test_unreachable_plaid_is_a_retryable_connection_error() -> None:
    # GIVEN nothing listens at the configured URL WHEN called
    with pytest.raises(PlaidConnectionError) as raised:
        unreachable_client().item_get("access-local-x")
    # THEN a retryable connection error, not a timeout
    assert not isinstance(raised.value, PlaidTimeoutError)
    assert raised.value.retryable


NO_POOL = cast(Any, None)  # urllib3 only keeps the pool/connection for its message


@pytest.mark.parametrize(
    ("exc", "cls"),
    [
        (urllib3.exceptions.ConnectTimeoutError(None, "connect timed out"), PlaidTimeoutError),
        (urllib3.exceptions.ReadTimeoutError(NO_POOL, "/item/get", "read timed out"), PlaidTimeoutError),
        (
            urllib3.exceptions.MaxRetryError(NO_POOL, "/item/get", urllib3.exceptions.ConnectTimeoutError()),
            PlaidTimeoutError,
        ),
        (TimeoutError("socket timed out"), PlaidTimeoutError),
        (urllib3.exceptions.NewConnectionError(NO_POOL, "refused"), PlaidConnectionError),
        (
            urllib3.exceptions.MaxRetryError(NO_POOL, "/x", urllib3.exceptions.NewConnectionError(NO_POOL, "no")),
            PlaidConnectionError,
        ),
        (urllib3.exceptions.ProtocolError("connection reset"), PlaidConnectionError),
        (ConnectionResetError(), PlaidConnectionError),
    ],
    ids=lambda v: type(v).__name__,
)
def test_transport_failures_translate_to_retryable_errors(exc: BaseException, cls: type[PlaidError]) -> None:
    # GIVEN a transport failure as urllib3 raises it (a connect timeout cannot be provoked locally)
    # WHEN translated THEN timeouts and other connection failures are told apart, both retryable
    error = from_transport_error("/item/get", exc)
    assert type(error) is cls
    assert error.retryable


# --- every injected error maps to its typed error ---------------------------------------------------


ERROR_CASES: list[tuple[str, type[PlaidError], int, str, bool]] = [
    ("ITEM_LOGIN_REQUIRED", PlaidItemError, 400, "ITEM_LOGIN_REQUIRED", False),
    ("NO_ACCOUNTS", PlaidItemError, 400, "NO_ACCOUNTS", False),
    ("ITEM_LOCKED", PlaidItemError, 400, "ITEM_LOCKED", False),
    ("PRODUCT_NOT_READY", PlaidProductNotReadyError, 400, "PRODUCT_NOT_READY", True),
    ("ITEM_NOT_FOUND", PlaidItemNotFoundError, 400, "ITEM_NOT_FOUND", False),
    ("INTERNAL_SERVER_ERROR", PlaidServerError, 500, "INTERNAL_SERVER_ERROR", True),
    ("PLANNED_MAINTENANCE", PlaidServerError, 503, "PLANNED_MAINTENANCE", True),
    ("INSTITUTION_DOWN", PlaidInstitutionError, 400, "INSTITUTION_DOWN", True),
    ("INVALID_FIELD", PlaidInvalidInputError, 400, "INVALID_FIELD", False),
    ("INVALID_ACCESS_TOKEN", PlaidInvalidInputError, 400, "INVALID_ACCESS_TOKEN", False),
]
RATE_LIMIT_CODES = {"transactions_get": "TRANSACTIONS_LIMIT", "accounts_get": "ACCOUNTS_LIMIT"}


def _call(client: PlaidClient, item: FakeItem, path: str) -> None:
    if path == "transactions_get":
        client.transactions_get(item.access_token, *history(item))
    else:
        client.accounts_get(item.access_token)


@pytest.mark.parametrize("path", ["transactions_get", "accounts_get"], ids=["raw", "modelled"])
@pytest.mark.parametrize(("error", "cls", "status", "code", "retryable"), ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_injected_error_becomes_its_typed_error(
    error: str,
    cls: type[PlaidError],
    status: int,
    code: str,
    retryable: bool,
    path: str,
    client: PlaidClient,
    fake_plaid: FakePlaid,
) -> None:
    # GIVEN the next call of the endpoint fails with a Plaid error
    item = new_item(fake_plaid, transaction_count=5)
    endpoint = "/transactions/get" if path == "transactions_get" else "/accounts/get"
    fake_plaid.fail(endpoint, error)
    # WHEN the client makes the call
    with pytest.raises(PlaidError) as raised:
        _call(client, item, path)
    # THEN the typed error carries Plaid's code, type, status and request id
    exc = raised.value
    assert type(exc) is cls
    assert (exc.error_code, exc.status, exc.retryable) == (code, status, retryable)
    assert exc.error_type and exc.request_id and exc.endpoint == endpoint
    # AND the fault was used up: the next call succeeds
    _call(client, item, path)


@pytest.mark.parametrize("path", ["transactions_get", "accounts_get"])
def test_rate_limit_is_retryable_with_the_endpoint_code(path: str, client: PlaidClient, fake_plaid: FakePlaid) -> None:
    item = new_item(fake_plaid, transaction_count=5)
    fake_plaid.fail("/transactions/get" if path == "transactions_get" else "/accounts/get", "RATE_LIMIT_EXCEEDED")
    with pytest.raises(PlaidRateLimitError) as raised:
        _call(client, item, path)
    assert (raised.value.status, raised.value.error_type) == (429, "RATE_LIMIT_EXCEEDED")
    assert raised.value.error_code == RATE_LIMIT_CODES[path]
    assert raised.value.retryable


def test_item_error_state_and_connection_lost(client: PlaidClient, fake_plaid: FakePlaid) -> None:
    # GIVEN an Item whose login broke at the bank
    item = new_item(fake_plaid, transaction_count=5)
    fake_plaid.set_item_error(item.access_token, "ITEM_LOGIN_REQUIRED")
    # WHEN transactions are fetched THEN an item error that only the user can fix
    with pytest.raises(PlaidItemError) as raised:
        client.transactions_get(item.access_token, *history(item))
    assert raised.value.needs_user_action
    assert raised.value.display_message
    # AND once repaired the same call works
    fake_plaid.set_item_error(item.access_token, None)
    assert client.transactions_get(item.access_token, *history(item))["total_transactions"] == 5


def test_not_ready_item_until_ready(client: PlaidClient, fake_plaid: FakePlaid) -> None:
    item = new_item(fake_plaid, transaction_count=5, transactions_ready=False)
    with pytest.raises(PlaidProductNotReadyError):
        client.transactions_get(item.access_token, *history(item))
    fake_plaid.set_transactions_ready(item.access_token)
    assert client.transactions_get(item.access_token, *history(item))["total_transactions"] == 5


def test_fault_bound_to_one_token_leaves_others_alone(client: PlaidClient, fake_plaid: FakePlaid) -> None:
    # GIVEN two Items and a fault for the first only, twice
    first, second = new_item(fake_plaid, transaction_count=5), new_item(fake_plaid, transaction_count=5)
    fake_plaid.fail("/accounts/get", "NO_ACCOUNTS", times=2, access_token=first.access_token)
    # WHEN both are asked THEN only the first fails, exactly twice
    assert client.accounts_get(second.access_token)["accounts"]
    for _ in range(2):
        with pytest.raises(PlaidItemError):
            client.accounts_get(first.access_token)
    assert client.accounts_get(first.access_token)["accounts"]


def test_wrong_secret_is_invalid_api_keys(fake_plaid: FakePlaid) -> None:
    client = PlaidClient(fake_plaid.url, DEFAULT_CLIENT_ID, "wrong-secret", timeouts=TEST_TIMEOUTS)
    with pytest.raises(PlaidInvalidInputError) as raised:
        client.institutions_get()
    assert (raised.value.status, raised.value.error_code) == (401, "INVALID_API_KEYS")


@pytest.mark.parametrize(
    ("status", "body", "cls"),
    [
        (502, "<html>bad gateway</html>", PlaidServerError),
        (429, "", PlaidRateLimitError),
        (418, "{}", PlaidError),
    ],
)
def test_error_without_plaid_body_is_classified_by_status(
    status: int, body: str, cls: type[PlaidError], client: PlaidClient, fake_plaid: FakePlaid
) -> None:
    # GIVEN a proxy-style error with no PlaidError body
    fake_plaid.respond("/item/get", body, status=status)
    # WHEN called THEN the HTTP status decides the class
    with pytest.raises(cls) as raised:
        client.item_get("access-local-x")
    assert type(raised.value) is cls
    assert (raised.value.status, raised.value.error_code) == (status, None)


@pytest.mark.parametrize(
    "body",
    [
        {"item": {"item_id": "x"}, "request_id": "r"},  # required keys missing
        {"item": None, "request_id": "r"},  # null where an object is required
        "not json at all",
    ],
    ids=["missing keys", "null item", "not json"],
)
def test_modelled_call_with_a_bad_body_is_a_response_error(
    body: Any, client: PlaidClient, fake_plaid: FakePlaid
) -> None:
    # GIVEN /item/get answers 200 with a body the SDK's models refuse
    fake_plaid.respond("/item/get", body)
    # WHEN called THEN a typed, non-retryable response error (not a bare TypeError)
    with pytest.raises(PlaidResponseError) as raised:
        client.item_get("access-local-x")
    assert not raised.value.retryable
    assert raised.value.details["exception"]


def test_failures_are_logged_without_tokens(
    client: PlaidClient, fake_plaid: FakePlaid, service_logs: list[logging.LogRecord]
) -> None:
    # GIVEN a failing call for an Item
    item = new_item(fake_plaid, transaction_count=5)
    fake_plaid.fail("/transactions/get", "ITEM_LOGIN_REQUIRED")
    with pytest.raises(PlaidItemError):
        client.transactions_get(item.access_token, *history(item))
    # WHEN the log records are read THEN they name the failure but never the access token or the secret
    records = [r for r in service_logs if r.getMessage() == "plaid call failed"]
    assert [r.__dict__["plaid_error"]["error_code"] for r in records] == ["ITEM_LOGIN_REQUIRED"]
    logged = repr([r.__dict__ for r in service_logs])
    assert item.access_token not in logged
    assert "local-secret" not in logged
