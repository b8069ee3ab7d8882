"""The benchmark runs and shows what the hot path is for."""

from __future__ import annotations

import pytest

from ops.bench_plaid import PAGE_SIZE, measure


@pytest.mark.slow
def test_hot_path_costs_a_fraction_of_sdk_model_parsing() -> None:
    # GIVEN one 500-transaction page WHEN both paths fetch and parse it once
    result = measure(repeats=1, transactions=PAGE_SIZE)
    # THEN both were measured and skipping the SDK's models saves most of the CPU
    assert result.hot_path_cpu > 0
    assert result.ratio > 5
