"""Plaid calls as plain JSON over urllib3, without the SDK.

For the webhook route's only Plaid call, ``/webhook_verification_key/get`` on a key-cache
miss: importing the ``plaid`` SDK costs ~0.3 s and hundreds of model modules, more than the
rest of the route, and the answer (one JWK) needs none of its models. The call carries the
same headers and timeouts as the SDK's and fails with the same typed errors
(:mod:`chalicelib.plaid.translate`). urllib3 is loaded by botocore anyway.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import urllib3

from chalicelib.plaid.config import PLAID_VERSION
from chalicelib.plaid.translate import from_http_error, from_parse_error, from_transport_error

_pool: urllib3.PoolManager | None = None
_pool_lock = threading.Lock()


def _shared_pool() -> urllib3.PoolManager:
    global _pool  # noqa: PLW0603 - one connection pool per process, like the SDK's
    with _pool_lock:
        if _pool is None:
            _pool = urllib3.PoolManager(retries=False)
        return _pool


def post_json(
    base_url: str,
    endpoint: str,
    body: dict[str, Any],
    *,
    client_id: str,
    secret: str,
    timeout: tuple[float, float],
) -> dict[str, Any]:
    """POST ``body`` to Plaid's ``endpoint``; the 2xx JSON object, or a typed Plaid error."""
    headers = {
        "Content-Type": "application/json",
        "PLAID-CLIENT-ID": client_id,
        "PLAID-SECRET": secret,
        "Plaid-Version": PLAID_VERSION,
    }
    connect, read = timeout
    try:
        response = _shared_pool().request(
            "POST",
            base_url.rstrip("/") + endpoint,
            body=json.dumps(body).encode(),
            headers=headers,
            timeout=urllib3.Timeout(connect=connect, read=read),
            retries=False,
        )
    except (urllib3.exceptions.HTTPError, OSError) as exc:
        raise from_transport_error(endpoint, exc) from exc
    if not 200 <= response.status < 300:
        raise from_http_error(endpoint, response.status, response.data)
    try:
        answer = json.loads(response.data)
    except ValueError as exc:
        raise from_parse_error(endpoint, exc) from exc
    if not isinstance(answer, dict):
        raise from_parse_error(endpoint, TypeError(f"the body is a {type(answer).__name__}, not an object"))
    return answer
