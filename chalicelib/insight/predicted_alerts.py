"""The predicted low-balance alert: tell a user whose balance is likely to go low before payday.

**When.** After a balance update for which today's alert found the main account *not* low
(below the threshold, today's ``low_balance_alert`` is the message), the user's cash-flow
forecast (:mod:`cash_flow`, from the rows just read) gives the probability that the balance
goes below the threshold before the next payday. When it exceeds
``LOW_BALANCE_PREDICTION_LEVEL`` (default 0.4), ``low_balance_predicted`` goes to Segment with
the lowest projected day before the payday and its balance. No threshold, no forecast
(``confidence: none``), or a probability at or under the level: nothing is sent.

**How.** Exactly as today's alert (:mod:`balance_alerts`), on a row of its own
(``ALERT#<user_id>#PREDICTED``, :class:`AlertKind.PREDICTED`): under the same per-user lease
(``balance-alert:user_id:<user_id>``), claim a 7-day cooldown with a fenced conditional write
that records what the forecast said, notify with a ``messageId`` derived from the claim, mark
it sent. A crash between the steps leaves a pending claim that the next delivery completes
from what the claim recorded, so a user is told at most once per 7 days and never twice for
one claim. The forecast runs before the lease is taken (it reads the history), and only when
nothing is pending and the cooldown is over.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from chalicelib.insight.balance_alerts import AlertOutcome, Evaluation, UserRows, refuse_if_fenced
from chalicelib.insight.data import alerts
from chalicelib.insight.data.alerts import COOLDOWN, AlertKind, AlertState, Claim, Prediction
from chalicelib.insight.data.keys import balance_alert_lock_key
from chalicelib.insight.locker import HeldLock, Locker, LockLostError
from chalicelib.observability import count, logger
from chalicelib.peers import derive_key, get_segment
from chalicelib.peers.tracking import LOW_BALANCE_PREDICTED, SegmentTracker
from chalicelib.settings import get_settings

PREDICTED_METRIC = "insight.balance_alert.predicted"


class PredictedOutcome(StrEnum):
    NOT_CHECKED = "not_checked"  # alerts off, no main account or balance, or the balance is low now
    COOLING_DOWN = "cooling_down"
    NO_FORECAST = "no_forecast"
    UNLIKELY = "unlikely"
    SENT = "sent"
    RESUMED = "resumed"


def check_predicted_alert(
    user_id: str,
    evaluation: Evaluation | None,
    rows: UserRows,
    *,
    locker: Locker,
    tracker: SegmentTracker | None = None,
) -> PredictedOutcome:
    """Send the predicted alert if due, or finish one claimed and not sent (see the module docstring).

    ``evaluation``: what today's alert found in ``rows`` (None when it resumed a pending alert
    instead of evaluating).
    """
    state = alerts.get_alert(user_id, AlertKind.PREDICTED)
    prediction: Prediction | None = None
    if state is None or state.alert_sent:  # nothing pending: is one due?
        if evaluation is None or evaluation.outcome is not AlertOutcome.NOT_LOW or evaluation.account is None:
            return PredictedOutcome.NOT_CHECKED
        if state is not None and locker.clock() - state.updated_date < COOLDOWN:
            return PredictedOutcome.COOLING_DOWN
        verdict = predict(user_id, evaluation, rows, locker.clock())
        if isinstance(verdict, PredictedOutcome):
            return verdict
        prediction = verdict
    with locker.hold(balance_alert_lock_key(user_id)) as held:
        return _counted(_alert(user_id, evaluation, prediction, locker, held, tracker or get_segment()))


def predict(user_id: str, evaluation: Evaluation, rows: UserRows, now: datetime) -> Prediction | PredictedOutcome:
    """The forecast's verdict: a prediction worth an alert, or why there is none."""
    from chalicelib.insight.cash_flow import KnownRows, user_forecast
    from chalicelib.insight.forecast import MAX_DAYS

    found = user_forecast(user_id, now, MAX_DAYS, known=KnownRows(rows.items, rows.accounts, evaluation.threshold))
    answer = found.forecast
    if answer.confidence == "none" or not answer.days:
        return PredictedOutcome.NO_FORECAST
    risk = answer.risk_below_threshold
    if risk is None or risk <= get_settings().low_balance_prediction_level:
        return PredictedOutcome.UNLIKELY
    window = [d for d in answer.days if answer.next_payday is None or d.date <= answer.next_payday]
    lowest = min(window, key=lambda d: (d.balance_cents, d.date))
    return Prediction(lowest.date, lowest.balance_cents, round(100 * risk), answer.next_payday)


def _alert(
    user_id: str,
    evaluation: Evaluation | None,
    prediction: Prediction | None,
    locker: Locker,
    held: HeldLock,
    tracker: SegmentTracker,
) -> PredictedOutcome:
    """Claim (or resume), notify, mark: under the lease, every write fenced by its token."""
    if prediction is None:
        current = alerts.get_alert(user_id, AlertKind.PREDICTED)
        if current is None or current.alert_sent:  # another holder finished it: its cooldown holds
            return PredictedOutcome.COOLING_DOWN
    account = evaluation.account if evaluation is not None and prediction is not None else None
    balances = account.balances if account is not None else None
    claim = alerts.claim_cooldown(
        user_id,
        locker.clock(),
        balance_setting=evaluation.threshold if evaluation is not None and prediction is not None else None,
        available_balance=balances.available if balances is not None and balances.available_reported else None,
        current_balance=balances.current if balances is not None and balances.current_reported else None,
        account_id=account.acct_id if account is not None else None,
        fence=held.fence,
        kind=AlertKind.PREDICTED,
        prediction=prediction,
    )
    if claim is None:
        refuse_if_fenced(user_id, held, AlertKind.PREDICTED)
        return PredictedOutcome.COOLING_DOWN
    claimed = alerts.get_alert(user_id, AlertKind.PREDICTED)
    if claimed is None or claimed.updated_date != claim.updated_date or claimed.prediction is None:
        raise LockLostError(f"the predicted alert claim of {user_id} changed under the lease (fence {held.fence})")
    locker.ensure_held(held)
    _notify(tracker, claim, claimed, claimed.prediction)
    if not alerts.mark_sent(claim, fence=held.fence):
        refuse_if_fenced(user_id, held, AlertKind.PREDICTED)
        raise LockLostError(f"the predicted alert claim of {user_id} could not be marked sent (fence {held.fence})")
    logger.info("predicted balance alert sent", extra={"user_id": user_id, "resumed": claim.resumed})
    return PredictedOutcome.RESUMED if claim.resumed else PredictedOutcome.SENT


def _notify(tracker: SegmentTracker, claim: Claim, claimed: AlertState, prediction: Prediction) -> None:
    """Step 2: the event for ``claim``, from what the claim recorded (the same on every retry)."""
    if claimed.available_balance is not None:
        balance, source = claimed.available_balance, "available"
    elif claimed.current_balance is not None:
        balance, source = claimed.current_balance, "current"
    else:
        balance, source = None, None
    tracker.low_balance_predicted(
        claim.user_id,
        account_id=claimed.account_id,
        predicted_date=prediction.predicted_date.isoformat(),
        predicted_balance=prediction.predicted_balance,
        probability=prediction.risk_percent / 100,
        threshold=claimed.balance_setting,
        next_payday=prediction.next_payday.isoformat() if prediction.next_payday else None,
        balance=balance,
        balance_source=source,
        message_id=predicted_message_id(claim),
        timestamp=claim.updated_date,
    )


def predicted_message_id(claim: Claim) -> str:
    """The Segment ``messageId`` of a predicted claim's event: one per claim, the same on every attempt."""
    return derive_key(LOW_BALANCE_PREDICTED, claim.idempotency_key)


def _counted(outcome: PredictedOutcome) -> PredictedOutcome:
    if outcome in (PredictedOutcome.SENT, PredictedOutcome.RESUMED):
        count(PREDICTED_METRIC, outcome=outcome.value)
    return outcome
