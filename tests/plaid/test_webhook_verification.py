"""Webhook verification (plaid.md §2) against webhooks signed by the fake Plaid."""

from __future__ import annotations

import hashlib
import json
import threading
import time
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, cast

import jwt
import pytest

from chalicelib.plaid.client import PlaidClient
from chalicelib.plaid.errors import (
    WebhookUnauthorizedError,
    WebhookVerificationError,
    WebhookVerificationUnavailableError,
)
from chalicelib.plaid.webhook_verification import (
    MAX_AGE_SECONDS,
    UNKNOWN_KID_FETCHES_PER_WINDOW,
    UNKNOWN_KID_WINDOW_SECONDS,
    WebhookKeyCache,
    verify_webhook,
)
from ops.fakes.plaid import FakePlaid, SigningKey, webhooks
from tests.plaid.factories import unreachable_client

KEY_ENDPOINT = "/webhook_verification_key/get"


def keys_via(client: PlaidClient, **options: Any) -> WebhookKeyCache:
    """A fresh key cache that fetches through ``client`` (no state shared between tests)."""
    return WebhookKeyCache(lambda kid: client.webhook_verification_key_get(kid)["key"], **options)


@pytest.fixture
def keys(client: PlaidClient) -> WebhookKeyCache:
    return keys_via(client)


def payload() -> dict[str, Any]:
    return webhooks.transactions_update("item-" + uuid.uuid4().hex, "DEFAULT_UPDATE", new_transactions=3)


def reason_of(raised: pytest.ExceptionInfo[WebhookVerificationError]) -> str:
    return raised.value.reason


def test_valid_webhook_returns_its_claims(fake_plaid: FakePlaid, keys: WebhookKeyCache) -> None:
    # GIVEN a webhook signed by Plaid's current key
    body, header = fake_plaid.sign_webhook(payload())
    # WHEN verified
    claims = verify_webhook(body, header, keys=keys)
    # THEN the claims come back, and the key was fetched once by its kid
    assert set(claims) >= {"iat", "request_body_sha256"}
    assert [c.body for c in fake_plaid.calls(KEY_ENDPOINT)] == [{"key_id": fake_plaid.current_key.kid}]


def test_cached_key_is_not_fetched_again(fake_plaid: FakePlaid, keys: WebhookKeyCache) -> None:
    # GIVEN one verified webhook, then Plaid failing every key request
    body, header = fake_plaid.sign_webhook(payload())
    verify_webhook(body, header, keys=keys)
    fake_plaid.fail(KEY_ENDPOINT, "INTERNAL_SERVER_ERROR", times=None)
    # WHEN 20 more webhooks arrive THEN all verify from the cache, with no further Plaid call
    for _ in range(20):
        verify_webhook(*fake_plaid.sign_webhook(payload()), keys=keys)
    assert len(fake_plaid.calls(KEY_ENDPOINT)) == 1


@pytest.mark.parametrize("header", [None, ""])
def test_missing_header_is_unauthorized(header: str | None, keys: WebhookKeyCache) -> None:
    with pytest.raises(WebhookUnauthorizedError) as raised:
        verify_webhook(b"{}", header, keys=keys)
    assert reason_of(raised) == "missing_header"


@pytest.mark.parametrize("header", ["not-a-jwt", "a.b.c", "x" * 5000])
def test_garbage_header_is_unauthorized(header: str, keys: WebhookKeyCache, fake_plaid: FakePlaid) -> None:
    with pytest.raises(WebhookUnauthorizedError) as raised:
        verify_webhook(b"{}", header, keys=keys)
    assert reason_of(raised) == "malformed_token"
    assert fake_plaid.calls(KEY_ENDPOINT) == []


def test_tampered_body_is_unauthorized(fake_plaid: FakePlaid, keys: WebhookKeyCache) -> None:
    # GIVEN a signed webhook whose body is changed in transit
    body, header = fake_plaid.sign_webhook(payload())
    tampered = body.replace(b'"new_transactions": 3', b'"new_transactions": 300')
    assert tampered != body
    # WHEN verified THEN the body hash does not match
    with pytest.raises(WebhookUnauthorizedError) as raised:
        verify_webhook(tampered, header, keys=keys)
    assert reason_of(raised) == "body_mismatch"


def test_reserialised_body_is_unauthorized(fake_plaid: FakePlaid, keys: WebhookKeyCache) -> None:
    # GIVEN the same JSON re-serialised (what a framework's parsed body would give)
    body, header = fake_plaid.sign_webhook(payload())
    reserialised = json.dumps(json.loads(body)).encode()
    # WHEN verified THEN it fails: only the exact raw bytes verify
    with pytest.raises(WebhookUnauthorizedError) as raised:
        verify_webhook(reserialised, header, keys=keys)
    assert reason_of(raised) == "body_mismatch"


def test_token_older_than_five_minutes_is_unauthorized(fake_plaid: FakePlaid, keys: WebhookKeyCache) -> None:
    now = time.time()
    # GIVEN tokens issued 299 s and 301 s ago
    fresh = fake_plaid.sign_webhook(payload(), iat=now - (MAX_AGE_SECONDS - 1))
    stale = fake_plaid.sign_webhook(payload(), iat=now - (MAX_AGE_SECONDS + 1))
    # WHEN verified at ``now`` THEN only the fresh one passes
    verify_webhook(*fresh, now=now, keys=keys)
    with pytest.raises(WebhookUnauthorizedError) as raised:
        verify_webhook(*stale, now=now, keys=keys)
    assert reason_of(raised) == "stale_token"


def test_future_iat_is_unauthorized(fake_plaid: FakePlaid, keys: WebhookKeyCache) -> None:
    now = time.time()
    body, header = fake_plaid.sign_webhook(payload(), iat=now + 60)
    with pytest.raises(WebhookUnauthorizedError) as raised:
        verify_webhook(body, header, now=now, keys=keys)
    assert reason_of(raised) == "future_iat"


def test_hs256_token_is_refused_before_any_key_lookup(fake_plaid: FakePlaid, keys: WebhookKeyCache) -> None:
    # GIVEN an HS256 token naming Plaid's kid (algorithm confusion attempt)
    body = b'{"webhook_type": "TRANSACTIONS"}'
    claims = {"iat": int(time.time()), "request_body_sha256": hashlib.sha256(body).hexdigest()}
    token = jwt.encode(claims, "a-shared-secret-long-enough-for-hs256!", algorithm="HS256",
                       headers={"kid": fake_plaid.current_key.kid})  # fmt: skip
    # WHEN verified THEN refused by algorithm, and Plaid was never asked
    with pytest.raises(WebhookUnauthorizedError) as raised:
        verify_webhook(body, token, keys=keys)
    assert reason_of(raised) == "bad_algorithm"
    assert fake_plaid.calls(KEY_ENDPOINT) == []


def test_alg_none_token_is_refused(fake_plaid: FakePlaid, keys: WebhookKeyCache) -> None:
    body = b"{}"
    token = jwt.encode(
        {"iat": int(time.time())}, cast(Any, None), algorithm="none", headers={"kid": fake_plaid.current_key.kid}
    )
    with pytest.raises(WebhookUnauthorizedError) as raised:
        verify_webhook(body, token, keys=keys)
    assert reason_of(raised) == "bad_algorithm"


def test_token_signed_by_another_key_is_refused(fake_plaid: FakePlaid, keys: WebhookKeyCache) -> None:
    # GIVEN a token claiming Plaid's kid but signed with an attacker's key
    intruder = SigningKey.generate()
    body, header = fake_plaid.sign_webhook(payload(), key=intruder, kid=fake_plaid.current_key.kid)
    # WHEN verified THEN the signature check fails
    with pytest.raises(WebhookUnauthorizedError) as raised:
        verify_webhook(body, header, keys=keys)
    assert reason_of(raised) == "bad_signature"


def test_unknown_kid_is_refused_and_remembered(fake_plaid: FakePlaid, keys: WebhookKeyCache) -> None:
    # GIVEN a token from a key Plaid never issued
    stranger = SigningKey.generate()
    body, header = fake_plaid.sign_webhook(payload(), key=stranger)
    # WHEN verified twice
    for _ in range(2):
        with pytest.raises(WebhookUnauthorizedError) as raised:
            verify_webhook(body, header, keys=keys)
        assert reason_of(raised) == "unknown_kid"
    # THEN Plaid was asked once: the answer is negatively cached
    assert [c.error_code for c in fake_plaid.calls(KEY_ENDPOINT)] == ["INVALID_WEBHOOK_VERIFICATION_KEY_ID"]


def test_expired_key_is_refused_and_the_new_key_works(fake_plaid: FakePlaid, keys: WebhookKeyCache) -> None:
    # GIVEN Plaid rotated its key (the old one is still served, with expired_at set)
    old = fake_plaid.current_key
    fake_plaid.rotate_key()
    # WHEN a webhook signed with the old key arrives THEN it is refused
    with pytest.raises(WebhookUnauthorizedError) as raised:
        verify_webhook(*fake_plaid.sign_webhook(payload(), key=old), keys=keys)
    assert reason_of(raised) == "key_expired"
    # AND one signed with the new key verifies
    verify_webhook(*fake_plaid.sign_webhook(payload()), keys=keys)


def test_rotation_is_noticed_when_an_active_key_is_refreshed(fake_plaid: FakePlaid, client: PlaidClient) -> None:
    # GIVEN a cache that re-reads active keys after an hour, holding the current key
    keys = keys_via(client, active_key_refresh_seconds=3600)
    old = fake_plaid.current_key
    now = time.time()
    verify_webhook(*fake_plaid.sign_webhook(payload(), iat=now), now=now, keys=keys)
    # WHEN Plaid rotates and, an hour later, a webhook signed by the old key arrives
    fake_plaid.rotate_key()
    later = now + 3601
    with pytest.raises(WebhookUnauthorizedError) as raised:
        verify_webhook(*fake_plaid.sign_webhook(payload(), key=old, iat=later), now=later, keys=keys)
    # THEN the refreshed key shows its expiry and the webhook is refused
    assert reason_of(raised) == "key_expired"
    assert len(fake_plaid.calls(KEY_ENDPOINT)) == 2


def test_refresh_failure_keeps_the_cached_active_key(fake_plaid: FakePlaid, client: PlaidClient) -> None:
    # GIVEN a cached active key whose refresh is due while Plaid is failing
    keys = keys_via(client, active_key_refresh_seconds=10)
    now = time.time()
    verify_webhook(*fake_plaid.sign_webhook(payload(), iat=now), now=now, keys=keys)
    fake_plaid.fail(KEY_ENDPOINT, "INTERNAL_SERVER_ERROR")
    # WHEN a webhook arrives after the refresh interval THEN it still verifies with the cached key
    later = now + 11
    verify_webhook(*fake_plaid.sign_webhook(payload(), iat=later), now=later, keys=keys)
    assert [c.status for c in fake_plaid.calls(KEY_ENDPOINT)] == [200, 500]


@pytest.mark.parametrize("failure", ["INTERNAL_SERVER_ERROR", "RATE_LIMIT_EXCEEDED", "slow"])
def test_plaid_failing_to_give_the_key_is_unavailable(
    failure: str, fake_plaid: FakePlaid, keys: WebhookKeyCache
) -> None:
    # GIVEN Plaid fails (or is too slow) to serve the key for a genuine webhook
    if failure == "slow":
        fake_plaid.delay(KEY_ENDPOINT, 1.5)
    else:
        fake_plaid.fail(KEY_ENDPOINT, failure)
    body, header = fake_plaid.sign_webhook(payload())
    # WHEN verified THEN "unavailable" (HTTP 500, Plaid retries), not "unauthorized"
    with pytest.raises(WebhookVerificationUnavailableError) as raised:
        verify_webhook(body, header, keys=keys)
    assert raised.value.retryable
    # AND the kid is not blacklisted: once Plaid recovers the same webhook verifies
    verify_webhook(body, header, keys=keys)


def test_unreachable_plaid_is_unavailable(fake_plaid: FakePlaid) -> None:
    keys = keys_via(unreachable_client())
    with pytest.raises(WebhookVerificationUnavailableError) as raised:
        verify_webhook(*fake_plaid.sign_webhook(payload()), keys=keys)
    assert reason_of(raised) == "key_fetch_failed"


def test_unknown_kid_lookups_are_bounded_under_a_flood(fake_plaid: FakePlaid, keys: WebhookKeyCache) -> None:
    # GIVEN 200 webhooks, each claiming a different never-issued kid, within one minute
    now = time.time()
    reasons: list[str] = []
    for _ in range(200):
        body, header = fake_plaid.sign_webhook(payload(), key=SigningKey.generate(), iat=now)
        with pytest.raises(WebhookVerificationError) as raised:
            verify_webhook(body, header, now=now, keys=keys)
        reasons.append(reason_of(raised))
    # THEN none is accepted, yet Plaid was asked only a handful of times
    assert len(fake_plaid.calls(KEY_ENDPOINT)) == UNKNOWN_KID_FETCHES_PER_WINDOW
    # AND only the kids Plaid disowned are refused as forgeries (401); the rest were never checked,
    # so they are "unavailable" (500) and Plaid delivers them again later
    assert reasons[:UNKNOWN_KID_FETCHES_PER_WINDOW] == ["unknown_kid"] * UNKNOWN_KID_FETCHES_PER_WINDOW
    assert set(reasons[UNKNOWN_KID_FETCHES_PER_WINDOW:]) == {"kid_lookup_throttled"}
    body, header = fake_plaid.sign_webhook(payload(), key=SigningKey.generate(), iat=now)
    with pytest.raises(WebhookVerificationUnavailableError):
        verify_webhook(body, header, now=now, keys=keys)
    # AND a genuine webhook with an already-cached kid is unaffected; a new window allows lookups again
    later = now + UNKNOWN_KID_WINDOW_SECONDS
    verify_webhook(*fake_plaid.sign_webhook(payload(), iat=later), now=later, keys=keys)
    assert len(fake_plaid.calls(KEY_ENDPOINT)) == UNKNOWN_KID_FETCHES_PER_WINDOW + 1


def test_default_cache_fetches_through_get_plaid(plaid_env: FakePlaid) -> None:
    # GIVEN settings pointing at the fake (no explicit cache)
    body, header = plaid_env.sign_webhook(payload())
    # WHEN verified with the process-wide cache THEN it fetches through get_plaid() and verifies
    assert verify_webhook(body, header)["request_body_sha256"]
    assert len(plaid_env.calls(KEY_ENDPOINT)) == 1


# --- end to end: the fake POSTs the exact bytes to a receiver ---------------------------------------


@pytest.fixture
def receiver(keys: WebhookKeyCache) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A tiny webhook endpoint answering 200 / 401 / 500 like the intake Lambda."""
    accepted: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            """Quiet."""

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                verify_webhook(raw, self.headers.get("plaid-verification"), keys=keys)
                accepted.append(json.loads(raw))
                status = 200
            except WebhookUnauthorizedError:
                status = 401
            except WebhookVerificationUnavailableError:
                status = 500
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1/plaid", accepted
    server.shutdown()
    server.server_close()


def test_send_webhook_delivers_verifiable_bytes(
    fake_plaid: FakePlaid, receiver: tuple[str, list[dict[str, Any]]]
) -> None:
    url, accepted = receiver
    item = fake_plaid.create_item(transaction_count=3)
    # GIVEN webhooks from the current key, from the key after a rotation, from the expired key,
    # and from a key Plaid cannot vouch for right now
    message = webhooks.transactions_update(item.item_id, "INITIAL_UPDATE", new_transactions=3)
    old = fake_plaid.current_key
    # WHEN the fake POSTs them like Plaid
    genuine = fake_plaid.send_webhook(url, message)
    fake_plaid.rotate_key()
    rotated = fake_plaid.send_webhook(url, message)
    expired = fake_plaid.send_webhook(url, message, key=old)
    fake_plaid.fail(KEY_ENDPOINT, "INTERNAL_SERVER_ERROR")
    unvouched = fake_plaid.send_webhook(url, message, key=fake_plaid.rotate_key())
    # THEN the receiver answers 200, 200, 401 (the new kid made it re-read the old key) and 500
    assert (genuine.status, rotated.status, expired.status, unvouched.status) == (200, 200, 401, 500)
    assert accepted == [message, message]
    # AND the Item remembers the last webhook sent
    assert fake_plaid.item(item.access_token).status_json()["last_webhook"]["code_sent"] == "INITIAL_UPDATE"


def test_token_without_iat_is_refused(fake_plaid: FakePlaid, keys: WebhookKeyCache) -> None:
    # GIVEN a correctly signed token that carries no iat
    body = b"{}"
    claims = {"request_body_sha256": hashlib.sha256(body).hexdigest()}
    key = fake_plaid.current_key
    token = jwt.encode(claims, key.private_key, algorithm="ES256", headers={"kid": key.kid})
    # WHEN verified THEN it is refused: freshness cannot be checked
    with pytest.raises(WebhookUnauthorizedError) as raised:
        verify_webhook(body, token, keys=keys)
    assert reason_of(raised) == "invalid_token"
