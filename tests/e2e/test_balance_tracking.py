"""End to end: mined balances reach the savings month and, below the user's threshold, one alert.

The refiner announces every page's balances on the balance-updates queue; the event runtime
delivers it to ``track_balances`` twice per batch and shuffled, as SQS may.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest

from chalicelib.data import items
from chalicelib.insight.data import alerts
from chalicelib.insight.data.savings import get_savings_month
from chalicelib.insight.savings import month_of
from chalicelib.peers import LOW_BALANCE_ALERT
from chalicelib.pipeline.removal import api_removal, remove_item
from ops.fakes.peers import FakePeers
from ops.fakes.plaid import FakeItem, FakePlaid
from ops.runtime import EventRuntime
from tests.e2e.conftest import link_item, new_runtime
from tests.insight.balances import set_threshold

pytestmark = pytest.mark.integration


def cents(amount: Any) -> int:
    return int((Decimal(str(amount)) * 100).to_integral_value())


def spendable_cents(account: dict[str, Any]) -> int:
    amounts = account["balances"]
    return cents(amounts["available"] if amounts["available"] is not None else amounts["current"])


def mine(plaid: FakePlaid, app_url: str, fake: FakeItem, runtime: EventRuntime) -> None:
    hook = {"webhook_type": "TRANSACTIONS", "webhook_code": "DEFAULT_UPDATE", "item_id": fake.item_id}
    assert plaid.send_webhook(f"{app_url}/v1/plaid", hook).status == 200
    assert runtime.drain(timeout=60).idle


def test_mined_balances_give_a_savings_month_and_exactly_one_alert(
    app_url: str, fake_plaid: FakePlaid, fake_peers: FakePeers, runtime: EventRuntime, user_id: str
) -> None:
    # GIVEN a linked item, and a threshold a dollar above what its main (checking) account holds
    fake = link_item(fake_plaid, user_id, transaction_count=30, history_days=20, loans=False)
    set_threshold(user_id, math.ceil(spendable_cents(fake.accounts["checking"]) / 100) + 1)
    runtime = new_runtime(duplicate_delivery=True, shuffle=True, seed=11)
    # WHEN Plaid announces new transactions and the pipeline runs (every batch delivered twice)
    mine(fake_plaid, app_url, fake, runtime)
    # THEN track_balances handled each page's update twice, without a failure
    stats = runtime.stats["track_balances"]
    assert stats.records >= 4 and stats.failures == 0 and stats.errors == 0
    # AND the month holds the savings account at its balance
    month = get_savings_month(user_id, month_of(datetime.now(UTC)))
    assert month is not None
    savings = fake.accounts["savings"]
    assert [(a.account_id, a.amount) for a in month.accounts] == [(savings["account_id"], spendable_cents(savings))]
    # AND the user was alerted exactly once, about the main account
    sent = [m for m in fake_peers.segment.messages if m.get("event") == LOW_BALANCE_ALERT and m["userId"] == user_id]
    assert len(sent) == 1
    assert sent[0]["properties"]["account_id"] == fake.roles()["checking"]
    state = alerts.get_alert(user_id)
    assert state is not None and state.alert_sent

    # WHEN the item is removed
    item = items.get_item(user_id, fake.item_id)
    assert item is not None
    remove_item(item, api_removal(False, is_override=False), datetime.now(UTC))
    assert new_runtime(functions=["track_balances"]).drain(timeout=30).idle
    # THEN its savings account no longer counts in the month
    month = get_savings_month(user_id, month_of(datetime.now(UTC)))
    assert month is not None and month.accounts == () and month.total_available == 0
