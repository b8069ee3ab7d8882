"""Money in that the payday generators do not make, labelled: the income-detection world.

The tuning generator's inflows that are not income (P2P, refunds, own transfers, tax refunds,
other apps' advances, interest) are all named so that the exclusion rules remove them, and
its income is almost all payroll. Income detection has harder cases, so each user of
generator A gets, with the rates below, some of:

- **income** a payroll-centred feed lacks: unemployment benefits (weekly or biweekly, for a
  claim that ends), child support (a state disbursement unit, biweekly or monthly), a pension
  or annuity (monthly), pay from an employer whose deposits carry no payroll wording and
  often no category (biweekly or every four weeks), paper paychecks deposited by phone (a
  day or a few after payday, "MOBILE DEPOSIT" like any other check), and self-employment
  payouts from platforms the gig rules do not name (irregular);
- **money that is not income but passes every exclusion rule**: automatic transfers from the
  user's savings at a bank that is not linked (monthly or on payday, round amounts), brokerage
  and crypto withdrawals, family support by ACH or wire (monthly, a fixed round amount, a few
  days either way), loan disbursements, insurance claims and settlements, merchant credits and
  bank sign-up bonuses, with categories missing or vague as often as not.

Labels are by construction. Generator B is never augmented: it stays the held-out world.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date, timedelta
from typing import Any

from ops.synthetic import fedcal
from ops.synthetic.income_labels import LabelledUser, labelled
from ops.synthetic.users import FUTURE_DAYS, HISTORY_DAYS
from ops.synthetic.vocab import PEOPLE

#: Per user: the chance of each kind of inflow stream.
RATES: dict[str, float] = {
    "unemployment": 0.06,
    "child_support": 0.07,
    "pension": 0.05,
    "plain_employer": 0.08,
    "paper_paycheck": 0.04,
    "self_employed": 0.06,
    "savings_elsewhere": 0.14,
    "brokerage": 0.10,
    "family_support": 0.10,
    "loan": 0.07,
    "claim": 0.06,
    "merchant_credit": 0.10,
    "bank_bonus": 0.05,
}

_UNEMPLOYMENT = (
    "NYS DOL UI DD",
    "TWC-BENEFITS DES:UI BENEFIT",
    "DES UNEMPLOYMENT PMT",
    "STATE OF NJ UI BENEFIT",
    "PA UC BENEFITS DEPOSIT",
    "CDLE UI PAYMENT",
)
_CHILD_SUPPORT = (
    "CHILD SUPPORT PMT",
    "OAG CHILD SUPPORT",
    "STATE DISBURSEMENT UNIT",
    "NCP CHILD SUPPORT DEP",
    "FL SDU CHILD SUPPORT",
)
_PENSION = (
    "CALPERS RETIREMENT",
    "PENSION PAYMENT",
    "TEACHERS RETIREMENT SYS",
    "MET LIFE ANNUITY",
    "OPM1 TREAS 310 CIV SERV RET",
    "UNION PENSION FUND",
)
_PLAIN_EMPLOYERS = (
    "ZENITH AIRLINES",
    "CRESTVIEW CLINIC",
    "BLUE HERON FOODS",
    "MERIDIAN TOOLING",
    "OAKRIDGE NURSING",
    "VANTAGE DATA SVCS",
    "SILVER SPRING TRANSIT",
    "HARVEST MOON FARMS",
)
_SELF_EMPLOYED = ("WAG LABS PAYOUT", "TURO INC PAYOUT", "STRIPE TRANSFER", "SHOPIFY PAYOUT", "THUMBTACK PAYOUT")
_SAVINGS_BANKS = (
    "ALLY BANK $TRANSFER",
    "MARCUS GS BANK ACH",
    "CAPITAL ONE 360 ACH",
    "DISCOVER BANK ACH",
    "AMEX NATL BANK SAVINGS",
    "SYNCHRONY BANK ACH",
)
_BROKERAGES = (
    "ROBINHOOD DES:FUNDS",
    "COINBASE INC",
    "SCHWAB BROKERAGE MONEYLINK",
    "FIDELITY INVESTMENTS",
    "WEBULL FINANCIAL",
    "VANGUARD BUY SELL",
)
_LENDERS = ("UPSTART NETWORK", "SOFI LENDING CORP", "ONEMAIN FINANCIAL", "LENDINGCLUB BANK", "AVANT LLC")
_CLAIMS = ("STATE FARM CLAIM PMT", "GEICO CLAIMS", "ALLSTATE CLAIM", "SETTLEMENT ADMIN", "PROGRESSIVE INS CLAIM")
_MERCHANT_CREDITS = (
    "AMAZON MKTPLACE PMTS",
    "BEST BUY CREDIT",
    "COSTCO WHSE PRICE ADJ",
    "DELTA AIR LINES CREDIT",
    "COMCAST SERVICE CREDIT",
)
_BONUSES = ("CHASE CHECKING BONUS", "NEW ACCOUNT BONUS", "PROMOTIONAL CREDIT", "SOFI MEMBER BONUS")


@dataclass
class _Feed:
    rng: random.Random
    user_id: str
    start: date
    end: date
    v2: bool
    rows: list[dict[str, Any]]
    income: set[str]

    def pfc(self, detailed: str | None) -> dict[str, str] | None:
        if detailed is None:
            return None
        if self.v2:
            detailed = {"INCOME_WAGES": "INCOME_SALARY", "INCOME_OTHER_INCOME": "INCOME_OTHER"}.get(detailed, detailed)
        primary = "LOAN_DISBURSEMENTS" if detailed.startswith("LOAN_DISBURSEMENTS") else detailed.split("_")[0]
        primary = "TRANSFER_IN" if detailed.startswith("TRANSFER_IN") else primary
        return {"primary": primary, "detailed": detailed}

    def credit(self, day: date, cents: int, name: str, pfc: str | None, *, income: bool, account: str = "chk") -> None:
        if not self.start <= day <= self.end or cents <= 0:
            return
        txn_id = f"{self.user_id}-in{len(self.rows):03d}-{self.rng.getrandbits(24):06x}"
        self.rows.append(
            {
                "txn_id": txn_id,
                "account_id": f"{self.user_id}-{account}",
                "amount": -cents,
                "iso_currency_code": "USD",
                "date": day.isoformat(),
                "authorized_date": None,
                "name": name,
                "merchant_name": None,
                "personal_finance_category": self.pfc(pfc),
                "category": None,
                "pending": False,
                "transaction_type": "special",
            }
        )
        if income:
            self.income.add(txn_id)

    def some_day(self) -> date:
        return self.start + timedelta(days=self.rng.randrange((self.end - self.start).days + 1))

    def category(self, weights: dict[str | None, int]) -> str | None:
        return self.rng.choices(list(weights), list(weights.values()))[0]


def _every(feed: _Feed, first: date, step: int, until: date | None = None) -> list[date]:
    days, day = [], first
    while day <= (until or feed.end):
        days.append(day)
        day += timedelta(days=step)
    return days


def _monthly(feed: _Feed, day_of_month: int) -> list[date]:
    out, year, month = [], feed.start.year, feed.start.month
    while date(year, month, 1) <= feed.end:
        last = (date(year + (month == 12), month % 12 + 1, 1) - timedelta(days=1)).day
        out.append(date(year, month, min(day_of_month, last)))
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return out


def _friday_phase(feed: _Feed, weeks: int) -> date:
    first_friday = feed.start + timedelta(days=(4 - feed.start.weekday()) % 7)
    return first_friday - timedelta(days=7 * feed.rng.randrange(weeks))


# --- income -------------------------------------------------------------------------------------


def _unemployment(feed: _Feed) -> None:
    rng = feed.rng
    name, step = rng.choice(_UNEMPLOYMENT), rng.choice((7, 14))
    cents = rng.randint(250, 900) * 100 * step // 7  # whole dollars
    claim_start = feed.start + timedelta(days=rng.randrange(-60, 90))
    weekday_first = claim_start + timedelta(days=(rng.choice((0, 1, 2, 3)) - claim_start.weekday()) % 7)
    claim_end = claim_start + timedelta(weeks=rng.choice((12, 16, 20, 26, 39)))
    pfc = feed.category({"INCOME_UNEMPLOYMENT": 50, None: 40, "TRANSFER_IN_DEPOSIT": 10})
    for day in _every(feed, weekday_first, step, claim_end):
        feed.credit(fedcal.roll_forward(day), cents, name, pfc, income=True)


def _child_support(feed: _Feed) -> None:
    rng = feed.rng
    name = rng.choice(_CHILD_SUPPORT)
    cents = rng.randint(15, 80) * 10_00 if rng.random() < 0.5 else rng.randint(150_00, 800_00)  # often round
    pfc = feed.category({"INCOME_OTHER_INCOME": 40, None: 50, "TRANSFER_IN_DEPOSIT": 10})
    if rng.random() < 0.5:
        days = _every(feed, _friday_phase(feed, 2), 14)
    else:
        days = [fedcal.roll_forward(d) for d in _monthly(feed, rng.choice((1, 5, 15)))]
    for day in days:
        if rng.random() < 0.06:
            continue  # the other parent paid nothing this time
        amount = cents if rng.random() < 0.8 else round(cents * rng.uniform(0.3, 1.0))
        feed.credit(
            fedcal.roll_forward(day + timedelta(days=rng.choice((0, 0, 0, 1, 2)))), amount, name, pfc, income=True
        )


def _pension(feed: _Feed) -> None:
    rng = feed.rng
    name, cents = rng.choice(_PENSION), rng.randint(400_00, 3_500_00)
    pfc = feed.category({"INCOME_RETIREMENT_PENSION": 55, None: 40, "TRANSFER_IN_DEPOSIT": 5})
    day_of_month = rng.choice((1, 1, 3, 31))
    for day in _monthly(feed, day_of_month):
        posted = fedcal.roll_back(day) if day_of_month == 31 else fedcal.roll_forward(day)
        feed.credit(posted, cents, name, pfc, income=True)


def _plain_employer(feed: _Feed) -> None:
    rng = feed.rng
    employer, weeks = rng.choice(_PLAIN_EMPLOYERS), rng.choice((2, 2, 4))
    cents = rng.randint(600_00, 2_400_00) * weeks // 2
    reference = f"{rng.randrange(10**6, 10**7)}"
    name = rng.choice(
        (
            f"{employer} {reference}",
            f"ACH CREDIT {employer}",
            f"{employer} ACH DEPOSIT",
            f"DEPOSIT {employer} {reference}",
        )
    )
    hourly = rng.random() < 0.5
    for day in _every(feed, _friday_phase(feed, weeks), 7 * weeks):
        pfc = feed.category({None: 60, "INCOME_WAGES": 15, "TRANSFER_IN_DEPOSIT": 25})
        amount = round(cents * (1 + rng.gauss(0, 0.12 if hourly else 0.003)))
        feed.credit(fedcal.roll_back(day), amount, name, pfc, income=True)


def _paper_paycheck(feed: _Feed) -> None:
    rng = feed.rng
    cents = rng.randint(400_00, 1_600_00)
    for day in _every(feed, _friday_phase(feed, 2), 14):
        deposited = fedcal.roll_forward(day + timedelta(days=rng.choice((0, 1, 1, 2, 3, 4))))
        pfc = feed.category({"TRANSFER_IN_DEPOSIT": 60, None: 40})
        feed.credit(deposited, round(cents * rng.uniform(0.9, 1.1)), "MOBILE DEPOSIT", pfc, income=True)


def _self_employed(feed: _Feed) -> None:
    rng = feed.rng
    name = rng.choice(_SELF_EMPLOYED)
    pfc = feed.category({None: 55, "TRANSFER_IN_DEPOSIT": 30, "INCOME_OTHER_INCOME": 15})
    day = feed.start + timedelta(days=rng.randrange(10))
    while day <= feed.end:
        feed.credit(fedcal.roll_forward(day), round(rng.lognormvariate(5.3, 0.6) * 100), name, pfc, income=True)
        day += timedelta(days=rng.choice((3, 5, 7, 7, 9, 14, 21)))


# --- not income ---------------------------------------------------------------------------------


def _savings_elsewhere(feed: _Feed) -> None:
    rng = feed.rng
    name, cents = rng.choice(_SAVINGS_BANKS), rng.choice((50, 100, 150, 200, 250, 300, 500, 750, 1000)) * 100
    if rng.random() < 0.15:
        cents = rng.randint(40_00, 900_00)  # a share of a balance, not a round sum
    pfc = feed.category(
        {
            None: 55,
            "TRANSFER_IN_ACCOUNT_TRANSFER": 25,
            "TRANSFER_IN_SAVINGS": 10,
            "INCOME_OTHER_INCOME": 5,
            "TRANSFER_IN_DEPOSIT": 5,
        }
    )
    pattern = rng.choice(("monthly", "biweekly", "ad_hoc"))
    if pattern == "monthly":
        days = [fedcal.roll_forward(d) for d in _monthly(feed, rng.choice((1, 5, 10, 15, 20, 28)))]
    elif pattern == "biweekly":
        days = [fedcal.roll_forward(d) for d in _every(feed, _friday_phase(feed, 2), 14)]
    else:
        days = sorted(fedcal.roll_forward(feed.some_day()) for _ in range(rng.randint(1, 6)))
    for day in days:
        amount = cents if pattern != "ad_hoc" else rng.choice((100, 200, 300, 400, 500, 800, 1000, 1500)) * 100
        feed.credit(day, amount, name, pfc, income=False)


def _brokerage(feed: _Feed) -> None:
    rng = feed.rng
    name = rng.choice(_BROKERAGES)
    pfc = feed.category({None: 50, "TRANSFER_IN_INVESTMENT_AND_RETIREMENT_FUNDS": 35, "TRANSFER_IN_DEPOSIT": 15})
    for _ in range(rng.randint(1, 5)):
        cents = rng.choice((round(rng.lognormvariate(6.0, 0.9) * 100), rng.choice((200, 500, 1000, 2500)) * 100))
        feed.credit(fedcal.roll_forward(feed.some_day()), cents, name, pfc, income=False)


def _family_support(feed: _Feed) -> None:
    rng = feed.rng
    person = rng.choice(PEOPLE)
    name = rng.choice((f"ACH CREDIT {person}", f"INCOMING WIRE {person}", f"{person} PPD", f"DEPOSIT FROM {person}"))
    cents = rng.choice((100, 150, 200, 250, 300, 400, 500, 600, 800, 1000, 1200)) * 100
    if rng.random() < 0.25:
        cents = rng.randint(80_00, 1_200_00)  # not every family rounds
    pfc = feed.category(
        {
            None: 50,
            "TRANSFER_IN_WIRE": 15,
            "TRANSFER_IN_DEPOSIT": 20,
            "INCOME_OTHER_INCOME": 5,
            "TRANSFER_IN_ACCOUNT_TRANSFER": 10,
        }
    )
    for day in _monthly(feed, rng.randint(1, 28)):
        if rng.random() < 0.1:
            continue
        posted = fedcal.roll_forward(day + timedelta(days=rng.randint(-3, 3)))
        feed.credit(posted, cents if rng.random() < 0.85 else cents * 2, name, pfc, income=False)


def _one_off(
    names: tuple[str, ...], low: int, high: int, categories: dict[str | None, int], most: int
) -> Callable[[_Feed], None]:
    def post(feed: _Feed) -> None:
        rng = feed.rng
        name, pfc = rng.choice(names), feed.category(categories)
        for _ in range(rng.randint(1, most)):
            feed.credit(fedcal.roll_forward(feed.some_day()), rng.randint(low, high), name, pfc, income=False)

    return post


_KINDS: dict[str, Callable[[_Feed], None]] = {
    "unemployment": _unemployment,
    "child_support": _child_support,
    "pension": _pension,
    "plain_employer": _plain_employer,
    "paper_paycheck": _paper_paycheck,
    "self_employed": _self_employed,
    "savings_elsewhere": _savings_elsewhere,
    "brokerage": _brokerage,
    "family_support": _family_support,
    "loan": _one_off(
        _LENDERS, 1_000_00, 15_000_00, {None: 45, "LOAN_DISBURSEMENTS_PERSONAL": 35, "TRANSFER_IN_DEPOSIT": 20}, 1
    ),
    "claim": _one_off(_CLAIMS, 200_00, 6_000_00, {None: 60, "TRANSFER_IN_DEPOSIT": 30, "INCOME_OTHER_INCOME": 10}, 2),
    "merchant_credit": _one_off(
        _MERCHANT_CREDITS, 5_00, 400_00, {None: 50, "TRANSFER_IN_DEPOSIT": 20, "GENERAL_MERCHANDISE_OTHER": 30}, 3
    ),
    "bank_bonus": _one_off(
        _BONUSES, 50_00, 400_00, {None: 60, "INCOME_OTHER_INCOME": 20, "TRANSFER_IN_DEPOSIT": 20}, 1
    ),
}


def augment(base: LabelledUser, seed: int, index: int) -> LabelledUser:
    """``base`` with this module's inflows added (the same arguments add the same ones)."""
    rng = random.Random(f"inflows:{seed}:{index}")  # noqa: S311 - reproducible test data is the point
    person = base.user
    has_mobile = any(t["name"] == "MOBILE DEPOSIT" for t in person.transactions)
    feed = _Feed(
        rng,
        person.user_id,
        person.as_of - timedelta(days=HISTORY_DAYS - 1),
        person.as_of + timedelta(days=FUTURE_DAYS),
        rng.random() < 0.4,
        [],
        set(),
    )
    for kind, rate in RATES.items():
        if rng.random() < rate and not (kind == "paper_paycheck" and has_mobile):
            _KINDS[kind](feed)
    rows = list(person.transactions) + feed.rows
    rng.shuffle(rows)
    return LabelledUser(replace(person, transactions=tuple(rows)), base.income_ids | frozenset(feed.income))


def make_user(seed: int, index: int) -> LabelledUser:
    """User ``index`` of generator A and ``seed``, labelled, with this module's inflows."""
    return augment(labelled("A", seed, index), seed, index)
