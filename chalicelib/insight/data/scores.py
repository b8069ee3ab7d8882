"""``scores`` rows (``USERS#<user_id>`` / ``CASH_ADVANCE_SCORE#<RFC3339>``): cash-advance scores.

One row per score Pave returned: its ``bands`` (each a ``score`` and the advance range it
allows, ``lowest_amount`` to ``highest_amount`` in cents). The newest is one descending Query
with Limit 1 (never a Scan). ``ttl`` is ``SCORE_TTL_DAYS`` after ``scored_at``. Writing the same
score twice changes nothing.

**Rows of the previous system** may carry nothing but their keys: the user comes from the
partition key, ``scored_at`` from the sort key, and a row without ``bands`` reads with none.
A row that still cannot be read (its instant, or a band that is no three whole numbers) is a
miss: reads skip it (logged and counted, :mod:`chalicelib.data.tolerant`), so the newest
readable score answers.
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
from chalicelib.insight.data.ttl import score_ttl
from chalicelib.insight.data.values import from_dynamo, to_dynamo


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
    """The stored score; :class:`UnreadableRowError` when it cannot be read (a miss)."""
    reader = RowReader(keys.SCORES, row)
    scored_at = reader.timestamp("scored_at", None) or parse_timestamp_text(reader.key_part("CASH_ADVANCE_SCORE", "SK"))
    if scored_at is None:
        reader.problem("SK", "no instant of the score")
    score = Score(
        user_id=reader.text("user_id", "") or reader.key_part("USERS") or "",
        scored_at=scored_at or datetime.min,
        bands=tuple(_band(b, reader) for b in reader.sequence("bands")),
        last_mine=reader.timestamp("last_mine", None),
        details=dict(from_dynamo(reader.mapping("details"))),
    )
    reader.require_readable()
    return score


def _band(stored: object, reader: RowReader) -> ScoreBand:
    band = RowReader(keys.SCORES, stored if isinstance(stored, Mapping) else {})
    figures = [band.whole(name, None) for name in ("score", "lowest_amount", "highest_amount")]
    score, lowest, highest = (figure if figure is not None else -1 for figure in figures)
    if min(score, lowest, highest) < 0:
        reader.problem("bands", "a band is not three whole numbers")
    return ScoreBand(score, lowest, highest)


def put_score(score: Score) -> bool:
    """Record a score once; ``False`` if that instant's score was already recorded."""
    try:
        with translated():
            tables.pave().put_item(Item=score_item(score), ConditionExpression="attribute_not_exists(PK)")
    except ConditionFailedError:
        return False
    return True


def list_scores(user_id: str, *, limit: int | None = None) -> list[Score]:
    """The user's readable scores, newest first (descending Query, strongly consistent)."""
    condition = Key("PK").eq(keys.users_pk(user_id)) & Key("SK").begins_with(keys.CASH_ADVANCE_SCORE_PREFIX)
    readable = readable_by(from_item, Reading.MISS)
    rows = query_rows(
        tables.pave(),
        keep=lambda row: keys.names_entity(row, keys.SCORES) and readable(row),
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
