"""The AWS client factory: clients are cached by the settings they are built from."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import pytest

from chalicelib.aws import clients
from chalicelib.settings import reset_settings

T = TypeVar("T")


@pytest.fixture
def settings_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    yield monkeypatch
    monkeypatch.undo()
    reset_settings()


def test_re_read_settings_keep_their_clients(settings_env: pytest.MonkeyPatch) -> None:
    # GIVEN clients built from the current settings
    sqs, table = clients.client("sqs"), clients.table("some-table")
    # WHEN the settings are read again, unchanged THEN the same clients serve
    reset_settings()
    assert clients.client("sqs") is sqs
    assert clients.table("some-table") is table


def test_a_changed_setting_gets_clients_built_from_it(settings_env: pytest.MonkeyPatch) -> None:
    # GIVEN a client built from the current settings
    before = clients.client("sqs")
    # WHEN the endpoint and timeout settings change
    settings_env.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:1")
    settings_env.setenv("AWS_CONNECT_TIMEOUT", "1.5")
    reset_settings()
    # THEN new clients follow them, and a table in another region gets its own resource
    after = clients.client("sqs")
    assert after is not before
    assert after.meta.endpoint_url == "http://127.0.0.1:1"
    assert after.meta.config.connect_timeout == 1.5
    assert clients.dynamodb("eu-west-1").meta.client.meta.region_name == "eu-west-1"
    assert clients.table("t", "eu-west-1") is not clients.table("t")


def in_another_thread(work: Callable[[], T]) -> T:
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(work).result()


def test_resources_and_tables_never_cross_a_thread() -> None:
    # GIVEN this thread's resource and table handle, and the shared client
    resource, table, sqs = clients.dynamodb(), clients.table("some-table"), clients.client("sqs")
    # WHEN another thread asks for the same ones
    theirs = in_another_thread(lambda: (clients.dynamodb(), clients.table("some-table"), clients.client("sqs")))
    # THEN it gets its own resource and table (each resource has its own expression builder),
    # the same client, and this thread keeps its own
    assert theirs[0] is not resource and theirs[1] is not table
    assert theirs[0].meta.client is not resource.meta.client
    assert theirs[2] is sqs
    assert clients.dynamodb() is resource and clients.table("some-table") is table


def test_a_reset_reaches_every_thread() -> None:
    # GIVEN a thread that keeps its handles between calls
    with ThreadPoolExecutor(max_workers=1) as pool:
        before = pool.submit(clients.table, "some-table").result()
        assert pool.submit(clients.table, "some-table").result() is before
        # WHEN another thread resets the clients THEN that thread builds new handles too
        clients.reset_clients()
        assert pool.submit(clients.table, "some-table").result() is not before


def refusing(message: str) -> Callable[..., None]:
    def refuse(**_: Any) -> None:
        raise RuntimeError(message)

    return refuse


def test_a_hook_reaches_every_threads_dynamodb_client_while_it_is_in_force() -> None:
    # GIVEN a thread whose DynamoDB client exists already
    event = "before-parameter-build.dynamodb.DescribeTable"

    def describe() -> object:
        return clients.dynamodb().meta.client.describe_table(TableName="t")

    with ThreadPoolExecutor(max_workers=1) as pool, ThreadPoolExecutor(max_workers=1) as later:
        pool.submit(clients.dynamodb).result()
        # WHEN a hook that refuses every call is in force
        with clients.dynamodb_hook(event, refusing("hooked")):
            # THEN that thread's calls, and those of a thread that builds its client now, meet it
            for thread in (pool, later):
                with pytest.raises(RuntimeError, match="hooked"):
                    thread.submit(describe).result()
        # AND once the block is left it is gone from every client: another hook answers instead
        with clients.dynamodb_hook(event, refusing("another")):
            for thread in (pool, later):
                with pytest.raises(RuntimeError, match="another"):
                    thread.submit(describe).result()
