"""Which source answers the expenses, and the fallback's call into our detector."""

from __future__ import annotations

import importlib.util
from datetime import date, timedelta
from typing import Any

import pytest

from chalicelib.insight import expenses, history, pave_feed, pave_miner
from chalicelib.insight.data import insights, recurring_expenses
from chalicelib.insight.data.recurring_expenses import Expense
from ops.fakes.pave import FakePave
from tests.insight.pave.support import NOW, TODAY, polls_queued, realistic, soft_delete, store_user

pytestmark = pytest.mark.integration

DETECTOR_PRESENT = importlib.util.find_spec(expenses.DETECTOR_MODULE) is not None


def test_the_latest_pave_mine_answers_and_expired_rows_are_left_out(pave: FakePave, user_id: str) -> None:
    # GIVEN an older mine and a newer one, the newer with an expense whose TTL has passed
    older, newer = NOW - timedelta(days=2), NOW - timedelta(days=1)
    insights.put_insights(insights.Mine(user_id, older, "PAVE", "req_a", 1, 0))
    insights.put_insights(insights.Mine(user_id, newer, "PAVE", "req_b", 2, 0))
    recurring_expenses.put_recurring_expenses(
        [
            Expense(user_id, older, "m-old", "MONTHLY", 500, TODAY + timedelta(days=3), "Old Gym"),
            Expense(user_id, newer, "m-net", "MONTHLY", 1549, TODAY + timedelta(days=5), "Netflix"),
            Expense(user_id, newer, "m-gone", "MONTHLY", 999, TODAY - timedelta(days=31), "Cancelled"),
        ]
    )

    # WHEN the expenses are read
    found = expenses.recurring_expenses_of(user_id, NOW)

    # THEN the newest mine answered, without the expired row
    assert (found.source, found.mined_at) == (expenses.Source.PAVE, newer)
    assert [(e.merchant_name, e.merchant_id, e.amount) for e in found.expenses] == [("Netflix", "m-net", 1549)]


def test_a_mine_older_than_the_limit_does_not_answer(pave: FakePave, user_id: str) -> None:
    # GIVEN only a Pave mine eight days old (the limit is seven)
    insights.put_insights(insights.Mine(user_id, NOW - timedelta(days=8), "PAVE", "req_a", 0, 0))
    # WHEN the expenses are read THEN our detector is asked instead (absent from this build: no answer)
    if DETECTOR_PRESENT:
        assert expenses.recurring_expenses_of(user_id, NOW).source is expenses.Source.OURS
    else:
        with pytest.raises(expenses.NoRecurringExpensesError):
            expenses.recurring_expenses_of(user_id, NOW)


def test_the_fallback_hands_the_detector_the_window_shaped_as_the_api_and_maps_what_it_finds(
    pave: FakePave, user_id: str
) -> None:
    # GIVEN a user's stored transactions, one of them removed
    stored = store_user(user_id, realistic(user_id))
    soft_delete(stored[0])
    seen: dict[str, Any] = {}

    def detect(transactions: list[dict[str, Any]], as_of: date) -> list[dict[str, Any]]:
        seen["transactions"], seen["as_of"] = transactions, as_of
        netflix = [t for t in transactions if t["merchant_name"] == "Netflix"]
        return [
            {
                "merchant": "Netflix",
                "frequency": "MONTHLY",
                "average_amount": 1549,
                "next_date": as_of + timedelta(days=3),
                "transaction_ids": [t["txn_id"] for t in netflix],
            }
        ]

    # WHEN our detector answers
    found = expenses.our_recurring_expenses(user_id, TODAY, detect)

    # THEN it saw the live transactions of the retained days (not the removed one) in the API's
    # shape, as of the day: the payday models' history
    assert seen["as_of"] == TODAY
    retained = TODAY - timedelta(days=history.RETENTION_DAYS)
    assert {t["txn_id"] for t in seen["transactions"]} == {t.txn_id for t in stored[1:] if t.txn_date >= retained}
    sample = seen["transactions"][0]
    assert isinstance(sample["amount"], int) and isinstance(sample["date"], str) and "pending" in sample
    # AND its answer is the response's, with the last charge's date from those transactions
    [netflix] = found.expenses
    assert (found.source, netflix.merchant_name, netflix.merchant_id, netflix.amount) == (
        expenses.Source.OURS,
        "Netflix",
        None,
        1549,
    )
    assert netflix.last_date == max(t.txn_date for t in stored[1:] if t.merchant_name == "Netflix")
    assert netflix.next_date == TODAY + timedelta(days=3)


@pytest.mark.skipif(DETECTOR_PRESENT, reason="our detector is part of this build")
def test_without_pave_and_without_our_detector_there_is_no_answer(pave: FakePave, user_id: str) -> None:
    store_user(user_id, realistic(user_id))
    with pytest.raises(expenses.NoRecurringExpensesError):
        expenses.recurring_expenses_of(user_id, NOW)


@pytest.mark.skipif(not DETECTOR_PRESENT, reason="our detector is not part of this build yet")
def test_without_pave_our_detector_answers(pave: FakePave, user_id: str) -> None:
    store_user(user_id, realistic(user_id))
    found = expenses.recurring_expenses_of(user_id, NOW)
    assert found.source is expenses.Source.OURS
    assert "NETFLIX" in {e.merchant_name.upper() for e in found.expenses}


def test_after_a_pave_mine_pave_answers(pave: FakePave, user_id: str) -> None:
    store_user(user_id, realistic(user_id))
    pave_feed.feed_window(user_id, now=NOW)
    [poll] = polls_queued(user_id)
    assert pave_miner.handle_poll(poll, now=NOW) is pave_miner.Outcome.MINED
    found = expenses.recurring_expenses_of(user_id, NOW)
    assert found.source is expenses.Source.PAVE and found.mined_at == NOW
    assert [e.merchant_name for e in found.expenses if e.merchant_name == "Netflix"] == ["Netflix"]
    assert all(e.next_date >= found.expenses[0].next_date for e in found.expenses)
