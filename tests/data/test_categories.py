"""CATEGORY: the whole tree in one Query, one category by id through GSI1."""

from __future__ import annotations

import logging

import pytest

from chalicelib.data import tables
from chalicelib.data.categories import (
    Category,
    category_from_plaid,
    category_item,
    get_category,
    list_categories,
    put_categories,
)
from chalicelib.errors import ValidationError
from tests.conftest import new_id


def a_category(*hierarchy: str, category_id: str | None = None) -> Category:
    return Category(category_id or new_id("cat"), hierarchy or ("Food and Drink", "Restaurants"), "place")


def test_row_keys_follow_the_hierarchy() -> None:
    # GIVEN a two-level category
    category = a_category("Food and Drink", "Restaurants", category_id="13005000")

    # WHEN its row is built
    row = category_item(category)

    # THEN it sits in the CATEGORIES partition, sorted by hierarchy, findable by id
    assert row["PK"] == "CATEGORIES"
    assert row["SK"] == "HIERARCHY#Food and Drink#Restaurants"
    assert row["GSI1PK"] == row["GSI1SK"] == "CATEGORY#13005000"
    assert row["type"] == "CATEGORY"
    assert row["hierarchy"] == ["Food and Drink", "Restaurants"]
    assert "ttl" not in row


def test_empty_hierarchy_is_refused() -> None:
    with pytest.raises(ValidationError):
        category_item(Category("1", ()))


def test_plaid_shape_is_read() -> None:
    payload = {"category_id": "10000000", "group": "special", "hierarchy": ["Bank Fees"]}
    assert category_from_plaid(payload) == Category("10000000", ("Bank Fees",), "special")


@pytest.mark.integration
def test_loaded_categories_are_listed_and_found_by_id(ddb: str) -> None:
    # GIVEN categories loaded twice (the loader is idempotent)
    tag = new_id("tree")
    parent = a_category(tag, "Parent")
    child = a_category(tag, "Parent", "Child")
    put_categories([child, parent])
    put_categories([child, parent])

    # WHEN every category is listed and one is fetched by id
    mine = [c for c in list_categories() if c.hierarchy[0] == tag]
    found = get_category(child.category_id)

    # THEN each is there once, in hierarchy order, and the id lookup returns it
    assert mine == [parent, child]
    assert found == child
    assert get_category(new_id("missing")) is None


@pytest.mark.integration
def test_duplicate_category_id_warns_and_returns_the_first(ddb: str, service_logs: list[logging.LogRecord]) -> None:
    # GIVEN one id stored under two hierarchies (a re-parented category loaded over an old tree)
    category_id = new_id("cat")
    tag = new_id("tree")
    tables.transactions().put_item(Item=category_item(Category(category_id, (tag, "Old"))))
    tables.transactions().put_item(Item=category_item(Category(category_id, (tag, "New"))))

    # WHEN it is fetched by id
    found = get_category(category_id)

    # THEN a row is returned and the anomaly is logged
    assert found is not None
    assert found.category_id == category_id
    assert any(r.levelno == logging.WARNING and "more than one row" in r.getMessage() for r in service_logs)
