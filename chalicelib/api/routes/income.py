"""Income: detection (the user or a service), verification: read, submit (the user or a service),
review (a service only)."""

from __future__ import annotations

from chalice import Response
from chalice.app import Request

from chalicelib.api import insight_schemas as schemas
from chalicelib.api import requests
from chalicelib.api.auth import Principal
from chalicelib.api.errors import ForbiddenError
from chalicelib.api.http import Call, ok
from chalicelib.data import ttl
from chalicelib.data.ttl import utcnow
from chalicelib.insight import income_detection, verification
from chalicelib.insight.data.income_verifications import IncomeStream, NoteRole, VerificationStatus
from chalicelib.settings import get_settings


def actor(principal: Principal) -> verification.Actor:
    return verification.Actor(principal.subject, NoteRole.SERVICE if principal.is_service else NoteRole.USER)


def detect_income(request: Request, user_id: str) -> Response:
    """Run income detection over the user's history now; every run is recorded."""
    call = Call.for_user(request, requests.UserPath(), user_id=user_id)
    call.body(requests.EmptyBody())
    run = income_detection.run(call.user_id, now=ttl.utcnow(), ml_enabled=get_settings().income_ml_enabled)
    return ok(schemas.income_detection_body(run))


def get_verification(request: Request, user_id: str) -> Response:
    call = Call.for_user(request, requests.UserPath(), user_id=user_id)
    return ok(schemas.income_verification_body(verification.get_verification(call.user_id)))


def submit_verification(request: Request, user_id: str) -> Response:
    """A new ``pending`` cycle (201), or the same pending submission again (200)."""
    call = Call.for_user(request, requests.UserPath(), user_id=user_id)
    body = call.body(schemas.SubmitIncomeVerificationBody())
    stream = IncomeStream(
        txn_name=body["txn_name"],
        txn_id=body["txn_id"],
        amount_in_cents=body["amount_in_cents"],
        pay_frequency=body["pay_frequency"],
        institution_id=body["institution_id"],
    )
    outcome = verification.submit(
        call.user_id,
        stream,
        actor=actor(call.principal),
        now=utcnow(),
        source=body["verification_source"],
        note=body["note"],
    )
    return ok(schemas.income_verification_body(outcome.verification), status=201 if outcome.changed else 200)


def review_verification(request: Request, user_id: str) -> Response:
    """Approve or deny the pending version the reviewer read; service tokens only."""
    call = Call.for_user(request, requests.UserPath(), user_id=user_id)
    if not call.principal.is_service:
        raise ForbiddenError("approving or denying income needs a service token")
    body = call.body(schemas.ReviewIncomeVerificationBody())
    outcome = verification.review(
        call.user_id,
        VerificationStatus(body["decision"]),
        body["note"],
        version=body["version"],
        actor=actor(call.principal),
        now=utcnow(),
        source=body["verification_source"],
    )
    return ok(schemas.income_verification_body(outcome.verification))
