"""The tuning generator: seeded synthetic users with 120 days of API-shaped transactions (and
the weeks after ``as_of``, which a model must ignore) and the ground truth of their payday.

Each user is an archetype (salaried, two jobs, a job change, benefits, gig work beside a job,
gig work only, no income) living in a world with the noise a bank feed really has: Fed
holidays and weekend rolls (mostly back, some forward), banks that post direct deposits one or
two business days early (a few not always by the same amount), split deposits (to savings at
the same bank, or to another bank with its own posting), hourly pay that varies, raises,
bonuses off the pay cycle, a final paycheck off the cycle, rare unpaid cycles and 1-2 day ACH
delays, deposits missing from the feed, category noise (PFC v1 or v2 names, missing or wrong
categories, legacy category lists, merchant names that come and go), and inflows that are not
income: P2P (including a roommate's monthly rent and a partner's weekly transfer), refunds,
own-account transfers (some on a schedule), tax refunds, other advance apps' disbursements
timed before each payday, interest, cash deposits, and gig payouts.

The truth: the payday is the next day the user's **primary** income (the largest monthly
amount among sources still paying at ``as_of``) lands in the main account, after ``as_of``;
gig-only and no-income users have none (cadence ``NONE``). Rates are the constants below.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from ops.synthetic import fedcal
from ops.synthetic.income import Bank, Job, PayRule, pick_rule, social_security_rule
from ops.synthetic.vocab import ADVANCE_APPS, BILLS, EMPLOYERS, GIG_PLATFORMS, MERCHANTS, PEOPLE

HISTORY_DAYS = 120
FUTURE_DAYS = 75

ARCHETYPES = (
    ("salaried", 52),
    ("two_jobs", 8),
    ("job_change", 8),
    ("benefits", 7),
    ("gig_plus_job", 4),
    ("gig_only", 16),
    ("no_income", 5),
)
NO_PAYDAY = frozenset({"gig_only", "no_income"})
CADENCES = (("WEEKLY", 18), ("BIWEEKLY", 44), ("SEMI_MONTHLY", 22), ("MONTHLY", 16))

# Rates: per user, per job or per deposit as named.
ROLL_NEXT = 0.07  # per employer: a closed payday moves to the next business day
EARLY_BANK, EARLY_TWO_DAYS, WOBBLY_BANK, WOBBLE = 0.25, 0.6, 0.10, 0.3  # per user
ACH_DELAY = 0.005  # per deposit: 1-2 business days late
UNPAID = 0.003  # per pay cycle: nothing paid
GAPPY_USER, GAP_RATE = 0.08, 0.08  # deposits missing from the feed
SPLIT_SAME_BANK, SPLIT_OTHER_BANK = 0.12, 0.03  # per user
HOURLY, BONUS, RAISE = 0.4, 0.10, 0.10  # per job (hourly: weekly and biweekly jobs)
PFC_V2 = 0.4  # per user: the feed uses Plaid's newer category names
PFC_MISSING, PFC_TRANSFER, PFC_OTHER = 0.12, 0.04, 0.02  # per payroll deposit
MERCHANT_NAME, MERCHANT_FLAKY = 0.6, 0.05  # per employer with a display name: attached; on half the deposits

_PRIMARIES = (
    "LOAN_DISBURSEMENTS",
    "LOAN_PAYMENTS",
    "TRANSFER_IN",
    "TRANSFER_OUT",
    "INCOME",
    "FOOD_AND_DRINK",
    "GENERAL_MERCHANDISE",
    "GENERAL_SERVICES",
    "TRANSPORTATION",
    "MEDICAL",
    "ENTERTAINMENT",
    "RENT_AND_UTILITIES",
    "PERSONAL_CARE",
)
_V2_NAMES = {
    "INCOME_WAGES": "INCOME_SALARY",
    "INCOME_OTHER_INCOME": "INCOME_OTHER",
    "TRANSFER_IN_CASH_ADVANCES_AND_LOANS": "LOAN_DISBURSEMENTS_EWA",
}
_STYLES = ("bofa", "chase", "wells", "chime", "cu", "plain")


@dataclass(frozen=True)
class Facts:
    """What the world did, for naming the cause of a model's error (``ops.payday_errors``);
    never shown to a model. About the primary income unless said otherwise."""

    roll: str  # PREV or NEXT: what the employer does with a closed payday
    nominal: date | None  # the pay rule's own date behind the scheduled next payday
    bank_early: int  # business days the main account's bank usually posts early
    wobbly: bool  # that bank's early posting sometimes slips a day
    deviation: str | None  # why the next payday differs from the scheduled one: unpaid, slip, ach_delay
    split: str  # none, same (part to savings at the same bank) or other (part to another bank)
    gappy: bool  # the feed loses some of this user's deposits
    account: str  # the main account the truth is about
    paid: tuple[date, ...]  # the days the primary's regular pay landed in the main account
    lost: tuple[date, ...]  # ... of which the feed lost these
    primary_ids: frozenset[str]  # every credit from the primary payer (any account, bonuses too)
    payroll_ids: frozenset[str]  # every credit from any employer or agency
    jobs: int  # income sources that paid in the history window
    first_pay: date | None = None  # the primary's first payday, when it started within the window
    tags: frozenset[str] = frozenset()  # phenomena a generator names about this user (world C does)


@dataclass(frozen=True)
class Truth:
    """``next_payday``: what happened; ``scheduled``: what the pay rule and the bank's usual
    posting said would happen (no ACH delay, no slip, no unpaid cycle), the best any
    schedule model can do."""

    next_payday: date | None
    cadence: str
    archetype: str
    payer: str | None = None
    rule: str | None = None
    scheduled: date | None = None
    facts: Facts | None = None


@dataclass(frozen=True)
class Pay:
    """One payday of a job: the rule's date, the payday it rolled to, the day the bank would
    usually post it, the day it landed (None: unpaid) and why that differs, whether the feed
    lost it, and the ids of its credits."""

    nominal: date
    payday: date
    scheduled: date
    landed: date | None
    deviation: str | None
    lost: bool
    ids: tuple[str, ...]


@dataclass(frozen=True)
class SyntheticUser:
    user_id: str
    as_of: date
    archetype: str
    transactions: tuple[dict[str, Any], ...]
    truth: Truth

    def history(self, days: int) -> list[dict[str, Any]]:
        """The transactions the service would hold with ``days`` of history (those after
        ``as_of`` stay in: the model must ignore them)."""
        first = (self.as_of - timedelta(days=days - 1)).isoformat()
        return [t for t in self.transactions if t["date"] >= first]

    def visible(self, days: int = HISTORY_DAYS) -> list[dict[str, Any]]:
        last = self.as_of.isoformat()
        return [t for t in self.history(days) if t["date"] <= last]


@dataclass
class _Payer:
    name: str
    display: str | None
    flaky_display: bool
    pfc: str
    coid: str


@dataclass
class _User:
    rng: random.Random
    user_id: str
    as_of: date
    v2: bool
    bank: Bank
    other_bank: Bank
    style: str
    other_style: str
    person: str
    gap_rate: float
    split: str
    split_share: float
    history_days: int = HISTORY_DAYS
    txns: list[dict[str, Any]] = field(default_factory=list)

    @property
    def start(self) -> date:
        return self.as_of - timedelta(days=self.history_days - 1)

    @property
    def end(self) -> date:
        return self.as_of + timedelta(days=FUTURE_DAYS)

    def account(self, kind: str) -> str:
        return f"{self.user_id}-{kind}"

    def pfc(self, detailed: str | None) -> dict[str, str] | None:
        if detailed is None:
            return None
        if self.v2:
            detailed = _V2_NAMES.get(detailed, detailed)
        primary = next(p for p in _PRIMARIES if detailed.startswith(p + "_"))
        return {"primary": primary, "detailed": detailed}

    def add(
        self,
        account: str,
        day: date,
        amount: int,
        name: str,
        *,
        merchant: str | None = None,
        pfc: str | None = None,
        category: tuple[str, ...] | None = None,
        pending: bool = False,
        authorized: date | None = None,
    ) -> str | None:
        """Record one transaction; its id, or None when it falls outside the generated span."""
        if not self.start <= day <= self.end:
            return None
        self.txns.append(
            {
                "txn_id": f"{self.user_id}-{len(self.txns):04d}-{self.rng.getrandbits(24):06x}",
                "account_id": self.account(account),
                "amount": amount,
                "iso_currency_code": "USD",
                "date": day.isoformat(),
                "authorized_date": authorized.isoformat() if authorized else None,
                "name": name,
                "merchant_name": merchant,
                "personal_finance_category": self.pfc(pfc),
                "category": list(category) if category else None,
                "pending": pending,
                "transaction_type": "special" if amount < 0 else "place",
            }
        )
        return str(self.txns[-1]["txn_id"])


# --- users ---------------------------------------------------------------------------------


def _as_of(rng: random.Random) -> date:
    """Most users on any day 2023-03 .. 2027-10; a quarter in the holiday weeks."""
    if rng.random() < 0.25:
        year = rng.randint(2023, 2027)
        return date(year, 11, 15) + timedelta(days=rng.randrange(66))
    return date(2023, 3, 1) + timedelta(days=rng.randrange((date(2027, 10, 31) - date(2023, 3, 1)).days))


def _bank(rng: random.Random) -> Bank:
    if rng.random() >= EARLY_BANK:
        return Bank("standard")
    early = 2 if rng.random() < EARLY_TWO_DAYS else 1
    return Bank("early", early, WOBBLE if rng.random() < WOBBLY_BANK else 0.0)


def _new_user(rng: random.Random, user_id: str, history_days: int) -> _User:
    split = rng.random()
    return _User(
        rng=rng,
        user_id=user_id,
        as_of=_as_of(rng),
        v2=rng.random() < PFC_V2,
        bank=_bank(rng),
        other_bank=Bank("other"),
        style=rng.choice(_STYLES),
        other_style=rng.choice(_STYLES),
        person=rng.choice(PEOPLE),
        gap_rate=GAP_RATE if rng.random() < GAPPY_USER else 0.0,
        split="same" if split < SPLIT_SAME_BANK else "other" if split < SPLIT_SAME_BANK + SPLIT_OTHER_BANK else "none",
        split_share=rng.choice([0.1, 0.15, 0.2, 0.3]),
        history_days=history_days,
    )


def make_user(seed: int, index: int, history_days: int = HISTORY_DAYS) -> SyntheticUser:
    """User ``index`` of generator seed ``seed`` (the same arguments give the same user) with
    ``history_days`` of history before ``as_of`` (another length draws another user)."""
    rng = random.Random(f"payday-A:{seed}:{index}")  # noqa: S311 - reproducible test data is the point
    user = _new_user(rng, f"a{seed}-{index:05d}", history_days)
    archetype = rng.choices([a for a, _ in ARCHETYPES], weights=[w for _, w in ARCHETYPES])[0]
    jobs = _jobs(user, archetype)
    pays: dict[int, tuple[list[Pay], list[str]]] = {}
    for n, job in enumerate(jobs):
        pays[n] = _pay(user, job, _payer(user, job))
    if archetype in ("gig_only", "gig_plus_job"):
        _gig(user)
    _noise(user, archetype, [p.landed for p in pays[0][0] if p.landed] if jobs else [])
    _spend(user)
    user.txns.sort(key=lambda t: (t["date"], t["txn_id"]))
    rng.shuffle(user.txns)  # the contract allows any order
    truth = _truth(user, archetype, jobs, pays)
    return SyntheticUser(user.user_id, user.as_of, archetype, tuple(user.txns), truth)


def generate(seed: int, count: int, history_days: int = HISTORY_DAYS) -> list[SyntheticUser]:
    return [make_user(seed, i, history_days) for i in range(count)]


def _truth(user: _User, archetype: str, jobs: list[Job], pays: dict[int, tuple[list[Pay], list[str]]]) -> Truth:
    if archetype in NO_PAYDAY:
        return Truth(None, "NONE", archetype)
    active = [n for n, job in enumerate(jobs) if job.active_on(user.as_of)]
    primary = max(active, key=lambda n: jobs[n].monthly_cents)
    job, (records, ids) = jobs[primary], pays[primary]
    upcoming = min(p.landed for p in records if p.landed and p.landed > user.as_of)
    planned = min((p for p in records if p.scheduled > user.as_of), key=lambda p: p.scheduled)
    if upcoming == planned.scheduled:
        deviation = None
    elif planned.deviation:
        deviation = planned.deviation
    else:  # an earlier payday delayed past as_of
        deviation = next((p.deviation for p in records if p.landed == upcoming), None)
    window = [p for p in records if user.start <= p.payday]
    facts = Facts(
        roll=job.rule.roll,
        nominal=planned.nominal,
        bank_early=user.bank.early,
        wobbly=bool(user.bank.wobble),
        deviation=deviation,
        split=user.split,
        gappy=user.gap_rate > 0,
        account=user.account("chk"),
        paid=tuple(p.landed for p in records if p.landed and p.landed <= user.as_of),
        lost=tuple(p.landed for p in records if p.landed and p.lost and p.landed <= user.as_of),
        primary_ids=frozenset(ids),
        payroll_ids=frozenset(i for _, job_ids in pays.values() for i in job_ids),
        jobs=sum(1 for n in pays if any(p.landed and user.start <= p.landed <= user.as_of for p in pays[n][0])),
        first_pay=job.first_pay if job.first_pay and window and job.first_pay >= user.start else None,
    )
    return Truth(upcoming, job.rule.cadence, archetype, job.payer, job.rule.describe(), planned.scheduled, facts)


# --- income ----------------------------------------------------------------------------------


def _employer_job(user: _User, cadence: str | None = None, cents: int | None = None) -> Job:
    rng = user.rng
    cadence = cadence or rng.choices([c for c, _ in CADENCES], weights=[w for _, w in CADENCES])[0]
    payer = rng.choice(EMPLOYERS)[0]
    rule = pick_rule(rng, cadence, roll="NEXT" if rng.random() < ROLL_NEXT else "PREV")
    if payer == "DFAS-CLEVELAND":
        rule = PayRule("SEMI_MONTHLY", "days", days=(1, 15))
    per_year = {"WEEKLY": 52, "BIWEEKLY": 26, "SEMI_MONTHLY": 24, "MONTHLY": 12}[rule.cadence]
    monthly = cents or rng.randint(1_800_00, 6_500_00)
    job = Job(
        payer,
        rule,
        per_check_cents=round(monthly * 12 / per_year),
        hourly=rule.cadence in ("WEEKLY", "BIWEEKLY") and rng.random() < HOURLY,
    )
    if rng.random() < RAISE:
        job.raise_on, job.raise_pct = user.start + timedelta(days=rng.randrange(150)), rng.uniform(0.03, 0.08)
    if rng.random() < BONUS:
        day = fedcal.roll_back(user.start + timedelta(days=rng.randrange(170)))
        job.bonuses.append((day, round(job.per_check_cents * rng.uniform(0.5, 2.5))))
    return job


def _jobs(user: _User, archetype: str) -> list[Job]:
    rng = user.rng
    if archetype in NO_PAYDAY:
        return []
    if archetype == "benefits":
        payer, rule = social_security_rule(rng)
        jobs = [Job(payer, rule, rng.randint(900_00, 2_400_00), kind="benefits")]
        if rng.random() < 0.3:
            jobs.append(_employer_job(user, cents=rng.randint(300_00, 800_00)))
        return jobs
    main = _employer_job(user)
    if archetype == "two_jobs":
        second = _employer_job(user, cents=round(main.monthly_cents * rng.uniform(0.25, 0.6)))
        while second.payer == main.payer:
            second.payer = rng.choice(EMPLOYERS)[0]
        return [main, second]
    if archetype == "job_change":
        return _job_change(user, main)
    return [main]


def _job_change(user: _User, new: Job) -> list[Job]:
    """An old job that stopped paying and a new one that started 7-100 days before ``as_of``."""
    rng = user.rng
    old = _employer_job(user)
    while old.payer == new.payer:
        old.payer = rng.choice(EMPLOYERS)[0]
    start = user.as_of - timedelta(days=rng.randint(7, 100))
    new.first_pay = next(d for d in new.rule.paydays(start, start + timedelta(days=40)) if d >= start)
    if new.first_pay > user.as_of:
        new.first_pay = [d for d in new.rule.paydays(user.as_of - timedelta(days=40), user.as_of) if d <= user.as_of][
            -1
        ]
    stop = new.first_pay - timedelta(days=rng.randint(7, 35))
    old.last_pay = [d for d in old.rule.paydays(stop - timedelta(days=40), stop) if d <= stop][-1]
    if rng.random() < 0.3:  # the final paycheck comes off the cycle
        old.bonuses.append((fedcal.roll_back(old.last_pay + timedelta(days=rng.randint(3, 9))), old.per_check_cents))
    return [new, old]


def _payer(user: _User, job: Job) -> _Payer:
    rng = user.rng
    display = next((d for n, d in EMPLOYERS if n == job.payer), None)
    if job.kind == "benefits":
        return _Payer(job.payer, None, False, "INCOME_RETIREMENT_PENSION", "3101310001")
    has_display = display is not None and rng.random() < MERCHANT_NAME
    return _Payer(
        job.payer,
        display if has_display else None,
        rng.random() < MERCHANT_FLAKY,
        "INCOME_WAGES",
        f"{rng.randrange(10**9, 10**10)}",
    )


def _pay(user: _User, job: Job, payer: _Payer) -> tuple[list[Pay], list[str]]:
    """Post ``job``'s deposits; return each payday (the day its regular pay landed in the main
    account, including deposits the feed lost, which were paid all the same, and the day it
    was scheduled to: the bank's usual early posting, no delay, no unpaid cycle) and the ids
    of every credit posted (bonuses too)."""
    rng = user.rng
    records: list[Pay] = []
    ids: list[str] = []
    usual = Bank(user.bank.name, user.bank.early)
    start = user.start - timedelta(days=45)
    nominal = job.rule.rolled(start, user.end)
    for payday in job.paydays(start, user.end):
        scheduled = usual.posting_day(payday, rng)
        if rng.random() < UNPAID:
            records.append(Pay(nominal[payday], payday, scheduled, None, "unpaid", False, ()))
            continue
        posted = user.bank.posting_day(payday, rng)
        deviation = "slip" if posted != scheduled else None
        if rng.random() < ACH_DELAY:
            posted = fedcal.business_days_before(posted, -rng.choice((1, 2)))
            deviation = "ach_delay"
        lost = rng.random() < user.gap_rate
        posted_ids = () if lost else tuple(_deposit(user, payer, payday, posted, job.amount(payday, rng)))
        records.append(Pay(nominal[payday], payday, scheduled, posted, deviation, lost, posted_ids))
        ids.extend(posted_ids)
    for day, cents in job.bonuses:
        ids.extend(_deposit(user, payer, day, user.bank.posting_day(day, rng), cents, bonus=True))
    return records, ids


def _deposit(user: _User, payer: _Payer, payday: date, posted: date, cents: int, *, bonus: bool = False) -> list[str]:
    rng = user.rng
    part = round(cents * user.split_share) if user.split != "none" and not bonus else 0
    ids = [_credit(user, "chk", user.style, payer, posted, cents - part, bonus)]
    if part and user.split == "same":
        ids.append(_credit(user, "sav", user.style, payer, posted, part, bonus))
    elif part:
        ids.append(_credit(user, "ext", user.other_style, payer, user.other_bank.posting_day(payday, rng), part, bonus))
    return [i for i in ids if i]


def _credit(user: _User, account: str, style: str, payer: _Payer, day: date, cents: int, bonus: bool) -> str | None:
    rng = user.rng
    roll = rng.random()
    pfc: str | None = payer.pfc
    if roll < PFC_MISSING:
        pfc = None
    elif roll < PFC_MISSING + PFC_TRANSFER:
        pfc = "TRANSFER_IN_DEPOSIT"
    elif roll < PFC_MISSING + PFC_TRANSFER + PFC_OTHER:
        pfc = "INCOME_OTHER_INCOME"
    category = rng.choices(
        [("Transfer", "Payroll"), ("Transfer", "Deposit"), ("Transfer", "Credit"), None], [45, 20, 10, 25]
    )[0]
    merchant = payer.display if payer.display and (not payer.flaky_display or rng.random() < 0.5) else None
    name = _payroll_name(style, payer, user.person, rng, bonus)
    return user.add(account, day, -cents, name, merchant=merchant, pfc=pfc, category=category)


def _payroll_name(style: str, payer: _Payer, person: str, rng: random.Random, bonus: bool) -> str:
    name, ref = payer.name, f"{rng.randrange(10**9, 10**10)}"
    kind = "BONUS" if bonus and rng.random() < 0.5 else "PAYROLL"
    if name in ("SSA", "SSI"):
        name, kind = ("SSA TREAS 310", "XXSOC SEC") if name == "SSA" else ("SSI TREAS 310", "XXSUPP SEC")
        return (
            f"{name} {kind}" if style != "bofa" else f"{name} DES:{kind} ID:{ref} INDN:{person} CO ID:{payer.coid} PPD"
        )
    return {
        "bofa": f"{name} DES:{kind} ID:{ref} INDN:{person} CO ID:{payer.coid} PPD",
        "chase": f"{name} {kind} PPD ID: {payer.coid}",
        "wells": f"{name} DIR DEP {ref[:6]} {ref[6:]}",
        "chime": f"ACH DEPOSIT {name} DIRECT DEP",
        "cu": f"DEPOSIT ACH {name} TYPE: {kind} CO: {name}",
        "plain": name,
    }[style]


# --- gig work --------------------------------------------------------------------------------


def _gig(user: _User) -> None:
    """Payouts from one or two platforms on no schedule: instant cash-outs most days, a
    cash-out every few days, or bursts of work with weeks off."""
    rng = user.rng
    for platform, names in rng.sample(GIG_PLATFORMS, rng.choice((1, 1, 2))):
        pattern = rng.choice(("instant", "every_few_days", "bursts"))
        day = user.start - timedelta(days=rng.randrange(7))
        while day <= user.end:
            gap = _gig_gap(rng, pattern)
            cents = round(rng.lognormvariate(4.3 if pattern == "instant" else 5.2, 0.5) * 100)
            detailed = rng.choices(["INCOME_GIG", "TRANSFER_IN_DEPOSIT", None], [60, 25, 15])[0]
            pfc = ("INCOME_GIG_ECONOMY" if user.v2 else "INCOME_WAGES") if detailed == "INCOME_GIG" else detailed
            merchant = platform.title() if rng.random() < 0.5 else None
            user.add(
                "chk", day, -cents, rng.choice(names), merchant=merchant, pfc=pfc, category=("Transfer", "Deposit")
            )
            day += timedelta(days=gap)


def _gig_gap(rng: random.Random, pattern: str) -> int:
    if pattern == "instant":
        return rng.choice((1, 1, 1, 2, 2, 3))
    if pattern == "every_few_days":
        return rng.randint(3, 9)
    return rng.choice((1, 2, 2, 3)) if rng.random() < 0.85 else rng.randint(7, 20)


# --- inflows that are not income, and spending -------------------------------------------------


def _noise(user: _User, archetype: str, main_paid: list[date]) -> None:
    rng = user.rng
    if rng.random() < 0.5:
        _p2p(user)
    if rng.random() < 0.15:  # a roommate's rent, monthly around the 1st
        _roommate_rent(user)
    if rng.random() < 0.05:  # a partner's weekly transfer
        person, cents = rng.choice(PEOPLE), rng.randint(100_00, 300_00)
        start = user.start + timedelta(days=rng.randrange(7))
        for k in range(0, user.history_days + FUTURE_DAYS, 7):
            user.add(
                "chk", start + timedelta(days=k), -cents, f"VENMO CASHOUT {person}", pfc="TRANSFER_IN_ACCOUNT_TRANSFER"
            )
    if rng.random() < 0.4:
        _own_transfers(user)
    for _ in range(rng.choice((0, 0, 1, 2, 3))):
        merchant = rng.choice(MERCHANTS)
        day = user.start + timedelta(days=rng.randrange(user.history_days + FUTURE_DAYS))
        name = f"{merchant[1].upper()} REFUND" if rng.random() < 0.5 else f"RETURN {merchant[0]}"
        user.add("chk", day, -rng.randint(500, 12_000), name, merchant=merchant[1], pfc=merchant[2])
    _tax_refund(user)
    if main_paid and archetype not in NO_PAYDAY and rng.random() < 0.25:
        _advance_app(user, main_paid)
    if rng.random() < 0.5:
        day = user.start
        while day <= user.end:
            end = date(day.year + (day.month == 12), day.month % 12 + 1, 1) - timedelta(days=1)
            user.add("sav", end, -rng.randint(1, 300), "INTEREST PAYMENT", pfc="INCOME_INTEREST_EARNED")
            day = end + timedelta(days=1)
    if rng.random() < 0.15:
        for _ in range(rng.randint(1, 5)):
            day = user.start + timedelta(days=rng.randrange(user.history_days + FUTURE_DAYS))
            name = rng.choice(("ATM CASH DEPOSIT", "MOBILE DEPOSIT", "BRANCH DEPOSIT"))
            user.add(
                "chk",
                day,
                -rng.randint(2_000, 60_000),
                name,
                pfc="TRANSFER_IN_DEPOSIT",
                category=("Transfer", "Deposit"),
            )


def _p2p_pfc(rng: random.Random) -> str | None:
    return rng.choices(["TRANSFER_IN_ACCOUNT_TRANSFER", None, "INCOME_OTHER_INCOME"], [75, 20, 5])[0]


def _p2p(user: _User) -> None:
    rng = user.rng
    for _ in range(rng.randint(1, 12)):
        person = rng.choice(PEOPLE)
        day = user.start + timedelta(days=rng.randrange(user.history_days + FUTURE_DAYS))
        name = rng.choice(
            (
                f"Zelle payment from {person} {rng.randrange(10**8)}",
                f"VENMO CASHOUT {person}",
                f"CASH APP*{person}*CASH OUT",
            )
        )
        user.add("chk", day, -rng.randint(1_000, 40_000), name, pfc=_p2p_pfc(rng))


def _roommate_rent(user: _User) -> None:
    rng = user.rng
    person, cents = rng.choice(PEOPLE), rng.randint(400_00, 900_00)
    day = date(user.start.year, user.start.month, 1)
    while day <= user.end:
        posted = fedcal.roll_forward(day + timedelta(days=rng.choice((0, 0, 0, 1, 2))))
        user.add("chk", posted, -cents, f"Zelle payment from {person} RENT", pfc=_p2p_pfc(rng))
        day = date(day.year + (day.month == 12), day.month % 12 + 1, 1)


def _own_transfers(user: _User) -> None:
    rng = user.rng
    days = [
        user.start + timedelta(days=rng.randrange(user.history_days + FUTURE_DAYS)) for _ in range(rng.randint(1, 6))
    ]
    if rng.random() < 0.25:  # an automatic transfer on the 1st of each month
        day = date(user.start.year, user.start.month, 1)
        while day <= user.end:
            days.append(fedcal.roll_forward(day))
            day = date(day.year + (day.month == 12), day.month % 12 + 1, 1)
    cents = rng.randint(50_00, 500_00)
    for day in days:
        missing = rng.random() < 0.2
        user.add(
            "sav",
            day,
            cents,
            "ONLINE TRANSFER TO CHK ...4821",
            pfc=None if missing else "TRANSFER_OUT_ACCOUNT_TRANSFER",
        )
        user.add(
            "chk",
            day,
            -cents,
            "ONLINE TRANSFER FROM SAV ...7730",
            pfc=None if missing else "TRANSFER_IN_ACCOUNT_TRANSFER",
        )


def _tax_refund(user: _User) -> None:
    rng = user.rng
    for year in {user.start.year, user.as_of.year}:
        day = date(year, 2, 10) + timedelta(days=rng.randrange(80))
        if user.start <= day <= user.end and rng.random() < 0.4:
            name = "IRS TREAS 310 TAX REF" if rng.random() < 0.8 else "STATE OF CA FTB TAX REFUND"
            user.add("chk", fedcal.roll_forward(day), -rng.randint(300_00, 4_000_00), name, pfc="INCOME_TAX_REFUND")


def _advance_app(user: _User, paid: list[date]) -> None:
    """Another app's advance one to three days before each payday, repaid on the payday."""
    rng = user.rng
    name, display = rng.choice(ADVANCE_APPS)
    lead = rng.choice((1, 2, 3))
    for payday in paid:
        if rng.random() < 0.2:
            continue
        cents = rng.choice((50_00, 75_00, 100_00, 150_00, 250_00))
        pfc = rng.choices(["TRANSFER_IN_CASH_ADVANCES_AND_LOANS", None, "INCOME_OTHER_INCOME"], [70, 25, 5])[0]
        user.add("chk", fedcal.business_days_before(payday, lead), -cents, name, merchant=display, pfc=pfc)
        user.add(
            "chk", payday, cents + 500, f"{name} REPAYMENT", merchant=display, pfc="LOAN_PAYMENTS_PERSONAL_LOAN_PAYMENT"
        )


def _spend(user: _User) -> None:
    """Card purchases most days, monthly bills, and rent; the last two days partly pending."""
    rng = user.rng
    day = user.start
    bills = rng.sample(BILLS, rng.randint(2, 5))
    bill_days = [rng.randint(1, 28) for _ in bills]
    rent_day, rent = rng.choice((1, 1, 3, 5)), rng.randint(800_00, 2_200_00)
    while day <= user.end:
        for _ in range(rng.choice((0, 1, 2, 2, 3, 3, 4, 5))):
            name, merchant, pfc, category, cents = rng.choice(MERCHANTS)
            pending = day > user.as_of - timedelta(days=2) and rng.random() < 0.6
            amount = max(100, round(cents * rng.uniform(0.3, 2.0)))
            user.add(
                "chk", day, amount, name, merchant=merchant, pfc=pfc, category=category, pending=pending, authorized=day
            )
        for (name, merchant, pfc, category, cents), bill_day in zip(bills, bill_days, strict=True):
            if day.day == bill_day:
                user.add("chk", day, cents, name, merchant=merchant, pfc=pfc, category=category)
        if day.day == rent_day:
            user.add("chk", fedcal.roll_forward(day), rent, "RENT PAYMENT WEB PMTS", pfc="RENT_AND_UTILITIES_RENT")
        day += timedelta(days=1)
