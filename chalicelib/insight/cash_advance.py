"""The user's current cash-advance score: the newest ``scores`` row still within ``SCORE_TTL_DAYS``.

TTL is cleanup only: a row past its TTL that DynamoDB has not deleted yet is not served.
"""

from __future__ import annotations

from datetime import datetime

from chalicelib.data.ttl import epoch
from chalicelib.insight.data import scores
from chalicelib.insight.data.ttl import score_ttl


def current_score(user_id: str, now: datetime) -> scores.Score | None:
    """One descending Query (Limit 1); None when the user has no score or it has expired."""
    score = scores.latest_score(user_id)
    if score is None or score_ttl(score.scored_at) <= epoch(now):
        return None
    return score
