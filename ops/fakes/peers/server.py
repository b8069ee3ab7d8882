"""The common machinery of every peer fake: a real HTTP server that records and misbehaves on cue.

Each fake is an :class:`ops.fakes.http.HttpFake` (a stdlib HTTP server on its own thread), so
clients talk real HTTP (sockets, headers, timeouts). Every request is recorded before it is
answered; faults (``fail_next``, ``reply_next``, ``stall_next``, ``hold_next``) apply to the next
N requests in arrival order. A stalled request still runs after its delay, the way a slow server finishes work
its caller gave up on, which is what idempotency must survive.

Requests under ``/_fake/`` are the control plane (seed state, read recordings, inject
faults) for a fake running as a separate process; they need no auth and are not recorded.
"""

from __future__ import annotations

import gzip
import json
import re
import threading
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any, ClassVar, Self
from urllib.parse import parse_qs, unquote, urlsplit

from ops.fakes.http import HttpFake, KeepAliveHandler

CONTROL_PREFIX = "/_fake/"


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the fake received it (body already gunzipped when it was compressed)."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())

    @property
    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


@dataclass(frozen=True)
class Reply:
    """What the fake answers: a status, an optional JSON body and extra headers."""

    status: int
    body: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)
    #: Bytes sent as is instead of ``body`` as JSON (to answer something malformed).
    raw: bytes | None = None


def error_reply(status: int, code: str, message: str = "") -> Reply:
    """The peers' error shape: ``{"error": {"code", "message"}}``."""
    return Reply(status, {"error": {"code": code, "message": message or code.replace("_", " ").lower()}})


class Hold:
    """A request the fake holds until the test lets it go (see :meth:`FakeServer.hold_next`)."""

    def __init__(self) -> None:
        self.arrived = threading.Event()
        self._released = threading.Event()

    def wait_arrived(self, timeout: float = 5.0) -> bool:
        """Block until the held request has reached the fake."""
        return self.arrived.wait(timeout)

    def release(self) -> None:
        """Serve the held request now."""
        self._released.set()

    def wait_released(self, stopping: threading.Event) -> None:
        while not self._released.wait(0.05) and not stopping.is_set():
            pass


@dataclass(frozen=True)
class _Fault:
    """Answer ``reply`` instead of serving, or (no reply) serve after ``stall_seconds`` or a ``hold``."""

    reply: Reply | None
    stall_seconds: float = 0.0
    hold: Hold | None = None


Route = Callable[[RecordedRequest, re.Match[str]], Reply]


class FakeServer(HttpFake):
    """Base of the peer fakes; subclasses add routes, state and :meth:`authorized`."""

    #: Where the run command serves this fake (0 = any free port).
    default_port: ClassVar[int] = 0

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        super().__init__(host, port)
        self._lock = threading.RLock()
        self._idle = threading.Condition(self._lock)
        self._in_flight = 0
        self._stopping = threading.Event()
        self._recorded: list[RecordedRequest] = []
        self._faults: deque[_Fault] = deque()
        self._routes: list[tuple[str, re.Pattern[str], Route]] = []
        self._control_routes: list[tuple[str, re.Pattern[str], Route]] = []
        self.add_control("GET", "/_fake/requests", lambda _r, _m: Reply(200, self._recordings_json()))
        self.add_control("POST", "/_fake/reset", lambda _r, _m: self._reset_reply())
        self.add_control("POST", "/_fake/faults", self._fault_from_request)
        self.add_control("GET", "/_fake/state", lambda _r, _m: Reply(200, self.state()))

    # --- lifecycle ---------------------------------------------------------------------

    def handler_class(self) -> type[BaseHTTPRequestHandler]:
        return _handler_for(self)

    def start(self) -> Self:
        self._stopping.clear()
        return super().start()

    def stop(self) -> None:
        """Stop serving and free the port; stalled requests are cut short."""
        self._stopping.set()
        super().stop()

    # --- recordings and faults ---------------------------------------------------------

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every non-control request received so far, oldest first."""
        with self._lock:
            return list(self._recorded)

    def requests_to(self, method: str, path: str) -> list[RecordedRequest]:
        return [r for r in self.requests if r.method == method and r.path == path]

    def fail_next(self, count: int = 1, status: int = 500) -> None:
        """Answer the next ``count`` requests with ``status`` (without touching state)."""
        self._add_faults(count, _Fault(error_reply(status, "INJECTED_FAULT", f"injected {status}")))

    def reply_next(self, reply: Reply, count: int = 1) -> None:
        """Answer the next ``count`` requests with ``reply`` as is (e.g. a malformed body)."""
        self._add_faults(count, _Fault(reply))

    def stall_next(self, count: int = 1, seconds: float = 2.0) -> None:
        """Hold the next ``count`` requests for ``seconds`` (past a client's read timeout), then serve them."""
        self._add_faults(count, _Fault(None, stall_seconds=seconds))

    def hold_next(self) -> Hold:
        """Hold the next request until ``release()`` (a caller stalled mid-call, for as long as a test needs)."""
        hold = Hold()
        self._add_faults(1, _Fault(None, hold=hold))
        return hold

    def wait_idle(self, timeout: float = 5.0) -> None:
        """Block until no request is being handled (e.g. a stalled one has finished)."""
        with self._idle:
            if not self._idle.wait_for(lambda: self._in_flight == 0, timeout=timeout):
                raise TimeoutError(f"{self.name} fake still busy after {timeout}s")

    def reset(self) -> None:
        """Forget recordings, pending faults and all state."""
        with self._lock:
            self._recorded.clear()
            self._faults.clear()
            self.clear_state()

    # --- for subclasses ----------------------------------------------------------------

    def add_route(self, method: str, pattern: str, route: Route) -> None:
        """Serve ``method`` on paths fully matching ``pattern`` (named groups are URL-decoded)."""
        self._routes.append((method, re.compile(pattern), route))

    def add_control(self, method: str, pattern: str, route: Route) -> None:
        self._control_routes.append((method, re.compile(pattern), route))

    def authorized(self, request: RecordedRequest) -> bool:
        """Whether the request carries the credentials this peer expects."""
        return True

    def clear_state(self) -> None:
        """Forget the peer's own state (called under the lock)."""

    def state(self) -> dict[str, Any]:
        """The peer's state as JSON, for ``GET /_fake/state``."""
        return {}

    # --- request handling --------------------------------------------------------------

    def handle(self, request: RecordedRequest) -> Reply:
        if request.path.startswith(CONTROL_PREFIX):
            return self._dispatch(self._control_routes, request)
        with self._lock:
            self._recorded.append(request)
            fault = self._faults.popleft() if self._faults else None
        if fault is not None and fault.reply is not None:
            return fault.reply
        if fault is not None and fault.hold is not None:
            fault.hold.arrived.set()
            fault.hold.wait_released(self._stopping)
        if fault is not None and self._stopping.wait(fault.stall_seconds):
            return error_reply(503, "STOPPING")
        if not self.authorized(request):
            return error_reply(401, "UNAUTHORIZED", "missing or wrong credentials")
        with self._lock:
            return self._dispatch(self._routes, request)

    def _dispatch(self, routes: list[tuple[str, re.Pattern[str], Route]], request: RecordedRequest) -> Reply:
        allowed = False
        for method, pattern, route in routes:
            match = pattern.fullmatch(request.path)
            if match is None:
                continue
            if method == request.method:
                return route(request, match)
            allowed = True
        if allowed:
            return error_reply(405, "METHOD_NOT_ALLOWED")
        return error_reply(404, "ROUTE_NOT_FOUND", f"no route for {request.method} {request.path}")

    def _enter(self) -> None:
        with self._lock:
            self._in_flight += 1

    def _leave(self) -> None:
        with self._idle:
            self._in_flight -= 1
            self._idle.notify_all()

    def _add_faults(self, count: int, fault: _Fault) -> None:
        with self._lock:
            self._faults.extend([fault] * count)

    def _fault_from_request(self, request: RecordedRequest, _match: re.Match[str]) -> Reply:
        body = request.json or {}
        count = int(body.get("count", 1))
        if "stall_seconds" in body:
            self.stall_next(count, float(body["stall_seconds"]))
        else:
            self.fail_next(count, int(body.get("status", 500)))
        return Reply(204)

    def _reset_reply(self) -> Reply:
        self.reset()
        return Reply(204)

    def _recordings_json(self) -> list[dict[str, Any]]:
        return [
            {
                "method": r.method,
                "path": r.path,
                "query": r.query,
                "headers": r.headers,
                "body": r.body.decode("utf-8", "replace"),
            }
            for r in self.requests
        ]


def path_param(match: re.Match[str], name: str) -> str:
    return unquote(match.group(name))


def _handler_for(fake: FakeServer) -> type[BaseHTTPRequestHandler]:
    class Handler(KeepAliveHandler):
        server_version = f"fake-{fake.name}"

        def _serve(self) -> None:
            fake._enter()
            try:
                try:
                    reply = fake.handle(self._read())
                except (ValueError, gzip.BadGzipFile) as exc:  # undecodable gzip or JSON body
                    reply = error_reply(400, "INVALID_BODY", type(exc).__name__)
                self._write(reply)
            except (TimeoutError, BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (read timeout) before the answer: nothing to send
            finally:
                fake._leave()

        do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _serve

        def _read(self) -> RecordedRequest:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            if (self.headers.get("Content-Encoding") or "").lower() == "gzip" and body:
                body = gzip.decompress(body)
            parts = urlsplit(self.path)
            return RecordedRequest(
                method=self.command,
                path=parts.path,
                query=parse_qs(parts.query),
                headers={k.lower(): v for k, v in self.headers.items()},
                body=body,
            )

        def _write(self, reply: Reply) -> None:
            if reply.raw is not None:
                payload = reply.raw
            else:
                payload = b"" if reply.body is None else json.dumps(reply.body).encode()
            self.send_response(reply.status)
            if payload:
                self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            if payload and self.command != "HEAD":
                self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            """Silence per-request stderr lines; recordings are the log."""

    return Handler
