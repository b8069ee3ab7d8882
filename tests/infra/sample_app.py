"""A test-only Chalice app that registers every declared consumer through the project's decorators.

The real ``app.py`` grows consumer by consumer; this one always holds the full set, so the
renderer's overrides are tested for SQS, Kinesis and DynamoDB streams whatever app.py has.
It is also copied as ``app.py`` into a throwaway project that ``ops.package`` packages.
"""

from __future__ import annotations

from typing import Any

from chalice import Chalice, Cron

from chalicelib.infra.consumers import dynamodb_stream_consumer, kinesis_consumer, sqs_consumer

app = Chalice(app_name="txn", configure_logs=False)


@app.route("/health", methods=["GET"])
def health() -> dict[str, Any]:
    return {"status": "ok"}


@sqs_consumer(app, "mine_webhooks")
def mine_webhooks(event: Any) -> dict[str, Any]:
    return {"batchItemFailures": []}


@sqs_consumer(app, "mine_throttled")
def mine_throttled(event: Any) -> dict[str, Any]:
    return {"batchItemFailures": []}


@sqs_consumer(app, "listen_auth0")
def listen_auth0(event: Any) -> dict[str, Any]:
    return {"batchItemFailures": []}


@sqs_consumer(app, "track_balances")
def track_balances(event: Any) -> dict[str, Any]:
    return {"batchItemFailures": []}


@sqs_consumer(app, "feed_pave")
def feed_pave(event: Any) -> dict[str, Any]:
    return {"batchItemFailures": []}


@sqs_consumer(app, "feed_pave_removals")
def feed_pave_removals(event: Any) -> dict[str, Any]:
    return {"batchItemFailures": []}


@sqs_consumer(app, "mine_pave")
def mine_pave(event: Any) -> dict[str, Any]:
    return {"batchItemFailures": []}


@kinesis_consumer(app, "refine_transactions")
def refine_transactions(event: Any) -> dict[str, Any]:
    return {"batchItemFailures": []}


@dynamodb_stream_consumer(app, "feed_transactions_table")
def feed_transactions_table(event: Any) -> dict[str, Any]:
    return {"batchItemFailures": []}


@dynamodb_stream_consumer(app, "feed_plaid_table")
def feed_plaid_table(event: Any) -> dict[str, Any]:
    return {"batchItemFailures": []}


@app.schedule(Cron(0, 0, "?", "*", "SAT", "*"), name="sync_institutions")
def sync_institutions(event: Any) -> None:
    return None
