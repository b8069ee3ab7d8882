"""Clocks for tests, installed with :func:`chalicelib.clock.using`."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta


class SteppingClock:
    """Starts at ``start`` and moves ``step`` on at every read, from any thread.

    Time passes with the work done, not with the machine's speed: a clock started a few
    steps before midnight crosses it at a known point of a run, every time.
    """

    def __init__(self, start: datetime, step: timedelta) -> None:
        self._next = start
        self._step = step
        self._lock = threading.Lock()
        self.reads = 0

    def __call__(self) -> datetime:
        with self._lock:
            now, self._next = self._next, self._next + self._step
            self.reads += 1
            return now
