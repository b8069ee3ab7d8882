"""The two blind worlds (written without sight of the models): API-shaped, reproducible, and
truthful by their own definitions, on small samples of seed 1."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

import pytest

from ops.synthetic import blind_bills, blind_payday
from tests.insight.builders import TRANSACTION_KEYS

CADENCES = {"WEEKLY", "BIWEEKLY", "SEMI_MONTHLY", "MONTHLY"}
FREQUENCIES = {"WEEKLY", "BIWEEKLY", "MONTHLY", "QUARTERLY", "ANNUAL"}
STATUSES = {"expected", "inactive", "unscored"}
WINDOWS = (60, 90, 180)
ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@pytest.fixture(scope="module")
def payday_users() -> list[blind_payday.PaydayUser]:
    return blind_payday.generate(1, 40)


@pytest.fixture(scope="module")
def bill_users() -> list[blind_bills.User]:
    return blind_bills.generate(1, 25)


def _api_shape_problems(t: dict[str, Any], pfc_joint: str) -> list[str]:
    """What is wrong with one transaction's shape (nothing for a good one)."""
    pfc = t["personal_finance_category"]
    checks = {
        "keys": set(t) == TRANSACTION_KEYS,
        "amount": type(t["amount"]) is int and t["amount"] != 0,
        "currency": t["iso_currency_code"] == "USD",
        "txn_id": isinstance(t["txn_id"], str) and bool(t["txn_id"]),
        "account_id": isinstance(t["account_id"], str),
        "date": isinstance(t["date"], str) and bool(ISO_DAY.match(t["date"])),
        "authorized_date": t["authorized_date"] is None or bool(ISO_DAY.match(t["authorized_date"])),
        "name": isinstance(t["name"], str) and bool(t["name"]),
        "merchant_name": t["merchant_name"] is None or isinstance(t["merchant_name"], str),
        "pfc": pfc is None
        or (set(pfc) == {"primary", "detailed"} and pfc["detailed"].startswith(pfc["primary"] + pfc_joint)),
        "category": t["category"] is None
        or (isinstance(t["category"], list) and all(isinstance(c, str) for c in t["category"])),
        "pending": isinstance(t["pending"], bool),
    }
    return [name for name, ok in checks.items() if not ok]


def _calendar_of(world: str) -> Callable[[int], set[date]]:
    if world == "payday":
        return lambda year: set(blind_payday.fed_closed(year))
    return lambda year: set(blind_bills.fed_holidays(year))


# ---------------------------------------------------------------- both worlds


@pytest.mark.parametrize("world", ["payday", "bills"])
def test_fed_calendar_observes_sunday_holidays_on_monday_and_saturday_holidays_not_at_all(world: str) -> None:
    # GIVEN the Fed holidays each world computes
    closed = _calendar_of(world)
    # WHEN 2025-2027 are read
    days = closed(2025) | closed(2026) | closed(2027)
    # THEN every 2025-2026 holiday is closed, Juneteenth and New Year included
    expected = {
        date(2025, 1, 1), date(2025, 1, 20), date(2025, 2, 17), date(2025, 5, 26), date(2025, 6, 19),
        date(2025, 7, 4), date(2025, 9, 1), date(2025, 10, 13), date(2025, 11, 11), date(2025, 11, 27),
        date(2025, 12, 25), date(2026, 1, 1), date(2026, 1, 19), date(2026, 2, 16), date(2026, 5, 25),
        date(2026, 6, 19), date(2026, 9, 7), date(2026, 10, 12), date(2026, 11, 11), date(2026, 11, 26),
        date(2026, 12, 25),
    }  # fmt: skip
    assert expected <= days, sorted(expected - days)
    assert len(closed(2025)) == 11
    # AND Saturday 2026-07-04 closes neither itself nor Friday 07-03, while Sunday 2027-07-04 closes Monday 07-05
    assert date(2026, 7, 3) not in days and date(2026, 7, 4) not in days
    assert date(2027, 7, 5) in days


# ---------------------------------------------------------------- the payday world


def test_payday_transactions_have_the_api_shape_and_ids_unique_across_users(
    payday_users: list[blind_payday.PaydayUser],
) -> None:
    # GIVEN 40 users of the payday world
    # WHEN every transaction's shape is checked
    shapes = [
        (u["user_id"], t["txn_id"], _api_shape_problems(dict(t), "")) for u in payday_users for t in u["transactions"]
    ]
    ids = [t["txn_id"] for u in payday_users for t in u["transactions"]]
    # THEN none has a problem, and no id repeats
    assert not [shape for shape in shapes if shape[2]]
    assert len(ids) == len(set(ids))


def test_payday_feed_covers_the_history_and_five_weeks_after_as_of_with_nothing_pending_after_it(
    payday_users: list[blind_payday.PaydayUser],
) -> None:
    for u in payday_users:
        # GIVEN a user's as_of and feed
        as_of = u["as_of"]
        days = [(date.fromisoformat(t["date"]), t["pending"]) for t in u["transactions"]]
        # THEN as_of is in 2025-2026 and the feed runs from as_of-179 to 30-40 days after as_of
        assert date(2025, 1, 1) <= as_of <= date(2026, 12, 31)
        assert min(d for d, _ in days) >= as_of - timedelta(days=179), u["user_id"]
        assert as_of + timedelta(days=30) <= max(d for d, _ in days) <= as_of + timedelta(days=40), u["user_id"]
        # AND no pending transaction is dated after as_of
        assert not [d for d, pending in days if pending and d > as_of], u["user_id"]


def test_payday_users_without_regular_income_have_an_empty_truth_and_are_about_a_fifth(
    payday_users: list[blind_payday.PaydayUser],
) -> None:
    # GIVEN the users whose truth has no next payday
    none = [u for u in payday_users if u["truth"]["next_payday"] is None]
    # THEN each has no schedule, cadence, nominal date, paid or lost dates
    for u in none:
        truth = u["truth"]
        assert truth["scheduled"] is None and truth["nominal"] is None and truth["cadence"] is None, u["user_id"]
        assert not truth["paid"] and not truth["lost"], u["user_id"]
    # AND they are the designed 15-20% of users, give or take
    assert 0.13 <= len(none) / len(payday_users) <= 0.22


def test_payday_next_payday_follows_as_of_never_precedes_scheduled_and_lands_in_the_main_account(
    payday_users: list[blind_payday.PaydayUser],
) -> None:
    for u in (u for u in payday_users if u["truth"]["next_payday"] is not None):
        # GIVEN a user with a regular income, and the deposits on the main account by date
        truth, as_of = u["truth"], u["as_of"]
        next_payday, scheduled, nominal = truth["next_payday"], truth["scheduled"], truth["nominal"]
        assert next_payday is not None and scheduled is not None and nominal is not None
        deposits = {t["date"] for t in u["transactions"] if t["account_id"] == truth["account_id"] and t["amount"] < 0}
        # THEN the next payday and the scheduled one are after as_of, within the feed, in that order
        assert as_of < scheduled <= next_payday <= as_of + timedelta(days=35), u["user_id"]
        assert abs((nominal - scheduled).days) <= 7, u["user_id"]
        # AND the next payday has a deposit on the main account
        assert next_payday.isoformat() in deposits, u["user_id"]
        # AND the descriptive fields take their documented values
        assert truth["cadence"] in CADENCES and truth["jobs"] >= 1, u["user_id"]
        assert truth["bank_early"] in (0, 1, 2) and truth["split"] in ("none", "same", "other"), u["user_id"]


def test_payday_every_paid_scheduled_and_next_payday_is_a_fed_business_day(
    payday_users: list[blind_payday.PaydayUser],
) -> None:
    # GIVEN every truth date of every user with a regular income
    dates = [
        (u["user_id"], d)
        for u in payday_users
        for d in [u["truth"]["next_payday"], u["truth"]["scheduled"], *u["truth"]["paid"]]
        if d is not None
    ]
    # THEN none falls on a weekend or a Fed holiday
    assert dates
    assert not [(uid, d) for uid, d in dates if not blind_payday.is_bd(d)]


def _paycheck_name(name: str) -> str:
    return re.sub(r"[\d#]+", "", name).strip()


def test_payday_paid_dates_are_in_the_window_with_a_deposit_and_lost_ones_lost_their_paycheck(
    payday_users: list[blind_payday.PaydayUser],
) -> None:
    for u in payday_users:
        # GIVEN a user's paid and lost dates and the main account's deposits by date
        truth, as_of = u["truth"], u["as_of"]
        paid, lost = truth["paid"], truth["lost"]
        deposits: defaultdict[date, list[blind_payday.Transaction]] = defaultdict(list)
        for t in u["transactions"]:
            if t["account_id"] == truth["account_id"] and t["amount"] < 0:
                deposits[date.fromisoformat(t["date"])].append(t)
        # THEN paid is sorted, unique, inside the history, and holds the lost dates
        assert paid == sorted(set(paid)), u["user_id"]
        assert all(as_of - timedelta(days=179) <= d <= as_of for d in paid), u["user_id"]
        assert set(lost) <= set(paid), u["user_id"]
        # AND every paid date the feed kept has a deposit, the largest being the paycheck
        kept = [d for d in paid if d not in lost]
        assert all(deposits.get(d) for d in kept), u["user_id"]
        names = Counter(_paycheck_name(min(deposits[d], key=lambda t: t["amount"])["name"]) for d in kept)
        # AND no lost date still shows a row named like the paycheck
        if names:
            paycheck = names.most_common(1)[0][0]
            assert not [d for d in lost if any(_paycheck_name(t["name"]) == paycheck for t in deposits[d])]


def test_payday_world_is_reproducible_and_user_i_does_not_depend_on_count(
    payday_users: list[blind_payday.PaydayUser],
) -> None:
    # GIVEN the 40 users of seed 1
    # WHEN seed 1 is generated again, for 40 and for 5 users, and seed 2 for 5
    again, first_five, other_seed = (
        blind_payday.generate(1, 40),
        blind_payday.generate(1, 5),
        blind_payday.generate(2, 5),
    )
    # THEN the same seed gives the same users whatever the count, and another seed others
    assert again == payday_users
    assert first_five == payday_users[:5]
    assert other_seed != payday_users[:5]


# ---------------------------------------------------------------- the bills world


def test_bills_world_is_reproducible_and_user_i_does_not_depend_on_count(bill_users: list[blind_bills.User]) -> None:
    # GIVEN the 25 users of seed 1
    # WHEN seed 1 is generated again, for 25 and for 4 users, and seed 2 for 2
    again, first_four, other_seed = blind_bills.generate(1, 25), blind_bills.generate(1, 4), blind_bills.generate(2, 2)
    # THEN the same seed gives the same feeds and labels whatever the count, and another seed others
    assert [(u.transactions, u.labels) for u in again] == [(u.transactions, u.labels) for u in bill_users]
    assert [u.transactions for u in first_four] == [u.transactions for u in bill_users[:4]]
    assert other_seed[0].transactions != bill_users[0].transactions


def test_bills_evaluation_days_are_three_in_2025_2026_at_least_60_days_apart(
    bill_users: list[blind_bills.User],
) -> None:
    for u in bill_users:
        # GIVEN a user's evaluation days
        a = u.as_of_days
        # THEN there are three, in 2025-2026, each at least 60 days after the one before
        assert len(a) == 3 and all(date(2025, 1, 1) <= d <= date(2026, 12, 31) for d in a), a
        assert (a[1] - a[0]).days >= 60 and (a[2] - a[1]).days >= 60, a


def test_bills_transactions_have_the_api_shape_and_the_labels_cover_exactly_them(
    bill_users: list[blind_bills.User],
) -> None:
    ids: list[str] = []
    for u in bill_users:
        # GIVEN a user's transactions and labels
        # WHEN every transaction's shape is checked
        problems = {t["txn_id"]: _api_shape_problems(dict(t), "_") for t in u.transactions}
        # THEN none has a problem, and an authorisation precedes its posting by at most a week
        assert not {i: p for i, p in problems.items() if p}, u.user_id
        for t in u.transactions:
            if t["authorized_date"] is not None:
                lag = (date.fromisoformat(t["date"]) - date.fromisoformat(t["authorized_date"])).days
                assert 0 <= lag <= 7, t
        # AND every transaction has exactly one label
        assert set(u.labels) == {t["txn_id"] for t in u.transactions}, u.user_id
        ids += [t["txn_id"] for t in u.transactions]
    # AND no id repeats across users
    assert len(ids) == len(set(ids))


def test_bills_history_runs_180_days_before_the_first_as_of_to_70_after_the_last_and_only_its_end_is_pending(
    bill_users: list[blind_bills.User],
) -> None:
    for u in bill_users:
        # GIVEN a user's feed
        days = [(date.fromisoformat(t["date"]), t["pending"]) for t in u.transactions]
        first, last = min(d for d, _ in days), max(d for d, _ in days)
        # THEN it starts 180 days or more before the first as_of and ends 70 days or more after the last
        assert first <= u.as_of_days[0] - timedelta(days=180), (u.user_id, first)
        assert last >= u.as_of_days[2] + timedelta(days=70), (u.user_id, last)
        # AND only transactions in its last three days can be pending
        assert not [d for d, pending in days if pending and (last - d).days > 3], u.user_id


def test_bills_every_emitted_charge_carries_its_stream_label_amount_and_date(
    bill_users: list[blind_bills.User],
) -> None:
    for u in bill_users:
        for s in u._streams:
            # GIVEN a bill stream and the charges it emitted
            for c in (c for c in s.charges if c.raw is not None):
                raw = c.raw
                assert raw is not None
                # THEN each is labelled with the stream, and has its amount (money out) and posting date
                assert u.labels[raw["txn_id"]] == f"bill:{s.what}:{s.sid}"
                assert raw["amount"] == c.amount > 0
                assert date.fromisoformat(raw["date"]) == c.date
                # AND a debit without authorisation on the stream's account (ACH) posts on a business day,
                # unless it is a Zelle payment
                if raw["authorized_date"] is None and raw["account_id"] == s.account_id:
                    assert blind_bills.is_business_day(c.date) or "ZELLE" in raw["name"].upper(), raw


def _truths(u: blind_bills.User) -> list[tuple[date, int, blind_bills.BillTruth]]:
    return [(as_of, w, x) for as_of in u.as_of_days for w in WINDOWS for x in u.truth(as_of, w)]


def test_bills_truth_shows_only_a_streams_own_charges_in_the_window_and_next_dates_that_exist(
    bill_users: list[blind_bills.User],
) -> None:
    for u in bill_users:
        # GIVEN a user's truth on each evaluation day and window, and the feed by id
        by_id = {t["txn_id"]: t for t in u.transactions}
        history_end = max(date.fromisoformat(t["date"]) for t in u.transactions)
        for as_of, w in ((as_of, w) for as_of in u.as_of_days for w in WINDOWS):
            streams = [x["stream_id"] for x in u.truth(as_of, w)]
            # THEN a stream appears once
            assert len(streams) == len(set(streams))
        for as_of, w, x in _truths(u):
            label = f"bill:{x['what']}:{x['stream_id']}"
            # AND its visible charges are its own, inside (as_of - window, as_of]
            assert isinstance(x["visible_ids"], frozenset) and x["visible_ids"]
            for i in x["visible_ids"]:
                assert as_of - timedelta(days=w) < date.fromisoformat(by_id[i]["date"]) <= as_of
                assert u.labels[i] == label
            # AND a next date is after as_of, and one inside the feed is a charge of the stream
            nd = x["next_date"]
            if nd is not None:
                assert nd > as_of
                if nd <= history_end:
                    assert [t for t in u.transactions if t["date"] == nd.isoformat() and u.labels[t["txn_id"]] == label]


def test_bills_truth_status_follows_the_visible_charges_the_next_charge_and_the_grace(
    bill_users: list[blind_bills.User],
) -> None:
    statuses: Counter[str] = Counter()
    for u in bill_users:
        dates = {t["txn_id"]: date.fromisoformat(t["date"]) for t in u.transactions}
        for as_of, _, x in _truths(u):
            # GIVEN a stream's truth on an evaluation day
            seen, nd = len(x["visible_ids"]), x["next_date"]
            assert x["frequency"] in FREQUENCIES and x["status"] in STATUSES and isinstance(x["what"], str)
            statuses[x["status"]] += 1
            # THEN expected means two charges seen and a next one; inactive two seen, none next, and
            # a gap past period + grace; unscored anything else
            if x["status"] == "expected":
                assert nd is not None and seen >= 2
            elif x["status"] == "inactive":
                grace = blind_bills.PERIOD_DAYS[x["frequency"]] + blind_bills.GRACE_DAYS[x["frequency"]]
                assert nd is None and seen >= 2
                assert (as_of - max(dates[i] for i in x["visible_ids"])).days > grace
            else:
                assert nd is None or seen < 2
            # AND without a next charge there is nothing on schedule
            if nd is None:
                assert x["on_schedule"] is False
    # AND the sample has all three statuses
    assert set(statuses) == STATUSES, statuses
