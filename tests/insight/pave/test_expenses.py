"""Which source answers the expenses, and the fallback's call into our detector."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from chalicelib.insight import expenses, history, pave_feed, pave_miner
from chalicelib.insight.data import insights, recurring_expenses
from chalicelib.insight.data.recurring_expenses import Expense
from ops.fakes.pave import FakePave
from tests.insight.pave.support import NOW, TODAY, pave_mine, polls_queued, realistic, store_user

pytestmark = pytest.mark.integration


def test_the_latest_pave_mine_answers_and_expired_rows_are_left_out(pave: FakePave, user_id: str) -> None:
    # GIVEN an older mine and a newer one, the newer with an expense whose TTL has passed
    older, newer = NOW - timedelta(days=2), NOW - timedelta(days=1)
    insights.put_insights(pave_mine(user_id, older, "req_a", 1))
    insights.put_insights(pave_mine(user_id, newer, "req_b", 2))
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
    # WHEN the expenses are read THEN our detector answers instead
    found = expenses.recurring_expenses_of(user_id, NOW)
    assert (found.source, found.mined_at, found.expenses) == (expenses.Source.OURS, None, ())


def test_a_pave_mine_that_covers_none_of_the_users_transactions_is_no_answer(pave: FakePave, user_id: str) -> None:
    # GIVEN a user with transactions whose only Pave mine was computed from none of them (a new
    # user's first upload carried only removals), and another whose mine covers them
    store_user(user_id, realistic(user_id))
    empty = insights.Mine(user_id, NOW, "PAVE", "req_a", 0, 0, details={"window_start": None, "window_end": None})
    insights.put_insights(empty)
    # WHEN the expenses are read
    found = expenses.recurring_expenses_of(user_id, NOW)
    # THEN our detector answered, with its bills, not Pave with nothing
    assert (found.source, found.mined_at) == (expenses.Source.OURS, None)
    assert "Netflix" in {e.merchant_name for e in found.expenses}
    assert all(e.status in {"EARLY_DETECTION", "MATURE"} and e.kind in {"bill", "card_payment"} for e in found.expenses)
    # AND once a mine covers the transactions, Pave answers, even with no expense at all
    insights.put_insights(pave_mine(user_id, NOW + timedelta(minutes=1), "req_b"))
    found = expenses.recurring_expenses_of(user_id, NOW + timedelta(minutes=2))
    assert (found.source, found.expenses) == (expenses.Source.PAVE, ())


def test_without_pave_our_detector_answers_over_the_payday_models_history(pave: FakePave, user_id: str) -> None:
    # GIVEN a user with no Pave mine
    stored = store_user(user_id, realistic(user_id))

    # WHEN the expenses are read
    found = expenses.recurring_expenses_of(user_id, NOW)

    # THEN our detector answered over the retained days: Netflix is a monthly bill, last charged
    # (authorized) on the 3rd, next on 3 July
    assert (found.source, found.mined_at) == (expenses.Source.OURS, None)
    netflix = next(e for e in found.expenses if e.merchant_name == "Netflix")
    assert (netflix.frequency, netflix.amount, netflix.merchant_id) == ("MONTHLY", 1549, None)
    assert (netflix.last_date, netflix.next_date) == (date(2024, 6, 3), date(2024, 7, 3))
    retained = TODAY - timedelta(days=history.RETENTION_DAYS)
    charges = {t.txn_id for t in stored if t.merchant_name == "Netflix" and t.txn_date >= retained}
    assert set(netflix.transaction_ids) == charges
    # AND weekly coffee, everyday spending, is not reported as a bill
    assert "Blue Bottle" not in {e.merchant_name for e in found.expenses}


def test_after_a_pave_mine_pave_answers(pave: FakePave, user_id: str) -> None:
    store_user(user_id, realistic(user_id))
    pave_feed.feed_window(user_id, now=NOW)
    [poll] = polls_queued(user_id)
    assert pave_miner.handle_poll(poll, now=NOW) is pave_miner.Outcome.MINED
    found = expenses.recurring_expenses_of(user_id, NOW)
    assert found.source is expenses.Source.PAVE and found.mined_at == NOW
    assert [e.merchant_name for e in found.expenses if e.merchant_name == "Netflix"] == ["Netflix"]
    assert all(e.next_date >= found.expenses[0].next_date for e in found.expenses)
