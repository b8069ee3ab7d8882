"""The routing table: every route and event handler of the service, each delegating to chalicelib."""

from __future__ import annotations

from typing import Any

from chalice import Chalice, ConvertToMiddleware

from chalicelib.observability import logger, metrics

app = Chalice(app_name="txn", configure_logs=False)
app.register_middleware(ConvertToMiddleware(logger.inject_lambda_context))
app.register_middleware(ConvertToMiddleware(metrics.log_metrics))


@app.route("/health", methods=["GET"])
def health() -> dict[str, Any]:
    return {"status": "ok"}
