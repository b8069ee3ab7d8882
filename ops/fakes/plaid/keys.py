"""The fake's webhook signing keys: ES256 (P-256) pairs served as Plaid-format JWKs.

Plaid signs each webhook with a JWT in ``Plaid-Verification``: header ``{alg: ES256, kid}``,
claims ``{iat, request_body_sha256}``; the public half is served by
``/webhook_verification_key/get``. A rotated key keeps being served, with ``expired_at`` set.
"""

from __future__ import annotations

import base64
import hashlib
import json
import uuid
from dataclasses import dataclass
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import ec

from chalicelib import clock


def _b64url(number: int) -> str:
    return base64.urlsafe_b64encode(number.to_bytes(32, "big")).rstrip(b"=").decode()


@dataclass
class SigningKey:
    """One P-256 key pair with Plaid's JWK bookkeeping (``created_at``, ``expired_at``)."""

    kid: str
    private_key: ec.EllipticCurvePrivateKey
    created_at: int
    expired_at: int | None = None

    @classmethod
    def generate(cls, *, kid: str | None = None, created_at: int | None = None) -> SigningKey:
        return cls(
            kid=kid or str(uuid.uuid4()),
            private_key=ec.generate_private_key(ec.SECP256R1()),
            created_at=int(clock.epoch_seconds()) if created_at is None else created_at,
        )

    def jwk(self) -> dict[str, Any]:
        """The public key exactly as ``/webhook_verification_key/get`` returns it."""
        numbers = self.private_key.public_key().public_numbers()
        return {
            "alg": "ES256",
            "crv": "P-256",
            "kid": self.kid,
            "kty": "EC",
            "use": "sig",
            "x": _b64url(numbers.x),
            "y": _b64url(numbers.y),
            "created_at": self.created_at,
            "expired_at": self.expired_at,
        }

    def sign(self, body: bytes, *, iat: float | None = None, kid: str | None = None) -> str:
        """The ``Plaid-Verification`` value for ``body`` (``kid`` overrides the header's kid)."""
        claims = {
            "iat": int(clock.epoch_seconds() if iat is None else iat),
            "request_body_sha256": hashlib.sha256(body).hexdigest(),
        }
        return jwt.encode(claims, self.private_key, algorithm="ES256", headers={"kid": kid or self.kid})


def webhook_body(payload: dict[str, Any]) -> bytes:
    """The bytes the fake POSTs: pretty-printed JSON, so a re-serialised body hashes differently."""
    return json.dumps(payload, indent=2).encode()
