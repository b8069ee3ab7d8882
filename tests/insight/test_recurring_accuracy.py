"""The detector against generated ground truth: small samples of both benchmark worlds (``make
bench`` prints the full sets, and unseen seeds)."""

from __future__ import annotations

from datetime import date

import pytest

from chalicelib.insight.recurring import detect
from ops.bench_recurring import WORLD_A_TUNING, WORLD_B_SEED, a_tie, evaluate, world_a, world_b
from ops.recurring_baseline import reference_detect


@pytest.mark.parametrize(("world", "history"), [("A", 60), ("B", 90)])
def test_the_detector_finds_generated_bills_far_above_the_reference(world: str, history: int) -> None:
    # GIVEN 12 generated users of a world, each seen on its evaluation days with a short history
    users = list(world_a(WORLD_A_TUNING, 12) if world == "A" else world_b(WORLD_B_SEED, 12))
    # WHEN the detector and the plain reference run
    model = evaluate(detect, users, history)
    reference = evaluate(reference_detect, users, history)
    # THEN the model finds the monthly and quarterly bills (many seen only twice) with a margin
    # over the reference, and nearly all it reports is one (weekly and biweekly bills, which
    # this truth leaves out, count against it)
    assert model.true_positives > 150
    assert model.f1 >= reference.f1 + 0.1
    assert model.precision >= 0.9 and model.recall >= 0.88, (model.precision, model.recall)
    # AND its next dates are right for most streams it finds
    assert model.share(model.next_exact) >= 0.85


@pytest.mark.parametrize(
    ("answer", "tie"),
    [
        ("2027-08-16", True),  # the 14th (a Saturday in August), rolled to the business day after
        ("2027-08-13", True),  # ... or to the business day before: the two debits cannot tell
        ("2027-08-14", True),  # ... or kept on the Saturday
        ("2027-08-15", False),  # no monthly rule puts both debits on their day and gives a Sunday 15th
        ("2027-08-20", False),
    ],
)
def test_a_missed_date_is_a_tie_when_a_monthly_rule_fits_every_charge_seen_and_gives_it(answer: str, tie: bool) -> None:
    # GIVEN two debits on Monday 14 June and Wednesday 14 July 2027
    seen = [{"txn_id": "a", "date": "2027-06-14"}, {"txn_id": "b", "date": "2027-07-14", "authorized_date": None}]
    # WHEN a detector answered a date for the next one
    # THEN it is a tie exactly when a day-of-month rule fits both debits and gives that date
    assert a_tie(seen, date.fromisoformat(answer), date(2027, 7, 31)) is tie
