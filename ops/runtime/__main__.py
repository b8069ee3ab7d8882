"""``python -m ops.runtime``: run the real app's event handlers against the local endpoint.

Start the local AWS (``python -m ops.local_aws`` or the run command) and bootstrap it
first; this only consumes. Ctrl-C stops it. ``--drain`` delivers what is there and exits.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from pathlib import Path
from types import FrameType

from ops.local_aws import apply_local_env


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m ops.runtime", description=__doc__)
    parser.add_argument("--visibility-timeout", type=int, default=None, help="override every queue's, in seconds")
    parser.add_argument("--poll-interval", type=float, default=0.2, help="seconds between rounds while busy")
    parser.add_argument("--ttl-interval", type=float, default=30.0, help="seconds between TTL sweeps (0: never)")
    parser.add_argument("--duplicate", action="store_true", help="deliver every batch twice")
    parser.add_argument("--shuffle", action="store_true", help="shuffle every SQS batch")
    parser.add_argument("--state", type=Path, default=None, help="checkpoint file, so a restart resumes")
    parser.add_argument("--function", action="append", dest="functions", help="only this handler (repeatable)")
    parser.add_argument("--drain", action="store_true", help="deliver until idle, print the stats, exit")
    parser.add_argument("--timeout", type=float, default=120.0, help="--drain gives up after this many seconds")
    parser.add_argument("--quiet", action="store_true", help="no line per invocation")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    apply_local_env()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    import app as application
    from ops.runtime.errors import DrainTimeoutError
    from ops.runtime.runtime import EventRuntime
    from ops.runtime.stats import Invocation

    def show(invocation: Invocation) -> None:
        outcome = invocation.error or (f"{len(invocation.failed)} failed" if invocation.failed else "ok")
        extra = " (duplicate, discarded)" if invocation.discarded else ""
        print(
            f"{invocation.function:<28} {invocation.records:>4} record(s) from {invocation.source}: "
            f"{outcome} in {invocation.seconds * 1000:.0f} ms{extra}",
            flush=True,
        )

    runtime = EventRuntime(
        application.app,
        visibility_timeout=args.visibility_timeout,
        poll_interval=args.poll_interval,
        duplicate_delivery=args.duplicate,
        shuffle=args.shuffle,
        ttl_interval=args.ttl_interval or None,
        state_path=args.state,
        on_invocation=None if args.quiet else show,
        functions=args.functions,
    )
    for line in runtime.describe() or ["(the app registers no event handlers)"]:
        print(f"  {line}", flush=True)
    if args.drain:
        try:
            result = runtime.drain(timeout=args.timeout)
        except DrainTimeoutError as exc:
            print(f"not idle after {args.timeout:.0f} s: {'; '.join(exc.result.pending)}", file=sys.stderr)
            return 1
        for name, stats in sorted(result.functions.items()):
            print(f"{name}: {stats}")
        return 0
    stop = threading.Event()

    def interrupt(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGINT, interrupt)
    signal.signal(signal.SIGTERM, interrupt)
    print("event runtime running; Ctrl-C stops it", flush=True)
    runtime.run_forever(stop)
    for name, stats in sorted(runtime.stats.items()):
        print(f"{name}: {stats}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
