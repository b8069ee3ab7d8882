"""``insights`` rows (``MINE#<user_id>`` / ``TIME#<RFC3339>``): one per Pave mine.

The Pave miner writes one when it has cached a request's insights; its ``mined_at`` names
the mine in the ``recurring`` and ``ritual`` keys (``last_mine``). Readers find the latest
mine with a descending Query (Limit 1), never a Scan, then read that mine's expenses. No
TTL: kept until the service deletes them. Writing the same mine again changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from boto3.dynamodb.conditions import Key

from chalicelib.aws.errors import translated
from chalicelib.data.query import query_rows
from chalicelib.data.ttl import iso_timestamp
from chalicelib.errors import ConditionFailedError
from chalicelib.insight.data import keys, tables
from chalicelib.insight.data.values import from_dynamo, optional_int, parse_timestamp, to_dynamo


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

    @property
    def last_mine(self) -> str:
        """The mine's name inside expense keys."""
        return iso_timestamp(self.mined_at)


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
    return Mine(
        user_id=str(row["user_id"]),
        mined_at=parse_timestamp(row["mined_at"]),
        source=str(row["source"]),
        pave_request_id=row.get("pave_request_id"),
        recurring_count=optional_int(row.get("recurring_count")) or 0,
        ritual_count=optional_int(row.get("ritual_count")) or 0,
        details=dict(from_dynamo(row.get("details") or {})),
    )


def put_insights(mine: Mine) -> bool:
    """Record a mine once; ``False`` if it was already recorded."""
    try:
        with translated():
            tables.pave().put_item(Item=insights_item(mine), ConditionExpression="attribute_not_exists(PK)")
    except ConditionFailedError:
        return False
    return True


def list_insights(user_id: str, *, limit: int | None = None) -> list[Mine]:
    """The user's mines, newest first (descending Query, strongly consistent)."""
    condition = Key("PK").eq(keys.mine_pk(user_id)) & Key("SK").begins_with(keys.TIME_PREFIX)
    rows = query_rows(
        tables.pave(),
        entity=keys.INSIGHTS,
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
