"""The identity provider's signing keys (JWKS), fetched over HTTP and cached in the process.

Why a cache of our own rather than ``jwt.PyJWKClient``: that client refetches the JWKS for
every token whose ``kid`` it does not know, so anyone can make each request cost a call to
the identity provider by inventing kids. Here the key set is read once per
``cache_seconds``; a kid missing from it triggers at most one refetch per
``MIN_REFETCH_SECONDS`` (how a rotation is picked up), and a failed refresh keeps the keys
already held (retried after the same interval). With no keys at all, every call tries.
Only RSA signing keys (``kty=RSA``, ``use`` absent or ``sig``) are kept.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from jwt import PyJWK
from jwt.exceptions import PyJWKError

from chalicelib.api.errors import AuthUnavailableError, UnauthorizedError
from chalicelib.errors import ConfigurationError
from chalicelib.observability import logger
from chalicelib.settings import get_settings

#: A kid missing from the cached set refetches at most this often.
MIN_REFETCH_SECONDS = 30.0
FETCH_TIMEOUT_SECONDS = 3.0
MAX_JWKS_BYTES = 256 * 1024

Fetch = Callable[[str], dict[str, Any]]


def fetch_jwks(url: str) -> dict[str, Any]:
    """GET the JWKS document; any failure is :class:`AuthUnavailableError`."""
    request = urllib.request.Request(url, headers={"Accept": "application/json"})  # noqa: S310 - URL from settings
    try:
        with urllib.request.urlopen(request, timeout=FETCH_TIMEOUT_SECONDS) as response:  # noqa: S310
            body = response.read(MAX_JWKS_BYTES + 1)
    except (urllib.error.URLError, OSError) as exc:
        raise AuthUnavailableError(f"the identity provider's keys could not be fetched: {exc}") from exc
    if len(body) > MAX_JWKS_BYTES:
        raise AuthUnavailableError("the identity provider's key set is too large")
    try:
        document = json.loads(body)
    except ValueError as exc:
        raise AuthUnavailableError("the identity provider's key set is not JSON") from exc
    if not isinstance(document, dict) or not isinstance(document.get("keys"), list):
        raise AuthUnavailableError("the identity provider's key set has no keys list")
    return document


def signing_keys(document: dict[str, Any]) -> dict[str, PyJWK]:
    """The usable RS256 keys of a JWKS document, by kid (unusable entries are skipped)."""
    found: dict[str, PyJWK] = {}
    for entry in document.get("keys", []):
        if not isinstance(entry, dict) or entry.get("kty") != "RSA" or entry.get("use", "sig") != "sig":
            continue
        kid = entry.get("kid")
        if not isinstance(kid, str) or not kid:
            continue
        try:
            found[kid] = PyJWK(entry, algorithm="RS256")
        except PyJWKError:
            logger.warning("unusable key in the identity provider's JWKS", extra={"kid": kid})
    return found


@dataclass
class JwksCache:
    """Keys by kid from ``url``, refreshed every ``cache_seconds``; thread-safe."""

    url: str
    cache_seconds: float
    fetch: Fetch = fetch_jwks
    clock: Callable[[], float] = time.monotonic
    _keys: dict[str, PyJWK] = field(default_factory=dict)
    _fetched_at: float = float("-inf")
    _attempted_at: float = float("-inf")
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def key(self, kid: str) -> PyJWK:
        """The key for ``kid``: :class:`UnauthorizedError` when unknown, ``AuthUnavailableError`` when unreadable."""
        with self._lock:
            now = self.clock()
            stale = now - self._fetched_at >= self.cache_seconds or kid not in self._keys
            if not self._keys or (stale and now - self._attempted_at >= MIN_REFETCH_SECONDS):
                self._refresh(now)
            found = self._keys.get(kid)
        if found is None:
            raise UnauthorizedError("the token is signed with an unknown key")
        return found

    def _refresh(self, now: float) -> None:
        self._attempted_at = now
        try:
            document = self.fetch(self.url)
        except AuthUnavailableError:
            if not self._keys:
                raise
            logger.warning("JWKS refresh failed; keeping the keys already held", extra={"url": self.url})
            return
        self._keys = signing_keys(document)
        self._fetched_at = now


@lru_cache(maxsize=1)
def get_jwks() -> JwksCache:
    """The process-wide key cache for the configured identity provider."""
    settings = get_settings()
    if not settings.auth0_jwks_url:
        raise ConfigurationError("AUTH0_ISSUER (and so the JWKS URL) is not configured")
    return JwksCache(settings.auth0_jwks_url, settings.auth0_jwks_cache_seconds)


def reset_jwks() -> None:
    """Forget the cached keys and URL (tests, settings changes)."""
    get_jwks.cache_clear()
