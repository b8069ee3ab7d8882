"""The Pave miner: polling until processed, the bound, the caches it writes, and delivery order."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest

from chalicelib.data.ttl import epoch, iso_timestamp
from chalicelib.insight import pave_feed, pave_miner, pave_payday
from chalicelib.insight.data import insights, last_pages, pave_labels, recurring_expenses, scores
from chalicelib.insight.data import tables as insight_tables
from chalicelib.insight.data.recurring_expenses import Expense
from chalicelib.insight.pave_messages import Poll
from chalicelib.insight.pave_miner import Outcome
from ops.fakes.pave import FakePave
from tests.insight.pave.support import (
    NOW,
    TODAY,
    in_window,
    midnight_epoch,
    pave_row,
    pave_rows,
    poll_event,
    polls_queued,
    realistic,
    store_user,
)
from tests.pave.conftest import txn

pytestmark = pytest.mark.integration


def uploaded(user_id: str, pave: FakePave, **at: Any) -> Poll:
    """A user stored and uploaded; the first poll taken off the queue."""
    store_user(user_id, realistic(user_id))
    outcome = pave_feed.feed_window(user_id, now=at.get("now", NOW))
    [poll] = polls_queued(user_id)
    assert poll.request_id == outcome.request_id
    return poll


def run_polls(first: Poll, limit: int = 20) -> list[Outcome]:
    """Deliver the poll and every poll it queues, one at a time, until none is queued."""
    outcomes: list[Outcome] = []
    pending = [first]
    while pending and len(outcomes) < limit:
        outcomes.append(pave_miner.handle_poll(pending.pop(0), now=NOW))
        pending += polls_queued(first.user_id)
    return outcomes


def test_polls_until_processed_then_caches_every_insight_with_its_key_and_ttl(pave: FakePave, user_id: str) -> None:
    # GIVEN an upload that Pave processes only at the third poll
    pave.set_processing(polls=3)
    poll = uploaded(user_id, pave)

    # WHEN the polls are delivered as they are queued
    outcomes = run_polls(poll)

    # THEN two polls found it pending and queued the next attempt, the third mined it
    assert outcomes == [Outcome.PENDING, Outcome.PENDING, Outcome.MINED]
    mine = iso_timestamp(NOW)  # the upload's instant names the mine
    # AND the insights row is the mine's, without TTL
    row = pave_row(f"MINE#{user_id}", f"TIME#{mine}")
    assert row is not None and row["type"] == "INSIGHTS" and row["source"] == "PAVE" and "ttl" not in row
    assert row["pave_request_id"] == poll.request_id
    # AND recurring rows are keyed RECURRING#<mine>#MERCHANT#<uuid>#<frequency>#<cents>, TTL due + 30 days
    found = pave.requests_to("GET", f"/v1/users/{user_id}/cashflow/unified_insights")
    assert found, "the miner read Pave's insights"
    stored = {k: r for k, r in pave_rows(user_id).items() if r["type"] == "RECURRING"}
    names = sorted(r["merchant_name"] for r in stored.values())
    assert "Netflix" in names and any("RENT" in n.upper() for n in names), names
    for (pk, sk), r in stored.items():
        assert pk == f"USERS#{user_id}"
        assert sk == f"RECURRING#{mine}#MERCHANT#{r['merchant_uuid']}#{r['frequency']}#{r['amount']}"
        assert r["ttl"] == midnight_epoch(TODAY.fromisoformat(r["due_date"]), 30)
    netflix = next(r for r in stored.values() if r["merchant_name"] == "Netflix")
    assert netflix["frequency"] == "MONTHLY" and netflix["amount"] == Decimal(1549)
    charged = {t.txn_id for t in in_window(realistic(user_id)) if t.merchant_name == "Netflix"}
    assert set(netflix["details"]["transaction_ids"]) == charged and len(charged) >= 3
    # AND ritual rows likewise (weekly coffee is habitual spending, not a bill)
    habits = [r for r in pave_rows(user_id).values() if r["type"] == "RITUAL"]
    assert [r["merchant_name"] for r in habits] == ["Blue Bottle"]
    [coffee] = habits
    assert coffee["SK"] == f"RITUAL#{mine}#MERCHANT#{coffee['merchant_id']}#WEEKLY#{coffee['amount']}"
    # AND the income row holds Pave's payday estimate, which the payday chain reads
    income = pave_row(f"USERS#{user_id}", f"INCOME#{user_id}")
    assert income is not None and income["last_mine"] == mine and income["frequency"] == "BIWEEKLY"
    payday = pave_payday.latest(user_id)
    assert payday is not None and payday.next_payday > TODAY and payday.frequency == "BIWEEKLY"
    assert payday.source == "Acme Corp Payroll" and payday.amount == 212345 and payday.mined_at == NOW
    # AND one score row keyed by the mine, kept SCORE_TTL_DAYS
    score = pave_row(f"USERS#{user_id}", f"CASH_ADVANCE_SCORE#{mine}")
    assert score is not None and score["ttl"] == epoch(NOW + timedelta(days=30)) and len(score["bands"]) == 8
    # AND the request is marked processed
    page = last_pages.get_last_page(user_id, poll.request_id)
    assert page is not None and page.processed and page.outcome == "mined"


def test_a_redelivered_poll_writes_the_same_rows(pave: FakePave, user_id: str) -> None:
    # GIVEN a mined request
    poll = uploaded(user_id, pave)
    assert run_polls(poll) == [Outcome.MINED]
    before = pave_rows(user_id)

    # WHEN its poll is delivered again (twice in one batch, and once more alone)
    assert pave_miner.handle_poll_event(poll_event(poll, poll), now=NOW) == {"batchItemFailures": []}
    assert pave_miner.handle_poll(poll, now=NOW) is Outcome.DONE_BEFORE

    # THEN Pave was polled no more and every row is as it was
    assert pave_rows(user_id) == before
    assert polls_queued(user_id) == []


def test_a_poll_repeated_after_a_crash_mid_mine_leaves_exactly_the_mine_it_writes(pave: FakePave, user_id: str) -> None:
    # GIVEN an attempt that died after writing a recurring row Pave no longer reports, before the
    # insights row (so the mine is not visible yet)
    poll = uploaded(user_id, pave)
    stale = Expense(user_id, NOW, "gone-merchant", "MONTHLY", 999, TODAY + timedelta(days=10), "Gone Gym")
    recurring_expenses.put_recurring_expenses([stale])

    # WHEN the poll is delivered again and mines
    assert run_polls(poll) == [Outcome.MINED]

    # THEN the mine's recurring rows are exactly Pave's: the stale one is gone
    mine = insights.latest_insights(user_id)
    assert mine is not None and mine.mined_at == NOW
    rows = recurring_expenses.recurring_expenses(user_id, NOW)
    assert "gone-merchant" not in {r.merchant_id for r in rows}
    assert len(rows) == mine.recurring_count


def test_when_the_bound_is_reached_the_request_is_given_up_and_the_next_upload_is_sent_again(
    pave: FakePave, user_id: str, override_settings: Any
) -> None:
    # GIVEN at most three polls, and Pave that would need ten
    override_settings(PAVE_POLL_MAX_ATTEMPTS="3")
    pave.set_processing(polls=10)
    poll = uploaded(user_id, pave)

    # WHEN the polls run
    outcomes = run_polls(poll)

    # THEN the third poll gives up: nothing more is queued, nothing cached, the row says why
    assert outcomes == [Outcome.PENDING, Outcome.PENDING, Outcome.TIMED_OUT]
    assert insights.latest_insights(user_id) is None
    page = last_pages.get_last_page(user_id, poll.request_id)
    assert page is not None and not page.processed and page.outcome == "timed_out"
    # AND the label forgot the fingerprint: the same window is sent again (Pave answers with the
    # same request) and polled again
    label = pave_labels.get_pave_label(user_id)
    assert label is not None and pave_labels.UPLOAD_FINGERPRINT not in label.details
    again = pave_feed.feed_window(user_id, now=NOW + timedelta(hours=1))
    assert again.result == "uploaded" and again.replayed and again.request_id == poll.request_id
    assert [p.request_id for p in polls_queued(user_id)] == [poll.request_id]


def test_a_request_pave_failed_is_given_up(pave: FakePave, user_id: str) -> None:
    pave.set_processing(polls=5)
    poll = uploaded(user_id, pave)
    pave.fail_request(poll.request_id)
    assert run_polls(poll) == [Outcome.FAILED]
    page = last_pages.get_last_page(user_id, poll.request_id)
    assert page is not None and page.outcome == "failed" and insights.latest_insights(user_id) is None


def test_a_poll_whose_request_is_not_recorded_is_dropped(pave: FakePave, user_id: str) -> None:
    result = pave_miner.handle_poll_event(poll_event(Poll(user_id, "req_never", 1)), now=NOW)
    assert result == {"batchItemFailures": []}
    assert pave.requests_to("GET", f"/v1/users/{user_id}/requests/req_never") == []


def test_pave_errors_on_a_poll_return_it_for_retry(pave: FakePave, user_id: str) -> None:
    # GIVEN a processed upload, and Pave answering the next three calls (the client's attempts) 503
    poll = uploaded(user_id, pave)
    pave.process(user_id)
    event = poll_event(poll)
    pave.fail_next(3, status=503)
    # WHEN the poll is handled THEN it is reported for retry and nothing is cached
    assert pave_miner.handle_poll_event(event, now=NOW) == {
        "batchItemFailures": [{"itemIdentifier": event["Records"][0]["messageId"]}]
    }
    assert insights.latest_insights(user_id) is None
    # AND the retry mines it
    assert pave_miner.handle_poll_event(event, now=NOW) == {"batchItemFailures": []}
    assert insights.latest_insights(user_id) is not None


def test_an_older_request_finishing_after_a_newer_one_does_not_become_the_latest(pave: FakePave, user_id: str) -> None:
    # GIVEN two uploads an hour apart (the second with one more transaction), both processed
    first = uploaded(user_id, pave)
    later = NOW + timedelta(hours=1)
    store_user(user_id, [txn(user_id, f"{user_id}-extra", 4200, TODAY, merchant="Corner Store")])
    second_outcome = pave_feed.feed_window(user_id, now=later)
    [second] = polls_queued(user_id)
    assert second.request_id == second_outcome.request_id != first.request_id
    pave.process(user_id)

    # WHEN their polls arrive newest first, in one shuffled batch and then again alone
    assert pave_miner.handle_poll_event(poll_event(second, first), now=later) == {"batchItemFailures": []}
    assert pave_miner.handle_poll(first, now=later) is Outcome.DONE_BEFORE

    # THEN the newer upload's mine is the latest and the older one was superseded, writing nothing
    latest = insights.latest_insights(user_id)
    assert latest is not None and latest.mined_at == later and latest.pave_request_id == second.request_id
    assert [m.mined_at for m in insights.list_insights(user_id)] == [later]
    older = last_pages.get_last_page(user_id, first.request_id)
    assert older is not None and older.outcome == "superseded"
    # AND the income and the latest score are the newer mine's
    payday = pave_payday.latest(user_id)
    assert payday is not None and payday.mined_at == later
    score = scores.latest_score(user_id)
    assert score is not None and score.scored_at == later


def test_an_older_mine_written_late_never_shadows_the_newer_one(pave: FakePave, user_id: str) -> None:
    # GIVEN the newer mine cached first
    first = uploaded(user_id, pave)
    later = NOW + timedelta(hours=1)
    store_user(user_id, [txn(user_id, f"{user_id}-extra", 4200, TODAY, merchant="Corner Store")])
    pave_feed.feed_window(user_id, now=later)
    [second] = polls_queued(user_id)
    pave.process(user_id)
    assert pave_miner.handle_poll(second, now=later) is Outcome.MINED
    # WHEN the older request's mine is forced through (as if its check had raced the newer write)
    page = last_pages.get_last_page(user_id, first.request_id)
    assert page is not None
    insight_tables.pave().delete_item(Key={"PK": f"MINE#{user_id}", "SK": f"TIME#{iso_timestamp(later)}"})
    pave_miner.mine(page, now=later)
    insight_tables.pave().put_item(
        Item=insights.insights_item(insights.Mine(user_id, later, "PAVE", second.request_id, 0, 0))
    )
    # THEN the newest insights row still names the newer mine, and its income row was kept
    latest = insights.latest_insights(user_id)
    assert latest is not None and latest.mined_at == later
    payday = pave_payday.latest(user_id)
    assert payday is not None and payday.mined_at == later


def test_polls_back_off_doubling_up_to_sqs_limit(override_settings: Any) -> None:
    override_settings(PAVE_POLL_DELAY_SECONDS="30")
    assert [pave_miner.poll_delay(n) for n in (1, 2, 3, 4, 5, 6, 9)] == [30, 60, 120, 240, 480, 900, 900]


def test_a_rate_limited_poll_is_returned_for_retry_and_mines_later(pave: FakePave, user_id: str) -> None:
    poll = uploaded(user_id, pave)
    event = poll_event(poll)
    pave.rate_limit_next(1, retry_after=30)
    assert pave_miner.handle_poll_event(event, now=NOW) == {
        "batchItemFailures": [{"itemIdentifier": event["Records"][0]["messageId"]}]
    }
    assert pave_miner.handle_poll_event(event, now=NOW) == {"batchItemFailures": []}
    assert insights.latest_insights(user_id) is not None
