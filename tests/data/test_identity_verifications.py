"""IDENTITY_VERIFICATION: upsert, latest by created_at (GSI1), session by watchlist id (GSI2)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from chalicelib.data.identity_verifications import (
    IdentityVerification,
    IdentityVerificationNotFoundError,
    find_by_watchlist_screening,
    get_identity_verification,
    identity_verification_from_plaid,
    identity_verification_item,
    latest_identity_verification,
    list_identity_verifications,
    put_identity_verification,
    set_watchlist_status,
)
from tests.conftest import new_id

T0 = datetime(2025, 6, 1, 10, 0, tzinfo=UTC)


def a_plaid_session(
    idv_id: str, created_at: str = "2025-06-01T10:00:00Z", watchlist: str | None = "scr_1"
) -> dict[str, Any]:
    return {
        "id": idv_id,
        "client_user_id": "u1",
        "created_at": created_at,
        "completed_at": None,
        "status": "active",
        "steps": {
            "accept_tos": "success",
            "verify_sms": "success",
            "kyc_check": "active",
            "documentary_verification": None,
            "selfie_check": "not_applicable",
            "watchlist_screening": "waiting_for_prerequisite",
            "risk_check": "active",
        },
        "template": {"id": "idvtmp_1", "version": 2},
        "watchlist_screening_id": watchlist,
    }


def test_plaid_session_maps_to_row() -> None:
    # GIVEN a Plaid session with an offset timestamp
    session = a_plaid_session("idv_1", created_at="2025-06-01T12:00:00+02:00")

    # WHEN mapped and built
    idv = identity_verification_from_plaid("u1", session)
    row = identity_verification_item(idv)

    # THEN statuses come from the steps, created_at is normalised UTC, keys follow the data model
    assert (idv.kyc_status, idv.watchlist_status, idv.template_id) == ("active", "waiting_for_prerequisite", "idvtmp_1")
    assert "documentary_verification" not in idv.steps
    assert (row["PK"], row["SK"]) == ("USERS#u1", "IDENTITY_VERIFICATION#idv_1")
    assert (row["GSI1PK"], row["GSI1SK"]) == ("USERS#u1", "IDENTITY_VERIFICATION#2025-06-01T10:00:00.000000Z#idv_1")
    assert (row["GSI2PK"], row["GSI2SK"]) == ("USERS#u1", "IDENTITY_VERIFICATION#scr_1")
    assert row["type"] == "IDENTITY_VERIFICATION"
    assert row["idv_status"] == "active"
    assert "completed_at" not in row


def test_session_without_screening_has_no_gsi2() -> None:
    row = identity_verification_item(identity_verification_from_plaid("u1", a_plaid_session("i", watchlist=None)))
    assert "GSI2PK" not in row
    assert "GSI2SK" not in row


@pytest.mark.integration
def test_upsert_and_latest(ddb: str, user_id: str) -> None:
    # GIVEN two sessions, the second created later, and the first then completed (upsert)
    first, second = new_id("idv"), new_id("idv")
    put_identity_verification(IdentityVerification(user_id, first, "active", T0, watchlist_screening_id="scr_a"))
    put_identity_verification(IdentityVerification(user_id, second, "active", T0 + timedelta(hours=1)))
    put_identity_verification(
        IdentityVerification(
            user_id,
            first,
            "success",
            T0,
            kyc_status="success",
            completed_at=T0 + timedelta(hours=2),
            watchlist_screening_id="scr_a",
        )
    )

    # WHEN read by id, latest, all, and by watchlist screening
    one = get_identity_verification(user_id, first)
    latest = latest_identity_verification(user_id)
    every = list_identity_verifications(user_id)
    screened = find_by_watchlist_screening(user_id, "scr_a")

    # THEN the upsert replaced the row, latest follows created_at, GSI2 finds the session
    assert one is not None
    assert (one.status, one.kyc_status, one.completed_at) == ("success", "success", T0 + timedelta(hours=2))
    assert latest is not None
    assert latest.idv_id == second
    assert [i.idv_id for i in every] == [second, first]
    assert screened is not None
    assert screened.idv_id == first
    assert find_by_watchlist_screening(user_id, "scr_unknown") is None
    assert latest_identity_verification(new_id("user")) is None


@pytest.mark.integration
def test_watchlist_status_update_needs_an_existing_session(ddb: str, user_id: str) -> None:
    # GIVEN a session
    idv_id = new_id("idv")
    put_identity_verification(IdentityVerification(user_id, idv_id, "success", T0, watchlist_screening_id="scr_b"))

    # WHEN a SCREENING outcome arrives for it, and for an unknown session
    updated = set_watchlist_status(user_id, idv_id, "cleared")

    # THEN the known one changes and the unknown one is refused without creating a row
    assert updated.watchlist_status == "cleared"
    assert updated.status == "success"
    missing = new_id("idv")
    with pytest.raises(IdentityVerificationNotFoundError):
        set_watchlist_status(user_id, missing, "cleared")
    assert get_identity_verification(user_id, missing) is None
