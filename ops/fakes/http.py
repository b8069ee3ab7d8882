"""The one base of every fake service: a real HTTP server on a thread of the calling process.

The fake Plaid, the fake peers and the development identity provider are each a stdlib
``ThreadingHTTPServer`` on a daemon thread, so the real clients (plaid-python, requests,
PyJWT's JWKS fetch) talk real HTTP to them: sockets, headers, timeouts. Port 0 picks a free
port; :attr:`port` is the bound one once started. Use a fake as a context manager in tests
(``with FakePlaid() as plaid:``) or run it in the foreground from its command line
(:meth:`serve_forever`). Subclasses give the request handler (:meth:`handler_class`), a
:class:`KeepAliveHandler` where the real service keeps its connections.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar, Self


class KeepAliveHandler(BaseHTTPRequestHandler):
    """A handler that keeps the connection for the client's next request, as the real services do.

    A subclass must read every request body whole and state every answer's length, so the
    connection is ready for the next request. Nagle's algorithm is off: a handler writes its
    headers and its body apart, and on a kept connection the body waited for the client's
    delayed acknowledgement, about 40 ms a request.
    """

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True


class HttpFake:
    """Lifecycle of one fake: bind, serve on a daemon thread, stop and free the port."""

    name: ClassVar[str] = "fake"

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host = host
        self.port = port
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def handler_class(self) -> type[BaseHTTPRequestHandler]:
        """The request handler serving this fake (a closure over ``self``)."""
        raise NotImplementedError

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def running(self) -> bool:
        return self._server is not None

    def start(self) -> Self:
        """Bind (port 0 = any free port) and serve on a daemon thread; a second call does nothing."""
        if self._server is not None:
            return self
        server = ThreadingHTTPServer((self.host, self.port), self.handler_class())
        server.daemon_threads = True
        self._server = server
        self.port = int(server.server_address[1])
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, name=f"fake-{self.name}", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and free the port."""
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def serve_forever(self) -> None:
        """Serve in the foreground until interrupted (the fakes' command lines)."""
        self.start()
        try:
            threading.Event().wait()
        finally:
            self.stop()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
