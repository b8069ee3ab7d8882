"""moto server with DynamoDB's per-request atomicity: ``python -m ops.moto_server -H host -p port``.

moto's server answers requests on many threads and its DynamoDB backend takes no lock, so
two concurrent conditional writes can both pass the same condition (and an UpdateItem can
lose another's change) — something DynamoDB never does. This entry point runs the same
moto application with every DynamoDB request served one at a time, which makes each
request atomic as in AWS and lets the tests exercise real races (locks, cooldown claims,
concurrent state transitions). Other services (SQS long polls, Kinesis) stay concurrent.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterable
from typing import Any

from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
from werkzeug.serving import run_simple

Wsgi = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def serialize_dynamodb(app: Wsgi) -> Wsgi:
    """Serve DynamoDB requests (``X-Amz-Target: DynamoDB_…``) under one lock, whole bodies included."""
    lock = threading.Lock()

    def wrapped(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if not environ.get("HTTP_X_AMZ_TARGET", "").startswith("DynamoDB_"):
            return app(environ, start_response)
        with lock:
            return list(app(environ, start_response))

    return wrapped


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("-H", "--host", default="127.0.0.1")
    parser.add_argument("-p", "--port", type=int, default=4566)
    args = parser.parse_args(argv)
    os.environ.setdefault("MOTO_PORT", str(args.port))  # moto builds queue URLs and ARNs from it
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    dispatcher = DomainDispatcherApplication(create_backend_app)
    run_simple(
        args.host,
        args.port,
        serialize_dynamodb(dispatcher),
        threaded=True,
        request_handler=MotoRequestHandler,
    )


if __name__ == "__main__":
    main()
