"""What a transaction contributes to its summaries, which months are open, and what a change moves (pure)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from botocore.exceptions import ClientError

from chalicelib.aws.errors import translate
from chalicelib.data.contributions import (
    Contribution,
    SummaryKey,
    deltas,
    expected_totals,
    first_open_month,
    from_attribute,
    of_transaction,
    to_attribute,
)
from chalicelib.data.transactions import Transaction
from chalicelib.errors import (
    ConditionFailedError,
    ThrottledError,
    TransactionConditionFailedError,
    TransactionConflictError,
)

OPEN = "2026-09"


def txn(**overrides: object) -> Transaction:
    fields: dict[str, object] = {
        "user_id": "u",
        "acct_id": "a",
        "txn_id": "t",
        "amount": 1234,
        "txn_date": date(2026, 11, 3),
        "category_id": "food",
    }
    fields.update(overrides)
    return Transaction(**fields)  # type: ignore[arg-type]


def test_a_posted_live_transaction_contributes_its_month_account_category_and_amount() -> None:
    assert of_transaction(txn()) == Contribution("2026-11", "a", "food", 1234)
    assert of_transaction(txn(pending=True)) is None
    assert of_transaction(txn(removed=True)) is None


def test_the_recorded_map_round_trips_and_its_absence_is_no_contribution() -> None:
    c = Contribution("2026-11", "a", "food", -500)
    assert from_attribute(to_attribute(c)) == c
    assert from_attribute(None) is None
    assert (c.outflow, c.inflow) == (0, 500)


@pytest.mark.parametrize(
    ("now", "first_open"),
    [
        (datetime(2026, 11, 30, 12, tzinfo=UTC), "2026-09"),  # 120 days back: 2026-08-02
        (datetime(2026, 11, 29, 0, tzinfo=UTC), "2026-09"),  # 2026-08-01 00:00: August's rows may expire now
        (datetime(2026, 11, 28, 23, 59, tzinfo=UTC), "2026-08"),  # a minute earlier August is still open
        (datetime(2027, 3, 1, tzinfo=UTC), "2026-12"),  # across a year
    ],
)
def test_a_month_is_open_until_120_days_after_its_first_day(now: datetime, first_open: str) -> None:
    assert first_open_month(now) == first_open


def test_a_new_contribution_enters_its_four_rows() -> None:
    moves = deltas("t", None, Contribution("2026-11", "a", "food", 1234), OPEN)
    assert set(moves) == {
        SummaryKey("2026-11"),
        SummaryKey("2026-11", "a"),
        SummaryKey("2026-11", None, "food"),
        SummaryKey("2026-11", "a", "food"),
    }
    assert all(
        (d.outflow, d.inflow, d.count, d.entering, d.leaving) == (1234, 0, 1, {"t"}, set()) for d in moves.values()
    )


def test_an_amount_change_moves_only_the_amount() -> None:
    moves = deltas("t", Contribution("2026-11", "a", "food", 1000), Contribution("2026-11", "a", "food", -200), OPEN)
    assert len(moves) == 4
    for d in moves.values():
        assert (d.outflow, d.inflow, d.total, d.count, d.entering, d.leaving) == (-1000, 200, -1200, 0, set(), set())


def test_a_category_change_leaves_two_rows_and_enters_two_and_the_others_stay() -> None:
    moves = deltas("t", Contribution("2026-11", "a", "food", 500), Contribution("2026-11", "a", "travel", 500), OPEN)
    assert set(moves) == {
        SummaryKey("2026-11", None, "food"),
        SummaryKey("2026-11", "a", "food"),
        SummaryKey("2026-11", None, "travel"),
        SummaryKey("2026-11", "a", "travel"),
    }
    assert moves[SummaryKey("2026-11", "a", "food")].leaving == {"t"}
    assert moves[SummaryKey("2026-11", None, "travel")].entering == {"t"}


def test_the_same_contribution_moves_nothing() -> None:
    c = Contribution("2026-11", "a", "food", 500)
    assert deltas("t", c, c, OPEN) == {}


def test_closed_months_never_move() -> None:
    closed, opened = Contribution("2026-08", "a", "food", 500), Contribution("2026-09", "a", "food", 500)
    assert deltas("t", None, closed, OPEN) == {}
    assert deltas("t", closed, None, OPEN) == {}
    # moving out of a closed month into an open one counts in the open month only
    moves = deltas("t", closed, opened, OPEN)
    assert {k.month for k in moves} == {"2026-09"} and all(d.count == 1 for d in moves.values())


def test_expected_totals_add_up_per_row() -> None:
    totals = expected_totals(
        [("t1", Contribution("2026-11", "a", "food", 500)), ("t2", Contribution("2026-11", "b", "pay", -900))], OPEN
    )
    month = totals[SummaryKey("2026-11")]
    assert (month.outflow, month.inflow, month.total, month.count, month.entering) == (500, 900, -400, 2, {"t1", "t2"})


def _cancelled(*codes: str | None) -> ClientError:
    reasons = [{"Code": code} if code else {"Code": "None"} for code in codes]
    return ClientError(
        {"Error": {"Code": "TransactionCanceledException", "Message": "x"}, "CancellationReasons": reasons},
        "TransactWriteItems",
    )


def test_a_cancelled_transaction_says_which_condition_failed() -> None:
    error = translate(_cancelled(None, "ConditionalCheckFailed", None))
    assert isinstance(error, TransactionConditionFailedError) and isinstance(error, ConditionFailedError)
    assert error.reasons == [None, "ConditionalCheckFailed", None]
    assert isinstance(translate(_cancelled(None, "TransactionConflict")), TransactionConflictError)
    assert isinstance(translate(_cancelled("ThrottlingError")), ThrottledError)
    assert TransactionConflictError.retryable
