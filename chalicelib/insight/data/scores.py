"""``scores`` rows (``USERS#<user_id>`` / ``CASH_ADVANCE_SCORE#<RFC3339>``): cash-advance scores.

One row per score Pave returned: its ``bands`` (each a ``score`` and the advance range it
allows, ``lowest_amount`` to ``highest_amount`` in cents). The newest is one descending Query
with Limit 1 (never a Scan). ``ttl`` is ``SCORE_TTL_DAYS`` after ``scored_at``. Writing the same
score twice changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from boto3.dynamodb.conditions import Key

from chalicelib.aws.errors import translated
from chalicelib.data.money import from_dynamo as cents_from_dynamo
from chalicelib.data.query import query_rows
from chalicelib.data.ttl import iso_timestamp
from chalicelib.errors import ConditionFailedError
from chalicelib.insight.data import keys, tables
from chalicelib.insight.data.ttl import score_ttl
from chalicelib.insight.data.values import from_dynamo, parse_timestamp, to_dynamo


@dataclass(frozen=True)
class ScoreBand:
    score: int
    #: Cents.
    lowest_amount: int
    #: Cents.
    highest_amount: int


@dataclass(frozen=True)
class Score:
    user_id: str
    scored_at: datetime
    bands: tuple[ScoreBand, ...]
    last_mine: datetime | None = None
    details: Mapping[str, Any] = field(default_factory=dict)


def score_item(score: Score) -> dict[str, Any]:
    return {
        **keys.score_key(score.user_id, iso_timestamp(score.scored_at)),
        "type": keys.SCORES,
        "user_id": score.user_id,
        "scored_at": iso_timestamp(score.scored_at),
        "bands": [
            {"score": b.score, "lowest_amount": b.lowest_amount, "highest_amount": b.highest_amount}
            for b in score.bands
        ],
        "last_mine": iso_timestamp(score.last_mine) if score.last_mine else None,
        "details": to_dynamo(dict(score.details)),
        "ttl": score_ttl(score.scored_at),
    }


def from_item(row: Mapping[str, Any]) -> Score:
    last_mine = row.get("last_mine")
    return Score(
        user_id=str(row["user_id"]),
        scored_at=parse_timestamp(row["scored_at"]),
        bands=tuple(
            ScoreBand(int(b["score"]), cents_from_dynamo(b["lowest_amount"]), cents_from_dynamo(b["highest_amount"]))
            for b in row.get("bands", [])
        ),
        last_mine=parse_timestamp(last_mine) if last_mine else None,
        details=dict(from_dynamo(row.get("details") or {})),
    )


def put_score(score: Score) -> bool:
    """Record a score once; ``False`` if that instant's score was already recorded."""
    try:
        with translated():
            tables.pave().put_item(Item=score_item(score), ConditionExpression="attribute_not_exists(PK)")
    except ConditionFailedError:
        return False
    return True


def list_scores(user_id: str, *, limit: int | None = None) -> list[Score]:
    """The user's scores, newest first (descending Query, strongly consistent)."""
    condition = Key("PK").eq(keys.users_pk(user_id)) & Key("SK").begins_with(keys.CASH_ADVANCE_SCORE_PREFIX)
    rows = query_rows(
        tables.pave(),
        entity=keys.SCORES,
        limit=limit,
        KeyConditionExpression=condition,
        ScanIndexForward=False,
        ConsistentRead=True,
    )
    return [from_item(row) for row in rows]


def latest_score(user_id: str) -> Score | None:
    """The user's newest score (one descending Query, Limit 1)."""
    found = list_scores(user_id, limit=1)
    return found[0] if found else None
