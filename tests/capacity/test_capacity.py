"""The capacity model: DynamoDB's arithmetic, the measurement core on a small run, the document."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from ops.capacity.sizes import (
    IndexSpec,
    base_write_units,
    index_writes,
    item_size,
    number_size,
    read_units,
    write_units,
)

ROOT = Path(__file__).resolve().parents[2]
GSI1 = IndexSpec("GSI1", "GSI1PK", "GSI1SK")
GSI2 = IndexSpec("GSI2", "GSI2PK", "GSI2SK")


def row(**attributes: str | int) -> dict[str, Any]:
    """A wire-format item: str -> S, int -> N."""
    return {k: {"N": str(v)} if isinstance(v, int) else {"S": v} for k, v in attributes.items()}


# --- sizes: the documented rules ----------------------------------------------------------


def test_an_item_is_the_sum_of_its_attribute_names_and_values() -> None:
    # GIVEN a string, a number, a boolean, a null, a list and a map
    item = {
        "PK": {"S": "TXN#abc"},  # 2 + 7
        "amount": {"N": "12345"},  # 6 + 5 significant digits -> 3 + 1
        "ok": {"BOOL": True},  # 2 + 1
        "gone": {"NULL": True},  # 4 + 1
        "tags": {"L": [{"S": "a"}, {"S": "bc"}]},  # 4 + 3 + (1 + 1) + (1 + 2)
        "m": {"M": {"k": {"S": "v"}}},  # 1 + 3 + (1 + 1 + 1)
    }
    # THEN its size follows DynamoDB's rule
    assert item_size(item) == 9 + 10 + 3 + 5 + 12 + 7


def test_numbers_count_significant_digits_only() -> None:
    assert number_size("100000") == number_size("1") == 2
    assert number_size("0.0012") == 2  # leading zeros trimmed: 2 digits
    assert number_size("-123456789") == 6  # 9 digits -> 5 bytes + 1


def test_units_round_up_per_item() -> None:
    assert write_units(1) == 1 and write_units(1024) == 1 and write_units(1025) == 2
    assert read_units(0, consistent=True) == 1.0  # a key that finds nothing still costs
    assert read_units(4097, consistent=False) == 1.0  # two 4 KiB blocks, half each
    # a put costs the larger of the item before and after
    small, large = row(PK="a", body="x" * 10), row(PK="a", body="x" * 2000)
    assert base_write_units(large, small) == base_write_units(small, large) == 2
    assert base_write_units(small, small, transactional=True) == 2


def test_gsi_writes_follow_what_the_write_did_to_each_index() -> None:
    old = row(PK="t", GSI1PK="u", GSI1SK="DATE#1", GSI2PK="u#c", GSI2SK="DATE#1", amount=5)
    # a new item enters every index it has keys for
    assert [w.kind for w in index_writes(None, old, (GSI1, GSI2))] == ["put", "put"]
    # rewriting it unchanged costs the indexes nothing
    assert index_writes(old, dict(old), (GSI1, GSI2)) == []
    # another attribute changed: one update per index
    changed = {**old, "amount": {"N": "6"}}
    assert [w.kind for w in index_writes(old, changed, (GSI1, GSI2))] == ["update", "update"]
    # a moved sort key: a delete and a put; a key removed: a delete
    moved = {**old, "GSI1SK": {"S": "REMOVED#DATE#1"}}
    moved.pop("GSI2PK")
    assert [(w.index, w.kind) for w in index_writes(old, moved, (GSI1, GSI2))] == [
        ("GSI1", "delete"),
        ("GSI1", "put"),
        ("GSI2", "delete"),
    ]


# --- the measurement core on a small run -------------------------------------------------


@pytest.fixture(scope="module")
def small_run(stack_env: dict[str, Any]) -> Iterator[Any]:
    """The measured scenarios, small, against the session's local AWS and fake Plaid."""
    from chalicelib.api.jwks import reset_jwks
    from chalicelib.settings import get_settings, reset_settings
    from ops.capacity.measure import SMALL, measure
    from ops.fakes.auth0 import FakeAuth0
    from tests.conftest import empty_queue

    settings = get_settings()
    for queue in (settings.webhooks_queue, settings.throttle_queue):
        empty_queue(queue)
    mp = pytest.MonkeyPatch()
    with FakeAuth0() as issuer:
        for key, value in issuer.env().items():
            mp.setenv(key, value)
        reset_settings()
        reset_jwks()
        try:
            # seed None: fresh ids, so rows of other tests or runs never count as this run's
            yield measure(stack_env["plaid"], issuer, replace(SMALL, seed=None), starting_position="LATEST")
        finally:
            mp.undo()
            reset_settings()
            reset_jwks()


@pytest.mark.integration
def test_a_small_run_measures_sane_units_of_work(small_run: Any) -> None:
    from ops.capacity.measure import API, API_TRANSACTIONS, HISTORY, INTAKE, MINER, REFINER, REMOVAL, UPDATE

    m = small_run
    # THEN every transaction row was sized, between a few hundred bytes and the item limit, with four GSI copies
    assert all(300 < size < 400 * 1024 for size in m.sizes["TRANSACTION"])
    assert m.index_copies["TRANSACTION"] == 4
    # AND each new transaction is one base write and four index puts, after at least its tombstone's read unit
    new = m.total(HISTORY).entity("TRANSACTION")
    assert new.writes == m.inputs.history_transactions
    assert (new.index_puts, new.index_deletes, new.index_updates) == (4 * new.writes, 0, 0)
    refiner = m.of(HISTORY, REFINER)
    assert new.writes <= sum(refiner.read_units.values()) <= 4 * new.writes
    # AND one webhook was one intake message, one miner invocation and at least one page on the stream
    for phase in (HISTORY, REMOVAL, UPDATE):
        assert m.of(phase, INTAKE).requests == {"sqs.SendMessage": 1}
        assert m.of(phase, MINER).invocations == 1
        assert m.of(phase, MINER).kinesis_records >= 1
        assert m.of(phase, MINER).plaid_calls["/item/get"] == 1
    # AND a soft delete moves every index key: four deletes and four puts per removed transaction
    removed = m.total(REMOVAL).entity("TRANSACTION")
    assert removed.writes == m.facts["removed"] > 0
    assert (removed.index_deletes, removed.index_puts) == (4 * removed.writes, 4 * removed.writes)
    # AND re-mining the window rewrites unchanged rows without touching their index copies
    window = m.total(UPDATE).entity("TRANSACTION")
    assert window.unchanged > 0
    assert window.index_writes <= 4 * (window.writes - window.unchanged)
    assert window.base_units >= window.writes
    # AND an API page reads its rows from GSI1, eventually consistent (half a unit per started 4 KiB)
    page = m.of(API, API_TRANSACTIONS)
    assert m.facts["page_rows"] == min(m.inputs.api_page_limit, m.inputs.history_transactions)
    [(target, units)] = page.read_units.items()
    assert target.endswith("/GSI1")
    assert units == read_units(int(page.read_bytes[target]), consistent=False)


@pytest.mark.integration
def test_every_insight_write_is_measured_through_its_data_module(small_run: Any) -> None:
    from ops.capacity import insight
    from ops.capacity.model import Assumptions

    # THEN each access pattern wrote its rows and was charged at least a unit per row
    for load in insight.loads(small_run, Assumptions()):
        assert load.units >= max(load.rows, 1), load.write.access
        if load.write.access.endswith("+"):  # the day was captured already: nothing written, still charged
            assert load.rows == 0
        else:
            assert load.rows >= 1 and 100 < load.bytes_per_row < 400 * 1024, load.write.access
    # AND none of it mixed into the pipeline's entity sizes
    assert "CAPTURE" not in small_run.sizes


def structure(text: str) -> list[str]:
    """Headings, table headers and the first cell of every table row: what must not depend on figures."""
    shape = []
    for line in text.splitlines():
        if line.startswith("#"):
            shape.append(line)
        elif line.startswith("| "):
            shape.append(re.split(r"\s*\|\s*", line.strip())[1])
    return shape


@pytest.mark.integration
def test_the_document_is_regenerated_deterministically_in_structure(small_run: Any) -> None:
    from ops.capacity.render import document

    # WHEN the document is rendered from the small run, twice
    text = document(small_run)
    # THEN the same measurements give the same text
    assert document(small_run) == text
    # AND its structure is the committed document's: docs/capacity.md is what the command writes
    committed = (ROOT / "docs" / "capacity.md").read_text()
    assert structure(text) == structure(committed)
    assert "seed" not in committed.lower()  # outside paths: tests/unit/test_self_contained.py
