"""Collection dates: instant, standard and extended, never before the predicted payday."""

from __future__ import annotations

from chalicelib.insight.payday import PaveIncome, collection_dates, run_chain
from chalicelib.insight.payday.legacy import predict as legacy
from chalicelib.insight.schedule import Schedule
from chalicelib.insight.transactions import visible
from tests.insight.builders import d, on_schedule, spending


def test_the_rules() -> None:
    # GIVEN paydays Friday 2 October and Friday 16 October 2026
    dates = collection_dates([d("2026-10-02"), d("2026-10-16")])
    # THEN instant on the payday, standard the next business day (over the weekend), extended
    # on the following payday
    assert dates is not None
    assert (dates.instant, dates.standard, dates.extended) == (d("2026-10-02"), d("2026-10-05"), d("2026-10-16"))


def test_standard_skips_a_holiday() -> None:
    dates = collection_dates([d("2026-11-25"), d("2026-12-09")])  # Thanksgiving is the 26th
    assert dates is not None and dates.standard == d("2026-11-27")


def test_extended_is_never_before_standard_and_absent_without_a_second_payday() -> None:
    close = collection_dates([d("2026-12-24"), d("2026-12-25")])  # a malformed projection
    assert close is not None and close.extended == close.standard == d("2026-12-28")
    alone = collection_dates([d("2026-10-02")])
    assert alone is not None and alone.extended is None
    assert collection_dates([]) is None


def test_every_algorithm_derives_its_dates_from_its_own_projection() -> None:
    rows = on_schedule(Schedule.weekly(4), "2026-06-05", "2026-09-25") + spending("2026-06-01", "2026-09-28")
    as_of = d("2026-09-28")
    chain = run_chain(rows, as_of, used_pave_v2=True, pave_income=PaveIncome(d("2026-10-01"), "MONTHLY"))
    for answer in (chain.pave, chain.fm, legacy(visible(rows, as_of), as_of)):
        assert answer is not None and answer.collection is not None and answer.next_payday is not None
        assert answer.collection.instant == answer.next_payday
        assert answer.collection.standard > answer.next_payday
        assert answer.collection.extended is None or answer.collection.extended >= answer.collection.standard
