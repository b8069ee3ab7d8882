"""IDENTITY_VERIFICATION rows: a user's Plaid KYC sessions, written by the API and KYC webhooks.

One row per session under the user's partition (``USERS#<user>``; ITEM rows share it under
``ITEMS#``). GSI1 orders a user's sessions by ``created_at`` so the latest is one short
Query; GSI2 finds the session a SCREENING webhook's watchlist screening belongs to (only
sessions with a screening carry GSI2 keys).

Writes are upserts of what Plaid last reported: each webhook re-fetches the session, so
the latest fetch is the truth and no status guard is applied (ongoing screening can move
a completed session's watchlist status). ``created_at`` is normalised to the service's
sortable UTC timestamp so GSI1 order is time order whatever format Plaid used.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from boto3.dynamodb.conditions import Key

from chalicelib.aws.errors import translated
from chalicelib.data import keys, tables
from chalicelib.data.query import query_rows
from chalicelib.data.ttl import iso_timestamp
from chalicelib.errors import ConditionFailedError, NotFoundError, ValidationError
from chalicelib.observability import logger

#: The status of a stored session that names none.
UNKNOWN_STATUS = "unknown"


class IdentityVerificationNotFoundError(NotFoundError):
    """No session row for this user and id."""


@dataclass(frozen=True)
class IdentityVerification:
    user_id: str
    idv_id: str
    status: str
    created_at: datetime
    kyc_status: str | None = None
    watchlist_status: str | None = None
    steps: Mapping[str, str] = field(default_factory=dict)
    completed_at: datetime | None = None
    watchlist_screening_id: str | None = None
    template_id: str | None = None


def parse_time(value: str) -> datetime:
    """An ISO-8601 timestamp (``Z`` or offset) as an aware UTC datetime."""
    try:
        moment = datetime.fromisoformat(value)
    except ValueError as exc:
        raise ValidationError(f"not an ISO timestamp: {value!r}") from exc
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def identity_verification_item(idv: IdentityVerification) -> dict[str, Any]:
    """The row for ``idv`` (pure). Optional attributes are omitted when empty."""
    created = iso_timestamp(idv.created_at)
    row: dict[str, Any] = {
        **keys.identity_verification_key(idv.user_id, idv.idv_id),
        **keys.identity_verification_gsi_keys(idv.user_id, idv.idv_id, created, idv.watchlist_screening_id),
        "type": keys.IDENTITY_VERIFICATION,
        "user_id": idv.user_id,
        "idv_id": idv.idv_id,
        "idv_status": idv.status,
        "created_at": created,
    }
    optional: dict[str, Any] = {
        "idv_kyc_status": idv.kyc_status,
        "idv_watchlist_status": idv.watchlist_status,
        "idv_steps": {k: v for k, v in idv.steps.items() if v},
        "completed_at": iso_timestamp(idv.completed_at) if idv.completed_at else None,
        "watchlist_screening_id": idv.watchlist_screening_id,
        "template_id": idv.template_id,
    }
    row.update({k: v for k, v in optional.items() if v})
    return row


def from_item(row: Mapping[str, Any]) -> IdentityVerification:
    """A stored row. Identifiers and ``created_at`` come from the keys when not repeated as
    attributes; a row with no session status (only the KYC and watchlist statuses) reports
    its KYC status as the status."""
    completed = row.get("completed_at")
    created = row.get("created_at") or keys.key_part(row.get("GSI1SK"), keys.IDENTITY_VERIFICATION)
    return IdentityVerification(
        user_id=str(row.get("user_id") or keys.key_part(row.get("PK"), "USERS")),
        idv_id=str(row.get("idv_id") or keys.key_part(row.get("SK"), keys.IDENTITY_VERIFICATION)),
        status=str(row.get("idv_status") or row.get("idv_kyc_status") or UNKNOWN_STATUS),
        created_at=parse_time(str(created)),
        kyc_status=row.get("idv_kyc_status"),
        watchlist_status=row.get("idv_watchlist_status"),
        steps={str(k): str(v) for k, v in row.get("idv_steps", {}).items()},
        completed_at=parse_time(str(completed)) if completed else None,
        watchlist_screening_id=row.get("watchlist_screening_id"),
        template_id=row.get("template_id"),
    )


def identity_verification_from_plaid(user_id: str, response: Mapping[str, Any]) -> IdentityVerification:
    """A session from ``/identity_verification/get`` (KYC and watchlist status from its steps)."""
    steps = {str(k): str(v) for k, v in (response.get("steps") or {}).items() if v is not None}
    template = response.get("template") or {}
    completed = response.get("completed_at")
    return IdentityVerification(
        user_id=user_id,
        idv_id=str(response["id"]),
        status=str(response["status"]),
        created_at=parse_time(str(response["created_at"])),
        kyc_status=steps.get("kyc_check"),
        watchlist_status=steps.get("watchlist_screening"),
        steps=steps,
        completed_at=parse_time(str(completed)) if completed else None,
        watchlist_screening_id=response.get("watchlist_screening_id"),
        template_id=template.get("id"),
    )


# --- writes ---------------------------------------------------------------------------


def put_identity_verification(idv: IdentityVerification) -> None:
    """Upsert the session as Plaid last reported it (idempotent)."""
    with translated():
        tables.plaid().put_item(Item=identity_verification_item(idv))


def set_watchlist_status(user_id: str, idv_id: str, status: str) -> IdentityVerification:
    """Record a SCREENING webhook's outcome on an existing session (never creates one)."""
    try:
        with translated():
            response = tables.plaid().update_item(
                Key=keys.identity_verification_key(user_id, idv_id),
                UpdateExpression="SET idv_watchlist_status = :s",
                ConditionExpression="attribute_exists(PK)",
                ExpressionAttributeValues={":s": status},
                ReturnValues="ALL_NEW",
            )
    except ConditionFailedError as exc:
        raise IdentityVerificationNotFoundError(f"identity verification {idv_id} not found") from exc
    return from_item(response["Attributes"])


# --- reads ----------------------------------------------------------------------------


def get_identity_verification(user_id: str, idv_id: str) -> IdentityVerification | None:
    """One session (strongly consistent GetItem)."""
    with translated():
        row = tables.plaid().get_item(Key=keys.identity_verification_key(user_id, idv_id), ConsistentRead=True)
    item = row.get("Item")
    return from_item(item) if item else None


def latest_identity_verification(user_id: str) -> IdentityVerification | None:
    """The user's newest session by ``created_at`` (GSI1, eventually consistent)."""
    condition = Key("GSI1PK").eq(keys.users_pk(user_id)) & Key("GSI1SK").begins_with(keys.IDENTITY_VERIFICATION_PREFIX)
    with translated():
        rows = (
            tables.plaid()
            .query(IndexName="GSI1", KeyConditionExpression=condition, ScanIndexForward=False, Limit=1)
            .get("Items", [])
        )
    return from_item(rows[0]) if rows else None


def list_identity_verifications(user_id: str) -> list[IdentityVerification]:
    """Every session of a user, newest first (GSI1, eventually consistent)."""
    condition = Key("GSI1PK").eq(keys.users_pk(user_id)) & Key("GSI1SK").begins_with(keys.IDENTITY_VERIFICATION_PREFIX)
    rows = query_rows(
        tables.plaid(),
        entity=keys.IDENTITY_VERIFICATION,
        IndexName="GSI1",
        KeyConditionExpression=condition,
        ScanIndexForward=False,
    )
    return [from_item(row) for row in rows]


def find_by_watchlist_screening(user_id: str, watchlist_screening_id: str) -> IdentityVerification | None:
    """The session a watchlist screening belongs to (GSI2, eventually consistent)."""
    condition = Key("GSI2PK").eq(keys.users_pk(user_id)) & Key("GSI2SK").eq(
        keys.identity_verification_watchlist_sk(watchlist_screening_id)
    )
    with translated():
        rows = tables.plaid().query(IndexName="GSI2", KeyConditionExpression=condition).get("Items", [])
    if len(rows) > 1:
        logger.warning(
            "watchlist screening shared by more than one session",
            extra={"user_id": user_id, "sessions": [str(r.get("idv_id")) for r in rows]},
        )
    return from_item(rows[0]) if rows else None
