"""The synthetic spenders behind the recurring-expense benchmark: reproducible, API-shaped, and
a ground truth that follows its stated rules."""

from __future__ import annotations

from datetime import date, timedelta

from ops.synthetic.spending import (
    ANNUALLY,
    CANCEL_GRACE_DAYS,
    DETECTABLE,
    INACTIVE,
    MIN_CHARGES,
    expectations,
    generate,
)
from tests.insight.builders import TRANSACTION_KEYS


def test_the_same_seed_gives_the_same_users() -> None:
    first, again, other = list(generate(3, 2)), list(generate(3, 2)), list(generate(4, 2))
    assert [u.transactions for u in first] == [u.transactions for u in again]
    assert first[0].transactions != other[0].transactions


def test_transactions_have_the_api_shape_and_every_one_is_labelled() -> None:
    user = next(generate(5, 1))
    ids = [t["txn_id"] for t in user.transactions]
    assert len(ids) == len(set(ids)) == len(user.labels)
    for t in user.transactions:
        assert set(t) == TRANSACTION_KEYS
        assert isinstance(t["amount"], int) and t["amount"] != 0
        assert date.fromisoformat(t["date"])
    sources = {label.split(":")[0] for label in user.labels.values() if "/" not in label}
    assert {"habit", "one-off", "income"} <= sources


def test_the_truth_follows_its_rules() -> None:
    seen_annual = seen_inactive = 0
    for user in generate(6, 10):
        for as_of in user.evaluation_days:
            for e in expectations(user, as_of, 120):
                stream = e.stream
                if e.status == DETECTABLE:
                    assert e.next_charge is not None and e.next_charge.day > as_of
                    assert len(e.visible_ids) >= MIN_CHARGES[stream.frequency]
                if e.status == INACTIVE:
                    seen_inactive += 1
                    assert stream.ended is not None
                    assert stream.ended <= as_of - timedelta(days=CANCEL_GRACE_DAYS[stream.frequency])
                if stream.frequency == ANNUALLY:
                    # 120 days can never show an annual bill twice
                    seen_annual += 1
                    assert e.status != DETECTABLE
    assert seen_annual and seen_inactive
