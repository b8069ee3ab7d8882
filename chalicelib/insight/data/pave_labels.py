"""``pave_label`` rows (``LABEL#<user_id>`` / ``PAVE#REFRESH_INSIGHTS``): a user's Pave state.

Written by the Pave feeder after each upload and read by it before the next: the latest
upload request (``pave_request_id``), when it was made, and what the feeder keeps to upload
nothing twice (``details``, a free-form map the feeder owns). No TTL. A write only replaces
a row with an older or equal ``updated_date``, so a redelivered older upload cannot undo a
newer one.

**Rows of the previous system** may carry nothing but their keys: the user comes from the
partition key; a missing ``updated_date`` reads as unknown and missing ``details`` as none (no
fingerprint, so the next upload is sent). A row with an attribute that cannot be read reads as
no label (logged and counted, :mod:`chalicelib.data.tolerant`): the upload is sent, and its
label replaces the row, as it replaces one whose ``updated_date`` is missing or not in this
service's format.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from chalicelib.aws.errors import translated
from chalicelib.data.tolerant import (
    Reading,
    RowReader,
    is_service_timestamp,
    put_unless_newer,
    read_or_none,
)
from chalicelib.data.ttl import iso_timestamp
from chalicelib.errors import ConditionFailedError, ValidationError
from chalicelib.insight.data import keys, tables
from chalicelib.insight.data.values import from_dynamo, to_dynamo

#: The ``details`` field holding the fingerprint of the upload the label names; the feeder
#: skips an upload whose fingerprint equals it.
UPLOAD_FINGERPRINT = "upload_fingerprint"


@dataclass(frozen=True)
class PaveLabel:
    user_id: str
    #: None only on a row of the previous system that did not record it.
    updated_date: datetime | None
    pave_request_id: str | None = None
    details: Mapping[str, Any] = field(default_factory=dict)


def pave_label_item(label: PaveLabel) -> dict[str, Any]:
    if label.updated_date is None:
        raise ValidationError("a Pave label is written with the instant of its upload")
    return {
        **keys.pave_label_key(label.user_id),
        "type": keys.PAVE_LABEL,
        "user_id": label.user_id,
        "updated_date": iso_timestamp(label.updated_date),
        "pave_request_id": label.pave_request_id,
        "details": to_dynamo(dict(label.details)),
    }


def from_item(row: Mapping[str, Any]) -> PaveLabel:
    """The stored label; :class:`UnreadableRowError` when it cannot be read (read as none)."""
    reader = RowReader(keys.PAVE_LABEL, row)
    label = PaveLabel(
        user_id=reader.text("user_id", "") or reader.key_part("LABEL") or "",
        updated_date=reader.timestamp("updated_date", None),
        pave_request_id=reader.text("pave_request_id", None),
        details=dict(from_dynamo(reader.mapping("details"))),
    )
    reader.require_readable()
    return label


def put_pave_label(label: PaveLabel) -> bool:
    """Write the label; ``False`` if a newer one is already stored."""
    return put_unless_newer(tables.pave(), pave_label_item(label), "updated_date", is_service_timestamp)


def get_pave_label(user_id: str) -> PaveLabel | None:
    """The user's label; an unreadable row reads as none (reported)."""
    with translated():
        row = tables.pave().get_item(Key=keys.pave_label_key(user_id), ConsistentRead=True).get("Item")
    return read_or_none(from_item, row, Reading.MISS)


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
