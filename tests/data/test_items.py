"""ITEM: create-once, REMOVED is terminal, ttl set/cleared, lookups by user and by item id."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime, timedelta

import pytest

from chalicelib.data import keys, tables
from chalicelib.data.identity_verifications import IdentityVerification, put_identity_verification
from chalicelib.data.items import (
    ITEM_SOURCE_PREQUAL,
    REMOVED_REASON_MX,
    REMOVED_REASON_PREQUAL_EXPIRED,
    Item,
    ItemNotFoundError,
    ItemRemovedError,
    ItemStatus,
    MiningMode,
    PlaidItemState,
    ProcessorToken,
    add_processor_token,
    as_persisted,
    as_removed,
    create_item,
    from_item,
    get_item,
    get_item_by_id,
    item_item,
    list_items,
    mark_removed,
    persist_item,
    plaid_item_state,
    refresh_from_plaid,
    refresh_item,
    set_item_ttl,
    set_main_account,
    set_processor_tokens,
)
from chalicelib.data.ttl import epoch
from tests.conftest import new_id

NOW = datetime(2025, 2, 1, 9, 30, tzinfo=UTC)


def an_item(user_id: str, item_id: str | None = None, **kw: object) -> Item:
    fields: dict[str, object] = {
        "institution_id": "ins_3",
        "institution_name": "Chase",
        "available_products": ("balance",),
        "billed_products": ("transactions",),
        **kw,
    }
    return Item(user_id, item_id or new_id("item"), f"access-sandbox-{new_id('t')}", **fields)  # type: ignore[arg-type]


def test_row_shape() -> None:
    # GIVEN a prequal item with a processor token and a ttl
    item = an_item(
        "u1",
        "i1",
        source=ITEM_SOURCE_PREQUAL,
        ttl=1_800_000_000,
        main_account_id="acct-1",
        processor_tokens=(ProcessorToken("dwolla", "acct-1", "processor-sandbox-1"),),
    )

    # WHEN its row is built
    row = item_item(item, NOW)

    # THEN keys and attributes follow the data model; absent optionals are not stored
    assert (row["PK"], row["SK"], row["GSI1PK"], row["GSI1SK"]) == ("USERS#u1", "ITEMS#i1", "ITEMS#i1", "USERS#u1")
    assert row["type"] == "ITEM"
    assert row["item_status"] == "ACTIVE"
    assert row["item_source"] == "PREQUAL"
    assert row["item_created_at"] == "2025-02-01T09:30:00.000000Z"
    assert row["item_processor_tokens"] == [
        {"processor": "dwolla", "processor_token": "processor-sandbox-1", "account_id": "acct-1"}
    ]
    assert row["ttl"] == 1_800_000_000
    assert "item_error_code" not in row
    assert "item_removed_reason" not in row


def test_the_mining_mode_is_stored_only_for_sync_items() -> None:
    # GIVEN an item of each mode WHEN their rows are built and read back
    get_row = item_item(an_item("u1", "i1"), NOW)
    sync_row = item_item(an_item("u1", "i2", mining_mode=MiningMode.SYNC), NOW)
    # THEN only the sync item stores the attribute, and each reads back as it was
    assert "item_mining_mode" not in get_row and sync_row["item_mining_mode"] == "SYNC"
    assert (from_item(get_row).mining_mode, from_item(sync_row).mining_mode) == (MiningMode.GET, MiningMode.SYNC)
    # AND a value the service never writes reads as GET rather than failing every read of the item
    assert from_item({**sync_row, "item_mining_mode": "sync?"}).mining_mode is MiningMode.GET


def test_secrets_stay_out_of_repr() -> None:
    item = an_item("u1", processor_tokens=(ProcessorToken("dwolla", "a", "processor-sandbox-zz"),))
    assert item.access_token not in repr(item)
    assert "processor-sandbox-zz" not in repr(item)


def test_write_back_copies() -> None:
    # GIVEN an expiring prequal item
    item = an_item("u1", source=ITEM_SOURCE_PREQUAL, ttl=123)

    # THEN the feeder's two outcomes drop the ttl, and only removal changes the status
    removed = as_removed(item, REMOVED_REASON_PREQUAL_EXPIRED)
    assert (removed.status, removed.removed_reason, removed.ttl) == (
        ItemStatus.REMOVED,
        REMOVED_REASON_PREQUAL_EXPIRED,
        None,
    )
    assert as_persisted(item).ttl is None
    assert as_persisted(item).status is ItemStatus.ACTIVE


def an_item_get_response(error_code: str | None) -> dict[str, object]:
    """``/item/get`` as the Plaid client returns it (JSON-shaped)."""
    error = {"error_type": "ITEM_ERROR", "error_code": error_code, "error_message": "x"} if error_code else None
    return {
        "item": {
            "item_id": "i",
            "error": error,
            "available_products": ["auth", "identity"],
            "billed_products": ["transactions"],
            "webhook": "https://example.test/v1/plaid",
        },
        "status": {
            "transactions": {
                "last_successful_update": "2025-01-31T10:00:00+00:00",
                "last_failed_update": None,
            },
            "last_webhook": {"sent_at": "2025-02-01T09:01:00+00:00", "code_sent": "DEFAULT_UPDATE"},
        },
        "request_id": "r",
    }


def test_item_get_response_maps_to_state() -> None:
    state = plaid_item_state(an_item_get_response("ITEM_LOGIN_REQUIRED"))
    assert state == PlaidItemState(
        error_code="ITEM_LOGIN_REQUIRED",
        available_products=("auth", "identity"),
        billed_products=("transactions",),
        last_successful_update="2025-01-31T10:00:00+00:00",
        last_failed_update=None,
        last_webhook_sent_at="2025-02-01T09:01:00+00:00",
    )
    assert state.status is ItemStatus.ERROR
    assert plaid_item_state(an_item_get_response(None)).status is ItemStatus.ACTIVE
    assert plaid_item_state({}).status is ItemStatus.ACTIVE


@pytest.mark.integration
def test_refresh_from_an_item_get_response(ddb: str, user_id: str) -> None:
    # GIVEN a stored item
    item = an_item(user_id)
    create_item(item, NOW)

    # WHEN refreshed from Plaid's /item/get
    refreshed = refresh_from_plaid(item, an_item_get_response("ITEM_LOCKED"))

    # THEN the row carries Plaid's view
    assert (refreshed.status, refreshed.error_code) == (ItemStatus.ERROR, "ITEM_LOCKED")
    assert refreshed.last_webhook_sent_at == "2025-02-01T09:01:00+00:00"
    assert get_item(user_id, item.item_id) == refreshed


@pytest.mark.integration
def test_create_is_once_only(ddb: str, user_id: str) -> None:
    # GIVEN a created item
    item = an_item(user_id)
    assert create_item(item, NOW) is True

    # WHEN the create is redelivered with different content
    again = create_item(an_item(user_id, item.item_id, institution_name="Other"), NOW)

    # THEN nothing is overwritten
    assert again is False
    stored = get_item(user_id, item.item_id)
    assert stored is not None
    assert stored.institution_name == "Chase"
    assert stored.access_token == item.access_token


@pytest.mark.integration
def test_list_by_user_and_find_by_item_id(ddb: str, user_id: str) -> None:
    # GIVEN two items and an identity verification in the same user partition
    first, second = an_item(user_id), an_item(user_id)
    create_item(first, NOW)
    create_item(second, NOW)
    put_identity_verification(IdentityVerification(user_id, new_id("idv"), "active", NOW))

    # WHEN listed by user and looked up by item id alone
    listed = list_items(user_id)
    found = get_item_by_id(second.item_id)

    # THEN only ITEM rows are listed, and GSI1 finds the owner
    assert {i.item_id for i in listed} == {first.item_id, second.item_id}
    assert found is not None
    assert found.user_id == user_id
    assert get_item_by_id(new_id("nobody")) is None


@pytest.mark.integration
def test_get_item_by_id_with_two_owners_warns_and_returns_one(
    ddb: str, user_id: str, service_logs: list[logging.LogRecord]
) -> None:
    # GIVEN the same item id stored under two users (should never happen)
    item_id = new_id("item")
    a, b = an_item(user_id, item_id), an_item(user_id + "-twin", item_id)
    create_item(a, NOW)
    create_item(b, NOW)

    # WHEN looked up by item id alone
    found = get_item_by_id(item_id)

    # THEN the first row is returned and a warning names both owners but no token
    assert found is not None
    assert found.user_id == user_id  # GSI1SK order: USERS#<user> < USERS#<user>-twin
    warnings = [r for r in service_logs if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    logged = json.dumps({k: str(v) for k, v in warnings[0].__dict__.items()})
    assert user_id + "-twin" in logged
    assert a.access_token not in logged
    assert b.access_token not in logged


@pytest.mark.integration
def test_refresh_from_plaid_sets_status_by_error_code(ddb: str, user_id: str) -> None:
    # GIVEN an active item
    item = an_item(user_id)
    create_item(item, NOW)

    # WHEN Plaid reports an error, then recovery
    errored = refresh_item(
        user_id,
        item.item_id,
        PlaidItemState(
            error_code="ITEM_LOGIN_REQUIRED",
            available_products=("auth",),
            billed_products=("transactions", "liabilities"),
            last_successful_update="2025-01-31T10:00:00Z",
            last_failed_update="2025-02-01T09:00:00Z",
            last_webhook_sent_at="2025-02-01T09:01:00Z",
        ),
    )
    healed = refresh_item(
        user_id,
        item.item_id,
        PlaidItemState(available_products=("auth",), billed_products=("transactions",)),
    )

    # THEN status follows the code, products and times are Plaid's, a cleared code is gone
    assert errored.status is ItemStatus.ERROR
    assert errored.error_code == "ITEM_LOGIN_REQUIRED"
    assert errored.billed_products == ("transactions", "liabilities")
    assert errored.last_webhook_sent_at == "2025-02-01T09:01:00Z"
    assert healed.status is ItemStatus.ACTIVE
    assert healed.error_code is None
    assert healed.last_failed_update is None
    assert healed.access_token == item.access_token
    raw = tables.plaid().get_item(Key=keys.item_key(user_id, item.item_id))["Item"]
    assert "item_error_code" not in raw


@pytest.mark.integration
def test_removed_is_terminal(ddb: str, user_id: str) -> None:
    # GIVEN a reactivation item with a ttl, then removed
    item = an_item(user_id, ttl=epoch(NOW + timedelta(days=3)), main_account_id="acct-1")
    create_item(item, NOW)
    removed = mark_removed(user_id, item.item_id, REMOVED_REASON_MX)
    again = mark_removed(user_id, item.item_id)

    # THEN removal cleared the ttl, kept the reason on a repeat, and nothing revives the item
    assert (removed.status, removed.removed_reason, removed.ttl) == (ItemStatus.REMOVED, "MX", None)
    assert again.removed_reason == "MX"
    with pytest.raises(ItemRemovedError):
        refresh_item(user_id, item.item_id, PlaidItemState())
    with pytest.raises(ItemRemovedError):
        set_item_ttl(user_id, item.item_id, NOW + timedelta(days=30))
    with pytest.raises(ItemRemovedError):
        set_main_account(user_id, item.item_id, "acct-2")
    stored = get_item(user_id, item.item_id)
    assert stored is not None
    assert (stored.status, stored.main_account_id) == (ItemStatus.REMOVED, "acct-1")


@pytest.mark.integration
def test_updates_never_create_rows(ddb: str, user_id: str) -> None:
    missing = new_id("item")
    with pytest.raises(ItemNotFoundError):
        refresh_item(user_id, missing, PlaidItemState())
    with pytest.raises(ItemNotFoundError):
        mark_removed(user_id, missing)
    with pytest.raises(ItemNotFoundError):
        persist_item(user_id, missing)
    assert get_item(user_id, missing) is None


@pytest.mark.integration
def test_ttl_set_and_persisted(ddb: str, user_id: str) -> None:
    # GIVEN an item that becomes a reactivation item
    item = an_item(user_id)
    create_item(item, NOW)
    expires = datetime(2030, 1, 1, tzinfo=UTC)

    # WHEN a ttl is set, then the item is persisted
    with_ttl = set_item_ttl(user_id, item.item_id, expires)
    persisted = persist_item(user_id, item.item_id)

    # THEN the ttl was epoch seconds and is gone after persist
    assert with_ttl.ttl == epoch(expires)
    assert persisted.ttl is None
    raw = tables.plaid().get_item(Key=keys.item_key(user_id, item.item_id))["Item"]
    assert "ttl" not in raw


@pytest.mark.integration
def test_main_account_change_reports_the_previous_one(ddb: str, user_id: str) -> None:
    item = an_item(user_id)
    create_item(item, NOW)
    assert set_main_account(user_id, item.item_id, "acct-1") is None
    assert set_main_account(user_id, item.item_id, "acct-2") == "acct-1"
    stored = get_item(user_id, item.item_id)
    assert stored is not None
    assert stored.main_account_id == "acct-2"


@pytest.mark.integration
def test_processor_tokens_replace_by_processor_and_account(ddb: str, user_id: str) -> None:
    # GIVEN an item without processor tokens
    item = an_item(user_id)
    create_item(item, NOW)
    first = ProcessorToken("dwolla", "acct-1", "processor-sandbox-1")

    # WHEN a token is added twice, another account's is added, and the first is re-issued
    add_processor_token(user_id, item.item_id, first)
    add_processor_token(user_id, item.item_id, first)
    add_processor_token(user_id, item.item_id, ProcessorToken("dwolla", "acct-2", "processor-sandbox-2"))
    final = add_processor_token(user_id, item.item_id, ProcessorToken("dwolla", "acct-1", "processor-sandbox-3"))

    # THEN one token per processor and account, the newest winning
    assert {(t.account_id, t.processor_token) for t in final.processor_tokens} == {
        ("acct-1", "processor-sandbox-3"),
        ("acct-2", "processor-sandbox-2"),
    }
    cleared = set_processor_tokens(user_id, item.item_id, [])
    assert cleared.processor_tokens == ()


@pytest.mark.integration
def test_ttl_write_back_is_idempotent(ddb: str, user_id: str) -> None:
    # GIVEN a prequal item whose row the TTL reaper deleted (the stream's old image is kept)
    item = an_item(user_id, source=ITEM_SOURCE_PREQUAL, ttl=epoch(NOW))
    create_item(item, NOW)
    tables.plaid().delete_item(Key=keys.item_key(user_id, item.item_id))

    # WHEN the feeder writes it back as removed, and the stream record is redelivered
    assert create_item(as_removed(item, REMOVED_REASON_PREQUAL_EXPIRED), NOW) is True
    assert create_item(as_persisted(item), NOW) is False

    # THEN the first write-back stands, without ttl
    stored = get_item(user_id, item.item_id)
    assert stored is not None
    assert (stored.status, stored.removed_reason, stored.ttl) == (
        ItemStatus.REMOVED,
        REMOVED_REASON_PREQUAL_EXPIRED,
        None,
    )
