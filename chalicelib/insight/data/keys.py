"""Every key of the insight service's tables, in one place.

Segments are joined with ``#`` by :func:`chalicelib.data.keys.join`, which refuses an empty
segment or one containing ``#`` (so a crafted id cannot reach another user's key range).
Timestamps inside keys are RFC 3339 in UTC with microseconds (``2026-11-20T12:00:00.000000Z``):
fixed width, so key order is time order. Amounts inside keys are integer cents.
docs/access-patterns.md lists which access pattern reads each key.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import date
from typing import Any

from chalicelib.data.keys import SEP, InvalidKeyError, join

# --- <stage>-pave: entity names stored in every row's ``type`` ------------------------

PAYDAY = "PAYDAY"
INCOME_VERIFICATION = "INCOME_VERIFICATION"
BALANCE = "BALANCE"
ALERT = "ALERT"
PREDICTED_ALERT = "PREDICTED_ALERT"
PAVE_LABEL = "PAVE_LABEL"
LAST_PAGE = "LAST_PAGE"
INSIGHTS = "INSIGHTS"
RECURRING = "RECURRING"
RITUAL = "RITUAL"
INCOME = "INCOME"
SCORES = "SCORES"

#: Other names of an entity in ``type``: the previous system wrote each entity's name in lower
#: case (``balance``, ``alert``, ``scores`` ...) and may name savings months ``SAVINGS_MONTH``.
_ALSO_NAMED = {BALANCE: ("SAVINGS_MONTH",)}


def names_entity(row: Mapping[str, Any], entity: str) -> bool:
    """Whether ``row``'s ``type`` names ``entity``, in any of its spellings and any letter case.

    A row without a ``type`` is taken for the entity its key prefix names (every Query names
    its entity's sort-key prefix), so only a row typed as another entity is refused.
    """
    kind = row.get("type")
    if kind is None:
        return True
    spellings = (entity, *_ALSO_NAMED.get(entity, ()))
    return isinstance(kind, str) and kind.strip().casefold() in {name.casefold() for name in spellings}


def of_entity(entity: str) -> Callable[[Mapping[str, Any]], bool]:
    """:func:`names_entity` for one entity (a ``query_rows`` filter)."""
    return lambda row: names_entity(row, entity)


_MONTH = re.compile(r"^\d{4}-(0[1-9]|1[0-2])$")


def users_pk(user_id: str) -> str:
    """The partition holding most of a user's insight rows."""
    return join("USERS", user_id)


def payday_key(user_id: str) -> dict[str, str]:
    """The same-day payday cache: one row per user."""
    return {"PK": join("PAYDAY", user_id), "SK": "PREDICTION"}


def income_verification_key(user_id: str) -> dict[str, str]:
    """Income verification: one row per user, every cycle on the same row."""
    return {"PK": users_pk(user_id), "SK": "VERIFICATION"}


SAVINGS_MONTH_PREFIX = "SAVINGS_MONTH" + SEP


def savings_month_sk(month: str) -> str:
    if not _MONTH.match(month):
        raise InvalidKeyError(f"not a YYYY-MM month: {month!r}")
    return join("SAVINGS_MONTH", month)


def savings_month_key(user_id: str, month: str) -> dict[str, str]:
    """A user's savings snapshot of one calendar month (``YYYY-MM``)."""
    return {"PK": users_pk(user_id), "SK": savings_month_sk(month)}


def alert_key(user_id: str) -> dict[str, str]:
    """The balance-alert state of a user (the 7-day cooldown)."""
    return {"PK": users_pk(user_id), "SK": join("ALERT", user_id)}


def predicted_alert_key(user_id: str) -> dict[str, str]:
    """The predicted low-balance alert's state of a user (its own 7-day cooldown)."""
    return {"PK": users_pk(user_id), "SK": join("ALERT", user_id, "PREDICTED")}


def pave_label_key(user_id: str) -> dict[str, str]:
    return {"PK": join("LABEL", user_id), "SK": join("PAVE", "REFRESH_INSIGHTS")}


LAST_PAGE_PREFIX = join("LAST_PAGE", "REQUEST_ID") + SEP


def last_page_key(user_id: str, pave_request_id: str) -> dict[str, str]:
    """The last page of one Pave upload request."""
    return {"PK": users_pk(user_id), "SK": join("LAST_PAGE", "REQUEST_ID", pave_request_id)}


def mine_pk(user_id: str) -> str:
    return join("MINE", user_id)


TIME_PREFIX = "TIME" + SEP


def insights_key(user_id: str, mined_at: str) -> dict[str, str]:
    """One mine's metadata; ``mined_at`` is an RFC 3339 timestamp (the newest sorts last)."""
    return {"PK": mine_pk(user_id), "SK": join("TIME", mined_at)}


def recurring_prefix(last_mine: str) -> str:
    """Every recurring expense of one mine."""
    return join("RECURRING", last_mine) + SEP


def recurring_key(user_id: str, last_mine: str, merchant_uuid: str, frequency: str, amount: int) -> dict[str, str]:
    sk = join("RECURRING", last_mine, "MERCHANT", merchant_uuid, frequency, _amount(amount))
    return {"PK": users_pk(user_id), "SK": sk}


def ritual_prefix(last_mine: str) -> str:
    """Every ritual (habitual spending) of one mine."""
    return join("RITUAL", last_mine) + SEP


def ritual_key(user_id: str, last_mine: str, merchant_id: str, frequency: str, amount: int) -> dict[str, str]:
    sk = join("RITUAL", last_mine, "MERCHANT", merchant_id, frequency, _amount(amount))
    return {"PK": users_pk(user_id), "SK": sk}


def income_key(user_id: str) -> dict[str, str]:
    """Pave's income insight for a user (one row, overwritten by each mine)."""
    return {"PK": users_pk(user_id), "SK": join("INCOME", user_id)}


CASH_ADVANCE_SCORE_PREFIX = "CASH_ADVANCE_SCORE" + SEP


def score_key(user_id: str, scored_at: str) -> dict[str, str]:
    """One cash-advance score; ``scored_at`` is an RFC 3339 timestamp (the newest sorts last)."""
    return {"PK": users_pk(user_id), "SK": join("CASH_ADVANCE_SCORE", scored_at)}


def _amount(cents: int) -> str:
    if isinstance(cents, bool) or not isinstance(cents, int):
        raise InvalidKeyError(f"an amount in a key must be integer cents, got {cents!r}")
    return str(cents)


# --- <stage>-incomedetection ----------------------------------------------------------

INCOME_DETECTION = "INCOME_DETECTION"


def income_detection_key(user_id: str, run_date: str) -> dict[str, str]:
    """One income-detection run; ``run_date`` is the run's RFC 3339 timestamp."""
    return {"PK": join("INCOME_DETECTION", user_id), "SK": join(run_date)}


# --- <stage>-fmdatacapture ------------------------------------------------------------

CAPTURE = "CAPTURE"


def capture_pk(user_id: str) -> str:
    """Capture rows are partitioned by user (events of every user would make one hot key)."""
    return users_pk(user_id)


def capture_key(user_id: str, event: str, captured_at: str, capture_id: str) -> dict[str, str]:
    """A row per occurrence: ``<EVENT>#<RFC3339>#<capture_id>``."""
    return {"PK": capture_pk(user_id), "SK": join(event, captured_at, capture_id)}


def daily_capture_key(user_id: str, event: str, day: date) -> dict[str, str]:
    """A row per user per day: ``<EVENT>#<YYYY-MM-DD>``."""
    return {"PK": capture_pk(user_id), "SK": join(event, day.isoformat())}


# --- tables other services own --------------------------------------------------------


def balance_settings_key(user_id: str) -> dict[str, str]:
    """``user-balance-settings`` is keyed by the bare user id."""
    return {"user_id": join(user_id)}


LOCK_KEY_SEP = ":"


def balance_alert_lock_key(user_id: str) -> str:
    """The ``locks`` row (partition key ``key``) serialising one user's balance alerts."""
    if not user_id or LOCK_KEY_SEP in user_id or SEP in user_id:
        raise InvalidKeyError(f"invalid key segment {user_id!r}")
    return LOCK_KEY_SEP.join(("balance-alert", "user_id", user_id))
