"""Liabilities, identity verification, categories, institutions and the served document."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from chalicelib.data import categories, identity_verifications, institutions, liabilities
from chalicelib.data.categories import Category
from chalicelib.data.identity_verifications import IdentityVerification
from chalicelib.data.institutions import Institution
from chalicelib.data.liabilities import Liability, LiabilityType
from chalicelib.settings import get_settings
from ops.fakes.peers import FakePeers
from ops.fakes.plaid import FakePlaid, webhooks
from ops.runtime import EventRuntime
from tests.api.conftest import OPENAPI, Api, error_code
from tests.factories import uid

pytestmark = pytest.mark.integration

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
IDV = "/v1/users/{user_id}/identity-verification"


def a_credit_liability(user_id: str, item_id: str, acct_id: str, at: datetime, minimum: int) -> Liability:
    details = {"account_id": acct_id, "minimum_payment_amount": minimum, "aprs": [{"apr_percentage": 24.99}]}
    return Liability(user_id, item_id, acct_id, LiabilityType.CREDIT, liabilities.to_cents_shape(details), at)


def test_current_liabilities_and_their_history(api: Api, user_id: str) -> None:
    # GIVEN two fetches for one credit card and one for another
    item_id, card, other = uid("item"), uid("acct"), uid("acct")
    liabilities.store_liabilities(
        [
            a_credit_liability(user_id, item_id, card, T0, 25),
            a_credit_liability(user_id, item_id, card, T0 + timedelta(days=1), 40),
            a_credit_liability(user_id, item_id, other, T0 + timedelta(hours=1), 30),
        ]
    )
    path = {"user_id": user_id}
    # WHEN the current ones and the history are read
    current = api.get("/v1/users/{user_id}/liabilities", path=path).json()["liabilities"]
    history = api.get("/v1/users/{user_id}/liabilities/history", path=path).json()["liabilities"]
    of_card = api.get("/v1/users/{user_id}/liabilities/history", path=path, params={"account_id": card}).json()
    # THEN current holds the latest per account, money in cents and rates as numbers
    by_account = {li["account_id"]: li for li in current}
    assert by_account[card]["details"]["minimum_payment_amount"] == 4000
    assert by_account[card]["details"]["aprs"] == [{"apr_percentage": 24.99}]
    assert by_account[card]["liability_type"] == "CREDIT"
    # AND the history is every fetch, newest first, optionally of one account
    assert [li["details"]["minimum_payment_amount"] for li in history] == [4000, 3000, 2500]
    assert [li["details"]["minimum_payment_amount"] for li in of_card["liabilities"]] == [4000, 2500]


def test_another_users_account_history_is_not_shown(api: Api, user_id: str) -> None:
    stranger_card = uid("acct")
    liabilities.store_liability(a_credit_liability(uid("user"), uid("item"), stranger_card, T0, 10))
    body = api.get(
        "/v1/users/{user_id}/liabilities/history", path={"user_id": user_id}, params={"account_id": stranger_card}
    ).json()
    assert body["liabilities"] == []


def test_latest_identity_verification(api: Api, user_id: str) -> None:
    # GIVEN no session, then two sessions a day apart
    path = {"user_id": user_id}
    missing = api.get("/v1/users/{user_id}/identity-verification", path=path)
    assert missing.status_code == 404 and error_code(missing) == "not_found"
    for n, status in enumerate(("failed", "success")):
        identity_verifications.put_identity_verification(
            IdentityVerification(
                user_id=user_id,
                idv_id=uid("idv"),
                status=status,
                created_at=T0 + timedelta(days=n),
                kyc_status=status,
                steps={"kyc_check": status},
            )
        )
    # WHEN the latest is read / THEN it is the newer session
    latest = api.get("/v1/users/{user_id}/identity-verification", path=path).json()
    assert (latest["status"], latest["kyc_status"], latest["steps"]) == ("success", "success", {"kyc_check": "success"})
    assert latest["created_at"] == "2026-11-02T09:00:00Z"


def test_the_api_starts_a_kyc_session_that_plaids_webhooks_then_update(
    api: Api,
    app_url: str,
    fake_plaid: FakePlaid,
    fake_peers: FakePeers,
    runtime: EventRuntime,
    user_id: str,
) -> None:
    fake_peers.user_service.add_user(user_id)
    path = {"user_id": user_id}
    # WHEN the user starts identity verification (twice: the call is idempotent)
    first = api.post(IDV, path=path, json={"gave_consent": True, "is_shareable": True})
    again = api.post(IDV, path=path)
    # THEN Plaid created one active session for this user with the configured template
    assert first.status_code == again.status_code == 201
    body = first.json()
    assert (body["status"], body["template_id"]) == ("active", get_settings().plaid_idv_template_id)
    assert body["shareable_url"] and again.json()["idv_id"] == body["idv_id"]
    requests = [
        c.body for c in fake_plaid.calls("/identity_verification/create") if c.body["client_user_id"] == user_id
    ]
    assert [(r["gave_consent"], r["is_idempotent"]) for r in requests] == [(True, True), (False, True)]
    # AND it is stored as the user's latest session, the URL not kept
    latest = api.get(IDV, path=path).json()
    assert (latest["idv_id"], latest["status"]) == (body["idv_id"], "active")
    stored = identity_verifications.get_identity_verification(user_id, body["idv_id"])
    assert stored is not None and stored.status == "active"
    # WHEN the user finishes it and Plaid sends its signed webhook
    fake_plaid.finish_identity_verification(body["idv_id"], "success")
    delivery = fake_plaid.send_webhook(f"{app_url}/v1/plaid", webhooks.identity_verification(body["idv_id"]))
    assert delivery.status == 200
    runtime.drain(timeout=30)
    # THEN the same session (same row) carries the outcome
    done = api.get(IDV, path=path).json()
    assert (done["idv_id"], done["status"], done["kyc_status"]) == (body["idv_id"], "success", "success")
    assert len(identity_verifications.list_identity_verifications(user_id)) == 1


def test_starting_kyc_refuses_a_body_of_another_shape(api: Api, user_id: str) -> None:
    for body in ({"gave_consent": "yes"}, {"template_id": "other"}):
        response = api.post(IDV, path={"user_id": user_id}, json=body)
        assert response.status_code == 422 and error_code(response) == "unprocessable_entity"


def test_categories_are_listed_in_hierarchy_order(api: Api) -> None:
    # GIVEN two categories loaded
    categories.put_categories(
        [
            Category("22001000", ("Travel", "Airlines and Aviation Services"), "place"),
            Category("13005043", ("Food and Drink", "Restaurants", "Coffee Shop"), "place"),
        ]
    )
    # WHEN / THEN both are listed, the food one first
    listed = api.get("/v1/categories").json()["categories"]
    ids = [c["category_id"] for c in listed]
    assert ids.index("13005043") < ids.index("22001000")
    coffee = {
        "category_id": "13005043",
        "hierarchy": ["Food and Drink", "Restaurants", "Coffee Shop"],
        "group": "place",
    }
    assert coffee in listed


def test_institution_name_and_logo(api: Api) -> None:
    institution_id = f"ins_{uid('x').replace('-', '_')}"
    institutions.put_institution(Institution(institution_id, "First Platypus Bank", logo="iVBORw0KGgo=", oauth=True))
    body = api.get("/v1/institutions/{institution_id}", path={"institution_id": institution_id}).json()
    assert (body["name"], body["logo"], body["oauth"]) == ("First Platypus Bank", "iVBORw0KGgo=", True)
    missing = api.get("/v1/institutions/{institution_id}", path={"institution_id": "ins_none"})
    assert missing.status_code == 404


def test_the_document_is_served(api: Api) -> None:
    response = api.get("/v1/openapi.yaml")
    assert response.headers["Content-Type"].startswith("application/yaml")
    assert response.text == OPENAPI.read_text()
