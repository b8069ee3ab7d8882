"""The blind payday world: US checking-account feeds from an author who never saw the models.

A separate author wrote this generator from a list of real-world phenomena (US payroll and
ACH practice, federal-benefit calendars, how aggregator feeds look) without reading the
project's models, generators or tests, so the payday model can be scored on a world it was
not shaped by. It imports nothing from the project; keep it that way.

``generate(seed, count)`` returns one dict per user: ``user_id``, ``as_of`` (a day in
2025-2026, any weekday: 68% uniform, 20% within three days of a Fed holiday, 12% near a month
end, start or middle), ``archetype``, ``transactions`` (API-shaped dicts covering
``as_of - 179 .. as_of + 35``; ``amount`` in int cents, positive out) and ``truth``. User *i*
depends only on ``(seed, i)``, never on ``count``.

The world: a main checking account, often a savings account at the same bank and sometimes a
second bank; everyday card spending with store numbers and bank prefixes, rent, bills,
subscriptions, BNPL, ATM, P2P and overdraft fees, scaled so outflows are about 0.86-1.03x
inflows. Card rows post 0-2 days after authorisation; near ``as_of`` many are pending.

Truth (what an evaluator needs):

- **primary income**: the regular source with the largest monthly equivalent (weekly x52/12,
  biweekly x26/12, semi-monthly x2, monthly x1) among sources still paying at ``as_of``; it is
  unambiguous by construction, and a job that ended before ``as_of`` is never primary.
- a **pay event** has a ``nominal`` date (the rule's own date), a ``settle`` date (rolled to a
  business day), a ``usual`` date (settle minus the bank's usual early-posting lead, in
  business days) and an ``actual`` date (when it landed in main checking).
- ``scheduled``: the usual date of the first primary event whose usual date is after
  ``as_of``; ``nominal``: that event's nominal date (a last-business-day rule's nominal is that
  business day; OPM/DFAS retiree pay's is the 1st).
- ``next_payday``: the first actual date after ``as_of`` of a primary event that was not
  missed. It differs from ``scheduled`` only for a missed next paycheck, a one-business-day
  late ACH, or an early-posting slip. Deviations never straddle ``as_of``, so
  ``next_payday >= scheduled`` and nothing due on or before ``as_of`` is outstanding.
- ``cadence``: WEEKLY / BIWEEKLY / SEMI_MONTHLY / MONTHLY (benefits and pensions monthly,
  active-duty military semi-monthly); ``bank_early``: the main bank's usual lead (0-2, for
  every user); ``jobs``: regular sources (employers, SS, SSI, pensions; not gig, freelance or
  P2P) that deposited anything in the 180-day history, in any account.
- ``split``: "same" (part of each primary paycheck to savings at the same bank, same day),
  "other" (to the second bank, posted by that bank's lead) or "none"; only the checking part
  counts for ``paid`` and ``next_payday``.
- ``paid``: actual dates in ``[as_of - 179, as_of]`` of the primary's regular deposits to main
  checking (not missed events, a new job's paper first paycheck or off-cycle rows); ``lost``:
  the subset the feed dropped (half single rows, half 1-7 day gaps of every checking row).
- users with no regular income (gig_only, freelancer, no_income, job_lost) have
  ``next_payday``, ``scheduled``, ``cadence`` and ``nominal`` None and empty ``paid``/``lost``.
- extra keys: ``rule`` (readable pay rule), ``source`` (wage, ss, ssi, pension),
  ``account_id`` (main checking) and ``tags`` (the phenomena this user shows).

Calendar: the 11 Fed holidays; a Sunday holiday is observed Monday; a Saturday holiday is not
observed (the Friday before is a business day, e.g. 2026-07-03). Pay on a closed day rolls to
the previous business day, except OPM annuities and DFAS retired pay, which roll forward to
the first business day. Early posting counts business days back from the rolled date. No bank
posts ACH credits on a closed day, so every ``paid``, ``scheduled`` and ``next_payday`` is a
business day.

Rates (per user unless stated):

=====================================  ==================================================
archetypes                             salaried 31, hourly 14, two_jobs 7, job_change 7,
                                       gig_plus_job 4, military 3, social_security 8, ssi 2,
                                       pension 5, job_lost 3, gig_only 7, freelancer 3,
                                       no_income 6 (%)
salaried cadence BW/SM/M/W             50/28/12/10; hourly W/BW/SM 45/48/7
biweekly weekday Fri/Thu/Wed/Tue/Mon   68/15/7/4/6 (weekly 72/15/6/3/4)
semi-monthly pairs                     15&last 40, 1&15 22, 5&20 12, 10&25 12, 7&22 7, 15&30 7
monthly rules                          last business day 28, last day 14, 1st 12, 15th 9,
                                       25th 10, 28th 5, 20th 4, last/2nd/1st Friday 8/6/4
Social Security                        2nd/3rd/4th Wednesday ~1/3 each; the 3rd for 15%
                                       and for SS with SSI; COLA +2.5% 2025, +2.8% 2026
SSI with SS / SS with pension          35% / 30%; pension users with SS 75%
pension payer                          private 40, state 23, OPM 15, VA 12, DFAS 10
bank usual lead 0/1/2 days             ~49/13/38%, the lead fails 0-30% of paychecks
late ACH                               0.6% of paychecks, +2% forced on the next payday
missed paycheck                        6% of wage primaries (12% of second jobs); the next
                                       one 2.5% of non-monthly wage primaries
job change                             final pay off-cycle 60%, paper first paycheck 25%,
                                       prorated first paycheck always
bonus / reimbursement / raise          18% / 10% of employers / 15% of salaried
split deposit same / other bank        12% / 6%
payroll category clean/some/heavy      72/18/10 (benefits 80/14/6)
feed dropped a primary paycheck        6%
cash-advance app                       30% of low-income, gig and hourly users, 5% others
P2P inflows / family allowance         60% / 45% of no_income and gig_only
=====================================  ==================================================
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache
from typing import TypedDict, TypeVar

T = TypeVar("T")

DAY = timedelta(days=1)
HISTORY_DAYS = 180  # as_of-179 .. as_of inclusive
FUTURE_DAYS = 35  # as_of+1 .. as_of+35 (extended if ever needed)

#: (primary, detailed) personal finance category.
Pfc = tuple[str, str]
#: A category as a deposit carries it: the PFC pair and the legacy category list, each optional.
Labelled = tuple[Pfc | None, list[str] | None]
#: name, usual early-posting lead (business days), P(usual lead happens), description style, weight
Bank = tuple[str, int, float, str, int]
#: The amount in cents of a pay event, from its nominal date.
AmountFn = Callable[[random.Random, date], int]


class Category(TypedDict):
    primary: str
    detailed: str


class Transaction(TypedDict):
    txn_id: str
    account_id: str
    amount: int
    iso_currency_code: str
    date: str
    authorized_date: str | None
    name: str
    merchant_name: str | None
    personal_finance_category: Category | None
    category: list[str] | None
    pending: bool


class Truth(TypedDict):
    next_payday: date | None
    scheduled: date | None
    cadence: str | None
    nominal: date | None
    bank_early: int
    jobs: int
    split: str
    paid: list[date]
    lost: list[date]
    rule: str | None
    source: str | None
    account_id: str
    tags: list[str]


class PaydayUser(TypedDict):
    user_id: str
    as_of: date
    archetype: str
    transactions: list[Transaction]
    truth: Truth


# --------------------------------------------------------------------------
# Calendar: Federal Reserve holidays (the days ACH does not settle)
# --------------------------------------------------------------------------


def _last_day(y: int, m: int) -> date:
    return date(y + m // 12, m % 12 + 1, 1) - DAY


def _nth_weekday(y: int, m: int, wd: int, n: int) -> date:
    """n-th weekday (0=Mon) of a month; n=-1 means the last one."""
    if n > 0:
        d = date(y, m, 1)
        d += timedelta(days=(wd - d.weekday()) % 7)
        return d + timedelta(days=7 * (n - 1))
    d = _last_day(y, m)
    return d - timedelta(days=(d.weekday() - wd) % 7)


@cache
def holiday_dates(year: int) -> dict[date, str]:
    """Calendar dates of the 11 federal holidays in ``year`` (unadjusted)."""
    return {
        date(year, 1, 1): "New Year's Day",
        _nth_weekday(year, 1, 0, 3): "Martin Luther King Jr. Day",
        _nth_weekday(year, 2, 0, 3): "Washington's Birthday",
        _nth_weekday(year, 5, 0, -1): "Memorial Day",
        date(year, 6, 19): "Juneteenth",
        date(year, 7, 4): "Independence Day",
        _nth_weekday(year, 9, 0, 1): "Labor Day",
        _nth_weekday(year, 10, 0, 2): "Columbus Day",
        date(year, 11, 11): "Veterans Day",
        _nth_weekday(year, 11, 3, 4): "Thanksgiving Day",
        date(year, 12, 25): "Christmas Day",
    }


@cache
def fed_closed(year: int) -> dict[date, str]:
    """Federal Reserve / ACH non-settlement weekdays of ``year``.

    Sunday holidays are observed on the following Monday.  Saturday holidays
    are NOT observed on the preceding Friday (the Fed stays open), so e.g.
    Fri 2026-07-03 is a normal ACH business day.
    """
    out: dict[date, str] = {}
    for d, name in holiday_dates(year).items():
        if d.weekday() == 6:
            out[d + DAY] = name + " (observed)"
        elif d.weekday() != 5:
            out[d] = name
    return out


def is_holiday(d: date) -> bool:
    return d in fed_closed(d.year)


def is_bd(d: date) -> bool:
    return d.weekday() < 5 and d not in fed_closed(d.year)


def add_bd(d: date, n: int) -> date:
    """Move n business days (negative = earlier)."""
    if n == 0:
        return d
    step = DAY if n > 0 else -DAY
    for _ in range(abs(n)):
        d += step
        while not is_bd(d):
            d += step
    return d


def roll(d: date, how: str) -> date:
    if how == "next":
        while not is_bd(d):
            d += DAY
    else:
        while not is_bd(d):
            d -= DAY
    return d


def _months(lo: date, hi: date) -> Iterator[tuple[int, int]]:
    y, m = lo.year, lo.month
    while (y, m) <= (hi.year, hi.month):
        yield y, m
        m += 1
        if m == 13:
            y, m = y + 1, 1


# --------------------------------------------------------------------------
# Pay rules
# --------------------------------------------------------------------------

WEEKDAY = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


class Rule:
    """A pay rule: the nominal dates it produces, its cadence and how a closed day moves."""

    cadence: str
    roll = "prev"  # how a weekend/holiday nominal date moves
    label = ""

    def nominals(self, lo: date, hi: date) -> list[date]:
        raise NotImplementedError


class EveryNDays(Rule):
    def __init__(self, anchor: date, step: int) -> None:
        self.anchor, self.step = anchor, step
        self.cadence = "WEEKLY" if step == 7 else "BIWEEKLY"
        self.label = f"{self.cadence.lower()} {WEEKDAY[anchor.weekday()]} (anchor {anchor})"

    def nominals(self, lo: date, hi: date) -> list[date]:
        off = (lo - self.anchor).days % self.step
        d = lo if off == 0 else lo + timedelta(days=self.step - off)
        out = []
        while d <= hi:
            out.append(d)
            d += timedelta(days=self.step)
        return out


class SemiMonthly(Rule):
    cadence = "SEMI_MONTHLY"

    def __init__(self, d1: int, d2: int) -> None:  # 31 means "last day of month"
        self.days = (d1, d2)
        first, second = ("last" if x == 31 else str(x) for x in self.days)
        self.label = f"semi-monthly {first} & {second}"

    def nominals(self, lo: date, hi: date) -> list[date]:
        out = []
        for y, m in _months(lo, hi):
            last = _last_day(y, m).day
            for x in self.days:
                d = date(y, m, min(x, last))
                if lo <= d <= hi:
                    out.append(d)
        return out


class MonthlyDay(Rule):
    cadence = "MONTHLY"

    def __init__(self, day: int, how: str = "prev") -> None:
        self.day, self.roll = day, how
        self.label = f"monthly on the {'last day' if day == 31 else str(day)}"

    def nominals(self, lo: date, hi: date) -> list[date]:
        out = []
        for y, m in _months(lo, hi):
            d = date(y, m, min(self.day, _last_day(y, m).day))
            if lo <= d <= hi:
                out.append(d)
        return out


class FirstBusinessDay(MonthlyDay):
    """OPM / DFAS-retiree style: paid the 1st, or the first business day after."""

    def __init__(self) -> None:
        super().__init__(1, "next")
        self.label = "monthly, first business day (forward roll)"


class LastBusinessDay(Rule):
    cadence = "MONTHLY"
    label = "monthly, last business day"

    def nominals(self, lo: date, hi: date) -> list[date]:
        out = []
        for y, m in _months(lo, hi):
            d = roll(_last_day(y, m), "prev")
            if lo <= d <= hi:
                out.append(d)
        return out


class NthWeekday(Rule):
    cadence = "MONTHLY"

    def __init__(self, n: int, wd: int) -> None:
        self.n, self.wd = n, wd
        nth = {1: "first", 2: "second", 3: "third", 4: "fourth", -1: "last"}[n]
        self.label = f"monthly, {nth} {WEEKDAY[wd]}"

    def nominals(self, lo: date, hi: date) -> list[date]:
        out = []
        for y, m in _months(lo, hi):
            d = _nth_weekday(y, m, self.wd, self.n)
            if lo <= d <= hi:
                out.append(d)
        return out


# --------------------------------------------------------------------------
# Static vocabularies
# --------------------------------------------------------------------------

FIRST = ["JAMES", "MARIA", "ROBERT", "JENNIFER", "MICHAEL", "LINDA", "DAVID", "PATRICIA",
         "JOSE", "ASHLEY", "DESHAWN", "EMILY", "KEVIN", "BRITTANY", "LUIS", "TIFFANY",
         "ANTHONY", "JESSICA", "CHRISTOPHER", "SARAH", "DANIEL", "LATOYA", "BRANDON", "NGUYEN",
         "MOHAMMED", "PRIYA", "TYLER", "KAYLA", "MARCUS", "ANGELA", "CARLOS", "DOROTHY",
         "WALTER", "BARBARA", "GARY", "SHIRLEY", "ROSA", "JAMAL", "MEGAN", "HANNAH"]  # fmt: skip
LAST = ["SMITH", "JOHNSON", "WILLIAMS", "BROWN", "JONES", "GARCIA", "MILLER", "DAVIS",
        "RODRIGUEZ", "MARTINEZ", "HERNANDEZ", "LOPEZ", "WILSON", "ANDERSON", "THOMAS",
        "TAYLOR", "MOORE", "JACKSON", "MARTIN", "LEE", "PEREZ", "THOMPSON", "WHITE",
        "HARRIS", "CLARK", "RAMIREZ", "LEWIS", "ROBINSON", "WALKER", "YOUNG", "PATEL",
        "NGUYEN", "KIM", "WASHINGTON", "OKAFOR", "SULLIVAN", "BECKER", "FISCHER"]  # fmt: skip
CITIES = [("AUSTIN", "TX"), ("COLUMBUS", "OH"), ("CHARLOTTE", "NC"), ("PHOENIX", "AZ"),
          ("TAMPA", "FL"), ("DENVER", "CO"), ("ATLANTA", "GA"), ("NASHVILLE", "TN"),
          ("INDIANAPOLIS", "IN"), ("SAN DIEGO", "CA"), ("SPOKANE", "WA"), ("TULSA", "OK"),
          ("RICHMOND", "VA"), ("MILWAUKEE", "WI"), ("ALBANY", "NY"), ("FRESNO", "CA"),
          ("BIRMINGHAM", "AL"), ("OMAHA", "NE"), ("PITTSBURGH", "PA"), ("LAS VEGAS", "NV")]  # fmt: skip

# Bank names and early-posting behaviour are illustrative, not claims about any real bank's policy.
BANKS: list[Bank] = [
    ("Chase", 0, 1.0, "chase", 15),
    ("Bank of America", 0, 1.0, "bofa", 13),
    ("Wells Fargo", 2, 0.70, "wells", 10),
    ("Citibank", 0, 1.0, "plain", 4),
    ("U.S. Bank", 0, 1.0, "plain", 4),
    ("PNC", 0, 1.0, "plain", 4),
    ("Truist", 0, 1.0, "plain", 3),
    ("TD Bank", 0, 1.0, "plain", 3),
    ("Regions", 0, 1.0, "plain", 2),
    ("Capital One", 2, 0.85, "plain", 6),
    ("Chime", 2, 0.92, "fintech", 8),
    ("SoFi", 2, 0.85, "fintech", 3),
    ("Varo", 2, 0.90, "fintech", 2),
    ("Cash App", 2, 0.80, "fintech", 3),
    ("Current", 2, 0.85, "fintech", 1),
    ("Ally", 2, 0.80, "plain", 2),
    ("Navy Federal", 1, 0.92, "cu", 4),
    ("USAA", 1, 0.85, "cu", 3),
    ("Huntington", 2, 0.72, "plain", 2),
    ("Local credit union", 1, 0.75, "cu", 6),
]
BANK_BY_NAME = {b[0]: b for b in BANKS}

EMP_A = ["Northwind", "Summit", "Blue Ridge", "Cedar Valley", "Pioneer", "Lakeside", "Granite",
         "Harbor", "Evergreen", "Redwood", "Riverbend", "Keystone", "Silverline", "Meridian",
         "Oakmont", "Bayview", "Crescent", "Ironwood", "Maple Leaf", "Sterling", "Tri-County",
         "Heartland", "Coastal", "Prairie", "Beacon", "Allied", "Apex", "Frontier"]  # fmt: skip
EMP_B = ["Health", "Logistics", "Foods", "Systems", "Manufacturing", "Dental Group", "Construction",
         "Staffing", "Hospitality", "Medical Center", "Auto Group", "Insurance", "Electric",
         "Pharmacy", "Retail", "Solutions", "Labs", "Property Mgmt", "Plumbing", "Home Care",
         "Distribution", "Engineering", "Veterinary", "Credit Union", "Senior Living"]  # fmt: skip
EMP_SUFFIX = [" Inc", " LLC", " Corp", "", "", " Co"]
BIG_EMPLOYERS = [("WALMART INC", "Walmart"), ("AMAZON.COM SVCS", "Amazon"), ("TARGET CORP", "Target"),
                 ("HOME DEPOT", "The Home Depot"), ("KROGER CO", "Kroger"), ("UPS", "UPS"),
                 ("FEDEX", "FedEx"), ("STARBUCKS CORP", "Starbucks"), ("CVS HEALTH", "CVS"),
                 ("WALGREEN CO", "Walgreens"), ("HCA HEALTHCARE", "HCA"), ("KAISER PERMANENTE", "Kaiser"),
                 ("LOWES", "Lowe's"), ("COSTCO WHOLESALE", "Costco"), ("DOLLAR GENERAL", "Dollar General")]  # fmt: skip
PUBLIC_EMPLOYERS = ["STATE OF OHIO", "COUNTY OF FRESNO", "CITY OF TULSA", "AUSTIN ISD",
                    "WAKE CO PUBLIC SCH", "COMMONWEALTH OF VA", "UNIV OF MINNESOTA", "STATE OF TEXAS"]  # fmt: skip
# processor, company-name field variants, entry-description variants
PROCESSORS = [
    ("ADP", ["ADP WAGE PAY", "ADP PAYROLL"], ["WAGE PAY", "PAYROLL", "DIR DEP"]),
    ("Paychex", ["PAYCHEX TPS", "PAYCHEX-HRS", "PAYCHEX EIB"], ["PAYROLL", "DIRECT DEP"]),
    ("Gusto", ["GUSTO"], ["NET PAY", "PAY"]),
    ("Paylocity", ["PAYLOCITY CORPO"], ["DIRECT DEP"]),
    ("TriNet", ["TRINET HR III", "TRINET"], ["PAYROLL"]),
    ("Justworks", ["JUSTWORKS INC"], ["PAYROLL"]),
    ("Insperity", ["INSPERITY"], ["PAYROLL"]),
    ("Intuit", ["INTUIT PAYROLL S", "QUICKBOOKS PAYRL"], ["PAYROLL", "DIR DEP"]),
    ("Rippling", ["RIPPLING PEO"], ["PAYROLL"]),
    ("Paycom", ["PAYCOM PAYROLL"], ["DIRECT DEP"]),
    ("Dayforce", ["DAYFORCE", "CERIDIAN"], ["PAYROLL"]),
    ("Square", ["SQUARE PAYROLL"], ["PAYROLL"]),
]
EMP_ENTRIES = ["PAYROLL", "PAYROLL", "PAYROLL", "DIR DEP", "DIRECT DEP", "NET PAY", "SALARY",
               "REG.SALARY", "DIRDEP", "PAY", "PAYMENT"]  # fmt: skip

PFC_WAGES: Labelled = (("INCOME", "INCOME_WAGES"), ["Transfer", "Payroll"])
PFC_PENSION: Labelled = (("INCOME", "INCOME_RETIREMENT_PENSION"), ["Transfer", "Deposit"])
PFC_OTHER_INC: Labelled = (("INCOME", "INCOME_OTHER_INCOME"), ["Transfer", "Deposit"])
# Plaid often labels payroll TRANSFER_IN_DEPOSIT, or leaves it None; a row can have one half only.
PFC_NOISE: list[Labelled] = [
    (("TRANSFER_IN", "TRANSFER_IN_DEPOSIT"), ["Transfer", "Deposit"]),
    (("TRANSFER_IN", "TRANSFER_IN_ACCOUNT_TRANSFER"), ["Transfer", "Credit"]),
    (None, None),
    (("INCOME", "INCOME_OTHER_INCOME"), ["Transfer", "Deposit"]),
    (("TRANSFER_IN", "TRANSFER_IN_DEPOSIT"), None),
    (None, ["Transfer", "Credit"]),
]

GIG_PLATFORMS = [
    ("Uber", ["UBER USA 6787 INSTANT PAY", "UBER TECHNOLOGIES DES:EDI PYMNTS", "Uber Pro Card Cash Out"]),
    ("DoorDash", ["DOORDASH DASHER FAST PAY", "DOORDASH, INC. DES:DOORDASH", "DOORDASH CROSSING PAYOUT"]),
    ("Instacart", ["INSTACART SHOPPERS INSTANT CASHOUT", "MAPLEBEAR INC DES:INSTACART"]),
    ("Lyft", ["LYFT EXPRESS DRIVE PAYOUT", "LYFT INC DES:PAYMENT"]),
    ("Amazon Flex", ["AMZN FLEX PAYOUT", "AMAZON FLEX DES:DRIVER PAY"]),
    ("Spark Driver", ["BRANCH MESSENGER SPARK DRIVER", "SPARK DRIVER PAYOUT"]),
    ("Shipt", ["SHIPT INC PAYOUT", "SHIPT DES:SHOPPER PAY"]),
    ("Grubhub", ["GRUBHUB HOLDINGS DES:DRIVER PAY", "GRUBHUB INSTANT CASHOUT"]),
]
# Gig payouts are deliberately sometimes labelled INCOME_WAGES.
_GIG_PFC: list[tuple[Pfc | None, int]] = [
    (("INCOME", "INCOME_OTHER_INCOME"), 4),
    (("TRANSFER_IN", "TRANSFER_IN_DEPOSIT"), 3),
    (("INCOME", "INCOME_WAGES"), 2),
    (None, 1),
]

CASH_ADVANCE = [("EarnIn", "EARNIN TRANSFER", "EARNIN REPAYMENT"),
                ("Dave", "DAVE INC DES:ADVANCE", "DAVE INC DES:DEBIT"),
                ("Brigit", "BRIGIT INSTANT TRANSFER", "BRIGIT REPAYMENT"),
                ("MoneyLion", "MONEYLION INSTACASH", "MONEYLION INSTACASH REPAY"),
                ("Cleo", "CLEO AI CASH ADVANCE", "CLEO AI REPAYMENT"),
                ("Klover", "KLOVER APP BOOST", "KLOVER REPAYMENT")]  # fmt: skip

#: Everyday card spending: key, base rate per day, (lo, hi) dollars, merchants, pfc, legacy category.
SPEND: list[tuple[str, float, tuple[int, int], list[tuple[str, str | None]], Pfc, list[str]]] = [
    ("grocery", 0.28, (14, 165), [("KROGER #{n3}", "Kroger"), ("SAFEWAY #{n4}", "Safeway"),
                                   ("PUBLIX #{n4}", "Publix"), ("ALDI {n5}", "ALDI"),
                                   ("WHOLEFDS {ab} {n5}", "Whole Foods Market"),
                                   ("TRADER JOE S #{n3}", "Trader Joe's"), ("H-E-B #{n3}", "H-E-B"),
                                   ("WEGMANS #{n3}", "Wegmans"), ("FOOD LION #{n4}", "Food Lion"),
                                   ("MEIJER # {n3}", "Meijer")],
     ("FOOD_AND_DRINK", "FOOD_AND_DRINK_GROCERIES"), ["Shops", "Supermarkets and Groceries"]),
    ("coffee", 0.18, (3, 11), [("STARBUCKS STORE {n5}", "Starbucks"), ("DUNKIN #{n6}", "Dunkin'"),
                               ("DUTCH BROS #{n4}", "Dutch Bros"), ("SQ *BREW HOUSE COFFEE", None),
                               ("PEETS COFFEE #{n5}", "Peet's Coffee")],
     ("FOOD_AND_DRINK", "FOOD_AND_DRINK_COFFEE"), ["Food and Drink", "Restaurants", "Coffee Shop"]),
    ("fastfood", 0.20, (6, 28), [("MCDONALD'S F{n5}", "McDonald's"), ("CHICK-FIL-A #{n5}", "Chick-fil-A"),
                                 ("TACO BELL #{n6}", "Taco Bell"), ("WENDYS #{n4}", "Wendy's"),
                                 ("CHIPOTLE {n4}", "Chipotle Mexican Grill"), ("SUBWAY {n8}", "Subway"),
                                 ("PANERA BREAD #{n6}", "Panera Bread"), ("SONIC DRIVE IN #{n4}", "Sonic")],
     ("FOOD_AND_DRINK", "FOOD_AND_DRINK_FAST_FOOD"), ["Food and Drink", "Restaurants", "Fast Food"]),
    ("restaurant", 0.09, (18, 140), [("TST* THE LOCAL TAVERN", None), ("SQ *EL JALISCO", None),
                                     ("OLIVE GARDEN {n4}", "Olive Garden"), ("TST* PHO SAIGON", None),
                                     ("APPLEBEES {n7}", "Applebee's"), ("TEXAS ROADHOUSE #{n4}", "Texas Roadhouse"),
                                     ("SQ *THE DAILY GRIND", None)],
     ("FOOD_AND_DRINK", "FOOD_AND_DRINK_RESTAURANT"), ["Food and Drink", "Restaurants"]),
    ("gas", 0.11, (22, 78), [("SHELL OIL {n8}", "Shell"), ("EXXONMOBIL {n8}", "Exxon"), ("CHEVRON {n7}", "Chevron"),
                             ("BP#{n7}", "BP"), ("WAWA {n4}", "Wawa"), ("QT {n3}", "QuikTrip"),
                             ("SPEEDWAY {n5}", "Speedway"), ("CIRCLE K {n5}", "Circle K")],
     ("TRANSPORTATION", "TRANSPORTATION_GAS"), ["Travel", "Gas Stations"]),
    ("online", 0.14, (7, 130), [("AMAZON.COM*{ref} AMZN.COM/BILL WA", "Amazon"), ("AMZN MKTP US*{ref}", "Amazon"),
                                ("TARGET.COM *", "Target"), ("WALMART.COM", "Walmart"), ("ETSY.COM - {ref}", "Etsy"),
                                ("EBAY O*{n8}", "eBay")],
     ("GENERAL_MERCHANDISE", "GENERAL_MERCHANDISE_ONLINE_MARKETPLACES"), ["Shops", "Digital Purchase"]),
    ("superstore", 0.10, (9, 210), [("WAL-MART #{n4}", "Walmart"), ("WM SUPERCENTER #{n4}", "Walmart"),
                                    ("TARGET {n8}", "Target"), ("COSTCO WHSE #{n4}", "Costco"),
                                    ("DOLLAR GENERAL #{n5}", "Dollar General")],
     ("GENERAL_MERCHANDISE", "GENERAL_MERCHANDISE_SUPERSTORES"), ["Shops", "Department Stores"]),
    ("pharmacy", 0.04, (5, 60), [("CVS/PHARMACY #{n5}", "CVS"), ("WALGREENS #{n5}", "Walgreens")],
     ("MEDICAL", "MEDICAL_PHARMACIES_AND_SUPPLEMENTS"), ["Healthcare", "Pharmacies"]),
    ("rideshare", 0.04, (8, 45), [("UBER *TRIP HELP.UBER.COM", "Uber"), ("LYFT *RIDE {dow} {n4}", "Lyft")],
     ("TRANSPORTATION", "TRANSPORTATION_TAXIS_AND_RIDE_SHARES"), ["Travel", "Taxi"]),
    ("delivery", 0.05, (14, 60), [("DOORDASH*CHIPOTLE", "DoorDash"), ("UBER *EATS", "Uber Eats"),
                                  ("GRUBHUB*PANDAEXPRESS", "Grubhub"), ("DOORDASH*DASHPASS", "DoorDash")],
     ("FOOD_AND_DRINK", "FOOD_AND_DRINK_RESTAURANT"), ["Food and Drink", "Restaurants"]),
    ("fun", 0.03, (8, 90), [("AMC {n4} ONLINE", "AMC Theatres"), ("STEAMGAMES.COM {n10}", "Steam"),
                            ("TICKETMASTER", "Ticketmaster"), ("PLAYSTATION NETWORK", "PlayStation")],
     ("ENTERTAINMENT", "ENTERTAINMENT_TV_AND_MOVIES"), ["Recreation", "Arts and Entertainment"]),
]  # fmt: skip

#: Monthly bills: key, names, merchant, pfc, legacy, (lo, hi) dollars, channel ('ach' posts on
#: business days, 'card' any day).
BILLS: list[tuple[str, list[str], str | None, Pfc, list[str], tuple[int, int], str]] = [
    ("electric", ["DUKE ENERGY DES:BILL PAY", "GEORGIA POWER BILL PAY", "FPL DIRECT DEBIT",
                  "XCEL ENERGY-PSCO XCELENERGY"],
     None, ("RENT_AND_UTILITIES", "RENT_AND_UTILITIES_GAS_AND_ELECTRICITY"), ["Service", "Utilities", "Electric"],
     (55, 240), "ach"),
    ("water", ["CITY OF {city} UTIL", "{city} WATER UTILITY"], None,
     ("RENT_AND_UTILITIES", "RENT_AND_UTILITIES_WATER"), ["Service", "Utilities", "Water"], (25, 95), "ach"),
    ("phone", ["VERIZON WIRELESS PAYMENTS", "AT&T DES:PAYMENT", "T-MOBILE PCS SVC", "CRICKET WIRELESS",
               "METRO BY T-MOBILE"],
     None, ("RENT_AND_UTILITIES", "RENT_AND_UTILITIES_TELEPHONE"), ["Service", "Telecommunication Services"],
     (35, 190), "ach"),
    ("internet", ["COMCAST XFINITY", "SPECTRUM", "COX COMM", "ATT*BILL PAYMENT"], None,
     ("RENT_AND_UTILITIES", "RENT_AND_UTILITIES_INTERNET_AND_CABLE"), ["Service", "Cable"], (45, 130), "card"),
    ("insurance", ["GEICO *AUTO", "PROGRESSIVE *INSURANCE", "STATE FARM RO 27 SFPP", "ALLSTATE INS CO"], None,
     ("GENERAL_SERVICES", "GENERAL_SERVICES_INSURANCE"), ["Service", "Insurance"], (70, 260), "ach"),
    ("carloan", ["TOYOTA FINANCIAL DES:PAYMENT", "CAPITAL ONE AUTO PMT", "ALLY AUTO PMT", "SANTANDER CONSUMER"], None,
     ("LOAN_PAYMENTS", "LOAN_PAYMENTS_CAR_PAYMENT"), ["Payment", "Loan"], (240, 620), "ach"),
    ("studentloan", ["NELNET DES:LOAN PMNT", "MOHELA DES:STUDNTLOAN", "AIDVANTAGE DES:PAYMENT"], None,
     ("LOAN_PAYMENTS", "LOAN_PAYMENTS_STUDENT_LOAN_PAYMENT"), ["Payment", "Loan"], (90, 420), "ach"),
    ("creditcard", ["CHASE CREDIT CRD AUTOPAY", "CAPITAL ONE MOBILE PMT", "DISCOVER E-PAYMENT",
                    "AMEX EPAYMENT ACH PMT", "CITI AUTOPAY PAYMENT", "SYNCHRONY BANK PAYMENT"], None,
     ("LOAN_PAYMENTS", "LOAN_PAYMENTS_CREDIT_CARD_PAYMENT"), ["Payment", "Credit Card"], (40, 900), "ach"),
    ("gym", ["PLANET FITNESS", "LA FITNESS", "ANYTIME FITNESS"], None,
     ("PERSONAL_CARE", "PERSONAL_CARE_GYMS_AND_FITNESS_CENTERS"), ["Recreation", "Gyms and Fitness Centers"],
     (10, 60), "card"),
]  # fmt: skip
#: P(user has the bill); 0.8 for the rest.
_BILL_SHARE = {"carloan": 0.4, "studentloan": 0.25, "gym": 0.3, "creditcard": 0.65, "water": 0.5}
SUBSCRIPTIONS = [("NETFLIX.COM", "Netflix", (7.99, 24.99)), ("SPOTIFY USA", "Spotify", (11.99, 19.99)),
                 ("HULU 877-8244858 CA", "Hulu", (9.99, 18.99)), ("DISNEY PLUS", "Disney+", (9.99, 15.99)),
                 ("APPLE.COM/BILL", "Apple", (0.99, 19.99)), ("GOOGLE *YOUTUBEPREMIUM", "YouTube", (13.99, 13.99)),
                 ("AMAZON PRIME*{ref}", "Amazon Prime", (14.99, 14.99)),
                 ("PARAMOUNT+", "Paramount+", (7.99, 12.99))]  # fmt: skip

ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
UP = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def _w(rng: random.Random, pairs: Sequence[tuple[T, float]]) -> T:
    """Weighted choice from [(value, weight), ...]."""
    tot = sum(w for _, w in pairs)
    x = rng.random() * tot
    for v, w in pairs:
        x -= w
        if x < 0:
            return v
    return pairs[-1][0]


def _digits(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789") for _ in range(n))


def _cents(rng: random.Random, lo: float, hi: float) -> int:
    return round(rng.uniform(lo, hi) * 100)


# --------------------------------------------------------------------------
# Accounts and description formatting
# --------------------------------------------------------------------------


class Account:
    def __init__(self, rng: random.Random, bank: Bank, kind: str) -> None:
        self.bank_name, self.lead, self.p_usual, self.style, _ = bank
        self.kind = kind
        self.account_id = "".join(rng.choice(ALNUM) for _ in range(37))
        self.mask = _digits(rng, 4)
        self.auth_on_ach = self.style == "fintech" or rng.random() < 0.3
        self.titlecase = self.style == "fintech" and rng.random() < 0.5


def ach_credit_name(acct: Account, co: str, entry: str, indn: str, coid: str, indid: str, d: date) -> str:
    st = acct.style
    if st == "bofa":
        return f"{co} DES:{entry} ID:{indid} INDN:{indn} CO ID:{coid} PPD"
    if st == "chase":
        return f"{co} {entry} PPD ID: {coid}"
    if st == "wells":
        return f"{co} {entry} {d:%y%m%d} {indid} {indn}"
    if st == "fintech":
        return f"{co} {entry}".strip()
    if st == "cu":
        return f"Deposit ACH {co} TYPE: {entry} CO: {co}" if len(co) % 2 else f"ACH DEPOSIT {co} {entry}"
    return f"{co} {entry}"


def transfer_name(acct: Account, direction: str, other_kind: str, other_mask: str, rng: random.Random) -> str:
    ok = "SAV" if other_kind == "savings" else "CHK"
    st = acct.style
    if st == "chase":
        return f"Online Transfer {direction} {ok} ...{other_mask} transaction#: {_digits(rng, 11)}"
    if st == "bofa":
        return f"Online Banking transfer {direction} {ok} {other_mask} Confirmation# {_digits(rng, 10)}"
    if st == "wells":
        return f"ONLINE TRANSFER {direction.upper()} {ok} XXXXXX{other_mask} REF #IB0{_digits(rng, 7)}"
    if st == "fintech":
        return f"Transfer {direction} {'Savings' if ok == 'SAV' else 'Checking'}"
    return f"INTERNET TRANSFER {direction.upper()} {ok} {other_mask}"


def zelle_name(acct: Account, direction: str, who: str, rng: random.Random) -> str:
    st = acct.style
    if st == "bofa":
        return f"Zelle payment {direction} {who.title()} Conf# {''.join(rng.choice(ALNUM) for _ in range(9))}"
    if st == "chase":
        return f"Zelle Payment {direction.title()} {who.title()} {_digits(rng, 11)}"
    if st == "wells":
        return (
            f"ZELLE {direction.upper()} {who} ON {rng.randint(1, 12):02d}/{rng.randint(1, 28):02d} "
            f"REF # WFCT{_digits(rng, 7)}"
        )
    return f"ZELLE {direction.upper()} {who}"


# --------------------------------------------------------------------------
# Income sources and pay events
# --------------------------------------------------------------------------


class Ev:
    """One pay event: nominal date, business-day settlement, usual and actual posting."""

    __slots__ = ("actual", "amount", "bonus_in", "late", "missed", "nominal", "paper", "settle", "slip", "usual")

    def __init__(self, nominal: date, settle: date, usual: date) -> None:
        self.nominal, self.settle, self.usual = nominal, settle, usual
        self.actual = usual
        self.late = self.slip = self.missed = self.paper = False
        self.amount = 0
        self.bonus_in = 0


class Source:
    """A regular income source (employer or benefit)."""

    def __init__(
        self,
        key: str,
        kind: str,
        rule: Rule,
        account: Account,
        co: str,
        entry: str,
        merchant: str | None,
        clean: Labelled | None,
        amount_fn: AmountFn,
        monthly_equiv: float,
        first: date | None = None,
        last: date | None = None,
        processor: bool = False,
    ) -> None:
        self.key, self.kind, self.rule, self.account = key, kind, rule, account
        self.co, self.entry, self.merchant, self.clean = co, entry, merchant, clean
        self.amount_fn, self.monthly_equiv = amount_fn, monthly_equiv
        self.first = first or date(2000, 1, 1)  # first nominal date paid
        self.last = last or date(2100, 1, 1)  # last nominal date paid
        self.processor = processor
        self.noise = "clean"
        self.noise_pick: Labelled = (None, None)
        self.coid = ""
        self.indid = ""
        self.annual = 0.0
        self.events: list[Ev] = []


PER_MONTH = {"WEEKLY": 52 / 12, "BIWEEKLY": 26 / 12, "SEMI_MONTHLY": 2.0, "MONTHLY": 1.0}
_CAD_SALARIED = [("BIWEEKLY", 50), ("SEMI_MONTHLY", 28), ("MONTHLY", 12), ("WEEKLY", 10)]
_CAD_HOURLY = [("WEEKLY", 45), ("BIWEEKLY", 48), ("SEMI_MONTHLY", 7)]
_COLAS = {2024: 1.0, 2025: 1.025, 2026: 1.025 * 1.028, 2027: 1.025 * 1.028 * 1.025}


@dataclass(frozen=True)
class _WagePay:
    per_check: float
    variable: bool  # hourly or part-time pay moves with the hours
    raise_on: tuple[date, float] | None
    sigma: float

    def __call__(self, r2: random.Random, nominal: date) -> int:
        a = self.per_check
        if self.raise_on and nominal >= self.raise_on[0]:
            a *= self.raise_on[1]
        if nominal.month == 1 and nominal.day <= 14:
            a *= 0.985  # new-year tax/benefit elections
        if self.variable:
            a *= max(0.25, r2.gauss(1.0, self.sigma))
        return round(a * 100)


@dataclass(frozen=True)
class _MilitaryPay:
    rank_pay: float

    def __call__(self, r2: random.Random, nom: date) -> int:
        a = self.rank_pay
        return round(a * (1.045 if nom.year >= 2025 else 1) * (1.038 if nom.year >= 2026 else 1) * 100)


@dataclass(frozen=True)
class _BenefitPay:
    monthly: float
    dollars: bool
    cola: bool

    def __call__(self, r2: random.Random, nominal: date) -> int:
        # payment in January reflects the new COLA (December benefit paid in January)
        f = _COLAS.get(nominal.year, _COLAS[2027]) / _COLAS[2025] if self.cola else 1.0
        v = self.monthly * f
        return int(v) * 100 if self.dollars else round(v * 100)


def _pick_employer_rule(rng: random.Random, cadence: str) -> Rule:
    if cadence in ("WEEKLY", "BIWEEKLY"):
        wd = _w(
            rng,
            [(4, 72), (3, 15), (2, 6), (1, 3), (0, 4)]
            if cadence == "WEEKLY"
            else [(4, 68), (3, 15), (2, 7), (1, 4), (0, 6)],
        )
        base = date(2024, 1, 1) + timedelta(days=(wd - date(2024, 1, 1).weekday()) % 7)
        anchor = base + timedelta(days=7 * rng.randrange(0, 2) + 14 * rng.randrange(0, 20))
        return EveryNDays(anchor, 7 if cadence == "WEEKLY" else 14)
    if cadence == "SEMI_MONTHLY":
        d1, d2 = _w(rng, [((15, 31), 40), ((1, 15), 22), ((5, 20), 12), ((10, 25), 12), ((7, 22), 7), ((15, 30), 7)])
        return SemiMonthly(d1, d2)
    monthly: list[tuple[Callable[[], Rule], int]] = [
        (LastBusinessDay, 28),
        (lambda: MonthlyDay(31), 14),
        (lambda: MonthlyDay(1), 12),
        (lambda: MonthlyDay(15), 9),
        (lambda: MonthlyDay(25), 10),
        (lambda: MonthlyDay(28), 5),
        (lambda: NthWeekday(-1, 4), 8),
        (lambda: NthWeekday(2, 4), 6),
        (lambda: NthWeekday(1, 4), 4),
        (lambda: MonthlyDay(20), 4),
    ]
    return _w(rng, monthly)()


def _clean_for(kind: str) -> Labelled | None:
    return {"wage": PFC_WAGES, "ss": None, "ssi": PFC_OTHER_INC, "pension": PFC_PENSION}[kind]


def _assign_noise(rng: random.Random, src: Source, rates: tuple[int, int, int] = (72, 18, 10)) -> None:
    src.noise = _w(rng, [("clean", rates[0]), ("some", rates[1]), ("heavy", rates[2])])
    src.noise_pick = rng.choice(PFC_NOISE)


def _employer_identity(rng: random.Random, public: bool | None, part_time: bool) -> tuple[str, str, str | None, bool]:
    """(company field, entry description, merchant name, via a payroll processor)."""
    processor = False
    r = rng.random()
    if public is None:
        public = rng.random() < 0.08 and not part_time
    if public:
        co = rng.choice(PUBLIC_EMPLOYERS)[:16].strip()
        entry = rng.choice(["PAYROLL", "SALARY", "DIR DEP", "NET PAY"])
        merchant = None
    elif r < 0.40:
        proc, cos, entries = rng.choice(PROCESSORS)
        co = rng.choice(cos)
        entry = rng.choice([e for e in entries if e not in co] or ["DIR DEP"])
        merchant = proc if rng.random() < 0.4 else None
        processor = True
    elif r < 0.45:
        co = rng.choice(["DIRECT DEPOSIT", "DIR DEP CREDIT", "ACH CREDIT", "PAYROLL DEPOSIT"])
        entry = rng.choice(["", "PAYROLL", "PPD"])
        merchant = None
        processor = True
    elif r < 0.60:
        co, brand = rng.choice(BIG_EMPLOYERS)
        entry = rng.choice(EMP_ENTRIES)
        merchant = brand if rng.random() < 0.45 else None
    else:
        nm = rng.choice(EMP_A) + " " + rng.choice(EMP_B) + rng.choice(EMP_SUFFIX)
        co = nm.upper().replace("-", " ")[:16].strip()
        entry = rng.choice(EMP_ENTRIES)
        merchant = nm if rng.random() < 0.45 else None
    return co, entry, merchant, processor


def _annual_pay(rng: random.Random, hourly: bool, part_time: bool) -> float:
    if part_time:
        return rng.uniform(7000, 22000)
    if hourly:
        return rng.uniform(21000, 56000)
    return min(rng.lognormvariate(11.05, 0.38), 260000)


def make_employer(
    rng: random.Random,
    acct: Account,
    cadence: str,
    *,
    hourly: bool = False,
    part_time: bool = False,
    annual: float | None = None,
    public: bool | None = None,
    first: date | None = None,
    last: date | None = None,
    key: str = "emp",
) -> Source:
    rule = _pick_employer_rule(rng, cadence)
    co, entry, merchant, processor = _employer_identity(rng, public, part_time)
    if annual is None:
        annual = _annual_pay(rng, hourly, part_time)
    net_ratio = rng.uniform(0.66, 0.82)
    per_check = annual * net_ratio / (PER_MONTH[rule.cadence] * 12)
    raise_on = None
    if not hourly and not part_time and rng.random() < 0.15:
        raise_on = (date(2025, 1, 1) + timedelta(days=rng.randrange(0, 730)), rng.uniform(1.02, 1.07))
    pay = _WagePay(per_check, hourly or part_time, raise_on, 0.16 if part_time else 0.12)
    src = Source(
        key,
        "wage",
        rule,
        acct,
        co,
        entry,
        merchant,
        PFC_WAGES,
        pay,
        per_check * PER_MONTH[rule.cadence],
        first,
        last,
        processor,
    )
    _assign_noise(rng, src)
    src.coid = rng.choice(["XXXXX" + _digits(rng, 5), _digits(rng, 10), "9" + _digits(rng, 9), "1" + _digits(rng, 9)])
    src.indid = rng.choice(
        ["XXXXX" + _digits(rng, 4), _digits(rng, 9), "0000" + _digits(rng, 5), "EMP" + _digits(rng, 6)]
    )
    src.annual = annual
    return src


def _benefit_source(
    rng: random.Random,
    acct: Account,
    kind: str,
    rule: Rule,
    co: str,
    entry: str,
    merchant: str | None,
    monthly: float,
    key: str = "ben",
    dollars: bool = True,
    cola: bool = True,
) -> Source:
    pay = _BenefitPay(monthly, dollars, cola)
    clean = rng.choice([PFC_PENSION, PFC_OTHER_INC]) if kind == "ss" else _clean_for(kind)
    src = Source(key, kind, rule, acct, co, entry, merchant, clean, pay, monthly)
    _assign_noise(rng, src, (80, 14, 6))
    src.coid = rng.choice(["9031036040", "XXXXXXXXXX", "9101036151"]) if kind in ("ss", "ssi") else _digits(rng, 10)
    src.indid = "XXXXXXXXXXXXXXX" if kind in ("ss", "ssi") else _digits(rng, 9)
    return src


def ss_rule(rng: random.Random, on_third: bool = False) -> Rule:
    if on_third:
        third = MonthlyDay(3)
        third.label = "Social Security on the 3rd"
        return third
    n = _w(rng, [(2, 33), (3, 34), (4, 33)])
    wednesday = NthWeekday(n, 2)
    wednesday.label = f"Social Security, {['', '', 'second', 'third', 'fourth'][n]} Wednesday"
    return wednesday


def _pension_payer(rng: random.Random, kind: str) -> tuple[Rule, str, str]:
    """The pay rule, company field and entry of a pension of this kind of payer."""
    if kind == "private":
        rule = _w(rng, [(MonthlyDay(1), 60), (MonthlyDay(15), 15), (MonthlyDay(25), 10), (LastBusinessDay(), 15)])
        co, entry = rng.choice(
            [
                ("FIDELITY INVEST", "PENSION"),
                ("PRUDENTIAL", "ANNUITY PMT"),
                ("METLIFE", "PENSION PMT"),
                ("BNY MELLON", "PENSION"),
                ("STATE STREET", "RETIREMENT"),
                ("PBGC", "PBGC PYMT"),
            ]
        )
        return rule, co, entry
    if kind == "opm":
        return FirstBusinessDay(), "OPM1 TREAS 310", "CSA"
    if kind == "dfas":
        return FirstBusinessDay(), "DFAS-CLEVELAND", "RET NET PAY"
    if kind == "va":
        return MonthlyDay(1), "VA TREAS 310", "XXVA BENEF"
    rule = _w(rng, [(LastBusinessDay(), 45), (MonthlyDay(1), 35), (MonthlyDay(25), 20)])
    co, entry = rng.choice(
        [
            ("CALPERS", "RETIREMENT"),
            ("NYS&LRS", "RETIREMENT"),
            ("TEACHER RETIRE", "ANNUITY"),
            ("OHIO PERS", "BENEFIT"),
            ("TRS OF TEXAS", "ANNUITY"),
        ]
    )
    return rule, co, entry


def build_events(
    src: Source, lo: date, hi: date, as_of: date, rng: random.Random, late_rate: float = 0.006
) -> list[Ev]:
    acct = src.account
    evs = []
    for nom in src.rule.nominals(max(src.first, lo - timedelta(days=12)), min(src.last, hi + timedelta(days=12))):
        settle = roll(nom, src.rule.roll)
        usual = add_bd(settle, -acct.lead)
        if usual < lo - timedelta(days=5) or usual > hi:
            continue
        ev = Ev(nom, settle, usual)
        actual = usual
        if acct.lead and rng.random() > acct.p_usual:
            lower = rng.randrange(0, acct.lead)
            actual = add_bd(settle, -lower)
            ev.slip = True
        if rng.random() < late_rate:
            actual = add_bd(settle, 1)
            ev.late, ev.slip = True, False
        if (usual <= as_of) != (actual <= as_of):  # never let a deviation straddle as_of
            actual, ev.late, ev.slip = usual, False, False
        ev.actual = actual
        ev.amount = src.amount_fn(rng, nom)
        evs.append(ev)
    src.events = evs
    return evs


# --------------------------------------------------------------------------
# The user builder
# --------------------------------------------------------------------------

ARCHETYPES = [
    ("salaried", 31), ("hourly", 14), ("two_jobs", 7), ("job_change", 7), ("gig_plus_job", 4),
    ("military", 3), ("social_security", 8), ("ssi", 2), ("pension", 5),
    ("job_lost", 3), ("gig_only", 7), ("freelancer", 3), ("no_income", 6),
]  # fmt: skip


@dataclass(eq=False)
class _Row:
    """A transaction while the world is being built (before ids, pending and sorting)."""

    acct: Account
    kind: str
    src: Source | None
    day: date
    auth: date | None
    amount: int
    name: str
    merchant: str | None
    pfc: Pfc | None
    legacy: list[str] | None


def _choose_as_of(rng: random.Random) -> date:
    u = rng.random()
    if u < 0.20:
        hol: list[date] = []
        for y in (2025, 2026):
            hol += list(holiday_dates(y).keys())
        h = rng.choice(hol)
        d = h + timedelta(days=rng.randint(-3, 3))
    elif u < 0.32:
        y, m = rng.choice([2025, 2026]), rng.randint(1, 12)
        d = rng.choice(
            [
                _last_day(y, m) - timedelta(days=rng.randint(0, 3)),
                date(y, m, rng.randint(1, 2)),
                date(y, m, rng.randint(13, 16)),
            ]
        )
    else:
        d = date(2025, 1, 1) + timedelta(days=rng.randrange(0, 730))
    return min(max(d, date(2025, 1, 1)), date(2026, 12, 31))


def _fmt_merchant(rng: random.Random, fmt: str, dow_d: date) -> str:
    return fmt.format(
        n3=_digits(rng, 3),
        n4=_digits(rng, 4),
        n5=_digits(rng, 5),
        n6=_digits(rng, 6),
        n7=_digits(rng, 7),
        n8=_digits(rng, 8),
        n10=_digits(rng, 10),
        ref="".join(rng.choice(UP) for _ in range(9)),
        ab=rng.choice(["AUS", "CLT", "DEN", "ATL"]),
        dow=["MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"][dow_d.weekday()],
    )


class _World:
    """One user's world while it is built: accounts, income sources, then every row."""

    def __init__(self, seed: int, index: int) -> None:
        self.rng = rng = random.Random(f"payday-world:{seed}:{index}")  # noqa: S311 - reproducible synthetic data is the point
        self.user_id = f"bw{seed}-{index:05d}"
        self.rows: list[_Row] = []
        self.tags: list[str] = []
        self.as_of = _choose_as_of(rng)
        self.lo = self.as_of - timedelta(days=HISTORY_DAYS - 1)
        self.hi_gen = self.as_of + timedelta(days=70)
        self.arch = _w(rng, ARCHETYPES)
        first, last = rng.choice(FIRST), rng.choice(LAST)
        self.indn = rng.choice([f"{first} {last}", f"{last},{first}", f"{last} {first}"])[:22]
        self.city = rng.choice(CITIES)
        # ---- accounts
        if self.arch == "military":
            bank = _w(
                rng, [(BANK_BY_NAME["Navy Federal"], 40), (BANK_BY_NAME["USAA"], 30), *[(b, b[4]) for b in BANKS]]
            )
        elif self.arch in ("ssi", "gig_only", "no_income"):
            bank = _w(rng, [(b, b[4] * (2.5 if b[3] == "fintech" else 1)) for b in BANKS])
        else:
            bank = _w(rng, [(b, b[4]) for b in BANKS])
        self.bank = bank
        self.chk = Account(rng, bank, "checking")
        self.sav = Account(rng, bank, "savings") if rng.random() < 0.55 else None
        self.ext: Account | None = None
        self.ext_bank = _w(rng, [(b, b[4]) for b in BANKS if b[0] != bank[0]])
        if rng.random() < 0.10:
            self._need_ext()
        # ---- income, filled in by build()
        self.sources: list[Source] = []
        self.primary: Source | None = None
        self.gig_platforms: list[tuple[str, list[str]]] = []
        self.job_change: tuple[Source, date | None] | None = None  # (old job, first date of the new one)
        self.split = "none"
        self.split_amt = 0
        self.split_pct = 0.0
        self.split_acct: Account | None = None

    def tag(self, t: str) -> None:
        if t not in self.tags:
            self.tags.append(t)

    def add(
        self,
        acct: Account,
        d: date,
        amount: int,
        name: str,
        merchant: str | None = None,
        pfc: Pfc | None = None,
        legacy: list[str] | None = None,
        auth: date | str | None = "same",
        kind: str = "other",
        src: Source | None = None,
    ) -> None:
        """Add a row; ``auth="same"`` dates the authorisation like the bank does for ACH."""
        auth_d = (d if acct.auth_on_ach else None) if isinstance(auth, str) else auth
        self.rows.append(_Row(acct, kind, src, d, auth_d, int(amount), name, merchant, pfc, legacy))

    def _need_ext(self) -> Account:
        if self.ext is None:
            self.ext = Account(self.rng, self.ext_bank, "checking")
        return self.ext

    # ---- the user, stage by stage (the order of the random draws is the world's identity)

    def build(self) -> PaydayUser:
        self._income_sources()
        self._pay_events()
        self._choose_split()
        self._emit_deposits()
        self._bonus()
        self._reimbursements()
        self._final_paycheck()
        self._gig_payouts()
        self._freelance()
        truth = _truth(self)
        horizon = self.as_of + timedelta(days=FUTURE_DAYS)
        next_payday = truth["next_payday"]
        if next_payday is not None and next_payday > horizon:
            horizon = next_payday + timedelta(days=1)
        monthly_income = self._monthly_income()
        primary_events = self.primary.events if self.primary else []
        paydays = sorted({e.actual for e in primary_events if not e.missed and not e.paper})
        self._other_inflows(horizon, paydays, monthly_income)
        self._spending(horizon, paydays, monthly_income)
        self._keep_solvent(horizon)
        truth["lost"] = self._feed_losses(truth["paid"])
        txns, rows = self._transactions(horizon)
        self._describe_primary(rows)
        self._describe_context(truth["paid"])
        truth["tags"] = list(self.tags)
        return {
            "user_id": self.user_id,
            "as_of": self.as_of,
            "archetype": self.arch,
            "transactions": txns,
            "truth": truth,
        }

    # ---- income sources

    def _income_sources(self) -> None:
        arch = self.arch
        if arch in ("salaried", "hourly", "gig_plus_job"):
            self._one_job()
        elif arch == "two_jobs":
            self._two_jobs()
        elif arch == "job_change":
            self._job_changed()
        elif arch == "military":
            self._military()
        elif arch in ("social_security", "ssi", "pension"):
            ss_amt = self.rng.randint(900, 3400)
            if arch == "ssi":
                self._ssi()
            else:
                self._retiree(ss_amt)
        elif arch == "job_lost":
            self._job_lost()
        elif arch == "gig_only":
            self.gig_platforms = self.rng.sample(GIG_PLATFORMS, self.rng.randint(1, 3))
            self.tag("gig only")
        elif arch == "freelancer":
            self.tag("irregular freelance income")
        else:
            self.tag("no income")

    def _one_job(self) -> None:
        rng = self.rng
        hourly = self.arch == "hourly" or (self.arch == "gig_plus_job" and rng.random() < 0.6)
        cad = _w(rng, _CAD_HOURLY if hourly else _CAD_SALARIED)
        self.primary = make_employer(rng, self.chk, cad, hourly=hourly, key="main")
        self.sources.append(self.primary)
        if self.arch == "gig_plus_job":
            self.gig_platforms = rng.sample(GIG_PLATFORMS, rng.randint(1, 2))

    def _two_jobs(self) -> None:
        rng = self.rng
        cad = _w(rng, _CAD_SALARIED)
        primary = make_employer(
            rng, self.chk, cad, hourly=rng.random() < 0.4, key="main", annual=rng.uniform(32000, 90000)
        )
        cad2 = _w(rng, [("WEEKLY", 45), ("BIWEEKLY", 45), ("SEMI_MONTHLY", 10)])
        acct2 = self._need_ext() if rng.random() < 0.25 else self.chk
        start2 = None
        if rng.random() < 0.3:
            start2 = self.as_of - timedelta(days=rng.randint(40, 150))
            self.tag("second job started mid-history")
        second = make_employer(
            rng,
            acct2,
            cad2,
            part_time=True,
            key="second",
            first=start2,
            annual=rng.uniform(6000, min(20000, primary.annual * 0.45)),
        )
        self.primary = primary
        self.sources.append(primary)
        self.sources.append(second)
        self.tag("part-time second job")
        if acct2 is not self.chk:
            self.tag("second job to other bank")

    def _job_changed(self) -> None:
        rng, as_of = self.rng, self.as_of
        old_cad = _w(rng, [*_CAD_SALARIED, ("WEEKLY", 10)])
        new_cad = _w(rng, [c for c in _CAD_SALARIED if c[0] != old_cad])
        old_last = as_of - timedelta(days=rng.randint(30, 150))
        gap = rng.choice([0, 0, 3, 7, 14, 21, 30])
        new_first = max(old_last + timedelta(days=7 + gap), as_of - timedelta(days=125))
        min_lead = {"MONTHLY": 40, "SEMI_MONTHLY": 20, "BIWEEKLY": 19, "WEEKLY": 12}[new_cad]
        new_first = min(new_first, as_of - timedelta(days=min_lead))
        old = make_employer(rng, self.chk, old_cad, hourly=rng.random() < 0.3, key="old", last=old_last)
        self.primary = make_employer(
            rng, self.chk, new_cad, key="main", first=new_first, annual=old.annual * rng.uniform(0.95, 1.3)
        )
        self.sources += [old, self.primary]
        self.job_change = (old, new_first)
        self.tag("job change")

    def _military(self) -> None:
        rng = self.rng
        rule = SemiMonthly(1, 15)
        rank_pay = rng.uniform(1200, 3600)
        branch = rng.choice(["ARMY ACT", "NAVY ACT", "AF PAY", "MARINE ACT", "ARMY RES"])
        primary = Source(
            "main",
            "wage",
            rule,
            self.chk,
            "DFAS-CLEVELAND",
            branch,
            None,
            PFC_WAGES,
            _MilitaryPay(rank_pay),
            rank_pay * 2,
        )
        _assign_noise(rng, primary)
        primary.coid = "1" + _digits(rng, 9)
        primary.indid = "XXXXX" + _digits(rng, 4)
        self.primary = primary
        self.sources.append(primary)
        self.tag("military 1st & 15th")

    def _ssi(self) -> None:
        rng, chk = self.rng, self.chk
        fbr = 967
        ss_small = rng.random() < 0.35
        ssi_amt = fbr - (rng.choice([0, 0, 0, 50, 120, 300]))
        if ss_small:
            small = rng.randint(180, 560)
            ssi_amt = max(60, fbr - (small - 20))
            if ssi_amt <= small:
                small = ssi_amt - 40
            ss = _benefit_source(
                rng, chk, "ss", ss_rule(rng, on_third=True), "SSA TREAS 310", "XXSOC SEC", None, small, key="ss"
            )
            self.sources.append(ss)
            self.tag("SSI + Social Security")
        primary = _benefit_source(
            rng, chk, "ssi", MonthlyDay(1), "SSI TREAS 310", "XXSUPP SEC", None, ssi_amt, key="main"
        )
        primary.rule.label = "SSI on the 1st"
        self.primary = primary
        self.sources.insert(0, primary)
        self.tag("SSI on the 1st")

    def _retiree(self, ss_amt: int) -> None:
        rng = self.rng
        on_third = rng.random() < 0.15
        ss = _benefit_source(
            rng, self.chk, "ss", ss_rule(rng, on_third), "SSA TREAS 310", "XXSOC SEC", None, ss_amt, key="ss"
        )
        has_pension = self.arch == "pension" or rng.random() < 0.3
        if has_pension:
            primary, sources = self._with_pension(ss, ss_amt)
        else:
            primary, sources = ss, [ss]
        if primary.kind == "ss":
            self.tag("SS on the 3rd" if on_third else "SS birth-date Wednesday")
        for s in sources:
            if s is not primary:
                s.key = "ss" if s.kind == "ss" else "pension"
        primary.key = "main"
        self.primary, self.sources = primary, sources

    def _with_pension(self, ss: Source, ss_amt: int) -> tuple[Source, list[Source]]:
        """The primary and the sources of a user with Social Security and a pension."""
        rng, chk = self.rng, self.chk
        kind = _w(rng, [("private", 40), ("opm", 15), ("dfas", 10), ("va", 12), ("state", 23)])
        rule, co, entry = _pension_payer(rng, kind)
        if self.arch == "pension":
            pension_amt = rng.randint(1400, 4800)
            ss.monthly_equiv = ss_amt = min(ss_amt, int(pension_amt * rng.uniform(0.3, 0.85)))
            ss.amount_fn = _benefit_source(rng, chk, "ss", ss.rule, "", "", None, ss_amt).amount_fn
        else:
            pension_amt = rng.randint(150, max(200, int(ss_amt * 0.8)))
        pen = _benefit_source(
            rng,
            chk,
            "pension",
            rule,
            co,
            entry,
            None,
            pension_amt,
            key="pension",
            dollars=False,
            cola=kind in ("opm", "va"),
        )
        if kind in ("opm", "dfas"):
            self.tag("forward-rolled pension")
        if self.arch == "pension":
            return pen, [pen, *([ss] if rng.random() < 0.75 else [])]
        return ss, [ss, pen]

    def _job_lost(self) -> None:
        rng = self.rng
        cad = _w(rng, _CAD_SALARIED + _CAD_HOURLY)
        last_nom = self.as_of - timedelta(days=rng.randint(18, 110))
        old = make_employer(rng, self.chk, cad, hourly=rng.random() < 0.5, key="old", last=last_nom)
        self.sources.append(old)
        self.job_change = (old, None)
        self.tag("job lost")

    # ---- pay events

    def _pay_events(self) -> None:
        rng, primary = self.rng, self.primary
        for s in self.sources:
            build_events(s, self.lo, self.hi_gen, self.as_of, rng)
            if not s.events and s is primary:
                raise RuntimeError("primary without events")
        if primary is not None:
            self._primary_deviations(primary)
            self._new_job_first_pay(primary.events)
        for s in self.sources:
            if s is primary:
                continue
            hist = [e for e in s.events if self.lo <= e.usual <= self.as_of]
            if s.kind == "wage" and hist and rng.random() < 0.12:
                rng.choice(hist).missed = True

    def _primary_deviations(self, primary: Source) -> None:
        """Missed paychecks (unpaid leave, zero-hour week, payroll error), late ACH, early-posting slips."""
        rng, as_of = self.rng, self.as_of
        evs = primary.events
        hist = [e for e in evs if self.lo <= e.usual <= as_of]
        nxt = [e for e in evs if e.usual > as_of]
        if primary.kind == "wage" and hist and rng.random() < 0.06:
            e = rng.choice(hist[1:] or hist)
            e.missed = True
        if primary.kind == "wage" and len(nxt) >= 2 and primary.rule.cadence != "MONTHLY" and rng.random() < 0.025:
            nxt[0].missed = True
            self.tag("missed next paycheck")
        # a late ACH right after as_of
        if nxt and rng.random() < 0.02 and not nxt[0].missed:
            nxt[0].actual = add_bd(nxt[0].settle, 1)
            nxt[0].late, nxt[0].slip = True, False
        # early-posting slip right after as_of (explicitly exercised)
        if nxt and self.chk.lead and rng.random() < 0.04 and not nxt[0].missed and not nxt[0].late:
            nxt[0].actual = nxt[0].settle
            nxt[0].slip = True

    def _new_job_first_pay(self, evs: list[Ev]) -> None:
        """A new job's first paycheck: sometimes a paper check, always prorated."""
        rng, as_of = self.rng, self.as_of
        new_job = self.job_change is not None and self.job_change[1] is not None
        if new_job and rng.random() < 0.25:
            jobs_first = [e for e in evs if self.lo <= e.usual <= as_of]
            if len(jobs_first) >= 2 and jobs_first[0].usual < as_of - timedelta(days=6):
                jobs_first[0].paper = True
                self.tag("first paycheck by paper check")
        if new_job and evs:
            evs[0].amount = int(evs[0].amount * rng.uniform(0.35, 1.0))

    # ---- deposits

    def _choose_split(self) -> None:
        if self.primary is None:
            return
        rng = self.rng
        r = rng.random()
        if r < 0.12:
            if self.sav is None:
                self.sav = Account(rng, self.bank, "savings")
            self.split = "same"
            self.split_acct = self.sav
        elif r < 0.18:
            self.split_acct = self._need_ext()
            self.split = "other"
        if self.split != "none":
            if rng.random() < 0.5:
                self.split_amt = rng.choice([2500, 5000, 10000, 15000, 20000, 25000, 40000, 50000])
            else:
                self.split_pct = rng.choice([0.05, 0.10, 0.15, 0.20, 0.25, 0.30, 0.5])
            self.tag("split deposit")

    def _payroll_pfc(self, src: Source) -> Labelled | None:
        if src.noise == "clean":
            return src.clean
        if src.noise == "heavy":
            return src.noise_pick
        return src.noise_pick if self.rng.random() < 0.3 else src.clean

    def _emit_pay(
        self, src: Source, d: date, amount: int, acct: Account, entry: str | None = None, kind: str = "pay"
    ) -> None:
        pfc = self._payroll_pfc(src)
        name = ach_credit_name(acct, src.co, entry or src.entry, self.indn, src.coid, src.indid, d)
        if acct.titlecase and src.kind == "wage":
            name = name.title()
        self.add(
            acct,
            d,
            -amount,
            " ".join(name.split()),
            src.merchant,
            pfc[0] if pfc else None,
            pfc[1] if pfc else None,
            kind=kind,
            src=src,
        )

    def _emit_deposits(self) -> None:
        for s in self.sources:
            for e in s.events:
                if e.missed:
                    continue
                if e.paper:
                    self._paper_check(s, e)
                    continue
                amt = e.amount
                if s is self.primary and self.split_acct is not None:
                    part = self.split_amt if self.split_amt else round(amt * self.split_pct)
                    part = min(part, amt // 2)
                    amt -= part
                    if self.split == "same":
                        self._emit_pay(s, e.actual, part, self.split_acct, kind="split")
                    else:
                        other_d = add_bd(e.settle, -self.split_acct.lead) if not e.late else e.actual
                        self._emit_pay(s, other_d, part, self.split_acct, kind="split")
                self._emit_pay(s, e.actual, amt, s.account, kind="pay" if s is self.primary else "pay2")

    def _paper_check(self, s: Source, e: Ev) -> None:
        rng = self.rng
        dd = add_bd(e.settle, rng.randint(1, 4))
        nm = _w(
            rng,
            [
                ("MOBILE DEPOSIT", 4),
                (f"REMOTE ONLINE DEPOSIT # {_digits(rng, 1)}", 3),
                ("DEPOSIT", 2),
                (f"ATM CHECK DEPOSIT {dd:%m/%d}", 1),
            ],
        )
        self.add(
            s.account,
            dd,
            -e.amount,
            nm,
            None,
            ("TRANSFER_IN", "TRANSFER_IN_DEPOSIT"),
            ["Transfer", "Deposit"],
            kind="paper",
            src=s,
        )

    # ---- bonuses, reimbursements, final paychecks (off-cycle)

    def _bonus(self) -> None:
        rng, primary = self.rng, self.primary
        if primary is None or primary.kind != "wage" or rng.random() >= 0.18:
            return
        kind = _w(rng, [("sameday", 40), ("offcycle", 40), ("inside", 20)])
        base = primary.monthly_equiv / PER_MONTH[primary.rule.cadence]
        bamt = int(base * rng.uniform(0.3, 2.5) * 100)
        live = [
            e
            for e in primary.events
            if not e.missed and not e.paper and self.lo <= e.actual <= self.as_of + timedelta(days=30)
        ]
        if kind == "sameday" and live:
            e = rng.choice(live)
            entry = rng.choice([primary.entry, "BONUS", "SUPPL PAY"])
            self._emit_pay(primary, e.actual, bamt, self.chk, entry=entry, kind="bonus")
        elif kind == "offcycle":
            d = add_bd(self.lo + timedelta(days=rng.randrange(0, HISTORY_DAYS + 30)), 0)
            d = roll(d, "next")
            entry = rng.choice([primary.entry, "BONUS", "SPECIAL PAY", "OFF CYCLE"])
            self._emit_pay(primary, d, bamt, self.chk, entry=entry, kind="bonus")
        elif live:
            e = rng.choice(live)
            for r in self.rows:
                if r.src is primary and r.day == e.actual and r.kind == "pay":
                    r.amount -= bamt
            e.bonus_in = bamt
        self.tag("bonus")

    def _reimbursements(self) -> None:
        rng = self.rng
        for s in [s for s in self.sources if s.kind == "wage"]:
            if rng.random() < 0.10:
                for _ in range(rng.randint(1, 3)):
                    d = roll(self.lo + timedelta(days=rng.randrange(0, HISTORY_DAYS + 34)), "next")
                    amt = _cents(rng, 18, 640)
                    if rng.random() < 0.4:
                        nm = rng.choice(
                            [
                                "EXPENSIFY INC DES:REIMBURSE",
                                "EXPENSIFY INC. VALIDATION",
                                "CONCUR REIMBURSEMENT",
                                "NAVAN EXPENSE REIMB",
                            ]
                        )
                        pfc = ("TRANSFER_IN", "TRANSFER_IN_DEPOSIT")
                        self.add(s.account, d, -amt, nm, None, pfc, ["Transfer", "Credit"], kind="reimb")
                    else:
                        entry = rng.choice(["EXP REIMB", "REIMBURSE", "EXPENSE"])
                        self._emit_pay(s, d, amt, s.account, entry=entry, kind="reimb")
                self.tag("reimbursement")

    def _final_paycheck(self) -> None:
        rng = self.rng
        if not self.job_change:
            return
        old = self.job_change[0]
        if rng.random() < 0.6:
            lastpaid = [e for e in old.events if not e.missed]
            if lastpaid:
                d = add_bd(lastpaid[-1].settle, rng.randint(2, 9))
                amt = int(old.monthly_equiv * rng.uniform(0.2, 0.9) * 100)
                entry = rng.choice([old.entry, "FINAL PAY", "PTO PAYOUT"])
                self._emit_pay(old, d, amt, self.chk, entry=entry, kind="final")
                self.tag("final paycheck")

    # ---- gig and freelance income

    def _gig_payouts(self) -> None:
        rng, platforms = self.rng, self.gig_platforms
        if not platforms:
            return
        intensity = rng.uniform(0.12, 0.5) * (0.5 if self.arch == "gig_plus_job" else 1.0)
        d = self.lo
        hot = False
        while d <= self.hi_gen:
            if rng.random() < 0.12:
                hot = not hot
            p = intensity * (1.8 if hot else 0.6)
            for plat, names in platforms:
                if rng.random() < p / len(platforms):
                    amt = _cents(rng, 12, 240 if self.arch == "gig_only" else 140)
                    pfc = _w(rng, _GIG_PFC)
                    self.add(
                        self.chk,
                        d,
                        -amt,
                        rng.choice(names),
                        plat,
                        pfc,
                        ["Transfer", "Deposit"] if pfc else None,
                        kind="gig",
                    )
            d += DAY
        if self.arch == "gig_plus_job":
            self.tag("gig side income")

    def _freelance(self) -> None:
        rng, chk = self.rng, self.chk
        if self.arch != "freelancer":
            return
        clients = [
            f"{rng.choice(EMP_A).upper()} {rng.choice(['LLC', 'INC', 'STUDIO', 'PARTNERS'])}"
            for _ in range(rng.randint(2, 4))
        ]
        d = self.lo + timedelta(days=rng.randint(0, 10))
        while d <= self.hi_gen:
            ch = _w(rng, [("ach", 4), ("stripe", 2), ("paypal", 2), ("check", 2)])
            amt = _cents(rng, 150, 3800)
            dd = roll(d, "next")
            if ch == "ach":
                self.add(
                    chk,
                    dd,
                    -amt,
                    ach_credit_name(
                        chk,
                        rng.choice(clients)[:16],
                        rng.choice(["ACH PMT", "VENDOR PAY", "INV PMT"]),
                        self.indn,
                        _digits(rng, 10),
                        _digits(rng, 6),
                        dd,
                    ),
                    None,
                    rng.choice([("TRANSFER_IN", "TRANSFER_IN_DEPOSIT"), ("INCOME", "INCOME_OTHER_INCOME"), None]),
                    ["Transfer", "Credit"],
                    kind="freelance",
                )
            elif ch == "stripe":
                self.add(
                    chk,
                    dd,
                    -amt,
                    "STRIPE DES:TRANSFER ID:ST-" + "".join(rng.choice(UP) for _ in range(12)),
                    "Stripe",
                    ("TRANSFER_IN", "TRANSFER_IN_ACCOUNT_TRANSFER"),
                    ["Transfer", "Credit"],
                    kind="freelance",
                )
            elif ch == "paypal":
                self.add(
                    chk,
                    dd,
                    -amt,
                    "PAYPAL TRANSFER",
                    "PayPal",
                    ("TRANSFER_IN", "TRANSFER_IN_ACCOUNT_TRANSFER"),
                    ["Transfer", "Third Party", "PayPal"],
                    kind="freelance",
                )
            else:
                self.add(
                    chk,
                    dd,
                    -amt,
                    "MOBILE DEPOSIT",
                    None,
                    ("TRANSFER_IN", "TRANSFER_IN_DEPOSIT"),
                    ["Transfer", "Deposit"],
                    kind="freelance",
                )
            d += timedelta(days=int(rng.expovariate(1 / 9)) + 1)

    def _monthly_income(self) -> float:
        """The monthly money the spending is sized to (not part of the truth)."""
        monthly_income = sum(s.monthly_equiv for s in self.sources if s.last >= self.as_of)
        if self.gig_platforms:
            monthly_income += 900
        if self.arch == "freelancer":
            monthly_income += 2600
        if monthly_income < 400:
            monthly_income = self.rng.uniform(700, 1800)
        return monthly_income

    # ---- other inflows

    def _other_inflows(self, hi: date, paydays: list[date], monthly_income: float) -> None:
        low_income = monthly_income < 3200
        self._p2p_inflows(hi)
        self._family_allowance(hi)
        if self.sav is not None:
            self._savings_transfers(self.sav, hi, paydays)
        self._checking_interest(hi)
        self._external_transfers(hi)
        self._refunds(hi)
        self._tax_refunds(hi, low_income)
        self._cash_advances(hi, paydays, low_income)
        self._cash_deposits(hi)

    def _p2p_inflows(self, hi: date) -> None:
        rng, arch = self.rng, self.arch
        p2p_rate = {"no_income": 0.18, "gig_only": 0.08}.get(arch, 0.04) * rng.uniform(0.2, 1.6)
        if rng.random() < 0.6 or arch == "no_income":
            friends = [f"{rng.choice(FIRST)} {rng.choice(LAST)}" for _ in range(rng.randint(1, 4))]
            d = self.lo
            while d <= hi:
                if rng.random() < p2p_rate:
                    self._p2p_in(d, rng.choice(friends))
                d += DAY
            self.tag("p2p inflows")

    def _p2p_in(self, d: date, who: str) -> None:
        rng, chk = self.rng, self.chk
        ch = _w(rng, [("zelle", 5), ("venmo", 4), ("cashapp", 3)])
        amt = _cents(rng, 10, 300 if self.arch != "no_income" else 700)
        if ch == "zelle":
            self.add(
                chk,
                roll(d, "next") if chk.style == "plain" else d,
                -amt,
                zelle_name(chk, "from", who, rng),
                None,
                ("TRANSFER_IN", "TRANSFER_IN_ACCOUNT_TRANSFER"),
                ["Transfer", "Third Party", "Zelle"],
                kind="p2p",
            )
        elif ch == "venmo":
            dd = roll(d, "next")
            nm = (
                ach_credit_name(chk, "VENMO", "CASHOUT", self.indn, "5264681992", _digits(rng, 10), dd)
                if rng.random() < 0.6
                else f"VENMO CASHOUT {_digits(rng, 10)}"
            )
            self.add(
                chk,
                dd,
                -amt,
                nm,
                "Venmo",
                ("TRANSFER_IN", "TRANSFER_IN_ACCOUNT_TRANSFER"),
                ["Transfer", "Third Party", "Venmo"],
                kind="p2p",
            )
        else:
            self.add(
                chk,
                d,
                -amt,
                rng.choice(["CASH APP*CASH OUT", f"CASH APP*{who}*CASH OUT VISA DIRECT CA"]),
                "Cash App",
                ("TRANSFER_IN", "TRANSFER_IN_ACCOUNT_TRANSFER"),
                ["Transfer", "Third Party", "Cash App"],
                kind="p2p",
            )

    def _family_allowance(self, hi: date) -> None:
        """A parent/partner allowance that is roughly (not exactly) monthly: regular-looking, not income."""
        rng, lo = self.rng, self.lo
        if self.arch in ("no_income", "gig_only") and rng.random() < 0.45:
            who = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
            amt0 = rng.randint(2, 12) * 5000
            d = lo + timedelta(days=rng.randint(0, 20))
            while d <= hi:
                dd = d + timedelta(days=rng.randint(-5, 5))
                if lo <= dd <= hi:
                    self.add(
                        self.chk,
                        dd,
                        -int(amt0 * rng.choice([1, 1, 1, 0.5, 1.5])),
                        zelle_name(self.chk, "from", who, rng),
                        None,
                        ("TRANSFER_IN", "TRANSFER_IN_ACCOUNT_TRANSFER"),
                        ["Transfer", "Third Party", "Zelle"],
                        kind="p2p",
                    )
                d += timedelta(days=rng.randint(26, 36))
            self.tag("family allowance")

    def _savings_transfers(self, sav: Account, hi: date, paydays: list[date]) -> None:
        """Savings <-> checking transfers, payday sweeps, and monthly savings interest."""
        rng, chk, lo = self.rng, self.chk, self.lo
        pfc_in = ("TRANSFER_IN", "TRANSFER_IN_ACCOUNT_TRANSFER")
        pfc_out = ("TRANSFER_OUT", "TRANSFER_OUT_ACCOUNT_TRANSFER")
        legacy = ["Transfer", "Account Transfer"]
        d = lo
        while d <= hi:
            if rng.random() < 0.03:
                amt = rng.choice([5000, 10000, 20000, 25000, 30000, 50000, 75000, 100000])
                name = transfer_name(chk, "from", "savings", sav.mask, rng)
                self.add(chk, d, -amt, name, None, pfc_in, legacy, kind="xfer")
                self.add(
                    sav, d, amt, transfer_name(sav, "to", "checking", chk.mask, rng), None, pfc_out, legacy, kind="xfer"
                )
            d += DAY
        if paydays and rng.random() < 0.35:
            amt = rng.choice([2500, 5000, 10000, 20000])
            for p in paydays:
                if lo <= p <= hi and rng.random() < 0.8:
                    self.add(
                        chk,
                        p,
                        amt,
                        transfer_name(chk, "to", "savings", sav.mask, rng),
                        None,
                        pfc_out,
                        legacy,
                        kind="xfer",
                    )
                    name = transfer_name(sav, "from", "checking", chk.mask, rng)
                    self.add(sav, p, -amt, name, None, pfc_in, legacy, kind="xfer")
        # monthly savings interest on the last day of the month
        for y, m in _months(lo, hi):
            d = _last_day(y, m)
            if lo <= d <= hi:
                self.add(
                    sav,
                    d,
                    -rng.randint(1, 4500),
                    "INTEREST PAYMENT",
                    None,
                    ("INCOME", "INCOME_INTEREST_EARNED"),
                    ["Interest", "Interest Earned"],
                    kind="interest",
                )

    def _checking_interest(self, hi: date) -> None:
        rng, lo = self.rng, self.lo
        if rng.random() < 0.25:
            day = rng.choice([28, 31, 1])
            for y, m in _months(lo, hi):
                d = date(y, m, min(day, _last_day(y, m).day))
                if lo <= d <= hi:
                    self.add(
                        self.chk,
                        d,
                        -rng.randint(1, 300),
                        rng.choice(["INTEREST PAYMENT", "INTEREST EARNED", "Interest Paid"]),
                        None,
                        ("INCOME", "INCOME_INTEREST_EARNED"),
                        ["Interest", "Interest Earned"],
                        kind="interest",
                    )
            self.tag("interest")

    def _external_transfers(self, hi: date) -> None:
        """Transfers in from the account at the second bank."""
        rng, chk, ext = self.rng, self.chk, self.ext
        if ext is not None and rng.random() < 0.5:
            d = self.lo
            while d <= hi:
                if rng.random() < 0.025:
                    dd = roll(d, "next")
                    amt = rng.randint(4, 60) * 1000
                    self.add(
                        chk,
                        dd,
                        -amt,
                        ach_credit_name(
                            chk,
                            ext.bank_name.upper()[:16],
                            "TRANSFER",
                            self.indn,
                            _digits(rng, 10),
                            _digits(rng, 8),
                            dd,
                        ),
                        None,
                        ("TRANSFER_IN", "TRANSFER_IN_ACCOUNT_TRANSFER"),
                        ["Transfer", "Debit"],
                        kind="xfer",
                    )
                    self.add(
                        ext,
                        dd - DAY if is_bd(dd - DAY) else dd,
                        amt,
                        f"ONLINE TRANSFER TO {chk.bank_name.upper()} {chk.mask}",
                        None,
                        ("TRANSFER_OUT", "TRANSFER_OUT_ACCOUNT_TRANSFER"),
                        ["Transfer", "Debit"],
                        kind="xfer",
                    )
                d += DAY

    def _refunds(self, hi: date) -> None:
        rng, lo = self.rng, self.lo
        if rng.random() < 0.4:
            for _ in range(rng.randint(1, 3)):
                d = lo + timedelta(days=rng.randrange(0, (hi - lo).days + 1))
                nm, mer, pfc = rng.choice(
                    [
                        (
                            "AMAZON.COM REFUND",
                            "Amazon",
                            ("GENERAL_MERCHANDISE", "GENERAL_MERCHANDISE_ONLINE_MARKETPLACES"),
                        ),
                        (
                            "AMZN MKTP US REFUND",
                            "Amazon",
                            ("GENERAL_MERCHANDISE", "GENERAL_MERCHANDISE_ONLINE_MARKETPLACES"),
                        ),
                        (
                            f"TARGET RETURN #{_digits(rng, 4)}",
                            "Target",
                            ("GENERAL_MERCHANDISE", "GENERAL_MERCHANDISE_SUPERSTORES"),
                        ),
                        ("WALMART.COM REFUND", "Walmart", ("GENERAL_MERCHANDISE", "GENERAL_MERCHANDISE_SUPERSTORES")),
                        ("DELTA AIR REFUND", "Delta", ("TRAVEL", "TRAVEL_FLIGHTS")),
                        ("UBER *EATS REFUND", "Uber Eats", ("FOOD_AND_DRINK", "FOOD_AND_DRINK_RESTAURANT")),
                    ]
                )
                self.add(
                    self.chk,
                    d,
                    -_cents(rng, 6, 260),
                    nm,
                    mer,
                    pfc,
                    ["Shops"],
                    auth=d - timedelta(days=rng.randint(0, 3)),
                    kind="refund",
                )
            self.tag("refunds")

    def _tax_refunds(self, hi: date, low_income: bool) -> None:
        """Federal refunds Feb-Apr (EITC/ACTC refunds release late Feb); some state refunds."""
        rng, chk, lo = self.rng, self.chk, self.lo
        for y in sorted({lo.year, hi.year}):
            if rng.random() < 0.55:
                d = date(y, 2, 10) + timedelta(days=rng.randint(0, 75))
                if self.arch in ("gig_only", "hourly", "no_income") and rng.random() < 0.4:
                    d = date(y, 2, 27) + timedelta(days=rng.randint(0, 6))
                d = roll(d, "next")
                if lo <= d <= hi:
                    amt = _cents(rng, 180, 7200 if low_income else 4200)
                    name = ach_credit_name(chk, "IRS TREAS 310", "TAX REF", self.indn, "9111036170", "XXXXXXXXXX", d)
                    pfc = ("INCOME", "INCOME_TAX_REFUND")
                    self.add(chk, d, -amt, name, None, pfc, ["Tax", "Refund"], kind="tax")
                    self.tag("tax refund")
                    if rng.random() < 0.45:
                        d2 = roll(d + timedelta(days=rng.randint(3, 40)), "next")
                        st = rng.choice(["NYS DTF PIT", "CA FTB", "GA DEPT OF REV", "NC DEPT REVENUE", "OHIO TAX"])
                        self.add(
                            chk, d2, -_cents(rng, 40, 1400), f"{st} TAX REF", None, pfc, ["Tax", "Refund"], kind="tax"
                        )

    def _cash_advances(self, hi: date, paydays: list[date], low_income: bool) -> None:
        """Cash-advance apps: an advance a few days before payday, repaid on payday."""
        rng = self.rng
        adv_p = 0.30 if (low_income or self.arch in ("gig_only", "no_income", "hourly")) else 0.05
        if rng.random() < adv_p:
            app = rng.choice(CASH_ADVANCE)
            fut = [p for p in paydays if self.lo + timedelta(days=5) <= p <= hi]
            if fut:
                self._advances_before_paydays(app, fut)
            else:
                self._advances_irregular(app, hi)
            self.tag("cash advance app")

    def _advances_before_paydays(self, app: tuple[str, str, str], fut: list[date]) -> None:
        rng, chk = self.rng, self.chk
        name, nm_in, nm_out = app
        for p in fut:
            if rng.random() < 0.55:
                a = (
                    roll(p - timedelta(days=rng.randint(1, 5)), "prev")
                    if rng.random() < 0.5
                    else p - timedelta(days=rng.randint(1, 5))
                )
                amt = rng.randint(2, 15) * 2500
                self.add(
                    chk,
                    a,
                    -amt,
                    nm_in,
                    name,
                    ("TRANSFER_IN", "TRANSFER_IN_CASH_ADVANCES_AND_LOANS"),
                    ["Transfer", "Deposit"],
                    kind="advance",
                )
                self.add(
                    chk,
                    p + timedelta(days=rng.choice([0, 0, 1])),
                    amt + rng.choice([0, 0, 299, 499, 500]),
                    nm_out,
                    name,
                    ("LOAN_PAYMENTS", "LOAN_PAYMENTS_OTHER_PAYMENT"),
                    ["Transfer", "Debit"],
                    kind="advance",
                )

    def _advances_irregular(self, app: tuple[str, str, str], hi: date) -> None:
        rng, chk = self.rng, self.chk
        name, nm_in, nm_out = app
        d = self.lo + timedelta(days=rng.randint(0, 14))
        while d <= hi:
            amt = rng.randint(2, 10) * 2500
            self.add(
                chk,
                d,
                -amt,
                nm_in,
                name,
                ("TRANSFER_IN", "TRANSFER_IN_CASH_ADVANCES_AND_LOANS"),
                ["Transfer", "Deposit"],
                kind="advance",
            )
            self.add(
                chk,
                roll(d + timedelta(days=rng.randint(7, 16)), "next"),
                amt,
                nm_out,
                name,
                ("LOAN_PAYMENTS", "LOAN_PAYMENTS_OTHER_PAYMENT"),
                ["Transfer", "Debit"],
                kind="advance",
            )
            d += timedelta(days=rng.randint(12, 40))

    def _cash_deposits(self, hi: date) -> None:
        """Cash deposits and odd checks."""
        rng, lo = self.rng, self.lo
        if rng.random() < 0.15:
            for _ in range(rng.randint(1, 4)):
                d = roll(lo + timedelta(days=rng.randrange(0, (hi - lo).days + 1)), "next")
                nm = rng.choice(
                    ["ATM CASH DEPOSIT", "DEPOSIT", "MOBILE DEPOSIT", "BKOFAMERICA ATM DEPOSIT", "COUNTER DEPOSIT"]
                )
                self.add(
                    self.chk,
                    d,
                    -rng.randint(2, 60) * 1000,
                    nm,
                    None,
                    ("TRANSFER_IN", "TRANSFER_IN_DEPOSIT"),
                    ["Transfer", "Deposit"],
                    kind="cash",
                )
            self.tag("cash/check deposits")

    # ---- spending

    def _spending(self, hi: date, paydays: list[date], monthly_income: float) -> None:
        rng, lo = self.rng, self.lo
        scale = max(0.35, min(2.2, monthly_income / 3800)) * rng.uniform(0.7, 1.3)
        retiree = self.arch in ("social_security", "pension", "ssi")
        favs: dict[str, list[tuple[tuple[str, str | None], str]]] = {}
        rates: dict[str, float] = {}
        for key, rate, _amounts, merchants, _pfc, _legacy in SPEND:
            k = rng.randint(1, min(3, len(merchants)))
            favs[key] = [(m, _fmt_merchant(rng, m[0], lo)) for m in rng.sample(merchants, k)]
            r = rate * rng.uniform(0.3, 1.7)
            if retiree and key in ("coffee", "rideshare", "delivery", "fun", "fastfood"):
                r *= 0.4
            if retiree and key == "pharmacy":
                r *= 3
            rates[key] = r
        city_s = f"{self.city[0]} {self.city[1]}"
        payset = set(paydays)
        d = lo
        while d <= hi:
            boost = 1.35 if (d in payset or d - DAY in payset) else 1.0
            for key, _rate, (a, b), _merchants, pfc, legacy in SPEND:
                n = 0
                x = rates[key] * boost
                while rng.random() < x and n < 3:
                    n += 1
                    x *= 0.35
                for _ in range(n):
                    self._card_purchase(d, key, (a, b), pfc, legacy, favs[key], scale, city_s)
            self._p2p_out(d)
            self._atm(d, payset)
            d += DAY
        self._rent(hi, monthly_income)
        self._monthly_bills(hi)
        self._subscriptions(hi)
        self._bnpl(hi)
        self._overdraft_fees(hi, monthly_income)
        self._external_activity(hi)

    def _card_purchase(
        self,
        d: date,
        key: str,
        amounts: tuple[int, int],
        pfc: Pfc,
        legacy: list[str],
        favs: list[tuple[tuple[str, str | None], str]],
        scale: float,
        city_s: str,
    ) -> None:
        rng = self.rng
        (fmt, mer), name = rng.choice(favs)
        if rng.random() < 0.5 and "{n" in fmt:
            name = _fmt_merchant(rng, fmt, d)
        if key not in ("online", "rideshare", "delivery", "fun") and rng.random() < 0.6:
            name = f"{name} {city_s}"
        amt = int(_cents(rng, *amounts) * (scale**0.5))
        post = d + timedelta(days=rng.choice([0, 0, 1, 1, 1, 2]))
        p = pfc if rng.random() > 0.04 else None
        lg = legacy if rng.random() > 0.06 else None
        acct = self.chk if (self.ext is None or rng.random() < 0.85) else self.ext
        if acct.style in ("chase", "bofa", "wells") and rng.random() < 0.3:
            if acct.style == "wells":
                name = f"PURCHASE AUTHORIZED ON {d:%m/%d} {name} CARD {acct.mask}"
            elif acct.style == "bofa":
                name = f"CHECKCARD {d:%m%d} {name}"
        self.add(acct, post, amt, name, mer if rng.random() > 0.1 else None, p, lg, auth=d, kind="card")

    def _p2p_out(self, d: date) -> None:
        rng, chk = self.rng, self.chk
        if rng.random() < 0.06:
            who = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
            ch = rng.random()
            amt = _cents(rng, 8, 250)
            pfc = ("TRANSFER_OUT", "TRANSFER_OUT_ACCOUNT_TRANSFER")
            if ch < 0.4:
                name = zelle_name(chk, "to", who, rng)
                self.add(chk, d, amt, name, None, pfc, ["Transfer", "Third Party", "Zelle"], kind="p2pout")
            elif ch < 0.75:
                name = f"VENMO PAYMENT {_digits(rng, 10)}"
                self.add(chk, d, amt, name, "Venmo", pfc, ["Transfer", "Third Party", "Venmo"], kind="p2pout")
            else:
                name = f"CASH APP*{who}"
                self.add(chk, d, amt, name, "Cash App", pfc, ["Transfer", "Third Party", "Cash App"], kind="p2pout")

    def _atm(self, d: date, payset: set[date]) -> None:
        rng, chk = self.rng, self.chk
        if rng.random() < 0.025 * (1.5 if d in payset else 1):
            amt = rng.choice([2000, 4000, 6000, 10000, 20000, 30000])
            self.add(
                chk,
                d,
                amt,
                f"ATM WITHDRAWAL {_digits(rng, 6)} {self.city[0]} {self.city[1]}",
                None,
                ("TRANSFER_OUT", "TRANSFER_OUT_WITHDRAWAL"),
                ["Transfer", "Withdrawal", "ATM"],
                kind="atm",
            )
            if rng.random() < 0.3:
                self.add(
                    chk,
                    d,
                    rng.choice([250, 300, 350]),
                    "NON-NETWORK ATM FEE",
                    None,
                    ("BANK_FEES", "BANK_FEES_ATM_FEES"),
                    ["Bank Fees", "ATM"],
                    kind="fee",
                )

    def _rent(self, hi: date, monthly_income: float) -> None:
        """Rent or mortgage by ACH, portal, Zelle or a paper check."""
        rng, lo, arch = self.rng, self.lo, self.arch
        rent = int(monthly_income * rng.uniform(0.22, 0.42) * 100) if arch != "no_income" or rng.random() < 0.5 else 0
        rent_day = rng.choice([1, 1, 1, 2, 3, 5])
        rent_kind = _w(rng, [("ach", 4), ("zelle", 2), ("check", 2), ("portal", 2)])
        landlord = f"{rng.choice(EMP_A).upper()} PROPERTIES"
        mortgage = rng.random() < 0.3 and arch not in ("gig_only", "no_income")
        chk_no = rng.randint(1001, 1400)
        for y, m in _months(lo, hi):
            if not rent:
                break
            dd = date(y, m, rent_day)
            if rent_kind in ("ach", "portal"):
                dd = roll(dd, "next")
            if not (lo <= dd <= hi):
                continue
            if mortgage:
                self._mortgage_payment(dd, rent)
            elif rent_kind == "check":
                self._rent_check(dd, rent, chk_no)
                chk_no += 1
            else:
                self._rent_payment(dd, rent, rent_kind, landlord)

    def _mortgage_payment(self, dd: date, amount: int) -> None:
        rng = self.rng
        self.add(
            self.chk,
            roll(dd, "next"),
            amount,
            rng.choice(
                [
                    "ROCKET MORTGAGE DES:MTG PYMT",
                    "MR. COOPER DES:MORTGAGE",
                    "WELLS FARGO HOME MTG AUTO PAY",
                    "PENNYMAC DES:PAYMENT",
                ]
            ),
            None,
            ("LOAN_PAYMENTS", "LOAN_PAYMENTS_MORTGAGE_PAYMENT"),
            ["Payment", "Mortgage"],
            kind="bill",
        )

    def _rent_payment(self, dd: date, amount: int, rent_kind: str, landlord: str) -> None:
        rng, chk = self.rng, self.chk
        rent_pfc = ("RENT_AND_UTILITIES", "RENT_AND_UTILITIES_RENT")
        if rent_kind == "ach":
            self.add(chk, dd, amount, f"{landlord[:16]} DES:RENT", None, rent_pfc, ["Payment", "Rent"], kind="bill")
        elif rent_kind == "portal":
            name = rng.choice(["APPFOLIO DES:WEB PMTS", "RENTCAFE DES:RENT PMT", "ZILLOW RENT"])
            self.add(chk, dd, amount, name, None, rent_pfc, ["Payment", "Rent"], kind="bill")
        else:  # zelle
            self.add(
                chk,
                dd - timedelta(days=rng.randint(0, 3)),
                amount,
                zelle_name(chk, "to", landlord, rng),
                None,
                ("TRANSFER_OUT", "TRANSFER_OUT_ACCOUNT_TRANSFER"),
                ["Transfer", "Third Party", "Zelle"],
                kind="bill",
            )

    def _rent_check(self, dd: date, amount: int, chk_no: int) -> None:
        rng = self.rng
        self.add(
            self.chk,
            roll(dd + timedelta(days=rng.randint(1, 6)), "next"),
            amount,
            f"CHECK {chk_no}",
            None,
            None if rng.random() < 0.5 else ("GENERAL_SERVICES", "GENERAL_SERVICES_OTHER_GENERAL_SERVICES"),
            None,
            kind="bill",
        )

    def _monthly_bills(self, hi: date) -> None:
        rng, lo = self.rng, self.lo
        for key, names, mer, pfc, legacy, (a, b), chan in BILLS:
            p_have = _BILL_SHARE.get(key, 0.8)
            if rng.random() > p_have:
                continue
            name = rng.choice(names).format(city=self.city[0])
            day = rng.randint(1, 28)
            base = _cents(rng, a, b)
            for y, m in _months(lo, hi):
                dd = date(y, m, day)
                if chan == "ach":
                    dd = roll(dd, "next")
                if not (lo <= dd <= hi):
                    continue
                fixed = key in ("carloan", "studentloan", "gym", "insurance")
                amt = base if fixed else int(base * rng.uniform(0.75, 1.25))
                self.add(self.chk, dd, amt, name, mer, pfc, legacy, auth=None if chan == "ach" else dd, kind="bill")

    def _subscriptions(self, hi: date) -> None:
        rng, lo = self.rng, self.lo
        for nm, mer, (a, b) in rng.sample(SUBSCRIPTIONS, rng.randint(0, 4)):
            day = rng.randint(1, 28)
            amt = _cents(rng, a, b)
            name = _fmt_merchant(rng, nm, lo)
            pfc = (
                ("ENTERTAINMENT", "ENTERTAINMENT_TV_AND_MOVIES")
                if mer not in ("Apple",)
                else ("GENERAL_MERCHANDISE", "GENERAL_MERCHANDISE_ELECTRONICS")
            )
            for y, m in _months(lo, hi):
                dd = date(y, m, day)
                if lo <= dd <= hi:
                    self.add(self.chk, dd, amt, name, mer, pfc, ["Service", "Subscription"], auth=dd, kind="card")

    def _bnpl(self, hi: date) -> None:
        """BNPL instalments every 14 days."""
        rng = self.rng
        if rng.random() < 0.15:
            nm = rng.choice(["AFFIRM * PAY", "KLARNA* {ref}", "AFTERPAY", "PAYPAL PAY IN 4"])
            start = self.lo + timedelta(days=rng.randint(0, 120))
            amt = _cents(rng, 15, 120)
            for k in range(4):
                dd = start + timedelta(days=14 * k)
                if dd <= hi:
                    self.add(
                        self.chk,
                        dd,
                        amt,
                        _fmt_merchant(rng, nm, dd),
                        None,
                        ("LOAN_PAYMENTS", "LOAN_PAYMENTS_OTHER_PAYMENT"),
                        ["Payment"],
                        auth=dd,
                        kind="card",
                    )

    def _overdraft_fees(self, hi: date, monthly_income: float) -> None:
        """Occasional overdraft fees for thin budgets."""
        rng, lo = self.rng, self.lo
        if monthly_income < 2500 and rng.random() < 0.25:
            for _ in range(rng.randint(1, 3)):
                dd = roll(lo + timedelta(days=rng.randrange(0, (hi - lo).days)), "next")
                self.add(
                    self.chk,
                    dd,
                    rng.choice([3400, 3500, 3600, 1500]),
                    rng.choice(["OVERDRAFT ITEM FEE", "OVERDRAFT FEE FOR A TRANSACTION"]),
                    None,
                    ("BANK_FEES", "BANK_FEES_OVERDRAFT_FEES"),
                    ["Bank Fees", "Overdraft"],
                    kind="fee",
                )

    def _external_activity(self, hi: date) -> None:
        """Light card activity on the second bank's account."""
        rng, ext = self.rng, self.ext
        if ext is None:
            return
        d = self.lo
        while d <= hi:
            if rng.random() < 0.08:
                self.add(
                    ext,
                    d + DAY,
                    _cents(rng, 5, 90),
                    f"{rng.choice(['SHELL OIL', 'KROGER', 'AMAZON.COM', 'STARBUCKS'])} {_digits(rng, 5)}",
                    None,
                    ("GENERAL_MERCHANDISE", "GENERAL_MERCHANDISE_OTHER_GENERAL_MERCHANDISE"),
                    ["Shops"],
                    auth=d,
                    kind="card",
                )
            d += DAY

    # ---- the finished feed

    def _keep_solvent(self, horizon: date) -> None:
        """Scale discretionary checking outflows to the inflows, so the account stays roughly solvent."""
        chk, lo = self.chk, self.lo
        inflow = sum(-r.amount for r in self.rows if r.acct is chk and r.amount < 0 and lo <= r.day <= horizon)
        scalable = [
            r
            for r in self.rows
            if r.acct is chk and r.amount > 0 and lo <= r.day <= horizon and r.kind in ("card", "bill", "p2pout", "atm")
        ]
        sc_ids = {id(r) for r in scalable}
        fixed = sum(
            r.amount
            for r in self.rows
            if r.acct is chk and r.amount > 0 and lo <= r.day <= horizon and id(r) not in sc_ids
        )
        total = sum(r.amount for r in scalable)
        if total > 0 and inflow > 0:
            factor = min(1.6, max(0.2, (inflow * self.rng.uniform(0.86, 1.03) - fixed) / total))
            for r in scalable:
                r.amount = max(100 if r.kind == "atm" else 50, round(r.amount * factor))
                if r.kind == "atm":
                    r.amount = max(2000, r.amount // 2000 * 2000)

    def _feed_losses(self, paid: list[date]) -> list[date]:
        """Primary paychecks the feed dropped: single rows, or every checking row over a few days."""
        rng, chk = self.rng, self.chk
        lost: list[date] = []
        if self.primary is not None and paid and rng.random() < 0.06:
            if rng.random() < 0.5:
                cand = list(paid)
                lost = sorted(rng.sample(cand, min(len(cand), rng.choice([1, 1, 2]))))
                drop = set(lost)
                self.rows = [
                    r for r in self.rows if not (r.acct is chk and r.kind in ("pay", "bonus") and r.day in drop)
                ]
            else:
                c = rng.choice(paid)
                g0 = c - timedelta(days=rng.randint(0, 3))
                g1 = c + timedelta(days=rng.randint(0, 3))
                g1 = min(g1, self.as_of)
                lost = [d for d in paid if g0 <= d <= g1]
                self.rows = [r for r in self.rows if not (r.acct is chk and g0 <= r.day <= g1)]
                self.tag("feed gap")
            self.tag("feed dropped paycheck")
        return lost

    def _transactions(self, horizon: date) -> tuple[list[Transaction], list[_Row]]:
        """The API-shaped transactions (ids, pending) and the rows they came from, by date."""
        rng = self.rng
        rows = [r for r in self.rows if self.lo <= r.day <= horizon]
        rows.sort(key=lambda r: (r.day, r.amount > 0, r.name))
        txns: list[Transaction] = []
        seen: set[str] = set()  # txn ids
        pending_payroll = False
        for r in rows:
            tid = "".join(rng.choice(ALNUM) for _ in range(37))
            while tid in seen:
                tid = "".join(rng.choice(ALNUM) for _ in range(37))
            seen.add(tid)
            pending, d = self._pending(r)
            pending_payroll = pending_payroll or (pending and r.kind == "pay")
            pfc = r.pfc
            txns.append(
                {
                    "txn_id": tid,
                    "account_id": r.acct.account_id,
                    "amount": r.amount,
                    "iso_currency_code": "USD",
                    "date": d.isoformat(),
                    "authorized_date": r.auth.isoformat() if r.auth else None,
                    "name": r.name,
                    "merchant_name": r.merchant,
                    "personal_finance_category": {"primary": pfc[0], "detailed": pfc[1]} if pfc else None,
                    "category": list(r.legacy) if r.legacy else None,
                    "pending": pending,
                }
            )
        txns.sort(key=lambda t: t["date"])
        if pending_payroll:
            self.tag("pending payroll")
        return txns, rows

    def _pending(self, r: _Row) -> tuple[bool, date]:
        """Whether a row is still pending, and the date it shows (a pending card row shows its authorisation)."""
        d = r.day
        if self.as_of - timedelta(days=2) <= d <= self.as_of:
            if r.kind == "card":
                pending = self.rng.random() < (0.75 if d == self.as_of else 0.35)
                if pending and r.auth is not None:
                    d = r.auth
                return pending, d
            if d == self.as_of and r.amount < 0 and self.rng.random() < 0.08:
                return True, d
        return False, d

    def _describe_primary(self, rows: list[_Row]) -> None:
        primary, as_of = self.primary, self.as_of
        if primary is None:
            return
        prows = [r for r in rows if r.src is primary and r.kind == "pay" and r.day <= as_of]
        clean = primary.clean[0] if primary.clean else None
        if any(r.pfc != clean for r in prows):
            self.tag("noisy category")
        if any(r.pfc is None for r in prows):
            self.tag("missing category")
        if primary.processor:
            self.tag("processor description")
        if (
            primary.kind == "wage"
            and primary.rule.cadence in ("WEEKLY", "BIWEEKLY")
            and _varies(primary.amount_fn, as_of)
        ):
            self.tag("variable amount")

    def _describe_context(self, paid: list[date]) -> None:
        primary, as_of = self.primary, self.as_of
        if (
            primary is not None
            and any(s is not primary and s.last >= as_of and s.events for s in self.sources)
            and self.arch != "two_jobs"
        ):
            self.tag("second income source")
        if as_of.weekday() >= 5:
            self.tag("as_of weekend")
        if any(abs((as_of - h).days) <= 3 for y in (as_of.year - 1, as_of.year, as_of.year + 1) for h in fed_closed(y)):
            self.tag("as_of near holiday")
        if paid and paid[-1] == as_of:
            self.tag("payday on as_of")
        if self.chk.lead:
            self.tag("early-posting bank")
        if self.ext is not None:
            self.tag("second bank account")


def _varies(amount_fn: AmountFn, nominal: date) -> bool:
    """Whether an amount depends on the draw: two fixed seeds tell."""
    first, second = random.Random(1), random.Random(2)  # noqa: S311 - fixed seeds, not secrets
    return amount_fn(first, nominal) != amount_fn(second, nominal)


def _truth(w: _World) -> Truth:
    lo, as_of, chk = w.lo, w.as_of, w.chk
    jobs = 0
    for s in w.sources:
        if any(lo <= (e.actual if not e.paper else e.settle) <= as_of and not e.missed for e in s.events):
            jobs += 1
    base: Truth = {
        "next_payday": None,
        "scheduled": None,
        "cadence": None,
        "nominal": None,
        "bank_early": chk.lead,
        "jobs": jobs,
        "split": w.split,
        "paid": [],
        "lost": [],
        "rule": None,
        "source": None,
        "account_id": chk.account_id,
        "tags": [],
    }
    primary = w.primary
    if primary is None:
        return base
    evs = primary.events
    nxt = [e for e in evs if e.usual > as_of]
    e0 = nxt[0]
    landed = [e for e in nxt if not e.missed and not e.paper]
    nextpay = landed[0].actual
    base["next_payday"] = nextpay
    base["scheduled"] = e0.usual
    base["cadence"] = primary.rule.cadence
    base["nominal"] = e0.nominal
    base["paid"] = sorted(e.actual for e in evs if lo <= e.actual <= as_of and not e.missed and not e.paper)
    base["rule"] = primary.rule.label
    base["source"] = primary.kind
    # phenomenon tags over the events that matter (history + next)
    relevant = [e for e in evs if lo <= e.usual <= max(nextpay, e0.usual)]
    for e in relevant:
        _tag_event(w, e)
    months: dict[tuple[int, int], int] = {}
    for e in relevant:
        if not e.missed:
            months[(e.actual.year, e.actual.month)] = months.get((e.actual.year, e.actual.month), 0) + 1
    if primary.rule.cadence == "MONTHLY" and any(v >= 2 for v in months.values()):
        w.tag("two payments in one month")
    if nextpay != e0.usual:
        w.tag("next payday deviates")
    return base


def _tag_event(w: _World, e: Ev) -> None:
    if e.settle != e.nominal:
        if e.settle > e.nominal:
            w.tag("forward-rolled payday")
            span = [e.nominal + timedelta(days=k) for k in range((e.settle - e.nominal).days)]
        else:
            span = [e.nominal - timedelta(days=k) for k in range((e.nominal - e.settle).days)]
        if e.nominal.weekday() >= 5:
            w.tag("weekend-moved payday")
        if any(is_holiday(x) for x in span):
            w.tag("holiday-moved payday")
    if e.slip:
        w.tag("early posting not every time")
    if e.late:
        w.tag("late ACH")
    if e.missed:
        w.tag("missed paycheck")
    if e.bonus_in:
        w.tag("bonus inside paycheck")


def generate(seed: int, count: int) -> list[PaydayUser]:
    """Deterministic for (seed, count); user i depends only on (seed, i)."""
    return [_World(seed, i).build() for i in range(count)]
