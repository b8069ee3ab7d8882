"""Income verification over HTTP: who may read, submit and review, and the 409s of the state machine."""

from __future__ import annotations

from typing import Any

import pytest

from ops.fakes.auth0 import FakeAuth0
from tests.api.conftest import Api, error_code

pytestmark = pytest.mark.integration

VERIFICATION = "/v1/users/{user_id}/income/verification"
REVIEW = "/v1/users/{user_id}/income/verification/review"


def a_stream(**overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "txn_name": "ACME PAYROLL DIR DEP",
        "txn_id": "txn-1",
        "amount_in_cents": 125_000,
        "pay_frequency": "BIWEEKLY",
        "institution_id": "ins_109508",
    }
    body.update(overrides)
    return body


def a_review(version: int, decision: str = "approved", note: str = "matches payroll", **extra: Any) -> dict[str, Any]:
    return {"decision": decision, "note": note, "version": version, **extra}


def test_the_user_submits_and_a_service_approves(api: Api, service_api: Api, user_id: str) -> None:
    path = {"user_id": user_id}
    # GIVEN the user submits a detected stream
    submitted = api.post(VERIFICATION, path=path, json=a_stream(note="this is my job"))
    assert submitted.status_code == 201
    body = submitted.json()
    assert (body["verification_status"], body["is_valid"], body["version"]) == ("pending", False, 1)
    assert (body["amount_in_cents"], body["pay_frequency"], body["verification_source"]) == (125_000, "BIWEEKLY", "")
    assert body["notes"][0]["role"] == "user" and body["notes"][0]["author"] == f"auth0|{user_id}"
    # WHEN a service approves version 1
    approved = service_api.post(REVIEW, path=path, json=a_review(1, verification_source="ollie"))
    # THEN it is approved and valid, and the user reads exactly that
    assert approved.status_code == 200
    decided = approved.json()
    assert (decided["verification_status"], decided["is_valid"], decided["version"]) == ("approved", True, 2)
    assert decided["verification_source"] == "ollie"
    assert [(n["status"], n["role"], n["text"]) for n in decided["notes"]] == [
        ("pending", "user", "this is my job"),
        ("approved", "service", "matches payroll"),
    ]
    assert api.get(VERIFICATION, path=path).json() == decided


def test_a_new_submission_starts_a_new_cycle_and_keeps_every_note(api: Api, service_api: Api, user_id: str) -> None:
    path = {"user_id": user_id}
    api.post(VERIFICATION, path=path, json=a_stream())
    service_api.post(REVIEW, path=path, json=a_review(1, "denied", "a transfer, not pay"))
    # WHEN the user submits another stream
    again = api.post(VERIFICATION, path=path, json=a_stream(txn_id="txn-2", amount_in_cents=98_000))
    # THEN pending again on the same verification, with the earlier notes kept
    assert again.status_code == 201
    body = again.json()
    assert (body["verification_status"], body["is_valid"], body["txn_id"], body["version"]) == (
        "pending",
        False,
        "txn-2",
        3,
    )
    assert [n["status"] for n in body["notes"]] == ["pending", "denied", "pending"]
    assert body["notes"][1]["text"] == "a transfer, not pay"


def test_illegal_transitions_are_409_with_a_clear_error(api: Api, service_api: Api, user_id: str) -> None:
    path = {"user_id": user_id}
    api.post(VERIFICATION, path=path, json=a_stream())
    # another stream while one is pending
    pending = api.post(VERIFICATION, path=path, json=a_stream(txn_id="txn-other"))
    assert pending.status_code == 409
    assert error_code(pending) == "illegal_transition"
    assert "already pending review" in pending.json()["error"]["message"]
    # the same stream again is a retry, answered unchanged
    retry = api.post(VERIFICATION, path=path, json=a_stream())
    assert (retry.status_code, retry.json()["version"]) == (200, 1)
    service_api.post(REVIEW, path=path, json=a_review(1))
    # a second decision on the decided version
    twice = service_api.post(REVIEW, path=path, json=a_review(2, "denied", "no"))
    assert (twice.status_code, error_code(twice)) == (409, "illegal_transition")
    assert "already approved" in twice.json()["error"]["message"]
    # a decision on a version that has changed
    stale = service_api.post(REVIEW, path=path, json=a_review(1, "denied", "no"))
    assert (stale.status_code, error_code(stale)) == (409, "conflict")
    # the review that made the current version, repeated
    repeated = service_api.post(REVIEW, path=path, json=a_review(1))
    assert (repeated.status_code, repeated.json()["version"]) == (200, 2)
    # nothing of it changed the verification
    final = api.get(VERIFICATION, path=path).json()
    assert (final["verification_status"], final["version"], len(final["notes"])) == ("approved", 2, 2)


def test_reviewing_or_reading_nothing_is_404(api: Api, service_api: Api, user_id: str) -> None:
    path = {"user_id": user_id}
    assert error_code(api.get(VERIFICATION, path=path)) == "not_found"
    missing = service_api.post(REVIEW, path=path, json=a_review(1))
    assert (missing.status_code, error_code(missing)) == (404, "not_found")


def test_users_touch_only_their_own_and_only_services_review(
    api: Api, service_api: Api, auth0: FakeAuth0, user_id: str
) -> None:
    path = {"user_id": user_id}
    api.post(VERIFICATION, path=path, json=a_stream())
    stranger = api.as_token(auth0.user_token(f"{user_id}-other"))
    # another user may neither read nor submit for this user
    assert stranger.get(VERIFICATION, path=path).status_code == 403
    assert stranger.post(VERIFICATION, path=path, json=a_stream(txn_id="x")).status_code == 403
    # the user may not approve their own income
    own = api.post(REVIEW, path=path, json=a_review(1))
    assert (own.status_code, error_code(own)) == (403, "forbidden")
    assert "service token" in own.json()["error"]["message"]
    # no token at all
    assert api.as_token(None).get(VERIFICATION, path=path).status_code == 401
    # a service may read and submit for any user
    assert service_api.get(VERIFICATION, path=path).json()["verification_status"] == "pending"
    assert api.get(VERIFICATION, path=path).json()["verification_status"] == "pending"


@pytest.mark.parametrize(
    "body",
    [
        a_stream(amount_in_cents=0),
        a_stream(amount_in_cents="125000"),
        a_stream(pay_frequency="FORTNIGHTLY"),
        a_stream(txn_id="txn#1"),
        a_stream(verification_source="plaid"),
        a_stream(extra="field"),
        {k: v for k, v in a_stream().items() if k != "txn_name"},
    ],
)
def test_a_malformed_submission_is_422(api: Api, user_id: str, body: dict[str, Any]) -> None:
    response = api.post(VERIFICATION, path={"user_id": user_id}, json=body)
    assert (response.status_code, error_code(response)) == (422, "unprocessable_entity")


@pytest.mark.parametrize(
    "body",
    [
        {"decision": "pending", "note": "x", "version": 1},
        {"decision": "approved", "note": "", "version": 1},
        {"decision": "approved", "note": "x"},
        {"decision": "approved", "note": "x", "version": 0},
    ],
)
def test_a_malformed_review_is_422(service_api: Api, user_id: str, body: dict[str, Any]) -> None:
    response = service_api.post(REVIEW, path={"user_id": user_id}, json=body)
    assert (response.status_code, error_code(response)) == (422, "unprocessable_entity")
