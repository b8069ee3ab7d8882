"""Balance alerts: tell a user whose main account runs low, at most once per 7 days.

**When.** After every balance update of the user. The user's threshold is
``low_balance_alert`` in ``user-balance-settings`` (dollars; null or no row = alerts off).
The balance compared is the main account's ``available`` balance, or its ``current`` one when
the bank did not report ``available`` (:mod:`balance_reading`); an alert is due when it is
strictly below the threshold (at the threshold is not low). The *main account* is the
``main_account_id`` of the user's ACTIVE items; when several have one, the item whose main
account was designated last (``main_account_changed_at``, else its creation) wins.

**How.** One lease per user in ``locks`` (``balance-alert:user_id:<user_id>``, 60 s lease,
1 s heartbeat, released when the work ends; :mod:`locker`), and inside it three steps on the
``alert`` row (:mod:`chalicelib.insight.data.alerts`), each carrying the lease's fencing
token:

1. **claim** the cooldown with a conditional write (no alert yet, or the last one claimed
   at least 7 days ago and sent), recording the threshold and balances;
2. **notify**: the Segment event ``low_balance_alert``, whose ``messageId`` derives from the
   claim (Segment keeps one message per id) and whose timestamp is the claim's instant;
3. **mark** the claim ``alert_sent``.

A crash between two steps leaves a claimed, unsent alert. Any later delivery for the user
finds it and completes it (the same message, from the balances stored with the claim), so
the cooldown is never claimed with nothing sent and the user is never told twice. Without a
pending claim and without a low balance, nothing takes the lock (most updates are three
reads).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from chalicelib.data import accounts, items
from chalicelib.data.accounts import Account
from chalicelib.data.items import Item, ItemStatus
from chalicelib.insight.balance_reading import BalanceSource, Reading, spendable
from chalicelib.insight.data import alerts
from chalicelib.insight.data.alerts import COOLDOWN, AlertKind, AlertState, Claim
from chalicelib.insight.data.balance_settings import low_balance_threshold
from chalicelib.insight.data.keys import balance_alert_lock_key
from chalicelib.insight.locker import HeldLock, Locker, LockLostError
from chalicelib.observability import count, logger
from chalicelib.peers import derive_key, get_segment
from chalicelib.peers.tracking import LOW_BALANCE_ALERT, SegmentTracker

ALERT_METRIC = "insight.balance_alert"


class AlertOutcome(StrEnum):
    OFF = "off"
    NO_MAIN_ACCOUNT = "no_main_account"
    NO_BALANCE = "no_balance"
    NOT_LOW = "not_low"
    LOW = "low"
    COOLING_DOWN = "cooling_down"
    SENT = "sent"
    RESUMED = "resumed"


@dataclass(frozen=True)
class Evaluation:
    """What the stored rows say about the user's balance right now."""

    outcome: AlertOutcome
    #: Cents; None = alerts off.
    threshold: int | None = None
    account: Account | None = None
    reading: Reading | None = None


def is_low(reading: Reading, threshold: int) -> bool:
    """Strictly below the threshold (pure)."""
    return reading.amount < threshold


def pick_main_account(user_items: Sequence[Item]) -> Item | None:
    """The ACTIVE item with a main account designated last (pure; ties by item id)."""
    candidates = [i for i in user_items if i.status is ItemStatus.ACTIVE and i.main_account_id]
    if not candidates:
        return None
    return max(candidates, key=lambda i: (i.main_account_changed_at or i.created_at or "", i.item_id))


@dataclass(frozen=True)
class UserRows:
    """The user's ACCOUNT and ITEM rows as read at one moment (strongly consistent)."""

    accounts: Sequence[Account]
    items: Sequence[Item]

    @classmethod
    def read(cls, user_id: str) -> UserRows:
        return cls(accounts.list_accounts(user_id, consistent=True), items.list_items(user_id))


def evaluate(user_id: str, rows: UserRows | None = None) -> Evaluation:
    """Threshold, main account and its balance, and the verdict (reads ``rows`` unless given)."""
    threshold = low_balance_threshold(user_id)
    if threshold is None:
        return Evaluation(AlertOutcome.OFF)
    rows = rows or UserRows.read(user_id)
    owner = pick_main_account(rows.items)
    account = next((a for a in rows.accounts if owner and a.acct_id == owner.main_account_id), None)
    if owner is None or account is None:
        return Evaluation(AlertOutcome.NO_MAIN_ACCOUNT, threshold)
    reading = spendable(account.balances)
    if reading is None:
        return Evaluation(AlertOutcome.NO_BALANCE, threshold, account)
    verdict = AlertOutcome.LOW if is_low(reading, threshold) else AlertOutcome.NOT_LOW
    return Evaluation(verdict, threshold, account, reading)


@dataclass(frozen=True)
class Checked:
    outcome: AlertOutcome
    #: What the rows said, when they were evaluated (not when a pending alert was resumed).
    evaluation: Evaluation | None


def check(
    user_id: str,
    *,
    rows: UserRows | None = None,
    locker: Locker | None = None,
    tracker: SegmentTracker | None = None,
) -> Checked:
    """Alert the user if due, or finish an alert claimed and not sent (see the module docstring),
    and say what the rows said (the predicted alert reads it).

    ``rows``: the user's rows if the caller has just read them; ``locker`` brings the clock
    (default: a locker on the process clock); ``tracker`` the Segment client (default: the
    process-wide one).
    """
    lock = locker or Locker()
    state = alerts.get_alert(user_id)
    evaluation: Evaluation | None = None
    if state is None or state.alert_sent:  # nothing pending: is an alert due?
        evaluation = evaluate(user_id, rows)
        if evaluation.outcome is not AlertOutcome.LOW:
            return Checked(_counted(evaluation.outcome), evaluation)
        if state is not None and lock.clock() - state.updated_date < COOLDOWN:
            return Checked(_counted(AlertOutcome.COOLING_DOWN), evaluation)
    with lock.hold(balance_alert_lock_key(user_id)) as held:
        return Checked(_counted(_alert(user_id, evaluation, lock, held, tracker or get_segment())), evaluation)


def _alert(
    user_id: str, evaluation: Evaluation | None, locker: Locker, held: HeldLock, tracker: SegmentTracker
) -> AlertOutcome:
    """Claim (or resume), notify, mark: under the lease, every write fenced by its token.

    The claim decides atomically: if another holder claimed meanwhile, its unsent claim is
    resumed (with the balances it recorded) or its cooldown refuses ours.
    """
    if evaluation is None:
        current = alerts.get_alert(user_id)
        if current is None or current.alert_sent:  # another holder finished the pending claim
            evaluation = evaluate(user_id)
            if evaluation.outcome is not AlertOutcome.LOW:
                return evaluation.outcome
    if evaluation is not None and evaluation.account is not None:
        balances = evaluation.account.balances
        claim = alerts.claim_cooldown(
            user_id,
            locker.clock(),
            balance_setting=evaluation.threshold,
            available_balance=balances.available if balances.available_reported else None,
            current_balance=balances.current if balances.current_reported else None,
            account_id=evaluation.account.acct_id,
            fence=held.fence,
        )
    else:  # a pending claim: resumed as it was recorded
        claim = alerts.claim_cooldown(
            user_id,
            locker.clock(),
            balance_setting=None,
            available_balance=None,
            current_balance=None,
            fence=held.fence,
        )
    if claim is None:
        refuse_if_fenced(user_id, held)
        return AlertOutcome.COOLING_DOWN
    claimed = alerts.get_alert(user_id)
    if claimed is None or claimed.updated_date != claim.updated_date:
        raise LockLostError(f"the alert claim of {user_id} changed under the lease (fence {held.fence})")
    locker.ensure_held(held)
    _notify(tracker, claim, claimed)
    if not alerts.mark_sent(claim, fence=held.fence):
        refuse_if_fenced(user_id, held)
        raise LockLostError(f"the alert claim of {user_id} could not be marked sent (fence {held.fence})")
    logger.info("balance alert sent", extra={"user_id": user_id, "resumed": claim.resumed, "fence": held.fence})
    return AlertOutcome.RESUMED if claim.resumed else AlertOutcome.SENT


def _notify(tracker: SegmentTracker, claim: Claim, claimed: AlertState) -> None:
    """Step 2: the event for ``claim``, from what the claim recorded (the same on every retry)."""
    if claimed.available_balance is not None:
        balance, source = claimed.available_balance, BalanceSource.AVAILABLE
    else:
        balance, source = claimed.current_balance or 0, BalanceSource.CURRENT
    tracker.low_balance_alert(
        claim.user_id,
        account_id=claimed.account_id,
        balance=balance,
        balance_source=source.value,
        threshold=claimed.balance_setting,
        available_balance=claimed.available_balance,
        current_balance=claimed.current_balance,
        message_id=alert_message_id(claim),
        timestamp=claim.updated_date,
    )


def alert_message_id(claim: Claim) -> str:
    """The Segment ``messageId`` of a claim's event: one per claim, the same on every attempt."""
    return derive_key(LOW_BALANCE_ALERT, claim.idempotency_key)


def refuse_if_fenced(user_id: str, held: HeldLock, kind: AlertKind = AlertKind.LOW_BALANCE) -> None:
    """A newer holder's token on the row means our lease was taken over: stop."""
    current = alerts.get_alert(user_id, kind)
    if current is not None and current.fence is not None and current.fence > held.fence:
        raise LockLostError(f"a newer lock holder (fence {current.fence}) wrote the alert of {user_id}")


def _counted(outcome: AlertOutcome) -> AlertOutcome:
    """Alerts that went out are counted (``insight.balance_alert``); the many "nothing due" are not."""
    if outcome in (AlertOutcome.SENT, AlertOutcome.RESUMED):
        count(ALERT_METRIC, outcome=outcome.value)
    return outcome
