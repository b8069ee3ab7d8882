"""IDENTITY_VERIFICATION and SCREENING webhooks: no item id; the session comes from Plaid.

IDENTITY_VERIFICATION upserts the session Plaid reports (GSI1 then answers "latest").
SCREENING finds the session whose watchlist screening it is (GSI2) and records its status.
The user is Plaid's ``client_user_id`` (the id this service gave Link). The lookups and their
drops are :func:`~chalicelib.pipeline.decisions.miner.kyc_lookup` and
:func:`~chalicelib.pipeline.decisions.miner.kyc_user`.
"""

from __future__ import annotations

from datetime import datetime

from chalicelib.data import identity_verifications
from chalicelib.pipeline.batches import DropMessageError
from chalicelib.pipeline.decisions import Drop
from chalicelib.pipeline.decisions import miner as rules
from chalicelib.pipeline.effects import Effects
from chalicelib.pipeline.lifecycle import require_user
from chalicelib.pipeline.messages import WebhookMessage


def handle_kyc_webhook(message: WebhookMessage, now: datetime, fx: Effects) -> None:
    lookup = rules.kyc_lookup(message)
    if isinstance(lookup, Drop):
        raise DropMessageError.of(lookup)
    if message.webhook_type == rules.IDENTITY_VERIFICATION:
        _identity_verification(message, lookup, fx)
    else:
        _screening(message, lookup, fx)


def _identity_verification(message: WebhookMessage, idv_id: str, fx: Effects) -> None:
    session = fx.plaid.identity_verification_get(idv_id)
    user_id = rules.kyc_user(message, session, idv_id)
    if isinstance(user_id, Drop):
        raise DropMessageError.of(user_id)
    require_user(user_id, fx)
    fx.store.put_identity_verification(identity_verifications.identity_verification_from_plaid(user_id, session))


def _screening(message: WebhookMessage, screening_id: str, fx: Effects) -> None:
    screening = fx.plaid.watchlist_screening_individual_get(screening_id)
    user_id = rules.kyc_user(message, screening, screening_id)
    if isinstance(user_id, Drop):
        raise DropMessageError.of(user_id)
    session = fx.store.find_by_watchlist_screening(user_id, screening_id)
    if session is None:
        raise DropMessageError("screening_without_session", screening_id=screening_id)
    fx.store.set_watchlist_status(session.user_id, session.idv_id, str(screening.get("status")))
