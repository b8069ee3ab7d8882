"""One cold start, measured from inside a fresh interpreter (``python -m ops.cold_start_probe``).

Reads ``{"mode", "handler", "event"}`` as JSON on stdin and prints one JSON line last:
``import_seconds`` (``import app``, or for mode ``baseline`` ``import chalice.app, boto3``),
``call_seconds`` (the handler's first call, mode ``call``), the handler's ``result`` and
every module loaded by then (``modules``). Imports only the standard library itself (and the
stdlib-only :mod:`chalicelib.clock`), so what it reports loaded was loaded by the app. Its clock
runs on from the caller's ``now`` (epoch seconds), so both sides of a signed event agree on the
time whatever each process's own clock says. :mod:`ops.bench_cold_start` drives it.
"""

from __future__ import annotations

import json
import sys
import time
import uuid
from typing import Any


class _Context:
    """What Lambda passes as context, as far as the app's middlewares read it."""

    def __init__(self, function_name: str) -> None:
        self.function_name = function_name
        self.memory_limit_in_mb = 512
        self.invoked_function_arn = f"arn:aws:lambda:us-east-1:123456789012:function:{function_name}"
        self.aws_request_id = str(uuid.uuid4())
        self.function_version = "$LATEST"

    def get_remaining_time_in_millis(self) -> int:
        return 60_000


def _run_clock_from(epoch_seconds: float) -> None:
    from datetime import UTC, datetime

    from chalicelib import clock

    start = time.monotonic()
    clock.set_clock(lambda: datetime.fromtimestamp(epoch_seconds + time.monotonic() - start, UTC))


def main() -> int:
    request: dict[str, Any] = json.loads(sys.stdin.read())
    mode = request["mode"]
    if "now" in request:
        _run_clock_from(float(request["now"]))
    started = time.perf_counter()
    if mode == "baseline":
        import boto3  # noqa: F401
        import chalice.app  # noqa: F401

        print(json.dumps({"import_seconds": time.perf_counter() - started}))
        return 0
    import app

    imported = time.perf_counter()
    report: dict[str, Any] = {"import_seconds": imported - started}
    if mode == "call":
        handler = request["handler"]
        # Lambda calls the Chalice app itself for every route, the decorated function for an event source.
        function = app.app if handler == "app" else getattr(app, handler)
        result = function(request["event"], _Context(f"txn-dev-{handler}"))
        report |= {"call_seconds": time.perf_counter() - imported, "result": result}
    report["modules"] = sorted(sys.modules)
    print(json.dumps(report, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
