"""``last_page`` rows (``USERS#<user_id>`` / ``LAST_PAGE#REQUEST_ID#<pave_request_id>``).

The Pave feeder writes one per upload request when it sends the request's last page; the
Pave miner reads it to know what to poll for, marks it ``processed`` once the insights are
cached, and records how its polling ended (``outcome``: mined, superseded, failed, timed out,
unknown). ``ttl`` is 5 days after ``created_date``: a request Pave never finished is
forgotten then. Writing the same request again changes nothing (first write wins), so a
redelivered upload cannot reset a processed request.

**Rows of the previous system** are read with the user and the request from their keys and
missing counts as 0. A row without a readable ``created_date`` (it names the mine) cannot be
mined: reads leave it out (logged and counted, :mod:`chalicelib.data.tolerant`), so a poll of
it is dropped as a request never recorded.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from boto3.dynamodb.conditions import Key

from chalicelib.aws.errors import translated
from chalicelib.data.query import query_rows
from chalicelib.data.tolerant import Reading, RowReader, read_or_none, readable_by
from chalicelib.data.ttl import iso_timestamp
from chalicelib.errors import ConditionFailedError
from chalicelib.insight.data import keys, tables
from chalicelib.insight.data.ttl import last_page_ttl
from chalicelib.insight.data.values import from_dynamo, to_dynamo


@dataclass(frozen=True)
class LastPage:
    user_id: str
    pave_request_id: str
    created_date: datetime
    #: Pages the request uploaded (the last page's number, from 1).
    pages: int
    transaction_count: int
    processed: bool = False
    details: Mapping[str, Any] = field(default_factory=dict)
    #: How the miner finished with the request (None while it still polls).
    outcome: str | None = None


def last_page_item(page: LastPage) -> dict[str, Any]:
    return {
        **keys.last_page_key(page.user_id, page.pave_request_id),
        "type": keys.LAST_PAGE,
        "user_id": page.user_id,
        "pave_request_id": page.pave_request_id,
        "created_date": iso_timestamp(page.created_date),
        "pages": page.pages,
        "transaction_count": page.transaction_count,
        "processed": page.processed,
        "details": to_dynamo(dict(page.details)),
        "ttl": last_page_ttl(page.created_date),
    }


def from_item(row: Mapping[str, Any]) -> LastPage:
    """The stored request; :class:`UnreadableRowError` when it cannot be read (left out)."""
    reader = RowReader(keys.LAST_PAGE, row)
    created = reader.timestamp("created_date", None)
    if created is None:
        reader.problem("created_date", "missing: the request names no mine")
    page = LastPage(
        user_id=reader.text("user_id", "") or reader.key_part("USERS") or "",
        pave_request_id=reader.text("pave_request_id", "") or reader.key_part("REQUEST_ID", "SK") or "",
        created_date=created or datetime.min,
        pages=reader.whole("pages", 0),
        transaction_count=reader.whole("transaction_count", 0),
        processed=reader.flag("processed", False),
        details=dict(from_dynamo(reader.mapping("details"))),
        outcome=reader.text("outcome", None),
    )
    reader.require_readable()
    return page


def put_last_page(page: LastPage) -> bool:
    """Record a request's last page once; ``False`` if it was already recorded."""
    try:
        with translated():
            tables.pave().put_item(Item=last_page_item(page), ConditionExpression="attribute_not_exists(PK)")
    except ConditionFailedError:
        return False
    return True


def get_last_page(user_id: str, pave_request_id: str) -> LastPage | None:
    """The request's row; an unreadable one reads as none (reported)."""
    with translated():
        row = tables.pave().get_item(Key=keys.last_page_key(user_id, pave_request_id), ConsistentRead=True).get("Item")
    return read_or_none(from_item, row, Reading.LEFT_OUT)


def last_pages(user_id: str) -> list[LastPage]:
    """Every recorded request of the user still retained (strong), processed or not."""
    condition = Key("PK").eq(keys.users_pk(user_id)) & Key("SK").begins_with(keys.LAST_PAGE_PREFIX)
    readable = readable_by(from_item, Reading.LEFT_OUT)
    rows = query_rows(
        tables.pave(),
        keep=lambda row: keys.names_entity(row, keys.LAST_PAGE) and readable(row),
        KeyConditionExpression=condition,
        ConsistentRead=True,
    )
    return [from_item(row) for row in rows]


def mark_processed(user_id: str, pave_request_id: str) -> bool:
    """Flag the request's insights as cached; ``False`` if the row is gone (expired)."""
    try:
        with translated():
            tables.pave().update_item(
                Key=keys.last_page_key(user_id, pave_request_id),
                UpdateExpression="SET #processed = :true",
                ConditionExpression="attribute_exists(PK)",
                ExpressionAttributeNames={"#processed": "processed"},  # a reserved word
                ExpressionAttributeValues={":true": True},
            )
    except ConditionFailedError:
        return False
    return True


def finish(user_id: str, pave_request_id: str, outcome: str, *, processed: bool) -> bool:
    """Record how the miner finished with the request (``processed`` when its insights are
    cached); ``False`` if the row is gone (expired). Repeating it writes the same values."""
    try:
        with translated():
            tables.pave().update_item(
                Key=keys.last_page_key(user_id, pave_request_id),
                UpdateExpression="SET #processed = :processed, outcome = :outcome",
                ConditionExpression="attribute_exists(PK)",
                ExpressionAttributeNames={"#processed": "processed"},
                ExpressionAttributeValues={":processed": processed, ":outcome": outcome},
            )
    except ConditionFailedError:
        return False
    return True
