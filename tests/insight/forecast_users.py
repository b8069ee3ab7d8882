"""A user with a history worth forecasting, stored as the refiner and the add-item API store one.

Paid every other Friday (the business day before when a Friday is a holiday), rent on the
1st (the next business day when the 1st is not one), groceries every day, for the 120 days
ending ``today``; an ACTIVE item whose designated main account is the checking account.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from chalicelib.data import accounts, items, transactions
from chalicelib.data.accounts import Account, Balances
from chalicelib.data.transactions import Transaction
from chalicelib.insight.calendar import next_business_day, previous_business_day
from tests.factories import uid
from tests.insight.balances import set_threshold

PAY = 200_000
RENT = 150_000
GROCERIES = 2_500
RENT_PFC = {"primary": "RENT_AND_UTILITIES", "detailed": "RENT_AND_UTILITIES_RENT"}
WAGES_PFC = {"primary": "INCOME", "detailed": "INCOME_WAGES"}


@dataclass(frozen=True)
class ForecastUser:
    user_id: str
    item_id: str
    checking_id: str
    #: The Fridays the user was paid on (before the holiday roll), newest first.
    paydays: tuple[date, ...]


def last_payday(today: date, days_to_next: int) -> date:
    """The payday two weeks before the Friday that is ``days_to_next`` days away, or closest to it."""
    target = today + timedelta(days=days_to_next)
    friday = target - timedelta(days=(target.weekday() - 4) % 7)
    return friday - timedelta(days=14)


def history(user_id: str, account_id: str, item_id: str, today: date, last_pay: date) -> list[Transaction]:
    def row(day: date, cents: int, name: str, **extra: object) -> Transaction:
        return Transaction(
            user_id=user_id,
            acct_id=account_id,
            txn_id=uid("txn"),
            amount=cents,
            txn_date=day,
            name=name,
            iso_currency_code="USD",
            item_id=item_id,
            **extra,  # type: ignore[arg-type]
        )

    first = today - timedelta(days=119)
    rows = [row(first + timedelta(days=k), GROCERIES, "CORNER MARKET 0042") for k in range(120)]
    friday = last_pay
    while friday >= first:
        day = previous_business_day(friday)
        if first <= day <= today:
            rows.append(row(day, -PAY, "ACME CORP DES:PAYROLL ID:77 PPD", personal_finance_category=WAGES_PFC))
        friday -= timedelta(days=14)
    month = date(first.year, first.month, 1)
    while month <= today:
        day = next_business_day(month)
        if first <= day <= today:
            rows.append(row(day, RENT, "OAKWOOD APARTMENTS RENT WEB PMTS", personal_finance_category=RENT_PFC))
        month = date(month.year + (month.month == 12), month.month % 12 + 1, 1)
    return rows


def store_forecast_user(
    user_id: str,
    today: date,
    now: datetime,
    *,
    available: int,
    threshold_dollars: int | None = None,
    days_to_next_payday: int = 7,
) -> ForecastUser:
    """The user stored (see the module docstring), ``available`` cents in checking today."""
    item_id, checking_id = uid("item"), uid("acct")
    account = Account(
        user_id=user_id,
        item_id=item_id,
        acct_id=checking_id,
        name="Checking",
        type="depository",
        subtype="checking",
        mask="0000",
        balances=Balances(available=available, current=available, iso_currency_code="USD"),
    )
    accounts.put_account_items([accounts.account_item(account, now)])
    items.create_item(
        items.Item(
            user_id=user_id,
            item_id=item_id,
            access_token=uid("access-sandbox"),
            institution_id="ins_1",
            created_at=now.isoformat(),
            main_account_id=checking_id,
        ),
        now,
    )
    last_pay = last_payday(today, days_to_next_payday)
    rows = history(user_id, checking_id, item_id, today, last_pay)
    transactions.put_transaction_items(transactions.transaction_item(t, now) for t in rows)
    if threshold_dollars is not None:
        set_threshold(user_id, threshold_dollars)
    paydays = tuple(last_pay - timedelta(days=14 * k) for k in range(9))
    return ForecastUser(user_id, item_id, checking_id, paydays)
