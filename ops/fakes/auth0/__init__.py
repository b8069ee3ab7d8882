"""A local development identity provider standing in for Auth0 (see docs/api.md).

``FakeAuth0`` holds RS256 key pairs, serves their JWKS over HTTP, and mints user and
service access tokens shaped like Auth0's, for tests, benchmarks and ``make run``.
"""

from ops.fakes.auth0.issuer import DEFAULT_KEY_PATH, FakeAuth0, RsaKey

__all__ = ["DEFAULT_KEY_PATH", "FakeAuth0", "RsaKey"]
