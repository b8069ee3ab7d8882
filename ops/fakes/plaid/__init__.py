"""A fake Plaid API server for tests, demos and benchmarks (see docs/plaid.md).

``FakePlaid`` serves every endpoint the service calls, with per-access-token state,
deterministic data, error injection, call recording and ES256-signed webhooks.
"""

from ops.fakes.plaid import webhooks
from ops.fakes.plaid.errors import ERRORS, Fault
from ops.fakes.plaid.keys import SigningKey, webhook_body
from ops.fakes.plaid.server import DEFAULT_CLIENT_ID, DEFAULT_SECRET, FakePlaid, RecordedCall
from ops.fakes.plaid.state import FakeItem
from ops.fakes.plaid.webhooks import WebhookDelivery

__all__ = [
    "DEFAULT_CLIENT_ID",
    "DEFAULT_SECRET",
    "ERRORS",
    "FakeItem",
    "FakePlaid",
    "Fault",
    "RecordedCall",
    "SigningKey",
    "WebhookDelivery",
    "webhook_body",
    "webhooks",
]
