"""Mining by ``/transactions/sync``: cursors, pages, crashes, restarts, races and the switch from ``/get``.

The handlers run as Lambda would run them (:mod:`tests.pipeline.sync_support`): the miner for a
webhook, the throttle-miner for each queued page, the refiner for what reached the stream. Pages
are 40 updates here (``SYNC_PAGE_SIZE``), so a hundred transactions make a three-page loop.

The loop's rules case by case (which pull starts, joins or takes over a loop; which step reads,
resends or stops; what a refused page does) and which webhooks pull for which items are unit
tests: tests/unit/test_sync_decisions.py and tests/unit/test_miner_handlers.py. Here, each
behaviour runs once against the real tables, stream, queue and fake Plaid.

Monthly summaries are off here (``SUMMARIES_ENABLED``): the loop's rules do not depend on them,
and each refined page would otherwise cost a transaction per forty summary rows. Sync mining
with summaries on, every step delivered twice, is tests/e2e/test_sync_pipeline.py; summaries
counting each transaction once under redelivery is tests/pipeline/test_summaries.py.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import timedelta
from typing import Any

import pytest

from chalicelib.api import item_changes
from chalicelib.data import items, sync_state, webhook_info
from chalicelib.data.items import MiningMode
from chalicelib.pipeline import sync_mining
from chalicelib.pipeline.batches import DropMessageError
from chalicelib.pipeline.mining import ItemRef
from chalicelib.settings import get_settings
from ops.fakes.plaid import FakeItem, FakePlaid
from tests.faults import aws_fault
from tests.pipeline.sync_support import (
    SyncHarness,
    nth_call,
    plaid_transactions,
    put_to_stream,
    sync_row_write,
    to_throttle_queue,
)

pytestmark = pytest.mark.integration


@pytest.fixture(autouse=True)
def summaries_off(override_settings: Callable[..., None]) -> None:
    override_settings(SUMMARIES_ENABLED="false")


def sync_calls(plaid: FakePlaid, fake: FakeItem) -> list[dict[str, Any]]:
    """The bodies of the item's ``/transactions/sync`` calls, oldest first."""
    return [c.body for c in plaid.calls("/transactions/sync") if c.body.get("access_token") == fake.access_token]


def final_cursor(plaid: FakePlaid, fake: FakeItem) -> str:
    """The cursor a complete loop ends on now (one more sync, outside the service)."""
    from ops.fakes.plaid.sync import Cursor

    return Cursor(fake.item_id, plaid.item(fake.access_token).changes.version).encode()


def mine_until_done(harness: SyncHarness, fake: FakeItem, code: str = "INITIAL_UPDATE", **payload: Any) -> None:
    """A webhook mined, redelivered while it fails, its loop drained, and the stream refined."""
    body = harness.webhook(fake, code, **payload)
    for _ in range(5):
        if not harness.mine(body).failed:
            break
    harness.drain()
    harness.refine(fake.item_id)


# --- the loop ----------------------------------------------------------------------------------------


def test_a_loop_puts_every_page_on_the_stream_and_commits_only_at_its_end(harness: SyncHarness) -> None:
    # GIVEN an item mined by sync with 100 transactions: three pages of 40
    fake = harness.link(transaction_count=100, history_days=60)

    # WHEN Plaid's INITIAL_UPDATE is mined
    harness.mine(harness.webhook(fake, "INITIAL_UPDATE"))
    # THEN the first page is read at once, without a cursor, and the loop holds the item at its next page
    state = harness.state(fake)
    assert (state.running, state.page, state.cursor) == (True, 1, None), "nothing committed yet"
    assert state.next_cursor and state.loop_transactions == 40
    # AND while pages remain, each step advances the loop and queues the next; the commit waits
    [second] = harness.queued()
    assert harness.step(second).outcome.action == "page"
    assert (harness.state(fake).page, harness.state(fake).cursor) == (2, None)
    [last] = harness.queued()
    assert harness.step(last).outcome.action == "committed"
    assert harness.queued() == []

    # THEN the cursor is committed where the loop ended, and the loop is gone
    state = harness.state(fake)
    assert state.cursor == final_cursor(harness.plaid, fake)
    assert not state.running and state.last_loop and state.last_loop.endswith(".0")
    # AND three calls walked the cursors in order: none, then each page's next cursor
    calls = sync_calls(harness.plaid, fake)
    assert len(calls) == 3 and "cursor" not in calls[0] and calls[1]["cursor"] != calls[2]["cursor"]
    assert {c["count"] for c in calls} == {40}
    # AND refined, the rows are Plaid's transactions exactly
    assert harness.refine(fake.item_id) == 3
    assert harness.live_transactions() == plaid_transactions(harness.plaid, fake)
    # AND the webhook is recorded with the first page's updates
    [info] = webhook_info.transaction_webhooks(fake.item_id)
    assert info.webhook_code == "INITIAL_UPDATE" and info.update_info is not None
    assert info.update_info.total_transactions == 40


def test_the_next_pull_reads_modifications_removals_and_additions_from_the_committed_cursor(
    harness: SyncHarness,
) -> None:
    # GIVEN a synced item
    fake = harness.link(transaction_count=60, history_days=60)
    mine_until_done(harness, fake)
    committed = harness.state(fake).cursor
    # AND Plaid then changes two transactions, removes one and adds three
    token = fake.access_token
    before = harness.live_transactions()
    changed = harness.plaid.modify_transactions(token, count=2)
    gone = harness.plaid.item(token).transactions[-1]["transaction_id"]
    harness.plaid.remove_transactions(token, [gone])
    harness.plaid.add_transactions(token, 3)

    # WHEN Plaid announces SYNC_UPDATES_AVAILABLE and it is mined
    mine_until_done(harness, fake, "SYNC_UPDATES_AVAILABLE", initial_update_complete=True)

    # THEN one call read from the committed cursor, and the rows follow Plaid: new amounts, one fewer, three more
    assert sync_calls(harness.plaid, fake)[-1]["cursor"] == committed
    live = harness.live_transactions()
    assert live == plaid_transactions(harness.plaid, fake)
    assert gone not in live and all(live[t["transaction_id"]] != before[t["transaction_id"]] for t in changed)
    assert harness.state(fake).cursor == final_cursor(harness.plaid, fake)


# --- crashes and redelivery ------------------------------------------------------------------------------

Fault = tuple[str, str, Callable[[Mapping[str, Any]], bool]]
#: (service, operation, which call) for every boundary a step crosses. SYNC row writes: the loop's
#: start, page 0's and page 1's advance, the commit. Stream puts: each page. Throttle sends: after
#: page 0 and page 1.
BOUNDARIES: dict[str, Fault] = {
    "start": ("dynamodb", "UpdateItem", nth_call(1, sync_row_write)),
    "advance-after-page-0": ("dynamodb", "UpdateItem", nth_call(2, sync_row_write)),
    "advance-after-page-1": ("dynamodb", "UpdateItem", nth_call(3, sync_row_write)),
    "commit": ("dynamodb", "UpdateItem", nth_call(4, sync_row_write)),
    "stream-page-0": ("kinesis", "PutRecord", nth_call(1, put_to_stream)),
    "stream-page-1": ("kinesis", "PutRecord", nth_call(2, put_to_stream)),
    "stream-page-2": ("kinesis", "PutRecord", nth_call(3, put_to_stream)),
    "queue-page-1": ("sqs", "SendMessage", nth_call(1, to_throttle_queue)),
    "queue-page-2": ("sqs", "SendMessage", nth_call(2, to_throttle_queue)),
}


@pytest.mark.parametrize("boundary", sorted(BOUNDARIES))
def test_a_crash_at_any_boundary_is_redelivered_and_re_reads_without_skipping(
    boundary: str, harness: SyncHarness
) -> None:
    # GIVEN a three-page item, and an AWS failure at one boundary of its loop
    fake = harness.link(transaction_count=100, history_days=60)
    service, operation, when = BOUNDARIES[boundary]

    # WHEN it is mined: the failing call raises, and the message is delivered again (SQS' retry)
    with aws_fault(service, operation, when=when) as fault:
        mine_until_done(harness, fake)

    # THEN the fault fired once, and exactly one delivery failed
    assert fault.hits == 1
    assert sum(d.failed for d in harness.deliveries) == 1
    # AND the rows are Plaid's transactions exactly: no page was skipped, a re-read page is harmless
    assert harness.live_transactions() == plaid_transactions(harness.plaid, fake)
    # AND the cursor is committed once, at the end; nothing is left queued or running
    state = harness.state(fake)
    assert state.cursor == final_cursor(harness.plaid, fake) and not state.running
    assert harness.queued() == []
    # AND every cursor of the chain was read: a page is re-read, never skipped
    cursors = [c.get("cursor") for c in sync_calls(harness.plaid, fake)]
    assert len(set(cursors)) == 3 and len(cursors) in (3, 4)


def test_a_plaid_failure_on_a_page_is_retried_from_the_same_cursor(harness: SyncHarness) -> None:
    # GIVEN a three-page item whose second page Plaid fails once with a 500
    fake = harness.link(transaction_count=100, history_days=60)
    harness.mine(harness.webhook(fake, "DEFAULT_UPDATE"))
    harness.plaid.fail("/transactions/sync", "INTERNAL_SERVER_ERROR", access_token=fake.access_token)
    # WHEN the loop runs (the failed step is delivered again)
    steps = harness.drain()
    harness.refine(fake.item_id)
    # THEN the retry asked for the same cursor, and the loop completed
    cursors = [c.get("cursor") for c in sync_calls(harness.plaid, fake)]
    assert cursors[1] == cursors[2] and len(cursors) == 4
    assert [s.failed for s in steps] == [True, False, False]
    assert harness.live_transactions() == plaid_transactions(harness.plaid, fake)


def test_a_redelivered_webhook_does_not_pull_again(harness: SyncHarness) -> None:
    # GIVEN a webhook whose loop committed
    fake = harness.link(transaction_count=30, history_days=60)
    body = harness.webhook(fake, "HISTORICAL_UPDATE")
    harness.mine(body)
    harness.drain()
    calls = len(sync_calls(harness.plaid, fake))
    # WHEN the same message is delivered again
    delivery = harness.mine(body)
    # THEN no page is read again and the committed cursor stays
    assert delivery.error is None
    assert len(sync_calls(harness.plaid, fake)) == calls
    assert harness.state(fake).cursor == final_cursor(harness.plaid, fake)


# --- Plaid's mutation error -------------------------------------------------------------------------------


def test_data_changing_mid_loop_restarts_the_loop_from_the_committed_cursor(harness: SyncHarness) -> None:
    # GIVEN a synced item, then 100 new transactions (a three-page loop from the committed cursor)
    fake = harness.link(transaction_count=20, history_days=60)
    mine_until_done(harness, fake)
    committed = harness.state(fake).cursor
    harness.plaid.add_transactions(fake.access_token, 100)
    # AND a pull whose first page was read
    harness.mine(harness.webhook(fake, "SYNC_UPDATES_AVAILABLE"))
    first_loop = harness.state(fake).loop_id

    # WHEN Plaid's data changes before the second page is read, and the loop runs on
    harness.plaid.add_transactions(fake.access_token, 2)
    steps = harness.drain()
    harness.refine(fake.item_id)

    # THEN the second page got the mutation error, and the loop restarted under a new id from the committed cursor
    assert steps[0].outcome.action == "restarted"
    assert steps[0].outcome.loop_id == sync_mining.successor(str(first_loop))
    cursors = [c.get("cursor") for c in sync_calls(harness.plaid, fake)]
    assert cursors[1] == committed and cursors[2] not in (None, committed), "the new loop's first two pages"
    assert cursors[3] == committed, "the call after the refused page starts again from the committed cursor"
    # AND the restarted loop committed with everything, the two late transactions included
    assert harness.live_transactions() == plaid_transactions(harness.plaid, fake)
    state = harness.state(fake)
    assert state.cursor == final_cursor(harness.plaid, fake) and state.last_loop == steps[0].outcome.loop_id


def test_an_injected_mutation_error_restarts_the_loop_too(harness: SyncHarness) -> None:
    # GIVEN a three-page loop whose second page Plaid refuses with the mutation error
    fake = harness.link(transaction_count=100, history_days=60)
    harness.mine(harness.webhook(fake, "INITIAL_UPDATE"))
    harness.plaid.fail(
        "/transactions/sync", "TRANSACTIONS_SYNC_MUTATION_DURING_PAGINATION", access_token=fake.access_token
    )
    # WHEN the loop runs
    harness.drain()
    harness.refine(fake.item_id)
    # THEN it read four pages from no cursor in all (one refused, then the whole loop again) and committed
    cursors = [c.get("cursor") for c in sync_calls(harness.plaid, fake)]
    assert cursors.count(None) == 2 and len(cursors) == 5
    assert harness.live_transactions() == plaid_transactions(harness.plaid, fake)
    assert harness.state(fake).cursor == final_cursor(harness.plaid, fake)


# --- two loops for one item ----------------------------------------------------------------------------------


def test_a_pull_during_a_loop_is_served_by_one_follow_up_loop(harness: SyncHarness) -> None:
    # GIVEN a loop running (its first page read)
    fake = harness.link(transaction_count=100, history_days=60)
    harness.mine(harness.webhook(fake, "INITIAL_UPDATE"))
    running = harness.state(fake).loop_id
    # WHEN two more webhooks arrive meanwhile
    second = harness.mine(harness.webhook(fake, "SYNC_UPDATES_AVAILABLE"))
    third = harness.mine(harness.webhook(fake, "DEFAULT_UPDATE", source="FROM_LISTENER"))
    # THEN neither starts a loop of its own: each asks the running one for more
    assert harness.state(fake).loop_id == running and harness.state(fake).wanted
    assert len(sync_calls(harness.plaid, fake)) == 1
    assert (second.error, third.error) == (None, None)

    # WHEN Plaid gets three new transactions just as the running loop commits, and the pages run
    added: list[Any] = []

    def new_data(params: Mapping[str, Any], **_: Any) -> None:
        if not added and sync_row_write(params) and "#sync_cursor =" in str(params.get("UpdateExpression", "")):
            added.extend(harness.plaid.add_transactions(fake.access_token, 3))

    from chalicelib.aws.clients import dynamodb_hook

    with dynamodb_hook("before-parameter-build.dynamodb.UpdateItem", new_data, first=True):
        harness.drain()
    harness.refine(fake.item_id)

    # THEN one follow-up loop ran after the first committed, from its cursor, and read the new data
    state = harness.state(fake)
    assert state.last_loop == sync_mining.successor(str(running)) and not state.running
    assert state.cursor == final_cursor(harness.plaid, fake)
    assert harness.live_transactions() == plaid_transactions(harness.plaid, fake)
    # AND every webhook is recorded (the listener counts each as a mine)
    assert len(webhook_info.transaction_webhooks(fake.item_id)) == 3


def test_a_stale_loop_is_taken_over_and_can_no_longer_write(harness: SyncHarness) -> None:
    # GIVEN a loop whose next page never ran (its message went to the DLQ), long enough ago
    fake = harness.link(transaction_count=100, history_days=60)
    harness.mine(harness.webhook(fake, "INITIAL_UPDATE"))
    [lost] = harness.queued()
    old = harness.state(fake)

    # WHEN a webhook arrives after that: it takes the item over and its loop runs to the end
    harness.advance(timedelta(seconds=get_settings().sync_loop_stale_seconds + 1))
    mine_until_done(harness, fake, "SYNC_UPDATES_AVAILABLE")
    taken = harness.state(fake)
    assert taken.last_loop != old.loop_id and taken.cursor == final_cursor(harness.plaid, fake)

    # AND the old loop's page is finally delivered (a DLQ redrive)
    calls = len(sync_calls(harness.plaid, fake))
    late = harness.step(lost)
    # THEN it reads nothing, writes nothing, queues nothing
    assert late.outcome.action == "superseded"
    assert len(sync_calls(harness.plaid, fake)) == calls
    assert harness.state(fake) == taken and harness.queued() == []
    assert harness.live_transactions() == plaid_transactions(harness.plaid, fake)


def test_a_step_racing_a_takeover_puts_its_page_but_cannot_move_the_row(harness: SyncHarness) -> None:
    # GIVEN loop A holding the item at its second page, as its step has read the row
    fake = harness.link(transaction_count=100, history_days=60)
    harness.mine(harness.webhook(fake, "INITIAL_UPDATE"))
    harness.queued()
    seen_by_a = harness.state(fake)
    # AND loop B takes the item over in the meantime (A looked stale)
    assert sync_state.start_loop(seen_by_a, "loop-b.0", harness.now + timedelta(hours=2))

    # WHEN A's step goes on with the row it read
    ref = ItemRef(harness.user_id, fake.item_id, fake.access_token)
    outcome = sync_mining.pull_page(ref, seen_by_a, harness.now)

    # THEN its page went on the stream (harmless), but it neither advanced nor queued anything
    assert outcome.action == "superseded"
    assert harness.queued() == []
    state = harness.state(fake)
    assert (state.loop_id, state.page, state.cursor) == ("loop-b.0", 0, None)


def test_the_row_refuses_a_second_start_and_a_commit_from_a_stale_read(harness: SyncHarness) -> None:
    # GIVEN two pulls that read the same empty row at the same time
    fake = harness.link(transaction_count=5, history_days=30)
    read = sync_state.get_sync_state(harness.user_id, fake.item_id)
    # WHEN both try to start a loop THEN only the first does
    assert sync_state.start_loop(read, "a.0", harness.now)
    assert not sync_state.start_loop(read, "b.0", harness.now)
    # AND a commit of loop a from a read taken before a pull was wanted is refused, so the pull is not lost
    holding = sync_state.get_sync_state(harness.user_id, fake.item_id)
    assert sync_state.want_pull(holding, "b")
    assert not sync_state.commit(holding, "cursor-1", harness.now)
    # AND with the fresh read it commits and hands the row to the follow-up loop at once
    fresh = sync_state.get_sync_state(harness.user_id, fake.item_id)
    assert sync_state.commit(fresh, "cursor-1", harness.now, follow_up="a.1")
    after = sync_state.get_sync_state(harness.user_id, fake.item_id)
    assert (after.cursor, after.loop_id, after.page, after.next_cursor, after.wanted) == (
        "cursor-1",
        "a.1",
        0,
        "cursor-1",
        None,
    )


# --- routing: which webhooks pull, and for which items ------------------------------------------------------


def test_a_mine_webhook_of_a_sync_item_pulls_from_the_committed_cursor(harness: SyncHarness) -> None:
    # GIVEN a synced item with one new transaction since
    fake = harness.link(transaction_count=10, history_days=30)
    mine_until_done(harness, fake)
    committed = harness.state(fake).cursor
    harness.plaid.add_transactions(fake.access_token, 1)
    harness.plaid.clear_calls()
    # WHEN a webhook that would mine a /get item's window is mined (the link's own, which also applies
    # the re-link rule; every code and source is a case of tests/unit/test_miner_handlers.py)
    code, source = "HISTORICAL_UPDATE", "FROM_ADD_ITEM"
    mine_until_done(harness, fake, code, source=source)
    # THEN it read from the committed cursor, never /transactions/get, and recorded itself
    assert [c.get("cursor") for c in sync_calls(harness.plaid, fake)] == [committed]
    assert harness.plaid.calls("/transactions/get") == []
    assert harness.live_transactions() == plaid_transactions(harness.plaid, fake)
    codes = [(w.webhook_code, w.source) for w in webhook_info.transaction_webhooks(fake.item_id)]
    assert (code, source) in codes


def test_transactions_removed_for_a_sync_item_applies_its_removals_and_pulls(harness: SyncHarness) -> None:
    # GIVEN an item mined by /get, then switched to sync, that Plaid removes a transaction from
    fake = harness.link(MiningMode.GET, transaction_count=30, history_days=30)
    mine_until_done(harness, fake, "HISTORICAL_UPDATE")
    item_changes.set_mining_mode(harness.user_id, fake.item_id, "SYNC")
    gone = harness.plaid.remove_transactions(fake.access_token, [fake.transactions[0]["transaction_id"]])
    # WHEN Plaid's TRANSACTIONS_REMOVED is mined (its first sync, without a cursor, reports no removals)
    mine_until_done(harness, fake, "TRANSACTIONS_REMOVED", removed_transactions=gone)
    # THEN the removal applied, and the pull read the whole history
    assert harness.live_transactions() == plaid_transactions(harness.plaid, fake)
    assert [c.get("cursor") for c in sync_calls(harness.plaid, fake)] == [None]


# --- switching an item from /get to sync ----------------------------------------------------------------------


def test_switching_an_item_from_get_to_sync_loses_nothing_and_duplicates_nothing(harness: SyncHarness) -> None:
    # GIVEN an item mined by /transactions/get (a 180-day HISTORICAL_UPDATE)
    fake = harness.link(MiningMode.GET, transaction_count=90, history_days=90)
    mine_until_done(harness, fake, "HISTORICAL_UPDATE")
    before = harness.live_transactions()
    assert before == plaid_transactions(harness.plaid, fake)
    # AND Plaid's data then changes before the switch is used
    changed = harness.plaid.modify_transactions(fake.access_token, count=3)
    harness.plaid.add_transactions(fake.access_token, 4)

    # WHEN the item is switched to sync, and its next webhook is mined
    switched = item_changes.set_mining_mode(harness.user_id, fake.item_id, "SYNC")
    assert switched.mining_mode is MiningMode.SYNC
    mine_until_done(harness, fake, "DEFAULT_UPDATE")

    # THEN the first sync had no cursor and read the whole history (three pages of 40)
    calls = sync_calls(harness.plaid, fake)
    assert "cursor" not in calls[0] and len(calls) == 3
    # AND the rows are Plaid's: the changes since the last /get mine are in, each transaction once
    live = harness.live_transactions()
    assert live == plaid_transactions(harness.plaid, fake)
    assert all(live[t["transaction_id"]] != before[t["transaction_id"]] for t in changed)
    # AND switching again is idempotent, and back to GET keeps the cursor
    assert item_changes.set_mining_mode(harness.user_id, fake.item_id, "SYNC").mining_mode is MiningMode.SYNC
    cursor = harness.state(fake).cursor
    back = item_changes.set_mining_mode(harness.user_id, fake.item_id, "GET")
    assert back.mining_mode is MiningMode.GET and harness.state(fake).cursor == cursor


def test_a_removed_item_cannot_be_switched(harness: SyncHarness) -> None:
    fake = harness.link(MiningMode.GET, transaction_count=5, history_days=30)
    items.mark_removed(harness.user_id, fake.item_id)
    with pytest.raises(items.ItemRemovedError):
        item_changes.set_mining_mode(harness.user_id, fake.item_id, "SYNC")


# --- Plaid refusing the item or the cursor ---------------------------------------------------------------------


def test_an_item_error_ends_the_loop_without_committing_and_the_next_pull_resumes(harness: SyncHarness) -> None:
    # GIVEN a synced item that then needs its user to log in again, with new data waiting
    fake = harness.link(transaction_count=10, history_days=30)
    mine_until_done(harness, fake)
    committed = harness.state(fake).cursor
    harness.plaid.add_transactions(fake.access_token, 2)
    harness.plaid.set_item_error(fake.access_token, "ITEM_LOGIN_REQUIRED")
    # WHEN a pull runs
    delivery = harness.mine(harness.webhook(fake, "SYNC_UPDATES_AVAILABLE"))
    # THEN the message is dropped (no retry can help), the loop released, the cursor kept
    assert isinstance(delivery.error, DropMessageError)
    state = harness.state(fake)
    assert not state.running and state.cursor == committed
    # AND once repaired, the next pull reads from that cursor
    harness.plaid.set_item_error(fake.access_token, None)
    mine_until_done(harness, fake, "DEFAULT_UPDATE")
    assert sync_calls(harness.plaid, fake)[-1].get("cursor") == committed
    assert harness.live_transactions() == plaid_transactions(harness.plaid, fake)


def test_a_cursor_plaid_refuses_is_forgotten_and_the_history_read_again(harness: SyncHarness) -> None:
    # GIVEN a synced item whose committed cursor Plaid no longer accepts
    fake = harness.link(transaction_count=10, history_days=30)
    mine_until_done(harness, fake)
    harness.plaid.fail("/transactions/sync", "INVALID_FIELD", access_token=fake.access_token)
    # WHEN it is pulled
    mine_until_done(harness, fake, "DEFAULT_UPDATE")
    # THEN the refused cursor was dropped and the loop restarted from none, then committed
    cursors = [c.get("cursor") for c in sync_calls(harness.plaid, fake)]
    assert cursors[-2] is not None and cursors[-1] is None
    assert harness.state(fake).cursor == final_cursor(harness.plaid, fake)
    assert harness.live_transactions() == plaid_transactions(harness.plaid, fake)


def test_before_the_first_pull_completes_nothing_is_committed_and_a_later_pull_reads_everything(
    harness: SyncHarness,
) -> None:
    # GIVEN a new item whose data Plaid has not pulled yet
    fake = harness.link(transaction_count=30, history_days=30, transactions_ready=False)
    # WHEN it is pulled: Plaid answers an empty NOT_READY page
    mine_until_done(harness, fake, "HISTORICAL_UPDATE", source="FROM_ADD_ITEM")
    assert harness.state(fake).cursor is None and harness.live_transactions() == {}
    # AND once Plaid is ready, its SYNC_UPDATES_AVAILABLE is mined
    harness.plaid.set_transactions_ready(fake.access_token, True)
    mine_until_done(harness, fake, "SYNC_UPDATES_AVAILABLE")
    # THEN everything is there
    assert harness.live_transactions() == plaid_transactions(harness.plaid, fake)
