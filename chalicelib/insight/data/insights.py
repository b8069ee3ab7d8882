"""``insights`` rows (``MINE#<user_id>`` / ``TIME#<RFC3339>``): one per Pave mine.

The Pave miner writes one when it has cached a request's insights; its ``mined_at`` names
the mine in the ``recurring`` and ``ritual`` keys (``last_mine``). Readers find the latest
mine with a descending Query (Limit 1), never a Scan, then read that mine's expenses. No
TTL: kept until the service deletes them. Writing the same mine again changes nothing.

**Rows of the previous system** may carry nothing but their keys: the user comes from the
partition key and the mine's instant from the sort key, whose text (which may be written with
another precision than this service's) names the mine in its expense keys. A missing
``source`` reads as ``PAVE`` (that system's mines were all Pave's), missing counts as 0. A row
whose instant cannot be read is a miss: reads skip it (logged and counted,
:mod:`chalicelib.data.tolerant`), so the newest readable mine answers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from boto3.dynamodb.conditions import Key

from chalicelib.aws.errors import translated
from chalicelib.data.query import query_rows
from chalicelib.data.tolerant import Reading, RowReader, parse_timestamp_text, readable_by
from chalicelib.data.ttl import iso_timestamp
from chalicelib.errors import ConditionFailedError
from chalicelib.insight.data import keys, tables
from chalicelib.insight.data.values import from_dynamo, to_dynamo

#: Who produced the mines of rows that do not say (the previous system mined only with Pave).
DEFAULT_SOURCE = "PAVE"


@dataclass(frozen=True)
class Mine:
    user_id: str
    mined_at: datetime
    #: Who produced the insights: ``PAVE``, or ``FLOATME`` for the service's own detector.
    source: str
    pave_request_id: str | None = None
    recurring_count: int = 0
    ritual_count: int = 0
    details: Mapping[str, Any] = field(default_factory=dict)
    #: The instant as the stored sort key writes it, when not in this service's format.
    key_text: str | None = None

    @property
    def last_mine(self) -> str:
        """The mine's name inside expense keys."""
        return self.key_text or iso_timestamp(self.mined_at)


def insights_item(mine: Mine) -> dict[str, Any]:
    return {
        **keys.insights_key(mine.user_id, mine.last_mine),
        "type": keys.INSIGHTS,
        "user_id": mine.user_id,
        "mined_at": mine.last_mine,
        "source": mine.source,
        "pave_request_id": mine.pave_request_id,
        "recurring_count": mine.recurring_count,
        "ritual_count": mine.ritual_count,
        "details": to_dynamo(dict(mine.details)),
    }


def from_item(row: Mapping[str, Any]) -> Mine:
    """The stored mine; :class:`UnreadableRowError` when its instant cannot be read (a miss)."""
    reader = RowReader(keys.INSIGHTS, row)
    key_text = reader.key_part("TIME", "SK")
    mined_at = reader.timestamp("mined_at", None) or parse_timestamp_text(key_text)
    if mined_at is None:
        reader.problem("SK", "no instant of the mine")
    mine = Mine(
        user_id=reader.text("user_id", "") or reader.key_part("MINE") or "",
        mined_at=mined_at or datetime.min,
        source=reader.text("source", DEFAULT_SOURCE),
        pave_request_id=reader.text("pave_request_id", None),
        recurring_count=reader.whole("recurring_count", 0),
        ritual_count=reader.whole("ritual_count", 0),
        details=dict(from_dynamo(reader.mapping("details"))),
        key_text=key_text if mined_at is not None and key_text != iso_timestamp(mined_at) else None,
    )
    reader.require_readable()
    return mine


def put_insights(mine: Mine) -> bool:
    """Record a mine once; ``False`` if it was already recorded."""
    try:
        with translated():
            tables.pave().put_item(Item=insights_item(mine), ConditionExpression="attribute_not_exists(PK)")
    except ConditionFailedError:
        return False
    return True


def list_insights(user_id: str, *, limit: int | None = None) -> list[Mine]:
    """The user's readable mines, newest first (descending Query, strongly consistent)."""
    condition = Key("PK").eq(keys.mine_pk(user_id)) & Key("SK").begins_with(keys.TIME_PREFIX)
    readable = readable_by(from_item, Reading.MISS)
    rows = query_rows(
        tables.pave(),
        keep=lambda row: keys.names_entity(row, keys.INSIGHTS) and readable(row),
        limit=limit,
        KeyConditionExpression=condition,
        ScanIndexForward=False,
        ConsistentRead=True,
    )
    return [from_item(row) for row in rows]


def latest_insights(user_id: str) -> Mine | None:
    """The user's newest mine (one descending Query, Limit 1)."""
    found = list_insights(user_id, limit=1)
    return found[0] if found else None
