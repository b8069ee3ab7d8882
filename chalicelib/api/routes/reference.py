"""Liabilities, identity verification, categories, institutions and the API document."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from chalice import Response
from chalice.app import Request

from chalicelib.api import identity, requests, responses
from chalicelib.api.http import Call, ok
from chalicelib.data import categories, identity_verifications, institutions, liabilities
from chalicelib.errors import NotFoundError

OPENAPI_PATH = Path(__file__).resolve().parent.parent / "openapi.yaml"


class IdentityVerificationNotFoundError(NotFoundError):
    """The user has no identity verification session."""


class InstitutionNotFoundError(NotFoundError):
    """No institution with this id."""


def current_liabilities(request: Request, user_id: str) -> Response:
    call = Call.for_user(request, requests.UserPath(), user_id=user_id)
    found = liabilities.current_liabilities(call.user_id)
    return ok({"liabilities": responses.dump_many(responses.LiabilityOut(), found)})


def liability_history(request: Request, user_id: str) -> Response:
    call = Call.for_user(request, requests.UserPath(), user_id=user_id)
    query = call.query(requests.LiabilityHistoryQuery())
    if query["account_id"] is None:
        found = liabilities.liability_history(call.user_id, limit=query["limit"])
    else:
        by_account = liabilities.account_liability_history(query["account_id"], limit=query["limit"])
        found = [li for li in by_account if li.user_id == call.user_id]
    return ok({"liabilities": responses.dump_many(responses.LiabilityOut(), found)})


def latest_identity_verification(request: Request, user_id: str) -> Response:
    call = Call.for_user(request, requests.UserPath(), user_id=user_id)
    latest = identity_verifications.latest_identity_verification(call.user_id)
    if latest is None:
        raise IdentityVerificationNotFoundError("no identity verification for this user")
    return ok(responses.IdentityVerificationOut().dump(latest))


def start_identity_verification(request: Request, user_id: str) -> Response:
    """Start the user's KYC session at Plaid (or get back the one already started)."""
    call = Call.for_user(request, requests.UserPath(), user_id=user_id)
    body = call.body(requests.IdentityVerificationBody())
    started = identity.start_identity_verification(
        call.user_id, gave_consent=body["gave_consent"], is_shareable=body["is_shareable"]
    )
    answer = {**responses.IdentityVerificationOut().dump(started.session), "shareable_url": started.shareable_url}
    return ok(answer, status=201)


def list_categories(request: Request) -> Response:
    Call.open(request)
    return ok({"categories": responses.dump_many(responses.CategoryOut(), categories.list_categories())})


def get_institution(request: Request, institution_id: str) -> Response:
    call = Call.open(request, requests.InstitutionPath(), institution_id=institution_id)
    found = institutions.get_institution(call.path["institution_id"])
    if found is None:
        raise InstitutionNotFoundError("institution not found")
    return ok(responses.InstitutionOut().dump(found))


@lru_cache(maxsize=1)
def openapi_text() -> str:
    """The hand-kept OpenAPI document shipped in the bundle."""
    return OPENAPI_PATH.read_text(encoding="utf-8")


def openapi_document(request: Request) -> Response:
    Call.open(request)
    return Response(body=openapi_text(), status_code=200, headers={"Content-Type": "application/yaml"})
