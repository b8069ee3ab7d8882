"""The fake Plaid itself: HTTP behaviour, data realism, state changes, control API and CLI."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import urllib.error
import urllib.request
from datetime import date, timedelta
from typing import Any

import pytest

from ops.fakes.plaid import DEFAULT_CLIENT_ID, DEFAULT_SECRET, FakeItem, FakePlaid
from ops.fakes.plaid.generate import SOLVENT_MARGIN
from ops.fakes.plaid.state import FakeState
from tests.plaid.factories import ROOT, history, new_item

FIXED_DAY = date(2025, 6, 15)


def post(url: str, body: Any, headers: dict[str, str] | None = None, method: str = "POST") -> tuple[int, Any]:
    """Raw HTTP (no SDK) so requests the SDK would refuse to send can be tried."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null")


def get(url: str) -> tuple[int, Any]:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.status, json.loads(response.read())


CREDENTIALS = {"PLAID-CLIENT-ID": DEFAULT_CLIENT_ID, "PLAID-SECRET": DEFAULT_SECRET}


def api(fake: FakePlaid, path: str, body: dict[str, Any]) -> tuple[int, Any]:
    return post(fake.url + path, body, CREDENTIALS)


def window(item: FakeItem, **options: Any) -> dict[str, Any]:
    start, end = history(item)
    return {
        "access_token": item.access_token,
        "start_date": start.isoformat(),
        "end_date": end.isoformat(),
        "options": {"count": 500, **options},
    }


# --- protocol ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "headers",
    [{}, {"PLAID-CLIENT-ID": DEFAULT_CLIENT_ID, "PLAID-SECRET": "nope"}, {"PLAID-CLIENT-ID": "x", "PLAID-SECRET": "y"}],
    ids=["none", "wrong secret", "wrong both"],
)
def test_bad_credentials_get_401_invalid_api_keys(headers: dict[str, str], fake_plaid: FakePlaid) -> None:
    status, body = post(
        fake_plaid.url + "/institutions/get", {"count": 1, "offset": 0, "country_codes": ["US"]}, headers
    )
    assert status == 401
    assert (body["error_type"], body["error_code"]) == ("INVALID_INPUT", "INVALID_API_KEYS")
    assert body["request_id"] and "display_message" in body


def test_credentials_in_the_body_are_accepted_and_never_recorded(fake_plaid: FakePlaid) -> None:
    body = {"count": 1, "offset": 0, "country_codes": ["US"], "client_id": DEFAULT_CLIENT_ID, "secret": DEFAULT_SECRET}
    status, _ = post(fake_plaid.url + "/institutions/get", body)
    assert status == 200
    assert fake_plaid.calls("/institutions/get")[0].body == {"count": 1, "offset": 0, "country_codes": ["US"]}


def test_unknown_endpoint_and_bad_json(fake_plaid: FakePlaid) -> None:
    assert api(fake_plaid, "/no/such/endpoint", {})[0] == 404
    status, body = post(fake_plaid.url + "/item/get", b"{not json", CREDENTIALS)
    assert (status, body["error_code"]) == (400, "INVALID_BODY")


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"options": {"count": 501}}, "INVALID_FIELD"),
        ({"options": {"count": 0}}, "INVALID_FIELD"),
        ({"options": {"offset": -1}}, "INVALID_FIELD"),
        ({"start_date": "2026-03-02", "end_date": "2026-03-01"}, "INVALID_FIELD"),
        ({"start_date": "yesterday"}, "INVALID_FIELD"),
        ({"options": {"account_ids": ["not-an-account"]}}, "INVALID_ACCOUNT_ID"),
        ({"access_token": "access-local-unknown"}, "INVALID_ACCESS_TOKEN"),
        ({"access_token": None}, "MISSING_FIELDS"),
    ],
)
def test_transactions_get_refuses_what_plaid_refuses(change: dict[str, Any], code: str, fake_plaid: FakePlaid) -> None:
    item = new_item(fake_plaid, transaction_count=5)
    status, body = api(fake_plaid, "/transactions/get", {**window(item), **change})
    assert (status, body["error_code"]) == (400, code)


# --- data ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("solvent", [False, True])
def test_same_seed_same_data(solvent: bool) -> None:
    # GIVEN two fakes creating an Item from the same seed and day (a solvent household too)
    first = FakeState(institutions=20).create_item(seed=42, today=FIXED_DAY, transaction_count=300, solvent=solvent)
    second = FakeState(institutions=20).create_item(seed=42, today=FIXED_DAY, transaction_count=300, solvent=solvent)
    # THEN ids, names, dates and amounts are identical (tokens are always fresh)
    assert first.transactions == second.transactions
    assert first.accounts == second.accounts
    assert first.item_id == second.item_id
    assert first.access_token != second.access_token


def test_transactions_look_like_a_real_bank(fake_plaid: FakePlaid) -> None:
    # GIVEN an Item with two years of 1,200 transactions, a few in an unofficial currency
    item = new_item(fake_plaid, transaction_count=1200, seed=1, unofficial_currency_every=150)
    txns = fake_plaid.item(item.access_token).transactions
    dates = [date.fromisoformat(t["date"]) for t in txns]
    # THEN they span about two years, newest first
    assert dates == sorted(dates, reverse=True)
    assert max(dates) >= item.today - timedelta(days=3) and min(dates) <= item.today - timedelta(days=600)
    # AND income is negative (money in), spending positive
    payroll = [t for t in txns if t["personal_finance_category"]["primary"] == "INCOME"]
    assert payroll and all(t["amount"] < 0 for t in payroll)
    assert any(t["amount"] > 0 and t["merchant_name"] == "Starbucks" for t in txns)
    # AND recent purchases are pending, recent posted ones link to the pending row they replaced
    pending = [t for t in txns if t["pending"]]
    assert pending and all(date.fromisoformat(t["date"]) >= item.today - timedelta(days=2) for t in pending)
    assert any(t["pending_transaction_id"] and not t["pending"] for t in txns)
    # AND a few are in an unofficial currency, the rest in USD
    assert any(t["iso_currency_code"] is None and t["unofficial_currency_code"] == "BTC" for t in txns)
    assert sum(t["iso_currency_code"] == "USD" for t in txns) > 1100
    # AND they fall on the Item's checking, savings and credit accounts only
    roles = item.roles()
    assert {t["account_id"] for t in txns} == {roles["checking"], roles["savings"], roles["credit"]}


def _spending_and_pay(txns: list[dict[str, Any]]) -> tuple[float, list[float]]:
    """Outflows other than moves between the household's own accounts, and the paychecks."""
    own = {"LOAN_PAYMENTS_CREDIT_CARD_PAYMENT", "TRANSFER_OUT_SAVINGS"}
    spent = sum(t["amount"] for t in txns if t["amount"] > 0 and t["personal_finance_category"]["detailed"] not in own)
    return spent, [-t["amount"] for t in txns if t["personal_finance_category"]["detailed"] == "INCOME_WAGES"]


def _fees(txns: list[dict[str, Any]]) -> int:
    return sum(t["personal_finance_category"]["primary"] == "BANK_FEES" for t in txns)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_solvent_household_pays_no_fees_and_earns_more_than_it_spends(seed: int) -> None:
    # GIVEN the same seed and day drawn as any Item and as a solvent household
    state = FakeState(institutions=20)
    spender = state.create_item(seed=seed, today=FIXED_DAY, transaction_count=1500, history_days=365)
    solvent = state.create_item(seed=seed, today=FIXED_DAY, transaction_count=1500, history_days=365, solvent=True)

    # THEN by default purchases ignore the pay: overdraft fees, and more spent than earned
    spent, paychecks = _spending_and_pay(spender.transactions)
    assert _fees(spender.transactions) > 0 and spent > sum(paychecks)
    # AND the solvent household pays no fee, and one salary covers its spending with the margin to spare
    spent, paychecks = _spending_and_pay(solvent.transactions)
    assert _fees(solvent.transactions) == 0
    assert len(set(paychecks)) == 1 and sum(paychecks) >= spent * (1 + SOLVENT_MARGIN) - 0.005 * len(paychecks)
    assert len(solvent.transactions) == 1500
    # AND what it adds later (a DEFAULT_UPDATE's purchases) holds no fee either
    assert _fees(state.add_transactions(solvent.access_token, 500)) == 0


def test_some_accounts_have_null_available_balance(fake_plaid: FakePlaid) -> None:
    items = [new_item(fake_plaid, transaction_count=1, seed=seed) for seed in range(30)]
    availables = [a["balances"]["available"] for i in items for a in i.accounts.values()]
    assert None in availables
    assert any(isinstance(v, float) for v in availables)


def test_long_texts_for_record_size_tests(fake_plaid: FakePlaid) -> None:
    item = new_item(fake_plaid, transaction_count=20, long_text_length=5000)
    status, page = api(fake_plaid, "/transactions/get", window(item, include_original_description=True))
    assert status == 200
    assert all(len(t["name"]) == 5000 and len(t["original_description"]) == 5000 for t in page["transactions"])


def test_window_and_account_filter(fake_plaid: FakePlaid) -> None:
    item = new_item(fake_plaid, transaction_count=400)
    start = item.today - timedelta(days=30)
    body = {**window(item, account_ids=[item.account_id("credit")]), "start_date": start.isoformat()}
    _, page = api(fake_plaid, "/transactions/get", body)
    expected = [
        t
        for t in fake_plaid.item(item.access_token).transactions
        if t["date"] >= start.isoformat() and t["account_id"] == item.account_id("credit")
    ]
    assert page["total_transactions"] == len(expected) > 0
    assert [t["transaction_id"] for t in page["transactions"]] == [t["transaction_id"] for t in expected]


def test_removed_and_posted_transactions(fake_plaid: FakePlaid) -> None:
    # GIVEN an Item WHEN two transactions are removed and the pending ones post
    item = new_item(fake_plaid, transaction_count=300, seed=3)
    before = fake_plaid.item(item.access_token).transactions
    victims = [before[10]["transaction_id"], before[20]["transaction_id"]]
    assert fake_plaid.remove_transactions(item.access_token, [*victims, "never-existed"]) == victims
    pending_ids, posted = fake_plaid.post_pending(item.access_token)
    # THEN /transactions/get no longer returns the removed or pending ids, and posted rows link back
    _, page = api(fake_plaid, "/transactions/get", window(item))
    ids = {t["transaction_id"] for t in page["transactions"]}
    assert page["total_transactions"] == 298
    assert not ids & set(victims) and not ids & set(pending_ids)
    assert {t["pending_transaction_id"] for t in posted} == set(pending_ids)
    assert {t["transaction_id"] for t in posted} <= ids
    # AND new transactions can arrive
    added = fake_plaid.add_transactions(item.access_token, 3)
    assert len(added) == 3
    _, page = api(fake_plaid, "/transactions/get", window(item))
    assert page["total_transactions"] == 301


def test_removed_item_answers_item_not_found_everywhere(fake_plaid: FakePlaid) -> None:
    item = new_item(fake_plaid, transaction_count=5)
    assert api(fake_plaid, "/item/remove", {"access_token": item.access_token})[0] == 200
    for path in ("/item/get", "/accounts/get", "/transactions/get", "/liabilities/get", "/item/remove"):
        status, body = api(fake_plaid, path, window(item))
        assert (status, body["error_code"], body["error_type"]) == (400, "ITEM_NOT_FOUND", "ITEM_ERROR"), path


def test_institutions_are_deterministic_and_complete(fake_plaid: FakePlaid) -> None:
    # WHEN all institutions are paged
    pages = [
        api(fake_plaid, "/institutions/get", {"count": 100, "offset": offset, "country_codes": ["US"],
                                               "options": {"include_optional_metadata": True}})[1]
        for offset in (0, 100, 200, 300)
    ]  # fmt: skip
    institutions = [i for p in pages for i in p["institutions"]]
    # THEN 300 distinct ones with real logos and valid routing numbers
    assert len(institutions) == pages[0]["total"] == 300
    assert len({i["institution_id"] for i in institutions}) == 300
    assert institutions[0]["name"] == "First Platypus Bank"
    for institution in institutions:
        assert base64.b64decode(institution["logo"]).startswith(b"\x89PNG\r\n\x1a\n")
        for number in institution["routing_numbers"]:
            d = [int(c) for c in number]
            assert (3 * (d[0] + d[3] + d[6]) + 7 * (d[1] + d[4] + d[7]) + d[2] + d[5] + d[8]) % 10 == 0
    # AND a second fake lists exactly the same
    other = FakeState()
    assert [i["institution_id"] for i in other.institutions] == [i["institution_id"] for i in institutions]


def test_institution_filters(fake_plaid: FakePlaid) -> None:
    _, oauth = api(fake_plaid, "/institutions/get",
                   {"count": 500, "offset": 0, "country_codes": ["US"], "options": {"oauth": True}})  # fmt: skip
    assert 0 < oauth["total"] < 300
    assert all(i["oauth"] for i in oauth["institutions"])
    assert "logo" not in oauth["institutions"][0]


# --- faults -----------------------------------------------------------------------------------------


def test_fault_counts_down_then_clears(fake_plaid: FakePlaid) -> None:
    item = new_item(fake_plaid, transaction_count=5)
    fault = fake_plaid.fail("/item/get", "INTERNAL_SERVER_ERROR", times=2)
    statuses = [api(fake_plaid, "/item/get", {"access_token": item.access_token})[0] for _ in range(3)]
    assert statuses == [500, 500, 200]
    assert fault.hits == 2
    assert fake_plaid.faults() == []


def test_unknown_fault_error_is_refused(fake_plaid: FakePlaid) -> None:
    with pytest.raises(ValueError, match="unknown Plaid error"):
        fake_plaid.fail("/item/get", "NOT_A_PLAID_ERROR")


# --- control API --------------------------------------------------------------------------------------


def test_control_api_drives_the_fake_from_another_process(fake_plaid: FakePlaid) -> None:
    control = fake_plaid.url + "/__fake__/"
    # GIVEN an Item created over HTTP
    status, item = post(control + "items", {"transaction_count": 30, "seed": 9})
    assert status == 200 and item["transaction_count"] == 30
    # WHEN a fault is added over HTTP and the endpoint called
    status, fault = post(control + "faults", {"endpoint": "/accounts/get", "error": "NO_ACCOUNTS", "times": 1})
    assert status == 200 and fault["error"] == "NO_ACCOUNTS"
    assert api(fake_plaid, "/accounts/get", {"access_token": item["access_token"]})[1]["error_code"] == "NO_ACCOUNTS"
    # THEN the calls are listed, filterable by endpoint, without credentials
    _, calls = get(control + "calls?endpoint=/accounts/get")
    assert [(c["endpoint"], c["status"], c["error_code"]) for c in calls["calls"]] == [
        ("/accounts/get", 400, "NO_ACCOUNTS")
    ]
    # AND Item state can be changed over HTTP
    assert post(control + "items/error", {"access_token": item["access_token"], "error_code": "ITEM_LOCKED"})[0] == 200
    assert api(fake_plaid, "/accounts/get", {"access_token": item["access_token"]})[1]["error_code"] == "ITEM_LOCKED"
    post(control + "items/error", {"access_token": item["access_token"], "error_code": None})
    _, stored = get(control + f"items/transactions?access_token={item['access_token']}")
    first = stored["transactions"][0]["transaction_id"]
    removal = {"access_token": item["access_token"], "transaction_ids": [first]}
    assert post(control + "items/remove_transactions", removal)[1] == {"removed": [first]}
    # AND keys rotate and webhooks are signed over HTTP
    old_kid = fake_plaid.current_key.kid
    _, rotated = post(control + "keys/rotate", {})
    assert rotated["expired_kid"] == old_kid and rotated["kid"] == fake_plaid.current_key.kid
    _, signed = post(control + "webhooks/sign", {"payload": {"webhook_type": "ITEM", "webhook_code": "ERROR"}})
    assert json.loads(signed["body"]) == {"webhook_type": "ITEM", "webhook_code": "ERROR"}
    assert signed["plaid_verification"].count(".") == 2
    # AND reset clears faults and calls
    post(control + "faults", {"endpoint": "*", "delay": 0.0, "times": None})
    assert post(control + "reset", {})[0] == 200
    assert get(control + "faults")[1] == {"faults": []}
    assert get(control + "calls")[1] == {"calls": []}


def test_control_api_errors(fake_plaid: FakePlaid) -> None:
    control = fake_plaid.url + "/__fake__/"
    assert post(control + "nope", {})[0] == 404
    assert post(control + "faults", {"error": "NO_ACCOUNTS"})[0] == 400
    assert post(control + "faults", {"endpoint": "/item/get", "error": "BOGUS"})[0] == 400
    assert post(control + "items/error", {"access_token": "access-local-missing", "error_code": None})[0] == 404


def test_cli_serves_and_prints_a_demo_item() -> None:
    # GIVEN the CLI started on an ephemeral port with one demo Item
    process = subprocess.Popen(
        [sys.executable, "-m", "ops.fakes.plaid", "--port", "0", "--demo-items", "1", "--transactions", "10"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        url = json.loads(process.stdout.readline())["fake_plaid"]
        item = json.loads(process.stdout.readline())
        # WHEN asked over HTTP THEN it serves the Item it printed
        status, health = get(url + "/__fake__/health")
        assert status == 200 and health["ok"]
        status, body = post(url + "/item/get", {"access_token": item["access_token"]}, CREDENTIALS)
        assert (status, body["item"]["item_id"]) == (200, item["item_id"])
    finally:
        process.terminate()
        process.wait(timeout=10)
