"""Full garbage collections that skip what a long-lived process has long held.

A test worker and a local moto server each hold a heap that is mostly long-lived: modules,
test items and the SDKs' models in the one, every stored item, message and record in the
other. CPython's full collection walks all of it every time (about 1 s of CPU per server
and 3-4 s per test worker over a ``make test``). After each full collection the survivors
are frozen (``gc.freeze``), so the next one walks only what is newer. Frozen objects are
still freed by reference counting as usual; only a reference cycle among them that becomes
garbage later is kept until the process exits, which for these processes is a small price.
"""

from __future__ import annotations

import gc
from typing import Any


def _freeze_after_full_collection(phase: str, info: dict[str, Any]) -> None:
    if phase == "stop" and info["generation"] == 2:
        gc.freeze()


def freeze_survivors_of_full_collections(*, now: bool = False) -> None:
    """From now on, freeze what survives each full collection (``now``: collect and freeze first)."""
    if now:
        gc.collect()
        gc.freeze()
    if _freeze_after_full_collection not in gc.callbacks:
        gc.callbacks.append(_freeze_after_full_collection)
