"""``make bench``: the pipeline's figures, each against a baseline measured in the same run.

1. DynamoDB write requests per 1,000 refined transactions, against writing one PutItem per row,
   and what live monthly summaries add: the same transactions refined with summaries off and on
   (write requests and write units), new, re-delivered unchanged, modified, then removed.
2. Refiner throughput (transactions/s, everything a record costs) against raw BatchWriteItem
   throughput of the same rows on the same endpoint.
3. CPU per 500-transaction Plaid page on the hot path against the SDK's default path
   (:mod:`ops.bench_plaid`).
4. Cold start of ``import app`` and of the first webhook and the first Kinesis batch, in fresh
   interpreters, against importing chalice and boto3 alone (:mod:`ops.bench_cold_start`).
5. Latency of a 100-row transactions page through the app against a raw Query (:mod:`ops.bench_api`).
6. DynamoDB requests per 1,000 transactions mined end to end by ``/transactions/get`` and by
   ``/transactions/sync`` (:mod:`ops.bench_sync`).
7. CPU of reading a 360-row history response with the service's DynamoDB reading against
   boto3's own (:mod:`ops.bench_dynamodb_parse`).
Then the insight models against ground truth, each next to a plain baseline: payday beside the
plain schedule fit and the schedule oracle (:mod:`ops.bench_payday`) and recurring expenses
beside the plain reference (:mod:`ops.bench_recurring`); income
detection's methods and model (:mod:`ops.bench_income`); and the cash-flow forecast's backtest
on both synthetic worlds (:mod:`ops.bench_forecast`).

Absolute numbers depend on the machine and on moto; the ratios are what to compare.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ops import bench_forecast, bench_income, bench_payday, bench_recurring
from ops.local_aws import apply_local_env, local_aws

ROOT = Path(__file__).resolve().parent.parent
TRANSACTIONS = 1000
WRITE_OPERATIONS = ("PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems")


@contextmanager
def counted_requests() -> Iterator[Counter[str]]:
    """Count every DynamoDB request the service's clients send while the block runs."""
    from chalicelib.aws.clients import dynamodb_hook

    counts: Counter[str] = Counter()

    def count(model: Any, **_: Any) -> None:
        counts[model.name] += 1

    with dynamodb_hook("before-call.dynamodb", count):
        yield counts


def _records(
    user_id: str, count: int, id_prefix: str = "", cents_more: int = 0, removed: bool = False, days: int = 100
) -> list[Any]:
    """Kinesis records of ``count`` fake-Plaid transactions, in pages of 500.

    ``id_prefix`` makes the same data anew; ``cents_more`` modifies every amount; ``removed``
    makes the records Plaid's removals of those transactions instead.
    """
    from chalicelib.pipeline.messages import PageRecord, encode_page_record
    from chalicelib.pipeline.refiner import KinesisInput
    from ops.fakes.plaid.generate import build_accounts, build_transactions, seeded

    rng = seeded(7)
    by_role = build_accounts(rng, loans=False)
    accounts = list(by_role.values())
    roles = {role: str(a["account_id"]) for role, a in by_role.items()}
    txns = build_transactions(rng, roles, count=count, history_days=days, today=datetime.now(UTC).date())
    for txn in txns:
        txn["amount"] = round(txn["amount"] + cents_more / 100, 2)
        for field in ("transaction_id", "pending_transaction_id"):
            if txn.get(field):
                txn[field] = id_prefix + txn[field]
    pages = [txns[i : i + 500] for i in range(0, len(txns), 500)]
    records: list[KinesisInput] = []
    for n, page in enumerate(pages):
        response = {"accounts": accounts, "transactions": page, "total_transactions": len(txns), "item": {}}
        record = PageRecord(user_id, "bench-item", "bench-mine", n == len(pages) - 1, response)
        if removed:
            record = PageRecord(user_id, "bench-item", "bench-mine", True, None, [t["transaction_id"] for t in page])
        records += [KinesisInput(str(len(records) + 1), data) for data in encode_page_record(record)]
    return records


def bench_refiner() -> dict[str, float]:
    from chalicelib.data import tables
    from chalicelib.data.batch import batch_write
    from chalicelib.pipeline.refiner import refine_records
    from ops.demo import refined_rows

    user_id = f"bench-{time.time_ns()}"
    records = _records(user_id, TRANSACTIONS)
    now = datetime.now(UTC)
    with counted_requests() as counts:
        started = time.perf_counter()
        result = refine_records(records, now=now)
        refine_seconds = time.perf_counter() - started
    if result["batchItemFailures"]:
        raise RuntimeError(f"refiner failed: {result}")
    writes = sum(counts[op] for op in WRITE_OPERATIONS)

    # The rows the refiner wrote, as a baseline: one PutItem each, and raw BatchWriteItem.
    table = tables.transactions()
    rows = refined_rows(user_id)
    started = time.perf_counter()
    batch_write({table.name: [{"PutRequest": {"Item": r}} for r in rows]})
    raw_seconds = time.perf_counter() - started
    return {
        "transactions": TRANSACTIONS,
        "rows": len(rows),
        "write_requests": writes,
        "read_requests": counts["BatchGetItem"] + counts["GetItem"] + counts["Query"],
        "baseline_put_items": len(rows),
        "refiner_rows_per_second": len(rows) / refine_seconds,
        "raw_rows_per_second": len(rows) / raw_seconds,
    }


def bench_cold_starts() -> Any:
    from ops.bench_cold_start import measure
    from ops.fakes.plaid import FakePlaid

    with FakePlaid() as plaid:
        return measure(plaid, runs=5, env={"PLAID_BASE_URL": plaid.url})


def _metered_refine(records: list[Any], now: datetime) -> tuple[int, float]:
    """Write requests and write units (base and GSI, ops.capacity's arithmetic) of one refine."""
    from chalicelib.aws.clients import dynamodb
    from chalicelib.infra.declaration import declare
    from chalicelib.pipeline.refiner import refine_records
    from ops.capacity.measure import side_client, table_specs
    from ops.capacity.meter import Meter

    meter = Meter(table_specs(declare()), side_client())
    meter.phase = "bench"
    meter.attach([dynamodb().meta.client])
    try:
        with meter.acting_as("refiner") as usage:
            result = refine_records(records, now=now)
    finally:
        meter.detach()
    if result["batchItemFailures"] or usage is None:
        raise RuntimeError(f"refiner failed: {result}")
    requests = sum(usage.requests[f"dynamodb.{op}"] for op in WRITE_OPERATIONS)
    return requests, float(sum(usage.write_units.values()))


#: What bench_summaries does to the same transactions, in order.
SUMMARY_STEPS = ("new", "unchanged", "modified", "removed")
#: Half of section 1's transactions over half its days: the same density (the figures are per
#: 1,000), in half the time the capacity meter's before and after reads take on moto.
SUMMARY_TRANSACTIONS, SUMMARY_DAYS = TRANSACTIONS // 2, 50


def bench_summaries() -> dict[str, tuple[int, float]]:
    """The same transactions with summaries off, then on (fresh users): new, re-delivered
    unchanged, every amount modified, every transaction removed."""
    import os

    from chalicelib.settings import reset_settings

    now = datetime.now(UTC)
    figures: dict[str, tuple[int, float]] = {}
    previous = os.environ.get("SUMMARIES_ENABLED")
    try:
        for mode in ("off", "on"):
            os.environ["SUMMARIES_ENABLED"] = "true" if mode == "on" else "false"
            reset_settings()
            run = f"{mode}{time.time_ns()}"
            user = f"bench-{run}"
            count, days = SUMMARY_TRANSACTIONS, SUMMARY_DAYS
            records = _records(user, count, id_prefix=run, days=days)
            figures[f"new, summaries {mode}"] = _metered_refine(records, now)
            figures[f"unchanged, summaries {mode}"] = _metered_refine(records, now)
            modified = _records(user, count, id_prefix=run, cents_more=1, days=days)
            figures[f"modified, summaries {mode}"] = _metered_refine(modified, now)
            removals = _records(user, count, id_prefix=run, removed=True, days=days)
            figures[f"removed, summaries {mode}"] = _metered_refine(removals, now)
    finally:
        if previous is None:
            os.environ.pop("SUMMARIES_ENABLED", None)
        else:
            os.environ["SUMMARIES_ENABLED"] = previous
        reset_settings()
    return figures


def main() -> int:
    apply_local_env()
    with local_aws(log_path=ROOT / ".moto.log"):
        from chalicelib.infra.bootstrap import bootstrap

        bootstrap()
        refiner = bench_refiner()
        summary_cost = bench_summaries()
        cold = bench_cold_starts()
        from ops import bench_api

        api = bench_api.measure(repeats=30, rows=300)
        from ops import bench_sync

        by_mode = bench_sync.measure()
    per_thousand = refiner["write_requests"] * 1000 / refiner["transactions"]
    baseline_per_thousand = refiner["baseline_put_items"] * 1000 / refiner["transactions"]
    print(f"1. DynamoDB write requests per 1,000 refined transactions ({refiner['rows']:.0f} rows):")
    print(f"   refiner (batched):         {per_thousand:8.1f}  (+ {refiner['read_requests']:.0f} owner reads)")
    print(f"   one PutItem per row:       {baseline_per_thousand:8.1f}")
    print(f"   ratio baseline / refiner:  {baseline_per_thousand / per_thousand:8.1f}x fewer requests")
    print("   live monthly summaries, per 1,000 transactions (write requests, write units incl. GSIs):")
    for state in SUMMARY_STEPS:
        (off_requests, off_units), (on_requests, on_units) = (
            summary_cost[f"{state}, summaries off"],
            summary_cost[f"{state}, summaries on"],
        )
        scale = 1000 / SUMMARY_TRANSACTIONS
        print(
            f"   {state:>9}: off {off_requests * scale:6.0f} req {off_units * scale:7.0f} WU"
            f" | on {on_requests * scale:6.0f} req {on_units * scale:7.0f} WU"
            f" | summaries add {(on_requests - off_requests) * scale:+5.0f} req"
            f" ({on_requests / off_requests - 1:+.0%}), {(on_units - off_units) * scale:+6.0f} WU"
            f" ({on_units / off_units - 1:+.0%})"
        )
    print("2. Rows written per second on this endpoint (the same rows):")
    print(
        f"   refiner, end to end:       {refiner['refiner_rows_per_second']:8.0f}  (decode, refine, owner check, write)"
    )
    print(f"   raw BatchWriteItem:        {refiner['raw_rows_per_second']:8.0f}")
    print(f"   ratio refiner / raw:       {refiner['refiner_rows_per_second'] / refiner['raw_rows_per_second']:8.2f}")

    from ops import bench_plaid

    page = bench_plaid.measure()
    print(f"3. CPU per {page.transactions}-transaction Plaid page:")
    print(f"   hot path (raw + marshmallow): {page.hot_path_cpu:.3f} s")
    print(f"   SDK default path:             {page.sdk_path_cpu:.3f} s")
    print(f"   ratio SDK / hot path:         {page.ratio:.1f}x")

    print(f"4. Cold start, median of {cold.runs} fresh interpreters each (ratio to the base import):")
    for line in cold.lines():
        print(line)
    print(f"5. A {api.page_size}-row transactions page, median of {api.repeats} (ops.bench_api):")
    print(f"   through the app over HTTP:  {api.api.median_ms:8.2f} ms")
    print(f"   raw DynamoDB Query:         {api.raw.median_ms:8.2f} ms")
    print(f"   ratio app / raw:            {api.ratio:8.2f}x")
    for line in bench_sync.report(*by_mode):
        print(line)
    from ops import bench_dynamodb_parse

    print("7.", "\n".join(bench_dynamodb_parse.report()))
    bench_payday.main()
    bench_recurring.main()
    bench_income.main()
    bench_forecast.main()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
