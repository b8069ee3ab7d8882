"""Recurring expenses, the cash-advance score and the payday Pave mined, over HTTP: who answers,
the 404, who may read."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

import pytest

from chalicelib.data.ttl import iso_timestamp, utcnow
from chalicelib.insight import pave_feed, pave_miner, pave_payday
from chalicelib.insight.calendar import previous_business_day
from chalicelib.insight.data import insights, recurring_expenses, scores
from chalicelib.insight.data.recurring_expenses import Expense
from ops.fakes.auth0 import FakeAuth0
from ops.fakes.pave import FakePave
from tests.api.conftest import Api, error_code
from tests.insight.pave.support import pave_mine, polls_queued, realistic, store_user

pytestmark = pytest.mark.integration

EXPENSES = "/v1/users/{user_id}/transactions/expenses"
SCORE = "/v1/users/{user_id}/scores/cash_advance"
PAYDAY = "/v1/users/{user_id}/payday"


def mined(user_id: str, fake_pave: FakePave) -> datetime:
    """The user's transactions uploaded to the fake Pave and mined (handlers called directly)."""
    now = utcnow()
    store_user(user_id, realistic(user_id, now.date()), now=now)
    pave_feed.feed_window(user_id, now=now)
    [poll] = polls_queued(user_id)
    assert pave_miner.handle_poll(poll, now=now) is pave_miner.Outcome.MINED
    return now


def test_expenses_come_from_the_latest_pave_mine(api: Api, fake_pave: FakePave, user_id: str) -> None:
    # GIVEN a user whose transactions Pave has mined
    mined_at = mined(user_id, fake_pave)
    # WHEN the user asks for their recurring expenses
    response = api.get(EXPENSES, path={"user_id": user_id})
    # THEN Pave answered, with the mine's recurring expenses in next-charge order
    assert response.status_code == 200
    body = response.json()
    assert (body["user_id"], body["source"], body["mined_at"]) == (user_id, "pave", iso_timestamp(mined_at))
    netflix = next(e for e in body["expenses"] if e["merchant_name"] == "Netflix")
    assert (netflix["frequency"], netflix["amount"]) == ("MONTHLY", 1549)
    # AND it names the Netflix charges of the retained window (the 120 days Pave was sent)
    charged = {t.txn_id for t in realistic(user_id, mined_at.date()) if t.merchant_name == "Netflix"}
    assert (
        netflix["merchant_id"] and set(netflix["transaction_ids"]) <= charged and len(netflix["transaction_ids"]) >= 3
    )
    assert [e["next_date"] for e in body["expenses"]] == sorted(e["next_date"] for e in body["expenses"])


def test_the_newest_mine_answers(api: Api, user_id: str) -> None:
    # GIVEN two Pave mines with different expenses
    now = utcnow()
    older, newer = now - timedelta(hours=5), now - timedelta(hours=1)
    for mined_at, merchant in ((older, "Old Gym"), (newer, "Spotify")):
        insights.put_insights(pave_mine(user_id, mined_at, "req_x", 1))
        recurring_expenses.put_recurring_expenses(
            [Expense(user_id, mined_at, f"m-{merchant}", "MONTHLY", 1099, now.date() + timedelta(days=4), merchant)]
        )
    # WHEN read THEN only the newest mine's expense is served
    body = api.get(EXPENSES, path={"user_id": user_id}).json()
    assert body["mined_at"] == iso_timestamp(newer)
    assert [e["merchant_name"] for e in body["expenses"]] == ["Spotify"]


def test_without_a_pave_mine_our_detector_answers(api: Api, user_id: str) -> None:
    # GIVEN a user Pave has not mined
    store_user(user_id, realistic(user_id, utcnow().date()), now=utcnow())
    # WHEN they ask THEN our detector answered, with the monthly bills it found
    body = api.get(EXPENSES, path={"user_id": user_id}).json()
    assert (body["source"], body["mined_at"]) == ("ours", None)
    assert all(e["merchant_id"] is None for e in body["expenses"])
    assert ("Netflix", "MONTHLY", 1549) in {(e["merchant_name"], e["frequency"], e["amount"]) for e in body["expenses"]}
    # AND each expense says how much evidence it has and what it pays
    netflix = next(e for e in body["expenses"] if e["merchant_name"] == "Netflix")
    assert (netflix["status"], netflix["kind"]) == ("MATURE", "bill")


def test_the_score_is_404_until_pave_scored_the_user_then_the_latest(
    api: Api, fake_pave: FakePave, user_id: str
) -> None:
    # GIVEN no score yet THEN 404 with the error envelope
    missing = api.get(SCORE, path={"user_id": user_id})
    assert missing.status_code == 404 and error_code(missing) == "not_found"
    # WHEN Pave has mined the user THEN the mine's score is served, one band per advance range
    mined_at = mined(user_id, fake_pave)
    body = api.get(SCORE, path={"user_id": user_id}).json()
    assert (body["user_id"], body["scored_at"]) == (user_id, iso_timestamp(mined_at))
    assert [b["highest_amount"] for b in body["bands"]] == [2500, 5000, 7500, 10000, 12500, 15000, 17500, 20000]
    assert all(0 <= b["score"] <= 100 and b["lowest_amount"] < b["highest_amount"] for b in body["bands"])


def test_a_score_past_its_ttl_is_not_served(api: Api, user_id: str) -> None:
    scores.put_score(scores.Score(user_id, utcnow() - timedelta(days=31), (scores.ScoreBand(80, 0, 2500),)))
    response = api.get(SCORE, path={"user_id": user_id})
    assert response.status_code == 404


@pytest.mark.parametrize("template", [EXPENSES, SCORE])
def test_a_user_reads_only_their_own_insights_and_a_service_any(
    template: str, api: Api, service_api: Api, auth0: FakeAuth0, user_id: str
) -> None:
    insights.put_insights(insights.Mine(user_id, utcnow(), "PAVE", "req_x", 0, 0))
    scores.put_score(scores.Score(user_id, utcnow(), (scores.ScoreBand(80, 0, 2500),)))
    other = api.as_token(auth0.user_token(f"{user_id}-other"))
    forbidden = other.get(template, path={"user_id": user_id})
    assert forbidden.status_code == 403 and error_code(forbidden) == "forbidden"
    assert api.as_token(None).get(template, path={"user_id": user_id}).status_code == 401
    assert service_api.get(template, path={"user_id": user_id}).status_code == 200
    assert api.get(template, path={"user_id": user_id}).status_code == 200


def test_the_payday_endpoint_answers_with_the_payday_the_pave_miner_cached(
    api: Api, fake_pave: FakePave, user_id: str, override_settings: Callable[..., None]
) -> None:
    # GIVEN a user whose transactions Pave has mined: the miner cached Pave's payday
    mined(user_id, fake_pave)
    cached = pave_payday.latest(user_id)
    assert cached is not None
    # WHEN the payday is asked for with the Pave flag on (the default)
    body = api.get(PAYDAY, path={"user_id": user_id}).json()
    # THEN Pave's cached payday answered; on a weekend day or a Fed holiday (the fake Pave's
    # date follows the calendar of the day the test runs) the business day before, saying so
    given = cached.next_payday
    assert given is not None
    paid = previous_business_day(given)
    if paid <= utcnow().date():  # Pave's date a weekend just ahead: no payday from Pave, V2 answers
        assert body["detection_used"] != "PAVE_PAYDAY_CALCULATION"
    else:
        assert (body["detection_used"], body["next_payday"]) == ("PAVE_PAYDAY_CALCULATION", paid.isoformat())
        assert body["moved_from"] == (None if paid == given else given.isoformat())
        assert (body["cadence"], body["income_source"]) == (cached.frequency, cached.source)
    # WHEN the Pave flag is switched off THEN the same day recomputes without it
    override_settings(PAYDAY_USED_PAVE_V2="false")
    off = api.get(PAYDAY, path={"user_id": user_id}).json()
    assert off["from_cache"] is False and off["detection_used"] != "PAVE_PAYDAY_CALCULATION"
