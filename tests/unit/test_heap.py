"""Full garbage collections skip what survived the previous one (ops/heap.py)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from ops import heap


class _Cycle:
    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def frozen_survivors() -> Iterator[None]:
    was_installed = heap._freeze_after_full_collection in gc.callbacks
    heap.freeze_survivors_of_full_collections()
    yield
    if not was_installed:
        gc.callbacks.remove(heap._freeze_after_full_collection)


def test_what_survives_a_full_collection_is_frozen(frozen_survivors: None) -> None:
    # GIVEN an object alive through a full collection
    survivor = _Cycle()
    gc.collect()
    # THEN the collector no longer walks it, and calling again does not register twice
    assert gc.get_freeze_count() > 0
    assert not gc.is_tracked(survivor) or survivor not in gc.get_objects(generation=2)
    heap.freeze_survivors_of_full_collections()
    assert gc.callbacks.count(heap._freeze_after_full_collection) == 1


def test_newer_cyclic_garbage_is_still_collected(frozen_survivors: None) -> None:
    # GIVEN survivors frozen by a full collection
    gc.collect()
    # WHEN a new reference cycle becomes garbage
    _Cycle()
    # THEN the next full collection frees it
    assert gc.collect() >= 1
