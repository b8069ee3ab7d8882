"""IDENTITY_VERIFICATION and SCREENING webhooks: no item id; the session comes from Plaid.

IDENTITY_VERIFICATION upserts the session Plaid reports (GSI1 then answers "latest").
SCREENING finds the session whose watchlist screening it is (GSI2) and records its status.
The user is Plaid's ``client_user_id`` (the id this service gave Link).
"""

from __future__ import annotations

from datetime import datetime

from chalicelib.data import identity_verifications
from chalicelib.pipeline.batches import DropMessageError
from chalicelib.pipeline.lifecycle import require_user
from chalicelib.pipeline.messages import WebhookMessage
from chalicelib.plaid.client import get_plaid


def handle_kyc_webhook(message: WebhookMessage, now: datetime) -> None:
    if message.webhook_type == "IDENTITY_VERIFICATION":
        _identity_verification(message)
    else:
        _screening(message)


def _identity_verification(message: WebhookMessage) -> None:
    idv_id = message.payload.get("identity_verification_id")
    if not idv_id:
        raise DropMessageError("missing_identity_verification_id")
    session = get_plaid().identity_verification_get(str(idv_id))
    user_id = session.get("client_user_id")
    if not user_id:
        raise DropMessageError("session_without_user", identity_verification_id=idv_id)
    require_user(str(user_id))
    identity_verifications.put_identity_verification(
        identity_verifications.identity_verification_from_plaid(str(user_id), session)
    )


def _screening(message: WebhookMessage) -> None:
    screening_id = message.payload.get("screening_id")
    if not screening_id:
        raise DropMessageError("missing_screening_id")
    screening = get_plaid().watchlist_screening_individual_get(str(screening_id))
    user_id = screening.get("client_user_id")
    if not user_id:
        raise DropMessageError("screening_without_user", screening_id=screening_id)
    session = identity_verifications.find_by_watchlist_screening(str(user_id), str(screening_id))
    if session is None:
        raise DropMessageError("screening_without_session", screening_id=screening_id)
    identity_verifications.set_watchlist_status(session.user_id, session.idv_id, str(screening.get("status")))
