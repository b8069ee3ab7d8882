"""Segment track calls (``plaid_item_repaired``, ``plaid_item_errored``, ``low_balance_alert``,
``low_balance_predicted``) via segment-analytics-python.

Why it looks like this:

* ``sync_mode=True``: each track is posted before the call returns. The library's default
  queues events for a background thread, and Lambda freezes that thread between
  invocations (events lost or sent minutes late); there is nothing left to flush.
* The caller derives ``message_id`` (:func:`chalicelib.peers.idempotency.derive_key`), so a
  redelivered webhook sends the same ``messageId`` and Segment drops the duplicate.
* The library does not retry in sync mode; this module retries 502/503/504 and refused
  connections within the shared :class:`RetryPolicy` (safe: same ``messageId``), and turns
  every failure into a :class:`SegmentError` with ``retryable`` set.
* Properties are checked before sending: a secret-named key or token-shaped text raises
  :class:`chalicelib.errors.ValidationError` instead of leaving the service.
* ``segment.analytics`` (and ``dateutil``) load on the first track, not at import.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import requests

from chalicelib import clock
from chalicelib.errors import ValidationError
from chalicelib.observability import count, logger, redact
from chalicelib.peers.errors import SegmentError
from chalicelib.peers.transport import RETRY_STATUSES, RetryPolicy, Timeouts, is_retryable_status

PLAID_ITEM_REPAIRED = "plaid_item_repaired"
PLAID_ITEM_ERRORED = "plaid_item_errored"
#: The balance alert: Segment forwards it to the messaging tool that notifies the user.
LOW_BALANCE_ALERT = "low_balance_alert"
#: The predicted balance alert: the balance is likely to go below the threshold before payday.
LOW_BALANCE_PREDICTED = "low_balance_predicted"


class SegmentTracker:
    """Sends track calls to Segment (or the local fake at ``host``). Build with :func:`get_segment`."""

    def __init__(
        self,
        write_key: str,
        host: str,
        *,
        timeouts: Timeouts | None = None,
        retry: RetryPolicy | None = None,
        gzip: bool = True,
    ) -> None:
        self.host = host.rstrip("/")
        self.timeouts = timeouts or Timeouts()
        self.retry = retry or RetryPolicy()
        self.gzip = gzip
        self._write_key = write_key
        self._client: Any = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"SegmentTracker(host={self.host!r})"

    def item_repaired(
        self,
        user_id: str,
        item_id: str,
        *,
        message_id: str,
        institution_id: str | None = None,
        timestamp: datetime | None = None,
    ) -> str:
        """``plaid_item_repaired`` (ITEM ``LOGIN_REPAIRED``): the user fixed the connection."""
        properties = _without_none({"item_id": item_id, "institution_id": institution_id})
        return self.track(user_id, PLAID_ITEM_REPAIRED, properties, message_id=message_id, timestamp=timestamp)

    def item_errored(
        self,
        user_id: str,
        item_id: str,
        error_code: str | None,
        *,
        message_id: str,
        institution_id: str | None = None,
        timestamp: datetime | None = None,
    ) -> str:
        """``plaid_item_errored`` (ITEM ``ERROR``) with the item's Plaid ``error_code``."""
        properties = _without_none({"item_id": item_id, "error_code": error_code, "institution_id": institution_id})
        return self.track(user_id, PLAID_ITEM_ERRORED, properties, message_id=message_id, timestamp=timestamp)

    def low_balance_alert(
        self,
        user_id: str,
        *,
        account_id: str | None,
        balance: int,
        balance_source: str,
        threshold: int | None,
        available_balance: int | None,
        current_balance: int | None,
        message_id: str,
        timestamp: datetime,
    ) -> str:
        """``low_balance_alert``: the main account's balance fell below the user's threshold.

        Amounts are integer cents; ``balance`` is the one compared (``balance_source`` says
        which: ``available``, or ``current`` when the bank reported no available balance).
        ``timestamp`` is when the alert was claimed, so every retry sends the same message.
        """
        properties: dict[str, Any] = {
            "account_id": account_id,
            "balance": balance,
            "balance_source": balance_source,
            "threshold": threshold,
            "available_balance": available_balance,
            "current_balance": current_balance,
        }
        return self.track(user_id, LOW_BALANCE_ALERT, properties, message_id=message_id, timestamp=timestamp)

    def low_balance_predicted(
        self,
        user_id: str,
        *,
        account_id: str | None,
        predicted_date: str,
        predicted_balance: int,
        probability: float,
        threshold: int | None,
        next_payday: str | None,
        balance: int | None,
        balance_source: str | None,
        message_id: str,
        timestamp: datetime,
    ) -> str:
        """``low_balance_predicted``: the forecast gives the main account's balance a
        ``probability`` (0-1) of going below the user's ``threshold`` before ``next_payday``.

        ``predicted_date`` (ISO) and ``predicted_balance`` are the lowest projected day before
        the next payday and its balance; ``balance`` is today's (``balance_source`` says which).
        Amounts are integer cents; ``timestamp`` is when the alert was claimed.
        """
        properties: dict[str, Any] = {
            "account_id": account_id,
            "predicted_date": predicted_date,
            "predicted_balance": predicted_balance,
            "probability": probability,
            "threshold": threshold,
            "next_payday": next_payday,
            "balance": balance,
            "balance_source": balance_source,
        }
        return self.track(user_id, LOW_BALANCE_PREDICTED, properties, message_id=message_id, timestamp=timestamp)

    def track(
        self,
        user_id: str,
        event: str,
        properties: Mapping[str, Any],
        *,
        message_id: str,
        timestamp: datetime | None = None,
    ) -> str:
        """Send one track call and wait for Segment's answer; returns ``message_id``.

        Raises :class:`SegmentError` (retryable for 5xx, 408/429, timeouts, connection
        failures) or :class:`ValidationError` when ``properties`` hold a secret.
        """
        if not user_id or not event or not message_id:
            raise ValueError("user_id, event and message_id must not be empty")
        payload = dict(properties)
        if redact(payload) != payload:
            raise ValidationError(f"{event} properties must not carry tokens or secrets", {"event": event})
        sent_at = timestamp or clock.utcnow()  # fixed once, so a retry resends the same event
        client = self._segment()
        for attempt in range(1, self.retry.max_attempts + 1):
            last = attempt == self.retry.max_attempts
            try:
                client.track(user_id=user_id, event=event, properties=payload, message_id=message_id, timestamp=sent_at)
            except Exception as exc:  # the library raises APIError, requests' errors, or its own asserts
                reason = _retry_reason(exc)
                if reason is None or last:
                    raise self._error(event, exc) from exc
                self._before_retry(event, attempt, reason)
                continue
            return message_id
        raise AssertionError("unreachable: the last attempt returns or raises")  # pragma: no cover

    def _segment(self) -> Any:
        """The library client, built on first use (the import costs cold-start time)."""
        if self._client is None:
            with self._lock:
                if self._client is None:
                    from segment.analytics import Client

                    self._client = Client(
                        self._write_key,
                        host=self.host,
                        sync_mode=True,
                        gzip=self.gzip,
                        timeout=self.timeouts.as_tuple(),
                        max_retries=0,
                    )
        return self._client

    def _before_retry(self, event: str, attempt: int, reason: str) -> None:
        count("peer.request.retried", peer=SegmentError.peer, reason=reason)
        logger.info("segment track retried", extra={"event": event, "attempt": attempt, "reason": reason})
        time.sleep(self.retry.delay(attempt))

    def _error(self, event: str, exc: Exception) -> SegmentError:
        status = _status(exc)
        if status is not None:
            error = SegmentError(
                f"segment track {event} answered {status}", status=status, retryable=is_retryable_status(status)
            )
        elif isinstance(exc, requests.RequestException):
            error = SegmentError(f"segment track {event} failed: {type(exc).__name__}", retryable=True)
        else:
            error = SegmentError(f"segment track {event} failed: {type(exc).__name__}: {exc}")
        count("peer.request.failed", peer=error.peer, detail={"status": str(error.status or "none")})
        logger.warning("peer call failed", extra={"peer_error": error.describe()})
        return error


def _status(exc: Exception) -> int | None:
    """The HTTP status when ``exc`` is the library's ``APIError`` (Segment answered, but not 2xx)."""
    from segment.analytics.request import APIError

    status = getattr(exc, "status", None)
    return status if isinstance(exc, APIError) and isinstance(status, int) else None


def _retry_reason(exc: Exception) -> str | None:
    """Why ``exc`` is worth another attempt now, or None when it is not."""
    status = _status(exc)
    if status is not None:
        return str(status) if status in RETRY_STATUSES else None
    if isinstance(exc, requests.ConnectTimeout):
        return "connect_timeout"
    if isinstance(exc, requests.ConnectionError):
        return "connection_error"
    return None


def _without_none(values: Mapping[str, str | None]) -> dict[str, str]:
    return {key: value for key, value in values.items() if value is not None}
