"""The routing table: every route and event handler of the service, each delegating to chalicelib.

Each handler imports the module it delegates to when it first runs, not here: every Lambda
function imports this file, and a function should load only what its own path needs (the
webhook route neither the API nor the Plaid SDK, the refiner neither PyJWT nor the API).
"""

from __future__ import annotations

from typing import Any

from chalice import Chalice, ConvertToMiddleware, Cron, Response
from chalice.app import CloudWatchEvent, DynamoDBEvent, KinesisEvent, SQSEvent

from chalicelib.infra.consumers import dynamodb_stream_consumer, kinesis_consumer, sqs_consumer
from chalicelib.observability import logger, metrics
from chalicelib.routing import Routes

app = Chalice(app_name="txn", configure_logs=False)
app.register_middleware(ConvertToMiddleware(logger.inject_lambda_context))
app.register_middleware(ConvertToMiddleware(metrics.log_metrics))
route = Routes(app)  # registers a view and maps what it raises to the error envelope


# --- HTTP -----------------------------------------------------------------------------


@route("/health", methods=["GET"])
def health() -> dict[str, Any]:
    return {"status": "ok"}


@route("/v1/plaid", methods=["POST"], content_types=["application/json", "text/plain"])
def plaid_webhook() -> dict[str, Any]:
    from chalicelib.pipeline import intake

    request = route.current_request
    return intake.accept_webhook(request.raw_body, request.headers)


# --- pipeline -------------------------------------------------------------------------


@sqs_consumer(app, "mine_webhooks")
def mine_webhooks(event: SQSEvent) -> dict[str, Any]:
    from chalicelib.pipeline import miner
    from chalicelib.pipeline.batches import process_sqs

    return process_sqs(event.to_dict()["Records"], miner.handle_webhook_body, consumer="miner")


@sqs_consumer(app, "mine_throttled")
def mine_throttled(event: SQSEvent) -> dict[str, Any]:
    from chalicelib.pipeline import throttle_miner
    from chalicelib.pipeline.batches import process_sqs

    return process_sqs(event.to_dict()["Records"], throttle_miner.handle_mine_request_body, consumer="throttle_miner")


@kinesis_consumer(app, "refine_transactions")
def refine_transactions(event: KinesisEvent) -> dict[str, Any]:
    from chalicelib.pipeline import refiner

    return refiner.handle_kinesis_event(event.to_dict())


# --- item lifecycle: feeder, listener, institution sync --------------------------------


@dynamodb_stream_consumer(app, "feed_transactions_table")
def feed_transactions_table(event: DynamoDBEvent) -> dict[str, Any]:
    from chalicelib.pipeline import feeder

    return feeder.handle_transactions_stream(event.to_dict())


@dynamodb_stream_consumer(app, "feed_plaid_table")
def feed_plaid_table(event: DynamoDBEvent) -> dict[str, Any]:
    from chalicelib.pipeline import feeder

    return feeder.handle_plaid_stream(event.to_dict())


@sqs_consumer(app, "listen_auth0")
def listen_auth0(event: SQSEvent) -> dict[str, Any]:
    from chalicelib.pipeline import listener

    return listener.handle_sqs_event(event.to_dict())


@app.schedule(Cron(0, 0, "?", "*", "SAT", "*"), name="sync_institutions")
def sync_institutions(event: CloudWatchEvent) -> dict[str, Any]:
    from chalicelib.pipeline import institution_sync

    return institution_sync.run_scheduled(event.to_dict())


# --- REST API (contract: chalicelib/api/openapi.yaml; logic: chalicelib/api/routes) ------


@route("/v1/openapi.yaml", methods=["GET"])
def openapi_document() -> Response:
    from chalicelib.api.routes import reference

    return reference.openapi_document(route.current_request)


@route("/v1/users/{user_id}/transactions", methods=["GET"])
def list_transactions(user_id: str) -> Response:
    from chalicelib.api.routes import transactions

    return transactions.list_transactions(route.current_request, user_id)


@route("/v1/users/{user_id}/transactions/summary", methods=["GET"])
def transaction_summary(user_id: str) -> Response:
    from chalicelib.api.routes import transactions

    return transactions.get_summary(route.current_request, user_id)


@route("/v1/users/{user_id}/transactions/{txn_id}", methods=["GET"])
def get_transaction(user_id: str, txn_id: str) -> Response:
    from chalicelib.api.routes import transactions

    return transactions.get_transaction(route.current_request, user_id, txn_id)


@route("/v1/users/{user_id}/accounts", methods=["GET"])
def list_accounts(user_id: str) -> Response:
    from chalicelib.api.routes import accounts

    return accounts.list_accounts(route.current_request, user_id)


@route("/v1/users/{user_id}/accounts/refresh", methods=["POST"])
def refresh_accounts(user_id: str) -> Response:
    from chalicelib.api.routes import accounts

    return accounts.refresh(route.current_request, user_id)


@route("/v1/users/{user_id}/accounts/{account_id}/balances", methods=["GET"])
def balance_history(user_id: str, account_id: str) -> Response:
    from chalicelib.api.routes import accounts

    return accounts.balance_history(route.current_request, user_id, account_id)


@route("/v1/users/{user_id}/balances/qa-seed", methods=["POST"])
def qa_seed_balances(user_id: str) -> Response:
    from chalicelib.api.routes import accounts

    return accounts.qa_seed(route.current_request, user_id)


@route("/v1/users/{user_id}/items", methods=["GET"])
def list_items(user_id: str) -> Response:
    from chalicelib.api.routes import items

    return items.list_items(route.current_request, user_id)


@route("/v1/users/{user_id}/items", methods=["POST"])
def add_item(user_id: str) -> Response:
    from chalicelib.api.routes import items

    return items.add_item(route.current_request, user_id)


@route("/v1/users/{user_id}/link-token", methods=["POST"])
def create_link_token(user_id: str) -> Response:
    from chalicelib.api.routes import items

    return items.create_link_token(route.current_request, user_id)


@route("/v1/users/{user_id}/layer/session", methods=["POST"])
def start_layer_session(user_id: str) -> Response:
    from chalicelib.api.routes import items

    return items.start_layer(route.current_request, user_id)


@route("/v1/users/{user_id}/layer/results", methods=["POST"])
def store_layer_results(user_id: str) -> Response:
    from chalicelib.api.routes import items

    return items.layer_results(route.current_request, user_id)


@route("/v1/users/{user_id}/layer/items", methods=["POST"])
def create_layer_items(user_id: str) -> Response:
    from chalicelib.api.routes import items

    return items.layer_items(route.current_request, user_id)


@route("/v1/users/{user_id}/items/history", methods=["GET"])
def item_history(user_id: str) -> Response:
    from chalicelib.api.routes import items

    return items.item_history(route.current_request, user_id)


@route("/v1/users/{user_id}/account-changes/check", methods=["GET"])
def account_change_check(user_id: str) -> Response:
    from chalicelib.api.routes import items

    return items.change_check(route.current_request, user_id)


@route("/v1/users/{user_id}/items/{item_id}", methods=["DELETE"])
def remove_item(user_id: str, item_id: str) -> Response:
    from chalicelib.api.routes import items

    return items.remove_item(route.current_request, user_id, item_id)


@route("/v1/users/{user_id}/items/{item_id}/persist", methods=["POST"])
def persist_item(user_id: str, item_id: str) -> Response:
    from chalicelib.api.routes import items

    return items.persist(route.current_request, user_id, item_id)


@route("/v1/users/{user_id}/items/{item_id}/remine", methods=["POST"])
def remine_item(user_id: str, item_id: str) -> Response:
    from chalicelib.api.routes import items

    return items.remine(route.current_request, user_id, item_id)


@route("/v1/users/{user_id}/items/{item_id}/mining-mode", methods=["PUT"])
def set_mining_mode(user_id: str, item_id: str) -> Response:
    from chalicelib.api.routes import items

    return items.set_mining_mode(route.current_request, user_id, item_id)


@route("/v1/users/{user_id}/items/{item_id}/main-account", methods=["PUT"])
def change_main_account(user_id: str, item_id: str) -> Response:
    from chalicelib.api.routes import items

    return items.change_main_account(route.current_request, user_id, item_id)


@route("/v1/users/{user_id}/liabilities", methods=["GET"])
def current_liabilities(user_id: str) -> Response:
    from chalicelib.api.routes import reference

    return reference.current_liabilities(route.current_request, user_id)


@route("/v1/users/{user_id}/liabilities/history", methods=["GET"])
def liability_history(user_id: str) -> Response:
    from chalicelib.api.routes import reference

    return reference.liability_history(route.current_request, user_id)


@route("/v1/users/{user_id}/identity-verification", methods=["GET"])
def latest_identity_verification(user_id: str) -> Response:
    from chalicelib.api.routes import reference

    return reference.latest_identity_verification(route.current_request, user_id)


@route("/v1/users/{user_id}/identity-verification", methods=["POST"])
def start_identity_verification(user_id: str) -> Response:
    from chalicelib.api.routes import reference

    return reference.start_identity_verification(route.current_request, user_id)


@route("/v1/categories", methods=["GET"])
def list_categories() -> Response:
    from chalicelib.api.routes import reference

    return reference.list_categories(route.current_request)


@route("/v1/institutions/{institution_id}", methods=["GET"])
def get_institution(institution_id: str) -> Response:
    from chalicelib.api.routes import reference

    return reference.get_institution(route.current_request, institution_id)


# --- insight (logic: chalicelib/api/routes, chalicelib/insight) ---------------------------


@route("/v1/users/{user_id}/payday", methods=["GET"])
def get_payday(user_id: str) -> Response:
    from chalicelib.api.routes import payday

    return payday.get_payday(route.current_request, user_id)


@route("/v1/users/{user_id}/income/detect", methods=["POST"])
def detect_income(user_id: str) -> Response:
    from chalicelib.api.routes import income

    return income.detect_income(route.current_request, user_id)


@route("/v1/users/{user_id}/income/verification", methods=["GET"])
def get_income_verification(user_id: str) -> Response:
    from chalicelib.api.routes import income

    return income.get_verification(route.current_request, user_id)


@route("/v1/users/{user_id}/income/verification", methods=["POST"])
def submit_income_verification(user_id: str) -> Response:
    from chalicelib.api.routes import income

    return income.submit_verification(route.current_request, user_id)


@route("/v1/users/{user_id}/income/verification/review", methods=["POST"])
def review_income_verification(user_id: str) -> Response:
    from chalicelib.api.routes import income

    return income.review_verification(route.current_request, user_id)


@route("/v1/users/{user_id}/savings", methods=["GET"])
def get_savings(user_id: str) -> Response:
    from chalicelib.api.routes import savings

    return savings.get_savings(route.current_request, user_id)


@route("/v1/users/{user_id}/forecast", methods=["GET"])
def get_forecast(user_id: str) -> Response:
    from chalicelib.api.routes import forecast

    return forecast.get_forecast(route.current_request, user_id)


@sqs_consumer(app, "track_balances")
def track_balances(event: SQSEvent) -> dict[str, Any]:
    from chalicelib.insight import balance_tracker

    return balance_tracker.handle_balance_updates(event.to_dict()["Records"])


@route("/v1/users/{user_id}/transactions/expenses", methods=["GET"])
def list_recurring_expenses(user_id: str) -> Response:
    from chalicelib.api.routes import pave_insights

    return pave_insights.list_recurring_expenses(route.current_request, user_id)


@route("/v1/users/{user_id}/scores/cash_advance", methods=["GET"])
def get_cash_advance_score(user_id: str) -> Response:
    from chalicelib.api.routes import pave_insights

    return pave_insights.get_cash_advance_score(route.current_request, user_id)


# --- insight: the Pave feeder and miner (chalicelib/insight/pave_feed.py, pave_miner.py) ---


@sqs_consumer(app, "feed_pave")
def feed_pave(event: SQSEvent) -> dict[str, Any]:
    from chalicelib.insight import pave_feed
    from chalicelib.insight.batches import remaining_time

    return pave_feed.handle_feed_event(event.to_dict(), remaining_ms=remaining_time(event.context))


@sqs_consumer(app, "feed_pave_removals")
def feed_pave_removals(event: SQSEvent) -> dict[str, Any]:
    from chalicelib.insight import pave_feed
    from chalicelib.insight.batches import remaining_time

    return pave_feed.handle_removals_event(event.to_dict(), remaining_ms=remaining_time(event.context))


@sqs_consumer(app, "mine_pave")
def mine_pave(event: SQSEvent) -> dict[str, Any]:
    from chalicelib.insight import pave_miner
    from chalicelib.insight.batches import remaining_time

    return pave_miner.handle_poll_event(event.to_dict(), remaining_ms=remaining_time(event.context))
