"""Process time, measured the way the benches compare it: the least of a few passes (another
process on a shared machine slows a pass, never speeds one up), beside a yardstick of how fast
this machine runs Python at the moment, so that figures from two runs or two machines compare."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def least_process_seconds(run: Callable[[], Any], passes: int = 3) -> float:
    """The least process time of ``passes`` runs of ``run``."""
    best = float("inf")
    for _ in range(passes):
        started = time.process_time()
        run()
        best = min(best, time.process_time() - started)
    return best


def per_call_ms(call: Callable[[], Any], runs: int) -> float:
    """Process milliseconds of one ``call``: ``runs`` calls a pass, the least of three passes,
    after one call that warms caches (holidays, month starts) as a warm Lambda would have them."""
    call()

    def every_call() -> None:
        for _ in range(runs):
            call()

    return 1000 * least_process_seconds(every_call) / runs


def yardstick_ms() -> float:
    """Process milliseconds of a fixed pure-Python loop (one million squares summed), the least
    of three: a shared, busy machine runs it several times slower."""
    return 1000 * least_process_seconds(lambda: sum(i * i for i in range(10**6)))
