"""CPU cost of one 500-transaction page: the client's raw hot path vs the SDK's model parsing.

``python -m ops.bench_plaid`` starts the fake Plaid in a child process (so its JSON encoding
is not billed to us), creates one Item, then times with ``time.process_time`` fetching and
parsing the same page through :meth:`PlaidClient.transactions_get` (raw JSON + marshmallow)
and through ``PlaidApi.transactions_get`` with the SDK's default model parsing.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from chalicelib.plaid.client import PlaidClient
from chalicelib.plaid.config import PlaidTimeouts
from ops.fakes.plaid.server import DEFAULT_CLIENT_ID, DEFAULT_SECRET

ROOT = Path(__file__).resolve().parents[1]
PAGE_SIZE = 500
HISTORY_DAYS = 730


@dataclass(frozen=True)
class BenchResult:
    transactions: int
    repeats: int
    hot_path_cpu: float  # seconds per page
    sdk_path_cpu: float  # seconds per page

    @property
    def ratio(self) -> float:
        return self.sdk_path_cpu / self.hot_path_cpu if self.hot_path_cpu else float("inf")


@contextmanager
def fake_plaid_process(transactions: int) -> Iterator[tuple[str, str]]:
    """``(base_url, access_token)`` of a fake Plaid child process holding one Item."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ops.fakes.plaid",
            "--port",
            "0",
            "--demo-items",
            "1",
            "--transactions",
            f"{transactions}",
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        assert process.stdout is not None
        url = json.loads(process.stdout.readline())["fake_plaid"]
        access_token = json.loads(process.stdout.readline())["access_token"]
        yield url, access_token
    finally:
        process.terminate()
        process.wait(timeout=10)


def _cpu_per_call(call: Callable[[], Any], repeats: int, warm_up: Callable[[], Any]) -> float:
    warm_up()  # lazy imports and the connection pool are not what we measure
    started = time.process_time()
    for _ in range(repeats):
        call()
    return (time.process_time() - started) / repeats


def measure(repeats: int = 2, transactions: int = 600) -> BenchResult:
    """CPU seconds per 500-transaction page on both paths (same page, same process)."""
    import plaid
    from plaid.api import plaid_api
    from plaid.model.transactions_get_request import TransactionsGetRequest
    from plaid.model.transactions_get_request_options import TransactionsGetRequestOptions

    end = date.today()
    start = end - timedelta(days=HISTORY_DAYS)
    with fake_plaid_process(transactions) as (url, access_token):
        client = PlaidClient(url, DEFAULT_CLIENT_ID, DEFAULT_SECRET, timeouts=PlaidTimeouts(read=30.0))
        configuration = plaid.Configuration(host=url, api_key={"clientId": DEFAULT_CLIENT_ID, "secret": DEFAULT_SECRET})
        sdk = plaid_api.PlaidApi(plaid.ApiClient(configuration))

        def request(count: int) -> Any:
            return TransactionsGetRequest(
                access_token=access_token,
                start_date=start,
                end_date=end,
                options=TransactionsGetRequestOptions(
                    count=count, offset=0, include_personal_finance_category=True, include_original_description=True
                ),
            )

        def hot() -> Any:
            page = client.transactions_get(access_token, start, end, count=PAGE_SIZE)
            assert len(page["transactions"]) == PAGE_SIZE
            return page

        def modelled() -> Any:
            page = sdk.transactions_get(request(PAGE_SIZE), _request_timeout=(3.05, 30.0))
            assert len(page.transactions) == PAGE_SIZE
            return page

        return BenchResult(
            transactions=PAGE_SIZE,
            repeats=repeats,
            hot_path_cpu=_cpu_per_call(hot, repeats, warm_up=hot),
            # The SDK warms up on a one-transaction page: a full one costs seconds.
            sdk_path_cpu=_cpu_per_call(
                modelled, repeats, warm_up=lambda: sdk.transactions_get(request(1), _request_timeout=(3.05, 30.0))
            ),
        )


def main() -> None:
    result = measure()
    print(f"one {result.transactions}-transaction page, CPU seconds per page (mean of {result.repeats}):")
    print(f"  hot path (raw JSON + marshmallow): {result.hot_path_cpu:.3f} s")
    print(f"  SDK model parsing:                 {result.sdk_path_cpu:.3f} s")
    print(f"  ratio SDK / hot path:              {result.ratio:.1f}x")


if __name__ == "__main__":
    main()
