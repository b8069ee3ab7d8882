"""Webhook payloads shaped like the ones Plaid documents for each type and code, and their delivery.

Delivery POSTs the exact signed bytes with ``Plaid-Verification``, as Plaid does, and reports
the receiver's answer instead of raising, so a test can assert a 401 as easily as a 200.
"""

from __future__ import annotations

import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

ENVIRONMENT = "sandbox"


@dataclass(frozen=True)
class WebhookDelivery:
    """What the receiver answered."""

    status: int
    body: bytes
    sent_body: bytes
    verification_header: str


def post_webhook(url: str, body: bytes, verification_header: str, *, timeout: float = 10.0) -> WebhookDelivery:
    """POST ``body`` to ``url`` like Plaid (JSON, ``Plaid-Verification``); never raises on HTTP errors."""
    request = urllib.request.Request(
        url,
        data=body,
        method="POST",
        headers={"Content-Type": "application/json", "Plaid-Verification": verification_header},
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return WebhookDelivery(response.status, response.read(), body, verification_header)
    except urllib.error.HTTPError as exc:
        return WebhookDelivery(exc.code, exc.read(), body, verification_header)


def _base(webhook_type: str, webhook_code: str, **fields: Any) -> dict[str, Any]:
    return {"webhook_type": webhook_type, "webhook_code": webhook_code, **fields, "environment": ENVIRONMENT}


def transactions_update(item_id: str, code: str = "DEFAULT_UPDATE", *, new_transactions: int = 0) -> dict[str, Any]:
    """TRANSACTIONS DEFAULT_UPDATE / INITIAL_UPDATE / HISTORICAL_UPDATE."""
    return _base("TRANSACTIONS", code, item_id=item_id, error=None, new_transactions=new_transactions)


def sync_updates_available(
    item_id: str, *, initial_update_complete: bool = True, historical_update_complete: bool = True
) -> dict[str, Any]:
    """TRANSACTIONS SYNC_UPDATES_AVAILABLE: changes wait behind the item's /transactions/sync cursor."""
    return _base(
        "TRANSACTIONS",
        "SYNC_UPDATES_AVAILABLE",
        item_id=item_id,
        initial_update_complete=initial_update_complete,
        historical_update_complete=historical_update_complete,
    )


def transactions_removed(item_id: str, removed_transactions: list[str]) -> dict[str, Any]:
    return _base(
        "TRANSACTIONS", "TRANSACTIONS_REMOVED", item_id=item_id, removed_transactions=removed_transactions, error=None
    )


def item_error(
    item_id: str, error_code: str = "ITEM_LOGIN_REQUIRED", *, error_type: str = "ITEM_ERROR"
) -> dict[str, Any]:
    return _base(
        "ITEM",
        "ERROR",
        item_id=item_id,
        error={
            "error_type": error_type,
            "error_code": error_code,
            "error_code_reason": None,
            "error_message": "the login details of this item have changed",
            "display_message": None,
            "status": 400,
        },
    )


def item_event(item_id: str, code: str, **fields: Any) -> dict[str, Any]:
    """Other ITEM webhooks: LOGIN_REPAIRED, USER_PERMISSION_REVOKED, USER_ACCOUNT_REVOKED (``account_id``)..."""
    return _base("ITEM", code, item_id=item_id, **fields)


def auth_update(
    item_id: str, *, new: list[str] | None = None, updated: dict[str, list[str]] | None = None
) -> dict[str, Any]:
    return _base(
        "AUTH",
        "DEFAULT_UPDATE",
        item_id=item_id,
        account_ids_with_new_auth=new or [],
        account_ids_with_updated_auth=updated or {},
        error=None,
    )


def liabilities_update(
    item_id: str, *, new: list[str] | None = None, updated: dict[str, list[str]] | None = None
) -> dict[str, Any]:
    return _base(
        "LIABILITIES",
        "DEFAULT_UPDATE",
        item_id=item_id,
        account_ids_with_new_liabilities=new or [],
        account_ids_with_updated_liabilities=updated or {},
        error=None,
    )


def identity_verification(identity_verification_id: str, code: str = "STATUS_UPDATED") -> dict[str, Any]:
    return _base("IDENTITY_VERIFICATION", code, identity_verification_id=identity_verification_id)


def screening(screening_id: str) -> dict[str, Any]:
    return _base("SCREENING", "STATUS_UPDATED", screening_id=screening_id)


def layer_authentication_passed(link_session_id: str, link_token: str) -> dict[str, Any]:
    return _base("LAYER", "LAYER_AUTHENTICATION_PASSED", link_session_id=link_session_id, link_token=link_token)
