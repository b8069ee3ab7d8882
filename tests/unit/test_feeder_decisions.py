"""The feeder's decisions as tables (chalicelib.pipeline.decisions.feeder): what a record is, what an
expiry does, when ``new_account`` goes out and with which ``is_main``."""

from __future__ import annotations

from typing import Any

import pytest

from chalicelib.data.accounts import Account, Balances
from chalicelib.data.items import (
    ITEM_SOURCE_PREQUAL,
    REMOVED_REASON_PREQUAL_EXPIRED,
    REMOVED_REASON_REACTIVATION_EXPIRED,
    ItemStatus,
)
from chalicelib.pipeline.decisions.feeder import (
    Change,
    ItemExpiry,
    StreamChange,
    StubEntryFate,
    announces,
    asks_user_status,
    is_main_account,
    item_expiry,
    main_account_announcements,
    main_since,
    plaid_change,
    publishes_account,
    stub_entry_fate,
    transactions_change,
)
from chalicelib.pipeline.removal import expiry_removal
from tests.unit.fake_effects import item


def change(event: str, *, old: str | None = None, new: str | None = None, ttl: bool = False) -> StreamChange:
    return StreamChange(
        "1",
        event,
        ttl,
        new_image={"type": new} if new else None,
        old_image={"type": old} if old else None,
    )


@pytest.mark.parametrize(
    ("record", "transactions_table", "plaid_table"),
    [
        (change("REMOVE", old="LAYER", ttl=True), Change.LAYER_EXPIRED, Change.OTHER),
        (change("REMOVE", old="ITEM", ttl=True), Change.OTHER, Change.ITEM_EXPIRED),
        # a delete by anyone but TTL is not an expiry
        (change("REMOVE", old="LAYER"), Change.OTHER, Change.OTHER),
        (change("REMOVE", old="ITEM"), Change.OTHER, Change.OTHER),
        (change("INSERT", new="ACCOUNT"), Change.ACCOUNT_WRITTEN, Change.OTHER),
        (change("MODIFY", old="ACCOUNT", new="ACCOUNT"), Change.ACCOUNT_WRITTEN, Change.OTHER),
        (change("MODIFY", old="ITEM", new="ITEM"), Change.OTHER, Change.ITEM_MODIFIED),
        (change("INSERT", new="ITEM"), Change.OTHER, Change.OTHER),
        (change("REMOVE", old="ACCOUNT", ttl=True), Change.OTHER, Change.OTHER),
        (change("INSERT", new="TRANSACTION"), Change.OTHER, Change.OTHER),
        (change("REMOVE", ttl=True), Change.OTHER, Change.OTHER),
    ],
)
def test_what_a_record_is_to_each_feeder(record: StreamChange, transactions_table: Change, plaid_table: Change) -> None:
    assert transactions_change(record) is transactions_table
    assert plaid_change(record) is plaid_table


def test_a_stub_entry_is_revoked_only_without_an_item_row_and_another_users_row_is_reported() -> None:
    # GIVEN no ITEM row for the entry's item THEN it is revoked
    assert stub_entry_fate(None, "user-1") is StubEntryFate.REVOKE
    for status in ItemStatus:
        # GIVEN the stub's user holds it (any status) THEN it is kept
        assert stub_entry_fate(item(status=status, user_id="user-1"), "user-1") is StubEntryFate.OWNED, status
        # GIVEN another user's row holds it THEN it is kept, never revoked, and reported
        assert stub_entry_fate(item(status=status, user_id="user-2"), "user-1") is StubEntryFate.FOREIGN, status


PREQUAL = {"source": ITEM_SOURCE_PREQUAL}


@pytest.mark.parametrize(
    ("row", "user_active", "asks", "expected", "reason"),
    [
        # prequal, with a main account: the user's status decides
        (item(**PREQUAL), True, True, ItemExpiry.PERSIST, None),
        (item(**PREQUAL), False, True, ItemExpiry.REMOVE, REMOVED_REASON_PREQUAL_EXPIRED),
        (item(status=ItemStatus.ERROR, **PREQUAL), True, True, ItemExpiry.PERSIST, None),
        # prequal without a main account: removed, the user not asked
        (item(main_account_id=None, **PREQUAL), None, False, ItemExpiry.REMOVE, REMOVED_REASON_PREQUAL_EXPIRED),
        # not prequal (reactivation): removed, the user not asked
        (item(), None, False, ItemExpiry.REMOVE, REMOVED_REASON_REACTIVATION_EXPIRED),
        (item(main_account_id=None), None, False, ItemExpiry.REMOVE, REMOVED_REASON_REACTIVATION_EXPIRED),
        # already REMOVED (written before removal cleared ttl): removed again, the user not asked
        (item(status=ItemStatus.REMOVED, **PREQUAL), None, False, ItemExpiry.REMOVE, REMOVED_REASON_PREQUAL_EXPIRED),
        (item(status=ItemStatus.REMOVED), None, False, ItemExpiry.REMOVE, REMOVED_REASON_REACTIVATION_EXPIRED),
    ],
)
def test_item_expiry(row: Any, user_active: bool | None, asks: bool, expected: ItemExpiry, reason: str | None) -> None:
    # GIVEN the old image of an item TTL deleted, and the User Service's answer if asked
    assert asks_user_status(row) is asks
    # WHEN its fate is decided THEN it is kept or removed, with the reason its kind gives
    assert item_expiry(row, user_active) is expected
    if expected is ItemExpiry.REMOVE:
        assert expiry_removal(row).reason == reason


ACCOUNT_ROW: dict[str, Any] = {
    "type": "ACCOUNT",
    "item_id": "i1",
    "acct_name": "Checking",
    "acct_mask": "0000",
    "acct_balances": {"bal_current": 1},
}


@pytest.mark.parametrize(
    ("event", "old", "new", "publishes"),
    [
        ("INSERT", None, ACCOUNT_ROW, True),
        ("MODIFY", ACCOUNT_ROW, {**ACCOUNT_ROW, "acct_mask": "9999"}, True),
        ("MODIFY", {"type": "OTHER"}, ACCOUNT_ROW, True),
        ("MODIFY", None, ACCOUNT_ROW, True),
        # a mine's balance refresh is not news
        ("MODIFY", ACCOUNT_ROW, {**ACCOUNT_ROW, "acct_balances": {"bal_current": 2}}, False),
        ("MODIFY", ACCOUNT_ROW, ACCOUNT_ROW, False),
    ],
)
def test_publishes_account(event: str, old: dict[str, Any] | None, new: dict[str, Any], publishes: bool) -> None:
    assert publishes_account(StreamChange("1", event, False, new_image=new, old_image=old)) is publishes


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        ("a1", "a1", None),
        (None, None, None),
        ("a1", "a2", ("a2", "a1")),
        (None, "a2", ("a2",)),
        ("a1", None, ("a1",)),
    ],
)
def test_main_account_announcements(before: str | None, after: str | None, expected: tuple[str, ...] | None) -> None:
    old = {"type": "ITEM", "main_account_id": before}
    new = {"type": "ITEM", "main_account_id": after}
    assert main_account_announcements(old, new) == expected


def account(acct_id: str, item_id: str = "item-1") -> Account:
    return Account("user-1", item_id, acct_id, "Checking", "depository", Balances(100, 100), "checking", "0000")


def test_a_main_account_change_announces_only_stored_accounts_of_the_item() -> None:
    owner = item(item_id="item-1")
    assert announces(account("a1"), owner)
    assert not announces(account("a1", item_id="item-2"), owner)
    assert not announces(None, owner)


@pytest.mark.parametrize(
    ("items", "is_main", "since"),
    [
        ([item(main_account_id="a1")], True, None),
        (
            [item(main_account_id="a1", main_account_changed_at="2026-05-16T00:00:00.000000Z")],
            True,
            "2026-05-16T00:00:00.000000Z",
        ),
        # only an ACTIVE item's main account is main
        ([item(main_account_id="a1", status=ItemStatus.ERROR)], False, None),
        ([item(main_account_id="a1", status=ItemStatus.REMOVED)], False, None),
        ([item(main_account_id="a2")], False, None),
        # another ACTIVE item of the user may hold it as main
        ([item(main_account_id="a2"), item(item_id="item-2", main_account_id="a1")], True, None),
        # the account's own item is unknown: no change time
        ([item(item_id="item-2", main_account_id="a1")], True, None),
        ([], False, None),
    ],
)
def test_is_main_and_main_since(items: list[Any], is_main: bool, since: str | None) -> None:
    assert is_main_account(account("a1"), items) is is_main
    assert main_since(account("a1"), items) == since
