"""The app over HTTP on a thread of the calling process, as ``chalice local`` serves it.

Used by the test stack and by the API benchmark: Chalice's own local server and gateway, with
one change to its request handler. The handler writes a response's headers and its body apart;
on a kept connection (a ``requests`` session, schemathesis with a session) Nagle's algorithm
held the body until the client's delayed acknowledgement, about 40 ms a request. It is off here,
as in the fake services (:class:`ops.fakes.http.KeepAliveHandler`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from chalice.config import Config
from chalice.local import ChaliceRequestHandler, LocalDevServer


class AppRequestHandler(ChaliceRequestHandler):
    """Chalice's local handler with Nagle's algorithm off and no line on stderr per request."""

    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        return


@contextmanager
def serve_app() -> Iterator[str]:
    """Serve the app on a free port of 127.0.0.1 until the block ends; yields its base URL."""
    import app as app_module

    config = Config.create(chalice_stage="dev", app_name="txn", chalice_app=app_module.app, lambda_timeout=60)
    server = LocalDevServer(app_module.app, config, "127.0.0.1", 0, handler_cls=AppRequestHandler)
    thread = threading.Thread(target=server.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server.server_address[1]}"
    finally:
        server.shutdown()
