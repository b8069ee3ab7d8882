"""``python -m ops.fakes.peers``: serve all four peer fakes until interrupted (for the run command).

Default ports: 4570 User Service, 4571 Payments Service, 4572 Admin API, 4573 Segment. The
credentials they accept are the ones the app reads (``load_peer_config``), so the app's
defaults and the fakes agree. Unknown users answer ACTIVE unless ``--auto-user-status none``.
"""

from __future__ import annotations

import argparse
import signal
import threading
from types import FrameType

from ops.fakes.peers import FakePeers


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m ops.fakes.peers", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--any-port", action="store_true", help="bind free ports instead of 4570-4573 (tests)")
    parser.add_argument(
        "--auto-user-status",
        default="ACTIVE",
        help="status given to users looked up without being seeded; 'none' answers 404 instead",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = _parse(argv)
    auto_status = None if args.auto_user_status.lower() == "none" else args.auto_user_status.upper()
    done = threading.Event()

    def stop(_signum: int, _frame: FrameType | None) -> None:
        done.set()

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    with FakePeers(args.host, default_ports=not args.any_port, auto_user_status=auto_status) as peers:
        for fake in peers.all:
            print(f"{fake.name:<17} {fake.url}", flush=True)
        done.wait()


if __name__ == "__main__":
    main()
