"""alert rows: one alert per 7 days, claimed first, resumable after a crash, fenced."""

from __future__ import annotations

from datetime import timedelta

import pytest

from chalicelib.insight.data import keys, tables
from chalicelib.insight.data.alerts import Claim, claim_cooldown, get_alert, mark_sent
from tests.insight.data.conftest import NOW, stored

pytestmark = pytest.mark.integration

BALANCES = {"balance_setting": 5_000, "available_balance": 1_234, "current_balance": 2_000}


def test_first_claim_writes_the_row_unsent(ddb: str, user_id: str) -> None:
    claim = claim_cooldown(user_id, NOW, **BALANCES)
    assert claim == Claim(user_id, NOW, resumed=False)
    row = stored(tables.pave(), keys.alert_key(user_id))
    assert row is not None
    assert (row["PK"], row["SK"], row["type"]) == (f"USERS#{user_id}", f"ALERT#{user_id}", "ALERT")
    assert row["alert_sent"] is False
    assert (row["balance_setting"], row["available_balance"], row["current_balance"]) == (5_000, 1_234, 2_000)
    assert "ttl" not in row


def test_a_sent_alert_holds_the_cooldown_for_seven_days(ddb: str, user_id: str) -> None:
    # GIVEN an alert claimed and sent
    claim = claim_cooldown(user_id, NOW, **BALANCES)
    assert claim is not None and mark_sent(claim) is True
    # THEN within 7 days nothing can be claimed
    assert claim_cooldown(user_id, NOW + timedelta(days=6, hours=23), **BALANCES) is None
    # AND at 7 days a new claim starts, with its own idempotency key
    later = claim_cooldown(user_id, NOW + timedelta(days=7), **BALANCES)
    assert later == Claim(user_id, NOW + timedelta(days=7), resumed=False)
    assert later.idempotency_key != claim.idempotency_key


def test_a_claim_never_marked_sent_is_resumed_with_the_same_key(ddb: str, user_id: str) -> None:
    # GIVEN a claim whose notification may or may not have gone out (crash before mark_sent)
    first = claim_cooldown(user_id, NOW, **BALANCES)
    assert first is not None
    # WHEN the message is redelivered a minute later
    again = claim_cooldown(user_id, NOW + timedelta(minutes=1), **BALANCES)
    # THEN the same claim comes back, so the notification is retried under the same key
    assert again == Claim(user_id, NOW, resumed=True)
    assert again.idempotency_key == first.idempotency_key == f"balance-alert:{user_id}:2026-11-20T12:30:00.123456Z"
    # AND once sent, marking it again is harmless, and the cooldown holds
    assert mark_sent(again) is True
    assert mark_sent(first) is True
    assert get_alert(user_id).alert_sent is True  # type: ignore[union-attr]
    assert claim_cooldown(user_id, NOW + timedelta(minutes=2), **BALANCES) is None


def test_marking_a_claim_the_row_no_longer_holds_fails(ddb: str, user_id: str) -> None:
    claim = claim_cooldown(user_id, NOW, **BALANCES)
    assert claim is not None
    assert mark_sent(Claim(user_id, NOW - timedelta(days=30), resumed=False)) is False
    assert get_alert(user_id).alert_sent is False  # type: ignore[union-attr]


def test_a_stale_fence_can_neither_claim_nor_mark(ddb: str, user_id: str) -> None:
    # GIVEN holder 2 (fence 2) claimed after holder 1's lease was taken over
    claim = claim_cooldown(user_id, NOW, fence=2, **BALANCES)
    assert claim is not None
    # WHEN the stalled holder 1 wakes up THEN it cannot resume the claim nor mark it
    assert claim_cooldown(user_id, NOW, fence=1, **BALANCES) is None
    assert mark_sent(claim, fence=1) is False
    # AND the current holder can
    assert mark_sent(claim, fence=2) is True
    assert get_alert(user_id).fence == 2  # type: ignore[union-attr]


def test_an_old_unsent_claim_is_resumed_not_replaced(ddb: str, user_id: str) -> None:
    claim_cooldown(user_id, NOW, **BALANCES)
    later = claim_cooldown(user_id, NOW + timedelta(days=10), **BALANCES)
    assert later == Claim(user_id, NOW, resumed=True)
