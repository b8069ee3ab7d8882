"""``python -m ops.fakes.pave``: serve the fake Pave until interrupted (for the run command).

Default port 4575 (the app's default ``PAVE_URL`` is ``http://127.0.0.1:4575/v1``); it accepts the
API key the app reads (``load_pave_config``), so the defaults agree. Uploads are processed once
polled ``--processing-polls`` times and ``--processing-seconds`` old.
"""

from __future__ import annotations

import argparse
import signal
import threading
from types import FrameType

from ops.fakes.pave import FakePave


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m ops.fakes.pave", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--any-port", action="store_true", help="bind a free port instead of 4575 (tests)")
    parser.add_argument("--processing-polls", type=int, default=1, help="status polls before an upload is processed")
    parser.add_argument("--processing-seconds", type=float, default=0.0, help="age before an upload is processed")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = _parse(argv)
    done = threading.Event()

    def stop(_signum: int, _frame: FrameType | None) -> None:
        done.set()

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    fake = FakePave(
        args.host,
        0 if args.any_port else FakePave.default_port,
        processing_polls=args.processing_polls,
        processing_seconds=args.processing_seconds,
    )
    with fake:
        print(f"{fake.name:<17} {fake.api_url}", flush=True)
        done.wait()


if __name__ == "__main__":
    main()
