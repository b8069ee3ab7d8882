"""The routing table: every route and event handler of the service, each delegating to chalicelib."""

from __future__ import annotations

from typing import Any

from chalice import Chalice, ConvertToMiddleware, Cron, Response
from chalice.app import CloudWatchEvent, DynamoDBEvent, KinesisEvent, Request, SQSEvent

from chalicelib.api.errors import http_errors
from chalicelib.api.routes import accounts as account_routes
from chalicelib.api.routes import income as income_routes
from chalicelib.api.routes import items as item_routes
from chalicelib.api.routes import payday as payday_routes
from chalicelib.api.routes import reference as reference_routes
from chalicelib.api.routes import savings as savings_routes
from chalicelib.api.routes import transactions as transaction_routes
from chalicelib.infra.consumers import dynamodb_stream_consumer, kinesis_consumer, sqs_consumer
from chalicelib.insight import balance_tracker
from chalicelib.observability import logger, metrics
from chalicelib.pipeline import feeder, institution_sync, intake, listener, miner, refiner, throttle_miner
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


# --- item lifecycle: feeder, listener, institution sync --------------------------------


@dynamodb_stream_consumer(app, "feed_transactions_table")
def feed_transactions_table(event: DynamoDBEvent) -> dict[str, Any]:
    return feeder.handle_transactions_stream(event.to_dict())


@dynamodb_stream_consumer(app, "feed_plaid_table")
def feed_plaid_table(event: DynamoDBEvent) -> dict[str, Any]:
    return feeder.handle_plaid_stream(event.to_dict())


@sqs_consumer(app, "listen_auth0")
def listen_auth0(event: SQSEvent) -> dict[str, Any]:
    return listener.handle_sqs_event(event.to_dict())


@app.schedule(Cron(0, 0, "?", "*", "SAT", "*"), name="sync_institutions")
def sync_institutions(event: CloudWatchEvent) -> dict[str, Any]:
    return institution_sync.run_scheduled(event.to_dict())


# --- REST API (contract: chalicelib/api/openapi.yaml; logic: chalicelib/api/routes) ------


@app.route("/v1/openapi.yaml", methods=["GET"])
@http_errors
def openapi_document() -> Response:
    return reference_routes.openapi_document(current_request())


@app.route("/v1/users/{user_id}/transactions", methods=["GET"])
@http_errors
def list_transactions(user_id: str) -> Response:
    return transaction_routes.list_transactions(current_request())


@app.route("/v1/users/{user_id}/transactions/summary", methods=["GET"])
@http_errors
def transaction_summary(user_id: str) -> Response:
    return transaction_routes.get_summary(current_request())


@app.route("/v1/users/{user_id}/transactions/{txn_id}", methods=["GET"])
@http_errors
def get_transaction(user_id: str, txn_id: str) -> Response:
    return transaction_routes.get_transaction(current_request())


@app.route("/v1/users/{user_id}/accounts", methods=["GET"])
@http_errors
def list_accounts(user_id: str) -> Response:
    return account_routes.list_accounts(current_request())


@app.route("/v1/users/{user_id}/accounts/refresh", methods=["POST"])
@http_errors
def refresh_accounts(user_id: str) -> Response:
    return account_routes.refresh(current_request())


@app.route("/v1/users/{user_id}/accounts/{account_id}/balances", methods=["GET"])
@http_errors
def balance_history(user_id: str, account_id: str) -> Response:
    return account_routes.balance_history(current_request())


@app.route("/v1/users/{user_id}/balances/qa-seed", methods=["POST"])
@http_errors
def qa_seed_balances(user_id: str) -> Response:
    return account_routes.qa_seed(current_request())


@app.route("/v1/users/{user_id}/items", methods=["GET"])
@http_errors
def list_items(user_id: str) -> Response:
    return item_routes.list_items(current_request())


@app.route("/v1/users/{user_id}/items", methods=["POST"])
@http_errors
def add_item(user_id: str) -> Response:
    return item_routes.add_item(current_request())


@app.route("/v1/users/{user_id}/link-token", methods=["POST"])
@http_errors
def create_link_token(user_id: str) -> Response:
    return item_routes.create_link_token(current_request())


@app.route("/v1/users/{user_id}/layer/session", methods=["POST"])
@http_errors
def start_layer_session(user_id: str) -> Response:
    return item_routes.start_layer(current_request())


@app.route("/v1/users/{user_id}/layer/results", methods=["POST"])
@http_errors
def store_layer_results(user_id: str) -> Response:
    return item_routes.layer_results(current_request())


@app.route("/v1/users/{user_id}/layer/items", methods=["POST"])
@http_errors
def create_layer_items(user_id: str) -> Response:
    return item_routes.layer_items(current_request())


@app.route("/v1/users/{user_id}/items/history", methods=["GET"])
@http_errors
def item_history(user_id: str) -> Response:
    return item_routes.item_history(current_request())


@app.route("/v1/users/{user_id}/account-changes/check", methods=["GET"])
@http_errors
def account_change_check(user_id: str) -> Response:
    return item_routes.change_check(current_request())


@app.route("/v1/users/{user_id}/items/{item_id}", methods=["DELETE"])
@http_errors
def remove_item(user_id: str, item_id: str) -> Response:
    return item_routes.remove_item(current_request())


@app.route("/v1/users/{user_id}/items/{item_id}/persist", methods=["POST"])
@http_errors
def persist_item(user_id: str, item_id: str) -> Response:
    return item_routes.persist(current_request())


@app.route("/v1/users/{user_id}/items/{item_id}/remine", methods=["POST"])
@http_errors
def remine_item(user_id: str, item_id: str) -> Response:
    return item_routes.remine(current_request())


@app.route("/v1/users/{user_id}/items/{item_id}/main-account", methods=["PUT"])
@http_errors
def change_main_account(user_id: str, item_id: str) -> Response:
    return item_routes.change_main_account(current_request())


@app.route("/v1/users/{user_id}/liabilities", methods=["GET"])
@http_errors
def current_liabilities(user_id: str) -> Response:
    return reference_routes.current_liabilities(current_request())


@app.route("/v1/users/{user_id}/liabilities/history", methods=["GET"])
@http_errors
def liability_history(user_id: str) -> Response:
    return reference_routes.liability_history(current_request())


@app.route("/v1/users/{user_id}/identity-verification", methods=["GET"])
@http_errors
def latest_identity_verification(user_id: str) -> Response:
    return reference_routes.latest_identity_verification(current_request())


@app.route("/v1/users/{user_id}/identity-verification", methods=["POST"])
@http_errors
def start_identity_verification(user_id: str) -> Response:
    return reference_routes.start_identity_verification(current_request())


@app.route("/v1/categories", methods=["GET"])
@http_errors
def list_categories() -> Response:
    return reference_routes.list_categories(current_request())


@app.route("/v1/institutions/{institution_id}", methods=["GET"])
@http_errors
def get_institution(institution_id: str) -> Response:
    return reference_routes.get_institution(current_request())


# --- insight (logic: chalicelib/api/routes, chalicelib/insight) ---------------------------


@app.route("/v1/users/{user_id}/payday", methods=["GET"])
@http_errors
def get_payday(user_id: str) -> Response:
    return payday_routes.get_payday(current_request())


@app.route("/v1/users/{user_id}/income/detect", methods=["POST"])
@http_errors
def detect_income(user_id: str) -> Response:
    return income_routes.detect_income(current_request())


@app.route("/v1/users/{user_id}/income/verification", methods=["GET"])
@http_errors
def get_income_verification(user_id: str) -> Response:
    return income_routes.get_verification(current_request())


@app.route("/v1/users/{user_id}/income/verification", methods=["POST"])
@http_errors
def submit_income_verification(user_id: str) -> Response:
    return income_routes.submit_verification(current_request())


@app.route("/v1/users/{user_id}/income/verification/review", methods=["POST"])
@http_errors
def review_income_verification(user_id: str) -> Response:
    return income_routes.review_verification(current_request())


@app.route("/v1/users/{user_id}/savings", methods=["GET"])
@http_errors
def get_savings(user_id: str) -> Response:
    return savings_routes.get_savings(current_request())


@sqs_consumer(app, "track_balances")
def track_balances(event: SQSEvent) -> dict[str, Any]:
    return balance_tracker.handle_balance_updates(event.to_dict()["Records"])
