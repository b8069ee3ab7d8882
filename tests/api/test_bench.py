"""The API benchmark runs end to end and compares the same page both ways."""

from __future__ import annotations

import pytest

from ops.bench_api import PAGE, measure

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def test_bench_times_the_same_page_through_the_app_and_raw(aws_endpoint: str) -> None:
    # GIVEN the local AWS of this session / WHEN the benchmark runs briefly
    result = measure(repeats=3, rows=PAGE + 20)
    # THEN both paths were timed on a full page and the ratio is a finite number
    assert result.page_size == PAGE and result.repeats == 3
    assert result.api.median_ms > 0 and result.raw.median_ms > 0
    assert 0 < result.ratio < float("inf")
    assert result.as_json()["ratio"] == round(result.ratio, 2)
