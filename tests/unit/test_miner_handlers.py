"""The miner and the throttle-miner over recording fakes of the one seam (tests/unit/fake_effects.py).

The handlers run unchanged; only the world around them is in memory. Each test says what a
rule of chalicelib.pipeline.decisions.miner makes the handler do to the world, and what it must
not do: a dropped message calls nothing past the read that decided it, records no WEBHOOK_INFO
row, and is raised as a drop (never retried); a message a retry may fix raises anything else.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest

from chalicelib.data.items import ItemStatus, MiningMode
from chalicelib.data.sync_state import SyncState
from chalicelib.peers import PLAID_ITEM_ERRORED, PLAID_ITEM_REPAIRED, derive_key
from chalicelib.pipeline import listener, miner, throttle_miner
from chalicelib.pipeline.batches import DropMessageError
from chalicelib.pipeline.messages import MineRequest, SyncRequest, WebhookMessage
from chalicelib.pipeline.mining import PageOutcome
from chalicelib.pipeline.removal import RemovalCause
from chalicelib.plaid.errors import PlaidItemError, PlaidItemNotFoundError, PlaidProductNotReadyError
from tests.unit.fake_effects import NOW, World, item, message


@pytest.fixture
def world() -> World:
    return World()


def mine(world: World, msg: WebhookMessage) -> None:
    miner.route_webhook(msg, NOW, world.effects)


def dropped(world: World, msg: WebhookMessage) -> str:
    """Route ``msg``, expecting a drop; returns its reason."""
    with pytest.raises(DropMessageError) as raised:
        mine(world, msg)
    return raised.value.reason


def methods(world: World, port: str | None = None) -> list[str]:
    return [f"{c.port}.{c.method}" for c in world.calls if port is None or c.port == port]


def recorded(world: World) -> list[tuple[str, str]]:
    """(code, source) of every WEBHOOK_INFO row written."""
    return [(w.webhook_code, w.source) for w in world.store.webhooks]


def plaid_error(cls: type[PlaidItemError], code: str) -> PlaidItemError:
    return cls("refused", error_code=code)


# --- drops ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "code", "reason"),
    [
        ("LINK", "SESSION_FINISHED", "unhandled_type"),
        ("ITEM", "PENDING_EXPIRATION", "unhandled_item_code"),
        ("TRANSACTIONS", "RECURRING_TRANSACTIONS_UPDATE", "unhandled_transactions_code"),
    ],
)
def test_a_message_without_an_action_is_dropped_before_any_read(
    world: World, kind: str, code: str, reason: str
) -> None:
    # GIVEN a linked item, and a webhook for it that has no action
    world.store.add_item(item())
    # WHEN it is mined THEN it is dropped, and nothing was read or called
    assert dropped(world, message(code, kind=kind)) == reason
    assert world.calls == []


def test_an_acknowledged_webhook_url_change_is_done_without_any_call(world: World) -> None:
    world.store.add_item(item())
    mine(world, message("WEBHOOK_UPDATE_ACKNOWLEDGED", kind="ITEM"))
    assert world.calls == [] and world.store.webhooks == []


@pytest.mark.parametrize(
    ("row", "code", "source", "reason"),
    [
        (None, "DEFAULT_UPDATE", "PLAID", "item_not_found"),
        (item(status=ItemStatus.REMOVED), "DEFAULT_UPDATE", "FROM_LISTENER", "listener_remine_of_removed_item"),
        (item(status=ItemStatus.REMOVED), "DEFAULT_UPDATE", "PLAID", "item_removed"),
        (item(status=ItemStatus.REMOVED), "ERROR", "PLAID", "item_removed"),
        (item(), "SYNC_UPDATES_AVAILABLE", "PLAID", "sync_update_for_get_item"),
    ],
)
def test_a_message_its_item_rules_out_is_dropped_after_one_read(
    world: World, row: Any, code: str, source: str, reason: str
) -> None:
    # GIVEN the item's row as stored (or none)
    if row is not None:
        world.store.add_item(row)
    kind = "ITEM" if code == "ERROR" else "TRANSACTIONS"
    # WHEN the webhook is mined
    assert dropped(world, message(code, kind=kind, source=source)) == reason
    # THEN the item was read, and nothing else: no Plaid call, no row, no peer
    assert methods(world) == ["store.get_item_by_id"]


def test_an_item_plaid_no_longer_knows_is_dropped_at_the_refresh(world: World) -> None:
    world.store.add_item(item())
    world.plaid.answer("item_get", plaid_error(PlaidItemNotFoundError, "ITEM_NOT_FOUND"))
    assert dropped(world, message("DEFAULT_UPDATE")) == "item_gone_at_plaid"
    assert world.called("plaid", "transactions_get") == [] and world.store.webhooks == []


# --- TRANSACTIONS by /transactions/get -------------------------------------------------------------


def page(total: int, count: int | None = None) -> dict[str, Any]:
    count = total if count is None else count
    return {
        "transactions": [{"transaction_id": f"t{n}"} for n in range(count)],
        "total_transactions": total,
        "accounts": [{"account_id": "acct-main"}],
        "item": {"institution_id": "ins_1"},
    }


@pytest.mark.parametrize(("code", "days"), [("DEFAULT_UPDATE", 14), ("INITIAL_UPDATE", 30), ("HISTORICAL_UPDATE", 180)])
@pytest.mark.parametrize("source", ["PLAID", "API_REMINE", "FROM_LISTENER"])
def test_each_update_refreshes_the_item_mines_its_window_and_records_the_webhook(
    world: World, code: str, days: int, source: str
) -> None:
    # GIVEN an item mined by /transactions/get with 30 transactions in the window
    world.store.add_item(item())
    world.plaid.answer("transactions_get", page(30))
    # WHEN its webhook is mined
    mine(world, message(code, source=source))
    # THEN the item was refreshed first, then one page asked for the code's window, ending today (UTC)
    assert methods(world, "plaid") == ["plaid.item_get", "plaid.transactions_get"]
    [call] = world.called("plaid", "transactions_get")
    assert call.args == ("access-item-1", NOW.date() - timedelta(days=days), NOW.date())
    assert call.kwargs == {"offset": 0, "count": 500}
    # AND the page went on the stream as the last, nothing was queued, and the webhook is recorded with its total
    [record] = world.messages.records
    assert record.last_page and record.mine_id == f"msg-{code.lower()}-{source.lower()}"
    assert world.messages.throttled == []
    assert recorded(world) == [(code, source)]
    [info] = world.store.webhooks
    assert info.update_info is not None and info.update_info.total_transactions == 30
    assert info.update_info.accounts == ("acct-main",)


def test_a_mine_of_more_than_a_page_queues_the_next_offset(world: World) -> None:
    world.store.add_item(item())
    world.plaid.answer("transactions_get", page(1100, 500))
    mine(world, message("HISTORICAL_UPDATE"))
    [record] = world.messages.records
    assert not record.last_page
    [request] = world.messages.throttled
    assert (request["offset"], request["mine_id"]) == (500, "msg-historical_update-plaid")
    assert (request["start_date"], request["end_date"]) == (
        (NOW.date() - timedelta(days=180)).isoformat(),
        NOW.date().isoformat(),
    )


def test_transactions_removed_puts_its_ids_on_the_stream_without_mining(world: World) -> None:
    world.store.add_item(item())
    mine(world, message("TRANSACTIONS_REMOVED", removed_transactions=["t1", "t2"]))
    [record] = world.messages.records
    assert record.removed == ["t1", "t2"] and record.transactions is None and record.last_page
    assert world.called("plaid", "transactions_get") == []
    assert recorded(world) == [("TRANSACTIONS_REMOVED", "PLAID")]


@pytest.mark.parametrize(
    ("code", "error", "ends"),
    [
        # a DEFAULT_UPDATE ends on a login or no-accounts error: the mine is dropped, not retried
        ("DEFAULT_UPDATE", plaid_error(PlaidItemError, "ITEM_LOGIN_REQUIRED"), True),
        ("DEFAULT_UPDATE", plaid_error(PlaidItemError, "NO_ACCOUNTS"), True),
        # anything else is raised, so SQS delivers the message again
        ("DEFAULT_UPDATE", plaid_error(PlaidProductNotReadyError, "PRODUCT_NOT_READY"), False),
        ("INITIAL_UPDATE", plaid_error(PlaidItemError, "ITEM_LOGIN_REQUIRED"), False),
        ("INITIAL_UPDATE", plaid_error(PlaidItemError, "NO_ACCOUNTS"), False),
        ("HISTORICAL_UPDATE", plaid_error(PlaidItemError, "ITEM_LOGIN_REQUIRED"), False),
    ],
)
def test_a_refused_first_page_ends_the_mine_or_is_retried(
    world: World, code: str, error: PlaidItemError, ends: bool
) -> None:
    # GIVEN Plaid refuses the item's first page once
    world.store.add_item(item())
    world.plaid.answer("transactions_get", error, page(5))
    msg = message(code)
    # WHEN the webhook is mined
    with pytest.raises(PlaidItemError if not ends else DropMessageError) as raised:
        mine(world, msg)
    # THEN nothing reached the stream and no row was recorded
    assert world.messages.records == [] and world.store.webhooks == []
    if ends:
        assert isinstance(raised.value, DropMessageError) and raised.value.reason == "mine_ended"
        assert raised.value.context["error_code"] == error.error_code
        return
    # AND a retried message (SQS' redelivery) mines the page and records the webhook once
    mine(world, msg)
    assert len(world.called("plaid", "transactions_get")) == 2
    assert len(world.messages.records) == 1 and recorded(world) == [(code, "PLAID")]


def test_the_item_is_refreshed_from_plaid_before_it_is_mined(world: World) -> None:
    # GIVEN an ACTIVE row that Plaid now reports as needing a login
    world.store.add_item(item())
    world.plaid.answer("item_get", {"item": {"error": {"error_code": "ITEM_LOGIN_REQUIRED"}}, "status": {}})
    world.plaid.answer("transactions_get", plaid_error(PlaidItemError, "ITEM_LOGIN_REQUIRED"))
    # WHEN a DEFAULT_UPDATE is mined THEN the mine ends, and the row carries Plaid's status
    assert dropped(world, message("DEFAULT_UPDATE")) == "mine_ended"
    assert methods(world, "store")[:2] == ["store.get_item_by_id", "store.refresh_from_plaid"]
    stored = world.store.items["item-1"]
    assert (stored.status, stored.error_code) == (ItemStatus.ERROR, "ITEM_LOGIN_REQUIRED")


def test_a_newly_linked_items_webhook_applies_the_relink_rule_before_the_refresh(world: World) -> None:
    world.store.add_item(item())
    mine(world, message("HISTORICAL_UPDATE", source="FROM_ADD_ITEM", is_override=True))
    assert methods(world)[:3] == ["store.get_item_by_id", "removals.retire_older_logins", "plaid.item_get"]
    [relink] = world.called("removals", "retire_older_logins")
    assert relink.kwargs == {"is_override": True}


# --- TRANSACTIONS by /transactions/sync --------------------------------------------------------------


SYNC_ROUTES = [
    ("DEFAULT_UPDATE", "PLAID"),
    ("INITIAL_UPDATE", "PLAID"),
    ("HISTORICAL_UPDATE", "PLAID"),
    ("SYNC_UPDATES_AVAILABLE", "PLAID"),
    ("DEFAULT_UPDATE", "FROM_LISTENER"),
    ("HISTORICAL_UPDATE", "API_REMINE"),
    ("HISTORICAL_UPDATE", "FROM_ADD_ITEM"),
]


@pytest.mark.parametrize(("code", "source"), SYNC_ROUTES)
def test_every_transactions_webhook_of_a_sync_item_pulls_from_the_committed_cursor(
    world: World, code: str, source: str
) -> None:
    # GIVEN an item mined by sync, its cursor committed
    world.store.add_item(item(mining_mode=MiningMode.SYNC))
    world.store.sync_states[("user-1", "item-1")] = SyncState("user-1", "item-1", cursor="committed-7")
    # WHEN its webhook is mined
    mine(world, message(code, source=source))
    # THEN a loop named after the message started, and its first page read from the committed cursor
    [start] = world.called("store", "start_loop")
    assert start.args[1] == f"msg-{code.lower()}-{source.lower()}.0"
    [pull] = world.called("plaid", "transactions_sync")
    assert pull.kwargs["cursor"] == "committed-7"
    # AND never /transactions/get; the webhook is recorded
    assert world.called("plaid", "transactions_get") == []
    assert recorded(world) == [(code, source)]


def test_transactions_removed_of_a_sync_item_puts_its_removals_then_pulls(world: World) -> None:
    world.store.add_item(item(mining_mode=MiningMode.SYNC))
    mine(world, message("TRANSACTIONS_REMOVED", removed_transactions=["t9"]))
    removals, first_page = world.messages.records
    assert removals.removed == ["t9"] and removals.transactions is None
    assert first_page.mine_id == "msg-transactions_removed-plaid.0"
    assert world.called("plaid", "transactions_sync")


def test_the_listener_counts_a_sync_pull_as_a_recent_mine(world: World) -> None:
    # GIVEN an old sync item whose SYNC_UPDATES_AVAILABLE was mined (a WEBHOOK_INFO row like any mine's)
    world.store.add_item(item(mining_mode=MiningMode.SYNC, created_at=(NOW - timedelta(days=90)).isoformat()))
    mine(world, message("SYNC_UPDATES_AVAILABLE"))
    login = listener.LoginEvent("login-1", "gd_auth_succeed", "user-1", NOW)
    row = world.store.items["item-1"]
    # WHEN its user logs in an hour later THEN the listener skips it: it was mined within 24 hours
    assert listener.decide_and_queue(login, row, NOW + timedelta(hours=1), world.effects).action is listener.Action.SKIP
    assert world.messages.webhooks == []
    # AND a day later it is remined
    later = listener.decide_and_queue(login, row, NOW + timedelta(hours=25), world.effects)
    assert later.action is listener.Action.DEFAULT_UPDATE
    [queued] = world.messages.webhooks
    assert queued.message_id == later.message_id and queued.source == "FROM_LISTENER"


# --- ITEM, AUTH, LIABILITIES ------------------------------------------------------------------------


@pytest.fixture
def known(world: World) -> World:
    """An ACTIVE item of a user the User Service knows."""
    world.store.add_item(item())
    world.peers.users["user-1"] = "ACTIVE"
    return world


def item_webhook(code: str, **payload: Any) -> WebhookMessage:
    return message(code, kind="ITEM", **payload)


def test_login_repaired_tells_segment_with_a_key_derived_from_the_message(known: World) -> None:
    msg = item_webhook("LOGIN_REPAIRED")
    mine(known, msg)
    [call] = known.called("peers", "item_repaired")
    assert call.args == ("user-1", "item-1")
    assert call.kwargs == {
        "message_id": derive_key(PLAID_ITEM_REPAIRED, "item-1", msg.message_id),
        "institution_id": "ins_1",
    }
    assert recorded(known) == [("LOGIN_REPAIRED", "PLAID")]


@pytest.mark.parametrize(
    ("item_error", "payload_error", "code", "lost"),
    [
        ("ITEM_LOGIN_REQUIRED", None, "ITEM_LOGIN_REQUIRED", True),
        ("INSTITUTION_DOWN", None, "INSTITUTION_DOWN", False),
        (None, "ITEM_LOCKED", "ITEM_LOCKED", True),
        (None, None, "UNKNOWN", False),
    ],
)
def test_item_error_tells_segment_and_announces_a_lost_connection_only_for_login_codes(
    known: World, item_error: str | None, payload_error: str | None, code: str, lost: bool
) -> None:
    # GIVEN Plaid's /item/get reports the item's error (or none), and the webhook its own
    known.plaid.answer("item_get", {"item": {"error": {"error_code": item_error} if item_error else None}})
    msg = item_webhook("ERROR", error={"error_code": payload_error} if payload_error else None)
    # WHEN the ERROR webhook is mined
    mine(known, msg)
    # THEN Segment heard plaid_item_errored with the code
    [call] = known.called("peers", "item_errored")
    assert call.args == ("user-1", "item-1", code)
    assert call.kwargs["message_id"] == derive_key(PLAID_ITEM_ERRORED, "item-1", msg.message_id)
    # AND plaid_item_connection_lost went out only for a login-type code
    assert [d["error_code"] for name, d in known.events.published if name == "connection_lost"] == (
        [code] if lost else []
    )


def test_user_permission_revoked_removes_the_item_without_a_refresh(known: World) -> None:
    mine(known, item_webhook("USER_PERMISSION_REVOKED"))
    [(removed, why)] = known.removals.removed
    assert removed.item_id == "item-1" and why.cause is RemovalCause.USER_PERMISSION_REVOKED and why.reason is None
    assert known.called("plaid") == []


def test_a_redelivered_user_permission_revoked_finishes_the_removal_of_a_removed_row(world: World) -> None:
    world.store.add_item(item(status=ItemStatus.REMOVED))
    world.peers.users["user-1"] = "ACTIVE"
    mine(world, item_webhook("USER_PERMISSION_REVOKED"))
    assert len(world.removals.removed) == 1 and world.called("plaid") == []


def test_user_account_revoked_only_announces_the_account(known: World) -> None:
    mine(known, item_webhook("USER_ACCOUNT_REVOKED", account_id="acct-9"))
    assert known.events.published == [
        (
            "connection_revoked",
            {"user_id": "user-1", "item_id": "item-1", "reason": "USER_ACCOUNT_REVOKED", "account_id": "acct-9"},
        )
    ]
    assert known.removals.removed == [] and known.store.items["item-1"].status is ItemStatus.ACTIVE


@pytest.mark.parametrize("code", ["LOGIN_REPAIRED", "ERROR", "USER_ACCOUNT_REVOKED"])
def test_an_item_webhook_for_a_user_the_user_service_does_not_know_is_dropped(world: World, code: str) -> None:
    world.store.add_item(item())  # the user was never added
    assert dropped(world, item_webhook(code)) == "user_not_found"
    assert [c.method for c in world.called("peers")] == ["get_user"]
    assert world.events.published == [] and world.store.webhooks == []


@pytest.mark.parametrize(
    ("updated", "deletes"),
    [({"acct-main": ["ACCOUNT_NUMBER"]}, True), ({"acct-savings": ["ACCOUNT_NUMBER"]}, False), ({}, False)],
)
def test_an_auth_update_invalidates_the_stored_bank_account_only_for_the_main_account(
    known: World, updated: dict[str, Any], deletes: bool
) -> None:
    mine(known, message("DEFAULT_UPDATE", kind="AUTH", account_ids_with_updated_auth=updated))
    assert bool(known.called("peers", "delete_bank_account")) is deletes
    assert recorded(known) == [("DEFAULT_UPDATE", "PLAID")]


@pytest.mark.parametrize(("enabled", "fetched"), [("true", ["c", "m", "s"]), ("false", None)])
def test_a_liabilities_update_fetches_its_accounts_only_when_liability_mining_is_on(
    known: World, override_settings: Any, enabled: str, fetched: list[str] | None
) -> None:
    override_settings(ENABLE_LIABILITY_MINING=enabled)
    mine(
        known,
        message(
            "DEFAULT_UPDATE",
            kind="LIABILITIES",
            account_ids_with_new_liabilities=["c", "m"],
            account_ids_with_updated_liabilities={"s": ["past_amount_due"], "c": []},
        ),
    )
    calls = known.called("plaid", "liabilities_get")
    assert [c.kwargs["account_ids"] for c in calls] == ([fetched] if fetched else [])
    assert bool(known.called("store", "store_liabilities")) is bool(fetched)


# --- KYC ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "payload", "fetched", "reason"),
    [
        ("IDENTITY_VERIFICATION", {}, None, "missing_identity_verification_id"),
        ("SCREENING", {}, None, "missing_screening_id"),
        ("IDENTITY_VERIFICATION", {"identity_verification_id": "idv-1"}, {}, "session_without_user"),
        ("SCREENING", {"screening_id": "scr-1"}, {"client_user_id": None}, "screening_without_user"),
        (
            "IDENTITY_VERIFICATION",
            {"identity_verification_id": "idv-1"},
            {"client_user_id": "nobody"},
            "user_not_found",
        ),
        ("SCREENING", {"screening_id": "scr-1"}, {"client_user_id": "user-1"}, "screening_without_session"),
    ],
)
def test_kyc_webhooks_that_cannot_be_tied_to_a_session_are_dropped(
    world: World, kind: str, payload: dict[str, Any], fetched: dict[str, Any] | None, reason: str
) -> None:
    method = "identity_verification_get" if kind == "IDENTITY_VERIFICATION" else "watchlist_screening_individual_get"
    if fetched is not None:
        world.plaid.answer(method, fetched)
    assert dropped(world, message("STATUS_UPDATED", kind=kind, item_id=None, **payload)) == reason
    # no item is involved, nothing is written
    assert world.called("store", "get_item_by_id") == []
    assert world.called("store", "put_identity_verification") == []
    assert world.called("store", "set_watchlist_status") == []


# --- the throttle-miner ----------------------------------------------------------------------------------


def mine_request(offset: int = 500) -> str:
    return MineRequest("item-1", "user-1", date(2025, 11, 17), date(2026, 5, 16), offset, "m1").to_json()


@pytest.mark.parametrize(
    ("row", "reason"), [(None, "item_not_found"), (item(status=ItemStatus.REMOVED), "item_removed")]
)
@pytest.mark.parametrize("body", [mine_request(), SyncRequest("item-1", "user-1", "m1.0", 1).to_json()])
def test_a_later_page_of_an_item_gone_or_removed_ends_the_mine_before_plaid(
    world: World, row: Any, reason: str, body: str
) -> None:
    if row is not None:
        world.store.add_item(row)
    with pytest.raises(DropMessageError) as raised:
        throttle_miner.handle_mine_request_body(body, NOW, world.effects)
    assert raised.value.reason == reason
    assert methods(world) == ["store.get_item"]


def test_a_later_page_mines_its_offset_and_queues_the_next(world: World) -> None:
    world.store.add_item(item())
    world.plaid.answer("transactions_get", page(1100, 500))
    outcome = throttle_miner.handle_mine_request_body(mine_request(500), NOW, world.effects)
    [call] = world.called("plaid", "transactions_get")
    assert call.args == ("access-item-1", date(2025, 11, 17), date(2026, 5, 16)) and call.kwargs["offset"] == 500
    [request] = world.messages.throttled
    assert (request["offset"], request["mine_id"]) == (1000, "m1")
    assert isinstance(outcome, PageOutcome) and not outcome.last_page
    assert not world.messages.records[0].last_page


@pytest.mark.parametrize(
    ("error", "ends"),
    [
        (plaid_error(PlaidItemError, "ITEM_LOGIN_REQUIRED"), True),
        (plaid_error(PlaidItemNotFoundError, "ITEM_NOT_FOUND"), True),
        (plaid_error(PlaidProductNotReadyError, "PRODUCT_NOT_READY"), False),
    ],
)
def test_a_refused_later_page_ends_the_mine_only_when_no_retry_can_fix_it(
    world: World, error: PlaidItemError, ends: bool
) -> None:
    world.store.add_item(item())
    world.plaid.answer("transactions_get", error)
    with pytest.raises(DropMessageError if ends else PlaidItemError) as raised:
        throttle_miner.handle_mine_request_body(mine_request(), NOW, world.effects)
    assert isinstance(raised.value, DropMessageError) is ends
    assert world.messages.records == [] and world.messages.throttled == []
