"""Cold start: each Lambda path loads only what it needs, checked in fresh interpreters.

Every Lambda function imports ``app.py``; the handlers import their own modules when they
first run. These tests import ``app``, then serve one webhook, or one Kinesis batch, in a
new interpreter (:mod:`ops.cold_start_probe`) and assert which heavy modules were loaded.
The timings are ``make bench``'s, never asserted here.
"""

from __future__ import annotations

import pytest

from ops.bench_cold_start import kinesis_event, run_probe, webhook_event
from ops.fakes.plaid import FakePlaid

pytestmark = pytest.mark.integration

#: Loaded by no Lambda at import: every one of these belongs to some handler's path.
HEAVY = (
    "boto3",
    "marshmallow",
    "jwt",
    "cryptography",
    "plaid",
    "requests",
    "chalicelib.api",
    "chalicelib.aws",
    "chalicelib.data",
    "chalicelib.pipeline",
    "chalicelib.plaid",
    "chalicelib.peers",
    "chalicelib.events",
)
#: The REST API's own modules: request/response schemas, auth, route logic.
API = ("chalicelib.api.requests", "chalicelib.api.responses", "chalicelib.api.auth", "chalicelib.api.routes")
#: The data layer's read paths (queries, pagination) and the modules of other entities.
DATA_READS = ("chalicelib.data.query", "chalicelib.data.transactions", "chalicelib.data.items", "chalicelib.data.keys")


def test_importing_the_app_loads_no_handler_module() -> None:
    # WHEN a fresh interpreter imports the routing table
    report = run_probe("import")
    # THEN nothing any single handler needs was loaded with it
    assert [name for name in HEAVY if report.loaded(name)] == []


def test_the_webhook_route_loads_neither_the_api_nor_the_plaid_sdk_nor_data_reads(
    fake_plaid: FakePlaid, aws_endpoint: str
) -> None:
    # GIVEN a webhook Plaid signed, and a cold key cache
    item = fake_plaid.create_item(transaction_count=5, loans=False)
    # WHEN a fresh interpreter imports the app and serves it
    report = run_probe("call", "app", webhook_event(fake_plaid, item.item_id))
    # THEN it was verified (Plaid's key fetched) and queued
    assert report.result["statusCode"] == 200, report.result
    assert '"queued"' in report.result["body"]
    assert report.loaded("jwt") and report.loaded("chalicelib.pipeline.intake")
    # AND the API's schemas, the Plaid SDK and the data layer's read paths were never imported
    assert [name for name in (*API, "plaid", *DATA_READS) if report.loaded(name)] == []


def test_the_refiner_loads_neither_pyjwt_nor_the_api(fake_plaid: FakePlaid, aws_endpoint: str, user_id: str) -> None:
    # GIVEN one Kinesis batch holding a page of transactions
    event = kinesis_event(fake_plaid, user_id)
    # WHEN a fresh interpreter imports the app and refines it
    report = run_probe("call", "refine_transactions", event)
    # THEN every record was applied
    assert report.result == {"batchItemFailures": []}
    assert report.loaded("chalicelib.pipeline.refiner") and report.loaded("chalicelib.data.transactions")
    # AND neither PyJWT, the API, the Plaid SDK nor the peers were imported
    assert [name for name in ("jwt", "chalicelib.api", "plaid", "chalicelib.peers") if report.loaded(name)] == []
