"""``alert`` rows (``USERS#<user_id>`` / ``ALERT#<user_id>``): the balance-alert cooldown; and
the predicted alert's rows (``USERS#<user_id>`` / ``ALERT#<user_id>#PREDICTED``, type
``PREDICTED_ALERT``), the same protocol on a row of its own (:class:`AlertKind`).

Attributes: ``alert_sent``, ``updated_date``, ``balance_setting`` (the user's threshold when
the alert was claimed, in cents), ``available_balance`` and ``current_balance`` (cents; null
when the bank did not report that balance), ``account_id`` (the account the alert is about)
and, when the claimer holds a lock, its fencing token ``fence``. ``updated_date`` drives the
7-day cooldown. A predicted alert's claim also records what the forecast said:
``predicted_date`` and ``predicted_balance`` (the lowest projected day and balance before the
next payday), ``risk_percent`` (the probability of going below the threshold, 0-100) and
``next_payday``. An alert goes out in three steps that survive a crash between any two:

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

**Rows the service did not write.** The previous system's rows carry only ``alert_sent``,
``updated_date`` and the three amounts; the user comes from the key. Such a row (it has no
``user_id``) is never a claim of this service, so whatever its ``alert_sent`` it reads as an
alert sent at its ``updated_date``: the cooldown holds and nothing is resumed. An unreadable
row (an attribute of another type, a time that is no timestamp) reads the same way, and a
time that cannot be read counts as long ago, so the row can always be claimed over once the
cooldown it may stand for is over; it is logged and counted (:mod:`chalicelib.data.tolerant`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from enum import StrEnum
from typing import Any

from chalicelib.aws.errors import translated
from chalicelib.data.tolerant import LONG_AGO, Reading, RowReader
from chalicelib.data.ttl import iso_timestamp
from chalicelib.errors import ConditionFailedError
from chalicelib.insight.data import keys, tables

COOLDOWN = timedelta(days=7)


class AlertKind(StrEnum):
    """Which alert a row keeps the cooldown of: the balance is low, or is predicted to go low."""

    LOW_BALANCE = "balance-alert"
    PREDICTED = "balance-alert-predicted"

    def key(self, user_id: str) -> dict[str, str]:
        return keys.alert_key(user_id) if self is AlertKind.LOW_BALANCE else keys.predicted_alert_key(user_id)

    @property
    def entity(self) -> str:
        return keys.ALERT if self is AlertKind.LOW_BALANCE else keys.PREDICTED_ALERT


@dataclass(frozen=True)
class Prediction:
    """What a predicted alert is about: the lowest projected day before the next payday."""

    predicted_date: date
    #: Cents.
    predicted_balance: int
    #: The probability of going below the threshold before the next payday, in percent.
    risk_percent: int
    next_payday: date | None


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
    #: A predicted alert's forecast (None for the low-balance alert, or when unreadable).
    prediction: Prediction | None = None
    #: ``updated_date`` exactly as stored (any type; None when missing): what a claim over a
    #: row read conservatively is conditioned on.
    stored_date: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Claim:
    """The right to send one alert: the claim's instant identifies it."""

    user_id: str
    updated_date: datetime
    #: True when the claim was taken earlier and never marked sent (a crash or a redelivery).
    resumed: bool
    kind: AlertKind = AlertKind.LOW_BALANCE

    @property
    def idempotency_key(self) -> str:
        """The same for every attempt at this claim, different for every other claim (and kind)."""
        return f"{self.kind.value}:{self.user_id}:{iso_timestamp(self.updated_date)}"


def from_item(row: Mapping[str, Any], kind: AlertKind = AlertKind.LOW_BALANCE) -> AlertState:
    """The row's state; a row this service did not write, or cannot read, counts as sent."""
    reader = RowReader(kind.entity, row)
    ours = reader.has("user_id")
    state = AlertState(
        user_id=reader.text("user_id", "") or reader.key_part("ALERT", "SK") or reader.key_part("USERS") or "",
        alert_sent=reader.flag("alert_sent", True),
        updated_date=reader.timestamp("updated_date", LONG_AGO),
        balance_setting=reader.whole("balance_setting", None),
        available_balance=reader.whole("available_balance", None),
        current_balance=reader.whole("current_balance", None),
        fence=reader.whole("fence", None),
        account_id=reader.text("account_id", None),
        prediction=_prediction(reader) if kind is AlertKind.PREDICTED else None,
        stored_date=row.get("updated_date"),
    )
    reader.report(Reading.CONSERVATIVE)
    return state if ours and reader.readable else replace(state, alert_sent=True)


def _prediction(reader: RowReader) -> Prediction | None:
    day = reader.day("predicted_date", None)
    balance = reader.whole("predicted_balance", None)
    risk = reader.whole("risk_percent", None)
    if day is None or balance is None or risk is None:
        return None
    return Prediction(day, balance, risk, reader.day("next_payday", None))


def get_alert(user_id: str, kind: AlertKind = AlertKind.LOW_BALANCE) -> AlertState | None:
    with translated():
        row = tables.pave().get_item(Key=kind.key(user_id), ConsistentRead=True).get("Item")
    return from_item(row, kind) if row else None


def _fenced(condition: str, fence: int | None, values: dict[str, Any]) -> str:
    if fence is None:
        return condition
    values[":fence"] = fence
    return f"({condition}) AND (attribute_not_exists(fence) OR fence <= :fence)"


#: The claim's condition: no row, or an alert sent at least 7 days ago. As :func:`from_item`
#: reads them, a row without ``user_id`` (not ours) or whose ``alert_sent`` is no boolean
#: counts as sent, and one whose ``updated_date`` is not text as sent long ago.
_CLAIMABLE = (
    "attribute_not_exists(PK) OR ("
    "(alert_sent = :true OR attribute_not_exists(user_id) OR NOT attribute_type(alert_sent, :bool))"
    " AND (updated_date <= :cutoff OR NOT attribute_type(updated_date, :text)))"
)


def claim_cooldown(
    user_id: str,
    now: datetime,
    *,
    balance_setting: int | None,
    available_balance: int | None,
    current_balance: int | None,
    fence: int | None = None,
    account_id: str | None = None,
    kind: AlertKind = AlertKind.LOW_BALANCE,
    prediction: Prediction | None = None,
) -> Claim | None:
    """Take the cooldown for one alert, or resume an unsent claim; ``None`` while cooling down.

    Amounts are cents. ``None`` also when ``fence`` is older than the row's (a stale holder).
    Resuming with a ``fence`` stores it on the row, so the holder it replaced can no longer
    mark the claim. A row :func:`from_item` reads as sent over 7 days ago in a way the
    condition cannot see (a date that is no timestamp, an amount it cannot read) is claimed
    over by a second write, conditioned on its ``updated_date`` being unchanged.
    """
    values: dict[str, Any] = {
        ":type": kind.entity,
        ":user": user_id,
        ":now": iso_timestamp(now),
        ":false": False,
        ":setting": balance_setting,
        ":available": available_balance,
        ":current": current_balance,
        ":account": account_id,
    }
    assignments = (
        "#type = :type, user_id = :user, updated_date = :now, alert_sent = :false, balance_setting = :setting,"
        " available_balance = :available, current_balance = :current, account_id = :account"
    )
    if fence is not None:
        assignments += ", fence = :fence"
    if prediction is not None:
        assignments += (
            ", predicted_date = :predicted_date, predicted_balance = :predicted_balance,"
            " risk_percent = :risk_percent, next_payday = :next_payday"
        )
        values.update(
            {
                ":predicted_date": prediction.predicted_date.isoformat(),
                ":predicted_balance": prediction.predicted_balance,
                ":risk_percent": prediction.risk_percent,
                ":next_payday": prediction.next_payday.isoformat() if prediction.next_payday else None,
            }
        )
    claimable = {":true": True, ":bool": "BOOL", ":text": "S", ":cutoff": iso_timestamp(now - COOLDOWN)}
    if _claim(kind.key(user_id), assignments, _CLAIMABLE, {**values, **claimable}, fence):
        return Claim(user_id, now, resumed=False, kind=kind)
    current = get_alert(user_id, kind)
    stale = fence is not None and current is not None and (current.fence or 0) > fence
    if current is None or stale:
        return None
    if current.alert_sent:
        return _claim_over(current, Claim(user_id, now, resumed=False, kind=kind), assignments, values, fence)
    claim = Claim(user_id, current.updated_date, resumed=True, kind=kind)
    if fence is not None and current.fence != fence and not _stamp_fence(claim, fence):
        return None  # sent, replaced or taken by a newer holder meanwhile
    return claim


def _claim_over(
    current: AlertState, claim: Claim, assignments: str, values: dict[str, Any], fence: int | None
) -> Claim | None:
    """Claim over a row read as sent once its cooldown is over, if it is still as read (its
    ``updated_date`` unchanged): the reading saw what the claim's condition cannot."""
    if claim.updated_date - current.updated_date < COOLDOWN:
        return None
    if current.stored_date is None:
        condition = "attribute_not_exists(updated_date)"
    else:
        condition, values = "updated_date = :seen", {**values, ":seen": current.stored_date}
    return claim if _claim(claim.kind.key(claim.user_id), assignments, condition, values, fence) else None


def _claim(key: dict[str, str], assignments: str, condition: str, values: dict[str, Any], fence: int | None) -> bool:
    """One conditional claim write; False when ``condition`` (fenced) refused it."""
    try:
        with translated():
            tables.pave().update_item(
                Key=key,
                UpdateExpression="SET " + assignments,
                ConditionExpression=_fenced(condition, fence, values),
                ExpressionAttributeNames={"#type": "type"},
                ExpressionAttributeValues=values,
            )
    except ConditionFailedError:
        return False
    return True


def _stamp_fence(claim: Claim, fence: int) -> bool:
    """Store ``fence`` on the unsent ``claim`` unless a newer holder's is already there."""
    values: dict[str, Any] = {":claimed": iso_timestamp(claim.updated_date), ":false": False}
    condition = _fenced("updated_date = :claimed AND alert_sent = :false", fence, values)
    try:
        with translated():
            tables.pave().update_item(
                Key=claim.kind.key(claim.user_id),
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
                Key=claim.kind.key(claim.user_id),
                UpdateExpression="SET alert_sent = :true" + (", fence = :fence" if fence is not None else ""),
                ConditionExpression=condition,
                ExpressionAttributeValues=values,
            )
    except ConditionFailedError:
        return False
    return True
