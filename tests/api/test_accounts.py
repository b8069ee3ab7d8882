"""Accounts, the live balance refresh, balance history and the QA seed, over HTTP."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from boto3.dynamodb.conditions import Key

from chalicelib.data import accounts, balances, items, keys, tables
from chalicelib.data.accounts import Balances
from chalicelib.data.money import dollars_to_cents
from chalicelib.settings import load_settings
from ops.fakes.plaid import FakePlaid
from tests.api.conftest import Api, error_code
from tests.api.factories import NOW, an_account, an_item, store_account
from tests.e2e.conftest import link_item
from tests.factories import uid

pytestmark = pytest.mark.integration

ACCOUNTS = "/v1/users/{user_id}/accounts"
REFRESH = "/v1/users/{user_id}/accounts/refresh"
HISTORY = "/v1/users/{user_id}/accounts/{account_id}/balances"
QA_SEED = "/v1/users/{user_id}/balances/qa-seed"


def test_accounts_expose_the_reported_flags_including_legacy_rows(api: Api, user_id: str) -> None:
    # GIVEN a reported $0, an unreported available balance, and a row older than the flags
    item_id = uid("item")
    zero = an_account(user_id, item_id, balances=Balances(available=0, current=0))
    unknown = an_account(user_id, item_id, balances=Balances(available=0, current=500, available_reported=False))
    legacy = an_account(user_id, item_id)
    store_account(zero)
    store_account(unknown)
    store_account(legacy, drop=("bal_available_reported", "bal_current_reported"))
    # WHEN the accounts are listed
    listed = {a["account_id"]: a for a in api.get(ACCOUNTS, path={"user_id": user_id}).json()["accounts"]}
    # THEN the flags tell a genuine zero from an unknown one, and legacy rows say null
    assert (listed[zero.acct_id]["available_reported"], listed[zero.acct_id]["balances"]["available"]) == (True, 0)
    assert listed[unknown.acct_id]["available_reported"] is False
    assert listed[unknown.acct_id]["current_reported"] is True
    assert listed[legacy.acct_id]["available_reported"] is None
    assert listed[legacy.acct_id]["current_reported"] is None
    assert listed[legacy.acct_id]["balances"] == {
        "available": 10_025,
        "current": 11_050,
        "limit": None,
        "calc_available": 10_025,
        "iso_currency_code": "USD",
    }


def test_accounts_can_be_narrowed_to_one_item(api: Api, user_id: str) -> None:
    mine, other = an_account(user_id, uid("item")), an_account(user_id, uid("item"))
    store_account(mine)
    store_account(other)
    listed = api.get(ACCOUNTS, path={"user_id": user_id}, params={"item_id": mine.item_id}).json()["accounts"]
    assert [a["account_id"] for a in listed] == [mine.acct_id]


def test_accounts_and_balances_of_removed_items_are_shown_only_when_asked_for(api: Api, user_id: str) -> None:
    # GIVEN an account of a live item and one of a REMOVED item, each with a day of balance history
    live, gone = an_item(user_id), an_item(user_id)
    items.mark_removed(user_id, gone.item_id)
    kept, dropped = an_account(user_id, live.item_id), an_account(user_id, gone.item_id)
    for account in (kept, dropped):
        store_account(account)
        balances.put_balance_items([balances.balance_item(account, date(2026, 10, 1), NOW)])
    user = {"user_id": user_id}
    # WHEN they are listed by default, then with include_removed=true
    default = api.get(ACCOUNTS, path=user).json()["accounts"]
    everything = api.get(ACCOUNTS, path=user, params={"include_removed": "true"}).json()["accounts"]
    # THEN only the live item's account is listed by default
    assert [a["account_id"] for a in default] == [kept.acct_id]
    assert {a["account_id"] for a in everything} == {kept.acct_id, dropped.acct_id}
    # AND the removed item's account has no history by default, its history when asked for
    path = {**user, "account_id": dropped.acct_id}
    assert api.get(HISTORY, path=path).json()["balances"] == []
    shown = api.get(HISTORY, path=path, params={"include_removed": "true"}).json()["balances"]
    assert [b["date"] for b in shown] == ["2026-10-01"]
    assert len(api.get(HISTORY, path={**user, "account_id": kept.acct_id}).json()["balances"]) == 1
    # AND only true and false are booleans
    assert api.get(ACCOUNTS, path=user, params={"include_removed": "yes"}).status_code == 400


def test_live_refresh_rewrites_accounts_and_todays_balance(api: Api, fake_plaid: FakePlaid, user_id: str) -> None:
    # GIVEN a linked item whose stored account rows are stale
    fake = link_item(fake_plaid, user_id, transaction_count=1)
    checking = fake.account_id("checking")
    stale = an_account(user_id, fake.item_id, acct_id=checking, balances=Balances(available=1, current=1))
    store_account(stale)
    live = fake.accounts["checking"]["balances"]
    # WHEN the user asks for a live refresh
    response = api.post(REFRESH, path={"user_id": user_id}, json={})
    # THEN Plaid's balance endpoint was called and the response carries its amounts
    assert response.status_code == 200
    assert [c.body["access_token"] for c in fake_plaid.calls("/accounts/balance/get")][-1] == fake.access_token
    refreshed = {a["account_id"]: a for a in response.json()["accounts"]}
    assert set(refreshed) == set(fake.account_ids)
    reported = live["available"] is not None  # the fake sometimes withholds it, as Plaid may
    expected_available = dollars_to_cents(live["available"]) if reported else 0
    assert refreshed[checking]["balances"]["available"] == expected_available
    assert refreshed[checking]["available_reported"] is reported
    # AND the ACCOUNT row and today's BALANCE row were rewritten
    stored = accounts.get_account(user_id, checking)
    assert stored is not None and stored.balances.available == expected_available
    today = datetime.now(UTC).date()
    history = balances.list_balances(user_id, checking, today, today)
    assert [(b.day, b.balances.available) for b in history] == [(today, expected_available)]


def test_refresh_of_all_items_reports_an_item_plaid_refuses(api: Api, fake_plaid: FakePlaid, user_id: str) -> None:
    # GIVEN two items, one needing the user to log in again
    good = link_item(fake_plaid, user_id, transaction_count=1, loans=False)
    broken = link_item(fake_plaid, user_id, transaction_count=1, loans=False)
    fake_plaid.set_item_error(broken.access_token, "ITEM_LOGIN_REQUIRED")
    # WHEN every item is refreshed
    body = api.post(REFRESH, path={"user_id": user_id}).json()
    # THEN the good item's accounts refresh and the broken one is reported
    assert {a["item_id"] for a in body["accounts"]} == {good.item_id}
    assert body["failed_items"] == [{"item_id": broken.item_id, "error_code": "ITEM_LOGIN_REQUIRED"}]
    # AND refreshing the broken item alone is a 409 naming Plaid's item error
    single = api.post(REFRESH, path={"user_id": user_id}, json={"item_id": broken.item_id})
    assert single.status_code == 409 and error_code(single) == "plaid_item_error"
    assert "ITEM_LOGIN_REQUIRED" in single.json()["error"]["message"]


def test_balance_history_is_in_date_order_within_the_range(api: Api, user_id: str) -> None:
    # GIVEN five daily balances
    account = an_account(user_id, uid("item"))
    start = date(2026, 10, 1)
    balances.put_balance_items(balances.balance_item(account, start + timedelta(days=n), NOW) for n in range(5))
    path = {"user_id": user_id, "account_id": account.acct_id}
    # WHEN the middle three days are asked for
    body = api.get(HISTORY, path=path, params={"start_date": "2026-10-02", "end_date": "2026-10-04"}).json()
    # THEN they come back oldest first with their amounts and flags
    assert [b["date"] for b in body["balances"]] == ["2026-10-02", "2026-10-03", "2026-10-04"]
    assert {(b["available_reported"], b["balances"]["current"]) for b in body["balances"]} == {(True, 11_050)}


def test_qa_seed_writes_flagged_rows_with_a_30_day_ttl(api: Api, user_id: str) -> None:
    # GIVEN an account whose available balance Plaid did not report
    account = an_account(user_id, uid("item"), balances=Balances(available=0, current=700, available_reported=False))
    store_account(account)
    # WHEN QA seeds 3 days with chosen amounts
    response = api.post(QA_SEED, path={"user_id": user_id}, json={"days": 3, "available": 4200})
    # THEN three rows were written, each with both flags true, the amounts, and a ttl 30 days out
    assert response.status_code == 201
    assert response.json()["rows_written"] == 3 and response.json()["account_ids"] == [account.acct_id]
    rows: list[dict[str, Any]] = tables.transactions().query(
        KeyConditionExpression=Key("PK").eq(keys.balances_pk(user_id)), ConsistentRead=True
    )["Items"]
    assert len(rows) == 3
    in_30_days = datetime.now(UTC).timestamp() + 30 * 86400
    for row in rows:
        assert (row["bal_available_reported"], row["bal_current_reported"]) == (True, True)
        assert (row["acct_balances"]["bal_available"], row["acct_balances"]["bal_current"]) == (4200, 700)
        assert abs(int(row["ttl"]) - in_30_days) < 120


def test_qa_seed_does_not_exist_when_disabled_and_never_in_prod(
    api: Api, user_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # GIVEN the QA seed disabled (as prod always has it)
    from chalicelib.settings import reset_settings

    monkeypatch.setenv("ENABLE_QA_SEED", "false")
    reset_settings()
    try:
        # WHEN QA calls it / THEN the route answers 404
        response = api.post(QA_SEED, path={"user_id": user_id}, json={})
        assert response.status_code == 404 and error_code(response) == "not_found"
    finally:
        monkeypatch.delenv("ENABLE_QA_SEED")
        reset_settings()
    # AND prod cannot switch it on
    for name, value in {
        "STAGE": "prod",
        "ENABLE_QA_SEED": "true",
        "PLAID_CLIENT_ID": "id",
        "PLAID_SECRET": "secret",
        "USER_SERVICE_TOKEN": "t",
        "PAYMENTS_SERVICE_TOKEN": "t",
        "ADMIN_API_TOKEN": "t",
        "SEGMENT_WRITE_KEY": "k",
    }.items():
        monkeypatch.setenv(name, value)
    assert load_settings().enable_qa_seed is False


def test_qa_seed_of_an_unknown_account_is_404(api: Api, user_id: str) -> None:
    response = api.post(QA_SEED, path={"user_id": user_id}, json={"account_id": "nope"})
    assert response.status_code == 404


def test_bad_bodies_are_422_with_field_details(api: Api, user_id: str) -> None:
    # GIVEN bodies that are not JSON, not objects, or not the route's shape
    path = {"user_id": user_id}
    not_json = api.post(QA_SEED, path=path, data=b"{nope", headers={"Content-Type": "application/json"})
    not_object = api.post(QA_SEED, path=path, json=[1, 2])
    unknown_field = api.post(QA_SEED, path=path, json={"dayz": 3})
    wrong_type = api.post(QA_SEED, path=path, json={"days": "3"})
    # THEN each is a 422 in the one error format, with field messages where there are fields
    for response in (not_json, not_object, unknown_field, wrong_type):
        assert response.status_code == 422 and error_code(response) == "unprocessable_entity"
    assert "dayz" in unknown_field.json()["error"]["details"]["fields"]
    assert "days" in wrong_type.json()["error"]["details"]["fields"]
