"""HTTP/1.1 keep-alive for the local AWS server: one connection serves many requests.

Werkzeug's development server closes the connection after every response (``Connection:
close``): it cannot tell where a request body it did not read ends, so it drains the socket
and hangs up. Every AWS call of a test session or of ``make run`` then opened a new TCP
connection, and the server started a new thread for it, on both sides of loopback: about a
third of a small request's cost. :class:`KeepAliveMixin` serves a request whose body has a
known length (what every AWS SDK sends) by reading that body whole before the application
runs, so the stream always stops at the next request line, and sends the response with its
length in one write; the connection then stays open for the client's next request.
Anything else (a chunked body, ``Expect: 100-continue``, an HTTP/1.0 client, a client
asking to close) is served by werkzeug's own code, which closes the connection as before.
"""

from __future__ import annotations

import io
import traceback
from collections.abc import Callable, Iterable
from typing import Any

from werkzeug.serving import WSGIRequestHandler

#: Statuses that never carry a body (RFC 9110), nor a response to HEAD.
_BODILESS = frozenset({204, 304})
#: Response headers this module writes itself.
_FRAMING = frozenset({"content-length", "connection", "transfer-encoding"})

Headers = list[tuple[str, str]]


class KeepAliveMixin(WSGIRequestHandler):
    """A werkzeug request handler that keeps the connection open between requests."""

    #: Buffer what a response writes, so its head and body leave in one send when the
    #: handler flushes after each request (http.server's ``handle_one_request``).
    wbufsize = 64 * 1024

    def run_wsgi(self) -> None:
        if not self._can_keep_alive():
            super().run_wsgi()
            return
        environ = self.make_environ()
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = self.rfile.read(length)
        if len(body) < length:  # the client went away mid-body
            self.close_connection = True
            return
        environ["wsgi.input"] = io.BytesIO(body)
        try:
            status, headers, chunks = _call(self.server.app, environ)
        except Exception:  # noqa: BLE001 - answered as werkzeug does: a logged 500, then close
            self.server.log("error", f"Error on request:\n{traceback.format_exc()}")
            self.close_connection = True
            status, headers, chunks = "500 INTERNAL SERVER ERROR", [("Content-Type", "text/plain")], [b"error"]
        self._respond(status, headers, b"".join(chunks))

    def _can_keep_alive(self) -> bool:
        headers = self.headers
        return (
            self.request_version == "HTTP/1.1"
            and not self.close_connection
            and "chunked" not in headers.get("Transfer-Encoding", "").lower()
            and not headers.get("Expect")
            and (headers.get("Content-Length") or "0").isdigit()
        )

    def _respond(self, status: str, headers: Headers, body: bytes) -> None:
        code_text, _, reason = status.partition(" ")
        code = int(code_text)
        head = self.command == "HEAD"  # states the length a GET would have, sends no body
        bodiless = head or code < 200 or code in _BODILESS
        self.send_response(code, reason)
        for name, value in headers:
            if name.lower() not in _FRAMING or (head and name.lower() == "content-length"):
                self.send_header(name, value)
        if not bodiless:
            self.send_header("Content-Length", str(len(body)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if body and not bodiless:
            self.wfile.write(body)


def _call(app: Callable[..., Iterable[bytes]], environ: dict[str, Any]) -> tuple[str, Headers, list[bytes]]:
    """Run a WSGI application to completion: its status, headers and body chunks."""
    started: list[tuple[str, Headers]] = []
    chunks: list[bytes] = []

    def start_response(status: str, headers: Headers, exc_info: Any = None) -> Callable[[bytes], None]:
        if exc_info is not None and started:
            raise exc_info[1].with_traceback(exc_info[2])
        started[:] = [(status, list(headers))]
        return chunks.append

    result = app(environ, start_response)
    try:
        chunks.extend(result)
    finally:
        close = getattr(result, "close", None)
        if close is not None:
            close()
    if not started:
        raise RuntimeError("the application returned without starting a response")
    status, headers = started[0]
    return status, headers, chunks
