"""The routing table: every route and event handler of the service, each delegating to chalicelib."""

from __future__ import annotations

from typing import Any

from chalice import Chalice, ConvertToMiddleware
from chalice.app import KinesisEvent, Request, SQSEvent

from chalicelib.api.errors import http_errors
from chalicelib.infra.consumers import kinesis_consumer, sqs_consumer
from chalicelib.observability import logger, metrics
from chalicelib.pipeline import intake, miner, refiner, throttle_miner
from chalicelib.pipeline.batches import process_sqs

app = Chalice(app_name="txn", configure_logs=False)
app.register_middleware(ConvertToMiddleware(logger.inject_lambda_context))
app.register_middleware(ConvertToMiddleware(metrics.log_metrics))


def current_request() -> Request:
    if app.current_request is None:  # only outside a request, which Chalice never does
        raise RuntimeError("no current request")
    return app.current_request


# --- HTTP -----------------------------------------------------------------------------


@app.route("/health", methods=["GET"])
def health() -> dict[str, Any]:
    return {"status": "ok"}


@app.route("/v1/plaid", methods=["POST"], content_types=["application/json", "text/plain"])
@http_errors
def plaid_webhook() -> dict[str, Any]:
    request = current_request()
    return intake.accept_webhook(request.raw_body, request.headers)


# --- pipeline -------------------------------------------------------------------------


@sqs_consumer(app, "mine_webhooks")
def mine_webhooks(event: SQSEvent) -> dict[str, Any]:
    return process_sqs(event.to_dict()["Records"], miner.handle_webhook_body, consumer="miner")


@sqs_consumer(app, "mine_throttled")
def mine_throttled(event: SQSEvent) -> dict[str, Any]:
    return process_sqs(event.to_dict()["Records"], throttle_miner.handle_mine_request_body, consumer="throttle_miner")


@kinesis_consumer(app, "refine_transactions")
def refine_transactions(event: KinesisEvent) -> dict[str, Any]:
    return refiner.handle_kinesis_event(event.to_dict())
