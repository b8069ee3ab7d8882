"""End to end: a user heading below their threshold before payday gets exactly one predicted alert.

Plaid's history is mined, refined and announced; the event runtime delivers the balance
updates to ``track_balances`` twice per batch and shuffled, as SQS may. The day is fixed
(the fake Plaid draws its history relative to "today"), so the test knows its rows.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

from chalicelib import clock
from chalicelib.insight.cash_flow import user_forecast
from chalicelib.insight.data import alerts
from chalicelib.insight.data.alerts import AlertKind
from chalicelib.insight.forecast import MAX_DAYS
from chalicelib.peers import LOW_BALANCE_ALERT, LOW_BALANCE_PREDICTED
from chalicelib.settings import LOW_BALANCE_PREDICTION_LEVEL
from ops.fakes.peers import FakePeers
from ops.fakes.plaid import FakeItem, FakePlaid
from ops.runtime import EventRuntime
from tests.e2e.conftest import empty_pipeline_queues, link_item, new_runtime
from tests.insight.balances import set_threshold

pytestmark = pytest.mark.integration

#: A Monday; the fake item of SEED is paid every other Friday (next on 4 December) and pays rent on the 1st.
DAY = datetime(2026, 11, 23, 15, 0, tzinfo=UTC)
SEED = 31


@pytest.fixture
def fixed_day() -> Iterator[datetime]:
    """The process clock from ``DAY``, running in real time (tokens, webhooks and rows agree)."""
    started = time.monotonic()
    with clock.using(lambda: DAY + timedelta(seconds=time.monotonic() - started)):
        yield DAY


def mine(plaid: FakePlaid, app_url: str, fake: FakeItem, runtime: EventRuntime, code: str) -> None:
    hook = {"webhook_type": "TRANSACTIONS", "webhook_code": code, "item_id": fake.item_id}
    assert plaid.send_webhook(f"{app_url}/v1/plaid", hook).status == 200
    assert runtime.drain(timeout=120).idle


def events(peers: FakePeers, user_id: str, event: str) -> list[dict[str, Any]]:
    """Every message of ``event`` Segment received for the user, duplicates included."""
    return [m for m in peers.segment.messages if m.get("event") == event and m["userId"] == user_id]


def test_a_user_heading_below_the_threshold_gets_exactly_one_predicted_alert(
    fixed_day: datetime, app_url: str, fake_plaid: FakePlaid, fake_peers: FakePeers, user_id: str
) -> None:
    # GIVEN a linked item whose 120 days of history are mined, alerts off
    empty_pipeline_queues()
    fake = link_item(fake_plaid, user_id, transaction_count=450, history_days=120, loans=False, seed=SEED)
    mine(fake_plaid, app_url, fake, new_runtime(), "HISTORICAL_UPDATE")
    # AND a threshold a quarter of the way down from today's balance to the lowest projected
    # balance before payday: not low now, and the forecast expects to cross it
    found = user_forecast(user_id, clock.utcnow(), MAX_DAYS).forecast
    assert found.confidence != "none" and found.next_payday == date(2026, 12, 4)
    assert found.starting_balance_cents is not None
    before_payday = [d.balance_cents for d in found.days if d.date <= found.next_payday]
    dip = found.starting_balance_cents - min(before_payday)
    assert dip > 40_000, f"the fake item of seed {SEED} should dip by more than $400 before payday: {found}"
    threshold = (found.starting_balance_cents - dip // 4) // 100
    set_threshold(user_id, threshold)
    risk = user_forecast(user_id, clock.utcnow(), MAX_DAYS).forecast.risk_below_threshold
    assert risk is not None and risk > LOW_BALANCE_PREDICTION_LEVEL
    # WHEN Plaid announces new transactions and every batch of balance updates is delivered twice
    runtime = new_runtime(duplicate_delivery=True, shuffle=True, seed=7)
    mine(fake_plaid, app_url, fake, runtime, "DEFAULT_UPDATE")
    stats = runtime.stats["track_balances"]
    assert stats.records >= 2 and stats.failures == 0 and stats.errors == 0
    # THEN the user was told once that the balance is heading below the threshold, and not that it is low
    sent = events(fake_peers, user_id, LOW_BALANCE_PREDICTED)
    assert len({m["messageId"] for m in sent}) == 1
    properties = sent[0]["properties"]
    assert properties["threshold"] == threshold * 100 and properties["probability"] > LOW_BALANCE_PREDICTION_LEVEL
    assert properties["predicted_balance"] < threshold * 100
    assert properties["next_payday"] == found.next_payday.isoformat()
    assert events(fake_peers, user_id, LOW_BALANCE_ALERT) == []
    state = alerts.get_alert(user_id, AlertKind.PREDICTED)
    assert state is not None and state.alert_sent
    # AND another mine (delivered twice again) tells them nothing more
    mine(fake_plaid, app_url, fake, new_runtime(duplicate_delivery=True, shuffle=True, seed=8), "DEFAULT_UPDATE")
    assert len({m["messageId"] for m in events(fake_peers, user_id, LOW_BALANCE_PREDICTED)}) == 1
