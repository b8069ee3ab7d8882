"""The held-out generator ("B"): written separately from the tuning generator, to check the
payday model on assumptions it was not tuned on. Never tune on it.

It simulates day by day: each day every employer asks its own pay rule whether it is a
payday (a predicate, not date arithmetic), pays on the business day before or after a
closed day, and each bank posts the credit when its file arrives. Its world differs from the
tuning generator's on purpose: employers paying every four weeks, rarer semi-monthly pairs
(the 12th/27th, the 1st/16th, the 15th/30th), the first Friday of the month, more employers
rolling forward (15%), banks whose early posting slips a day a quarter of the time, more
ACH delays (1% of deposits, up to three business days) and unpaid cycles (0.5%), more
missing categories (35%), bank descriptions in other formats (long NACHA-style lines,
truncation at 40 characters), job changes that overlap, pay moved to a new account, and gig
workers who cash out whenever their balance passes a threshold (near-regular intervals,
any weekday). The truth is defined as in the tuning generator: the next day the primary
income (largest monthly amount still paying at ``as_of``) lands in its main account.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from ops.synthetic import fedcal
from ops.synthetic.users import FUTURE_DAYS, HISTORY_DAYS, Facts, Pay, SyntheticUser, Truth

PayRule = Callable[[date], bool]

_EMPLOYERS = (
    "NORTHSTAR MEDICAL",
    "BLUEPEAK LOGISTICS",
    "REDWOOD GROCERS",
    "HALCYON HOTELS",
    "IRONGATE MFG",
    "SILVERLAKE SCHOOLS",
    "COPPER CANYON CASINO",
    "FIRSTLINE STAFFING",
    "GOLDEN STATE FOODS",
    "PRAIRIE WIND FARMS",
    "HUDSON CALL CENTER",
    "LIBERTY HOME CARE",
    "SUMMIT WAREHOUSE",
    "EVERGREEN UTILITIES",
    "CASCADE RETAIL GROUP",
    "BRIGHTSIDE PEDIATRICS",
)
_GIG = ("DOORDASH, INC.", "UBER TECHNOLOGIES", "LYFT, INC.", "INSTACART", "AMAZON FLEX", "SPARK DRIVER")
_FRIENDS = ("K. OKAFOR", "M. ROSSI", "J. KIM", "T. BECKER", "L. SILVA", "R. SINGH")


def _rule(rng: random.Random) -> tuple[str, PayRule, str]:
    """A pay rule as a predicate on days, its cadence and a label."""
    kind = rng.choices(["weekly", "biweekly", "fourweekly", "semi", "monthly"], [25, 40, 4, 18, 13])[0]
    weekday = rng.choices([4, 3, 2, 1, 0], [65, 18, 8, 5, 4])[0]
    anchor = date(2020, 1, 6) + timedelta(days=weekday + 7 * rng.randrange(4))
    if kind in ("weekly", "biweekly", "fourweekly"):
        period = {"weekly": 7, "biweekly": 14, "fourweekly": 28}[kind]
        cadence = {"weekly": "WEEKLY", "biweekly": "BIWEEKLY", "fourweekly": "FOUR_WEEKLY"}[kind]
        return cadence, lambda d: (d - anchor).days % period == 0, f"every {period} days from {anchor}"
    if kind == "semi":
        pair = rng.choices([(1, 15), (15, 0), (12, 27), (1, 16), (15, 30), (10, 25)], [30, 35, 8, 9, 9, 9])[0]

        def semi(d: date) -> bool:
            last = (d + timedelta(days=1)).day == 1  # 0 is the last day; a day past the end is too
            return any((day == 0 and last) or (day and (d.day == day or (last and d.day < day))) for day in pair)

        return "SEMI_MONTHLY", semi, f"days {pair}"
    pick = rng.choice(["eom", "first", "first_friday", "day"])
    if pick == "eom":
        return "MONTHLY", lambda d: (d + timedelta(days=1)).day == 1, "month end"
    if pick == "first_friday":
        return "MONTHLY", lambda d: d.weekday() == 4 and d.day <= 7, "first Friday"
    day = 1 if pick == "first" else rng.randint(2, 28)
    return "MONTHLY", lambda d: d.day == day, f"day {day}"


@dataclass
class _Employer:
    name: str
    cadence: str
    is_payday: PayRule
    label: str
    forward: bool
    per_check: int
    first: date
    last: date
    account: str
    style: int

    def monthly(self) -> float:
        per_month = {"WEEKLY": 4.35, "BIWEEKLY": 2.17, "FOUR_WEEKLY": 1.09, "SEMI_MONTHLY": 2.0, "MONTHLY": 1.0}
        return self.per_check * per_month[self.cadence]


@dataclass
class _World:
    rng: random.Random
    uid: str
    as_of: date
    early: int
    slip: float
    v2: bool
    gap: float
    rows: list[dict[str, Any]]
    history: int = HISTORY_DAYS

    def pfc(self, kind: str | None) -> dict[str, str] | None:
        names = {
            "pay": ("INCOME", "INCOME_SALARY" if self.v2 else "INCOME_WAGES"),
            "gig": ("INCOME", "INCOME_GIG_ECONOMY" if self.v2 else "INCOME_WAGES"),
            "benefit": ("INCOME", "INCOME_RETIREMENT_PENSION"),
            "transfer": ("TRANSFER_IN", "TRANSFER_IN_ACCOUNT_TRANSFER"),
            "deposit": ("TRANSFER_IN", "TRANSFER_IN_DEPOSIT"),
            "advance": (
                ("LOAN_DISBURSEMENTS", "LOAN_DISBURSEMENTS_CASH_ADVANCES")
                if self.v2
                else ("TRANSFER_IN", "TRANSFER_IN_CASH_ADVANCES_AND_LOANS")
            ),
            "tax": ("INCOME", "INCOME_TAX_REFUND"),
        }
        if kind is None or kind not in names:
            return None
        primary, detailed = names[kind]
        return {"primary": primary, "detailed": detailed}

    def credit(self, account: str, day: date, cents: int, name: str, kind: str | None) -> str:
        """Record one credit; its id."""
        if kind in ("pay", "gig") and self.rng.random() < 0.35:
            kind = None
        elif kind == "pay" and self.rng.random() < 0.08:
            kind = "deposit"
        self.rows.append(
            {
                "txn_id": f"{self.uid}:{len(self.rows)}",
                "account_id": account,
                "amount": -cents,
                "iso_currency_code": "USD",
                "date": day.isoformat(),
                "authorized_date": None,
                "name": name[:40] if self.rng.random() < 0.3 else name,
                "merchant_name": None,
                "personal_finance_category": self.pfc(kind),
                "category": ["Transfer", "Payroll"] if kind == "pay" and self.rng.random() < 0.4 else None,
                "pending": False,
            }
        )
        return str(self.rows[-1]["txn_id"])

    def planned_day(self, payday: date) -> date:
        """The day the bank usually posts a credit for ``payday`` (no slip, no delay)."""
        return fedcal.business_days_before(payday, self.early) if self.early else payday

    def post_day(self, payday: date) -> tuple[date, str | None]:
        """The day the credit for ``payday`` posts, and why it differs from the planned day."""
        early = self.early - (1 if self.early and self.rng.random() < self.slip else 0)
        day = fedcal.business_days_before(payday, early) if early else payday
        deviation = "slip" if early != self.early else None
        if self.rng.random() < 0.01:
            day = fedcal.business_days_before(day, -self.rng.randint(1, 3))
            deviation = "ach_delay"
        return day, deviation


def _describe(employer: _Employer, day: date, rng: random.Random) -> str:
    ref = rng.randrange(10**6, 10**7)
    return (
        f"ORIG CO NAME:{employer.name} CO ENTRY DESCR:PAYROLL SEC:PPD TRACE#:{ref} EED:{day:%y%m%d}",
        f"PAYROLL {employer.name} {ref}",
        f"{employer.name} PAYRL DEP",
        f"ELECTRONIC DEPOSIT {employer.name}",
        f"{employer.name} EDI PYMNTS",
    )[employer.style]


def _employers(world: _World, archetype: str) -> list[_Employer]:
    rng, start = world.rng, world.as_of - timedelta(days=world.history + 60)
    end = world.as_of + timedelta(days=FUTURE_DAYS)

    def hire(first: date = start, last: date = end, account: str = "chk", scale: float = 1.0) -> _Employer:
        cadence, rule, label = _rule(rng)
        per_check = round(rng.randint(700_00, 2_600_00) * scale)
        name = rng.choice(_EMPLOYERS)
        return _Employer(
            name, cadence, rule, label, rng.random() < 0.15, per_check, first, last, account, rng.randrange(5)
        )

    if archetype == "job_change":
        switch = world.as_of - timedelta(days=rng.randint(10, 95))
        old = hire(last=switch + timedelta(days=rng.randint(-5, 14)))
        new = hire(first=switch)
        while new.name == old.name:
            new.name = rng.choice(_EMPLOYERS)
        return [new, old]
    if archetype == "new_account":
        switch = world.as_of - timedelta(days=rng.randint(20, 90))
        old = hire(last=switch)
        return [replace_account(old, switch), old]
    if archetype == "two_jobs":
        main = hire()
        side = hire(scale=rng.uniform(0.2, 0.5))
        while side.name == main.name:
            side.name = rng.choice(_EMPLOYERS)
        return [main, side]
    return [hire()]


def replace_account(employer: _Employer, switch: date) -> _Employer:
    """The same employer paying into a new account from ``switch``."""
    return _Employer(
        employer.name,
        employer.cadence,
        employer.is_payday,
        employer.label,
        employer.forward,
        employer.per_check,
        switch + timedelta(days=1),
        employer.last + timedelta(days=HISTORY_DAYS + FUTURE_DAYS),
        "new",
        employer.style,
    )


def _roll(employer: _Employer, day: date) -> date:
    return fedcal.roll_forward(day) if employer.forward else fedcal.roll_back(day)


def _simulate_pay(world: _World, employer: _Employer, days: list[date]) -> list[Pay]:
    """Pay ``employer``'s paydays: each one's rule date, payday, planned and landed day."""
    rng, records = world.rng, []
    for day in days:
        if not employer.is_payday(day) or not employer.first <= day <= employer.last:
            continue
        payday = _roll(employer, day)
        planned = world.planned_day(payday)
        if rng.random() < 0.005:
            records.append(Pay(day, payday, planned, None, "unpaid", False, ()))
            continue
        posted, deviation = world.post_day(payday)
        if rng.random() < world.gap:
            records.append(Pay(day, payday, planned, posted, deviation, True, ()))
            continue
        cents = round(employer.per_check * rng.uniform(0.85, 1.15))
        txn_id = world.credit(f"{world.uid}-{employer.account}", posted, cents, _describe(employer, posted, rng), "pay")
        records.append(Pay(day, payday, planned, posted, deviation, False, (txn_id,)))
    return records


def _ssa(world: _World, days: list[date]) -> list[Pay]:
    week = world.rng.choice([2, 3, 4])
    cents, records = world.rng.randint(800_00, 2_200_00), []
    for day in days:
        if day.weekday() == 2 and (day.day - 1) // 7 + 1 == week:
            posted, deviation = world.post_day(fedcal.roll_back(day))
            planned = world.planned_day(fedcal.roll_back(day))
            txn_id = world.credit(f"{world.uid}-chk", posted, cents, "SOC SEC TREAS 310 XXSOC SEC", "benefit")
            records.append(Pay(day, fedcal.roll_back(day), planned, posted, deviation, False, (txn_id,)))
    return records


def _gig(world: _World, days: list[date]) -> None:
    """Cash out when the balance passes a threshold: near-regular gaps on any weekday."""
    rng = world.rng
    platform, threshold, balance = rng.choice(_GIG), rng.randint(100_00, 300_00), 0
    for day in days:
        if rng.random() < 0.75:
            balance += rng.randint(20_00, 120_00)
        if balance >= threshold:
            world.credit(f"{world.uid}-chk", day, balance, f"{platform} INSTANT TRANSFER", "gig")
            balance = 0


def _noise(world: _World, days: list[date], paid: list[date]) -> None:
    rng, chk = world.rng, f"{world.uid}-chk"
    friend = rng.choice(_FRIENDS)
    for day in days:
        roll = rng.random()
        if roll < 0.03:
            world.credit(chk, day, rng.randint(5_00, 300_00), f"ZELLE FROM {rng.choice(_FRIENDS)}", "transfer")
        elif roll < 0.04:
            world.credit(chk, day, rng.randint(100_00, 900_00), "TRANSFER FROM SAVINGS 0042", "transfer")
        elif roll < 0.045:
            world.credit(chk, day, rng.randint(3_00, 90_00), "MERCHANT CREDIT RETURN", None)
        if day.day == 2 and rng.random() < 0.6:
            world.credit(chk, day, 650_00, f"VENMO *{friend} RENT SHARE", None)
    if paid and rng.random() < 0.3:
        for day in paid:
            world.credit(chk, fedcal.business_days_before(day, 2), 100_00, "BRIGIT ADVANCE", "advance")
    if rng.random() < 0.35:
        world.credit(chk, days[len(days) // 2], rng.randint(500_00, 3_000_00), "US TREASURY TAX REFUND", "tax")


def _spending(world: _World, days: list[date]) -> None:
    rng = world.rng
    for day in days:
        for _ in range(rng.randint(0, 4)):
            world.rows.append(
                {
                    "txn_id": f"{world.uid}:{len(world.rows)}",
                    "account_id": f"{world.uid}-chk",
                    "amount": rng.randint(2_00, 90_00),
                    "iso_currency_code": "USD",
                    "date": day.isoformat(),
                    "authorized_date": day.isoformat(),
                    "name": rng.choice(("POS DEBIT GAS N GO", "CORNER MARKET", "ONLINE STORE 88", "DINER 24")),
                    "merchant_name": None,
                    "personal_finance_category": None,
                    "category": None,
                    "pending": day >= world.as_of - timedelta(days=1) and rng.random() < 0.5,
                }
            )


ARCHETYPES = (
    ("single", 50),
    ("two_jobs", 10),
    ("job_change", 10),
    ("new_account", 4),
    ("benefits", 6),
    ("gig_only", 15),
    ("no_income", 5),
)


def make_user(seed: int, index: int, history_days: int = HISTORY_DAYS) -> SyntheticUser:
    """User ``index`` of seed ``seed`` with ``history_days`` of history before ``as_of``."""
    rng = random.Random(f"payday-B:{seed}:{index}")  # noqa: S311 - reproducible test data is the point
    as_of = date(2022, 6, 1) + timedelta(days=rng.randrange((date(2028, 9, 30) - date(2022, 6, 1)).days))
    early = rng.choices([0, 1, 2], [70, 12, 18])[0]
    world = _World(
        rng,
        f"b{seed}-{index:05d}",
        as_of,
        early,
        0.25 if early and rng.random() < 0.2 else 0.0,
        rng.random() < 0.5,
        0.1 if rng.random() < 0.1 else 0.0,
        [],
        history_days,
    )
    archetype = rng.choices([a for a, _ in ARCHETYPES], [w for _, w in ARCHETYPES])[0]
    first = as_of - timedelta(days=history_days - 1)
    days = [first + timedelta(days=n) for n in range(history_days + FUTURE_DAYS)]
    truth = Truth(None, "NONE", archetype)
    paid: list[date] = []
    if archetype == "benefits":
        records = _ssa(world, days)
        paid = [p.landed for p in records if p.landed]
        facts = _facts(world, records, [records], "PREV", f"{world.uid}-chk", None)
        truth = Truth(_next(paid, as_of), "MONTHLY", archetype, "SSA", "nth Wednesday", facts.scheduled, facts.facts)
    elif archetype in ("gig_only",):
        _gig(world, days)
    elif archetype != "no_income":
        employers = _employers(world, archetype)
        landed = {id(e): _simulate_pay(world, e, days) for e in employers}
        # The primary pays again after ``as_of``: a job that ends before its next payday is not it.
        active = [
            e
            for e in employers
            if e.first <= as_of <= e.last and any(p.landed and p.landed > as_of for p in landed[id(e)])
        ]
        if active:
            primary = max(active, key=lambda e: e.monthly())
            records = landed[id(primary)]
            paid = [p.landed for p in records if p.landed]
            roll = "NEXT" if primary.forward else "PREV"
            started = primary.first if primary.first >= first else None
            facts = _facts(world, records, list(landed.values()), roll, f"{world.uid}-{primary.account}", started)
            truth = Truth(
                _next(paid, as_of),
                primary.cadence,
                archetype,
                primary.name,
                primary.label,
                facts.scheduled,
                facts.facts,
            )
    _noise(world, days, paid)
    _spending(world, days)
    rng.shuffle(world.rows)
    return SyntheticUser(world.uid, as_of, archetype, tuple(world.rows), truth)


def _next(days: list[date], as_of: date) -> date:
    return min(d for d in days if d > as_of)


@dataclass(frozen=True)
class _Facts:
    scheduled: date
    facts: Facts


def _facts(
    world: _World, records: list[Pay], every: list[list[Pay]], roll: str, account: str, first_pay: date | None
) -> _Facts:
    """The truth's facts (see :class:`ops.synthetic.users.Facts`) about ``records``, the
    primary income's paydays."""
    as_of, start = world.as_of, world.as_of - timedelta(days=world.history - 1)
    upcoming = _next([p.landed for p in records if p.landed], as_of)
    planned = min((p for p in records if p.scheduled > as_of), key=lambda p: p.scheduled)
    if upcoming == planned.scheduled:
        deviation = None
    elif planned.deviation:
        deviation = planned.deviation
    else:
        deviation = next((p.deviation for p in records if p.landed == upcoming), None)
    facts = Facts(
        roll=roll,
        nominal=planned.nominal,
        bank_early=world.early,
        wobbly=world.slip > 0,
        deviation=deviation,
        split="none",
        gappy=world.gap > 0,
        account=account,
        paid=tuple(p.landed for p in records if p.landed and p.landed <= as_of),
        lost=tuple(p.landed for p in records if p.landed and p.lost and p.landed <= as_of),
        primary_ids=frozenset(i for p in records for i in p.ids),
        payroll_ids=frozenset(i for job in every for p in job for i in p.ids),
        jobs=sum(1 for job in every if any(p.landed and start <= p.landed <= as_of for p in job)),
        first_pay=first_pay,
    )
    return _Facts(planned.scheduled, facts)


def generate(seed: int, count: int, history_days: int = HISTORY_DAYS) -> list[SyntheticUser]:
    return [make_user(seed, i, history_days) for i in range(count)]
