"""Starting a user's identity verification (KYC) session at Plaid.

The API creates the session through ``/identity_verification/create`` (always idempotent:
a repeated call returns the session already started for this user and template) and stores
it as the user's IDENTITY_VERIFICATION row. Plaid's IDENTITY_VERIFICATION and SCREENING
webhooks then update that same row (same key), as the miner re-reads the session.
"""

from __future__ import annotations

from dataclasses import dataclass

from chalicelib.data import identity_verifications
from chalicelib.data.identity_verifications import IdentityVerification
from chalicelib.plaid.client import get_plaid
from chalicelib.settings import get_settings


@dataclass(frozen=True)
class StartedSession:
    session: IdentityVerification
    #: Where the user can complete it, when a shareable session was asked for (never stored).
    shareable_url: str | None


def start_identity_verification(user_id: str, *, gave_consent: bool, is_shareable: bool) -> StartedSession:
    """Create (or get back) the user's session with the configured template, and store it."""
    response = get_plaid().identity_verification_create(
        client_user_id=user_id,
        template_id=get_settings().plaid_idv_template_id,
        gave_consent=gave_consent,
        is_shareable=is_shareable,
    )
    session = identity_verifications.identity_verification_from_plaid(user_id, response)
    identity_verifications.put_identity_verification(session)
    url = response.get("shareable_url")
    return StartedSession(session, str(url) if url else None)
