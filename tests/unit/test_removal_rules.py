"""Pure rules of item removal: which reason each cause stores, and what the re-link rule replaces."""

from __future__ import annotations

import dataclasses

import pytest

from chalicelib.data.items import (
    ITEM_SOURCE_PREQUAL,
    REMOVED_REASON_MX,
    REMOVED_REASON_PREQUAL_EXPIRED,
    REMOVED_REASON_REACTIVATION_EXPIRED,
    REMOVED_REASON_RELINKED,
    Item,
    ItemStatus,
)
from chalicelib.pipeline.relink import is_replaceable, same_login
from chalicelib.pipeline.removal import (
    RemovalCause,
    api_removal,
    expiry_removal,
    permission_revoked_removal,
    relink_removal,
)

CHECKING = ("0000", "depository", "checking")
SAVINGS = ("1111", "depository", "savings")
CARD = ("3333", "credit", "credit card")


def an_item(item_id: str, *accounts: tuple[str, str, str], institution: str | None = "ins_1", **kw: object) -> Item:
    return Item("u1", item_id, "access-x", institution_id=institution, link_accounts=frozenset(accounts) or None, **kw)  # type: ignore[arg-type]


def test_each_cause_stores_its_reason() -> None:
    assert api_removal(True, is_override=True).reason == REMOVED_REASON_MX
    assert api_removal(False, is_override=False).reason is None
    assert permission_revoked_removal().reason is None
    assert expiry_removal(Item("u", "i", "t", source=ITEM_SOURCE_PREQUAL)).reason == REMOVED_REASON_PREQUAL_EXPIRED
    assert expiry_removal(Item("u", "i", "t")).reason == REMOVED_REASON_REACTIVATION_EXPIRED
    relinked = relink_removal("new", is_override=False)
    assert (relinked.cause, relinked.reason, relinked.replaced_by) == (
        RemovalCause.RELINKED,
        REMOVED_REASON_RELINKED,
        "new",
    )


@pytest.mark.parametrize(
    ("old", "same"),
    [
        (an_item("old", CHECKING, SAVINGS), True),  # the same accounts at the same bank
        (an_item("old", SAVINGS, CHECKING), True),  # order does not matter
        (an_item("old", CHECKING), False),  # a subset is another login
        (an_item("old", CHECKING, SAVINGS, CARD), False),  # so is a superset
        (an_item("old", ("9999", "depository", "checking"), SAVINGS), False),  # another mask
        (an_item("old", ("0000", "depository", "savings"), SAVINGS), False),  # another subtype
        (an_item("old", CHECKING, SAVINGS, institution="ins_2"), False),  # another bank
        (an_item("old"), False),  # accounts unknown: keep both
    ],
)
def test_same_login_needs_the_same_bank_and_an_equal_set_of_accounts(old: Item, same: bool) -> None:
    new = an_item("new", CHECKING, SAVINGS)
    assert same_login(new, old) is same
    assert same_login(old, new) is same


def test_unknown_accounts_or_bank_on_the_new_side_match_nothing() -> None:
    old = an_item("old", CHECKING)
    assert not same_login(an_item("new"), old)
    assert not same_login(an_item("new", CHECKING, institution=None), an_item("old", CHECKING, institution=None))


def test_the_rule_replaces_live_items_and_finishes_only_its_own_removals() -> None:
    new = an_item("new", CHECKING)
    live = an_item("old", CHECKING, status=ItemStatus.ERROR)
    assert is_replaceable(new, live)
    assert not is_replaceable(new, new), "never the new item itself"
    mine = dataclasses.replace(live, status=ItemStatus.REMOVED, removed_cause="RELINKED", replaced_by="new")
    assert is_replaceable(new, mine), "a removal this link began is finished"
    assert not is_replaceable(new, dataclasses.replace(mine, replaced_by="another"))
    assert not is_replaceable(new, dataclasses.replace(mine, removed_cause="API"))
