"""``pave_label`` rows (``LABEL#<user_id>`` / ``PAVE#REFRESH_INSIGHTS``): a user's Pave state.

Written by the Pave feeder after each upload and read by it before the next: the latest
upload request (``pave_request_id``), when it was made, and what the feeder keeps to upload
nothing twice (``details``, a free-form map the feeder owns). No TTL. A write only replaces
a row with an older or equal ``updated_date``, so a redelivered older upload cannot undo a
newer one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from chalicelib.aws.errors import translated
from chalicelib.data.ttl import iso_timestamp
from chalicelib.errors import ConditionFailedError
from chalicelib.insight.data import keys, tables
from chalicelib.insight.data.values import from_dynamo, parse_timestamp, to_dynamo

#: The ``details`` field holding the fingerprint of the upload the label names; the feeder
#: skips an upload whose fingerprint equals it.
UPLOAD_FINGERPRINT = "upload_fingerprint"


@dataclass(frozen=True)
class PaveLabel:
    user_id: str
    updated_date: datetime
    pave_request_id: str | None = None
    details: Mapping[str, Any] = field(default_factory=dict)


def pave_label_item(label: PaveLabel) -> dict[str, Any]:
    return {
        **keys.pave_label_key(label.user_id),
        "type": keys.PAVE_LABEL,
        "user_id": label.user_id,
        "updated_date": iso_timestamp(label.updated_date),
        "pave_request_id": label.pave_request_id,
        "details": to_dynamo(dict(label.details)),
    }


def from_item(row: Mapping[str, Any]) -> PaveLabel:
    return PaveLabel(
        user_id=str(row["user_id"]),
        updated_date=parse_timestamp(row["updated_date"]),
        pave_request_id=row.get("pave_request_id"),
        details=dict(from_dynamo(row.get("details") or {})),
    )


def put_pave_label(label: PaveLabel) -> bool:
    """Write the label; ``False`` if a newer one is already stored."""
    try:
        with translated():
            tables.pave().put_item(
                Item=pave_label_item(label),
                ConditionExpression="attribute_not_exists(PK) OR updated_date <= :updated",
                ExpressionAttributeValues={":updated": iso_timestamp(label.updated_date)},
            )
    except ConditionFailedError:
        return False
    return True


def get_pave_label(user_id: str) -> PaveLabel | None:
    with translated():
        row = tables.pave().get_item(Key=keys.pave_label_key(user_id), ConsistentRead=True).get("Item")
    return from_item(row) if row else None


def forget_fingerprint(user_id: str, pave_request_id: str) -> bool:
    """Drop the upload fingerprint while the label still names ``pave_request_id``, so the
    next identical upload is sent again; ``False`` when a later upload has replaced it."""
    try:
        with translated():
            tables.pave().update_item(
                Key=keys.pave_label_key(user_id),
                UpdateExpression="REMOVE #details.#field",
                ConditionExpression="pave_request_id = :request",
                ExpressionAttributeNames={"#details": "details", "#field": UPLOAD_FINGERPRINT},
                ExpressionAttributeValues={":request": pave_request_id},
            )
    except ConditionFailedError:
        return False
    return True
