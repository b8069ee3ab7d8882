"""Verify that a webhook came from Plaid (plaid.md §2), before anything else reads it.

1. ``Plaid-Verification`` must be present; its JWT header is read unverified and only
   ``ES256`` is accepted (this is what stops ``none``/``HS256`` confusion).
2. The JWK for the header's ``kid`` comes from an in-process cache, or from
   ``/webhook_verification_key/get``. Keys whose ``expired_at`` has passed are refused. Active
   keys are re-read every 10 minutes, and as soon as a new kid appears (Plaid rotated), so an
   expiry is noticed; if that re-read fails, the cached key keeps working.
   Fetches for unknown kids are bounded: a kid Plaid says it does not know is remembered
   (negative cache, 401) and, across all kids, only a few lookups per minute are made, so a
   caller inventing kids cannot make us call Plaid once per request. A new kid past that
   budget has not been proven bad, only left unchecked: it is a 500, which Plaid retries.
3. The signature is checked with that key, ``algorithms=["ES256"]`` only.
4. ``iat`` must be at most 5 minutes old and not in the future.
5. ``sha256(raw body)`` must equal the ``request_body_sha256`` claim (``hmac.compare_digest``):
   the raw bytes, never a re-serialised body.

:class:`WebhookUnauthorizedError` means "not provably Plaid" (HTTP 401);
:class:`WebhookVerificationUnavailableError` means "Plaid could not give us the key" (HTTP 500,
so Plaid retries later).
"""

from __future__ import annotations

import hashlib
import hmac
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jwt

from chalicelib import clock
from chalicelib.observability import logger
from chalicelib.plaid.errors import (
    PlaidError,
    PlaidInvalidInputError,
    WebhookUnauthorizedError,
    WebhookVerificationUnavailableError,
)

ALGORITHM = "ES256"
MAX_AGE_SECONDS = 300
#: Tolerated clock difference for an ``iat`` slightly ahead of our clock.
FUTURE_SKEW_SECONDS = 5
#: A header longer than this is not a Plaid JWT (an ES256 token is ~300 bytes).
MAX_HEADER_LENGTH = 4096

#: How long an active key (``expired_at`` null) is trusted before it is re-read to learn of expiry.
ACTIVE_KEY_REFRESH_SECONDS = 600.0
#: How long a kid Plaid does not know is refused without asking again.
UNKNOWN_KID_TTL_SECONDS = 600.0
#: At most this many lookups of never-seen kids per window, across all kids.
UNKNOWN_KID_FETCHES_PER_WINDOW = 5
UNKNOWN_KID_WINDOW_SECONDS = 60.0
MAX_REMEMBERED_UNKNOWN_KIDS = 1024

KeyFetcher = Callable[[str], dict[str, Any]]


@dataclass
class _CachedKey:
    jwk: dict[str, Any]
    fetched_at: float


class WebhookKeyCache:
    """Plaid's webhook JWKs by kid, fetched through ``fetch(kid) -> JWK dict`` and bounded."""

    def __init__(
        self,
        fetch: KeyFetcher,
        *,
        active_key_refresh_seconds: float = ACTIVE_KEY_REFRESH_SECONDS,
        unknown_kid_ttl_seconds: float = UNKNOWN_KID_TTL_SECONDS,
        unknown_kid_fetches_per_window: int = UNKNOWN_KID_FETCHES_PER_WINDOW,
        unknown_kid_window_seconds: float = UNKNOWN_KID_WINDOW_SECONDS,
    ) -> None:
        self._fetch = fetch
        self._active_refresh = active_key_refresh_seconds
        self._unknown_ttl = unknown_kid_ttl_seconds
        self._budget = unknown_kid_fetches_per_window
        self._window = unknown_kid_window_seconds
        self._keys: dict[str, _CachedKey] = {}
        self._unknown: dict[str, float] = {}
        self._recent_unknown_fetches: deque[float] = deque()
        self._lock = threading.Lock()

    def get(self, kid: str, now: float) -> dict[str, Any]:
        """The JWK for ``kid``; raises the typed webhook errors when there is none to use."""
        with self._lock:
            cached = self._keys.get(kid)
            if cached is not None and self._is_fresh(cached, now):
                return cached.jwk
            if cached is None:
                self._admit_unknown_lookup(kid, now)
        try:
            jwk = self._fetch(kid)
        except PlaidError as exc:
            return self._on_fetch_failure(kid, now, cached, exc)
        if not isinstance(jwk, dict) or jwk.get("kid") != kid:
            raise WebhookVerificationUnavailableError("bad_key_response", "Plaid returned no key for the kid asked")
        with self._lock:
            if cached is None:
                # A new kid means Plaid may have rotated: re-read the other active keys on next use.
                for other in self._keys.values():
                    if other.jwk.get("expired_at") is None:
                        other.fetched_at = float("-inf")
            self._keys[kid] = _CachedKey(jwk=jwk, fetched_at=now)
            self._unknown.pop(kid, None)
        return jwk

    def _is_fresh(self, cached: _CachedKey, now: float) -> bool:
        # An expired key never comes back to life; an active one may have expired since.
        return cached.jwk.get("expired_at") is not None or now - cached.fetched_at < self._active_refresh

    def _admit_unknown_lookup(self, kid: str, now: float) -> None:
        """Refuse a kid Plaid said it does not know (401); defer any new kid once the budget is spent (500)."""
        refused_at = self._unknown.get(kid)
        if refused_at is not None and now - refused_at < self._unknown_ttl:
            raise WebhookUnauthorizedError("unknown_kid", "the token's kid is not a Plaid key")
        while self._recent_unknown_fetches and now - self._recent_unknown_fetches[0] >= self._window:
            self._recent_unknown_fetches.popleft()
        if len(self._recent_unknown_fetches) >= self._budget:
            # Nothing is proven about this webhook: the check could not run. Plaid retries a 5xx,
            # so a genuine new key is verified on a later attempt; a 401 is only for proven forgeries.
            raise WebhookVerificationUnavailableError(
                "kid_lookup_throttled", "too many unknown kids this minute; key lookup deferred"
            )
        self._recent_unknown_fetches.append(now)

    def _on_fetch_failure(self, kid: str, now: float, cached: _CachedKey | None, exc: PlaidError) -> dict[str, Any]:
        if cached is not None:
            # Re-reading a known active key failed: keep using it rather than refuse real webhooks.
            logger.warning("webhook key refresh failed; using cached key", extra={"plaid_error": exc.describe()})
            return cached.jwk
        # Plaid answers an unknown kid with 400 INVALID_INPUT; a 401/403 (our credentials) is ours to fix.
        if isinstance(exc, PlaidInvalidInputError) and exc.status in (400, 404):
            with self._lock:
                if len(self._unknown) >= MAX_REMEMBERED_UNKNOWN_KIDS:
                    self._unknown = {k: t for k, t in self._unknown.items() if now - t < self._unknown_ttl}
                self._unknown[kid] = now
            raise WebhookUnauthorizedError("unknown_kid", "Plaid does not know the token's kid") from exc
        raise WebhookVerificationUnavailableError(
            "key_fetch_failed", f"could not fetch the webhook key: {exc}"
        ) from exc


def _default_fetch(kid: str) -> dict[str, Any]:
    from chalicelib.plaid.client import get_plaid

    key: dict[str, Any] = get_plaid().webhook_verification_key_get(kid)["key"]
    return key


_default_cache: WebhookKeyCache | None = None
_default_cache_lock = threading.Lock()


def default_key_cache() -> WebhookKeyCache:
    """The process-wide key cache (warm Lambdas keep their keys), fetching through :func:`get_plaid`."""
    global _default_cache  # noqa: PLW0603 - one cache per process is the point
    with _default_cache_lock:
        if _default_cache is None:
            _default_cache = WebhookKeyCache(_default_fetch)
        return _default_cache


def reset_webhook_keys() -> None:
    """Forget every cached key and unknown kid (tests)."""
    global _default_cache  # noqa: PLW0603
    with _default_cache_lock:
        _default_cache = None


def _unverified_header(token: str) -> dict[str, Any]:
    try:
        header = jwt.get_unverified_header(token)
    except jwt.PyJWTError as exc:
        raise WebhookUnauthorizedError("malformed_token", "Plaid-Verification is not a JWT") from exc
    return header


def _public_key(jwk: dict[str, Any]) -> Any:
    if jwk.get("alg") != ALGORITHM or jwk.get("kty") != "EC" or jwk.get("crv") != "P-256":
        raise WebhookVerificationUnavailableError("bad_key", "Plaid's key is not an ES256 P-256 key")
    try:
        return jwt.PyJWK(jwk).key
    except jwt.PyJWTError as exc:
        raise WebhookVerificationUnavailableError("bad_key", "Plaid's key could not be loaded") from exc


def _check_iat(claims: dict[str, Any], now: float) -> None:
    iat = claims.get("iat")
    if isinstance(iat, bool) or not isinstance(iat, int | float):
        raise WebhookUnauthorizedError("bad_iat", "the token's iat is not a number")
    if iat > now + FUTURE_SKEW_SECONDS:
        raise WebhookUnauthorizedError("future_iat", "the token was issued in the future")
    if now - iat > MAX_AGE_SECONDS:
        raise WebhookUnauthorizedError("stale_token", "the token is older than 5 minutes")


def _check_body(claims: dict[str, Any], raw_body: bytes) -> None:
    claimed = claims.get("request_body_sha256")
    if not isinstance(claimed, str):
        raise WebhookUnauthorizedError("missing_body_hash", "the token has no request_body_sha256")
    actual = hashlib.sha256(raw_body).hexdigest()
    if not hmac.compare_digest(actual.encode(), claimed.encode()):
        raise WebhookUnauthorizedError("body_mismatch", "the body does not match the token's hash")


def verify_webhook(
    raw_body: bytes,
    header: str | None,
    *,
    now: float | None = None,
    keys: WebhookKeyCache | None = None,
) -> dict[str, Any]:
    """The verified JWT claims of a Plaid webhook, or a typed webhook error.

    ``raw_body`` must be the exact bytes received; ``header`` the ``Plaid-Verification`` value.
    """
    if not header:
        raise WebhookUnauthorizedError("missing_header", "Plaid-Verification header is missing")
    if len(header) > MAX_HEADER_LENGTH:
        raise WebhookUnauthorizedError("malformed_token", "Plaid-Verification is too long")
    moment = clock.epoch_seconds() if now is None else now
    token_header = _unverified_header(header)
    if token_header.get("alg") != ALGORITHM:
        raise WebhookUnauthorizedError("bad_algorithm", "only ES256 tokens are accepted")
    kid = token_header.get("kid")
    if not isinstance(kid, str) or not kid or len(kid) > 256:
        raise WebhookUnauthorizedError("missing_kid", "the token names no key")

    jwk = (keys or default_key_cache()).get(kid, moment)
    expired_at = jwk.get("expired_at")
    if expired_at is not None and (not isinstance(expired_at, int | float) or expired_at <= moment):
        raise WebhookUnauthorizedError("key_expired", "the token's key has expired")

    try:
        claims: dict[str, Any] = jwt.decode(
            header,
            _public_key(jwk),
            algorithms=[ALGORITHM],
            # iat is checked below against ``now`` (PyJWT would use its own clock).
            options={"require": ["iat"], "verify_iat": False, "verify_exp": True},
        )
    except jwt.InvalidSignatureError as exc:
        raise WebhookUnauthorizedError("bad_signature", "the token's signature does not verify") from exc
    except jwt.PyJWTError as exc:
        raise WebhookUnauthorizedError("invalid_token", f"token rejected: {type(exc).__name__}") from exc
    _check_iat(claims, moment)
    _check_body(claims, raw_body)
    return claims
