"""The miner's routing and drop rules as tables (chalicelib.pipeline.decisions.miner), one row per rule."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest

from chalicelib.data.items import ItemStatus, MiningMode
from chalicelib.data.webhook_info import UpdateInfo
from chalicelib.pipeline.decisions import Drop
from chalicelib.pipeline.decisions.miner import (
    ItemAction,
    ItemPlan,
    ItemWebhookPlan,
    MineWindow,
    PullBySync,
    PutRemovals,
    Screen,
    first_page_failure,
    invalidates_bank_account,
    kyc_lookup,
    kyc_user,
    later_page_failure,
    liability_accounts,
    mine_info,
    page_plan,
    plan_for_item,
    plan_item_webhook,
    plan_transactions,
    pull_info,
    screen,
    screen_step,
)
from chalicelib.plaid.errors import PlaidItemError, PlaidItemNotFoundError, PlaidProductNotReadyError
from tests.unit.fake_effects import item, message

NOW = datetime(2026, 5, 16, 23, 59, tzinfo=UTC)


# --- the message alone -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "code", "item_id", "expected"),
    [
        # an unknown type, whatever its code
        (
            "LINK",
            "SESSION_FINISHED",
            "i",
            Drop("unhandled_type", {"webhook_type": "LINK", "webhook_code": "SESSION_FINISHED"}),
        ),
        (
            "INCOME",
            "INCOME_VERIFICATION",
            None,
            Drop("unhandled_type", {"webhook_type": "INCOME", "webhook_code": "INCOME_VERIFICATION"}),
        ),
        # ITEM codes without an action
        ("ITEM", "PENDING_EXPIRATION", "i", Drop("unhandled_item_code", {"webhook_code": "PENDING_EXPIRATION"})),
        (
            "ITEM",
            "NEW_ACCOUNTS_AVAILABLE",
            "i",
            Drop("unhandled_item_code", {"webhook_code": "NEW_ACCOUNTS_AVAILABLE"}),
        ),
        # TRANSACTIONS codes without an action
        (
            "TRANSACTIONS",
            "RECURRING_TRANSACTIONS_UPDATE",
            "i",
            Drop("unhandled_transactions_code", {"webhook_code": "RECURRING_TRANSACTIONS_UPDATE"}),
        ),
        # a URL change acknowledged: nothing to do, before any item check
        ("ITEM", "WEBHOOK_UPDATE_ACKNOWLEDGED", "i", Screen.DONE),
        ("ITEM", "WEBHOOK_UPDATE_ACKNOWLEDGED", None, Screen.DONE),
        # KYC webhooks carry no item
        ("IDENTITY_VERIFICATION", "STATUS_UPDATED", None, Screen.KYC),
        ("SCREENING", "STATUS_UPDATED", None, Screen.KYC),
        # everything else needs its item
        ("TRANSACTIONS", "DEFAULT_UPDATE", "i", Screen.ITEM),
        ("TRANSACTIONS", "INITIAL_UPDATE", "i", Screen.ITEM),
        ("TRANSACTIONS", "HISTORICAL_UPDATE", "i", Screen.ITEM),
        ("TRANSACTIONS", "TRANSACTIONS_REMOVED", "i", Screen.ITEM),
        ("TRANSACTIONS", "SYNC_UPDATES_AVAILABLE", "i", Screen.ITEM),
        ("ITEM", "ERROR", "i", Screen.ITEM),
        ("ITEM", "LOGIN_REPAIRED", "i", Screen.ITEM),
        ("ITEM", "USER_PERMISSION_REVOKED", "i", Screen.ITEM),
        ("ITEM", "USER_ACCOUNT_REVOKED", "i", Screen.ITEM),
        ("AUTH", "DEFAULT_UPDATE", "i", Screen.ITEM),
        ("LIABILITIES", "DEFAULT_UPDATE", "i", Screen.ITEM),
        # ... and names one
        (
            "TRANSACTIONS",
            "DEFAULT_UPDATE",
            None,
            Drop("missing_item_id", {"webhook_type": "TRANSACTIONS", "webhook_code": "DEFAULT_UPDATE"}),
        ),
        (
            "AUTH",
            "DEFAULT_UPDATE",
            "",
            Drop("missing_item_id", {"webhook_type": "AUTH", "webhook_code": "DEFAULT_UPDATE"}),
        ),
    ],
)
def test_screen(kind: str, code: str, item_id: str | None, expected: Screen | Drop) -> None:
    # GIVEN a queue message WHEN it is screened THEN it is dropped, done, or goes on
    assert screen(message(code, kind=kind, item_id=item_id)) == expected


# --- the message and its item ------------------------------------------------------------------


ACTIVE = item(item_id="i")
REMOVED = item(item_id="i", status=ItemStatus.REMOVED)
ERRORED = item(item_id="i", status=ItemStatus.ERROR, error_code="ITEM_LOGIN_REQUIRED")
SYNC_ITEM = item(item_id="i", mining_mode=MiningMode.SYNC)


@pytest.mark.parametrize(
    ("kind", "code", "source", "row", "expected"),
    [
        # no ITEM row
        ("TRANSACTIONS", "DEFAULT_UPDATE", "PLAID", None, Drop("item_not_found", {"item_id": "i"})),
        # a listener remine of a REMOVED item: dropped before anything else
        (
            "TRANSACTIONS",
            "DEFAULT_UPDATE",
            "FROM_LISTENER",
            REMOVED,
            Drop("listener_remine_of_removed_item", {"item_id": "i"}),
        ),
        (
            "TRANSACTIONS",
            "SYNC_UPDATES_AVAILABLE",
            "FROM_LISTENER",
            REMOVED,
            Drop("listener_remine_of_removed_item", {"item_id": "i"}),
        ),
        # SYNC_UPDATES_AVAILABLE of an item mined by /transactions/get: its DEFAULT_UPDATE mines the changes
        ("TRANSACTIONS", "SYNC_UPDATES_AVAILABLE", "PLAID", ACTIVE, Drop("sync_update_for_get_item", {"item_id": "i"})),
        (
            "TRANSACTIONS",
            "SYNC_UPDATES_AVAILABLE",
            "PLAID",
            REMOVED,
            Drop("sync_update_for_get_item", {"item_id": "i"}),
        ),
        (
            "TRANSACTIONS",
            "SYNC_UPDATES_AVAILABLE",
            "PLAID",
            SYNC_ITEM,
            ItemPlan(SYNC_ITEM, "TRANSACTIONS", False, False, True),
        ),
        # any other webhook of a REMOVED item, but the one that removes it
        ("TRANSACTIONS", "DEFAULT_UPDATE", "PLAID", REMOVED, Drop("item_removed", {"item_id": "i"})),
        ("TRANSACTIONS", "HISTORICAL_UPDATE", "FROM_ADD_ITEM", REMOVED, Drop("item_removed", {"item_id": "i"})),
        ("ITEM", "ERROR", "PLAID", REMOVED, Drop("item_removed", {"item_id": "i"})),
        ("AUTH", "DEFAULT_UPDATE", "PLAID", REMOVED, Drop("item_removed", {"item_id": "i"})),
        # USER_PERMISSION_REVOKED skips the refresh, so a redelivery finishes a removal
        ("ITEM", "USER_PERMISSION_REVOKED", "PLAID", REMOVED, ItemPlan(REMOVED, "ITEM", False, False, False)),
        ("ITEM", "USER_PERMISSION_REVOKED", "PLAID", ACTIVE, ItemPlan(ACTIVE, "ITEM", False, False, False)),
        # a newly linked item's synthetic webhook applies the re-link rule first
        (
            "TRANSACTIONS",
            "HISTORICAL_UPDATE",
            "FROM_ADD_ITEM",
            ACTIVE,
            ItemPlan(ACTIVE, "TRANSACTIONS", True, False, True),
        ),
        (
            "TRANSACTIONS",
            "HISTORICAL_UPDATE",
            "FROM_LAYER_STUB",
            ERRORED,
            ItemPlan(ERRORED, "TRANSACTIONS", True, False, True),
        ),
        # every other webhook refreshes the item, then routes by type
        ("TRANSACTIONS", "DEFAULT_UPDATE", "PLAID", ERRORED, ItemPlan(ERRORED, "TRANSACTIONS", False, False, True)),
        (
            "TRANSACTIONS",
            "DEFAULT_UPDATE",
            "FROM_LISTENER",
            ACTIVE,
            ItemPlan(ACTIVE, "TRANSACTIONS", False, False, True),
        ),
        ("TRANSACTIONS", "INITIAL_UPDATE", "API_REMINE", ACTIVE, ItemPlan(ACTIVE, "TRANSACTIONS", False, False, True)),
        ("ITEM", "LOGIN_REPAIRED", "PLAID", ACTIVE, ItemPlan(ACTIVE, "ITEM", False, False, True)),
        ("AUTH", "DEFAULT_UPDATE", "PLAID", ACTIVE, ItemPlan(ACTIVE, "AUTH", False, False, True)),
        ("LIABILITIES", "DEFAULT_UPDATE", "PLAID", ACTIVE, ItemPlan(ACTIVE, "LIABILITIES", False, False, True)),
    ],
)
def test_plan_for_item(kind: str, code: str, source: str, row: Any, expected: ItemPlan | Drop) -> None:
    # GIVEN a screened message and its ITEM row as read WHEN planned THEN it is dropped or handled so
    assert plan_for_item(message(code, kind=kind, item_id="i", source=source), row) == expected


def test_a_relink_asked_by_a_service_is_an_override() -> None:
    planned = plan_for_item(message("HISTORICAL_UPDATE", source="FROM_ADD_ITEM", is_override=True), ACTIVE)
    assert isinstance(planned, ItemPlan) and planned.relink and planned.is_override


# --- TRANSACTIONS --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "row", "removed", "expected"),
    [
        # a /get item mines its code's window, ending today (UTC)
        ("DEFAULT_UPDATE", ACTIVE, None, MineWindow(date(2026, 5, 2), date(2026, 5, 16))),
        ("INITIAL_UPDATE", ACTIVE, None, MineWindow(date(2026, 4, 16), date(2026, 5, 16))),
        ("HISTORICAL_UPDATE", ACTIVE, None, MineWindow(date(2025, 11, 17), date(2026, 5, 16))),
        # ... or puts the removed ids on the stream, even none
        ("TRANSACTIONS_REMOVED", ACTIVE, ["t1", "t2"], PutRemovals(("t1", "t2"))),
        ("TRANSACTIONS_REMOVED", ACTIVE, None, PutRemovals(())),
        # every TRANSACTIONS webhook of a sync item pulls from its committed cursor
        ("DEFAULT_UPDATE", SYNC_ITEM, None, PullBySync()),
        ("INITIAL_UPDATE", SYNC_ITEM, None, PullBySync()),
        ("HISTORICAL_UPDATE", SYNC_ITEM, None, PullBySync()),
        ("SYNC_UPDATES_AVAILABLE", SYNC_ITEM, None, PullBySync()),
        # ... and its TRANSACTIONS_REMOVED puts its own ids first (a first sync reports no removals)
        ("TRANSACTIONS_REMOVED", SYNC_ITEM, ["t1"], PullBySync(("t1",))),
        ("TRANSACTIONS_REMOVED", SYNC_ITEM, [], PullBySync(())),
    ],
)
def test_plan_transactions(code: str, row: Any, removed: list[str] | None, expected: Any) -> None:
    payload = {"removed_transactions": removed} if removed is not None else {}
    assert plan_transactions(message(code, **payload), row, NOW) == expected


def test_the_window_ends_on_the_utc_date() -> None:
    # GIVEN "now" late on the 16th in New York, already the 17th in UTC
    from datetime import timedelta, timezone

    late = datetime(2026, 5, 16, 21, 0, tzinfo=timezone(timedelta(hours=-4)))
    assert plan_transactions(message("DEFAULT_UPDATE"), ACTIVE, late) == MineWindow(date(2026, 5, 3), date(2026, 5, 17))


def item_error(code: str) -> PlaidItemError:
    return PlaidItemError("refused", error_code=code)


@pytest.mark.parametrize(
    ("code", "error", "ends"),
    [
        ("DEFAULT_UPDATE", item_error("ITEM_LOGIN_REQUIRED"), True),
        ("DEFAULT_UPDATE", item_error("NO_ACCOUNTS"), True),
        ("DEFAULT_UPDATE", item_error("ITEM_LOCKED"), False),
        ("DEFAULT_UPDATE", PlaidProductNotReadyError("later", error_code="PRODUCT_NOT_READY"), False),
        # history the item cannot get otherwise is retried
        ("INITIAL_UPDATE", item_error("ITEM_LOGIN_REQUIRED"), False),
        ("INITIAL_UPDATE", item_error("NO_ACCOUNTS"), False),
        ("HISTORICAL_UPDATE", item_error("ITEM_LOGIN_REQUIRED"), False),
        ("INITIAL_UPDATE", PlaidProductNotReadyError("later", error_code="PRODUCT_NOT_READY"), False),
    ],
)
def test_first_page_failure(code: str, error: PlaidItemError, ends: bool) -> None:
    expected = Drop("mine_ended", {"item_id": "i", "error_code": error.error_code}) if ends else None
    assert first_page_failure(code, error, "i") == expected


@pytest.mark.parametrize(
    ("error", "ends"),
    [
        (item_error("ITEM_LOGIN_REQUIRED"), True),
        (item_error("NO_ACCOUNTS"), True),
        (PlaidItemNotFoundError("gone", error_code="ITEM_NOT_FOUND"), True),
        (PlaidProductNotReadyError("later", error_code="PRODUCT_NOT_READY"), False),
    ],
)
def test_later_page_failure(error: PlaidItemError, ends: bool) -> None:
    expected = Drop("mine_ended", {"item_id": "i", "error_code": error.error_code}) if ends else None
    assert later_page_failure(error, "i") == expected


@pytest.mark.parametrize(
    ("total", "offset", "fetched", "expected"),
    [
        (0, 0, 0, (True, None)),
        (30, 0, 30, (True, None)),
        (500, 0, 500, (True, None)),
        (501, 0, 500, (False, 500)),
        (1100, 500, 500, (False, 1000)),
        (1100, 1000, 100, (True, None)),
        # an empty page ends the mine whatever the total says, so paging ends
        (2000, 500, 0, (True, None)),
        # a short page moves on by what it held
        (1100, 0, 480, (False, 480)),
    ],
)
def test_page_plan(total: int, offset: int, fetched: int, expected: tuple[bool, int | None]) -> None:
    assert page_plan(total, offset, fetched, 500) == expected


def test_what_a_webhook_info_row_records() -> None:
    accounts = [{"account_id": "a1"}, {"account_id": "a2"}]
    assert mine_info(1100, accounts, "ins_1") == UpdateInfo(1100, ("a1", "a2"), "ins_1")
    # a pull records its first page's updates; one that read no page (it asked a running loop) none
    assert pull_info("page", 40, accounts, "ins_1") == UpdateInfo(40, ("a1", "a2"), "ins_1")
    assert pull_info("committed", 0, [], None) == UpdateInfo(0, (), None)
    for action in ("wanted", "restarted", "resent", "already_pulled", "superseded"):
        assert pull_info(action, 40, accounts, "ins_1") is None


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        (None, Drop("item_not_found", {"item_id": "i"})),
        (REMOVED, Drop("item_removed", {"item_id": "i"})),
        (ERRORED, ERRORED),
        (ACTIVE, ACTIVE),
    ],
)
def test_screen_step(row: Any, expected: Any) -> None:
    assert screen_step(row, "i") == expected


# --- ITEM, AUTH, LIABILITIES ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "item_error_code", "payload", "expected"),
    [
        ("LOGIN_REPAIRED", None, {}, ItemWebhookPlan(ItemAction.REPAIRED)),
        # ERROR: the refreshed item's code first, then the payload's, then UNKNOWN
        ("ERROR", "ITEM_LOGIN_REQUIRED", {}, ItemWebhookPlan(ItemAction.ERRORED, "ITEM_LOGIN_REQUIRED", True)),
        (
            "ERROR",
            None,
            {"error": {"error_code": "ITEM_LOCKED"}},
            ItemWebhookPlan(ItemAction.ERRORED, "ITEM_LOCKED", True),
        ),
        (
            "ERROR",
            "PASSWORD_RESET_REQUIRED",
            {"error": {"error_code": "X"}},
            ItemWebhookPlan(ItemAction.ERRORED, "PASSWORD_RESET_REQUIRED", True),
        ),
        ("ERROR", "USER_SETUP_REQUIRED", {}, ItemWebhookPlan(ItemAction.ERRORED, "USER_SETUP_REQUIRED", True)),
        # ... and only a connection-lost code announces plaid_item_connection_lost
        ("ERROR", "INSTITUTION_DOWN", {}, ItemWebhookPlan(ItemAction.ERRORED, "INSTITUTION_DOWN", False)),
        ("ERROR", None, {}, ItemWebhookPlan(ItemAction.ERRORED, "UNKNOWN", False)),
        ("ERROR", None, {"error": None}, ItemWebhookPlan(ItemAction.ERRORED, "UNKNOWN", False)),
        ("USER_PERMISSION_REVOKED", None, {}, ItemWebhookPlan(ItemAction.REMOVE)),
        (
            "USER_ACCOUNT_REVOKED",
            None,
            {"account_id": "a9"},
            ItemWebhookPlan(ItemAction.ACCOUNT_REVOKED, account_id="a9"),
        ),
        ("USER_ACCOUNT_REVOKED", None, {}, ItemWebhookPlan(ItemAction.ACCOUNT_REVOKED)),
    ],
)
def test_plan_item_webhook(
    code: str, item_error_code: str | None, payload: dict[str, Any], expected: ItemWebhookPlan
) -> None:
    assert plan_item_webhook(code, item_error_code, payload) == expected


@pytest.mark.parametrize(
    ("main", "updated", "invalidates"),
    [
        ("a1", {"a1": ["ACCOUNT_NUMBER"]}, True),
        ("a1", {"a2": ["ACCOUNT_NUMBER"]}, False),
        ("a1", {}, False),
        ("a1", None, False),
        (None, {"a1": ["ACCOUNT_NUMBER"]}, False),
    ],
)
def test_an_auth_update_invalidates_the_bank_account_only_for_the_main_account(
    main: str | None, updated: dict[str, Any] | None, invalidates: bool
) -> None:
    assert invalidates_bank_account(main, {"account_ids_with_updated_auth": updated}) is invalidates


@pytest.mark.parametrize(
    ("payload", "enabled", "expected"),
    [
        (
            {"account_ids_with_new_liabilities": ["c", "m"], "account_ids_with_updated_liabilities": {"s": ["x"]}},
            True,
            ["c", "m", "s"],
        ),
        # an account both new and updated is fetched once, in first-seen order
        (
            {"account_ids_with_new_liabilities": ["c"], "account_ids_with_updated_liabilities": {"c": [], "m": []}},
            True,
            ["c", "m"],
        ),
        ({}, True, []),
        ({"account_ids_with_new_liabilities": None, "account_ids_with_updated_liabilities": None}, True, []),
        # liability mining off: nothing is fetched
        ({"account_ids_with_new_liabilities": ["c"]}, False, []),
    ],
)
def test_liability_accounts(payload: dict[str, Any], enabled: bool, expected: list[str]) -> None:
    assert liability_accounts(payload, enabled=enabled) == expected


# --- IDENTITY_VERIFICATION and SCREENING -------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "payload", "expected"),
    [
        ("IDENTITY_VERIFICATION", {"identity_verification_id": "idv-1"}, "idv-1"),
        ("IDENTITY_VERIFICATION", {}, Drop("missing_identity_verification_id")),
        ("SCREENING", {"screening_id": "scr-1"}, "scr-1"),
        ("SCREENING", {"screening_id": ""}, Drop("missing_screening_id")),
    ],
)
def test_kyc_lookup(kind: str, payload: dict[str, Any], expected: str | Drop) -> None:
    assert kyc_lookup(message("STATUS_UPDATED", kind=kind, item_id=None, **payload)) == expected


@pytest.mark.parametrize(
    ("kind", "fetched", "expected"),
    [
        ("IDENTITY_VERIFICATION", {"client_user_id": "u1"}, "u1"),
        (
            "IDENTITY_VERIFICATION",
            {"client_user_id": None},
            Drop("session_without_user", {"identity_verification_id": "x"}),
        ),
        ("SCREENING", {"client_user_id": "u1"}, "u1"),
        ("SCREENING", {}, Drop("screening_without_user", {"screening_id": "x"})),
    ],
)
def test_kyc_user(kind: str, fetched: dict[str, Any], expected: str | Drop) -> None:
    assert kyc_user(message("STATUS_UPDATED", kind=kind, item_id=None), fetched, "x") == expected
