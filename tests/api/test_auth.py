"""Authorization over HTTP: 401 for missing or bad tokens, 403 across users, service tokens."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from datetime import timedelta
from typing import Any

import pytest

from chalicelib import clock
from chalicelib.api.errors import AuthUnavailableError, UnauthorizedError
from chalicelib.api.jwks import MIN_REFETCH_SECONDS, JwksCache
from ops.fakes.auth0 import FakeAuth0, RsaKey
from tests.api.conftest import Api, error_code
from tests.factories import uid

pytestmark = pytest.mark.integration

ACCOUNTS = "/v1/users/{user_id}/accounts"


def _b64(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


def bad_tokens(auth0: FakeAuth0, user_id: str) -> dict[str, str]:
    """Tokens the API must refuse, each for one reason."""
    stranger = RsaKey.generate()
    claims = {"sub": f"auth0|{user_id}", "iss": auth0.issuer, "aud": auth0.audience, "iat": 1, "exp": 2**31}
    # The classic confusion: HMAC keyed with the public key (PyJWT refuses to make one, so by hand).
    signing_input = f"{_b64({'alg': 'HS256', 'kid': auth0.signing_key.kid})}.{_b64(claims)}"
    mac = hmac.new(auth0.signing_key.pem_public(), signing_input.encode(), hashlib.sha256).digest()
    hs256 = f"{signing_input}.{base64.urlsafe_b64encode(mac).rstrip(b'=').decode()}"
    unsigned = ".".join(
        [
            _b64({"alg": "none", "kid": auth0.signing_key.kid}),
            _b64({"sub": f"auth0|{user_id}", "iss": auth0.issuer, "aud": auth0.audience, "exp": 2**31}),
            "",
        ]
    )
    return {
        "not a jwt": "not-a-jwt",
        "signed by another key under our kid": auth0.mint(
            {"sub": f"auth0|{user_id}"}, key=stranger, kid=auth0.signing_key.kid
        ),
        "unknown kid": auth0.mint({"sub": f"auth0|{user_id}"}, key=stranger),
        "expired": auth0.mint({"sub": f"auth0|{user_id}"}, now=time.time() - 7200, expires_in=600),
        "issued in the future": auth0.mint({"sub": f"auth0|{user_id}"}, now=time.time() + 3600),
        "not valid yet": auth0.mint({"sub": f"auth0|{user_id}", "nbf": int(time.time()) + 3600}),
        "expiry not a number": auth0.mint({"sub": f"auth0|{user_id}", "exp": "tomorrow"}),
        "wrong audience": auth0.mint({"sub": f"auth0|{user_id}", "aud": "https://someone-else/api"}),
        "wrong issuer": auth0.mint({"sub": f"auth0|{user_id}", "iss": "https://evil.example/"}),
        "no subject": auth0.mint({"sub": None}),
        "no expiry": auth0.mint({"sub": f"auth0|{user_id}", "exp": None}),
        "alg none": unsigned,
        "HS256 with the public key": hs256,
    }


def test_token_times_are_read_on_the_process_clock(api: Api, auth0: FakeAuth0, user_id: str) -> None:
    # GIVEN a user token minted now, valid for an hour
    token = auth0.user_token(user_id)
    assert api.as_token(token).get(ACCOUNTS, path={"user_id": user_id}).status_code == 200
    # WHEN the process clock reads two hours later
    later = clock.utcnow() + timedelta(hours=2)
    with clock.using(lambda: later):
        # THEN the API finds it expired, and a token minted on that clock is accepted
        assert api.as_token(token).get(ACCOUNTS, path={"user_id": user_id}).status_code == 401
        fresh = auth0.user_token(user_id)
        assert api.as_token(fresh).get(ACCOUNTS, path={"user_id": user_id}).status_code == 200


def test_missing_or_malformed_authorization_is_401(api: Api, user_id: str) -> None:
    # GIVEN no header, a non-bearer scheme and an empty bearer
    anonymous = api.as_token(None)
    cases = [{}, {"Authorization": "Basic dXNlcjpwYXNz"}, {"Authorization": "Bearer "}]
    for headers in cases:
        # WHEN the user's accounts are asked for
        response = anonymous.get(ACCOUNTS, path={"user_id": user_id}, headers=headers)
        # THEN 401 in the one error format, with a Bearer challenge
        assert response.status_code == 401, headers
        assert error_code(response) == "unauthorized"
        assert response.headers["WWW-Authenticate"] == "Bearer"


def test_every_kind_of_bad_token_is_401(api: Api, auth0: FakeAuth0, user_id: str) -> None:
    for reason, token in bad_tokens(auth0, user_id).items():
        # WHEN a request carries the bad token
        response = api.as_token(token).get(ACCOUNTS, path={"user_id": user_id})
        # THEN it is refused as unauthenticated
        assert response.status_code == 401, reason
        assert error_code(response) == "unauthorized", reason


def test_a_user_token_cannot_touch_another_user(api: Api, user_id: str) -> None:
    # GIVEN a valid token for user_id
    other = uid("user")
    # WHEN it is used on another user's routes, reads and writes alike
    reads = [
        api.get(ACCOUNTS, path={"user_id": other}),
        api.get("/v1/users/{user_id}/transactions", path={"user_id": other}),
        api.get("/v1/users/{user_id}/transactions/{txn_id}", path={"user_id": other, "txn_id": "t1"}),
    ]
    writes = [
        api.post("/v1/users/{user_id}/link-token", path={"user_id": other}, json={}),
        api.delete("/v1/users/{user_id}/items/{item_id}", path={"user_id": other, "item_id": "i1"}),
    ]
    # THEN every one is forbidden
    assert [r.status_code for r in reads + writes] == [403] * 5
    assert {error_code(r) for r in reads + writes} == {"forbidden"}
    # AND its own routes work
    assert api.get(ACCOUNTS, path={"user_id": user_id}).status_code == 200


def test_a_service_token_acts_for_any_user_and_needs_its_scope(api: Api, auth0: FakeAuth0) -> None:
    # GIVEN a service token with the service scope, and one without it
    service = api.as_token(auth0.service_token())
    unscoped = api.as_token(auth0.service_token(scopes=("read:other",)))
    someone = uid("user")
    # WHEN each reads a user's accounts
    # THEN the scoped one may, the unscoped one is just a caller that is not that user
    assert service.get(ACCOUNTS, path={"user_id": someone}).status_code == 200
    refused = unscoped.get(ACCOUNTS, path={"user_id": someone})
    assert refused.status_code == 403 and error_code(refused) == "forbidden"


def test_routes_without_a_user_still_need_a_token(api: Api) -> None:
    # GIVEN no token / WHEN the categories and the document are asked for / THEN 401
    anonymous = api.as_token(None)
    assert anonymous.get("/v1/categories").status_code == 401
    assert anonymous.get("/v1/openapi.yaml").status_code == 401
    # AND with any valid token they answer
    assert api.get("/v1/categories").status_code == 200


def test_health_needs_no_token(api: Api) -> None:
    response = api.as_token(None).get("/health")
    assert response.status_code == 200 and response.json() == {"status": "ok"}


def test_jwks_is_cached_across_requests(api: Api, auth0: FakeAuth0, user_id: str) -> None:
    # GIVEN the keys already fetched once
    assert api.get(ACCOUNTS, path={"user_id": user_id}).status_code == 200
    fetched = auth0.jwks_requests
    # WHEN many requests follow
    for _ in range(5):
        assert api.get(ACCOUNTS, path={"user_id": user_id}).status_code == 200
    # THEN none refetched the key set
    assert auth0.jwks_requests == fetched


# --- the key cache on its own (its fetch is a plain function; the clock is injected) -----


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_key_cache_refetches_for_a_new_kid_at_most_once_per_interval() -> None:
    # GIVEN a key set with one key, then a rotation to a second
    first, second = RsaKey.generate(), RsaKey.generate()
    served = {"keys": [first.jwk()]}
    fetches: list[str] = []

    def fetch(url: str) -> dict[str, Any]:
        fetches.append(url)
        return served

    clock = Clock()
    cache = JwksCache("http://issuer/jwks", cache_seconds=600, fetch=fetch, clock=clock)
    assert cache.key(first.kid).key_id == first.kid
    # WHEN invented kids arrive within the refetch interval
    for n in range(5):
        clock.now += 1
        with pytest.raises(UnauthorizedError):
            cache.key(f"invented-{n}")
    # THEN they cost no fetch at all
    assert len(fetches) == 1
    # AND once the interval has passed, a rotated key costs exactly one fetch
    served = {"keys": [first.jwk(), second.jwk()]}
    clock.now += MIN_REFETCH_SECONDS
    assert cache.key(second.kid).key_id == second.kid
    assert cache.key(first.kid).key_id == first.kid
    with pytest.raises(UnauthorizedError):
        cache.key("invented-later")
    assert len(fetches) == 2


def test_a_rotation_at_the_issuer_is_picked_up_over_http_once_the_interval_has_passed() -> None:
    # GIVEN an issuer of its own (rotating the session's would strand other tests' tokens) and
    # a key cache reading its JWKS over HTTP, holding its first key
    with FakeAuth0() as issuer:
        clock = Clock()
        cache = JwksCache(issuer.jwks_url, cache_seconds=600, clock=clock)
        first = issuer.signing_key
        assert cache.key(first.kid).key_id == first.kid
        # WHEN the issuer rotates to a new key, keeping the old one served
        second = issuer.rotate()
        # THEN a token under the new kid is refused until the refetch interval has passed
        with pytest.raises(UnauthorizedError):
            cache.key(second.kid)
        clock.now += MIN_REFETCH_SECONDS
        # AND then both keys are known, at the cost of one more fetch
        assert cache.key(second.kid).key_id == second.kid
        assert cache.key(first.kid).key_id == first.kid
        assert issuer.jwks_requests == 2


def test_key_cache_keeps_held_keys_when_a_refresh_fails_and_fails_without_any() -> None:
    # GIVEN a cache holding a key, whose provider then goes down
    key = RsaKey.generate()
    up = {"value": True}

    def fetch(url: str) -> dict[str, Any]:
        if not up["value"]:
            raise AuthUnavailableError("down")
        return {"keys": [key.jwk(), {"kty": "EC", "kid": "ec-key"}, {"kty": "RSA", "kid": "enc", "use": "enc"}]}

    clock = Clock()
    cache = JwksCache("http://issuer/jwks", cache_seconds=60, fetch=fetch, clock=clock)
    cache.key(key.kid)
    up["value"] = False
    clock.now += 120
    # WHEN the cached set is stale and the refresh fails
    # THEN the held key still verifies, and the non-RSA and encryption keys were never kept
    assert cache.key(key.kid).key_id == key.kid
    with pytest.raises(UnauthorizedError):
        cache.key("ec-key")
    # AND a cache that never got keys reports the provider as unavailable
    empty = JwksCache("http://issuer/jwks", cache_seconds=60, fetch=fetch, clock=clock)
    with pytest.raises(AuthUnavailableError):
        empty.key(key.kid)
