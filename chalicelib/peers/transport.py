"""One HTTP transport for the JSON peers: session, auth, timeouts, bounded retries, typed errors.

Why it looks like this:

* The ``requests.Session`` is built on the first call, not at import or construction, so a
  handler that never calls a peer pays nothing; after that its connection pool is reused
  across invocations of the warm Lambda.
* Every call carries ``timeout=(connect, read)``: requests' default is to wait forever.
* Retries are ours, not urllib3's, and bounded: only calls that are idempotent by contract
  (GET, DELETE, a POST carrying ``Idempotency-Key``), only for 502/503/504 or a connection
  that failed before the request was answered, with exponential backoff and jitter. A read
  timeout is never retried here: it already spent the read budget, and the caller's own
  redelivery (SQS, stream) is the longer-horizon retry. A 429 is waited out inside the call
  only when the policy allows it (``max_retry_after_seconds``) and ``Retry-After`` is that short.
* Every failure leaves as the caller's :class:`~chalicelib.peers.errors.PeerServiceError`
  subclass with ``status`` and ``retryable`` set; the credential (bearer token or API key
  header) is never logged.
"""

from __future__ import annotations

import math
import random
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar

import requests
from requests.adapters import HTTPAdapter

from chalicelib import clock
from chalicelib.observability import count, logger
from chalicelib.peers.errors import PeerServiceError

#: Gateway answers that mean "not processed, try again" (RFC 9110 §15.6).
RETRY_STATUSES = frozenset({502, 503, 504})
#: Client errors that a later attempt may still get past.
RETRYABLE_CLIENT_STATUSES = frozenset({408, 425, 429})
#: Server errors that will answer the same way forever.
PERMANENT_SERVER_STATUSES = frozenset({501, 505})
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})
USER_AGENT = "txn-service"
#: Every logical call to a peer, and every one that failed (by HTTP status, ``none`` when no
#: answer came): the alarms watch each peer's failure rate.
SENT_METRIC = "peer.request.sent"
FAILED_METRIC = "peer.request.failed"
TOO_MANY_REQUESTS = 429

E = TypeVar("E", bound=PeerServiceError)


@dataclass(frozen=True)
class RetryPolicy:
    """How many times an idempotent call is attempted and how long to wait between attempts."""

    max_attempts: int = 3
    backoff_seconds: float = 0.2
    backoff_max_seconds: float = 2.0
    #: Longest ``Retry-After`` of a 429 worth waiting for inside one call (0: a 429 is returned at once).
    max_retry_after_seconds: float = 0.0

    def delay(self, retry_number: int) -> float:
        """Seconds before retry ``retry_number`` (1-based): doubling, capped, with up to 10% jitter."""
        base = min(self.backoff_seconds * float(2 ** (retry_number - 1)), self.backoff_max_seconds)
        return base + random.uniform(0, base / 10)  # noqa: S311 - jitter, not cryptography


@dataclass(frozen=True)
class Timeouts:
    """Seconds to establish a connection and to wait for each read."""

    connect: float = 2.0
    read: float = 5.0

    def as_tuple(self) -> tuple[float, float]:
        return (self.connect, self.read)


def is_retryable_status(status: int) -> bool:
    """Whether an HTTP failure status may succeed on a later attempt."""
    if status in RETRYABLE_CLIENT_STATUSES:
        return True
    return status >= 500 and status not in PERMANENT_SERVER_STATUSES


def retry_after_seconds(response: requests.Response, now: datetime | None = None) -> float | None:
    """``Retry-After`` in seconds (delta-seconds or an HTTP date), or None when absent or unreadable."""
    raw = (response.headers.get("Retry-After") or "").strip()
    if not raw:
        return None
    try:
        seconds = float(raw)
    except ValueError:
        try:
            when = parsedate_to_datetime(raw)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - (now or clock.utcnow())).total_seconds()
    return max(seconds, 0.0) if math.isfinite(seconds) else None


def new_session() -> requests.Session:
    """A session with a small pool and urllib3's hidden retries off (the transport retries)."""
    session = requests.Session()
    adapter = HTTPAdapter(pool_connections=2, pool_maxsize=10, max_retries=0)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    session.headers.update({"User-Agent": USER_AGENT, "Accept": "application/json"})
    return session


class PeerTransport:
    """Sends JSON requests to one peer; raises ``error_type`` on any transport failure."""

    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        error_type: type[PeerServiceError],
        timeouts: Timeouts | None = None,
        retry: RetryPolicy | None = None,
        session_factory: Callable[[], requests.Session] = new_session,
        auth_header: str = "Authorization",
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.error_type = error_type
        self.timeouts = timeouts or Timeouts()
        self.retry = retry or RetryPolicy()
        # ``Authorization`` carries ``Bearer <token>``; any other header (e.g. ``X-API-Key``) the bare value.
        value = f"Bearer {token}" if auth_header.lower() == "authorization" else token
        self._auth = {auth_header: value}
        self._session_factory = session_factory
        self._session: requests.Session | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"PeerTransport(peer={self.error_type.peer!r}, base_url={self.base_url!r})"

    @property
    def session(self) -> requests.Session:
        """The session, built on first use (thread-safe: Lambda may run handler threads)."""
        if self._session is None:
            with self._lock:
                if self._session is None:
                    self._session = self._session_factory()
        return self._session

    def close(self) -> None:
        """Release pooled connections; the next call builds a fresh session."""
        with self._lock:
            if self._session is not None:
                self._session.close()
                self._session = None

    def send(
        self,
        method: str,
        path: str,
        *,
        json_body: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> requests.Response:
        """Send one logical call (retried when idempotent); any HTTP status is returned as is.

        Raises ``error_type`` (retryable) when no response could be had: a timeout or a
        connection failure that retries did not fix.
        """
        request_headers = {**self._auth, "X-Request-Id": str(uuid.uuid4())}
        request_headers.update(headers or {})
        idempotent = method in IDEMPOTENT_METHODS or "Idempotency-Key" in request_headers
        attempts = self.retry.max_attempts if idempotent else 1
        url = self.base_url + path
        count(SENT_METRIC, peer=self.error_type.peer)
        for attempt in range(1, attempts + 1):
            last = attempt == attempts
            try:
                response = self.session.request(
                    method, url, json=json_body, headers=request_headers, timeout=self.timeouts.as_tuple()
                )
            except requests.Timeout as exc:
                if isinstance(exc, requests.ConnectTimeout) and not last:
                    self._before_retry(method, path, attempt, "connect_timeout")
                    continue
                raise self._transport_error(method, path, "timed out", exc) from exc
            except requests.ConnectionError as exc:
                if not last:
                    self._before_retry(method, path, attempt, "connection_error")
                    continue
                raise self._transport_error(method, path, "could not connect", exc) from exc
            except requests.RequestException as exc:
                raise self._transport_error(method, path, "failed", exc) from exc
            if response.status_code in RETRY_STATUSES and not last:
                response.close()
                self._before_retry(method, path, attempt, str(response.status_code))
                continue
            wait = self._worth_waiting(response) if not last else None
            if wait is not None:
                response.close()
                self._before_retry(method, path, attempt, str(TOO_MANY_REQUESTS), wait)
                continue
            return response
        raise AssertionError("unreachable: the last attempt returns or raises")  # pragma: no cover

    def failure(self, response: requests.Response, action: str) -> PeerServiceError:
        """The typed error for an unexpected answer, logged once with identifiers only."""
        error = self.error_type(
            f"{self.error_type.peer} {action} answered {response.status_code}: {_error_summary(response)}",
            status=response.status_code,
            retryable=is_retryable_status(response.status_code),
        )
        return self._logged(error)

    def malformed(self, action: str, reason: str, status: int) -> PeerServiceError:
        """The typed error for a success answer that breaks the contract (not retryable)."""
        return self._logged(
            self.error_type(f"{self.error_type.peer} {action} sent a malformed answer: {reason}", status=status)
        )

    def report(self, error: E) -> E:
        """Log and count ``error`` once (for clients that build their own error subclasses)."""
        count(FAILED_METRIC, peer=error.peer, detail={"status": str(error.status or "none")})
        logger.warning("peer call failed", extra={"peer_error": error.describe()})
        return error

    def _worth_waiting(self, response: requests.Response) -> float | None:
        """Seconds to wait before retrying a 429 inside the call, or None to return it."""
        if response.status_code != TOO_MANY_REQUESTS or self.retry.max_retry_after_seconds <= 0:
            return None
        seconds = retry_after_seconds(response)
        if seconds is None or seconds > self.retry.max_retry_after_seconds:
            return None
        return seconds

    def _before_retry(self, method: str, path: str, attempt: int, reason: str, wait: float | None = None) -> None:
        count("peer.request.retried", peer=self.error_type.peer, reason=reason)
        logger.info(
            "peer call retried",
            extra={"peer": self.error_type.peer, "method": method, "path": path, "attempt": attempt, "reason": reason},
        )
        time.sleep(self.retry.delay(attempt) if wait is None else wait)

    def _transport_error(self, method: str, path: str, what: str, exc: Exception) -> PeerServiceError:
        error = self.error_type(f"{self.error_type.peer} {method} {path} {what}: {type(exc).__name__}", retryable=True)
        return self._logged(error)

    def _logged(self, error: PeerServiceError) -> PeerServiceError:
        return self.report(error)


def error_code(response: requests.Response) -> str | None:
    """The peer's ``error.code`` from an error body, or None when the body is not that shape.

    Lets a client tell the peer's own "not found" from a 404 of a proxy or a wrong base URL.
    """
    try:
        body = response.json()
    except ValueError:
        return None
    error = body.get("error") if isinstance(body, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    return code if isinstance(code, str) else None


def _error_summary(response: requests.Response) -> str:
    """A short, safe description of an error body: its ``error.code``, else the HTTP reason."""
    return error_code(response) or response.reason or "no error code"
