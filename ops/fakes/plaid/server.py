"""The fake Plaid: a real HTTP server speaking Plaid's JSON API, driven from Python or HTTP.

Use it as a context manager in tests (``with FakePlaid() as plaid:``; port 0 picks a free
port; the lifecycle is :class:`ops.fakes.http.HttpFake`'s, shared by every fake) or run it as
a process (``python -m ops.fakes.plaid --port 4567``) and drive it through the control API
under ``/__fake__/`` (see :mod:`ops.fakes.plaid.control`).

Its "today" is :func:`chalicelib.clock.today` (the injected clock), or the ``today`` it or an
Item was created with. An Item created with a ``seed`` is deterministic for that seed **and**
that day: the same pair gives the same ids, dates, amounts and pending rows; another day shifts
every date and may, for example, leave no purchase recent enough to be pending. A test that
needs particular rows passes both.
"""

from __future__ import annotations

import copy
import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import date
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from chalicelib import clock
from ops.fakes.http import HttpFake, KeepAliveHandler
from ops.fakes.plaid.api import ENDPOINTS
from ops.fakes.plaid.errors import FakeApiError, Fault, request_id
from ops.fakes.plaid.keys import SigningKey, webhook_body
from ops.fakes.plaid.state import FakeItem, FakeState, now_utc
from ops.fakes.plaid.webhooks import WebhookDelivery, post_webhook

DEFAULT_CLIENT_ID = "local-client-id"
DEFAULT_SECRET = "local-secret"  # noqa: S105 - the fake's own default, same as settings' local default
CONTROL_PREFIX = "/__fake__/"
MAX_RECORDED_CALLS = 10_000
_SECRET_FIELDS = ("client_id", "secret")


@dataclass
class RecordedCall:
    """One Plaid API request as the fake received it (credentials removed)."""

    endpoint: str
    body: dict[str, Any]
    status: int = 0
    error_code: str | None = None
    at: float = field(default_factory=clock.epoch_seconds)

    def as_json(self) -> dict[str, Any]:
        return {
            "endpoint": self.endpoint,
            "body": self.body,
            "status": self.status,
            "error_code": self.error_code,
            "at": self.at,
        }


class FakePlaid(HttpFake):
    """A stateful Plaid API on ``http://host:port`` with error injection and webhook signing."""

    name = "plaid"

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        client_id: str = DEFAULT_CLIENT_ID,
        secret: str = DEFAULT_SECRET,
        institutions: int = 300,
        today: date | None = None,
    ) -> None:
        super().__init__(host, port)
        self.client_id = client_id
        self.secret = secret
        self.state = FakeState(institutions=institutions, today=today)
        self._faults: list[Fault] = []
        self._fault_ids = 0
        self._calls: deque[RecordedCall] = deque(maxlen=MAX_RECORDED_CALLS)
        self._lock = threading.Lock()

    def handler_class(self) -> type[BaseHTTPRequestHandler]:
        return _handler_for(self)

    # --- Items and data (delegates to the state) ----------------------------------------------------

    def create_item(self, **options: Any) -> FakeItem:
        """A linked Item; see :meth:`FakeState.create_item` (``transaction_count=1200``, ``long_text_length``...)."""
        return self.state.create_item(**options)

    def link_again(self, previous: FakeItem, **options: Any) -> FakeItem:
        """The same login linked again (see :meth:`FakeState.link_again`)."""
        return self.state.link_again(previous, **options)

    def item(self, access_token: str) -> FakeItem:
        return self.state.items[access_token]

    def set_item_error(self, access_token: str, error_code: str | None) -> None:
        self.state.set_item_error(access_token, error_code)

    def set_transactions_ready(self, access_token: str, ready: bool = True) -> None:
        self.state.set_transactions_ready(access_token, ready)

    def remove_transactions(self, access_token: str, transaction_ids: list[str]) -> list[str]:
        return self.state.remove_transactions(access_token, transaction_ids)

    def add_transactions(self, access_token: str, count: int) -> list[dict[str, Any]]:
        return self.state.add_transactions(access_token, count)

    def post_pending(self, access_token: str) -> tuple[list[str], list[dict[str, Any]]]:
        return self.state.post_pending(access_token)

    def modify_transactions(
        self, access_token: str, transaction_ids: list[str] | None = None, *, count: int = 1
    ) -> list[dict[str, Any]]:
        return self.state.modify_transactions(access_token, transaction_ids, count=count)

    def create_identity_verification(self, client_user_id: str, **options: Any) -> dict[str, Any]:
        return self.state.create_identity_verification(client_user_id, **options)

    def finish_identity_verification(self, idv_id: str, status: str = "success") -> dict[str, Any]:
        return self.state.finish_identity_verification(idv_id, status)

    def create_screening(self, client_user_id: str, **options: Any) -> dict[str, Any]:
        return self.state.create_screening(client_user_id, **options)

    def complete_layer_session(self, link_token: str, **options: Any) -> str:
        return self.state.complete_layer_session(link_token, **options)

    @property
    def link_tokens(self) -> dict[str, dict[str, Any]]:
        with self.state.lock:
            return copy.deepcopy(self.state.link_tokens)

    # --- faults ------------------------------------------------------------------------------------------

    def add_fault(self, fault: Fault) -> Fault:
        with self._lock:
            self._fault_ids += 1
            fault.id = self._fault_ids
            self._faults.append(fault)
        return fault

    def fail(
        self,
        endpoint: str,
        error: str,
        *,
        times: int | None = 1,
        access_token: str | None = None,
        delay: float = 0.0,
    ) -> Fault:
        """The next ``times`` calls of ``endpoint`` (for ``access_token`` if given) answer Plaid error ``error``."""
        return self.add_fault(Fault(endpoint, error=error, times=times, access_token=access_token, delay=delay))

    def delay(self, endpoint: str, seconds: float, *, times: int | None = 1, access_token: str | None = None) -> Fault:
        """The next ``times`` calls of ``endpoint`` answer normally after ``seconds``."""
        return self.add_fault(Fault(endpoint, delay=seconds, times=times, access_token=access_token))

    def respond(
        self,
        endpoint: str,
        body: Any,
        *,
        status: int = 200,
        times: int | None = 1,
        access_token: str | None = None,
    ) -> Fault:
        """The next ``times`` calls answer exactly ``body`` (dict/list, or str sent verbatim) with ``status``."""
        return self.add_fault(
            Fault(endpoint, response=body, response_status=status, times=times, access_token=access_token)
        )

    def faults(self) -> list[Fault]:
        with self._lock:
            return list(self._faults)

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    def _take_fault(self, endpoint: str, body: dict[str, Any]) -> Fault | None:
        with self._lock:
            for fault in self._faults:
                if fault.matches(endpoint, body):
                    fault.hits += 1
                    if fault.times is not None:
                        fault.times -= 1
                        if fault.times <= 0:
                            self._faults.remove(fault)
                    return fault
        return None

    # --- recorded calls --------------------------------------------------------------------------------

    def calls(self, endpoint: str | None = None) -> list[RecordedCall]:
        """Requests received so far (oldest first), optionally for one endpoint."""
        with self._lock:
            return [c for c in self._calls if endpoint is None or c.endpoint == endpoint]

    def clear_calls(self) -> None:
        with self._lock:
            self._calls.clear()

    def reset(self) -> None:
        """Forget faults and recorded calls (Items stay)."""
        self.clear_faults()
        self.clear_calls()

    def _record(self, endpoint: str, body: dict[str, Any]) -> RecordedCall:
        call = RecordedCall(endpoint, {k: v for k, v in body.items() if k not in _SECRET_FIELDS})
        with self._lock:
            self._calls.append(call)
        return call

    # --- webhook keys and delivery --------------------------------------------------------------------------

    @property
    def current_key(self) -> SigningKey:
        return self.state.current_key

    def rotate_key(self) -> SigningKey:
        """Expire the signing key (still served with ``expired_at``) and start signing with a new one."""
        return self.state.rotate_key()

    def sign_webhook(
        self,
        payload: dict[str, Any],
        *,
        iat: float | None = None,
        key: SigningKey | None = None,
        kid: str | None = None,
    ) -> tuple[bytes, str]:
        """``(body_bytes, Plaid-Verification value)`` for ``payload``, signed like Plaid."""
        body = webhook_body(payload)
        return body, (key or self.current_key).sign(body, iat=iat, kid=kid)

    def send_webhook(
        self,
        url: str,
        payload: dict[str, Any],
        *,
        iat: float | None = None,
        key: SigningKey | None = None,
        timeout: float = 10.0,
    ) -> WebhookDelivery:
        """POST the signed payload to ``url`` with ``Plaid-Verification``; the Item's last webhook is noted."""
        body, header = self.sign_webhook(payload, iat=iat, key=key)
        item_id = payload.get("item_id")
        item = self.state.item_by_id(item_id) if isinstance(item_id, str) else None
        if item is not None:
            with self.state.lock:
                item.last_webhook = (now_utc(), str(payload.get("webhook_code", "")))
        return post_webhook(url, body, header, timeout=timeout)

    # --- request handling -------------------------------------------------------------------------------------

    def authorized(self, headers: Any, body: dict[str, Any]) -> bool:
        client_id = headers.get("PLAID-CLIENT-ID") or body.get("client_id")
        secret = headers.get("PLAID-SECRET") or body.get("secret")
        return bool(client_id == self.client_id and secret == self.secret)

    def handle_api(self, endpoint: str, headers: Any, raw: bytes) -> tuple[int, Any]:
        """Status and JSON body (or str) for one Plaid API request."""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            return _error(FakeApiError("INVALID_BODY"), endpoint)
        if not isinstance(body, dict):
            return _error(FakeApiError("INVALID_BODY"), endpoint)
        call = self._record(endpoint, body)
        status, answer = self._answer(endpoint, headers, body)
        call.status = status
        if status >= 400 and isinstance(answer, dict):
            call.error_code = answer.get("error_code")
        return status, answer

    def _answer(self, endpoint: str, headers: Any, body: dict[str, Any]) -> tuple[int, Any]:
        if not self.authorized(headers, body):
            return _error(FakeApiError("INVALID_API_KEYS"), endpoint)
        handler = ENDPOINTS.get(endpoint)
        if handler is None:
            return _error(FakeApiError("NOT_FOUND", f"unknown endpoint {endpoint}"), endpoint)
        fault = self._take_fault(endpoint, body)
        if fault is not None:
            if fault.delay:
                time.sleep(fault.delay)
            if fault.error is not None:
                return _error(FakeApiError(fault.error), endpoint)
            if fault.response is not None:
                return fault.response_status, fault.response
        try:
            answer = handler(self.state, body)
        except FakeApiError as exc:
            return _error(exc, endpoint)
        answer["request_id"] = request_id()
        return 200, answer


def _error(exc: FakeApiError, endpoint: str) -> tuple[int, dict[str, Any]]:
    return exc.status, exc.body(endpoint)


def _handler_for(fake: FakePlaid) -> type[BaseHTTPRequestHandler]:
    from ops.fakes.plaid.control import handle_control

    class Handler(KeepAliveHandler):
        server_version = "FakePlaid/1"
        timeout = 60

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: tests assert on recorded calls, not on stderr."""

        def _read(self) -> bytes:
            length = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(length) if length else b""

        def _send(self, status: int, answer: Any) -> None:
            data = answer.encode() if isinstance(answer, str) else json.dumps(answer).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True  # the client gave up (its timeout); nothing to answer

        def _dispatch(self, method: str) -> None:
            raw = self._read()
            parts = urlsplit(self.path)
            if parts.path.startswith(CONTROL_PREFIX):
                status, answer = handle_control(fake, method, parts.path, parse_qs(parts.query), raw)
            elif method == "POST":
                status, answer = fake.handle_api(parts.path, self.headers, raw)
            else:
                status, answer = _error(FakeApiError("NOT_FOUND", f"{method} is not supported"), parts.path)
            self._send(status, answer)

        def do_POST(self) -> None:
            self._dispatch("POST")

        def do_GET(self) -> None:
            self._dispatch("GET")

        def do_DELETE(self) -> None:
            self._dispatch("DELETE")

    return Handler
