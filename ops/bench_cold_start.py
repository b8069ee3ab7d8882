"""Cold starts of the two hottest Lambda paths, each in a fresh interpreter.

* **webhook**: a Plaid-signed ``POST /v1/plaid`` through the Chalice app, as API Gateway's
  proxy event (verify, fetch Plaid's key on the cache miss, queue);
* **refiner**: one Kinesis batch holding one page of transactions through
  ``refine_transactions`` (decode, refine, write rows, publish).

Each run is a new interpreter (:mod:`ops.cold_start_probe`) that times ``import app`` and
the handler's first call and reports every module loaded. ``make bench`` prints the times
as ratios against ``import chalice.app, boto3`` in the same kind of interpreter; the tests
(``tests/e2e/test_cold_start.py``) assert which heavy modules each path loads.
Needs a local AWS with the declared resources and a fake Plaid the settings point at.
"""

from __future__ import annotations

import base64
import json
import os
import statistics
import subprocess
import sys
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from chalicelib import clock
from chalicelib.pipeline.messages import PageRecord, encode_page_record
from ops.fakes.plaid import FakePlaid

ROOT = Path(__file__).resolve().parent.parent
PAGE_TRANSACTIONS = 100


@dataclass(frozen=True)
class ProbeReport:
    """What one fresh interpreter measured and loaded."""

    import_seconds: float
    call_seconds: float = 0.0
    result: Any = None
    modules: frozenset[str] = field(default_factory=frozenset)

    def loaded(self, name: str) -> bool:
        """Whether module ``name`` (or any submodule of it) was imported."""
        return any(m == name or m.startswith(f"{name}.") for m in self.modules)


def run_probe(
    mode: str, handler: str | None = None, event: Any = None, env: dict[str, str] | None = None
) -> ProbeReport:
    """One fresh interpreter in ``mode`` ``baseline``, ``import`` or ``call`` (``handler`` with ``event``)."""
    # The probe's clock runs on from this process's: a token signed here is never "from the future" there.
    request = json.dumps({"mode": mode, "handler": handler, "event": event, "now": clock.epoch_seconds()})
    completed = subprocess.run(
        [sys.executable, "-m", "ops.cold_start_probe"],
        input=request,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        check=False,
        timeout=120,
    )
    if completed.returncode != 0:
        raise RuntimeError(f"cold-start probe failed:\n{completed.stderr}")
    # The handler may log to stdout; the probe's report is its last line.
    report = json.loads(completed.stdout.strip().splitlines()[-1])
    return ProbeReport(
        import_seconds=report["import_seconds"],
        call_seconds=report.get("call_seconds", 0.0),
        result=report.get("result"),
        modules=frozenset(report.get("modules", ())),
    )


def webhook_event(plaid: FakePlaid, item_id: str) -> dict[str, Any]:
    """API Gateway's proxy event for a DEFAULT_UPDATE webhook Plaid signed just now."""
    payload = {
        "webhook_type": "TRANSACTIONS",
        "webhook_code": "DEFAULT_UPDATE",
        "item_id": item_id,
        "new_transactions": 1,
        "environment": "sandbox",
    }
    body, header = plaid.sign_webhook(payload)
    headers = {"Content-Type": "application/json", "Plaid-Verification": header}
    return {
        "resource": "/v1/plaid",
        "path": "/v1/plaid",
        "httpMethod": "POST",
        "headers": headers,
        "multiValueHeaders": {k: [v] for k, v in headers.items()},
        "queryStringParameters": None,
        "multiValueQueryStringParameters": None,
        "pathParameters": None,
        "stageVariables": None,
        "requestContext": {
            "resourcePath": "/v1/plaid",
            "httpMethod": "POST",
            "path": "/api/v1/plaid",
            "stage": "api",
            "requestId": str(uuid.uuid4()),
        },
        "body": body.decode(),
        "isBase64Encoded": False,
    }


def kinesis_event(plaid: FakePlaid, user_id: str) -> dict[str, Any]:
    """Kinesis' event for one batch: one page of a fake item's transactions, as the miner writes it."""
    item = plaid.create_item(transaction_count=PAGE_TRANSACTIONS, loans=False)
    response = {
        "accounts": item.accounts_json(),
        "transactions": item.transactions[:PAGE_TRANSACTIONS],
        "total_transactions": PAGE_TRANSACTIONS,
        "item": item.item_json(),
    }
    record = PageRecord(user_id, item.item_id, f"mine-{uuid.uuid4().hex[:12]}", True, response)
    arrival = datetime.now(UTC).timestamp()
    records = []
    for n, data in enumerate(encode_page_record(record), start=1):
        sequence = f"{49_000_000_000_000_000_000 + n}"
        records.append(
            {
                "kinesis": {
                    "kinesisSchemaVersion": "1.0",
                    "partitionKey": item.item_id,
                    "sequenceNumber": sequence,
                    "data": base64.b64encode(data).decode(),
                    "approximateArrivalTimestamp": arrival,
                },
                "eventSource": "aws:kinesis",
                "eventVersion": "1.0",
                "eventID": f"shardId-000000000000:{sequence}",
                "eventName": "aws:kinesis:record",
                "awsRegion": "us-east-1",
                "eventSourceARN": "arn:aws:kinesis:us-east-1:123456789012:stream/txn-dev-plaid-transactions",
            }
        )
    return {"Records": records}


@dataclass(frozen=True)
class ColdStarts:
    """Medians of ``runs`` fresh interpreters, in seconds."""

    runs: int
    baseline_import: float
    app_import: float
    webhook_first_call: float
    refiner_first_call: float

    def lines(self) -> list[str]:
        base = self.baseline_import

        def row(label: str, seconds: float) -> str:
            return f"   {label:<34}{seconds:7.3f} s  {seconds / base:5.2f}x"

        return [
            row("import chalice.app, boto3 (base):", base),
            row("import app:", self.app_import),
            row("webhook: import app + first call:", self.app_import + self.webhook_first_call),
            row("refiner: import app + first batch:", self.app_import + self.refiner_first_call),
        ]


def measure(plaid: FakePlaid, runs: int = 5, env: dict[str, str] | None = None) -> ColdStarts:
    """Median cold starts of ``runs`` fresh interpreters per figure (``plaid``: the fake the settings name)."""
    item = plaid.create_item(transaction_count=5, loans=False)
    baseline = [run_probe("baseline", env=env).import_seconds for _ in range(runs)]
    imports = [run_probe("import", env=env).import_seconds for _ in range(runs)]
    webhooks = [run_probe("call", "app", webhook_event(plaid, item.item_id), env) for _ in range(runs)]
    batches = [run_probe("call", "refine_transactions", kinesis_event(plaid, "bench-cold"), env) for _ in range(runs)]
    # A failed call is not a cold start worth timing (no local AWS, settings not on the fake).
    if failed := [r.result for r in webhooks if r.result.get("statusCode") != 200]:
        raise RuntimeError(f"the webhook was not accepted: {failed[0]}")
    if failed := [r.result for r in batches if r.result != {"batchItemFailures": []}]:
        raise RuntimeError(f"the batch was not refined: {failed[0]}")
    return ColdStarts(
        runs=runs,
        baseline_import=statistics.median(baseline),
        app_import=statistics.median(imports),
        webhook_first_call=statistics.median(r.call_seconds for r in webhooks),
        refiner_first_call=statistics.median(r.call_seconds for r in batches),
    )
