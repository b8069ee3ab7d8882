"""The listener's pure parts: its decision table (chalicelib.pipeline.decisions.listener) and the Auth0 envelope."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from chalicelib.data.items import ItemStatus
from chalicelib.errors import ValidationError
from chalicelib.pipeline.decisions.listener import Action, PastWebhook, considered, decide
from chalicelib.pipeline.listener import parse_created_at, parse_login
from tests.unit.fake_effects import item

NOW = datetime(2026, 5, 16, 12, 0, tzinfo=UTC)


def ago(**delta: float) -> datetime:
    return NOW - timedelta(**delta)


def rows(*pairs: tuple[str, datetime]) -> list[PastWebhook]:
    return [PastWebhook(code, at) for code, at in pairs]


@pytest.mark.parametrize(
    ("case", "history", "created_at", "expected"),
    [
        # a mine within 24 hours skips, whatever the item's age
        ("recent DEFAULT_UPDATE", rows(("DEFAULT_UPDATE", ago(hours=2))), ago(days=90), Action.SKIP),
        ("recent INITIAL_UPDATE", rows(("INITIAL_UPDATE", ago(hours=23))), ago(days=1), Action.SKIP),
        ("recent HISTORICAL_UPDATE", rows(("HISTORICAL_UPDATE", ago(hours=1))), ago(days=1), Action.SKIP),
        ("exactly 24 hours ago", rows(("DEFAULT_UPDATE", ago(hours=24))), ago(days=90), Action.SKIP),
        # a sync item's pull is a mine too
        ("recent sync pull", rows(("SYNC_UPDATES_AVAILABLE", ago(hours=3))), ago(days=90), Action.SKIP),
        ("stale sync pull", rows(("SYNC_UPDATES_AVAILABLE", ago(hours=25))), ago(days=90), Action.DEFAULT_UPDATE),
        # TRANSACTIONS_REMOVED is not a mine
        (
            "recent REMOVED only, young",
            rows(("TRANSACTIONS_REMOVED", ago(hours=1))),
            ago(days=3),
            Action.HISTORICAL_UPDATE,
        ),
        # young item without HISTORICAL_UPDATE
        ("young, no rows", rows(), ago(days=2), Action.HISTORICAL_UPDATE),
        ("young, old DEFAULT only", rows(("DEFAULT_UPDATE", ago(days=2))), ago(days=29), Action.HISTORICAL_UPDATE),
        # anything else
        ("young, with an old HISTORICAL", rows(("HISTORICAL_UPDATE", ago(days=3))), ago(days=5), Action.DEFAULT_UPDATE),
        ("30 days old, no rows", rows(), ago(days=30), Action.DEFAULT_UPDATE),
        ("old, no rows", rows(), ago(days=200), Action.DEFAULT_UPDATE),
        ("old, stale mines", rows(("DEFAULT_UPDATE", ago(hours=25))), ago(days=60), Action.DEFAULT_UPDATE),
        ("creation unknown, no rows", rows(), None, Action.DEFAULT_UPDATE),
    ],
)
def test_decision_table(case: str, history: list[PastWebhook], created_at: datetime | None, expected: Action) -> None:
    # GIVEN an ACTIVE item's TRANSACTIONS history and creation time
    # WHEN the listener decides
    # THEN it follows the documented table
    assert decide(history, created_at, NOW) is expected, case


@pytest.mark.parametrize(("status", "expected"), [(s, s is ItemStatus.ACTIVE) for s in ItemStatus])
def test_only_active_items_are_considered(status: ItemStatus, expected: bool) -> None:
    # GIVEN a user's item WHEN they log in THEN only an ACTIVE item goes on to the table
    assert considered(item(status=status)) is expected


def envelope(event_type: Any = "gd_auth_succeed", user_id: Any = "auth0|abc", **extra: Any) -> str:
    data: dict[str, Any] = {"type": event_type, "user_id": user_id, "ip": "10.0.0.1"}
    return json.dumps(
        {
            "version": "0",
            "id": "evt-1",
            "detail-type": "Auth0 log",
            "source": "aws.partner/auth0.com/tenant/auth0.logs",
            "time": "2026-05-16T11:59:00Z",
            "detail": {"log_id": "90020", "data": data},
            **extra,
        }
    )


@pytest.mark.parametrize("event_type", ["gd_auth_succeed", "GD_AUTH_SUCCEED", "sepft", "SePfT", "sertft", "SERTFT"])
def test_login_types_match_in_any_case(event_type: str) -> None:
    login = parse_login(envelope(event_type))
    assert login is not None
    assert login.event_type == event_type
    assert login.event_id == "evt-1"
    assert login.time == datetime(2026, 5, 16, 11, 59, tzinfo=UTC)


@pytest.mark.parametrize("event_type", ["s", "f", "gd_auth_failed", "seccft", "", None])
def test_other_event_types_are_not_logins(event_type: str | None) -> None:
    assert parse_login(envelope(event_type)) is None


@pytest.mark.parametrize(
    ("raw", "expected"), [("auth0|abc", "abc"), ("abc", "abc"), ("google-oauth2|9", "google-oauth2|9")]
)
def test_only_the_auth0_prefix_is_stripped(raw: str, expected: str) -> None:
    login = parse_login(envelope(user_id=raw))
    assert login is not None and login.user_id == expected


@pytest.mark.parametrize(
    "body",
    [
        "not json",
        json.dumps([1, 2]),
        json.dumps({"detail": {}}),
        json.dumps({"detail": {"data": "x"}}),
        envelope(user_id=None),
        envelope(user_id="auth0|"),
    ],
)
def test_malformed_logins_raise_validation_errors(body: str) -> None:
    with pytest.raises(ValidationError):
        parse_login(body)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("2026-05-01T10:00:00.000000Z", datetime(2026, 5, 1, 10, tzinfo=UTC)),
        ("2026-05-01T10:00:00+00:00", datetime(2026, 5, 1, 10, tzinfo=UTC)),
        ("2026-05-01T10:00:00", datetime(2026, 5, 1, 10, tzinfo=UTC)),
        ("yesterday", None),
        (None, None),
        ("", None),
    ],
)
def test_item_creation_times_parse_or_count_as_unknown(raw: str | None, expected: datetime | None) -> None:
    assert parse_created_at(raw) == expected
