"""The synthetic users the models are measured on: reproducible, API-shaped, truthful."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta

import pytest

from chalicelib.insight.calendar import fed_holidays
from chalicelib.insight.transactions import parse
from ops import bench_payday
from ops.synthetic import fedcal, holdout, phenomena, users
from tests.insight.builders import TRANSACTION_KEYS

GENERATORS = [
    pytest.param(users.make_user, id="A"),
    pytest.param(holdout.make_user, id="B"),
    pytest.param(phenomena.make_user, id="C"),
]


def test_the_fed_table_and_the_computed_calendar_agree() -> None:
    computed = set().union(*(fed_holidays(year) for year in range(fedcal.FIRST_YEAR, fedcal.LAST_YEAR + 1)))
    assert computed == set(fedcal.CLOSED)


@pytest.mark.parametrize("make", GENERATORS)
def test_a_seed_gives_the_same_user_every_time(make: Callable[[int, int], users.SyntheticUser]) -> None:
    assert make(5, 3) == make(5, 3)
    assert make(5, 3).transactions != make(6, 3).transactions


@pytest.mark.parametrize("make", GENERATORS)
def test_transactions_have_the_api_shape(make: Callable[[int, int], users.SyntheticUser]) -> None:
    for index in range(6):
        person = make(11, index)
        for row in person.transactions:
            assert set(row) >= TRANSACTION_KEYS
            parse(row)  # the models' input contract accepts every row
            assert isinstance(row["amount"], int) and isinstance(row["pending"], bool)
            pfc = row["personal_finance_category"]
            assert pfc is None or set(pfc) == {"primary", "detailed"}


@pytest.mark.parametrize("make", GENERATORS)
def test_the_truth_is_a_deposit_after_as_of_or_no_payday(make: Callable[[int, int], users.SyntheticUser]) -> None:
    for index in range(25):
        person = make(13, index)
        truth = person.truth
        if truth.next_payday is None:
            assert truth.cadence == "NONE" and truth.archetype in ("gig_only", "no_income")
            continue
        assert truth.next_payday > person.as_of and fedcal.is_open(truth.next_payday)
        assert truth.cadence in bench_payday.CADENCES


def test_world_b_takes_the_job_that_pays_next_when_the_old_one_ends_before_its_payday() -> None:
    # GIVEN a user of world B whose better-paid job ends two days after as_of, unpaid after it
    # WHEN the world is written
    person = holdout.make_user(23, 487)
    # THEN the truth is the new job's next payday
    assert person.archetype == "job_change"
    assert person.truth.next_payday == date(2022, 8, 11) and person.truth.cadence == "BIWEEKLY"


def test_history_keeps_the_window_and_the_future() -> None:
    person = users.make_user(3, 1)
    short = person.history(30)
    assert min(r["date"] for r in short) >= (person.as_of - timedelta(days=29)).isoformat()
    assert any(r["date"] > person.as_of.isoformat() for r in short)  # the model must ignore those
    assert max(r["date"] for r in person.visible()) <= person.as_of.isoformat()


@pytest.mark.parametrize("make", GENERATORS)
def test_a_longer_history_is_generated_on_request(make: Callable[..., users.SyntheticUser]) -> None:
    person = make(5, 2, 180)
    first = min(r["date"] for r in person.transactions)
    assert (person.as_of - timedelta(days=179)).isoformat() <= first <= (person.as_of - timedelta(days=150)).isoformat()


def test_world_c_pays_on_business_days_and_names_its_phenomena() -> None:
    people = phenomena.generate(3, 80)
    facts = [p.truth.facts for p in people if p.truth.facts is not None]
    # a payday on a weekend or a holiday was paid the business day before (or posted earlier)
    assert all(fedcal.is_open(day) for f in facts for day in f.paid)
    tags = set().union(*(f.tags for f in facts))
    assert {"processor description", "early-posting bank", "missed paychecks", "split to savings"} <= tags
    assert {p.archetype for p in people} >= {"one_job", "second_job", "job_change", "social_security", "gig_only"}
