"""End to end: a mined item reaches the fake Pave and comes back as cached insights.

Plaid's signed webhook is mined and refined; the refiner's ``user_new_txns_batch_completed``
goes through the declared EventBridge rule to the Pave feed queue; the feeder uploads; the
miner polls and caches. A later TRANSACTIONS_REMOVED reaches Pave through the replay-feeder
queue. Everything runs through the event runtime, delivering every batch twice and shuffled.
A new user's first upload can carry only removals: until Pave holds their transactions, our own
detector answers their expenses.
"""

from __future__ import annotations

import pytest

from chalicelib.api.insight_schemas import recurring_expenses_body
from chalicelib.data.ttl import utcnow
from chalicelib.insight import cash_advance, expenses, history, pave_payday
from chalicelib.insight.data import insights, last_pages
from ops.fakes.pave import FakePave
from ops.fakes.plaid import FakePlaid, webhooks
from tests.e2e.conftest import empty_pipeline_queues, link_item, new_runtime

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def test_a_mined_item_reaches_pave_and_its_insights_are_cached(
    app_url: str, fake_plaid: FakePlaid, fake_pave: FakePave, user_id: str
) -> None:
    # GIVEN a linked item with 100 days of transactions (inside the 120 days retained, so a run
    # crossing midnight keeps every one of them in the window), and a runtime that delivers
    # every batch twice (the first outcome discarded) and shuffled
    empty_pipeline_queues()
    runtime = new_runtime(duplicate_delivery=True, shuffle=True, seed=11)
    fake = link_item(fake_plaid, user_id, transaction_count=240, history_days=100, loans=False)

    # WHEN Plaid announces the item's transactions and the pipeline runs
    announce = webhooks.transactions_update(fake.item_id, "HISTORICAL_UPDATE")
    delivery = fake_plaid.send_webhook(f"{app_url}/v1/plaid", announce)
    assert delivery.status == 200
    result = runtime.drain(timeout=120)

    # THEN the feeder and the miner ran without a failure
    assert result.idle
    stats = runtime.stats
    assert stats["feed_pave"].records >= 1 and stats["mine_pave"].records >= 1
    assert sum(s.failures + s.errors for s in stats.values()) == 0
    # AND Pave holds exactly the user's live transactions, uploaded once despite the duplicates;
    # any other request only told Pave to forget ids that are not live (pending transactions
    # their postings replaced)
    live = {t.txn_id for t in history.retained(user_id, utcnow().date()).transactions}
    assert live and set(fake_pave.transactions_of(user_id)) == live
    requests = fake_pave.requests_of(user_id)
    assert [r["transactions_received"] for r in requests if r["transactions_received"]] == [len(live)]
    assert not fake_pave.removed_of(user_id) & live
    # AND the insights are cached: a mine, expenses answered by Pave, a score, Pave's payday
    mine = insights.latest_insights(user_id)
    assert mine is not None and mine.source == "PAVE"
    now = utcnow()
    assert expenses.recurring_expenses_of(user_id, now).source is expenses.Source.PAVE
    assert cash_advance.current_score(user_id, now) is not None
    payday = pave_payday.latest(user_id)  # the fake item is paid biweekly
    assert payday is not None and payday.next_payday > now.date() and payday.frequency == "BIWEEKLY"
    # AND every upload was polled to its end: the newest mined, an older one mined or superseded
    pages = {p.pave_request_id: p for p in last_pages.last_pages(user_id)}
    assert set(pages) == {r["request_id"] for r in requests}
    assert pages[mine.pave_request_id].outcome == "mined"
    assert all(p.processed and p.outcome in ("mined", "superseded") for p in pages.values())

    # WHEN Plaid removes one of them
    gone = sorted(live)[0]
    fake_plaid.remove_transactions(fake.access_token, [gone])
    delivery = fake_plaid.send_webhook(f"{app_url}/v1/plaid", webhooks.transactions_removed(fake.item_id, [gone]))
    assert delivery.status == 200
    runtime.drain(timeout=60)

    # THEN Pave forgot it, through the replay-feeder queue, and a newer mine was cached
    assert runtime.stats["feed_pave_removals"].records >= 1
    assert gone in fake_pave.removed_of(user_id) and gone not in fake_pave.transactions_of(user_id)
    newer = insights.latest_insights(user_id)
    assert newer is not None and newer.mined_at > mine.mined_at


#: Everything but the window feeder: the refiner's removals reach Pave, the window waits queued.
BEFORE_THE_WINDOW = ["mine_webhooks", "mine_throttled", "refine_transactions", "feed_pave_removals", "mine_pave"]


def test_a_new_user_whose_first_pave_result_holds_none_of_their_transactions_gets_our_expenses(
    app_url: str, fake_plaid: FakePlaid, fake_pave: FakePave, user_id: str
) -> None:
    # GIVEN a newly linked item whose posted transactions name the pending ones they replaced
    empty_pipeline_queues()
    fake = link_item(fake_plaid, user_id, transaction_count=240, history_days=120, loans=False)
    # WHEN Plaid announces it and the pipeline runs up to the Pave feeder's window upload, which
    # is still queued: the refiner's removals are uploaded and mined first
    first = new_runtime(functions=BEFORE_THE_WINDOW)
    announce = webhooks.transactions_update(fake.item_id, "HISTORICAL_UPDATE")
    assert fake_plaid.send_webhook(f"{app_url}/v1/plaid", announce).status == 200
    assert first.drain(timeout=120).idle
    # THEN Pave's newest result was computed from none of the user's transactions
    mine = insights.latest_insights(user_id)
    assert mine is not None and mine.source == "PAVE"
    assert fake_pave.removed_of(user_id) and not fake_pave.transactions_of(user_id)
    assert not expenses.covers_transactions(mine)
    # AND the expenses are not Pave's nothing but our detector's: the rent and the card's
    # autopay from checking, each with its status and kind
    found = expenses.recurring_expenses_of(user_id, utcnow())
    assert found.source is expenses.Source.OURS and found.mined_at is None
    body = recurring_expenses_body(found)
    kinds = {(e["frequency"], e["kind"]) for e in body["expenses"]}
    assert {("MONTHLY", "bill"), ("MONTHLY", "card_payment")} <= kinds
    assert all(e["status"] in {"EARLY_DETECTION", "MATURE"} for e in body["expenses"])

    # WHEN the window upload is fed and mined
    second = new_runtime(functions=["feed_pave", "mine_pave"])
    assert second.drain(timeout=120).idle
    # THEN Pave holds the user's transactions and answers
    assert fake_pave.transactions_of(user_id)
    newer = insights.latest_insights(user_id)
    assert newer is not None and expenses.covers_transactions(newer)
    answered = expenses.recurring_expenses_of(user_id, utcnow())
    assert answered.source is expenses.Source.PAVE and answered.mined_at == newer.mined_at
