"""Latency of a 100-row transactions page: through the app over HTTP vs a raw boto3 Query.

``python -m ops.bench_api`` uses the local AWS in ``AWS_ENDPOINT_URL`` (starting moto there
when nothing listens), seeds one user's transactions, serves the app over HTTP with
Chalice's local server and a development issuer for tokens, then alternates, ``--repeats``
times, the two ways of reading the same newest 100 rows on the same endpoint:

* **api**: ``GET /v1/users/{user}/transactions?limit=100`` with a bearer token (JWT
  verification, marshmallow validation and shaping, JSON over HTTP, Chalice's dispatch);
* **raw**: the ``dynamodb`` client's ``Query`` on GSI1 with the same key condition, ``Limit``
  and order, nothing else.

It checks both returned the same transaction ids, then prints median and p90 per path and
the ratio of the medians (``--json`` for one JSON object). The ratio is the app's overhead
per page; both sides pay the same local DynamoDB.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

PAGE = 100


@dataclass(frozen=True)
class Timing:
    median_ms: float
    p90_ms: float

    @classmethod
    def of(cls, seconds: list[float]) -> Timing:
        ordered = sorted(seconds)
        p90 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]
        return cls(round(statistics.median(ordered) * 1000, 3), round(p90 * 1000, 3))


@dataclass(frozen=True)
class BenchResult:
    rows_seeded: int
    page_size: int
    repeats: int
    api: Timing
    raw: Timing

    @property
    def ratio(self) -> float:
        return self.api.median_ms / self.raw.median_ms if self.raw.median_ms else float("inf")

    def as_json(self) -> dict[str, Any]:
        return {**asdict(self), "ratio": round(self.ratio, 2)}


def seed(user_id: str, count: int) -> None:
    """``count`` transactions on consecutive days, as the refiner writes them."""
    from chalicelib.data import transactions
    from chalicelib.data.transactions import Transaction

    now = datetime.now(UTC)
    rows = (
        transactions.transaction_item(
            Transaction(
                user_id=user_id,
                acct_id="acct-bench",
                txn_id=f"txn-{n:06d}-{uuid.uuid4().hex[:8]}",
                amount=100 + n,
                txn_date=date(2026, 1, 1) + timedelta(days=n % 365),
                name=f"Merchant {n}",
                category_id="13005043",
                category=("Food and Drink", "Coffee Shop"),
                iso_currency_code="USD",
            ),
            now,
        )
        for n in range(count)
    )
    transactions.put_transaction_items(rows)


def _timed(action: Callable[[], list[str]]) -> tuple[float, list[str]]:
    started = time.perf_counter()
    ids = action()
    return time.perf_counter() - started, ids


def measure(repeats: int = 50, rows: int = 300) -> BenchResult:
    """Seed, serve, warm up, then time both paths alternately ``repeats`` times each."""
    import boto3
    import requests

    from chalicelib.api.jwks import reset_jwks
    from chalicelib.data import keys
    from chalicelib.infra.bootstrap import bootstrap
    from chalicelib.settings import get_settings, reset_settings
    from ops.app_server import serve_app
    from ops.fakes.auth0 import FakeAuth0
    from ops.local_aws import apply_local_env, local_aws

    apply_local_env()
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
    os.environ.setdefault("POWERTOOLS_METRICS_NAMESPACE", "txn")
    with local_aws(), FakeAuth0() as issuer, environment(issuer.env()):
        reset_settings()
        reset_jwks()
        bootstrap()
        user_id = f"bench-{uuid.uuid4().hex[:10]}"
        seed(user_id, rows)
        settings = get_settings()
        client = boto3.client("dynamodb", endpoint_url=settings.aws_endpoint_url, region_name=settings.region)
        session = requests.Session()
        session.headers["Authorization"] = f"Bearer {issuer.user_token(user_id)}"
        with serve_app() as base_url:
            url = f"{base_url}/v1/users/{user_id}/transactions"

            def through_api() -> list[str]:
                response = session.get(url, params={"limit": PAGE}, timeout=30)
                response.raise_for_status()
                return [t["txn_id"] for t in response.json()["transactions"]]

            def raw_query() -> list[str]:
                response = client.query(
                    TableName=settings.transactions_table,
                    IndexName="GSI1",
                    KeyConditionExpression="GSI1PK = :pk AND begins_with(GSI1SK, :date)",
                    ExpressionAttributeValues={
                        ":pk": {"S": keys.user_transactions_pk(user_id)},
                        ":date": {"S": keys.DATE_PREFIX},
                    },
                    ScanIndexForward=False,
                    Limit=PAGE,
                )
                return [item["txn_id"]["S"] for item in response["Items"]]

            for _ in range(3):  # warm up: JWKS fetch, connections, imports
                api_ids, raw_ids = through_api(), raw_query()
            if api_ids != raw_ids or len(api_ids) != PAGE:
                raise RuntimeError("the two paths did not return the same page")
            api_times: list[float] = []
            raw_times: list[float] = []
            for _ in range(repeats):
                api_times.append(_timed(through_api)[0])
                raw_times.append(_timed(raw_query)[0])
    reset_settings()
    reset_jwks()
    return BenchResult(rows, PAGE, repeats, Timing.of(api_times), Timing.of(raw_times))


@contextmanager
def environment(updates: dict[str, str]) -> Iterator[None]:
    """``updates`` in the environment for the block only (the bench may run inside a test session)."""
    saved = {key: os.environ.get(key) for key in updates}
    os.environ.update(updates)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m ops.bench_api", description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--rows", type=int, default=300, help="transactions seeded (at least 100)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.rows < PAGE or args.repeats < 1:
        parser.error(f"--rows must be at least {PAGE} and --repeats at least 1")
    result = measure(args.repeats, args.rows)
    if args.json:
        print(json.dumps(result.as_json()))
        return
    print(f"{PAGE}-row transactions page, {result.repeats} runs each, same local DynamoDB endpoint")
    print(f"  through the app (HTTP): median {result.api.median_ms:8.2f} ms   p90 {result.api.p90_ms:8.2f} ms")
    print(f"  raw boto3 Query:        median {result.raw.median_ms:8.2f} ms   p90 {result.raw.p90_ms:8.2f} ms")
    print(f"  ratio (app / raw, medians): {result.ratio:.2f}x")


if __name__ == "__main__":
    main()
