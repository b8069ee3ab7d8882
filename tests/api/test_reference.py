"""Liabilities, identity verification, categories, institutions and the served document."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from chalicelib.data import categories, identity_verifications, institutions, liabilities
from chalicelib.data.categories import Category
from chalicelib.data.identity_verifications import IdentityVerification
from chalicelib.data.institutions import Institution
from chalicelib.data.liabilities import Liability, LiabilityType
from tests.api.conftest import OPENAPI, Api, error_code
from tests.factories import uid

pytestmark = pytest.mark.integration

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)


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
