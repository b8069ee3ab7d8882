"""World C: synthetic users written from a list of payroll phenomena, apart from the other two
generators (its own parameters, payers, description strings and mix; nothing tuned on it).

The phenomena, each a knob below:

- employers paying weekly (mostly on Fridays), every two weeks on any weekday, twice a month
  (the 1st and 15th, the 15th and the last day, the 5th and 20th) or monthly (a fixed day, the
  last business day, an nth weekday of the month);
- Social Security on the second, third or fourth Wednesday, pensions on the 1st;
- a payday on a weekend or a Fed holiday paid the business day before;
- banks that post direct deposits one or two business days early, a few of them not every time;
- missed paychecks (a cycle not paid, or a deposit the feed lost);
- a job change in the middle of the history to another cadence, and a second, part-time job;
- bonuses and other off-cycle deposits from an employer;
- part of each paycheck deposited to a savings account;
- noisy categories on payroll (missing, a transfer, other income);
- descriptions written by a payroll processor that hide the employer's name;
- gig-only users, whose payouts have no payday.

Around them, an ordinary feed: card spending, rent and bills, an occasional P2P credit, refund
or transfer from savings. The calendar is computed here from the month lengths
(:mod:`calendar`) and the Fed's published closings (:mod:`ops.synthetic.fedcal`).

The truth: the next day after ``as_of`` that the primary income (the largest monthly amount
among payers still paying at ``as_of``; after a job change, the new job) lands in checking;
gig-only users have none. ``Truth.scheduled`` is that pay cycle's day as the bank usually posts
it (no unpaid cycle, no missed early posting). ``Facts.tags`` names the phenomena a user has.
"""

from __future__ import annotations

import calendar
import random
import zlib
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from ops.synthetic import fedcal
from ops.synthetic.users import Facts, Pay, SyntheticUser, Truth

HISTORY_DAYS = 180
FUTURE_DAYS = 70

#: Who the users are (weights).
MIX = (
    ("one_job", 50),
    ("second_job", 10),
    ("job_change", 11),
    ("social_security", 7),
    ("pension", 6),
    ("gig_only", 16),
)
#: Pay periods of employers (weights), and the rules within each.
PERIODS = (("WEEKLY", 20), ("BIWEEKLY", 40), ("SEMI_MONTHLY", 22), ("MONTHLY", 18))
WEEKLY_DAYS = ((4, 70), (3, 15), (0, 5), (1, 5), (2, 5))  # Friday mostly
SEMI_MONTHLY_DAYS = (((1, 15), 35), ((15, 0), 35), ((5, 20), 30))  # 0 is the last day
MONTHLY_KINDS = (("fixed", 40), ("last_business", 35), ("nth_weekday", 25))

EARLY_BANK = 0.30  # users whose bank posts direct deposits early
EARLY_TWO = 0.55  # ... two business days early (else one)
UNSTEADY = 0.10  # ... of those, banks that sometimes post on the payday instead
UNSTEADY_MISS = 0.20  # ... on this share of deposits
MISSING_USER, MISSING_RATE = 0.20, 0.04  # users missing paychecks; per cycle
BONUS_JOB = 0.15  # employers paying off the cycle now and then
FINAL_OFF_CYCLE = 0.35  # job changes whose last paycheck comes off the cycle
SPLIT_USER = 0.15  # users sending part of each paycheck to savings
PROCESSOR = 0.35  # employers whose deposits carry the payroll processor's name instead of theirs
TRUNCATING_BANK = 0.20  # users whose bank cuts descriptions at 32 characters
PFC_V2_USER = 0.45
HOURLY = 0.35  # weekly and biweekly jobs paying varying hours
#: A payroll deposit's category: (kind, weight).
PAYROLL_CATEGORIES = (("pay", 66), (None, 15), ("deposit", 9), ("other", 5), ("transfer", 3), ("services", 2))

_EMPLOYERS = (
    "RIVERBEND FOODS",
    "CRESTVIEW MEDICAL CTR",
    "TALLGRASS TRANSPORT",
    "OAKMONT PROPERTY MGMT",
    "BLUEWATER MARINE SVC",
    "HIGHLINE TELECOM",
    "MERIDIAN SENIOR CARE",
    "CANYON RIDGE USD",
    "FOXGLOVE BAKERY",
    "NORTHGATE AUTO GROUP",
    "SILVERPINE HOTEL",
    "LANTERN HOME HEALTH",
    "GRANITE STATE PAVING",
    "WILLOW CREEK DAYCARE",
    "IRONWOOD SECURITY",
    "COASTAL CLEANING CO",
    "PEAKVIEW DISTRIBUTION",
    "HARVEST TABLE GRILL",
    "ASPEN VALLEY CLINIC",
    "BRIGHTWATER PLASTICS",
    "MAPLEWOOD COUNTY",
    "SUNCOAST CALL CTR",
)
#: Payroll processors' deposit lines ({ref}: a reference that changes with every deposit).
_PROCESSORS = (
    "ADP WAGE PAY WAGE PAY {ref}",
    "PAYCHEX INC PAYROLL {ref}",
    "GUSTO PAY {ref}",
    "PAYLOCITY CORP DIRECT DEP",
    "INTUIT PAYROLL S {ref}",
    "TRINET HR PAYROLL {ref}",
)
#: How a bank words an employer's deposit (``{payer}`` is the employer's or processor's line).
_BANK_STYLES = (
    "{payer}",
    "DIRECT DEP {payer}",
    "ACH CREDIT {payer}",
    "{payer} DES:DIR DEP ID:{ref} INDN:{person} CO ID:{coid} PPD",
    "DEPOSIT FROM {payer}",
)
_OWN_LINES = ("{name} PAYROLL", "{name} PAYROLL {ref}", "{name} SALARY", "{name}")
_PENSIONS = ("CALPERS RETIREMENT", "OHIO PERS", "TEACHERS RET SYS NY", "IBEW PENSION FUND", "MINNESOTA MSRS")
_GIG = (
    ("DOORDASH INC PAYOUT", "DoorDash"),
    ("UBER TECHNOLOGIES PAYOUT", "Uber"),
    ("LYFT INC DRIVER PAY", "Lyft"),
    ("INSTACART SHOPPER", "Instacart"),
    ("AMAZON FLEX PAYMENTS", None),
    ("ROADIE INC TRANSFER", None),
    ("VEHO TECHNOLOGIES PAY", None),
    ("SHIPT INC PAYOUT", "Shipt"),
)
_PEOPLE = ("J RIVERA", "A OKONKWO", "S TANAKA", "M KOWALSKI", "D MENSAH", "L FERREIRA", "R DUBOIS")
_SHOPS = (
    ("CORNER MART 112", "FOOD_AND_DRINK", "FOOD_AND_DRINK_GROCERIES"),
    ("GAS-N-GO 7781", "TRANSPORTATION", "TRANSPORTATION_GAS"),
    ("SUNNY DINER", "FOOD_AND_DRINK", "FOOD_AND_DRINK_RESTAURANT"),
    ("MEGASTORE ONLINE", "GENERAL_MERCHANDISE", "GENERAL_MERCHANDISE_ONLINE_MARKETPLACES"),
    ("CITY PHARMACY", "MEDICAL", "MEDICAL_PHARMACIES_AND_SUPPLEMENTS"),
)
_PER_YEAR = {"WEEKLY": 52.18, "BIWEEKLY": 26.09, "SEMI_MONTHLY": 24.0, "MONTHLY": 12.0}


def _pick(rng: random.Random, options: tuple[tuple[Any, int], ...]) -> Any:
    return rng.choices([o for o, _ in options], [w for _, w in options])[0]


# --- pay rules -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    """When a payer pays: ``weeks`` (every ``every`` weeks from ``anchor``), ``days`` (days of the
    month, 0 = the last day) or ``nth`` (the ``nth`` ``weekday`` of the month); a closed day is
    paid the business day before."""

    cadence: str
    kind: str
    anchor: date = date(2020, 1, 6)
    every: int = 1
    days: tuple[int, ...] = ()
    nth: int = 0
    weekday: int = 0

    def nominal(self, lo: date, hi: date) -> list[date]:
        if self.kind == "weeks":
            step = 7 * self.every
            first = lo + timedelta(days=(self.anchor - lo).days % step)
            return [first + timedelta(days=step * k) for k in range((hi - first).days // step + 1)]
        out = []
        year, month = lo.year, lo.month
        while (year, month) <= (hi.year, hi.month):
            length = calendar.monthrange(year, month)[1]
            if self.kind == "days":
                out += [date(year, month, length if d == 0 else min(d, length)) for d in self.days]
            else:
                weeks = [w[self.weekday] for w in calendar.monthcalendar(year, month) if w[self.weekday]]
                out.append(date(year, month, weeks[self.nth - 1]))
            year, month = (year + 1, 1) if month == 12 else (year, month + 1)
        return sorted(d for d in out if lo <= d <= hi)

    def describe(self) -> str:
        if self.kind == "weeks":
            return f"every {self.every} week(s) on {calendar.day_name[self.anchor.weekday()]}"
        if self.kind == "days":
            return "days " + "/".join("last" if d == 0 else str(d) for d in self.days)
        return f"{self.nth} {calendar.day_name[self.weekday]} of the month"


def employer_rule(rng: random.Random, cadence: str) -> Rule:
    if cadence == "WEEKLY":
        weekday = _pick(rng, WEEKLY_DAYS)
        return Rule(cadence, "weeks", date(2020, 1, 6) + timedelta(days=weekday), 1)
    if cadence == "BIWEEKLY":  # any weekday, either week
        return Rule(cadence, "weeks", date(2020, 1, 6) + timedelta(days=rng.randrange(5) + 7 * rng.randrange(2)), 2)
    if cadence == "SEMI_MONTHLY":
        return Rule(cadence, "days", days=_pick(rng, SEMI_MONTHLY_DAYS))
    kind = _pick(rng, MONTHLY_KINDS)
    if kind == "fixed":
        return Rule(cadence, "days", days=(rng.randint(1, 28),))
    if kind == "last_business":
        return Rule(cadence, "days", days=(0,))
    return Rule(cadence, "nth", nth=rng.randint(1, 4), weekday=rng.randrange(5))


# --- payers and banks ------------------------------------------------------------------------


@dataclass
class Payer:
    """An employer or an agency, with how its deposits read and what it pays."""

    name: str
    rule: Rule
    per_check: int
    kind: str = "job"  # job | part_time | social_security | pension
    line: str = "{name}"  # its deposit line before the bank's wording
    merchant: str | None = None
    hourly: bool = False
    first: date | None = None  # pays from this day (None: from before the history)
    last: date | None = None  # ... up to this day
    extras: list[tuple[date, int]] = field(default_factory=list)  # off-cycle deposits

    @property
    def monthly(self) -> float:
        return self.per_check * _PER_YEAR[self.rule.cadence] / 12

    def pays_on(self, day: date) -> bool:
        return (self.first is None or day >= self.first) and (self.last is None or day <= self.last)


@dataclass(frozen=True)
class Bank:
    """How the user's bank posts a direct deposit: ``early`` business days before the payday,
    except on a share ``misses`` of deposits (posted on the payday itself)."""

    early: int = 0
    misses: float = 0.0

    def usual(self, payday: date) -> date:
        return fedcal.business_days_before(payday, self.early) if self.early else payday


# --- a user -----------------------------------------------------------------------------------


@dataclass
class _Feed:
    rng: random.Random
    uid: str
    as_of: date
    history_days: int
    v2: bool
    style: str
    truncates: bool
    person: str
    rows: list[dict[str, Any]] = field(default_factory=list)

    @property
    def start(self) -> date:
        return self.as_of - timedelta(days=self.history_days - 1)

    @property
    def end(self) -> date:
        return self.as_of + timedelta(days=FUTURE_DAYS)

    def category(self, kind: str | None) -> dict[str, str] | None:
        """Plaid's category for a credit of ``kind`` in the user's taxonomy (v1 or v2)."""
        names = {
            "pay": ("INCOME", "INCOME_SALARY" if self.v2 else "INCOME_WAGES"),
            "pension": ("INCOME", "INCOME_RETIREMENT_PENSION"),
            "gig": ("INCOME", "INCOME_GIG_ECONOMY" if self.v2 else "INCOME_WAGES"),
            "other": ("INCOME", "INCOME_OTHER" if self.v2 else "INCOME_OTHER_INCOME"),
            "deposit": ("TRANSFER_IN", "TRANSFER_IN_DEPOSIT"),
            "transfer": ("TRANSFER_IN", "TRANSFER_IN_ACCOUNT_TRANSFER"),
            "services": ("GENERAL_SERVICES", "GENERAL_SERVICES_OTHER_GENERAL_SERVICES"),
            "refund": ("GENERAL_MERCHANDISE", "GENERAL_MERCHANDISE_OTHER_GENERAL_MERCHANDISE"),
        }
        if kind is None:
            return None
        primary, detailed = names[kind]
        return {"primary": primary, "detailed": detailed}

    def post(
        self,
        account: str,
        day: date,
        cents: int,
        name: str,
        category: dict[str, str] | None,
        *,
        merchant: str | None = None,
        legacy: list[str] | None = None,
        pending: bool = False,
        card: bool = False,
    ) -> str | None:
        """One transaction (``cents`` positive: money out); its id, or None outside the feed's span."""
        if not self.start <= day <= self.end:
            return None
        txn_id = f"{self.uid}.{len(self.rows):04d}"
        self.rows.append(
            {
                "txn_id": txn_id,
                "account_id": f"{self.uid}-{account}",
                "amount": cents,
                "iso_currency_code": "USD",
                "date": day.isoformat(),
                "authorized_date": day.isoformat() if card else None,
                "name": name[:32] if self.truncates else name,
                "merchant_name": merchant,
                "personal_finance_category": category,
                "category": legacy,
                "pending": pending,
            }
        )
        return txn_id

    def ref(self) -> str:
        alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789"
        return "".join(self.rng.choice(alphabet) for _ in range(self.rng.choice((6, 8, 10))))

    def payroll_line(self, payer: Payer) -> str:
        own = payer.line.format(name=payer.name, ref=self.ref())
        return self.style.format(
            payer=own, ref=self.ref(), person=self.person, coid=f"{zlib.crc32(payer.name.encode()) % 10**9:09d}"
        )


def _payer(rng: random.Random, cadence: str | None, monthly: int, kind: str = "job") -> Payer:
    cadence = cadence or _pick(rng, PERIODS)
    rule = employer_rule(rng, cadence)
    name = rng.choice(_EMPLOYERS)
    if rng.random() < PROCESSOR:
        line, merchant = rng.choice(_PROCESSORS), None
    else:
        line = rng.choice(_OWN_LINES)
        merchant = name.title().split(" ")[0] if rng.random() < 0.4 else None
    per_check = round(monthly * 12 / _PER_YEAR[rule.cadence])
    hourly = cadence in ("WEEKLY", "BIWEEKLY") and rng.random() < HOURLY
    return Payer(name, rule, per_check, kind, line, merchant, hourly)


def _social_security(rng: random.Random) -> Payer:
    rule = Rule("MONTHLY", "nth", nth=rng.choice((2, 3, 4)), weekday=2)
    line = rng.choice(("SSA TREAS 310 XXSOC SEC", "SSA TREAS 310 SOC SEC {ref}"))
    return Payer("SSA", rule, rng.randint(900_00, 2_600_00), "social_security", line)


def _pension(rng: random.Random) -> Payer:
    name = rng.choice(_PENSIONS)
    line = rng.choice(("{name} PENSION", "{name} ANNUITY PMT", "{name} RETIREMENT {ref}"))
    return Payer(name, Rule("MONTHLY", "days", days=(1,)), rng.randint(700_00, 3_200_00), "pension", line)


def _other_name(rng: random.Random, taken: Payer) -> str:
    names = [n for n in _EMPLOYERS if n != taken.name]
    return rng.choice(names)


def _payers(rng: random.Random, archetype: str, feed: _Feed) -> list[Payer]:
    """The user's payers, the primary first."""
    if archetype == "social_security":
        return [_social_security(rng)]
    if archetype == "pension":
        pension = _pension(rng)
        return sorted([pension, _social_security(rng)], key=lambda p: -p.monthly) if rng.random() < 0.4 else [pension]
    main = _payer(rng, None, rng.randint(1_900_00, 7_000_00))
    if archetype == "second_job":
        side = _payer(rng, None, round(main.monthly * rng.uniform(0.2, 0.5)), "part_time")
        side.name = _other_name(rng, main)
        if rng.random() < 0.3:  # taken up during the history
            side.first = feed.as_of - timedelta(days=rng.randint(20, feed.history_days - 20))
        return [main, side]
    if archetype == "job_change":
        switch = feed.as_of - timedelta(days=rng.randint(12, max(13, feed.history_days - 20)))
        cadence = rng.choice([c for c, _ in PERIODS if c != main.rule.cadence])
        new = _payer(rng, cadence, round(main.monthly * rng.uniform(0.8, 1.3)))
        new.name = _other_name(rng, main)
        new.first = switch
        main.last = switch + timedelta(days=rng.randint(-14, 3))
        if rng.random() < FINAL_OFF_CYCLE:
            main.extras.append((fedcal.roll_back(main.last + timedelta(days=rng.randint(3, 10))), main.per_check))
        return [new, main]
    return [main]


def _off_cycle(rng: random.Random, payer: Payer, feed: _Feed) -> None:
    for _ in range(rng.randint(1, 3)):
        day = fedcal.roll_back(feed.start + timedelta(days=rng.randrange(feed.history_days + FUTURE_DAYS)))
        if payer.pays_on(day):
            payer.extras.append((day, round(payer.per_check * rng.uniform(0.3, 2.0))))


def _category(rng: random.Random, payer: Payer) -> str | None:
    kind: str | None = _pick(rng, PAYROLL_CATEGORIES)
    if kind == "pay" and payer.kind in ("social_security", "pension"):
        return "pension"
    return kind


def _pay(
    rng: random.Random, feed: _Feed, payer: Payer, bank: Bank, split: int | float, missing: float
) -> tuple[list[Pay], list[str]]:
    """Post ``payer``'s deposits; each pay cycle's record, and the ids of every credit (off-cycle
    ones too)."""
    records: list[Pay] = []
    ids: list[str] = []
    for nominal in payer.rule.nominal(feed.start - timedelta(days=40), feed.end):
        payday = fedcal.roll_back(nominal)
        if not payer.pays_on(payday) or payday > feed.end:
            continue
        scheduled = bank.usual(payday)
        if rng.random() < missing / 2:
            records.append(Pay(nominal, payday, scheduled, None, "unpaid", False, ()))
            continue
        landed = payday if bank.early and rng.random() < bank.misses else scheduled
        deviation = "slip" if landed != scheduled else None
        lost = rng.random() < missing / 2
        cents = round(payer.per_check * (1 + rng.gauss(0, 0.12 if payer.hourly else 0.003)))
        posted = () if lost else tuple(_deposit(rng, feed, payer, landed, cents, split))
        records.append(Pay(nominal, payday, scheduled, landed, deviation, lost, posted))
        ids.extend(posted)
    for day, cents in payer.extras:
        ids.extend(_deposit(rng, feed, payer, bank.usual(day), cents, 0))
    return records, ids


def _deposit(rng: random.Random, feed: _Feed, payer: Payer, day: date, cents: int, split: int | float) -> list[str]:
    saved = round(cents * split) if isinstance(split, float) else min(split, cents // 2)
    legacy = rng.choices([["Transfer", "Payroll"], ["Transfer", "Deposit"], None], [40, 30, 30])[0]
    line = feed.payroll_line(payer)
    category = feed.category(_category(rng, payer))
    ids = [feed.post("chk", day, -(cents - saved), line, category, merchant=payer.merchant, legacy=legacy)]
    if saved:
        ids.append(feed.post("sav", day, -saved, line, category, merchant=payer.merchant, legacy=legacy))
    return [i for i in ids if i]


def _gig(rng: random.Random, feed: _Feed) -> None:
    """Payouts with no payday: instant cash-outs after a day's work, a platform's weekly batch
    that lands one to three business days later, or bursts of work with weeks off."""
    for name, merchant in rng.sample(_GIG, rng.choice((1, 1, 2))):
        pattern = rng.choice(("instant", "weekly", "bursts"))
        batch_day = rng.randrange(5)
        day = feed.start - timedelta(days=rng.randrange(10))
        while day <= feed.end:
            if pattern == "instant":
                day += timedelta(days=rng.choice((1, 1, 2, 2, 3, 4)))
                landed = day
            elif pattern == "weekly":
                day += timedelta(days=(batch_day - day.weekday()) % 7 or 7)
                landed = fedcal.business_days_before(fedcal.roll_forward(day), -rng.choice((1, 1, 2, 3)))
            else:
                day += timedelta(days=rng.choice((1, 2, 3)) if rng.random() < 0.8 else rng.randint(8, 25))
                landed = day
            cents = round(rng.lognormvariate(4.6 if pattern == "instant" else 5.6, 0.55) * 100)
            category = feed.category(rng.choices(["gig", "deposit", None], [55, 25, 20])[0])
            feed.post("chk", landed, -cents, name, category, merchant=merchant if rng.random() < 0.6 else None)


def _everyday(rng: random.Random, feed: _Feed) -> None:
    """Spending, rent and bills; a few credits that are not income."""
    rent, rent_day = rng.randint(900_00, 2_400_00), rng.choice((1, 1, 2, 5))
    day = feed.start
    while day <= feed.end:
        for _ in range(rng.choice((0, 1, 1, 2, 3, 4))):
            name, primary, detailed = rng.choice(_SHOPS)
            pending = day >= feed.as_of - timedelta(days=1) and rng.random() < 0.5
            category = {"primary": primary, "detailed": detailed}
            feed.post("chk", day, rng.randint(3_00, 140_00), name, category, pending=pending, card=True)
        if day.day == rent_day:
            feed.post("chk", fedcal.roll_forward(day), rent, "PROPERTY MGMT WEB PMT", None)
        transfer = feed.category("transfer")
        if rng.random() < 0.012:
            feed.post("chk", day, -rng.randint(10_00, 250_00), f"ZELLE FROM {rng.choice(_PEOPLE)}", transfer)
        if rng.random() < 0.006:
            feed.post("chk", day, -rng.randint(5_00, 80_00), "MEGASTORE ONLINE REFUND", feed.category("refund"))
        if rng.random() < 0.008:
            cents = rng.randint(50_00, 600_00)
            feed.post("sav", day, cents, "TRANSFER TO CHECKING", None)
            feed.post("chk", day, -cents, "TRANSFER FROM SAVINGS", transfer)
        day += timedelta(days=1)


def make_user(seed: int, index: int, history_days: int = HISTORY_DAYS) -> SyntheticUser:
    """User ``index`` of seed ``seed`` (the same arguments, the same user) with ``history_days``
    of history before ``as_of`` and the weeks after it (which a model must not see)."""
    rng = random.Random(f"payday-C:{seed}:{index}")  # noqa: S311 - reproducible test data is the point
    as_of = date(2023, 1, 10) + timedelta(days=rng.randrange((date(2028, 9, 20) - date(2023, 1, 10)).days))
    feed = _Feed(
        rng,
        f"c{seed}-{index:05d}",
        as_of,
        history_days,
        v2=rng.random() < PFC_V2_USER,
        style=rng.choice(_BANK_STYLES),
        truncates=rng.random() < TRUNCATING_BANK,
        person=rng.choice(_PEOPLE),
    )
    early = (2 if rng.random() < EARLY_TWO else 1) if rng.random() < EARLY_BANK else 0
    bank = Bank(early, UNSTEADY_MISS if early and rng.random() < UNSTEADY else 0.0)
    missing = MISSING_RATE if rng.random() < MISSING_USER else 0.0
    split: int | float = 0
    if rng.random() < SPLIT_USER:
        split = rng.choice((rng.uniform(0.1, 0.3), rng.randint(25, 200) * 100))
    archetype = _pick(rng, MIX)
    truth = Truth(None, "NONE", archetype)
    if archetype == "gig_only":
        _gig(rng, feed)
    else:
        payers = _payers(rng, archetype, feed)
        for payer in payers:
            if payer.kind in ("job", "part_time") and rng.random() < BONUS_JOB:
                _off_cycle(rng, payer, feed)
        paid = [_pay(rng, feed, payer, bank, split if n == 0 else 0, missing) for n, payer in enumerate(payers)]
        tags = _tags(payers, bank, split, missing, feed)
        truth = _truth(feed, archetype, payers, paid, bank, split, tags)
    _everyday(rng, feed)
    rng.shuffle(feed.rows)
    return SyntheticUser(feed.uid, as_of, archetype, tuple(feed.rows), truth)


def _tags(payers: list[Payer], bank: Bank, split: int | float, missing: float, feed: _Feed) -> frozenset[str]:
    primary = payers[0]
    tags = {f"{primary.kind} pay"}
    if "{name}" not in primary.line and primary.kind in ("job", "part_time"):
        tags.add("processor description")
    if bank.early:
        tags.add("early-posting bank" if not bank.misses else "early-posting bank, not every time")
    if split:
        tags.add("split to savings")
    if missing:
        tags.add("missed paychecks")
    if any(p.extras for p in payers):
        tags.add("off-cycle deposits")
    if feed.truncates:
        tags.add("truncated descriptions")
    return frozenset(tags)


def _truth(
    feed: _Feed,
    archetype: str,
    payers: list[Payer],
    paid: list[tuple[list[Pay], list[str]]],
    bank: Bank,
    split: int | float,
    tags: frozenset[str],
) -> Truth:
    """The primary is the largest monthly amount among payers still paying at ``as_of``."""
    active = [n for n, p in enumerate(payers) if p.pays_on(feed.as_of)]
    primary = max(active, key=lambda n: payers[n].monthly)
    payer, (records, ids) = payers[primary], paid[primary]
    upcoming = min(p.landed for p in records if p.landed and p.landed > feed.as_of)
    planned = min((p for p in records if p.scheduled > feed.as_of), key=lambda p: p.scheduled)
    deviation = None if upcoming == planned.scheduled else planned.deviation or "slip"
    started = [p.payday for p in records if p.landed]
    first_pay = min(started) if payer.first and started and min(started) >= feed.start else None
    facts = Facts(
        roll="PREV",
        nominal=planned.nominal,
        bank_early=bank.early,
        wobbly=bank.misses > 0,
        deviation=deviation,
        split="same" if split else "none",
        gappy=any(p.lost for p in records),
        account=f"{feed.uid}-chk",
        paid=tuple(p.landed for p in records if p.landed and p.landed <= feed.as_of),
        lost=tuple(p.landed for p in records if p.landed and p.lost and p.landed <= feed.as_of),
        primary_ids=frozenset(ids),
        payroll_ids=frozenset(i for _, job_ids in paid for i in job_ids),
        jobs=sum(1 for records_, _ in paid if any(p.landed and feed.start <= p.landed <= feed.as_of for p in records_)),
        first_pay=first_pay,
        tags=tags,
    )
    return Truth(upcoming, payer.rule.cadence, archetype, payer.name, payer.rule.describe(), planned.scheduled, facts)


def generate(seed: int, count: int, history_days: int = HISTORY_DAYS) -> list[SyntheticUser]:
    return [make_user(seed, i, history_days) for i in range(count)]
