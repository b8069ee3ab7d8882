"""ITEM, AUTH, LIABILITIES, IDENTITY_VERIFICATION and SCREENING: from a signed webhook to
rows, Plaid calls, peer calls and events, each checked on the receiving side.

One scenario per route, each webhook delivered twice (at-least-once). Every case of their rules
(which error codes announce a lost connection, an unknown user, an AUTH update of another
account, liability mining off, KYC webhooks without a session) is a unit test:
tests/unit/test_miner_decisions.py and tests/unit/test_miner_handlers.py."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from chalicelib.data import account_changes, identity_verifications, items, liabilities, webhook_info
from ops.fakes.peers import FakePeers
from ops.fakes.plaid import FakeItem, FakePlaid, webhooks
from ops.runtime import EventRuntime
from tests.conftest import Capture
from tests.e2e.conftest import link_item

pytestmark = pytest.mark.integration


@pytest.fixture
def deliver(app_url: str, fake_plaid: FakePlaid, runtime: EventRuntime) -> Callable[[dict[str, Any]], None]:
    """Plaid signs and POSTs the webhook; the pipeline runs until idle, twice (at-least-once)."""

    def send(payload: dict[str, Any]) -> None:
        for _ in range(2):
            assert fake_plaid.send_webhook(f"{app_url}/v1/plaid", payload).status == 200
            runtime.drain(timeout=30)
        assert sum(s.failures for s in runtime.stats.values()) == 0

    return send


@pytest.fixture
def linked(fake_plaid: FakePlaid, fake_peers: FakePeers, user_id: str) -> FakeItem:
    fake_peers.user_service.add_user(user_id)
    return link_item(fake_plaid, user_id, transaction_count=5)


def events_for(capture: Capture, item_id: str) -> list[dict[str, Any]]:
    return capture.matching(lambda e: e["detail"].get("item_id") == item_id)


def test_login_repaired_tells_segment_once(
    deliver: Callable[[dict[str, Any]], None], fake_peers: FakePeers, linked: FakeItem, user_id: str
) -> None:
    deliver(webhooks.item_event(linked.item_id, "LOGIN_REPAIRED"))
    tracked = [t for t in fake_peers.segment.tracks("plaid_item_repaired") if t["userId"] == user_id]
    assert len(tracked) == 2, "one per delivered webhook; each carries its own message id"
    assert {t["properties"]["item_id"] for t in tracked} == {linked.item_id}
    assert len(webhook_info.item_webhooks(linked.item_id)) == 2


def test_item_error_tells_segment_and_announces_a_lost_connection(
    deliver: Callable[[dict[str, Any]], None],
    fake_plaid: FakePlaid,
    fake_peers: FakePeers,
    event_capture: Capture,
    linked: FakeItem,
    user_id: str,
) -> None:
    # GIVEN Plaid reports the item needing a login
    fake_plaid.set_item_error(linked.access_token, "ITEM_LOGIN_REQUIRED")
    # WHEN its ERROR webhook is delivered
    deliver(webhooks.item_error(linked.item_id, "ITEM_LOGIN_REQUIRED"))
    # THEN Segment heard plaid_item_errored with the code
    tracked = [t for t in fake_peers.segment.tracks("plaid_item_errored") if t["userId"] == user_id]
    assert tracked and {t["properties"]["error_code"] for t in tracked} == {"ITEM_LOGIN_REQUIRED"}
    # AND plaid_item_connection_lost went out with the code
    lost_events = [
        e for e in events_for(event_capture, linked.item_id) if e["detail-type"] == "plaid_item_connection_lost"
    ]
    assert {e["detail"]["error_code"] for e in lost_events} == {"ITEM_LOGIN_REQUIRED"}


def test_user_permission_revoked_removes_the_item_everywhere(
    deliver: Callable[[dict[str, Any]], None],
    fake_plaid: FakePlaid,
    fake_peers: FakePeers,
    event_capture: Capture,
    linked: FakeItem,
    user_id: str,
) -> None:
    deliver(webhooks.item_event(linked.item_id, "USER_PERMISSION_REVOKED"))
    # THEN the token was revoked at Plaid (the redelivery found it already gone)
    removes = [c for c in fake_plaid.calls("/item/remove") if c.body.get("access_token") == linked.access_token]
    assert len(removes) >= 1
    # AND the item is REMOVED, the user has one admin note, one removal row and one revoked event id
    item = items.get_item(user_id, linked.item_id)
    assert item is not None and item.status == items.ItemStatus.REMOVED
    assert len(fake_peers.admin_api.notes_for(user_id)) == 1
    assert [(c.item_id, c.change_type.value) for c in account_changes.account_changes(user_id)] == [
        (linked.item_id, "ITEM_REMOVED")
    ]
    revoked = [
        e for e in events_for(event_capture, linked.item_id) if e["detail-type"] == "plaid_item_connection_revoked"
    ]
    assert {(e["detail"]["event_id"], e["detail"]["reason"]) for e in revoked} == {
        (revoked[0]["detail"]["event_id"], "USER_PERMISSION_REVOKED")
    }, "both deliveries announce the same removal: one event id"


def test_user_account_revoked_only_announces(
    deliver: Callable[[dict[str, Any]], None], event_capture: Capture, linked: FakeItem, user_id: str
) -> None:
    account_id = linked.roles()["savings"]
    deliver(webhooks.item_event(linked.item_id, "USER_ACCOUNT_REVOKED", account_id=account_id))
    revoked = [
        e for e in events_for(event_capture, linked.item_id) if e["detail-type"] == "plaid_item_connection_revoked"
    ]
    assert {(e["detail"]["reason"], e["detail"]["account_id"]) for e in revoked} == {
        ("USER_ACCOUNT_REVOKED", account_id)
    }
    item = items.get_item(user_id, linked.item_id)
    assert item is not None and item.status == items.ItemStatus.ACTIVE


def test_auth_update_of_the_main_account_invalidates_the_stored_bank_account(
    deliver: Callable[[dict[str, Any]], None], fake_peers: FakePeers, linked: FakeItem, user_id: str
) -> None:
    # GIVEN a stored bank account on the main account
    fake_peers.payments.add_bank_account(user_id, linked.roles()["checking"])
    # WHEN Plaid reports new numbers for the main account
    deliver(webhooks.auth_update(linked.item_id, updated={linked.roles()["checking"]: ["ACCOUNT_NUMBER"]}))
    # THEN the Payments Service no longer holds it
    assert not fake_peers.payments.has_bank_account(user_id)


def liability_accounts(fake: FakeItem) -> list[str]:
    return [fake.roles()[r] for r in ("credit", "mortgage", "student")]


def test_liabilities_update_stores_current_and_history_rows(
    deliver: Callable[[dict[str, Any]], None], fake_plaid: FakePlaid, linked: FakeItem, user_id: str
) -> None:
    credit, mortgage, student = liability_accounts(linked)
    deliver(webhooks.liabilities_update(linked.item_id, new=[credit, mortgage], updated={student: ["past_amount_due"]}))
    current = {(lb.acct_id, lb.liability_type.value) for lb in liabilities.current_liabilities(user_id)}
    assert current == {(credit, "CREDIT"), (mortgage, "MORTGAGE"), (student, "STUDENT")}
    assert len(liabilities.liability_history(user_id)) == 6, (
        "two deliveries, three accounts, history never deduplicated"
    )


def test_identity_verification_and_screening_update_the_session(
    deliver: Callable[[dict[str, Any]], None], fake_plaid: FakePlaid, fake_peers: FakePeers, user_id: str
) -> None:
    # GIVEN a KYC session with a watchlist screening for a known user
    fake_peers.user_service.add_user(user_id)
    screening = fake_plaid.create_screening(user_id, status="pending_review")
    session = fake_plaid.create_identity_verification(user_id, watchlist_screening_id=screening["id"])
    # WHEN Plaid reports the session, then the screening
    deliver(webhooks.identity_verification(session["id"]))
    latest = identity_verifications.latest_identity_verification(user_id)
    assert latest is not None and (latest.idv_id, latest.status) == (session["id"], "success")
    assert latest.kyc_status == "success"
    deliver(webhooks.screening(screening["id"]))
    # THEN the session found by its watchlist screening carries the screening's status
    updated = identity_verifications.get_identity_verification(user_id, session["id"])
    assert updated is not None and updated.watchlist_status == "pending_review"
