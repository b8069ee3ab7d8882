"""POST /v1/users/{user_id}/income/detect over HTTP: the streams, the run row, the history it
reads (never a REMOVED item's), the model switch, who may ask, and the verification flow.

Rows are written through the data layer as the refiner writes them; the clock the route
reads is pinned per test.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from boto3.dynamodb.conditions import Key

from chalicelib.data import items
from chalicelib.data.ttl import iso_timestamp
from chalicelib.insight.data import keys, tables
from chalicelib.insight.income import load_model
from chalicelib.settings import reset_settings
from ops.fakes.auth0 import FakeAuth0
from tests.api.conftest import Api, error_code
from tests.api.factories import a_transaction, an_account, an_item, paycheck, store_account, store_transactions
from tests.factories import uid

pytestmark = pytest.mark.integration

DETECT = "/v1/users/{user_id}/income/detect"
VERIFICATION = "/v1/users/{user_id}/income/verification"
#: A Friday afternoon, UTC.
NOW = datetime(2026, 11, 20, 15, 0, tzinfo=UTC)
TODAY = NOW.date()
#: Biweekly Friday paychecks, the last one a week ago: the next is 2026-11-27.
BIWEEKLY = [date(2026, 8, 7) + timedelta(days=14 * k) for k in range(8)]


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr("chalicelib.data.ttl.utcnow", lambda: NOW)
    yield


def an_earner(user_id: str, employer: str = "ACME CORP", **item: Any) -> items.Item:
    """A linked item whose checking account receives biweekly paychecks, a Zelle and purchases."""
    linked = an_item(user_id, **item)
    account = an_account(user_id, linked.item_id)
    store_account(account)
    acct, item_id = account.acct_id, linked.item_id
    rows = [paycheck(user_id, acct, item_id, d, employer) for d in BIWEEKLY]
    rows += [
        a_transaction(user_id, acct, TODAY - timedelta(days=n), amount=2_345, name="KROGER #432", item_id=item_id)
        for n in range(0, 118, 8)
    ]
    rows.append(
        a_transaction(
            user_id, acct, TODAY - timedelta(days=9), amount=-4_000, name="Zelle payment from JO", item_id=item_id
        )
    )
    store_transactions(rows)
    return linked


def runs(user_id: str) -> list[dict[str, Any]]:
    pk = keys.income_detection_key(user_id, "x")["PK"]
    return list(tables.income_detection().query(KeyConditionExpression=Key("PK").eq(pk), ConsistentRead=True)["Items"])


def detect(api: Api, user_id: str, **kwargs: Any) -> dict[str, Any]:
    response = api.post(DETECT, path={"user_id": user_id}, **kwargs)
    assert response.status_code == 200, response.text
    return dict(response.json())


def test_the_user_detects_their_income_and_submits_a_stream_as_is(api: Api, clock: None, user_id: str) -> None:
    # GIVEN biweekly paychecks into a linked account
    an_earner(user_id)
    # WHEN the user runs detection
    body = detect(api, user_id)
    # THEN one income stream, with its schedule, amount, next date and the methods that agreed
    assert (body["as_of"], body["ml_enabled"], body["ml_results_used"]) == ("2026-11-20", True, True)
    assert body["ml_prediction_id"] == load_model().prediction_id and body["streams_considered"] == 1
    [stream] = body["income_streams"]
    assert (stream["payer"], stream["cadence"], stream["typical_amount_in_cents"]) == ("Acme Corp", "BIWEEKLY", 152_310)
    assert (stream["next_date"], stream["status"], stream["deposits"]) == ("2026-11-27", "ACTIVE", 8)
    assert stream["methods"] == ["a", "b", "c", "d", "ml"] and stream["confidence"] > 0.9
    request = stream["verification_request"]
    assert request == {
        "txn_name": "ACME CORP DES:PAYROLL ID:26111301 INDN:PAT DOE CO ID:1234567890 PPD",
        "txn_id": request["txn_id"],
        "amount_in_cents": 152_310,
        "pay_frequency": "BIWEEKLY",
        "institution_id": "ins_109508",
    }
    # AND the run is recorded for 7 days with every method's transactions and the model's part
    [row] = runs(user_id)
    assert row["run_date"] == body["run_date"] == iso_timestamp(NOW)
    assert int(row["ttl"]) == int((NOW + timedelta(days=7)).timestamp())
    assert all(len(row[f"method_{m}_results"]) == 8 for m in ("a", "b", "c", "d", "ml"))
    assert (row["ml_enabled"], row["ml_results_used"], row["ml_prediction_id"]) == (
        True,
        True,
        body["ml_prediction_id"],
    )
    assert row["ml_predictions"] == [{"payer": "ACME CORP", "account_id": stream["account_id"], "income": True}]
    assert len(row["ml_probabilities"]) == 1 and float(row["ml_probabilities"][0]) > 0.9
    # WHEN the user submits the stream's verification request as it came
    submitted = api.post(VERIFICATION, path={"user_id": user_id}, json=request)
    # THEN the verification is pending on exactly that stream
    assert submitted.status_code == 201
    verification = submitted.json()
    assert verification["verification_status"] == "pending"
    assert {k: verification[k] for k in request} == request


def test_each_run_is_a_new_row(api: Api, clock: None, user_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    an_earner(user_id)
    detect(api, user_id)
    monkeypatch.setattr("chalicelib.data.ttl.utcnow", lambda: NOW + timedelta(hours=2))
    detect(api, user_id, json={})
    assert len(runs(user_id)) == 2


def test_transactions_of_removed_items_are_not_read(api: Api, clock: None, user_id: str) -> None:
    # GIVEN a REMOVED item paying INITECH and a live one paying GLOBEX
    old = an_earner(user_id, "INITECH", institution_id="ins_3")
    items.mark_removed(user_id, old.item_id)
    an_earner(user_id, "GLOBEX")
    # WHEN detection runs / THEN only the live item's pay is seen
    body = detect(api, user_id)
    assert [s["payer"] for s in body["income_streams"]] == ["Globex"]
    assert body["income_streams"][0]["verification_request"]["institution_id"] == "ins_109508"


def test_a_bank_without_an_institution_id_gives_no_verification_request(api: Api, clock: None, user_id: str) -> None:
    an_earner(user_id, institution_id=None)
    [stream] = detect(api, user_id)["income_streams"]
    assert stream["cadence"] == "BIWEEKLY" and stream["verification_request"] is None


def test_with_the_model_off_the_rules_decide(
    api: Api, clock: None, user_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    an_earner(user_id)
    monkeypatch.setenv("INCOME_ML_ENABLED", "false")
    reset_settings()
    try:
        body = detect(api, user_id)
    finally:
        monkeypatch.delenv("INCOME_ML_ENABLED")
        reset_settings()
    assert (body["ml_enabled"], body["ml_results_used"], body["ml_prediction_id"]) == (False, False, None)
    assert body["income_streams"][0]["methods"] == ["a", "b", "c", "d"]
    [row] = runs(user_id)
    assert (row["ml_enabled"], row["ml_results_used"], row["ml_predictions"], row["ml_probabilities"]) == (
        False,
        False,
        [],
        [],
    )
    assert "method_ml_results" not in row and len(row["method_a_results"]) == 8


def test_users_detect_only_for_themselves_and_services_for_anyone(
    api: Api, service_api: Api, auth0: FakeAuth0, clock: None, user_id: str
) -> None:
    an_earner(user_id)
    path = {"user_id": user_id}
    assert api.as_token(None).post(DETECT, path=path).status_code == 401
    other = api.as_token(auth0.user_token(uid("user"))).post(DETECT, path=path)
    assert (other.status_code, error_code(other)) == (403, "forbidden")
    assert runs(user_id) == []
    assert service_api.post(DETECT, path=path).json()["income_streams"][0]["payer"] == "Acme Corp"


def test_a_body_with_fields_is_refused(api: Api, clock: None, user_id: str) -> None:
    response = api.post(DETECT, path={"user_id": user_id}, json={"as_of": "2026-01-01"})
    assert (response.status_code, error_code(response)) == (422, "unprocessable_entity")
