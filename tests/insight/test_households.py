"""World B of the recurring-expense benchmark: reproducible, API-shaped, and a truth that follows
its stated rules."""

from __future__ import annotations

from datetime import date, timedelta

from ops.synthetic.households import (
    CARD_PAYMENT,
    EXPECTED,
    GRACE_DAYS,
    INACTIVE,
    MIN_VISIBLE,
    MONTHLY,
    PERIOD_DAYS,
    expectations,
    households,
)
from tests.insight.builders import TRANSACTION_KEYS


def test_the_same_seed_gives_the_same_households() -> None:
    first, again, other = list(households(3, 2)), list(households(3, 2)), list(households(4, 2))
    assert [h.transactions for h in first] == [h.transactions for h in again]
    assert first[0].transactions != other[0].transactions


def test_rows_have_the_api_shape_and_every_one_is_labelled() -> None:
    household = next(households(5, 1))
    ids = [t["txn_id"] for t in household.transactions]
    assert len(ids) == len(set(ids)) == len(household.labels)
    for t in household.transactions:
        assert set(t) == TRANSACTION_KEYS
        assert isinstance(t["amount"], int) and t["amount"] != 0
        authorized = t["authorized_date"]
        # an authorization never comes after the posting, and at most three days before it
        assert authorized is None or 0 <= (date.fromisoformat(t["date"]) - date.fromisoformat(authorized)).days <= 3


def test_the_world_holds_the_noise_it_promises() -> None:
    rows = [t for h in households(8, 40) for t in h.transactions]
    bills = [b for h in households(8, 40) for b in h.bills]
    # card bills whose authorization is a day or two before the posting
    assert any(t["authorized_date"] and t["authorized_date"] != t["date"] for t in rows)
    # rent paid late, card autopay from checking, cancelled bills and everyday merchants
    assert any(b.what == "rent" and any(not p.on_schedule for p in b.postings) for b in bills)
    assert any(b.what == CARD_PAYMENT and len({p.amount for p in b.postings}) > 1 for b in bills)
    assert any(b.cancelled for b in bills)
    labels = {label for h in households(8, 40) for label in h.labels.values()}
    assert {"everyday:coffee", "everyday:groceries", "everyday:fuel"} <= labels


def test_the_truth_follows_its_rules() -> None:
    seen = {EXPECTED: 0, INACTIVE: 0, "two charges": 0}
    for household in households(6, 20):
        for as_of in household.as_of_days:
            for history in (60, 180):
                first = as_of - timedelta(days=history - 1)
                for e in expectations(household, as_of, history):
                    bill = e.bill
                    visible = [p for p in bill.postings if first <= p.posted <= as_of]
                    assert e.visible_ids == {p.txn_id for p in visible}
                    if e.status == EXPECTED:
                        seen[EXPECTED] += 1
                        seen["two charges"] += bill.frequency == MONTHLY and len(visible) == 2
                        assert e.next_posting is not None and e.next_posting.posted > as_of
                        assert len(visible) >= MIN_VISIBLE[bill.frequency]
                    if e.status == INACTIVE:
                        seen[INACTIVE] += 1
                        last = max(p.posted for p in bill.postings if p.posted <= as_of)
                        assert bill.cancelled and e.next_posting is None
                        assert (as_of - last).days > PERIOD_DAYS[bill.frequency] + GRACE_DAYS[bill.frequency]
    assert all(seen.values()), seen
