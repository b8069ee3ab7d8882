"""The ``track_balances`` consumer: savings months and balance alerts (low now, and predicted), from balance updates.

Messages come from ``<stage>-insight-balance-updates`` (:mod:`balance_updates`). A batch is
grouped by user: each user's rows are read and handled once, however many of the batch's
messages name them (a mine of several pages sends one per page), and every message of a
user that failed is reported in ``batchItemFailures`` (SQS redelivers it; the DLQ takes it
after five receives). A message that is not a balance update is logged, counted and
dropped. Everything a user's handling does is idempotent, so redeliveries and duplicates
only repeat it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from chalicelib.data.ttl import utcnow
from chalicelib.errors import ValidationError
from chalicelib.insight.balance_alerts import AlertOutcome, UserRows, check
from chalicelib.insight.balance_updates import parse_balance_update
from chalicelib.insight.locker import Clock, Locker
from chalicelib.insight.predicted_alerts import PredictedOutcome, check_predicted_alert
from chalicelib.insight.savings import SavingsUpdate, update_savings
from chalicelib.observability import count, logger
from chalicelib.peers.tracking import SegmentTracker

CONSUMER = "track_balances"


@dataclass(frozen=True)
class TrackOutcome:
    savings: SavingsUpdate
    alert: AlertOutcome
    predicted: PredictedOutcome


def track_user(user_id: str, *, locker: Locker, tracker: SegmentTracker | None = None) -> TrackOutcome:
    """Read the user's rows once, recompute the savings month, then check the balance alert
    and, when the balance is not low, the predicted one."""
    now = locker.clock()  # before the reads: see update_savings
    rows = UserRows.read(user_id)
    savings = update_savings(user_id, now, rows.accounts, rows.items)
    if not savings.written:  # a computation that started later wrote first (reordered deliveries)
        count("insight.savings.superseded")
    checked = check(user_id, rows=rows, locker=locker, tracker=tracker)
    predicted = check_predicted_alert(user_id, checked.evaluation, rows, locker=locker, tracker=tracker)
    return TrackOutcome(savings, checked.outcome, predicted)


def handle_balance_updates(
    records: Iterable[Mapping[str, Any]],
    *,
    clock: Clock = utcnow,
    locker: Locker | None = None,
    tracker: SegmentTracker | None = None,
) -> dict[str, list[dict[str, str]]]:
    """Handle an SQS batch; return Lambda's partial batch response."""
    by_user: dict[str, list[str]] = {}
    for record in records:
        message_id = str(record.get("messageId", ""))
        try:
            update = parse_balance_update(str(record.get("body", "")))
        except ValidationError as exc:
            logger.error(
                f"{CONSUMER} dropped an invalid message",
                extra={"message_id": message_id, "error": str(exc), "details": exc.details},
            )
            count(f"insight.{CONSUMER}.message.dropped", reason="invalid")
            continue
        by_user.setdefault(update.user_id, []).append(message_id)
    failures: list[str] = []
    for user_id, message_ids in by_user.items():
        try:
            track_user(user_id, locker=locker or Locker(clock=clock), tracker=tracker)
        except Exception as exc:  # noqa: BLE001 - retried by SQS, per message of this user
            logger.exception(
                f"{CONSUMER} failed a user's messages",
                extra={"user_id": user_id, "message_ids": message_ids, "error": str(exc)},
            )
            count(f"insight.{CONSUMER}.message.failed", error=type(exc).__name__)
            failures += message_ids
    return {"batchItemFailures": [{"itemIdentifier": m} for m in failures]}
