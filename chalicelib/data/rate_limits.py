"""Per-user allowances for calls Plaid bills: a counter row per user, call and window.

A call takes one unit of the current fixed window (``window_seconds`` long, aligned to the
epoch) with a single conditional write: ``ADD count 1`` on condition that the row is new or
its count is under the limit. DynamoDB applies it atomically, so concurrent calls of one user
can never take more than the limit between them; no read comes first and nothing is scanned.
A refused call costs one write unit and writes nothing. Each window's row carries a ttl
(cleanup only: a window's key is never reused).

The row lives in the plaid table under the user's partition (``USERS#<user>`` /
``RATE_LIMIT#<call>#<window start>``, type ``RATE_LIMIT``), which no reader of items or
sessions queries (they ask for their own sort-key prefixes) and the table stream's filters
leave out.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from chalicelib.aws.errors import translated
from chalicelib.data import keys, tables
from chalicelib.data.ttl import epoch
from chalicelib.errors import ConditionFailedError, DataError, RateLimitedError

#: The live balance refresh (``/accounts/balance/get``, billed per call).
BALANCE_REFRESH = "BALANCE_REFRESH"
#: A window's row outlives the window by this much before TTL may delete it.
_TTL_MARGIN_SECONDS = 3600


@dataclass(frozen=True)
class Allowance:
    """``limit`` calls per fixed window of ``window_seconds``."""

    limit: int
    window_seconds: int

    def window_start(self, now: datetime) -> int:
        moment = epoch(now)
        return moment - moment % self.window_seconds


def take(user_id: str, call: str, allowance: Allowance, now: datetime) -> int:
    """Take one unit of ``user_id``'s ``call`` allowance; returns how many the window has used.

    Raises :class:`~chalicelib.errors.RateLimitedError` (with the seconds until the window
    ends) when the window's limit is already used.
    """
    start = allowance.window_start(now)
    end = start + allowance.window_seconds
    try:
        with translated():
            answer = tables.plaid().update_item(
                Key=keys.rate_limit_key(user_id, call, start),
                UpdateExpression="SET #type = :type, #user = :user, #ttl = :ttl ADD #count :one",
                ConditionExpression="attribute_not_exists(#count) OR #count < :limit",
                ExpressionAttributeNames={"#type": "type", "#user": "user_id", "#ttl": "ttl", "#count": "count"},
                ExpressionAttributeValues={
                    ":type": keys.RATE_LIMIT,
                    ":user": user_id,
                    ":ttl": end + _TTL_MARGIN_SECONDS,
                    ":one": 1,
                    ":limit": allowance.limit,
                },
                ReturnValues="UPDATED_NEW",
            )
    except ConditionFailedError as exc:
        raise RateLimitedError(
            f"at most {allowance.limit} {call.lower()} calls per {allowance.window_seconds} s; try again later",
            retry_after=end - epoch(now),
        ) from exc
    used = answer["Attributes"]["count"]
    if not isinstance(used, Decimal):  # ADD only ever stores a number
        raise DataError(f"the {call} counter of {user_id} holds {type(used).__name__}, not a number")
    return int(used)
