"""The fake issuer: RS256 keys, a JWKS endpoint over HTTP, and Auth0-shaped access tokens.

Tokens look like Auth0's: ``iss`` is the issuer URL with its trailing slash, ``aud`` the API
audience, a user token's ``sub`` is ``auth0|<user_id>``, and a service token (the client
credentials grant) has ``sub`` ``<client_id>@clients``, ``gty`` ``client-credentials`` and its
grants in ``scope``. Over HTTP:

* ``GET /.well-known/jwks.json`` and ``GET /.well-known/openid-configuration``;
* ``POST /oauth/token`` with ``{"grant_type": "client_credentials", ...}``: a service token
  (any client id is accepted: this is a development issuer, never deployed);
* ``POST /__fake__/user-token`` with ``{"user_id": ...}``: a user token.

A key file (``key_path``) keeps the signing key across restarts, so tokens printed by one
``make run`` stay valid in the next. The kid is the key's RFC 7638 thumbprint.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import uuid
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from chalicelib import clock
from chalicelib.settings import LOCAL_AUTH0_AUDIENCE
from ops.fakes.http import HttpFake

DEFAULT_SERVICE_SCOPE = "txn:act-for-any-user"
DEFAULT_CLIENT_ID = "local-service-client"
TOKEN_LIFETIME_SECONDS = 3600
MAX_REQUEST_BYTES = 64 * 1024
#: Under build/ (git-ignored): a development key, never a real secret.
DEFAULT_KEY_PATH = Path(__file__).resolve().parents[3] / "build" / "local" / "auth0-dev-key.pem"


def _b64(number: int) -> str:
    raw = number.to_bytes((number.bit_length() + 7) // 8, "big")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


@dataclass(frozen=True)
class RsaKey:
    """One RSA key pair; ``kid`` is its RFC 7638 thumbprint."""

    private_key: rsa.RSAPrivateKey

    @classmethod
    def generate(cls) -> RsaKey:
        return cls(rsa.generate_private_key(public_exponent=65537, key_size=2048))

    @classmethod
    def load_or_create(cls, path: Path) -> RsaKey:
        """The key in ``path`` (PEM), creating the file (mode 0600) when it is missing."""
        if path.exists():
            loaded = serialization.load_pem_private_key(path.read_bytes(), password=None)
            if not isinstance(loaded, rsa.RSAPrivateKey):
                raise ValueError(f"{path} does not hold an RSA private key")
            return cls(loaded)
        key = cls.generate()
        path.parent.mkdir(parents=True, exist_ok=True)
        pem = key.private_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        path.touch(mode=0o600)
        path.write_bytes(pem)
        return key

    def public_jwk(self) -> dict[str, str]:
        numbers = self.private_key.public_key().public_numbers()
        return {"kty": "RSA", "e": _b64(numbers.e), "n": _b64(numbers.n)}

    @property
    def kid(self) -> str:
        jwk = self.public_jwk()
        canonical = json.dumps({k: jwk[k] for k in ("e", "kty", "n")}, separators=(",", ":"), sort_keys=True)
        return base64.urlsafe_b64encode(hashlib.sha256(canonical.encode()).digest()).rstrip(b"=").decode()

    def jwk(self) -> dict[str, str]:
        """The public key as a JWKS entry."""
        return {**self.public_jwk(), "kid": self.kid, "use": "sig", "alg": "RS256"}

    def pem_public(self) -> bytes:
        return self.private_key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )


class FakeAuth0(HttpFake):
    """A running issuer on ``http://host:port/`` (port 0 picks a free one)."""

    name = "auth0"

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        audience: str = LOCAL_AUTH0_AUDIENCE,
        service_scope: str = DEFAULT_SERVICE_SCOPE,
        key_path: Path | None = None,
    ) -> None:
        super().__init__(host, port)
        self.audience = audience
        self.service_scope = service_scope
        self.signing_key = RsaKey.load_or_create(key_path) if key_path else RsaKey.generate()
        self._served: list[RsaKey] = [self.signing_key]
        self._lock = threading.Lock()
        self.jwks_requests = 0

    # --- lifecycle ------------------------------------------------------------------------

    def handler_class(self) -> type[BaseHTTPRequestHandler]:
        return _handler_for(self)

    @property
    def issuer(self) -> str:
        return f"http://{self.host}:{self.port}/"

    @property
    def jwks_url(self) -> str:
        return f"{self.issuer}.well-known/jwks.json"

    def env(self) -> dict[str, str]:
        """The settings that point the service at this issuer."""
        return {
            "AUTH0_ISSUER": self.issuer,
            "AUTH0_AUDIENCE": self.audience,
            "AUTH0_JWKS_URL": self.jwks_url,
            "AUTH0_SERVICE_SCOPE": self.service_scope,
        }

    # --- keys -------------------------------------------------------------------------------

    def jwks(self) -> dict[str, Any]:
        with self._lock:
            return {"keys": [key.jwk() for key in self._served]}

    def rotate(self, *, keep_old: bool = True) -> RsaKey:
        """Sign with a new key from now on; the old one stays served unless ``keep_old`` is false."""
        fresh = RsaKey.generate()
        with self._lock:
            self._served = [*self._served, fresh] if keep_old else [fresh]
            self.signing_key = fresh
        return fresh

    # --- tokens -------------------------------------------------------------------------------

    def mint(
        self,
        claims: dict[str, Any],
        *,
        key: RsaKey | None = None,
        kid: str | None = None,
        expires_in: int = TOKEN_LIFETIME_SECONDS,
        now: float | None = None,
    ) -> str:
        """An RS256 token with the standard claims, ``claims`` on top (a ``None`` value drops a claim)."""
        issued = int(clock.epoch_seconds() if now is None else now)
        signer = key or self.signing_key
        payload: dict[str, Any] = {
            "iss": self.issuer,
            "aud": self.audience,
            "iat": issued,
            "exp": issued + expires_in,
            "jti": uuid.uuid4().hex,
        }
        payload.update(claims)
        payload = {k: v for k, v in payload.items() if v is not None}
        return jwt.encode(payload, signer.private_key, algorithm="RS256", headers={"kid": kid or signer.kid})

    def user_token(self, user_id: str, **claims: Any) -> str:
        """An access token for the user ``user_id`` (``sub`` = ``auth0|<user_id>``)."""
        return self.mint({"sub": f"auth0|{user_id}", "scope": "openid profile", **claims})

    def service_token(self, *, client_id: str = DEFAULT_CLIENT_ID, scopes: tuple[str, ...] | None = None) -> str:
        """A client-credentials token granted the service scope (or ``scopes``)."""
        granted = (self.service_scope,) if scopes is None else scopes
        return self.mint({"sub": f"{client_id}@clients", "gty": "client-credentials", "scope": " ".join(granted)})


def _handler_for(issuer: FakeAuth0) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "FakeAuth0/1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def _send(self, status: int, body: Any) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _json_body(self) -> dict[str, Any]:
            length = min(int(self.headers.get("Content-Length") or 0), MAX_REQUEST_BYTES)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                return {}
            return body if isinstance(body, dict) else {}

        def do_GET(self) -> None:
            if self.path == "/.well-known/jwks.json":
                with issuer._lock:
                    issuer.jwks_requests += 1
                self._send(200, issuer.jwks())
            elif self.path == "/.well-known/openid-configuration":
                self._send(200, _openid_configuration(issuer))
            else:
                self._send(404, {"error": "not_found"})

        def do_POST(self) -> None:
            route = {"/oauth/token": _client_credentials, "/__fake__/user-token": _user_token}.get(self.path)
            if route is None:
                self._send(404, {"error": "not_found"})
                return
            self._send(*route(issuer, self._json_body()))

    return Handler


def _openid_configuration(issuer: FakeAuth0) -> dict[str, Any]:
    return {
        "issuer": issuer.issuer,
        "jwks_uri": issuer.jwks_url,
        "token_endpoint": f"{issuer.issuer}oauth/token",
        "id_token_signing_alg_values_supported": ["RS256"],
    }


def _client_credentials(issuer: FakeAuth0, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    if body.get("grant_type") != "client_credentials":
        return 400, {"error": "unsupported_grant_type"}
    return 200, _token_response(issuer.service_token(client_id=str(body.get("client_id") or DEFAULT_CLIENT_ID)))


def _user_token(issuer: FakeAuth0, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    user_id = body.get("user_id")
    if not isinstance(user_id, str) or not user_id:
        return 400, {"error": "invalid_request", "error_description": "user_id is required"}
    return 200, _token_response(issuer.user_token(user_id))


def _token_response(token: str) -> dict[str, Any]:
    return {"access_token": token, "token_type": "Bearer", "expires_in": TOKEN_LIFETIME_SECONDS}
