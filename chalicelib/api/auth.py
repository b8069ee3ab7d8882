"""Who is calling, and may they touch this user: bearer JWTs from the identity provider (Auth0).

A token is accepted only when all of this holds, else HTTP 401:

* ``Authorization: Bearer <jwt>``, the header's ``alg`` is ``RS256`` (never ``none``/``HS256``:
  this is what stops algorithm confusion with the public key) and its ``kid`` is in the JWKS;
* the RS256 signature verifies; ``iss`` equals the configured issuer and ``aud`` holds the
  configured audience; ``exp``, ``iat`` and ``sub`` are present, ``exp`` is in the future and
  ``iat`` (and ``nbf``, if present) not, by the process clock (:mod:`chalicelib.clock`), with
  30 seconds of skew tolerated.

A **service token** carries the configured scope (in ``scope``, space-separated, or in Auth0's
``permissions`` list) and may act for any user. Any other token is a **user token** whose user
id is ``sub`` without Auth0's ``auth0|`` prefix (the rule the login listener uses), and it
may only touch that user: anything else is HTTP 403.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import jwt

from chalicelib import clock
from chalicelib.api.errors import UnauthorizedError
from chalicelib.api.jwks import get_jwks
from chalicelib.errors import ConfigurationError
from chalicelib.settings import get_settings

ALGORITHM = "RS256"
LEEWAY_SECONDS = 30
#: Longer than any token the identity provider issues; refuses junk before parsing it.
MAX_TOKEN_LENGTH = 8192
AUTH0_USER_PREFIX = "auth0|"


@dataclass(frozen=True)
class Principal:
    """The verified caller."""

    subject: str
    scopes: frozenset[str]
    is_service: bool

    @property
    def user_id(self) -> str | None:
        """The user a user token speaks for (``None`` for a service token)."""
        return None if self.is_service else self.subject.removeprefix(AUTH0_USER_PREFIX)

    def may_act_for(self, user_id: str) -> bool:
        return self.is_service or self.user_id == user_id


def bearer_token(headers: Mapping[str, str]) -> str:
    """The token of an ``Authorization: Bearer`` header (any header-name case)."""
    value = next((v for k, v in headers.items() if k.lower() == "authorization"), None)
    if value is None:
        raise UnauthorizedError("an Authorization: Bearer token is required")
    scheme, _, token = value.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise UnauthorizedError("the Authorization header must be 'Bearer <token>'")
    if len(token) > MAX_TOKEN_LENGTH:
        raise UnauthorizedError("the bearer token is too long")
    return token


def verify_token(token: str) -> Principal:
    """The principal of a valid token; :class:`UnauthorizedError` for anything else."""
    settings = get_settings()
    if not settings.auth0_issuer:
        raise ConfigurationError("AUTH0_ISSUER is not configured")
    try:
        header = jwt.get_unverified_header(token)
    except jwt.PyJWTError as exc:
        raise UnauthorizedError("the bearer token is not a JWT") from exc
    if header.get("alg") != ALGORITHM:
        raise UnauthorizedError(f"the bearer token must be signed with {ALGORITHM}")
    kid = header.get("kid")
    if not isinstance(kid, str) or not kid:
        raise UnauthorizedError("the bearer token names no key (kid)")
    key = get_jwks().key(kid)
    try:
        claims = jwt.decode(
            token,
            key.key,
            algorithms=[ALGORITHM],
            audience=settings.auth0_audience,
            issuer=settings.auth0_issuer,
            # exp, iat and nbf are checked below against the process clock (PyJWT reads its own).
            options={
                "require": ["exp", "iat", "iss", "aud", "sub"],
                "verify_exp": False,
                "verify_iat": False,
                "verify_nbf": False,
            },
        )
    except jwt.PyJWTError as exc:
        raise UnauthorizedError(f"the bearer token was refused: {exc}") from exc
    _check_times(claims, clock.epoch_seconds())
    subject = claims.get("sub")
    if not isinstance(subject, str) or not subject:
        raise UnauthorizedError("the bearer token has no subject")
    scopes = _scopes(claims.get("scope"), claims.get("permissions"))
    return Principal(subject, scopes, settings.auth0_service_scope in scopes)


def _check_times(claims: dict[str, object], now: float) -> None:
    """``exp`` in the future, ``iat`` (and ``nbf``, if any) not, each with LEEWAY_SECONDS of skew."""
    exp, iat, nbf = (_time_claim(claims, name) for name in ("exp", "iat", "nbf"))
    if exp is None or exp <= now - LEEWAY_SECONDS:
        raise UnauthorizedError("the bearer token was refused: it has expired")
    if iat is None or iat > now + LEEWAY_SECONDS:
        raise UnauthorizedError("the bearer token was refused: it was issued in the future")
    if nbf is not None and nbf > now + LEEWAY_SECONDS:
        raise UnauthorizedError("the bearer token was refused: it is not valid yet")


def _time_claim(claims: dict[str, object], name: str) -> float | None:
    value = claims.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise UnauthorizedError(f"the bearer token was refused: {name} must be a number")
    return float(value)


def _scopes(scope: object, permissions: object) -> frozenset[str]:
    found: set[str] = set(scope.split()) if isinstance(scope, str) else set()
    if isinstance(permissions, list):
        found.update(p for p in permissions if isinstance(p, str))
    return frozenset(found)


def authenticate(headers: Mapping[str, str]) -> Principal:
    """The verified caller of a request (401 when there is none)."""
    return verify_token(bearer_token(headers))
