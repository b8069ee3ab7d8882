"""Savings progress over HTTP: three months, oldest first, a month never seen as nulls; only the user's own."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from chalicelib.insight.data.savings import SavingsAccount, SavingsMonth, month_before, put_savings_month
from chalicelib.insight.savings import month_of
from tests.api.conftest import Api, error_code

pytestmark = pytest.mark.integration

SAVINGS = "/v1/users/{user_id}/savings"


def test_the_user_reads_three_months_of_savings(api: Api, service_api: Api, user_id: str) -> None:
    # GIVEN snapshots of this month and of the month two before it (the user was not seen in between)
    now = datetime.now(UTC)
    this_month = month_of(now)
    seeded = {
        this_month: SavingsMonth(
            user_id,
            this_month,
            (SavingsAccount("acct-s", 123_456, "savings"), SavingsAccount("acct-m", 1_000, "money market")),
            124_456,
            now,
        ),
        month_before(this_month, 2): SavingsMonth(
            user_id, month_before(this_month, 2), (SavingsAccount("acct-s", 100_000, "savings"),), 100_000, now
        ),
    }
    for month in seeded.values():
        assert put_savings_month(month)
    # WHEN the user asks
    response = api.get(SAVINGS, path={"user_id": user_id})
    # THEN three months come back, oldest first, the unseen one empty (a month may have turned meanwhile)
    assert response.status_code == 200
    body = response.json()
    months = [m["month"] for m in body["months"]]
    assert months[-1] in (this_month, month_of(now + timedelta(days=1)))
    assert months == [month_before(months[-1], 2), month_before(months[-1], 1), months[-1]]
    for entry in body["months"]:
        stored = seeded.get(entry["month"])
        if stored is None:
            assert entry == {"month": entry["month"], "total_available": None, "accounts": [], "updated_date": None}
        else:
            assert entry["total_available"] == stored.total_available
            assert entry["accounts"] == [
                {"account_id": a.account_id, "amount": a.amount, "subtype": a.subtype} for a in stored.accounts
            ]
    assert body["user_id"] == user_id
    # AND a service may read it too
    assert service_api.get(SAVINGS, path={"user_id": user_id}).json() == body


def test_another_users_savings_are_forbidden(api: Api, user_id: str) -> None:
    response = api.get(SAVINGS, path={"user_id": f"{user_id}-other"})
    assert response.status_code == 403
    assert error_code(response) == "forbidden"
