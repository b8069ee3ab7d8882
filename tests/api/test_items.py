"""Items over HTTP: Link, add, re-link rule, Layer, persist, remine, removal, main account, history."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from chalicelib.data import account_changes, items, layers, webhook_info
from chalicelib.data.account_changes import ChangeType
from chalicelib.data.items import ItemStatus
from chalicelib.data.ttl import utcnow
from chalicelib.data.webhook_info import WebhookSource
from chalicelib.settings import get_settings
from ops.fakes.plaid import FakeItem, FakePlaid
from ops.runtime import EventRuntime
from tests.api.conftest import Api, error_code
from tests.api.factories import an_account, store_account
from tests.e2e.conftest import link_item
from tests.faults import aws_fault, table_is

pytestmark = pytest.mark.integration

ITEMS = "/v1/users/{user_id}/items"
ITEM = "/v1/users/{user_id}/items/{item_id}"
LINK_TOKEN = "/v1/users/{user_id}/link-token"
HISTORY = "/v1/users/{user_id}/items/history"
CHECK = "/v1/users/{user_id}/account-changes/check"


def add(api: Api, user_id: str, fake: FakeItem, **body: Any) -> Any:
    return api.post(ITEMS, path={"user_id": user_id}, json={"public_token": fake.public_token, **body})


def test_link_token_asks_plaid_for_180_days_for_this_user(api: Api, fake_plaid: FakePlaid, user_id: str) -> None:
    # WHEN a Link token is created
    response = api.post(LINK_TOKEN, path={"user_id": user_id})
    # THEN Plaid was asked for transactions with 180 days of history, for this user
    assert response.status_code == 201
    token = response.json()["link_token"]
    request = fake_plaid.link_tokens[token]["request"]
    assert request["transactions"]["days_requested"] == 180
    assert request["products"] == ["transactions"]
    assert request["user"]["client_user_id"] == user_id


def test_link_token_in_update_mode_needs_a_live_item(api: Api, fake_plaid: FakePlaid, user_id: str) -> None:
    fake = link_item(fake_plaid, user_id, transaction_count=1, loans=False)
    response = api.post(LINK_TOKEN, path={"user_id": user_id}, json={"item_id": fake.item_id})
    assert response.status_code == 201
    assert fake_plaid.link_tokens[response.json()["link_token"]]["request"]["access_token"] == fake.access_token
    unknown = api.post(LINK_TOKEN, path={"user_id": user_id}, json={"item_id": "unknown-item"})
    assert unknown.status_code == 404


def test_adding_an_item_saves_it_and_mines_it_at_once(
    api: Api, fake_plaid: FakePlaid, runtime: EventRuntime, user_id: str
) -> None:
    # GIVEN a public token from Link
    fake = fake_plaid.create_item(transaction_count=30, loans=False)
    checking = fake.account_id("checking")
    # WHEN the app adds the item
    response = add(api, user_id, fake, main_account_id=checking)
    # THEN the ITEM row exists with Plaid's institution, and no token is in the answer
    assert response.status_code == 201
    body = response.json()
    assert (body["item_id"], body["status"], body["main_account_id"]) == (fake.item_id, "ACTIVE", checking)
    assert body["institution_id"] == fake.institution_id and body["replaced_item_ids"] == []
    assert "access" not in response.text
    stored = items.get_item(user_id, fake.item_id)
    assert stored is not None and stored.access_token == fake.access_token
    # AND a synthetic FROM_ADD_ITEM webhook mines it: its transactions become listable
    runtime.drain(timeout=60)
    mined = webhook_info.item_webhooks_from_source(fake.item_id, WebhookSource.FROM_ADD_ITEM)
    assert [(m.webhook_type, m.webhook_code) for m in mined] == [("TRANSACTIONS", "HISTORICAL_UPDATE")]
    listed = api.get("/v1/users/{user_id}/transactions", path={"user_id": user_id}, params={"limit": 500}).json()
    assert len(listed["transactions"]) > 0
    # AND the spent public token cannot add it again
    again = add(api, user_id, fake)
    assert again.status_code == 404 and error_code(again) == "not_found"


def test_relinking_the_same_login_leaves_one_live_item(api: Api, fake_plaid: FakePlaid, user_id: str) -> None:
    # GIVEN a live item, with a main account
    old = fake_plaid.create_item(transaction_count=1, loans=False)
    add(api, user_id, old, main_account_id=old.roles()["checking"])
    # WHEN the user links the same login again (Plaid makes a new item with the same accounts)
    new = fake_plaid.link_again(old, transaction_count=1)
    response = add(api, user_id, new)
    # THEN the old item is removed (revoked at Plaid, recorded, reason of the re-link) and the new one is live
    assert response.json()["replaced_item_ids"] == [old.item_id]
    listed = {i["item_id"]: i for i in api.get(ITEMS, path={"user_id": user_id}).json()["items"]}
    assert {k: i["status"] for k, i in listed.items()} == {old.item_id: "REMOVED", new.item_id: "ACTIVE"}
    assert listed[old.item_id]["removed_reason"] == "relinked: replaced by a new link to the same institution"
    assert old.removed
    changes = account_changes.account_changes(user_id)
    assert [(c.item_id, c.change_type, c.account_id) for c in changes] == [
        (old.item_id, ChangeType.ITEM_REMOVED, old.roles()["checking"])
    ]


def test_a_relink_that_fails_in_the_request_is_finished_by_the_new_items_first_mine(
    api: Api, fake_plaid: FakePlaid, runtime: EventRuntime, user_id: str
) -> None:
    # GIVEN a live item, and a second link of the same login during which the change row cannot be written
    old = fake_plaid.create_item(transaction_count=1, loans=False)
    add(api, user_id, old, main_account_id=old.roles()["checking"])
    new = fake_plaid.link_again(old, transaction_count=1)
    settings = get_settings()
    changes_table = table_is(settings.account_changes_table)
    with aws_fault("dynamodb", "PutItem", when=changes_table, region=settings.account_changes_region) as fault:
        response = add(api, user_id, new)
    # THEN the link still succeeds and names the item it replaces, whose removal is not finished
    assert fault.hits == 1
    assert response.status_code == 201 and response.json()["replaced_item_ids"] == [old.item_id]
    assert not old.removed and account_changes.account_changes(user_id) == []
    # WHEN the new item's synthetic webhook is handled
    runtime.drain(timeout=60)
    # THEN the removal is finished: recorded once, revoked once
    assert old.removed
    assert [(c.item_id, c.change_type) for c in account_changes.account_changes(user_id)] == [
        (old.item_id, ChangeType.ITEM_REMOVED)
    ]
    stored = items.get_item(user_id, old.item_id)
    assert stored is not None and (stored.status, stored.replaced_by) == (ItemStatus.REMOVED, new.item_id)


def test_another_login_at_the_same_bank_keeps_both_items(api: Api, fake_plaid: FakePlaid, user_id: str) -> None:
    # GIVEN a personal login at a bank
    personal = fake_plaid.create_item(transaction_count=1, loans=False)
    add(api, user_id, personal)
    # WHEN the user links a business login at the same bank (other accounts)
    business = fake_plaid.create_item(institution_id=personal.institution_id, transaction_count=1, loans=False)
    response = add(api, user_id, business)
    # THEN both stay live
    assert response.json()["replaced_item_ids"] == []
    statuses = {i["item_id"]: i["status"] for i in api.get(ITEMS, path={"user_id": user_id}).json()["items"]}
    assert statuses == {personal.item_id: "ACTIVE", business.item_id: "ACTIVE"}
    assert not personal.removed


def test_an_older_item_whose_accounts_are_unknown_is_kept(api: Api, fake_plaid: FakePlaid, user_id: str) -> None:
    # GIVEN an item linked before link-time accounts were kept
    old = fake_plaid.create_item(transaction_count=1, loans=False)
    items.create_item(items.Item(user_id, old.item_id, old.access_token, institution_id=old.institution_id), utcnow())
    # WHEN the same login is linked again
    response = add(api, user_id, fake_plaid.link_again(old, transaction_count=1))
    # THEN nothing can prove it is the same login: both are kept
    assert response.json()["replaced_item_ids"] == []
    assert not old.removed


def test_prequal_item_expires_until_persisted(api: Api, fake_plaid: FakePlaid, user_id: str) -> None:
    # GIVEN a prequal item
    fake = fake_plaid.create_item(transaction_count=1, loans=False)
    created = add(api, user_id, fake, purpose="PREQUAL").json()
    assert created["source"] == "PREQUAL" and created["expires_at"] is not None
    # WHEN it is persisted (twice: the call is idempotent)
    path = {"user_id": user_id, "item_id": fake.item_id}
    first = api.post(ITEM + "/persist", path=path)
    second = api.post(ITEM + "/persist", path=path, json={})
    # THEN it no longer expires
    assert first.status_code == second.status_code == 200
    assert second.json()["expires_at"] is None
    stored = items.get_item(user_id, fake.item_id)
    assert stored is not None and stored.ttl is None
    # AND an unknown item is a 404
    assert api.post(ITEM + "/persist", path={**path, "item_id": "nope"}).status_code == 404


def test_remine_queues_an_api_remine_webhook(
    api: Api, fake_plaid: FakePlaid, runtime: EventRuntime, user_id: str
) -> None:
    # GIVEN a linked item
    fake = link_item(fake_plaid, user_id, transaction_count=5, loans=False)
    path = {"user_id": user_id, "item_id": fake.item_id}
    # WHEN a remine of the last 14 days is asked for
    response = api.post(ITEM + "/remine", path=path, json={"webhook_code": "DEFAULT_UPDATE"})
    # THEN it is accepted and mined with source API_REMINE
    assert response.status_code == 202 and response.json()["webhook_code"] == "DEFAULT_UPDATE"
    runtime.drain(timeout=60)
    mined = webhook_info.item_webhooks_from_source(fake.item_id, WebhookSource.API_REMINE)
    assert [(m.webhook_code, m.message_id) for m in mined] == [("DEFAULT_UPDATE", response.json()["message_id"])]


def test_removing_an_item_revokes_records_once_and_is_idempotent(
    service_api: Api, fake_plaid: FakePlaid, user_id: str
) -> None:
    # GIVEN a linked item with a main account, removed by support (a service token)
    fake = link_item(fake_plaid, user_id, transaction_count=1, loans=False)
    path = {"user_id": user_id, "item_id": fake.item_id}
    # WHEN it is removed twice (a retry), forced by MX
    first = service_api.delete(ITEM, path=path, params={"reason": "MX"})
    second = service_api.delete(ITEM, path=path)
    # THEN it is REMOVED with the reason, revoked at Plaid, and recorded exactly once as an override
    assert first.status_code == second.status_code == 200
    assert (second.json()["status"], second.json()["removed_reason"]) == ("REMOVED", "MX")
    assert fake.removed
    history = service_api.get(HISTORY, path={"user_id": user_id}).json()["changes"]
    assert [(c["item_id"], c["change_type"], c["previous_main_account_id"], c["is_override"]) for c in history] == [
        (fake.item_id, "ITEM_REMOVED", fake.roles()["checking"], True)
    ]
    # AND a removed item cannot be remined or get a main account
    assert service_api.post(ITEM + "/remine", path=path).status_code == 409
    changed = service_api.put(ITEM + "/main-account", path=path, json={"account_id": fake.roles()["savings"]})
    assert changed.status_code == 409 and error_code(changed) == "conflict"


def test_main_account_change_is_recorded_with_the_previous_account(
    api: Api, fake_plaid: FakePlaid, user_id: str
) -> None:
    # GIVEN an item whose main account is checking, and its savings account stored
    fake = link_item(fake_plaid, user_id, transaction_count=1, loans=False)
    savings = fake.roles()["savings"]
    store_account(an_account(user_id, fake.item_id, acct_id=savings))
    path = {"user_id": user_id, "item_id": fake.item_id}
    # WHEN the user makes savings the main account (and repeats the call)
    first = api.put(ITEM + "/main-account", path=path, json={"account_id": savings})
    api.put(ITEM + "/main-account", path=path, json={"account_id": savings})
    # THEN the item's main account changed and one change row names the previous one
    assert first.status_code == 200 and first.json()["main_account_id"] == savings
    history = api.get(HISTORY, path={"user_id": user_id}).json()["changes"]
    assert [(c["change_type"], c["previous_main_account_id"], c["is_override"]) for c in history] == [
        ("MAIN_ACCOUNT_CHANGED", fake.roles()["checking"], False)
    ]
    # AND an account of no item of this user is a 404
    other = api.put(ITEM + "/main-account", path=path, json={"account_id": "not-an-account"})
    assert other.status_code == 404


def test_the_mining_mode_is_switched_by_a_service_token_only(
    api: Api, service_api: Api, fake_plaid: FakePlaid, user_id: str
) -> None:
    # GIVEN an item mined by /transactions/get
    fake = link_item(fake_plaid, user_id, transaction_count=1, loans=False)
    path = {"user_id": user_id, "item_id": fake.item_id}
    assert api.get(ITEMS, path={"user_id": user_id}).json()["items"][0]["mining_mode"] == "GET"
    # WHEN the user asks to switch it THEN it is refused: how items are mined is the service's choice
    refused = api.put(ITEM + "/mining-mode", path=path, json={"mode": "SYNC"})
    assert refused.status_code == 403 and error_code(refused) == "forbidden"
    # WHEN a service token switches it (twice: idempotent)
    first = service_api.put(ITEM + "/mining-mode", path=path, json={"mode": "SYNC"})
    again = service_api.put(ITEM + "/mining-mode", path=path, json={"mode": "SYNC"})
    # THEN the item is mined by /transactions/sync from its next webhook on
    assert first.status_code == again.status_code == 200 and again.json()["mining_mode"] == "SYNC"
    stored = items.get_item(user_id, fake.item_id)
    assert stored is not None and stored.mining_mode is items.MiningMode.SYNC
    # AND an unknown mode, an unknown item and a removed item are refused
    assert service_api.put(ITEM + "/mining-mode", path=path, json={"mode": "sync2"}).status_code == 422
    unknown = {"user_id": user_id, "item_id": "no-such-item"}
    assert service_api.put(ITEM + "/mining-mode", path=unknown, json={"mode": "GET"}).status_code == 404
    items.mark_removed(user_id, fake.item_id)
    assert service_api.put(ITEM + "/mining-mode", path=path, json={"mode": "GET"}).status_code == 409


def test_new_items_are_mined_in_the_configured_mode(
    api: Api,
    fake_plaid: FakePlaid,
    runtime: EventRuntime,
    user_id: str,
    override_settings: Callable[..., None],
) -> None:
    # GIVEN the service links new items in sync mode
    override_settings(NEW_ITEM_MINING_MODE="sync")
    fake = fake_plaid.create_item(transaction_count=30, loans=False)
    # WHEN an item is added and its first webhook mined
    response = add(api, user_id, fake, main_account_id=fake.account_id("checking"))
    assert response.status_code == 201 and response.json()["mining_mode"] == "SYNC"
    runtime.drain(timeout=60)
    # THEN it was read by /transactions/sync from no cursor, never by /transactions/get
    syncs = [c for c in fake_plaid.calls("/transactions/sync") if c.body["access_token"] == fake.access_token]
    gets = [c for c in fake_plaid.calls("/transactions/get") if c.body["access_token"] == fake.access_token]
    assert len(syncs) == 1 and "cursor" not in syncs[0].body and gets == []
    listed = api.get("/v1/users/{user_id}/transactions", path={"user_id": user_id}, params={"limit": 500}).json()
    assert len(listed["transactions"]) == 30


def test_change_check_answers_over_a_window(api: Api, fake_plaid: FakePlaid, user_id: str) -> None:
    # GIVEN nothing changed yet
    quiet = api.get(CHECK, path={"user_id": user_id}).json()
    assert (quiet["changed"], quiet["changes"]) == (False, [])
    # WHEN an item is removed
    fake = link_item(fake_plaid, user_id, transaction_count=1, loans=False)
    api.delete(ITEM, path={"user_id": user_id, "item_id": fake.item_id})
    # THEN the check over the last day reports it
    body = api.get(CHECK, path={"user_id": user_id}, params={"days": 1}).json()
    assert (body["changed"], body["item_removed"], body["main_account_changed"]) == (True, True, False)
    assert [c["item_id"] for c in body["changes"]] == [fake.item_id]
    assert datetime.fromisoformat(body["since"]) < utcnow()


def test_layer_session_results_and_items(api: Api, fake_plaid: FakePlaid, runtime: EventRuntime, user_id: str) -> None:
    # GIVEN a Layer session the user completes with two items
    session = api.post("/v1/users/{user_id}/layer/session", path={"user_id": user_id})
    assert session.status_code == 201
    public_token = fake_plaid.complete_layer_session(
        session.json()["link_token"], items=2, transaction_count=3, loans=False
    )
    # WHEN the app stores the results
    results = api.post(
        "/v1/users/{user_id}/layer/results", path={"user_id": user_id}, json={"public_token": public_token}
    )
    # THEN a stub holds both items for 7 days
    assert results.status_code == 201
    item_ids = results.json()["item_ids"]
    assert len(item_ids) == 2
    stub = layers.get_layer_stub(public_token)
    assert stub is not None and stub.user_id == user_id and stub.ttl is not None
    assert abs(stub.ttl - (datetime.now(UTC).timestamp() + 7 * 86400)) < 120
    # WHEN the first item is created from the stub
    created = api.post(
        "/v1/users/{user_id}/layer/items",
        path={"user_id": user_id},
        json={"public_token": public_token, "item_ids": [item_ids[0]]},
    )
    # THEN it is an ITEM, mined with FROM_LAYER_STUB, and only the other entry stays in the stub
    assert created.status_code == 201 and [i["item_id"] for i in created.json()["items"]] == [item_ids[0]]
    stub = layers.get_layer_stub(public_token)
    assert stub is not None and [e.item_id for e in stub.items] == [item_ids[1]]
    runtime.drain(timeout=60)
    assert webhook_info.item_webhooks_from_source(item_ids[0], WebhookSource.FROM_LAYER_STUB)
    # WHEN the rest are created
    rest = api.post("/v1/users/{user_id}/layer/items", path={"user_id": user_id}, json={"public_token": public_token})
    # THEN the stub is consumed and gone; a later call finds nothing
    assert [i["item_id"] for i in rest.json()["items"]] == [item_ids[1]]
    assert layers.get_layer_stub(public_token) is None
    stored = items.get_item(user_id, item_ids[1])
    assert stored is not None and stored.status is ItemStatus.ACTIVE
    gone = api.post("/v1/users/{user_id}/layer/items", path={"user_id": user_id}, json={"public_token": public_token})
    assert gone.status_code == 404


def test_layer_results_of_an_unknown_token_are_404(api: Api, user_id: str) -> None:
    response = api.post(
        "/v1/users/{user_id}/layer/results", path={"user_id": user_id}, json={"public_token": "public-local-nope"}
    )
    assert response.status_code == 404
