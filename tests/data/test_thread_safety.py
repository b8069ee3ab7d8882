"""Many threads through the data layer and the locker at once: no request is ever malformed.

boto3's DynamoDB resource builds ``Key(...)``/``Attr(...)`` conditions into expressions with one
placeholder counter per resource, reset at the start of every request. Two threads building at
once on a shared resource overwrite each other's placeholders, and a query goes out with its
``PK`` name replaced ("Query condition missed key schema element"). The lock's heartbeat thread
renews while the handler's thread queries, so a deployed Lambda hits it.

This test fails on the code that shared one resource (and one ``Table`` per name) across
threads: with the switch interval at 1 µs it saw about one ``ValidationException`` per 6,000
calls, within its first seconds every run. It passes now that every thread builds its own
resources (:mod:`chalicelib.aws.clients`).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from datetime import timedelta

import pytest

from chalicelib.data import accounts, items
from chalicelib.insight.locker import LockBusyError, Locker
from tests.api.factories import NOW, an_account, an_item, store_account
from tests.factories import uid

pytestmark = [pytest.mark.integration, pytest.mark.slow]

THREADS = 16
#: Long enough for the old code to fail in every run (it failed within a few seconds).
DURATION_SECONDS = 20.0


@pytest.fixture
def fast_switching() -> Iterator[None]:
    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads interleave inside boto3's expression building
    try:
        yield
    finally:
        sys.setswitchinterval(previous)


def test_threads_share_no_expression_builder(ddb: str, fast_switching: None) -> None:
    # GIVEN a user with an item and accounts, and a locker whose heartbeat runs on its own thread
    user_id = uid("user")
    item = an_item(user_id)
    account = an_account(user_id, item.item_id)
    store_account(account)
    store_account(an_account(user_id, item.item_id))
    locker = Locker(lease=timedelta(seconds=2), heartbeat=timedelta(milliseconds=10), busy_wait=timedelta(seconds=30))
    calls: list[Callable[[int], object]] = [
        lambda n: accounts.list_accounts(user_id),  # Key conditions
        lambda n: accounts.list_accounts(user_id, item.item_id, consistent=True),
        lambda n: items.list_items(user_id),
        lambda n: accounts.get_account(user_id, account.acct_id),
        lambda n: items.set_main_account(user_id, item.item_id, account.acct_id),  # a conditional update
        lambda n: items.create_item(an_item_for(user_id, n), NOW),  # attribute_not_exists
        lambda n: _hold(locker, f"stress-{user_id}-{n % 4}"),  # conditional puts, heartbeats, releases
    ]
    errors: list[BaseException] = []
    done = [0]
    stop = threading.Event()

    def work(worker: int) -> None:
        n = worker
        while not stop.is_set():
            try:
                calls[n % len(calls)](n)
            except LockBusyError:
                pass  # another thread holds that key: contention, not a malformed request
            except Exception as exc:  # noqa: BLE001 - every other error is the finding
                errors.append(exc)
                stop.set()
            n += THREADS
            done[0] += 1

    # WHEN 16 threads run mixed reads, conditional writes and locks for a while
    threads = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + DURATION_SECONDS
    while time.monotonic() < deadline and not stop.is_set():
        stop.wait(0.2)
    stop.set()
    for thread in threads:
        thread.join(timeout=60)

    # THEN every one of them succeeded
    assert not errors, f"{len(errors)} error(s) after {done[0]} calls; first: {errors[0]!r}"
    assert done[0] > THREADS * 10  # the threads did run


def _hold(locker: Locker, key: str) -> None:
    with locker.hold(key):
        time.sleep(0.02)  # long enough for a heartbeat to renew while this thread queries


def an_item_for(user_id: str, n: int) -> items.Item:
    return items.Item(user_id, uid(f"item{n}"), f"access-local-{uid('tok')}", institution_id="ins_3")
