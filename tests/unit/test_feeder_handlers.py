"""The feeder over recording fakes of the one seam: what an expiry or an ACCOUNT row makes it do, and not do."""

from __future__ import annotations

import json
from typing import Any

import pytest

from chalicelib.data import accounts, items, layers
from chalicelib.data.accounts import Account, Balances
from chalicelib.peers import UserServiceError
from chalicelib.pipeline import feeder
from chalicelib.pipeline.decisions.feeder import StreamChange
from chalicelib.pipeline.feeder import Outcome
from chalicelib.pipeline.removal import RemovalCause
from tests.unit.fake_effects import NOW, World
from tests.unit.fake_effects import item as new_item

PREQUAL = {"source": items.ITEM_SOURCE_PREQUAL}


def item(**fields: Any) -> items.Item:
    """An ITEM row as stored (its creation time set, as every stored row's is)."""
    fields.setdefault("created_at", "2026-05-01T00:00:00.000000Z")
    return new_item(**fields)


@pytest.fixture
def world() -> World:
    return World()


def expired(row: items.Item) -> StreamChange:
    """TTL's REMOVE record of an ITEM row (the old image as stored)."""
    return StreamChange("1", "REMOVE", True, old_image=items.item_item(row, NOW))


def expire(world: World, row: items.Item) -> Outcome:
    return feeder.route_plaid_change(expired(row), NOW, world.effects)


def metric_outcomes(capsys: pytest.CaptureFixture[str]) -> list[str]:
    """The ``outcome`` of every prequal-expiry metric line printed."""
    found = []
    for line in capsys.readouterr().out.splitlines():
        if feeder.PREQUAL_EXPIRY_METRIC in line:
            found.append(json.loads(line)["outcome"])
    return found


# --- ITEM expiry ------------------------------------------------------------------------------------


def test_an_expired_prequal_item_of_an_active_user_is_written_back_without_ttl(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    # GIVEN an ACTIVE user's prequal item with a main account, deleted by TTL
    world.peers.users["user-1"] = "ACTIVE"
    row = item(ttl=1_700_000_000, **PREQUAL)
    # WHEN the feeder gets its expiry
    assert expire(world, row) is Outcome.ITEM_PERSISTED
    # THEN it is written back as it was, without ttl, and nothing is removed or revoked
    [create] = world.called("store", "create_item")
    assert create.args[0] == items.as_persisted(row) and create.args[0].ttl is None
    assert world.removals.removed == [] and world.removals.revoked == []
    assert metric_outcomes(capsys) == ["persisted"]


@pytest.mark.parametrize("status", ["SUSPENDED", "CLOSED", "PENDING", None])
def test_an_expired_prequal_item_of_a_user_who_is_not_active_is_removed(
    world: World, status: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    # GIVEN a prequal item with a main account; its user is not ACTIVE (or unknown to the User Service)
    if status is not None:
        world.peers.users["user-1"] = status
    row = item(ttl=1_700_000_000, **PREQUAL)
    # WHEN its TTL fires
    assert expire(world, row) is Outcome.ITEM_REMOVED
    # THEN the user was asked, and the item removed as a prequal expiry (written back REMOVED, revoked)
    assert [c.args for c in world.called("peers", "get_user")] == [("user-1",)]
    [(removed, why)] = world.removals.removed
    assert removed == row and (why.cause, why.reason) == (RemovalCause.EXPIRED, items.REMOVED_REASON_PREQUAL_EXPIRED)
    assert world.called("store", "create_item") == []
    assert metric_outcomes(capsys) == ["removed"]


@pytest.mark.parametrize(
    ("row", "reason"),
    [
        # prequal, without a main account: removed, whoever the user is
        (item(main_account_id=None, **PREQUAL), items.REMOVED_REASON_PREQUAL_EXPIRED),
        # reactivation (not prequal): removed even for an active user
        (item(), items.REMOVED_REASON_REACTIVATION_EXPIRED),
        # already REMOVED (written before removal cleared ttl): removed again, keeping its kind's reason
        (item(status=items.ItemStatus.REMOVED, **PREQUAL), items.REMOVED_REASON_PREQUAL_EXPIRED),
    ],
)
def test_any_other_expired_item_is_removed_without_asking_for_the_user(
    world: World, row: items.Item, reason: str
) -> None:
    world.peers.users["user-1"] = "ACTIVE"
    assert expire(world, row) is Outcome.ITEM_REMOVED
    assert world.called("peers") == []
    [(_, why)] = world.removals.removed
    assert (why.cause, why.reason) == (RemovalCause.EXPIRED, reason)


def test_an_expired_item_whose_key_was_taken_again_is_left_alone(world: World) -> None:
    world.removals.outcome = {"removed_now": False, "owned": False, "recreated": True}
    assert expire(world, item()) is Outcome.ITEM_RECREATED


def test_a_failed_user_lookup_fails_the_record_for_a_retry(world: World) -> None:
    # GIVEN an expired prequal item, and a User Service that fails
    world.peers.users["user-1"] = UserServiceError("503")
    change = expired(item(**PREQUAL))
    # WHEN the feeder handles its record THEN it is reported for a retry, and nothing was decided
    record = {"eventName": "REMOVE", "dynamodb": {"SequenceNumber": "42"}}
    response = feeder.process_records([record], lambda _c, at: feeder.route_plaid_change(change, at, world.effects))
    assert response == {"batchItemFailures": [{"itemIdentifier": "42"}]}
    assert world.removals.removed == [] and world.called("store", "create_item") == []


# --- LAYER expiry -------------------------------------------------------------------------------------


def test_an_expired_layer_stub_revokes_only_the_entries_that_never_became_items(world: World) -> None:
    # GIVEN a stub of four entries: one saved as an ITEM, one REMOVED since, one never saved, and
    # one whose item id another user's ITEM row holds
    world.store.add_item(item(item_id="saved"))
    world.store.add_item(item(item_id="removed", status=items.ItemStatus.REMOVED))
    world.store.add_item(item(item_id="elsewhere", user_id="user-2"))
    stub = layers.LayerStub(
        "public-1",
        "user-1",
        tuple(layers.LayerStubEntry(i, f"access-{i}") for i in ("saved", "removed", "orphan", "elsewhere")),
    )
    change = StreamChange("1", "REMOVE", True, old_image=layers.layer_item(stub, NOW))
    # WHEN its TTL fires
    assert feeder.route_transactions_change(change, NOW, world.effects) is Outcome.LAYER_REVOKED
    # THEN only the orphan's token is revoked: the other user's item stays connected
    assert [c.args for c in world.called("removals", "revoke_token")] == [("orphan", "access-orphan")]


# --- ACCOUNT rows ---------------------------------------------------------------------------------------


def account(acct_id: str, item_id: str = "item-1", *, current: int = 12_345, mask: str = "0000") -> Account:
    balances = Balances(current - 1000, current)
    return Account("user-1", item_id, acct_id, "Checking", "depository", balances, "checking", mask)


def written(new: Account, old: Account | None = None) -> StreamChange:
    event = "MODIFY" if old is not None else "INSERT"
    return StreamChange(
        "1",
        event,
        False,
        new_image=accounts.account_item(new, NOW),
        old_image=accounts.account_item(old, NOW) if old is not None else None,
    )


def published(world: World) -> list[tuple[str, bool]]:
    return [(d["account_id"], d["is_main"]) for name, d in world.events.published if name == "new_account"]


@pytest.mark.parametrize(
    ("items_of_user", "is_main"),
    [
        ([item(main_account_id="a1")], True),
        ([item(main_account_id="a2")], False),
        # only an ACTIVE item's main account is main
        ([item(main_account_id="a1", status=items.ItemStatus.ERROR)], False),
        ([item(main_account_id="a1", status=items.ItemStatus.REMOVED)], False),
        # another ACTIVE item of the user may hold it as its main account
        ([item(main_account_id="a2"), item(item_id="item-2", main_account_id="a1")], True),
    ],
)
def test_a_new_account_is_published_with_is_main_as_the_users_items_say(
    world: World, items_of_user: list[items.Item], is_main: bool
) -> None:
    for row in items_of_user:
        world.store.add_item(row)
    assert feeder.route_transactions_change(written(account("a1")), NOW, world.effects) is Outcome.ACCOUNT_PUBLISHED
    assert published(world) == [("a1", is_main)]


@pytest.mark.parametrize(
    ("new", "publishes"),
    [
        (account("a1", current=99), False),  # a mine's balance refresh is not news
        (account("a1"), False),
        (account("a1", mask="9999"), True),
    ],
)
def test_a_rewritten_account_is_published_only_when_what_the_event_carries_changed(
    world: World, new: Account, publishes: bool
) -> None:
    world.store.add_item(item(main_account_id="a1"))
    outcome = feeder.route_transactions_change(written(new, old=account("a1")), NOW, world.effects)
    assert outcome is (Outcome.ACCOUNT_PUBLISHED if publishes else Outcome.ACCOUNT_UNCHANGED)
    assert published(world) == ([("a1", True)] if publishes else [])


def test_a_main_account_change_announces_the_stored_accounts_of_the_item_new_main_first(world: World) -> None:
    # GIVEN an item whose main account moves from a1 to a2; a1 and a2 are stored, a3 belongs to another item
    before = item(main_account_id="a1")
    after = item(main_account_id="a2")
    world.store.add_item(after)
    for acct in (account("a1"), account("a2")):
        world.store.accounts[("user-1", acct.acct_id)] = acct
    change = StreamChange(
        "1", "MODIFY", False, new_image=items.item_item(after, NOW), old_image=items.item_item(before, NOW)
    )
    # WHEN the feeder gets the ITEM's MODIFY
    assert feeder.route_plaid_change(change, NOW, world.effects) is Outcome.MAIN_ACCOUNT_PUBLISHED
    # THEN the new main account is announced as main, then the previous one as no longer main
    assert published(world) == [("a2", True), ("a1", False)]


@pytest.mark.parametrize(
    ("stored", "expected"),
    [
        ({}, []),  # not stored yet: its own INSERT announces it
        ({"a2": account("a2", item_id="item-2")}, []),  # stored, but another item's
    ],
)
def test_a_main_account_change_skips_accounts_not_stored_for_the_item(
    world: World, stored: dict[str, Account], expected: list[Any]
) -> None:
    world.store.add_item(item(main_account_id="a2"))
    world.store.accounts.update({("user-1", k): v for k, v in stored.items()})
    change = StreamChange(
        "1",
        "MODIFY",
        False,
        new_image=items.item_item(item(main_account_id="a2"), NOW),
        old_image=items.item_item(item(main_account_id=None), NOW),
    )
    feeder.route_plaid_change(change, NOW, world.effects)
    assert published(world) == expected


def test_an_item_write_that_keeps_its_main_account_announces_nothing(world: World) -> None:
    row = item(main_account_id="a1")
    image = items.item_item(row, NOW)
    change = StreamChange("1", "MODIFY", False, new_image=image, old_image=dict(image))
    assert feeder.route_plaid_change(change, NOW, world.effects) is Outcome.SKIPPED
    assert world.calls == []
