"""The per-user allowance of live balance refreshes (Plaid bills each): 429 with Retry-After past it."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from chalicelib.data import rate_limits
from chalicelib.errors import RateLimitedError
from ops.fakes.plaid import FakePlaid
from tests.api.conftest import Api, error_code
from tests.e2e.conftest import link_item
from tests.factories import uid

pytestmark = pytest.mark.integration

REFRESH = "/v1/users/{user_id}/accounts/refresh"
HOUR = rate_limits.Allowance(limit=3, window_seconds=3600)
#: 10:15:00 UTC: 45 minutes before the hour's window ends.
QUARTER_PAST = datetime(2026, 11, 20, 10, 15, tzinfo=UTC)


def balance_calls(fake_plaid: FakePlaid, access_token: str) -> int:
    return sum(1 for c in fake_plaid.calls("/accounts/balance/get") if c.body["access_token"] == access_token)


def test_refreshes_past_the_allowance_are_429_with_retry_after_and_call_nothing(
    api: Api, fake_plaid: FakePlaid, user_id: str, override_settings: Callable[..., None]
) -> None:
    # GIVEN an allowance of 2 refreshes per hour and a linked item
    override_settings(BALANCE_REFRESH_LIMIT="2", BALANCE_REFRESH_WINDOW_SECONDS="3600")
    fake = link_item(fake_plaid, user_id, transaction_count=1, loans=False)
    path = {"user_id": user_id}
    # WHEN the user refreshes three times
    first, second, third = (api.post(REFRESH, path=path, json={}) for _ in range(3))
    # THEN two are served and the third is refused in the error envelope, with the wait until the window ends
    assert (first.status_code, second.status_code, third.status_code) == (200, 200, 429)
    assert error_code(third) == "rate_limited"
    assert 1 <= int(third.headers["Retry-After"]) <= 3600
    # AND Plaid was called only for the two served
    assert balance_calls(fake_plaid, fake.access_token) == 2


def test_a_request_refused_before_the_allowance_takes_nothing_from_it(
    api: Api, fake_plaid: FakePlaid, user_id: str, override_settings: Callable[..., None]
) -> None:
    # GIVEN an allowance of 1
    override_settings(BALANCE_REFRESH_LIMIT="1")
    link_item(fake_plaid, user_id, transaction_count=1, loans=False)
    path = {"user_id": user_id}
    # WHEN a malformed body is refused, and then the user refreshes
    assert api.post(REFRESH, path=path, json={"item_id": 7}).status_code in (400, 422)
    # THEN the refresh is still allowed, and the next one is not
    assert api.post(REFRESH, path=path, json={}).status_code == 200
    assert api.post(REFRESH, path=path, json={}).status_code == 429


def test_each_user_has_their_own_allowance(
    api: Api, fake_plaid: FakePlaid, user_id: str, override_settings: Callable[..., None]
) -> None:
    # GIVEN one user who used their only refresh
    override_settings(BALANCE_REFRESH_LIMIT="1")
    other = uid("user")
    assert api.post(REFRESH, path={"user_id": user_id}, json={}).status_code == 200
    assert api.post(REFRESH, path={"user_id": user_id}, json={}).status_code == 429
    # WHEN another user refreshes THEN they are served
    rate_limits.take(other, rate_limits.BALANCE_REFRESH, rate_limits.Allowance(1, 3600), datetime.now(UTC))


def test_retry_after_is_the_time_left_in_the_window_and_a_new_window_starts_afresh(aws_endpoint: str) -> None:
    user = uid("user")
    # GIVEN the hour's allowance used up at a quarter past
    assert [rate_limits.take(user, "TEST_CALL", HOUR, QUARTER_PAST) for _ in range(3)] == [1, 2, 3]
    # WHEN one more call comes THEN it is refused for the 45 minutes left
    with pytest.raises(RateLimitedError) as refused:
        rate_limits.take(user, "TEST_CALL", HOUR, QUARTER_PAST + timedelta(seconds=1))
    assert refused.value.retry_after == 45 * 60 - 1
    # AND the next hour starts at one
    assert rate_limits.take(user, "TEST_CALL", HOUR, QUARTER_PAST + timedelta(minutes=45)) == 1


def test_concurrent_calls_of_one_user_never_take_more_than_the_limit(aws_endpoint: str) -> None:
    # GIVEN sixteen calls of one user released at once against an allowance of three
    user, racers = uid("user"), 16
    start = threading.Barrier(racers)
    served: list[int] = []
    refused: list[int] = []

    def call() -> None:
        start.wait()
        try:
            served.append(rate_limits.take(user, "TEST_CALL", HOUR, QUARTER_PAST))
        except RateLimitedError:
            refused.append(1)

    threads = [threading.Thread(target=call) for _ in range(racers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # THEN exactly three were served, numbered 1 to 3, and the rest refused
    assert sorted(served) == [1, 2, 3]
    assert len(refused) == racers - 3
