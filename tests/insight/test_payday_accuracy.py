"""A small accuracy sample: the model against ground truth, the plain schedule fit and the oracle.

A hundred users of the tuning world A and of world C (a seed of their own) at 60 and 90 days of
history. The full measurement, on unseen seeds and the held-out worlds, is ``make bench``; this
sample guards what must not regress: the model ahead of the plain fit, its own early answers
rare (on paydays that went as scheduled), no date for any user without a payday, collection
dates never before the payday, and the oracle's premise. The floors sit below the sample's
measured levels (A: 73 and 75 of 83 exact, 3 and 2 of 82 early as scheduled; C: 81 and 83 of
84, 2 and 0 of 83) by a margin for noise.
"""

from __future__ import annotations

import pytest

from chalicelib.insight.payday import predict
from ops import bench_payday
from ops.synthetic.users import SyntheticUser

SEED, COUNT, HISTORIES = 7, 100, (60, 90)


@pytest.fixture(scope="module", params=["A", "C"])
def people(request: pytest.FixtureRequest) -> list[SyntheticUser]:
    return bench_payday.generate(request.param, SEED, COUNT)


@pytest.fixture(scope="module")
def scores(people: list[SyntheticUser]) -> dict[str, bench_payday.Scores]:
    return {name: bench_payday.score(people, bench_payday.PREDICTORS[name], HISTORIES) for name in bench_payday.NAMES}


def test_the_sample_has_both_kinds_of_users(scores: dict[str, bench_payday.Scores]) -> None:
    assert scores["model"].paid[(90, "all")].n >= 70 and scores["model"].unpaid >= 10


@pytest.mark.parametrize(("days", "floor"), [(60, 0.83), (90, 0.86)])
def test_mostly_exact_ahead_of_the_plain_fit_and_rarely_early(
    scores: dict[str, bench_payday.Scores], days: int, floor: float
) -> None:
    mine, theirs = scores["model"].paid[(days, "all")], scores["plain"].paid[(days, "all")]
    # THEN exact for most paydays, more often than the plain fit, and early on a payday that
    # went as scheduled at most 5% of the time
    assert mine.rate("exact") >= floor
    assert mine.exact > theirs.exact
    assert mine.planned_early <= 0.05 * mine.planned


@pytest.mark.parametrize("days", HISTORIES)
def test_every_user_without_a_payday_gets_no_date(scores: dict[str, bench_payday.Scores], days: int) -> None:
    ours = scores["model"]
    assert ours.abstained[days] == ours.unpaid


def test_collection_dates_are_never_before_the_payday(people: list[SyntheticUser]) -> None:
    for person in people:
        result = predict(person.history(90), person.as_of)
        for answer in (result.fm, result.v2, result.chosen):
            if answer is None or answer.next_payday is None:
                continue
            assert answer.collection is not None
            assert answer.collection.instant == answer.next_payday > person.as_of
            assert answer.collection.standard > answer.next_payday
            assert answer.collection.extended is None or answer.collection.extended >= answer.collection.standard


def test_the_oracle_is_early_exactly_where_the_world_made_a_payday_late(people: list[SyntheticUser]) -> None:
    # GIVEN the sample's users, WHEN the oracle (told every schedule) answers
    found = bench_payday.oracle(people, HISTORIES)
    paid = [p for p in people if p.truth.next_payday is not None]
    late = sum(1 for p in paid if p.truth.next_payday != p.truth.scheduled)
    # THEN what happens after as_of only ever moves a payday later: predicting the schedule is
    # exact on every other payday and early on those
    assert found.n == len(paid)
    assert found.exact == found.n - late and found.early == late
    # AND knowing only the schedules two deposits in the window show, it is exact less often,
    # and less so with less history (a 60-day window's deposits are also in the 90-day one)
    assert found.shown_exact[60] <= found.shown_exact[90] <= found.exact


def test_the_bench_report_prints_the_three_side_by_side(
    people: list[SyntheticUser], scores: dict[str, bench_payday.Scores], capsys: pytest.CaptureFixture[str]
) -> None:
    bench_payday.report("sample", people, scores, bench_payday.oracle(people, HISTORIES), HISTORIES)
    out = capsys.readouterr().out
    assert "sample: 100 users" in out and "exact model plain oracle" in out and "reliability" in out
