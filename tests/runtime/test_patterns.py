"""The Lambda/EventBridge filter-pattern matcher, on its own (no AWS)."""

from __future__ import annotations

from typing import Any

import pytest

from ops.runtime.errors import FilterPatternError
from ops.runtime.patterns import FilterCriteria, FilterPattern
from tests.runtime.factories import ACCOUNT_UPSERT, TTL_REMOVE_OF_LAYER

TTL_IDENTITY = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}


def ddb_record(event_name: str, item_type: str, *, ttl: bool = False, image: str | None = None) -> dict[str, Any]:
    image = image or ("OldImage" if event_name == "REMOVE" else "NewImage")
    record: dict[str, Any] = {
        "eventName": event_name,
        "dynamodb": {image: {"PK": {"S": "USER#1"}, "type": {"S": item_type}}},
    }
    if ttl:
        record["userIdentity"] = dict(TTL_IDENTITY)
    return record


def matches(pattern: dict[str, Any], event: dict[str, Any]) -> bool:
    return FilterPattern.parse(pattern).matches(event)


# --- the declared feeder filters ------------------------------------------------------


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        (ddb_record("REMOVE", "LAYER", ttl=True), True),
        (ddb_record("REMOVE", "LAYER", ttl=False), False),  # a user's delete
        (ddb_record("REMOVE", "ITEM", ttl=True), False),
        (ddb_record("INSERT", "LAYER"), False),
    ],
)
def test_ttl_remove_filter_matches_only_service_deletions_of_its_type(record: dict[str, Any], expected: bool) -> None:
    # GIVEN the declared TTL filter WHEN a record is matched THEN only TTL removes of LAYER rows pass
    assert matches(TTL_REMOVE_OF_LAYER, record) is expected


def test_criteria_or_their_patterns_and_empty_criteria_accept_everything() -> None:
    # GIVEN the feeder's two patterns
    criteria = FilterCriteria.parse([TTL_REMOVE_OF_LAYER, ACCOUNT_UPSERT])
    # THEN a record passes when either pattern matches
    assert criteria.accepts(ddb_record("MODIFY", "ACCOUNT"))
    assert criteria.accepts(ddb_record("REMOVE", "LAYER", ttl=True))
    assert not criteria.accepts(ddb_record("REMOVE", "ACCOUNT", ttl=True))
    assert FilterCriteria().accepts({"anything": 1})


def test_criteria_parse_the_json_strings_lambda_stores() -> None:
    criteria = FilterCriteria.parse(['{"eventName":["INSERT"]}'])
    assert criteria.accepts({"eventName": "INSERT"})
    assert not criteria.accepts({"eventName": "MODIFY"})


# --- matcher syntax -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "value", "expected"),
    [
        (["a", "b"], "b", True),
        (["a", "b"], "c", False),
        ([5], 5.0, True),
        ([5], "5", False),  # JSON types are compared, not text
        (["5"], 5, False),
        ([None], None, True),
        ([True], True, True),
        ([True], 1, False),
        ([{"prefix": "USER#"}], "USER#1", True),
        ([{"prefix": "USER#"}], "ITEM#1", False),
        ([{"prefix": {"equals-ignore-case": "user#"}}], "User#1", True),
        ([{"suffix": ".png"}], "a.png", True),
        ([{"suffix": {"equals-ignore-case": ".PNG"}}], "a.png", True),
        ([{"suffix": ".png"}], "a.jpg", False),
        ([{"equals-ignore-case": "SePft"}], "sepft", True),
        ([{"equals-ignore-case": "sepft"}], "sepf", False),
        ([{"anything-but": ["a", "b"]}], "c", True),
        ([{"anything-but": ["a", "b"]}], "a", False),
        ([{"anything-but": 3}], 4, True),
        ([{"anything-but": {"prefix": "tmp"}}], "tmpfile", False),
        ([{"anything-but": {"prefix": "tmp"}}], "file", True),
        ([{"anything-but": {"equals-ignore-case": ["X"]}}], "x", False),
        ([{"numeric": [">", 0, "<=", 5]}], 5, True),
        ([{"numeric": [">", 0, "<=", 5]}], 0, False),
        ([{"numeric": ["=", 3.5]}], 3.5, True),
        ([{"numeric": [">", 0]}], "7", False),
        ([{"wildcard": "dir/*.png"}], "dir/a/b.png", True),
        ([{"wildcard": "dir/*.png"}], "dir/a.jpg", False),
        ([{"cidr": "10.0.0.0/24"}], "10.0.0.7", True),
        ([{"cidr": "10.0.0.0/24"}], "10.0.1.7", False),
        (["a", {"prefix": "z"}], "zz", True),  # matchers in a leaf are ORed
    ],
)
def test_leaf_matchers(rule: list[Any], value: Any, expected: bool) -> None:
    assert matches({"field": rule}, {"field": value}) is expected


def test_missing_fields_match_only_exists_false() -> None:
    # GIVEN an event without the field
    event = {"other": "x"}
    # THEN value matchers and anything-but do not match, exists:false does
    assert not matches({"field": ["x"]}, event)
    assert not matches({"field": [{"anything-but": ["y"]}]}, event)
    assert not matches({"field": [{"exists": True}]}, event)
    assert matches({"field": [{"exists": False}]}, event)
    # AND exists:false holds when a whole parent object is missing
    assert matches({"dynamodb": {"OldImage": {"ttl": [{"exists": False}]}}}, {"dynamodb": {}})
    assert matches({"dynamodb": {"OldImage": {"ttl": [{"exists": False}]}}}, {})


def test_exists_applies_to_leaves_only() -> None:
    assert matches({"a": [{"exists": True}]}, {"a": "v"})
    assert not matches({"a": [{"exists": True}]}, {"a": {"nested": 1}})
    assert not matches({"a": [{"exists": False}]}, {"a": {"nested": 1}})


def test_nested_objects_descend_and_all_keys_must_match() -> None:
    pattern = {"eventName": ["MODIFY"], "dynamodb": {"NewImage": {"type": {"S": ["ACCOUNT"]}}}}
    assert matches(pattern, ddb_record("MODIFY", "ACCOUNT"))
    assert not matches(pattern, ddb_record("INSERT", "ACCOUNT"))  # AND across keys
    assert not matches(pattern, ddb_record("MODIFY", "ACCOUNT", image="OldImage"))
    assert not matches(pattern, {"eventName": "MODIFY", "dynamodb": "not an object"})


def test_arrays_in_the_event_match_when_any_element_does() -> None:
    assert matches({"tags": ["b"]}, {"tags": ["a", "b"]})
    assert not matches({"tags": ["c"]}, {"tags": ["a", "b"]})
    assert matches({"items": {"kind": ["x"]}}, {"items": [{"kind": "y"}, {"kind": "x"}]})


def test_or_matches_when_any_sub_pattern_does() -> None:
    pattern = {"source": ["a"], "$or": [{"n": [{"numeric": [">", 10]}]}, {"tag": ["vip"]}]}
    assert matches(pattern, {"source": "a", "n": 11})
    assert matches(pattern, {"source": "a", "n": 1, "tag": "vip"})
    assert not matches(pattern, {"source": "a", "n": 1})
    assert not matches(pattern, {"source": "b", "n": 11})


@pytest.mark.parametrize(
    "pattern",
    [
        {"field": "not-a-list"},
        {"field": []},
        {},
        {"field": [{"prefix": 1}]},
        {"field": [{"prefix": "a", "suffix": "b"}]},
        {"field": [{"numeric": [">", "1"]}]},
        {"field": [{"numeric": ["!", 1]}]},
        {"field": [{"exists": "yes"}]},
        {"field": [{"anything-but": []}]},
        {"field": [{"anything-but": {"numeric": [">", 1]}}]},
        {"field": [{"cidr": "not-a-network"}]},
        {"field": [{"regex": "a.*"}]},
        {"$or": [{"a": ["x"]}]},
        {"field": [["nested list"]]},
    ],
)
def test_invalid_patterns_are_rejected_when_compiled(pattern: dict[str, Any]) -> None:
    with pytest.raises(FilterPatternError):
        FilterPattern.parse(pattern)


def test_non_json_pattern_text_is_rejected() -> None:
    with pytest.raises(FilterPatternError):
        FilterPattern.parse("{not json")
    with pytest.raises(FilterPatternError):
        FilterPattern.parse("[1, 2]")
