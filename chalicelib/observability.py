"""Structured JSON logs and EMF metrics through aws-lambda-powertools.

Logs pass through :class:`RedactingFormatter`, which blanks Plaid tokens and secret-named
fields wherever they appear, so a careless ``logger.info(..., extra=payload)`` cannot leak
an access token.
"""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Mapping
from typing import Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.logging.formatter import LambdaPowertoolsFormatter
from aws_lambda_powertools.logging.types import PowertoolsLogRecord
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.metrics.provider.cloudwatch_emf.cloudwatch import AmazonCloudWatchEMFProvider

SERVICE = "txn"
REDACTED = "[REDACTED]"

_SECRET_KEYS = re.compile(
    r"(access_token|public_token|processor_token|link_token|secret|password|authorization|"
    r"plaid-verification|api_key|client_secret|token)$",
    re.IGNORECASE,
)
_TOKEN_TEXT = re.compile(
    r"\b(access|public|processor|link|item-add)-(sandbox|production|development|local)-[A-Za-z0-9-]+"
)


def redact(value: Any) -> Any:
    """A copy of ``value`` with secret-named fields and token-shaped text blanked."""
    if isinstance(value, dict):
        return {k: REDACTED if isinstance(k, str) and _SECRET_KEYS.search(k) else redact(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact(v) for v in value]
    if isinstance(value, str):
        return _TOKEN_TEXT.sub(REDACTED, value)
    return value


class RedactingFormatter(LambdaPowertoolsFormatter):
    def serialize(self, log: dict[str, Any] | PowertoolsLogRecord) -> str:
        return super().serialize(redact(log))


# The metrics middleware flushes after every invocation; one that recorded no metric is
# normal (a dropped message, an idle poll) and not worth a warning per invocation.
warnings.filterwarnings("ignore", message="No application metrics to publish", category=UserWarning)

logger = Logger(service=SERVICE, logger_formatter=RedactingFormatter())
metrics = Metrics(namespace=SERVICE, service=SERVICE)


def count(name: str, value: int = 1, *, detail: Mapping[str, str] | None = None, **tags: str) -> None:
    """Emit one EMF count metric, dimensioned by ``service`` and ``tags``.

    ``detail`` adds a second, finer series of the same metric in the same log line (EMF's
    dimension sets): ``count("txn.webhook.unauthorized", detail={"reason": r})`` publishes the
    total, which an alarm can watch, and the count per reason, which a dashboard breaks down.
    ``service`` is always set explicitly, so the published dimensions do not depend on whether
    the process has ``POWERTOOLS_SERVICE_NAME`` (Lambda has; tests need not).
    """
    emf = AmazonCloudWatchEMFProvider(namespace=SERVICE, service=SERVICE)
    emf.add_metric(name=name, unit=MetricUnit.Count, value=value)
    emf.add_dimension(name="service", value=SERVICE)
    for key, tag in tags.items():
        emf.add_dimension(name=key, value=tag)
    if detail:
        emf.add_dimensions(service=SERVICE, **tags, **detail)
    print(json.dumps(emf.serialize_metric_set(), separators=(",", ":")))
