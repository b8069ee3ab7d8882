"""GET /v1/users/{user_id}/payday over HTTP: the same-day cache, the captures, the chain's
precedence, the history it reads (never a REMOVED item's) and who may ask.

Rows are written through the data layer as the refiner and the Pave miner write them; the
clock the route reads is pinned per test (a run crossing midnight UTC changes nothing).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from boto3.dynamodb.conditions import Key

from chalicelib.data import items, transactions
from chalicelib.data.transactions import Transaction
from chalicelib.insight.data import incomes, keys, payday, tables
from chalicelib.insight.data.incomes import Income
from chalicelib.settings import get_settings
from ops.fakes.auth0 import FakeAuth0
from tests.api.conftest import Api, error_code
from tests.api.factories import a_transaction, an_account, an_item, paycheck, store_account, store_transactions
from tests.factories import uid
from tests.faults import aws_fault, table_is

pytestmark = pytest.mark.integration

PAYDAY = "/v1/users/{user_id}/payday"
#: A Friday afternoon, UTC.
NOW = datetime(2026, 11, 20, 15, 0, tzinfo=UTC)
TODAY = NOW.date()
#: Biweekly Friday paychecks, the last one a week ago: the next is 2026-11-27.
BIWEEKLY = [date(2026, 8, 7) + timedelta(days=14 * k) for k in range(8)]
#: Semi-monthly on the 15th and the last day (rolled back to Friday when on a weekend).
SEMI_MONTHLY = [date(2026, 7, 31), date(2026, 8, 14), date(2026, 8, 31), date(2026, 9, 15), date(2026, 9, 30)]
SEMI_MONTHLY += [date(2026, 10, 15), date(2026, 10, 30), date(2026, 11, 13)]


class Clock:
    """The instant the route reads; a test moves it."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[Clock]:
    pinned = Clock(NOW)
    monkeypatch.setattr("chalicelib.data.ttl.utcnow", pinned)
    yield pinned


# --- rows ---------------------------------------------------------------------------------


def spending(user_id: str, acct_id: str, item_id: str | None) -> list[Transaction]:
    """A purchase every third day over the window, so the history spans it like a real feed."""
    return [
        a_transaction(user_id, acct_id, TODAY - timedelta(days=n), amount=2_345, name="KROGER #432", item_id=item_id)
        for n in range(0, 118, 3)
    ]


def an_earner(user_id: str, days: list[date] = BIWEEKLY, employer: str = "ACME CORP") -> items.Item:
    """A linked item whose checking account receives ``days`` paychecks."""
    item = an_item(user_id)
    account = an_account(user_id, item.item_id)
    store_account(account)
    store_transactions(
        [paycheck(user_id, account.acct_id, item.item_id, d, employer) for d in days]
        + spending(user_id, account.acct_id, item.item_id)
    )
    return item


def pave_expects(user_id: str, next_payday: date, frequency: str = "BIWEEKLY") -> None:
    incomes.put_income(
        Income(user_id=user_id, updated_date=NOW - timedelta(hours=3), next_payday=next_payday,
               frequency=frequency, source="ACME CORP (Pave)")
    )  # fmt: skip


def captures(user_id: str, event: str) -> list[dict[str, Any]]:
    """The user's capture rows of ``event``, oldest first."""
    rows = tables.data_capture().query(
        KeyConditionExpression=Key("PK").eq(keys.capture_pk(user_id)) & Key("SK").begins_with(event + "#"),
        ConsistentRead=True,
    )["Items"]
    return sorted(rows, key=lambda r: (r["captured_at"], r["SK"]))


def predictions(user_id: str) -> list[dict[str, Any]]:
    return [row["payload"] for row in captures(user_id, "PAYDAY_PREDICTION")]


def daily_v2_keys(user_id: str) -> list[str]:
    return sorted(
        str(r["SK"]) for e in ("FM_PAYDAY_FILTERED_TXNS", "FM_PAYDAY_PREDICTED_PAYDAY") for r in captures(user_id, e)
    )


def ask(api: Api, user_id: str, **query: str) -> dict[str, Any]:
    response = api.get(PAYDAY, path={"user_id": user_id}, params=query)
    assert response.status_code == 200, response.text
    return dict(response.json())


# --- the answer ---------------------------------------------------------------------------


def test_a_biweekly_earner_gets_the_next_friday_and_its_collection_dates(api: Api, clock: Clock, user_id: str) -> None:
    # GIVEN biweekly Friday paychecks, the last one a week ago, and no Pave insight
    an_earner(user_id)
    # WHEN the user asks for the payday
    body = ask(api, user_id)
    # THEN V2 answers with next Friday, computed now (not from the cache)
    assert body == {
        "user_id": user_id,
        "loan_id": None,
        "prediction_date": "2026-11-20",
        "next_payday": "2026-11-27",
        "cadence": "BIWEEKLY",
        "income_source": body["income_source"],
        "collection_dates": {"instant": "2026-11-27", "standard": "2026-11-30", "extended": "2026-12-11"},
        "detection_used": "FLOATME_V2_PAYDAY_CALCULATION",
        "confidence": body["confidence"],
        "reason": None,
        "from_cache": False,
        "moved_from": None,
    }
    assert "ACME" in body["income_source"].upper()
    assert 0.5 < body["confidence"] <= 1


def test_no_income_history_is_an_answer_without_a_date(api: Api, auth0: FakeAuth0, clock: Clock, user_id: str) -> None:
    # GIVEN a user whose account shows spending and no income
    item = an_item(user_id)
    account = an_account(user_id, item.item_id)
    store_account(account)
    store_transactions(spending(user_id, account.acct_id, item.item_id))
    # WHEN the payday is asked for
    body = ask(api, user_id, loan_id="loan-1")
    # THEN 200 without a date: cadence NONE, no collection dates, and the reason
    assert (body["next_payday"], body["cadence"], body["confidence"]) == (None, "NONE", 0)
    assert body["collection_dates"] == {"instant": None, "standard": None, "extended": None}
    assert body["reason"] and "income" in body["reason"]
    # AND the user without any transaction at all gets the same kind of answer
    empty = uid("user")
    body = ask(api.as_token(auth0.user_token(empty)), empty)
    assert (body["next_payday"], body["cadence"]) == (None, "NONE")
    assert body["reason"]


# --- the same-day cache -------------------------------------------------------------------


def test_the_same_day_is_served_from_the_row_for_any_loan(api: Api, clock: Clock, user_id: str) -> None:
    # GIVEN a first request for loan-a computed and cached the prediction
    an_earner(user_id)
    first = ask(api, user_id, loan_id="loan-a")
    assert first["from_cache"] is False
    # AND since then Pave's insight arrived, which a new computation would prefer
    pave_expects(user_id, date(2026, 11, 25))
    # WHEN another loan asks later the same day
    clock.now = NOW.replace(hour=23, minute=59, second=59)
    second = ask(api, user_id, loan_id="loan-b")
    # THEN it is served from the row: the same prediction, for loan-b
    assert second["from_cache"] is True
    assert second["loan_id"] == "loan-b"
    assert {k: v for k, v in second.items() if k not in ("from_cache", "loan_id")} == {
        k: v for k, v in first.items() if k not in ("from_cache", "loan_id")
    }
    # AND the row still records the loan it was computed for
    row = payday.get_payday(user_id)
    assert row is not None and (row.loan_id, row.prediction_date) == ("loan-a", TODAY)


def test_every_evaluation_is_captured_and_a_hit_captures_what_the_miss_did(
    api: Api, clock: Clock, user_id: str
) -> None:
    # GIVEN a user with paychecks
    an_earner(user_id)
    # WHEN the payday is asked for twice the same day, by two loans
    ask(api, user_id, loan_id="loan-a")
    clock.now = NOW + timedelta(minutes=5)
    ask(api, user_id, loan_id="loan-b")
    # THEN two PAYDAY_PREDICTION rows: the miss, then the hit, each with its loan
    miss, hit = predictions(user_id)
    assert (miss["from_cache"], miss["loan_id"], miss["prediction_date"]) == (False, "loan-a", "2026-11-20")
    assert (hit["from_cache"], hit["loan_id"], hit["prediction_date"]) == (True, "loan-b", "2026-11-20")
    # AND each holds every algorithm's prediction and error, the flags and the winner
    assert (miss["detection_used"], miss["used_v2"], miss["used_pave_v2"]) == (
        "FLOATME_V2_PAYDAY_CALCULATION",
        True,
        True,
    )
    assert miss["v2"]["next_payday"] == "2026-11-27" and miss["fm"]["algorithm"] == "FLOATME_PAYDAY_CALCULATION"
    assert miss["pave"] is None
    assert miss["errors"]["PAVE_PAYDAY_CALCULATION"]["error"] == "PaveUnavailableError"
    # AND the hit's payload is the miss's, but for from_cache and loan_id
    same = {k: v for k, v in hit.items() if k not in ("from_cache", "loan_id")}
    assert same == {k: v for k, v in miss.items() if k not in ("from_cache", "loan_id")}
    # AND V2's candidates and prediction were captured once for the day
    assert daily_v2_keys(user_id) == ["FM_PAYDAY_FILTERED_TXNS#2026-11-20", "FM_PAYDAY_PREDICTED_PAYDAY#2026-11-20"]
    filtered = captures(user_id, "FM_PAYDAY_FILTERED_TXNS")[0]["payload"]
    assert sorted(t["date"] for t in filtered["transactions"]) == [d.isoformat() for d in BIWEEKLY]
    predicted = captures(user_id, "FM_PAYDAY_PREDICTED_PAYDAY")[0]["payload"]
    assert (predicted["next_payday"], predicted["cadence"]) == ("2026-11-27", "BIWEEKLY")


def test_crossing_midnight_recomputes_and_overwrites_the_row(api: Api, clock: Clock, user_id: str) -> None:
    # GIVEN a prediction computed a second before midnight UTC
    an_earner(user_id)
    clock.now = datetime(2026, 11, 20, 23, 59, 59, tzinfo=UTC)
    before = ask(api, user_id, loan_id="loan-a")
    assert (before["from_cache"], before["prediction_date"]) == (False, "2026-11-20")
    # AND Pave's insight arrived meanwhile
    pave_expects(user_id, date(2026, 11, 25))
    # WHEN the same loan asks a second after midnight
    clock.now = datetime(2026, 11, 21, 0, 0, 1, tzinfo=UTC)
    after = ask(api, user_id, loan_id="loan-a")
    # THEN yesterday's row is not served: computed again for today (and Pave now answers)
    assert (after["from_cache"], after["prediction_date"]) == (False, "2026-11-21")
    assert (after["detection_used"], after["next_payday"]) == ("PAVE_PAYDAY_CALCULATION", "2026-11-25")
    row = payday.get_payday(user_id)
    assert row is not None and row.prediction_date == date(2026, 11, 21)
    # AND the rest of the new day is served from the new row
    clock.now = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)
    assert ask(api, user_id)["from_cache"] is True
    assert [(p["prediction_date"], p["from_cache"]) for p in predictions(user_id)] == [
        ("2026-11-20", False),
        ("2026-11-21", False),
        ("2026-11-21", True),
    ]
    # AND V2 ran only on the first day (Pave answered on the second): its daily rows are that day's
    assert daily_v2_keys(user_id) == ["FM_PAYDAY_FILTERED_TXNS#2026-11-20", "FM_PAYDAY_PREDICTED_PAYDAY#2026-11-20"]


def test_the_daily_v2_rows_are_written_once_even_when_the_day_recomputes(
    api: Api, clock: Clock, user_id: str, override_settings: Callable[..., None]
) -> None:
    # GIVEN a prediction computed with V2 today
    an_earner(user_id)
    ask(api, user_id)
    first = captures(user_id, "FM_PAYDAY_PREDICTED_PAYDAY")
    # WHEN Pave is switched off (a flag change recomputes the same day) and asked again
    override_settings(PAYDAY_USED_PAVE_V2="false")
    clock.now = NOW + timedelta(hours=1)
    again = ask(api, user_id)
    # THEN it was computed again, with the new flags
    assert again["from_cache"] is False
    assert [(p["used_pave_v2"], p["from_cache"]) for p in predictions(user_id)] == [(True, False), (False, False)]
    # AND the day's V2 rows are still the first ones, one of each
    assert daily_v2_keys(user_id) == ["FM_PAYDAY_FILTERED_TXNS#2026-11-20", "FM_PAYDAY_PREDICTED_PAYDAY#2026-11-20"]
    assert captures(user_id, "FM_PAYDAY_PREDICTED_PAYDAY") == first


# --- the chain through the endpoint -------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "pave_row", "detection", "next_payday"),
    [
        ({}, True, "PAVE_PAYDAY_CALCULATION", "2026-11-25"),
        ({}, False, "FLOATME_V2_PAYDAY_CALCULATION", "2026-11-27"),
        ({"PAYDAY_USED_PAVE_V2": "false"}, True, "FLOATME_V2_PAYDAY_CALCULATION", "2026-11-27"),
        ({"PAYDAY_USED_PAVE_V2": "false", "PAYDAY_USED_V2": "false"}, True, "FLOATME_PAYDAY_CALCULATION", "2026-11-27"),
    ],
    ids=["pave-first", "v2-without-pave", "pave-off", "both-off"],
)
def test_chain_precedence_pave_then_v2_then_the_legacy_guess(
    api: Api,
    clock: Clock,
    user_id: str,
    override_settings: Callable[..., None],
    env: dict[str, str],
    pave_row: bool,
    detection: str,
    next_payday: str,
) -> None:
    # GIVEN a biweekly earner, maybe a Pave insight, and the flags
    override_settings(**env)
    an_earner(user_id)
    if pave_row:
        pave_expects(user_id, date(2026, 11, 25))
    # WHEN the payday is asked for
    body = ask(api, user_id)
    # THEN the first algorithm of the chain that runs and answers wins
    assert (body["detection_used"], body["next_payday"]) == (detection, next_payday)
    captured = predictions(user_id)[0]
    assert (captured["used_v2"], captured["used_pave_v2"]) == ("PAYDAY_USED_V2" not in env, not env)
    # AND Pave answering means V2 did not run: no V2 prediction, no daily V2 rows
    v2_ran = detection != "PAVE_PAYDAY_CALCULATION" and "PAYDAY_USED_V2" not in env
    assert (captured["v2"] is not None) == v2_ran
    assert bool(daily_v2_keys(user_id)) == v2_ran
    # AND the legacy guess is always computed
    assert captured["fm"]["next_payday"] == "2026-11-27"


def test_a_stale_pave_insight_falls_through_to_v2(api: Api, clock: Clock, user_id: str) -> None:
    # GIVEN Pave's insight names a payday already past
    an_earner(user_id)
    pave_expects(user_id, date(2026, 11, 13))
    # WHEN / THEN V2 answers, and the capture says why Pave did not
    body = ask(api, user_id)
    assert body["detection_used"] == "FLOATME_V2_PAYDAY_CALCULATION"
    assert "stale" in predictions(user_id)[0]["errors"]["PAVE_PAYDAY_CALCULATION"]["message"]


def test_a_pave_payday_on_a_holiday_is_answered_the_business_day_before_and_says_so(
    api: Api, clock: Clock, user_id: str
) -> None:
    # GIVEN Pave's insight names Friday 25 December (a Fed holiday) as the next payday
    clock.now = datetime(2026, 12, 21, 15, 0, tzinfo=UTC)
    an_earner(user_id)
    pave_expects(user_id, date(2026, 12, 25))
    # WHEN the payday is asked for, then asked again the same day (the cached row)
    first = ask(api, user_id)
    clock.now += timedelta(minutes=5)
    again = ask(api, user_id)
    # THEN both answer Thursday the 24th, say Pave gave the 25th, and collect from the 24th
    for body in (first, again):
        assert (body["detection_used"], body["next_payday"], body["moved_from"]) == (
            "PAVE_PAYDAY_CALCULATION",
            "2026-12-24",
            "2026-12-25",
        )
        assert body["collection_dates"]["instant"] == "2026-12-24"
    assert (first["from_cache"], again["from_cache"]) == (False, True)
    # AND both captures record the move
    assert [p["moved_from"] for p in predictions(user_id)] == ["2026-12-25", "2026-12-25"]


# --- the history it reads -----------------------------------------------------------------


def test_transactions_of_removed_items_are_ignored(api: Api, clock: Clock, user_id: str) -> None:
    # GIVEN a REMOVED item with biweekly paychecks, some on rows that name no item (older rows)
    old = an_earner(user_id, BIWEEKLY, employer="INITECH")
    old_account = an_account(user_id, old.item_id)
    store_account(old_account)
    store_transactions([paycheck(user_id, old_account.acct_id, None, d, "INITECH") for d in BIWEEKLY])
    items.mark_removed(user_id, old.item_id)
    # AND a live item with semi-monthly pay
    an_earner(user_id, SEMI_MONTHLY, employer="GLOBEX")
    # WHEN the payday is asked for
    body = ask(api, user_id)
    # THEN only the live item's pay counts
    assert (body["cadence"], body["next_payday"]) == ("SEMI_MONTHLY", "2026-11-30")
    assert "GLOBEX" in (body["income_source"] or "").upper()
    filtered = captures(user_id, "FM_PAYDAY_FILTERED_TXNS")[0]["payload"]["transactions"]
    assert {t["date"] for t in filtered} == {d.isoformat() for d in SEMI_MONTHLY}


def test_removed_transactions_and_rows_older_than_the_retention_are_ignored(
    api: Api, clock: Clock, user_id: str
) -> None:
    # GIVEN biweekly pay, whose last paycheck was removed by Plaid (soft-deleted)
    item = an_item(user_id)
    account = an_account(user_id, item.item_id)
    store_account(account)
    checks = [paycheck(user_id, account.acct_id, item.item_id, d) for d in BIWEEKLY]
    # AND weekly paychecks of another payer, all older than 120 days (left behind by a late TTL)
    ancient = [TODAY - timedelta(days=121 + 7 * n) for n in range(10)]
    store_transactions(
        checks
        + [paycheck(user_id, account.acct_id, item.item_id, d, "HOOLI") for d in ancient]
        + spending(user_id, account.acct_id, item.item_id)
    )
    transactions.soft_delete(checks[-1].txn_id, user_id, item.item_id)
    # WHEN the payday is asked for
    ask(api, user_id)
    # THEN V2 saw neither the removed paycheck nor the old payer
    filtered = captures(user_id, "FM_PAYDAY_FILTERED_TXNS")[0]["payload"]["transactions"]
    assert sorted(t["date"] for t in filtered) == [d.isoformat() for d in BIWEEKLY[:-1]]


# --- failures and authorization -----------------------------------------------------------


def test_a_failed_capture_does_not_fail_the_request(
    api: Api,
    clock: Clock,
    user_id: str,
    service_logs: list[logging.LogRecord],
    capsys: pytest.CaptureFixture[str],
) -> None:
    # GIVEN the capture table refuses every write
    an_earner(user_id)
    capsys.readouterr()
    capture_table = get_settings().data_capture_table
    with aws_fault("dynamodb", "PutItem", times=10, when=table_is(capture_table)) as fault:
        # WHEN the payday is asked for
        body = ask(api, user_id)
    # THEN the user gets the answer, and the prediction is cached
    assert body["next_payday"] == "2026-11-27"
    assert payday.get_payday(user_id) is not None
    # AND each of the three captures failed, was logged and counted by event
    assert fault.hits == 3
    logged = {getattr(r, "event", None) for r in service_logs if r.getMessage() == "payday capture failed"}
    events = {"PAYDAY_PREDICTION", "FM_PAYDAY_FILTERED_TXNS", "FM_PAYDAY_PREDICTED_PAYDAY"}
    assert logged == events
    counted = [m for m in emitted_metrics(capsys.readouterr().out) if "insight.payday.capture.failed" in m]
    assert {m["event"] for m in counted} == events


def emitted_metrics(output: str) -> list[dict[str, Any]]:
    """The EMF documents Powertools printed (one JSON object per line)."""
    return [doc for line in output.splitlines() if line.startswith("{") and "_aws" in (doc := json.loads(line))]


def test_a_user_reads_only_their_own_payday_and_a_service_any(
    api: Api, service_api: Api, auth0: FakeAuth0, clock: Clock, user_id: str
) -> None:
    an_earner(user_id)
    path = {"user_id": user_id}
    # WHEN there is no token / THEN 401
    assert api.as_token(None).get(PAYDAY, path=path).status_code == 401
    # WHEN another user asks / THEN 403, and nothing was evaluated
    other = api.as_token(auth0.user_token(uid("user"))).get(PAYDAY, path=path)
    assert (other.status_code, error_code(other)) == (403, "forbidden")
    assert predictions(user_id) == []
    # WHEN a service asks for the user / THEN the answer
    assert service_api.get(PAYDAY, path=path).json()["next_payday"] == "2026-11-27"


def test_a_malformed_loan_id_is_a_bad_request(api: Api, clock: Clock, user_id: str) -> None:
    response = api.get(PAYDAY, path={"user_id": user_id}, params={"loan_id": "loan#1"})
    assert (response.status_code, error_code(response)) == (400, "bad_request")
    response = api.get(PAYDAY, path={"user_id": user_id}, params={"loan": "x"})
    assert (response.status_code, error_code(response)) == (400, "bad_request")


def test_a_row_without_its_flags_is_computed_again(api: Api, clock: Clock, user_id: str) -> None:
    # GIVEN today's row in the format written before the flags and the served answer were kept
    an_earner(user_id)
    payday.put_payday(
        payday.PaydayRecord(user_id=user_id, prediction_date=TODAY, detection_used="FLOATME_PAYDAY_CALCULATION",
                            next_date=date(2026, 11, 24), source="OLD", frequency="WEEKLY", loan_id="loan-0",
                            created_date=NOW - timedelta(hours=1))
    )  # fmt: skip
    # WHEN the payday is asked for / THEN it is computed again (how it was computed is unknown)
    body = ask(api, user_id)
    assert (body["from_cache"], body["next_payday"], body["cadence"]) == (False, "2026-11-27", "BIWEEKLY")
