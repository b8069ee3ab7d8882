"""Pave client against the fake Pave over HTTP: uploads, processing, dedupe, removals, insights."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest

from chalicelib.peers.pave import (
    CashAdvanceScore,
    Frequency,
    PaveClient,
    RequestState,
    ScoreBand,
    pave_from,
)
from ops.fakes.pave import FakePave
from tests.pave.conftest import NOW, TODAY, Clock, history, txn


def test_an_upload_sends_plaid_transactions_with_the_key_and_answers_a_request_id(
    pave: FakePave, client: PaveClient, user_id: str
) -> None:
    # GIVEN a stored expense and a stored deposit
    rows = [
        txn(user_id, "t-1", 1549, date(2024, 6, 3), merchant="Netflix"),
        txn(user_id, "t-2", -212345, date(2024, 6, 10), name="ACME CORP PAYROLL"),
    ]

    # WHEN they are uploaded
    receipt = client.upload_transactions(user_id, rows)

    # THEN one request carried them in Plaid's format (dollars, positive = money out) with the API key
    [request] = pave.requests
    assert request.path == f"/v1/users/auth0%7C{user_id.split('|')[1]}/transactions"
    assert request.header("X-API-Key") == pave.api_key
    assert request.header("Authorization") is None
    assert request.header("Idempotency-Key")
    body = request.json
    assert [(t["transaction_id"], t["amount"], t["date"]) for t in body["transactions"]] == [
        ("t-1", 15.49, "2024-06-03"),
        ("t-2", -2123.45, "2024-06-10"),
    ]
    assert body["transactions"][0]["merchant_name"] == "Netflix"
    assert body["transactions"][0]["account_id"] == "acct-checking"
    assert "user_id" not in body["transactions"][0]
    assert body["removed"] == []
    # AND the receipt names Pave's request, which is accepted but not yet processed
    assert receipt.request_ids == (receipt.request_id,)
    assert (receipt.transactions_sent, receipt.removals_sent, receipt.replayed) == (2, 0, False)
    assert [r["status"] for r in pave.requests_of(user_id)] == ["pending"]
    assert pave.transactions_of(user_id) == {}


def test_a_request_is_processed_after_enough_polls_and_only_then_shows_in_the_insights(
    pave: FakePave, client: PaveClient, user_id: str
) -> None:
    # GIVEN a Pave that processes an upload on its third status poll
    pave.set_processing(polls=3)
    receipt = client.upload_transactions(user_id, history(user_id))

    # WHEN the request is polled until processed, reading the insights on the way
    states = []
    before = client.insights(user_id)
    for _ in range(3):
        states.append(client.request_status(user_id, receipt.request_id).state)
    after = client.insights(user_id)

    # THEN it was pending twice, then processed; the insights had nothing before and everything after
    assert states == [RequestState.PENDING, RequestState.PENDING, RequestState.PROCESSED]
    assert before.recurring == () and before.income.streams == ()
    assert {r.merchant_name for r in after.recurring} == {"Netflix", "Rent Oakwood"}


def test_a_request_is_processed_once_old_enough(pave: FakePave, client: PaveClient, clock: Clock, user_id: str) -> None:
    # GIVEN a Pave that needs 30 seconds to process an upload
    pave.set_processing(polls=0, seconds=30)
    receipt = client.upload_transactions(user_id, [txn(user_id, "t-1", 1000, TODAY)])

    # WHEN it is polled before and after those 30 seconds
    early = client.request_status(user_id, receipt.request_id)
    clock.advance(30)
    late = client.request_status(user_id, receipt.request_id)

    # THEN only the late poll sees it processed, stamped with Pave's clock
    assert not early.is_processed
    assert late.is_processed
    assert late.processed_at == NOW + timedelta(seconds=30)


def test_a_large_upload_is_paged_and_the_last_page_is_the_one_to_poll(pave: FakePave, user_id: str) -> None:
    # GIVEN a client that sends at most 4 entries per request, and 7 transactions plus 2 removals
    client = pave_from(pave.config(upload_page_size=4))
    rows = [txn(user_id, f"t-{i}", 100 + i, TODAY - timedelta(days=i)) for i in range(7)]

    # WHEN they are uploaded and the receipt's request is polled until processed
    receipt = client.upload_transactions(user_id, rows, removed=["old-1", "old-2"])
    status = client.request_status(user_id, receipt.request_id)

    # THEN three requests carried everything, oldest transactions first, removals last
    pages = [r.json for r in pave.requests_to("POST", pave.requests[0].path)]
    assert [(len(p["transactions"]), len(p["removed"])) for p in pages] == [(4, 0), (3, 1), (0, 1)]
    assert pages[0]["transactions"][0]["transaction_id"] == "t-6"
    assert len(receipt.request_ids) == 3 and receipt.request_id == receipt.request_ids[-1]
    # AND Pave processes a user's requests in order: the last one processed means all are
    assert status.is_processed
    assert [r["status"] for r in pave.requests_of(user_id)] == ["processed"] * 3
    assert set(pave.transactions_of(user_id)) == {f"t-{i}" for i in range(7)}
    assert pave.removed_of(user_id) == {"old-1", "old-2"}


def test_repeating_an_upload_creates_nothing_new(pave: FakePave, client: PaveClient, user_id: str) -> None:
    # GIVEN an upload already made (a redelivered message reads the same window again)
    rows = history(user_id)
    first = client.upload_transactions(user_id, rows, removed=["gone-1"])

    # WHEN the same transactions are uploaded again, in another order
    again = client.upload_transactions(user_id, list(reversed(rows)), removed=["gone-1"])

    # THEN Pave answered the request it had already created: one request, the same id, nothing new
    assert again.replayed
    assert again.request_ids == first.request_ids
    assert len(pave.requests_of(user_id)) == 1
    posts = pave.requests_to("POST", pave.requests[0].path)
    assert posts[0].header("Idempotency-Key") == posts[1].header("Idempotency-Key")


def test_an_overlapping_window_keeps_one_copy_of_each_transaction(
    pave: FakePave, client: PaveClient, user_id: str
) -> None:
    # GIVEN two transactions uploaded and processed
    day = TODAY - timedelta(days=1)
    receipt = client.upload_transactions(user_id, [txn(user_id, "a", 500, day), txn(user_id, "b", 700, day)])
    client.request_status(user_id, receipt.request_id)

    # WHEN a later window holds them again, one with a corrected amount, plus a new one
    later = client.upload_transactions(
        user_id, [txn(user_id, "a", 500, day), txn(user_id, "b", 750, day), txn(user_id, "c", 900, TODAY)]
    )
    client.request_status(user_id, later.request_id)

    # THEN Pave holds each transaction once, in its latest version
    held = pave.transactions_of(user_id)
    assert sorted(held) == ["a", "b", "c"]
    assert held["b"]["amount"] == Decimal("7.5")
    assert not later.replayed


def test_removals_reach_pave_and_a_removed_id_sent_again_stays_removed(
    pave: FakePave, client: PaveClient, user_id: str
) -> None:
    # GIVEN transactions uploaded and processed
    rows = [txn(user_id, f"t-{i}", 1000, TODAY - timedelta(days=i)) for i in range(3)]
    client.request_status(user_id, client.upload_transactions(user_id, rows).request_id)

    # WHEN Plaid removes t-0 (an ordinary removal) and t-1 is re-tombstoned after arriving again
    receipt = client.upload_transactions(user_id, [], removed=["t-0", "t-1"])
    client.request_status(user_id, receipt.request_id)
    # AND a stale window later lists t-1 as a live transaction again
    stale = client.upload_transactions(user_id, [rows[1]])
    client.request_status(user_id, stale.request_id)

    # THEN both removals were sent as removals, Pave dropped both, and t-1 did not come back
    assert pave.requests[-4].json == {
        "transactions": [],
        "removed": [{"transaction_id": "t-0"}, {"transaction_id": "t-1"}],
    }
    assert receipt.removals_sent == 2
    assert set(pave.transactions_of(user_id)) == {"t-2"}
    assert pave.removed_of(user_id) == {"t-0", "t-1"}


def test_removal_wins_over_a_listing_that_still_shows_the_transaction(
    pave: FakePave, client: PaveClient, user_id: str
) -> None:
    # GIVEN a window read from an index that still lists t-1, which Plaid has removed,
    # and a row already marked removed
    rows = [
        txn(user_id, "t-1", 1000, TODAY),
        txn(user_id, "t-2", 2000, TODAY),
        txn(user_id, "t-3", 3000, TODAY, removed=True),
    ]

    # WHEN the window is uploaded with t-1's removal
    receipt = client.upload_transactions(user_id, rows, removed=["t-1"])

    # THEN t-1 and t-3 are sent only as removals
    [request] = pave.requests
    assert [t["transaction_id"] for t in request.json["transactions"]] == ["t-2"]
    assert request.json["removed"] == [{"transaction_id": "t-1"}, {"transaction_id": "t-3"}]
    assert (receipt.transactions_sent, receipt.removals_sent) == (1, 2)


def test_nothing_to_send_or_another_users_transaction_is_refused_before_any_call(
    pave: FakePave, client: PaveClient, user_id: str
) -> None:
    # GIVEN an empty upload, and a transaction of someone else
    # WHEN each is uploaded
    with pytest.raises(ValueError, match="nothing to upload"):
        client.upload_transactions(user_id, [])
    with pytest.raises(ValueError, match="another user"):
        client.upload_transactions(user_id, [txn("someone-else", "t-1", 100, TODAY)])

    # THEN Pave was never called
    assert pave.requests == []


def test_the_insights_are_parsed_into_typed_values_in_cents(pave: FakePave, client: PaveClient, user_id: str) -> None:
    # GIVEN six months of a user's history, uploaded and processed
    receipt = client.upload_transactions(user_id, history(user_id))
    assert client.request_status(user_id, receipt.request_id).is_processed

    # WHEN the insights are read
    insights = client.insights(user_id)

    # THEN the bills are recurring, with Pave's merchant ids, cadence, average in cents and next due date
    by_name = {r.merchant_name: r for r in insights.recurring}
    netflix, rent = by_name["Netflix"], by_name["Rent Oakwood"]
    assert (netflix.frequency, netflix.amount, netflix.due_date, netflix.count) == (
        Frequency.MONTHLY,
        1549,
        date(2024, 7, 3),
        6,
    )
    assert netflix.transaction_ids == tuple(f"netflix-{i}" for i in reversed(range(6)))
    assert (rent.frequency, rent.amount, rent.due_date, rent.last_amount) == (
        Frequency.MONTHLY,
        145000,
        date(2024, 7, 1),
        145000,
    )
    assert netflix.merchant_uuid and netflix.merchant_uuid != rent.merchant_uuid
    # AND the coffee habit is a ritual, not a bill
    [coffee] = insights.rituals
    assert (coffee.merchant_name, coffee.frequency, coffee.amount, coffee.due_date) == (
        "Blue Bottle",
        Frequency.WEEKLY,
        467,
        date(2024, 6, 19),
    )
    assert coffee.merchant_id
    # AND the payroll is income, with Pave's payday estimate and cadence
    [pay] = insights.income.streams
    assert (pay.source, pay.frequency, pay.amount, pay.next_date) == (
        "Acme Corp Payroll",
        Frequency.BIWEEKLY,
        212345,
        date(2024, 6, 24),
    )
    assert insights.income.next_payday == date(2024, 6, 24)
    assert insights.income.pay_frequency is Frequency.BIWEEKLY
    assert insights.income.primary_source == "Acme Corp Payroll"
    assert insights.income.monthly_income == 461661  # 2123.45 every 14 days, 30.4375 days a month
    assert (insights.window_start, insights.window_end) == (date(2024, 1, 1), date(2024, 6, 12))


def test_the_cash_advance_score_is_parsed_with_band_amounts_in_cents(
    pave: FakePave, client: PaveClient, user_id: str
) -> None:
    # GIVEN a processed history with steady pay
    client.request_status(user_id, client.upload_transactions(user_id, history(user_id)).request_id)

    # WHEN the score is read
    score = client.cash_advance_score(user_id)

    # THEN it carries Pave's time and one band per advance range, amounts in cents
    assert isinstance(score, CashAdvanceScore)
    assert score.user_id == user_id
    assert score.scored_at == NOW
    assert score.bands[0] == ScoreBand(score=score.bands[0].score, lowest_amount=0, highest_amount=2500)
    assert score.bands[-1].highest_amount == 20000
    assert [b.score for b in score.bands] == sorted((b.score for b in score.bands), reverse=True)


def test_overdraft_fees_lower_the_score(pave: FakePave, client: PaveClient, user_id: str) -> None:
    # GIVEN two users with the same history, one of them also charged overdraft fees
    other = f"{user_id}-fees"
    fees = [txn(other, f"fee-{i}", 3500, TODAY - timedelta(days=5 * i), name="OVERDRAFT FEE") for i in range(3)]
    for uid, extra in ((user_id, []), (other, fees)):
        client.request_status(uid, client.upload_transactions(uid, history(uid) + extra).request_id)

    # WHEN both scores are read
    clean, charged = client.cash_advance_score(user_id), client.cash_advance_score(other)

    # THEN the fees cost points in every band (the fake scores from what was uploaded)
    assert all(c.score > f.score for c, f in zip(clean.bands, charged.bands, strict=True))


def test_a_failed_request_reads_as_failed(pave: FakePave, client: PaveClient, user_id: str) -> None:
    # GIVEN an upload Pave could not process
    receipt = client.upload_transactions(user_id, [txn(user_id, "t-1", 100, TODAY)])
    pave.fail_request(receipt.request_id)

    # WHEN it is polled
    status = client.request_status(user_id, receipt.request_id)

    # THEN it is failed, and its data never reached the insights
    assert status.state is RequestState.FAILED
    assert pave.transactions_of(user_id) == {}
