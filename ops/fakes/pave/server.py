"""Fake Pave: per-user transactions, asynchronous processing, insights computed from the uploads.

The wire (``docs/peers.md``, Pave), under ``/v1``, authenticated by the API key header:

* ``POST /users/{user_id}/transactions`` ``{"transactions": [Plaid transaction], "removed":
  [{"transaction_id"}]}`` answers 202 ``{"request_id", "status": "pending", ...}`` at once. Up
  to 1000 entries (413 beyond), each validated (422). An ``Idempotency-Key`` seen before with
  the same body answers the first request again (200, ``Idempotent-Replayed: true``); with
  another body 409 ``IDEMPOTENCY_KEY_REUSED``.
* ``GET /users/{user_id}/requests/{request_id}`` answers ``pending``, ``processed`` or
  ``failed``. A user's requests are processed in order, each once it has been polled
  ``processing_polls`` times (a poll counts for every earlier pending request too) and is
  ``processing_seconds`` old. Processing applies the upload: one copy per ``transaction_id``
  (the latest wins), removals delete it and stay remembered, so a removed id sent again later is
  ignored. Until then the upload is not in the insights.
* ``GET /users/{user_id}/cashflow/unified_insights`` and ``GET /users/{user_id}/scores/cash_advance``
  compute their answers from the processed transactions (:mod:`ops.fakes.pave.insights`); a
  user who never uploaded answers 404 ``USER_NOT_FOUND``.

Faults come from :class:`~ops.fakes.peers.server.FakeServer` (``fail_next``, ``reply_next``,
``stall_next``) plus :meth:`FakePave.rate_limit_next` (429 with ``Retry-After``). Controls over
HTTP for a separate process: ``POST /_fake/pave/processing {"polls", "seconds"}``,
``POST /_fake/pave/rate-limit {"count", "retry_after"}``, ``POST /_fake/pave/process
{"user_id"?}`` (process everything pending now), ``POST /_fake/pave/requests/{id}/fail``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any, ClassVar

from chalicelib import clock
from chalicelib.settings import LOCAL_PAVE_API_KEY, PAVE_PORT, PaveConfig, load_pave_config
from ops.fakes.pave import insights
from ops.fakes.peers.server import FakeServer, RecordedRequest, Reply, error_reply, path_param

_USER = r"/v1/users/(?P<user_id>[^/]+)"
MAX_ENTRIES = 1000
PENDING, PROCESSED, FAILED = "pending", "processed", "failed"


@dataclass
class _Request:
    request_id: str
    user_id: str
    fingerprint: str
    created_at: datetime
    transactions: list[dict[str, Any]]
    removed: list[str]
    status: str = PENDING
    polls: int = 0
    processed_at: datetime | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "request_id": self.request_id,
            "user_id": self.user_id,
            "status": self.status,
            "created_at": self.created_at.isoformat(),
            "processed_at": self.processed_at.isoformat() if self.processed_at else None,
            "transactions_received": len(self.transactions),
            "removed_received": len(self.removed),
        }


@dataclass
class _User:
    transactions: dict[str, dict[str, Any]] = field(default_factory=dict)
    removed: set[str] = field(default_factory=set)
    requests: list[_Request] = field(default_factory=list)


class FakePave(FakeServer):
    name: ClassVar[str] = "pave"
    default_port: ClassVar[int] = PAVE_PORT

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        api_key: str | None = None,
        api_key_header: str | None = None,
        processing_polls: int = 1,
        processing_seconds: float = 0.0,
        now: Callable[[], datetime] | None = None,
    ) -> None:
        super().__init__(host, port)
        # By default the credentials the app reads (the local ones unless the environment says otherwise).
        configured = load_pave_config() if api_key is None or api_key_header is None else None
        self.api_key = api_key or (configured.api_key if configured else LOCAL_PAVE_API_KEY)
        self.api_key_header = api_key_header or (configured.api_key_header if configured else "X-API-Key")
        self.processing_polls = processing_polls
        self.processing_seconds = processing_seconds
        self.now = now or clock.utcnow  # the process clock unless a test gives its own
        self._users: dict[str, _User] = {}
        self._requests: dict[str, _Request] = {}
        self._by_key: dict[str, _Request] = {}
        self.add_route("POST", _USER + "/transactions", self._upload)
        self.add_route("GET", _USER + r"/requests/(?P<request_id>[^/]+)", self._status)
        self.add_route("GET", _USER + "/cashflow/unified_insights", self._insights)
        self.add_route("GET", _USER + "/scores/cash_advance", self._score)
        self.add_control("POST", "/_fake/pave/processing", self._set_processing)
        self.add_control("POST", "/_fake/pave/rate-limit", self._rate_limit)
        self.add_control("POST", "/_fake/pave/process", self._process)
        self.add_control("POST", r"/_fake/pave/requests/(?P<request_id>[^/]+)/fail", self._fail)

    @property
    def api_url(self) -> str:
        """The base URL the client is configured with (the API version included)."""
        return f"{self.url}/v1"

    def env(self) -> dict[str, str]:
        """Environment variables that point :func:`load_pave_config` at this fake."""
        return {"PAVE_URL": self.api_url, "PAVE_API_KEY": self.api_key, "PAVE_API_KEY_HEADER": self.api_key_header}

    def config(self, **overrides: Any) -> PaveConfig:
        """A :class:`PaveConfig` aimed at this fake (timeouts, retries, page size overridable)."""
        aimed = {"base_url": self.api_url, "api_key": self.api_key, "api_key_header": self.api_key_header}
        return dataclasses.replace(load_pave_config(), **{**aimed, **overrides})

    # --- controls and inspection --------------------------------------------------------

    def rate_limit_next(self, count: int = 1, retry_after: float | None = 1) -> None:
        """Answer the next ``count`` requests 429, with ``Retry-After`` unless it is None.

        Pave's gateway sends whole seconds; a fraction is accepted here so tests need not wait.
        """
        headers = {} if retry_after is None else {"Retry-After": f"{retry_after:g}"}
        self.reply_next(Reply(429, {"message": "Too Many Requests"}, headers), count)

    def set_processing(self, *, polls: int | None = None, seconds: float | None = None) -> None:
        with self._lock:
            if polls is not None:
                self.processing_polls = polls
            if seconds is not None:
                self.processing_seconds = seconds

    def process(self, user_id: str | None = None) -> int:
        """Process every pending request (of ``user_id``, or of everyone) now; returns how many."""
        with self._lock:
            users = [self._users[user_id]] if user_id in self._users else [] if user_id else list(self._users.values())
            done = 0
            for user in users:
                for request in user.requests:
                    if request.status == PENDING:
                        self._apply(user, request)
                        done += 1
            return done

    def fail_request(self, request_id: str) -> None:
        """Make a pending request end as ``failed`` (its upload is never applied)."""
        with self._lock:
            request = self._requests[request_id]
            if request.status == PENDING:
                request.status = FAILED
                request.processed_at = self.now()

    def transactions_of(self, user_id: str) -> dict[str, dict[str, Any]]:
        """The processed transactions Pave holds for the user, by id (amounts as Decimal dollars)."""
        with self._lock:
            user = self._users.get(user_id)
            return {k: dict(v) for k, v in user.transactions.items()} if user else {}

    def score_drivers(self, user_id: str) -> insights.ScoreDrivers | None:
        """What the user's cash-advance score is made of, from what was processed (None: no upload)."""
        with self._lock:
            user = self._users.get(user_id)
            return insights.score_drivers(self._txns(user), self._today()) if user else None

    def removed_of(self, user_id: str) -> set[str]:
        with self._lock:
            user = self._users.get(user_id)
            return set(user.removed) if user else set()

    def requests_of(self, user_id: str) -> list[dict[str, Any]]:
        """The user's upload requests, oldest first (status, polls, what each carried)."""
        with self._lock:
            user = self._users.get(user_id)
            return [{**r.as_json(), "polls": r.polls} for r in user.requests] if user else []

    def authorized(self, request: RecordedRequest) -> bool:
        expected = f"Bearer {self.api_key}" if self.api_key_header.lower() == "authorization" else self.api_key
        return request.header(self.api_key_header) == expected

    def clear_state(self) -> None:
        self._users.clear()
        self._requests.clear()
        self._by_key.clear()

    def state(self) -> dict[str, Any]:
        with self._lock:
            return {
                "processing": {"polls": self.processing_polls, "seconds": self.processing_seconds},
                "users": {
                    user_id: {
                        "transactions": len(user.transactions),
                        "removed": sorted(user.removed),
                        "requests": [{**r.as_json(), "polls": r.polls} for r in user.requests],
                    }
                    for user_id, user in self._users.items()
                },
            }

    # --- the API (called under the lock) ------------------------------------------------

    def _upload(self, request: RecordedRequest, match: re.Match[str]) -> Reply:
        user_id = path_param(match, "user_id")
        try:
            body = json.loads(request.body or b"null", parse_float=Decimal)
        except ValueError:
            return error_reply(400, "INVALID_BODY", "the body is not JSON")
        problem = _invalid_upload(body)
        if problem is not None:
            status, code, message = problem
            return error_reply(status, code, message)
        fingerprint = hashlib.sha256(json.dumps(body, sort_keys=True, default=str).encode()).hexdigest()
        key = request.header("Idempotency-Key")
        if key:
            seen = self._by_key.get(key)
            if seen is not None:
                if (seen.user_id, seen.fingerprint) != (user_id, fingerprint):
                    return error_reply(409, "IDEMPOTENCY_KEY_REUSED", "the key was used for a different upload")
                return Reply(200, seen.as_json(), {"Idempotent-Replayed": "true"})
        upload = _Request(
            request_id=f"req_{uuid.uuid4().hex[:24]}",
            user_id=user_id,
            fingerprint=fingerprint,
            created_at=self.now(),
            transactions=list(body["transactions"]),
            removed=[r["transaction_id"] for r in body.get("removed") or []],
        )
        self._users.setdefault(user_id, _User()).requests.append(upload)
        self._requests[upload.request_id] = upload
        if key:
            self._by_key[key] = upload
        return Reply(202, upload.as_json())

    def _status(self, _request: RecordedRequest, match: re.Match[str]) -> Reply:
        user_id, request_id = path_param(match, "user_id"), path_param(match, "request_id")
        user = self._users.get(user_id)
        upload = self._requests.get(request_id)
        if user is None or upload is None or upload.user_id != user_id:
            return error_reply(404, "REQUEST_NOT_FOUND", f"no request {request_id} for user {user_id}")
        for earlier in user.requests[: user.requests.index(upload) + 1]:
            if earlier.status == PENDING:
                earlier.polls += 1
        self._advance(user)
        return Reply(200, upload.as_json())

    def _insights(self, _request: RecordedRequest, match: re.Match[str]) -> Reply:
        user_id = path_param(match, "user_id")
        user = self._users.get(user_id)
        if user is None:
            return error_reply(404, "USER_NOT_FOUND", f"no data uploaded for user {user_id}")
        self._advance(user)
        return Reply(200, insights.unified_insights(user_id, self._txns(user), self._today()))

    def _score(self, _request: RecordedRequest, match: re.Match[str]) -> Reply:
        user_id = path_param(match, "user_id")
        user = self._users.get(user_id)
        if user is None:
            return error_reply(404, "USER_NOT_FOUND", f"no data uploaded for user {user_id}")
        self._advance(user)
        return Reply(200, insights.cash_advance_score(user_id, self._txns(user), self._today(), self.now()))

    # --- processing ---------------------------------------------------------------------

    def _advance(self, user: _User) -> None:
        """Process the user's pending requests, in order, as far as they are ready."""
        now = self.now()
        for upload in user.requests:
            if upload.status != PENDING:
                continue
            old_enough = (now - upload.created_at).total_seconds() >= self.processing_seconds
            if upload.polls < self.processing_polls or not old_enough:
                return
            self._apply(user, upload)

    def _apply(self, user: _User, upload: _Request) -> None:
        for txn in upload.transactions:
            if txn["transaction_id"] not in user.removed:
                user.transactions[txn["transaction_id"]] = txn
        for txn_id in upload.removed:
            user.transactions.pop(txn_id, None)
            user.removed.add(txn_id)
        upload.status = PROCESSED
        upload.processed_at = self.now()

    def _txns(self, user: _User) -> list[insights.Txn]:
        return [insights.to_txn(t) for t in user.transactions.values() if not t.get("pending")]

    def _today(self) -> date:
        return self.now().astimezone(UTC).date()

    # --- control routes -----------------------------------------------------------------

    def _set_processing(self, request: RecordedRequest, _match: re.Match[str]) -> Reply:
        body = request.json or {}
        self.set_processing(polls=body.get("polls"), seconds=body.get("seconds"))
        return Reply(204)

    def _rate_limit(self, request: RecordedRequest, _match: re.Match[str]) -> Reply:
        body = request.json or {}
        self.rate_limit_next(int(body.get("count", 1)), body.get("retry_after", 1))
        return Reply(204)

    def _process(self, request: RecordedRequest, _match: re.Match[str]) -> Reply:
        body = request.json or {}
        return Reply(200, {"processed": self.process(body.get("user_id"))})

    def _fail(self, _request: RecordedRequest, match: re.Match[str]) -> Reply:
        request_id = path_param(match, "request_id")
        if request_id not in self._requests:
            return error_reply(404, "REQUEST_NOT_FOUND")
        self.fail_request(request_id)
        return Reply(204)


def _invalid_upload(body: Any) -> tuple[int, str, str] | None:
    """Why an upload body is refused (status, code, message), or None when it is acceptable."""
    if not isinstance(body, dict) or not isinstance(body.get("transactions"), list):
        return 422, "INVALID_UPLOAD", "transactions must be a list"
    removed = body.get("removed") or []
    if not isinstance(removed, list):
        return 422, "INVALID_UPLOAD", "removed must be a list"
    if len(body["transactions"]) + len(removed) > MAX_ENTRIES:
        return 413, "PAYLOAD_TOO_LARGE", f"at most {MAX_ENTRIES} transactions and removals per request"
    for index, txn in enumerate(body["transactions"]):
        reason = _invalid_transaction(txn)
        if reason:
            return 422, "INVALID_TRANSACTION", f"transactions[{index}]: {reason}"
    for index, gone in enumerate(removed):
        if not isinstance(gone, dict) or not isinstance(gone.get("transaction_id"), str) or not gone["transaction_id"]:
            return 422, "INVALID_TRANSACTION", f"removed[{index}]: transaction_id is required"
    return None


def _invalid_transaction(txn: Any) -> str | None:
    if not isinstance(txn, dict):
        return "not an object"
    for name in ("transaction_id", "account_id"):
        if not isinstance(txn.get(name), str) or not txn[name]:
            return f"{name} is required"
    amount = txn.get("amount")
    if isinstance(amount, bool) or not isinstance(amount, int | Decimal) or not Decimal(amount).is_finite():
        return "amount must be a number"
    try:
        date.fromisoformat(str(txn.get("date")))
    except ValueError:
        return "date must be YYYY-MM-DD"
    if not isinstance(txn.get("pending", False), bool):
        return "pending must be a boolean"
    return None
