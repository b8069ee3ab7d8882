"""``alert`` rows (``USERS#<user_id>`` / ``ALERT#<user_id>``): the balance-alert cooldown.

Attributes: ``alert_sent``, ``updated_date``, ``balance_setting`` (the user's threshold when
the alert was claimed, in cents), ``available_balance`` and ``current_balance`` (cents; null
when the bank did not report that balance), ``account_id`` (the account the alert is about)
and, when the claimer holds a lock, its fencing token ``fence``. ``updated_date`` drives the
7-day cooldown. An alert goes out in three steps that survive a crash between any two:

1. :func:`claim_cooldown`: a conditional write takes the cooldown (no row yet, or the last
   alert was sent at least 7 days ago) and records the claim with ``alert_sent`` false. If the
   row holds a claim that was never sent, that claim is returned instead (``resumed``), so a
   redelivery completes it rather than starting another.
2. the caller notifies with :attr:`Claim.idempotency_key`, which names the claim, so a
   resumed claim re-sends under the same key and the channel delivers once;
3. :func:`mark_sent` records ``alert_sent`` on that claim.

With a fencing token, every write (a claim, taking over an unsent claim, marking it sent)
requires the row's ``fence`` to be no newer than the caller's and stores the caller's, so
once a newer holder has written, a holder whose lock lease was taken over cannot claim,
resume or mark anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from chalicelib.aws.errors import translated
from chalicelib.data.ttl import iso_timestamp
from chalicelib.errors import ConditionFailedError
from chalicelib.insight.data import keys, tables
from chalicelib.insight.data.values import optional_int, parse_timestamp

COOLDOWN = timedelta(days=7)


@dataclass(frozen=True)
class AlertState:
    user_id: str
    alert_sent: bool
    updated_date: datetime
    balance_setting: int | None
    available_balance: int | None
    current_balance: int | None
    fence: int | None = None
    account_id: str | None = None


@dataclass(frozen=True)
class Claim:
    """The right to send one alert: the claim's instant identifies it."""

    user_id: str
    updated_date: datetime
    #: True when the claim was taken earlier and never marked sent (a crash or a redelivery).
    resumed: bool

    @property
    def idempotency_key(self) -> str:
        """The same for every attempt at this claim, different for every other claim."""
        return f"balance-alert:{self.user_id}:{iso_timestamp(self.updated_date)}"


def from_item(row: Mapping[str, Any]) -> AlertState:
    return AlertState(
        user_id=str(row["user_id"]),
        alert_sent=bool(row.get("alert_sent", False)),
        updated_date=parse_timestamp(row["updated_date"]),
        balance_setting=optional_int(row.get("balance_setting")),
        available_balance=optional_int(row.get("available_balance")),
        current_balance=optional_int(row.get("current_balance")),
        fence=optional_int(row.get("fence")),
        account_id=row.get("account_id"),
    )


def get_alert(user_id: str) -> AlertState | None:
    with translated():
        row = tables.pave().get_item(Key=keys.alert_key(user_id), ConsistentRead=True).get("Item")
    return from_item(row) if row else None


def _fenced(condition: str, fence: int | None, values: dict[str, Any]) -> str:
    if fence is None:
        return condition
    values[":fence"] = fence
    return f"({condition}) AND (attribute_not_exists(fence) OR fence <= :fence)"


def claim_cooldown(
    user_id: str,
    now: datetime,
    *,
    balance_setting: int | None,
    available_balance: int | None,
    current_balance: int | None,
    fence: int | None = None,
    account_id: str | None = None,
) -> Claim | None:
    """Take the cooldown for one alert, or resume an unsent claim; ``None`` while cooling down.

    Amounts are cents. ``None`` also when ``fence`` is older than the row's (a stale holder).
    Resuming with a ``fence`` stores it on the row, so the holder it replaced can no longer
    mark the claim.
    """
    values: dict[str, Any] = {
        ":type": keys.ALERT,
        ":user": user_id,
        ":now": iso_timestamp(now),
        ":false": False,
        ":true": True,
        ":setting": balance_setting,
        ":available": available_balance,
        ":current": current_balance,
        ":cutoff": iso_timestamp(now - COOLDOWN),
        ":account": account_id,
    }
    assignments = (
        "#type = :type, user_id = :user, updated_date = :now, alert_sent = :false, balance_setting = :setting,"
        " available_balance = :available, current_balance = :current, account_id = :account"
    )
    if fence is not None:
        assignments += ", fence = :fence"
    condition = _fenced("attribute_not_exists(PK) OR (alert_sent = :true AND updated_date <= :cutoff)", fence, values)
    try:
        with translated():
            tables.pave().update_item(
                Key=keys.alert_key(user_id),
                UpdateExpression="SET " + assignments,
                ConditionExpression=condition,
                ExpressionAttributeNames={"#type": "type"},
                ExpressionAttributeValues=values,
            )
    except ConditionFailedError:
        current = get_alert(user_id)
        stale = fence is not None and current is not None and (current.fence or 0) > fence
        if current is None or current.alert_sent or stale:
            return None
        claim = Claim(user_id, current.updated_date, resumed=True)
        if fence is not None and current.fence != fence and not _stamp_fence(claim, fence):
            return None  # sent, replaced or taken by a newer holder meanwhile
        return claim
    return Claim(user_id, now, resumed=False)


def _stamp_fence(claim: Claim, fence: int) -> bool:
    """Store ``fence`` on the unsent ``claim`` unless a newer holder's is already there."""
    values: dict[str, Any] = {":claimed": iso_timestamp(claim.updated_date), ":false": False}
    condition = _fenced("updated_date = :claimed AND alert_sent = :false", fence, values)
    try:
        with translated():
            tables.pave().update_item(
                Key=keys.alert_key(claim.user_id),
                UpdateExpression="SET fence = :fence",
                ConditionExpression=condition,
                ExpressionAttributeValues=values,
            )
    except ConditionFailedError:
        return False
    return True


def mark_sent(claim: Claim, *, fence: int | None = None) -> bool:
    """Record that ``claim``'s alert went out; ``False`` if the row no longer holds that claim."""
    values: dict[str, Any] = {":true": True, ":claimed": iso_timestamp(claim.updated_date)}
    condition = _fenced("updated_date = :claimed", fence, values)
    try:
        with translated():
            tables.pave().update_item(
                Key=keys.alert_key(claim.user_id),
                UpdateExpression="SET alert_sent = :true" + (", fence = :fence" if fence is not None else ""),
                ConditionExpression=condition,
                ExpressionAttributeValues=values,
            )
    except ConditionFailedError:
        return False
    return True
