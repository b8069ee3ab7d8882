"""End to end, an item mined by ``/transactions/sync``: signed webhooks over HTTP, the event runtime
delivering the queues and the stream to the app's handlers, the fake Plaid's cursors.

Sync pages hold 100 updates here (``SYNC_PAGE_SIZE``; 500 in production), so 230 transactions
make the same three-page loop at a fifth of the writes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from chalicelib.data import sync_state, transactions, webhook_info
from chalicelib.data.items import MiningMode
from chalicelib.data.money import dollars_to_cents
from ops.fakes.plaid import FakeItem, FakePlaid, webhooks
from ops.fakes.plaid.sync import Cursor
from ops.runtime import EventRuntime
from tests.conftest import Capture
from tests.e2e.conftest import link_item, new_runtime

pytestmark = [pytest.mark.integration, pytest.mark.slow]

PAGE_SIZE = 100


@pytest.fixture(autouse=True)
def small_pages(override_settings: Callable[..., None]) -> None:
    override_settings(SYNC_PAGE_SIZE=str(PAGE_SIZE))


def live_rows(user_id: str) -> dict[str, int]:
    """The user's listed transactions: id -> amount in cents."""
    rows: dict[str, int] = {}
    cursor = None
    while True:
        page = transactions.list_transactions(user_id, limit=PAGE_SIZE, cursor=cursor)
        rows |= {t.txn_id: t.amount for t in page.transactions}
        if not (cursor := page.cursor):
            return rows


def at_plaid(plaid: FakePlaid, fake: FakeItem) -> dict[str, int]:
    return {t["transaction_id"]: dollars_to_cents(t["amount"]) for t in plaid.item(fake.access_token).transactions}


def sync_calls(plaid: FakePlaid, fake: FakeItem) -> list[dict[str, Any]]:
    return [c.body for c in plaid.calls("/transactions/sync") if c.body["access_token"] == fake.access_token]


def test_a_sync_item_is_mined_page_by_page_and_kept_current(
    app_url: str, fake_plaid: FakePlaid, runtime: EventRuntime, user_id: str, event_capture: Capture
) -> None:
    # GIVEN an item mined by sync, with 230 transactions (three pages of 100)
    fake = link_item(fake_plaid, user_id, mining_mode=MiningMode.SYNC, transaction_count=230, loans=False)
    event_capture.drain()

    # WHEN Plaid sends a signed INITIAL_UPDATE and the pipeline runs
    delivery = fake_plaid.send_webhook(
        f"{app_url}/v1/plaid", webhooks.transactions_update(fake.item_id, "INITIAL_UPDATE")
    )
    assert delivery.status == 200
    assert runtime.drain(timeout=180).idle

    # THEN the miner read the first page and the throttle-miner the other two, without a failure
    stats = runtime.stats
    assert (stats["mine_webhooks"].records, stats["mine_throttled"].records) == (1, 2)
    assert sum(s.failures for s in stats.values()) == 0
    # AND every transaction is stored, the cursor committed where the loop ended, and the batch announced once
    assert live_rows(user_id) == at_plaid(fake_plaid, fake)
    state = sync_state.get_sync_state(user_id, fake.item_id)
    assert state.cursor == Cursor(fake.item_id, 1).encode() and not state.running
    announced = event_capture.matching(
        lambda e: e["detail-type"] == "user_new_txns_batch_completed" and e["detail"]["item_id"] == fake.item_id
    )
    assert [e["detail"]["mine_id"] for e in announced] == [state.last_loop]

    # WHEN Plaid changes, removes and adds transactions, fails the next page once, and says SYNC_UPDATES_AVAILABLE
    fake_plaid.modify_transactions(fake.access_token, count=5)
    fake_plaid.remove_transactions(fake.access_token, [fake.transactions[0]["transaction_id"]])
    fake_plaid.add_transactions(fake.access_token, 7)
    fake_plaid.fail("/transactions/sync", "INTERNAL_SERVER_ERROR", access_token=fake.access_token)
    delivery = fake_plaid.send_webhook(f"{app_url}/v1/plaid", webhooks.sync_updates_available(fake.item_id))
    assert delivery.status == 200
    assert runtime.drain(timeout=60).idle

    # THEN the retried pull read from the committed cursor and the rows are Plaid's again
    assert [c.get("cursor") for c in sync_calls(fake_plaid, fake)[-2:]] == [state.cursor, state.cursor]
    assert live_rows(user_id) == at_plaid(fake_plaid, fake)
    codes = {w.webhook_code for w in webhook_info.transaction_webhooks(fake.item_id)}
    assert codes == {"INITIAL_UPDATE", "SYNC_UPDATES_AVAILABLE"}


def test_duplicate_delivery_of_every_step_leaves_the_same_rows_and_one_commit(
    app_url: str, fake_plaid: FakePlaid, runtime: EventRuntime, user_id: str
) -> None:
    # GIVEN a sync item of 230 transactions (three pages), mined with every message and record delivered twice
    fake = link_item(fake_plaid, user_id, mining_mode=MiningMode.SYNC, transaction_count=230, loans=False)
    noisy = new_runtime(duplicate_delivery=True, shuffle=True, seed=11)
    # WHEN its HISTORICAL_UPDATE is mined
    assert (
        fake_plaid.send_webhook(
            f"{app_url}/v1/plaid", webhooks.transactions_update(fake.item_id, "HISTORICAL_UPDATE")
        ).status
        == 200
    )
    noisy.drain(timeout=180)
    # THEN the rows are Plaid's, the loop committed once at the end, and nothing is left running
    assert live_rows(user_id) == at_plaid(fake_plaid, fake)
    state = sync_state.get_sync_state(user_id, fake.item_id)
    assert state.cursor == Cursor(fake.item_id, 1).encode() and not state.running
    # AND the duplicates of each page read it at most once more: the chain never forked
    assert len(sync_calls(fake_plaid, fake)) <= 6
