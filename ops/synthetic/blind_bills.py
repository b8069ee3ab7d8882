"""The blind bills world: labelled bill streams in bank feeds, by an author who never saw the models.

A separate author wrote this generator from a list of real-world phenomena (how US billers,
banks and card networks post, what households pay and how often) without reading the
project's models, generators or tests, so the recurring-expense detector can be scored on a
world it was not shaped by. It imports nothing from the project; keep it that way.

``generate(seed, count)`` returns one ``User`` per index; user *i* depends only on
``(seed, i)``. A user has ``as_of_days`` (three evaluation days in 2025-2026, at least 60
days apart, any weekday), ``transactions`` (API-shaped dicts on a checking account and, for
55%, a credit card at the same bank; ``amount`` in int cents, positive out), ``labels``
(txn_id -> label), ``history_start`` / ``history_end`` (at least 186 days before the first
``as_of`` to 100 days after the last) and ``truth(as_of, history_days)``.

The world: a bank style that decides how descriptions look (Chase, BofA and Wells embed dates
and references, so the same bill's name changes every month; the credit card shows clean
descriptors); a city with its real utilities and a climate that drives seasonal amounts;
rent (ACH pull, portal, Zelle; movers get a second stream), mortgage, utilities, phone,
internet, insurance, gym, streaming and software subscriptions (real 2025 price increases),
loans, BNPL, credit-card autopay, childcare, lawn care, cleaning, meal kits, memberships,
storage, security, donations; and income, everyday spending, P2P, ATM and transfers. 12% of
users moved their bills to this account 30-75 days before the first ``as_of``.

Posting: card charges authorise on the billing day with jitter (-2..+2 days; weekly and
biweekly bills +-1) and post 0-3 days later on the next business day (on the credit card, any
day). ACH debits post on the due day rolled to a business day, next or previous per biller.
Portal payments post the next business day after initiation, bill pay and Venmo leave the
next business day, Zelle posts on the initiation day, weekends included. Business days follow
the Fed calendar (a Sunday holiday is observed Monday, a Saturday one not at all). Only card
rows in the last 3 days of the history can be pending. 1% of card bill charges are declined
and retried 1-4 days later; 0.4% of ACH bill debits bounce (labelled ``bill_returned``, then
a ``RETURNED ITEM`` credit and an NSF fee), and are presented again 2-5 business days later.

Truth: ``truth(as_of, history_days)`` has one dict per bill stream with at least one settled
charge in ``(as_of - history_days, as_of]``:

- ``frequency``, ``what``, ``stream_id``, ``detail``, ``account_id``;
- ``visible_ids``: the stream's settled charges in the window (never a returned attempt, its
  reversal or fee, a refund, or the card-account side of a card payment);
- ``next_date`` / ``next_amount``: the first settled charge after ``as_of`` (the re-presented
  one if the next attempt bounces). Schedules run to the last ``as_of`` + 420 days, so an
  annual bill or lawn care resuming in spring can have a ``next_date`` after ``history_end``;
  otherwise a ``next_date`` up to ``history_end`` is one of the stream's transactions;
- ``on_schedule``: decided by the generator, not by a tolerance: True for the stream's next
  regular slot with its normal noise (jitter, lag, rolls, early user payments, price
  changes); False for a late user payment, a retry after a decline, a re-presentment, the
  first charge after a skipped slot, or no next charge;
- ``status``: ``expected`` (>= 2 visible charges and a next charge), ``inactive`` (>= 2
  visible, no next charge ever, and ``as_of`` - last charge > period + grace; see
  ``PERIOD_DAYS`` and ``GRACE_DAYS``), else ``unscored``. Charges before ``history_start``
  never count.

Labels: ``bill:<what>:<stream_id>`` (the only labels of truth streams), a returned attempt
``bill_returned:<what>:<stream_id>`` and its ``reversal:<what>:<stream_id>``, ``refund:<what>:<stream_id>``,
``refund:amazon``, ``refund:purchase``, ``fee:nsf``, ``fee:atm``, ``everyday:<kind>``, ``income:<kind>``,
``p2p:<kind>``, ``transfer:<kind>``, ``atm`` and ``oneoff:purchase``.
Deliberate traps that look regular but are not bills: coffee at a usual exact amount,
Starbucks card reloads, weekly groceries, fuel, lunch spots, Amazon on the same merchant as
Prime, haircuts, automatic savings transfers, manual extra card payments, payroll and SSA.

Rates are ``RATES`` and ``SHARES`` below, each with its one-line reason.
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import TypedDict, TypeVar

__all__ = ["GRACE_DAYS", "PERIOD_DAYS", "RATES", "SHARES", "User", "fed_holidays", "generate", "is_business_day"]

T = TypeVar("T")

VERSION = "recurring_world/v1"  # part of every user's seed: changing it changes the world
ONE = timedelta(days=1)


def _d(n: int) -> timedelta:
    return timedelta(days=n)


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


class BillTruth(TypedDict):
    stream_id: str
    what: str
    detail: str
    frequency: str
    account_id: str
    status: str
    visible_ids: frozenset[str]
    next_date: date | None
    next_amount: int | None
    on_schedule: bool


#: The amount of the k-th nominal charge, or None (or <= 0) when the slot is skipped.
AmountFn = Callable[[date, int], int | None]
#: A charge's description from its posting and authorisation dates.
Namer = Callable[[date, date | None], str]
#: (ACH company, ACH entry, merchant_name, card descriptor, combined gas and electric)
Utility = tuple[str, str, str, str | None, bool]
#: (city, state, climate, electric, gas, water)
Location = tuple[str, str, str, Utility, Utility | None, Utility | None]
#: (merchant_name, card descriptors, pfc detailed, cat, prices, change)
SubSpec = tuple[str, list[str], str, str, list[int], tuple[date, dict[int, int]] | None]


# --------------------------------------------------------------------------------------
# Rates: value + one-line reason.
# --------------------------------------------------------------------------------------
RATES: dict[str, tuple[float, str]] = {
    "legacy_category_user": (.60, "older integrations still receive the legacy category list"),
    "new_switch_user": (.12, "user moved bills/pay to this account 30-75 days before first as_of"),
    "mover": (.10, "~10%/yr of US renters move; rent + electric streams replaced"),
    "homeowner": (.30, "mortgage instead of rent (sample skews younger than US avg)"),
    "no_housing_payment": (.06, "lives with family / housing paid by someone else"),
    "rent_late_portal": (.10, "per month: user-initiated portal payment 1-2 days after the 1st"),
    "rent_late_zelle": (.15, "per month: Zelle to landlord 1-4 days late"),
    "electric": (.93, "nearly every household has an electric account in its name"),
    "separate_gas": (.55, "where gas is a separate utility; many units are all-electric"),
    "water_quarterly": (.70, "many municipal water/sewer departments bill quarterly"),
    "trash_owner": (.40, "private hauler (WM/Republic); half bill quarterly"),
    "budget_billing": (.12, "level-pay utility plans make a variable bill fixed"),
    "phone": (.94, "almost universal"),
    "phone_taxes_vary": (.40, "post-paid bills with cents-level tax/fee variation"),
    "internet": (.82, "home broadband penetration"),
    "internet_promo_end": (.25, "promo pricing expires -> $15-30 step up"),
    "auto_insurance": (.68, "car owners; 15% of them pay quarterly"),
    "renters_insurance": (.35, "share of renters with a policy"),
    "life_insurance": (.18, "term life by ACH"),
    "pet_insurance": (.07, "small but real"),
    "gym": (.33, "gym membership; Planet Fitness members also pay an annual fee"),
    "streaming_per_user": (2.1, "Poisson mean number of video/music subscriptions"),
    "software_per_user": (0.9, "Poisson mean number of cloud/software subscriptions"),
    "sub_established": (.60, "subscription already running when history starts"),
    "sub_cancel": (.30, "subscription cancelled somewhere in the history"),
    "sub_generic_price_change": (.18, "one extra price increase during history"),
    "sub_on_credit_card": (.60, "if the user has a card account here, subs often go on it"),
    "card_decline_retry": (.010, "per card charge: decline (invisible) then retry 1-4 days later"),
    "ach_return": (.004, "per ACH debit: NSF return + fee, re-presented 2-5 business days later"),
    "auto_loan": (.35, "car loan"), "student_loan": (.22, "federal/private student loan"),
    "personal_loan": (.10, "installment loan"), "loan_payoff": (.12, "loan ends during history"),
    "bnpl": (.18, "Klarna pay-in-4 (biweekly, 4 charges) or Affirm monthly plans"),
    "credit_card_account": (.55, "user also has a credit card at this bank (own account_id)"),
    "external_card_autopay": (.35, "autopay to another issuer's card from checking"),
    "autopay_full_balance": (.85, "rest pay a fixed amount"),
    "manual_extra_card_payment": (.20, "card users that sometimes pay mid-cycle by hand"),
    "childcare": (.14, "households paying daycare/nanny weekly or biweekly"),
    "lawn_care": (.35, "of homeowners; paused Dec-Mar outside the South"),
    "house_cleaning": (.10, "biweekly cleaner paid via Venmo/Zelle"),
    "meal_kit": (.07, "weekly meal kit; 20% of weeks skipped"),
    "storage": (.05, "other monthly bills: self storage"),
    "security": (.08, "other monthly bills: home security"),
    "donation": (.10, "other monthly bills: church or charity"),
    "auto_savings_transfer": (.18, "NOT a bill: fixed transfer to own savings (trap)"),
    "starbucks_reload": (.12, "NOT a bill: $25/$50 app auto-reloads of coffee drinkers (trap)"),
    "pfc_missing": (.03, "per txn personal_finance_category None"),
    "pfc_wrong": (.02, "per txn plausible but wrong PFC"),
    "merchant_name_drop": (.03, "per txn merchant_name missing even for a known merchant"),
}  # fmt: skip

#: Shares of a choice (or rates by group): value + one-line reason.
SHARES: dict[str, tuple[dict[str, float], str]] = {
    "bank_style": ({"chase": .30, "bofa": .25, "wells": .20, "cu": .25},
                   "descriptor formats differ by bank; big-3 plus credit unions"),
    "rent_channel": ({"ach_pull": .45, "portal": .40, "zelle": .15},
                     "property managers pull ACH or use portals; small landlords get Zelle"),
    "water": ({"owner": .80, "renter": .12}, "renters usually have water in rent"),
    "utility_channel": ({"ach": .65, "card": .22, "billpay": .13},
                        "autopay by ACH dominates; some use card-on-file or bank bill pay"),
    "annual_membership": ({"prime_annual": .18, "prime_monthly": .14, "costco": .20},
                          "annual renewals (one charge in any 180d window)"),
}  # fmt: skip

RENT_RAISE_PCT = (0, 7)  # percent raise at each lease anniversary

# Truth-status parameters
PERIOD_DAYS = {"WEEKLY": 7, "BIWEEKLY": 14, "MONTHLY": 31, "QUARTERLY": 92, "ANNUAL": 366}
GRACE_DAYS = {"WEEKLY": 3, "BIWEEKLY": 4, "MONTHLY": 7, "QUARTERLY": 10, "ANNUAL": 14}


# --------------------------------------------------------------------------------------
# Calendar: Federal Reserve holidays and business days
# --------------------------------------------------------------------------------------
def _mdays(y: int, m: int) -> int:
    if m == 12:
        return 31
    return (date(y, m + 1, 1) - date(y, m, 1)).days


def _madd(y: int, m: int, k: int) -> tuple[int, int]:
    t = y * 12 + (m - 1) + k
    return t // 12, t % 12 + 1


def _clamp(y: int, m: int, day: int) -> date:
    return date(y, m, min(day, _mdays(y, m)))


def _nth_weekday(y: int, m: int, wd: int, n: int) -> date:
    d = date(y, m, 1)
    d += _d((wd - d.weekday()) % 7)
    return d + _d(7 * (n - 1))


def _last_weekday(y: int, m: int, wd: int) -> date:
    d = date(y, m, _mdays(y, m))
    return d - _d((d.weekday() - wd) % 7)


def fed_holidays(y: int) -> list[date]:
    """Federal Reserve Bank holidays for year y.  A holiday on Sunday is observed
    Monday; a holiday on Saturday is NOT moved (the Fed is open the Friday before)."""
    out = []
    for h in (date(y, 1, 1), date(y, 6, 19), date(y, 7, 4), date(y, 11, 11), date(y, 12, 25)):
        if h.weekday() == 6:
            out.append(h + ONE)
        elif h.weekday() < 5:
            out.append(h)
    out += [
        _nth_weekday(y, 1, 0, 3),  # MLK
        _nth_weekday(y, 2, 0, 3),  # Washington's birthday
        _last_weekday(y, 5, 0),  # Memorial
        _nth_weekday(y, 9, 0, 1),  # Labor
        _nth_weekday(y, 10, 0, 2),  # Columbus / Indigenous Peoples'
        _nth_weekday(y, 11, 3, 4),
    ]  # Thanksgiving
    return sorted(out)


_HOLIDAYS = frozenset(h for y in range(2021, 2031) for h in fed_holidays(y))


def is_business_day(d: date) -> bool:
    return d.weekday() < 5 and d not in _HOLIDAYS


def _next_bd(d: date) -> date:
    while not is_business_day(d):
        d += ONE
    return d


def _prev_bd(d: date) -> date:
    while not is_business_day(d):
        d -= ONE
    return d


def _roll(d: date, rule: str) -> date:
    return _prev_bd(d) if rule == "prev" else _next_bd(d)


def _add_bd(d: date, n: int) -> date:
    for _ in range(n):
        d = _next_bd(d + ONE)
    return d


def _month_noms(day: int, start: date, end: date, step: int = 1, ref_month: int | None = None) -> list[date]:
    """Nominal dates on `day` (clamped to month end) every `step` months, in [start, end).
    ref_month (1-12) fixes the phase for step>1."""
    y, m = _madd(start.year, start.month, -1)
    if ref_month is not None:
        while (m - ref_month) % step:
            y, m = _madd(y, m, 1)
    out = []
    while True:
        d = _clamp(y, m, day)
        if d >= end:
            break
        if d >= start:
            out.append(d)
        y, m = _madd(y, m, step)
    return out


def _week_noms(anchor: date, start: date, end: date, step: int) -> list[date]:
    d = anchor + _d(((start - anchor).days // step) * step)
    while d < start:
        d += _d(step)
    out = []
    while d < end:
        out.append(d)
        d += _d(step)
    return out


# --------------------------------------------------------------------------------------
# Taxonomy
# --------------------------------------------------------------------------------------
# fmt: off
_PRIMARIES = ("INCOME", "TRANSFER_IN", "TRANSFER_OUT", "LOAN_PAYMENTS", "BANK_FEES",
              "ENTERTAINMENT", "FOOD_AND_DRINK", "GENERAL_MERCHANDISE", "HOME_IMPROVEMENT",
              "MEDICAL", "PERSONAL_CARE", "GENERAL_SERVICES", "GOVERNMENT_AND_NON_PROFIT",
              "TRANSPORTATION", "TRAVEL", "RENT_AND_UTILITIES")
# fmt: on


def _pfc(detailed: str) -> Category:
    for p in _PRIMARIES:
        if detailed.startswith(p + "_"):
            return {"primary": p, "detailed": detailed}
    raise ValueError(detailed)


# fmt: off
_WRONG_PFC = ("GENERAL_SERVICES_OTHER_GENERAL_SERVICES", "GENERAL_MERCHANDISE_OTHER_GENERAL_MERCHANDISE",
              "TRANSFER_OUT_OTHER_TRANSFER_OUT", "ENTERTAINMENT_OTHER_ENTERTAINMENT",
              "FOOD_AND_DRINK_OTHER_FOOD_AND_DRINK")

_CATS = {
    "coffee": ["Food and Drink", "Restaurants", "Coffee Shop"],
    "grocery": ["Shops", "Supermarkets and Groceries"],
    "gas": ["Travel", "Gas Stations"],
    "fastfood": ["Food and Drink", "Restaurants", "Fast Food"],
    "restaurant": ["Food and Drink", "Restaurants"],
    "shops": ["Shops"],
    "digital": ["Shops", "Digital Purchase"],
    "pharmacy": ["Shops", "Pharmacies"],
    "taxi": ["Travel", "Taxi"],
    "airline": ["Travel", "Airlines and Aviation Services"],
    "rent": ["Payment", "Rent"],
    "mortgage": ["Payment", "Loan"],
    "loan": ["Payment", "Loan"],
    "ccpay": ["Payment", "Credit Card"],
    "electric": ["Service", "Utilities", "Electric"],
    "gasutil": ["Service", "Utilities", "Gas"],
    "water": ["Service", "Utilities", "Water"],
    "trash": ["Service", "Utilities", "Sanitary and Waste Management"],
    "phone": ["Service", "Telecommunication Services"],
    "internet": ["Service", "Cable"],
    "insurance": ["Service", "Insurance"],
    "gym": ["Recreation", "Gyms and Fitness Centers"],
    "subscription": ["Service", "Subscription"],
    "music": ["Service", "Entertainment", "Music"],
    "service": ["Service"],
    "childcare": ["Service", "Personal Care"],
    "lawn": ["Service", "Home Improvement"],
    "storage": ["Service", "Storage"],
    "security": ["Service", "Security and Safety"],
    "donation": ["Community", "Religious"],
    "transfer": ["Transfer", "Debit"],
    "transfer_in": ["Transfer", "Credit"],
    "p2p": ["Transfer", "Third Party"],
    "payroll": ["Transfer", "Payroll"],
    "deposit": ["Transfer", "Deposit"],
    "atm": ["Transfer", "Withdrawal", "ATM"],
    "fee": ["Bank Fees", "Insufficient Funds"],
    "atmfee": ["Bank Fees", "ATM"],
    "interest": ["Interest", "Interest Earned"],
    "tax": ["Tax", "Refund"],
    "medical": ["Healthcare", "Healthcare Services"],
    "auto": ["Service", "Automotive"],
    "lodging": ["Travel", "Lodging"],
    "home": ["Shops", "Home Improvement"],
    "electronics": ["Shops", "Computers and Electronics"],
    "membership": ["Shops", "Warehouses and Wholesale Stores"],
}

# --------------------------------------------------------------------------------------
# Static catalogs (names as banks show them)
# --------------------------------------------------------------------------------------
_FIRST = ["JAMES", "MARIA", "ROBERT", "JENNIFER", "MICHAEL", "LINDA", "DAVID", "ELIZABETH",
          "JOSE", "PATRICIA", "DANIEL", "ASHLEY", "KEVIN", "PRIYA", "WEI", "AISHA", "TYLER",
          "SARAH", "CARLOS", "EMILY", "DEREK", "NGOC", "BRANDON", "JESSICA", "OMAR", "KAYLA"]
_LAST = ["SMITH", "JOHNSON", "WILLIAMS", "BROWN", "JONES", "GARCIA", "MILLER", "DAVIS",
         "RODRIGUEZ", "MARTINEZ", "HERNANDEZ", "LOPEZ", "NGUYEN", "PATEL", "KIM", "CHEN",
         "WASHINGTON", "OKAFOR", "THOMPSON", "WHITE", "HARRIS", "SANCHEZ", "CLARK", "LEWIS"]

# (city, state, climate, electric, gas, water); utility tuple = (ACH co, ACH entry,
#  merchant_name, card descriptor, combined_gas_electric)
_LOCS: list[Location] = [
    ("NEW YORK", "NY", "north", ("CON ED OF NY", "INTELL CK", "Con Edison", "CONED 800-752-6633 NY", True),
     None, ("NYC WATER BOARD", "WATER PMT", "NYC Water Board", None, False)),
    ("BROOKLYN", "NY", "north", ("CON ED OF NY", "INTELL CK", "Con Edison", "CONED 800-752-6633 NY", False),
     ("NATIONAL GRID NY", "UTILITYPAY", "National Grid", "NATIONAL GRID NY 800-930-5003 NY", False),
     ("NYC WATER BOARD", "WATER PMT", "NYC Water Board", None, False)),
    ("CHICAGO", "IL", "north", ("COMED", "UTIL PAYMT", "ComEd", "COMED 800-334-7661 IL", False),
     ("PEOPLES GAS", "PAYMENT", "Peoples Gas", "PEOPLES GAS 866-556-6001 IL", False),
     ("CITY OF CHICAGO", "UTIL BILL", "City of Chicago", None, False)),
    ("HOUSTON", "TX", "south", ("RELIANT ENERGY", "AUTOPAY", "Reliant Energy", "RELIANT ENERGY 866-222-7100 TX", False),
     ("CENTERPOINT ENERGY", "PAYMENT", "CenterPoint Energy", "CENTERPOINT ENERGY 800-752-8036 TX", False),
     ("CITY OF HOUSTON", "WATER BILL", "City of Houston", None, False)),
    ("DALLAS", "TX", "south", ("TXU ENERGY", "TXU ENERGY", "TXU Energy", "TXU ENERGY 800-818-6132 TX", False),
     ("ATMOS ENERGY", "ATMOS", "Atmos Energy", "ATMOS ENERGY 888-286-6700 TX", False),
     ("CITY OF DALLAS", "WATER UTIL", "Dallas Water Utilities", None, False)),
    ("ATLANTA", "GA", "south", ("GEORGIA POWER", "BILL PAY", "Georgia Power", "GEORGIA POWER 888-660-5890 GA", False),
     ("GAS SOUTH", "GAS SOUTH", "Gas South", "GAS SOUTH 866-772-4685 GA", False),
     ("CITY OF ATLANTA", "WATERSHED", "City of Atlanta", None, False)),
    ("PHOENIX", "AZ", "south", ("ARIZONA PUBLIC S", "APS PAYMENT", "APS", "APS ELECTRIC 602-371-7171 AZ", False),
     ("SOUTHWEST GAS", "SWGAS PAY", "Southwest Gas", "SOUTHWEST GAS 877-860-6020 NV", False),
     ("CITY OF PHOENIX", "WATER SVCS", "City of Phoenix", None, False)),
    ("LOS ANGELES", "CA", "mild", ("LADWP", "PAYMENT", "LADWP", "LADWP 800-342-5397 CA", False),
     ("SO CAL GAS", "PAID SCGC", "SoCalGas", "SOCALGAS 800-427-2200 CA", False), None),
    ("SAN DIEGO", "CA", "mild", ("SDGE", "SDGE WEB", "SDG&E", "SDGE 800-411-7343 CA", True), None,
     ("CITY OF SAN DIEGO", "WATER", "City of San Diego", None, False)),
    ("SEATTLE", "WA", "mild", ("SEATTLE CITY LIGHT", "UTIL PMT", "Seattle City Light", "SEATTLE CITY LIGHT WA", False),
     ("PUGET SOUND ENERG", "PSE PAYMNT", "Puget Sound Energy", "PUGET SOUND ENERGY 888-225-5773 WA", False),
     ("SEATTLE PUBLIC UTIL", "SPU PMT", "Seattle Public Utilities", None, False)),
    ("DENVER", "CO", "north", ("XCEL ENERGY", "XCEL ENRGY", "Xcel Energy", "XCELENERGY 800-895-4999 MN", True), None,
     ("DENVER WATER", "WATER BILL", "Denver Water", None, False)),
    ("MIAMI", "FL", "south", ("FPL", "DIRECT DEBIT", "Florida Power & Light", "FPL 800-226-3545 FL", False), None,
     ("MIAMI DADE WASD", "WATER SEW", "Miami-Dade Water and Sewer", None, False)),
    ("CHARLOTTE", "NC", "south", ("DUKE ENERGY", "BILL PAY", "Duke Energy", "DUKE ENERGY 800-777-9898 NC", False),
     ("PIEDMONT NATURAL", "PNG WEB", "Piedmont Natural Gas", "PIEDMONT NATURAL GAS 800-752-7504 NC", False),
     ("CHARLOTTE WATER", "UTILITY", "Charlotte Water", None, False)),
    ("COLUMBUS", "OH", "north", ("AEP OHIO", "PAYMENT", "AEP Ohio", "AEP OHIO 800-672-2231 OH", False),
     ("COLUMBIA GAS OH", "COLUMBIAGA", "Columbia Gas of Ohio", "COLUMBIA GAS OHIO 800-344-4077 OH", False),
     ("CITY OF COLUMBUS", "UTIL BILL", "City of Columbus", None, False)),
    ("BOSTON", "MA", "north", ("EVERSOURCE", "EVERSOURCE", "Eversource", "EVERSOURCE 800-592-2000 MA", False),
     ("NATIONAL GRID", "NGRID WEB", "National Grid", "NATIONAL GRID 800-233-5325 MA", False),
     ("BOSTON WATER", "BWSC PMT", "Boston Water and Sewer Commission", None, False)),
    ("PHILADELPHIA", "PA", "north", ("PECO ENERGY", "UTIL_BIL", "PECO", "PECO ENERGY 800-494-4000 PA", True), None,
     ("PHILA WATER DEPT", "WATER REV", "Philadelphia Water Department", None, False)),
    ("MINNEAPOLIS", "MN", "north", ("XCEL ENERGY", "XCEL ENRGY", "Xcel Energy", "XCELENERGY 800-895-4999 MN", False),
     ("CENTERPOINT ENERGY", "PAYMENT", "CenterPoint Energy", "CENTERPOINT ENERGY MN", False),
     ("CITY OF MPLS", "UTILITY", "City of Minneapolis", None, False)),
    ("DETROIT", "MI", "north", ("DTE ENERGY", "DTE PAYMNT", "DTE Energy", "DTE ENERGY 800-477-4747 MI", True), None,
     ("DETROIT WATER", "DWSD PMT", "Detroit Water and Sewerage", None, False)),
    ("NASHVILLE", "TN", "south",
     ("NASHVILLE ELECT", "NES PAYMT", "Nashville Electric Service", "NES 615-736-6900 TN", False),
     ("PIEDMONT NATURAL", "PNG WEB", "Piedmont Natural Gas", "PIEDMONT NATURAL GAS TN", False),
     ("METRO WATER SVCS", "WATER", "Metro Water Services", None, False)),
]

# Subscriptions: key -> (merchant_name, [card descriptors], pfc detailed, cat, [prices], change)
# change = (effective date, {old: new}) applied to the first charge on/after that date.
# "{ref}" in a descriptor is replaced by a fresh 9-char reference on every charge.
_STREAMING: dict[str, SubSpec] = {
    "netflix": ("Netflix", ["NETFLIX.COM NETFLIX.COM CA", "NETFLIX.COM 866-579-7172 CA", "Netflix.com Los Gatos CA"],
                "ENTERTAINMENT_TV_AND_MOVIES", "subscription", [699, 1549, 1549, 2299],
                (date(2025, 1, 21), {699: 799, 1549: 1799, 2299: 2499})),
    "spotify": ("Spotify", ["SPOTIFY USA 877-778-1161 NY", "Spotify USA New York NY", "SPOTIFY P2D4F8A1C3"],
                "ENTERTAINMENT_MUSIC_AND_AUDIO", "music", [1199, 1199, 1699, 1999, 599], None),
    "hulu": ("Hulu", ["HLU*HULUPLUS 888-265-6650 CA", "HULU 877-8244858 CA"],
             "ENTERTAINMENT_TV_AND_MOVIES", "subscription", [999, 1899],
             (date(2025, 10, 21), {999: 1199})),
    "disney": ("Disney+", ["DISNEY PLUS 888-905-7888 CA", "DisneyPLUS 888-905-7888 CA"],
               "ENTERTAINMENT_TV_AND_MOVIES", "subscription", [999, 1599],
               (date(2025, 10, 21), {999: 1199, 1599: 1899})),
    "max": ("Max", ["MAX.COM 855-442-6629 NY", "HBOMAX.COM 855-442-6629 NY"],
            "ENTERTAINMENT_TV_AND_MOVIES", "subscription", [999, 1699, 2099],
            (date(2025, 10, 21), {999: 1099, 1699: 1849, 2099: 2299})),
    "peacock": ("Peacock", ["PEACOCK {ref} PEACOCKTV.COM NY", "PEACOCKTV 888-9 NY"],
                "ENTERTAINMENT_TV_AND_MOVIES", "subscription", [799, 1399],
                (date(2025, 7, 23), {799: 1099, 1399: 1699})),
    "paramount": ("Paramount+", ["PARAMOUNT+ 888-274-5343 NY", "CBS ALL ACCESS PARAMOUNT+ NY"],
                  "ENTERTAINMENT_TV_AND_MOVIES", "subscription", [799, 1299], None),
    "youtube_premium": ("YouTube Premium", ["GOOGLE *YouTubePremium g.co/helppay# CA"],
                        "ENTERTAINMENT_TV_AND_MOVIES", "subscription", [1399, 2299], None),
    "youtube_tv": ("YouTube TV", ["GOOGLE *YouTube TV g.co/helppay# CA"],
                   "ENTERTAINMENT_TV_AND_MOVIES", "subscription", [8299], None),
    "apple_tv": ("Apple", ["APPLE.COM/BILL 866-712-7753 CA", "APPLE.COM/BILL ITUNES.COM CA"],
                 "ENTERTAINMENT_TV_AND_MOVIES", "subscription", [999],
                 (date(2025, 8, 21), {999: 1299})),
    "apple_music": ("Apple", ["APPLE.COM/BILL 866-712-7753 CA", "APPLE.COM/BILL ITUNES.COM CA"],
                    "ENTERTAINMENT_MUSIC_AND_AUDIO", "music", [1099, 1699], None),
    "siriusxm": ("SiriusXM", ["SIRIUSXM RADIO 888-635-5144 NY"],
                 "ENTERTAINMENT_MUSIC_AND_AUDIO", "music", [1099, 999, 1899], None),
    "audible": ("Audible", ["Audible*{ref} Amzn.com/bill NJ"],
                "ENTERTAINMENT_OTHER_ENTERTAINMENT", "subscription", [1495], None),
    "kindle_unlimited": ("Amazon", ["Kindle Unltd*{ref} 888-802-3080 WA"],
                         "ENTERTAINMENT_OTHER_ENTERTAINMENT", "digital", [1199], None),
    "xbox": ("Microsoft", ["MICROSOFT*XBOX MSBILL.INFO WA"],
             "ENTERTAINMENT_VIDEO_GAMES", "digital", [1699, 1999], None),
    "playstation": ("PlayStation", ["PlayStation Network 877-971-7669 CA"],
                    "ENTERTAINMENT_VIDEO_GAMES", "digital", [1799, 1099], None),
}
_STREAMING_W: dict[str, float] = {"netflix": 10, "spotify": 8, "hulu": 5, "disney": 5, "max": 4, "peacock": 3,
                "paramount": 3, "youtube_premium": 3, "youtube_tv": 1, "apple_tv": 2,
                "apple_music": 3, "siriusxm": 2, "audible": 1, "kindle_unlimited": 1,
                "xbox": 2, "playstation": 1}

_SOFTWARE: dict[str, SubSpec] = {
    "icloud": ("Apple", ["APPLE.COM/BILL 866-712-7753 CA", "APPLE.COM/BILL ITUNES.COM CA"],
               "GENERAL_SERVICES_OTHER_GENERAL_SERVICES", "subscription", [99, 299, 299, 999], None),
    "google_one": ("Google", ["GOOGLE *Google One g.co/helppay# CA", "Google One 650-253-0000 CA"],
                   "GENERAL_SERVICES_OTHER_GENERAL_SERVICES", "subscription", [199, 299, 999], None),
    "adobe": ("Adobe", ["ADOBE *CREATIVE CLOUD 408-536-6000 CA", "ADOBE *ADOBE 800-833-6687 CA"],
              "GENERAL_SERVICES_OTHER_GENERAL_SERVICES", "subscription", [1999, 2299, 5999], None),
    "microsoft365": ("Microsoft", ["MICROSOFT*MICROSOFT 365 P MSBILL.INFO WA", "MSFT * {ref} MSBILL.INFO WA"],
                     "GENERAL_SERVICES_OTHER_GENERAL_SERVICES", "subscription", [999, 1299], None),
    "dropbox": ("Dropbox", ["DROPBOX*{ref} DROPBOX.COM CA"],
                "GENERAL_SERVICES_OTHER_GENERAL_SERVICES", "subscription", [1199, 1999], None),
    "chatgpt": ("OpenAI", ["OPENAI *CHATGPT SUBSCR OPENAI.COM CA", "OPENAI HTTPSOPENAI.C CA"],
                "GENERAL_SERVICES_OTHER_GENERAL_SERVICES", "subscription", [2000], None),
    "linkedin": ("LinkedIn", ["LINKEDIN PRE {ref} 855-6535653 CA"],
                 "GENERAL_SERVICES_OTHER_GENERAL_SERVICES", "subscription", [3999, 2999], None),
    "peloton": ("Peloton", ["PELOTON* MEMBERSHIP 866-679-9129 NY"],
                "PERSONAL_CARE_GYMS_AND_FITNESS_CENTERS", "gym", [4400, 1299], None),
}
_SOFTWARE_W: dict[str, float] = {"icloud": 10, "google_one": 5, "adobe": 3, "microsoft365": 4, "dropbox": 2,
               "chatgpt": 4, "linkedin": 1, "peloton": 2}

_EMPLOYERS = [("AMAZON.COM SVCS", "PAYROLL"), ("TARGET CORP", "PAYROLL"), ("KAISER PERMANEN", "PAYROLL"),
              ("STATE OF TEXAS", "PAYROLL"), ("HOME DEPOT", "PAYROLL"), ("WALGREENS", "PAYROLL"),
              ("UNITED PARCEL SE", "PAYROLL"), ("DELTA AIR LINES", "DIR DEP"), ("ADP WAGE PAY", "WAGE PAY"),
              ("GUSTO", "NET PAY"), ("PAYCHEX INC", "PAYROLL"), ("CITY OF CHICAGO", "PAYROLL"),
              ("ACCENTURE LLP", "DIRECT DEP"), ("HCA HEALTHCARE", "PAYROLL"), ("STARBUCKS CORP", "PAYROLL")]
# fmt: on


# --------------------------------------------------------------------------------------
# Internal structures
# --------------------------------------------------------------------------------------
class _Charge:
    __slots__ = ("amount", "date", "on_schedule", "raw")

    def __init__(self, d: date, amount: int, on_schedule: bool) -> None:
        self.date = d
        self.amount = amount
        self.on_schedule = on_schedule
        self.raw: Transaction | None = None  # emitted txn dict, or None when outside the emitted history

    @property
    def txn_id(self) -> str | None:
        return self.raw["txn_id"] if self.raw is not None else None


class _Stream:
    __slots__ = ("account_id", "channel", "charges", "detail", "frequency", "sid", "what")

    def __init__(self, sid: str, what: str, detail: str, frequency: str, account_id: str) -> None:
        self.sid, self.what, self.detail = sid, what, detail
        self.frequency, self.account_id = frequency, account_id
        self.charges: list[_Charge] = []
        self.channel: str | None = None


@dataclass(eq=False)
class User:
    user_id: str
    as_of_days: tuple[date, ...]
    transactions: list[Transaction]
    labels: dict[str, str]
    history_start: date
    history_end: date
    _streams: list[_Stream] = field(default_factory=list, repr=False)

    def truth(self, as_of: date, history_days: int) -> list[BillTruth]:
        """One dict per bill stream with >=1 settled charge in (as_of-history_days, as_of]."""
        lo = as_of - _d(history_days)
        out: list[BillTruth] = []
        for s in self._streams:
            vis = [(c, c.raw) for c in s.charges if c.raw is not None and lo < c.date <= as_of]
            if not vis:
                continue
            nxt = None
            for c in s.charges:  # charges are sorted by posting date
                if c.date > as_of:
                    nxt = c
                    break
            last = vis[-1][0].date
            if len(vis) >= 2 and nxt is not None:
                status = "expected"
            elif (
                nxt is None
                and len(vis) >= 2
                and (as_of - last).days > PERIOD_DAYS[s.frequency] + GRACE_DAYS[s.frequency]
            ):
                status = "inactive"
            else:
                status = "unscored"
            out.append(
                {
                    "stream_id": s.sid,
                    "what": s.what,
                    "detail": s.detail,
                    "frequency": s.frequency,
                    "account_id": s.account_id,
                    "status": status,
                    "visible_ids": frozenset(raw["txn_id"] for _, raw in vis),
                    "next_date": nxt.date if nxt else None,
                    "next_amount": nxt.amount if nxt else None,
                    "on_schedule": bool(nxt.on_schedule) if nxt else False,
                }
            )
        return out


# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------
# fmt: off
_AUTH_JIT = ((-2, .06), (-1, .16), (0, .56), (1, .16), (2, .06))
_AUTH_JIT_WEEKLY = ((-1, .05), (0, .90), (1, .05))
_LAG_CHK = ((0, .20), (1, .45), (2, .25), (3, .10))
_LAG_CC = ((0, .30), (1, .50), (2, .15), (3, .05))
_ALNUM = "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789"
# fmt: on


def _wchoice(r: random.Random, pairs: Sequence[tuple[T, float]]) -> T:
    x = r.random()
    acc = 0.0
    for v, w in pairs:
        acc += w
        if x < acc:
            return v
    return pairs[-1][0]


def _wpick(r: random.Random, weights: Mapping[str, float]) -> str:
    tot = sum(weights.values())
    x = r.random() * tot
    for k, w in weights.items():
        x -= w
        if x < 0:
            return k
    return k


def _poisson(r: random.Random, lam: float) -> int:
    lim = math.exp(-lam)
    k, p = 0, 1.0
    while True:
        p *= r.random()
        if p <= lim:
            return k
        k += 1


def _alnum(r: random.Random, n: int) -> str:
    return "".join(r.choice(_ALNUM) for _ in range(n))


def _digits(r: random.Random, n: int) -> str:
    return str(r.randrange(10**n)).zfill(n)


# fmt: off
_MN_PREFIX = {"KROGER": "Kroger", "SAFEWAY": "Safeway", "WHOLEFDS": "Whole Foods Market", "TRADER": "Trader Joe's",
              "PUBLIX": "Publix", "H-E-B": "H-E-B", "ALDI": "ALDI", "WEGMANS": "Wegmans", "WAL-MART": "Walmart",
              "MEIJER": "Meijer", "STOP": "Stop & Shop", "COSTCO": "Costco", "SHELL": "Shell", "CHEVRON": "Chevron",
              "EXXON": "ExxonMobil", "BP#": "BP", "CIRCLE": "Circle K", "QT": "QuikTrip", "SPEEDWAY": "Speedway",
              "WAWA": "Wawa", "SUNOCO": "Sunoco", "OLIVE": "Olive Garden", "CHEESECAKE": "The Cheesecake Factory"}
# fmt: on


def _mn_for(desc: str, r: random.Random, p: float = 0.85) -> str | None:
    head = desc.split(maxsplit=1)[0]
    if head.startswith("BP#"):
        head = "BP#"
    mn = _MN_PREFIX.get(head)
    return mn if (mn and r.random() < p) else None


def _money(x: float) -> int:
    return max(1, round(x))


def _price_fn(sched: list[tuple[date, int]]) -> Callable[[date, int], int]:
    """sched: [(effective_date, cents), ...] sorted; returns amount(nom, k)."""

    def f(nom: date, k: int) -> int:
        a = sched[0][1]
        for dd, c in sched:
            if nom >= dd:
                a = c
        return a

    return f


def _season(kind: str, clim: str, m: int) -> float:
    """Usage-month factor of a utility bill."""
    if kind == "water":
        return 1 + 0.25 * math.cos(2 * math.pi * (m - 7.5) / 12)
    if kind == "trash":
        return 1.0
    summer = math.cos(2 * math.pi * (m - 7.5) / 12)  # +1 mid-summer
    if kind == "gas":
        return max(0.25, 1 + 0.85 * -summer) if clim != "south" else max(0.35, 1 + 0.6 * -summer)
    if kind == "combined":
        return 1 + (0.35 * -summer if clim == "north" else 0.3 * summer)
    if clim == "south":
        return 1 + 0.45 * summer
    if clim == "north":
        return 1 + 0.15 * summer + 0.1 * -summer * (summer < 0)
    return 1 + 0.1 * summer


@dataclass
class _Habits:
    """A user's everyday spending habits (traps: regular-looking, but not bills)."""

    coffee: bool
    reload_: bool
    coffee_p: float
    shops: list[tuple[str, str | None]]
    usual: list[int]
    groc_day: int
    grocers: list[str]
    groc_mean: float
    fuels: list[str]
    next_fuel: date
    lunch_p: float
    lunches: list[str]
    rides: bool
    amazon_p: float


_LUNCH_MN = {"CHIPOTLE": "Chipotle Mexican Grill", "SWEETGREEN": "Sweetgreen", "PANERA": "Panera Bread",
             "CHICK-FIL-A": "Chick-fil-A", "MCDONALD'S": "McDonald's", "SUBWAY": "Subway", "CAVA": "CAVA",
             "JERSEY": "Jersey Mike's", "PANDA": "Panda Express"}  # fmt: skip


@dataclass(frozen=True)
class _Payroll:
    co: str
    entry: str
    coid: str
    indid: str
    net: float
    hourly: bool


# --------------------------------------------------------------------------------------
# The builder
# --------------------------------------------------------------------------------------
class _Builder:
    def __init__(self, seed: int, i: int) -> None:
        r = self.r = random.Random(f"{VERSION}|{seed}|{i}")  # noqa: S311 - reproducible synthetic data is the point
        self.uid = f"rw{seed}-{i:05d}"
        g1, g2 = r.randint(60, 160), r.randint(60, 160)
        lo = date(2025, 1, 1).toordinal()
        hi = date(2026, 12, 31).toordinal() - g1 - g2
        first = date.fromordinal(r.randint(lo, hi))
        self.as_of = (first, first + _d(g1), first + _d(g1 + g2))
        extra = r.randint(6, 30) if r.random() < 0.5 else r.randint(30, 220)
        self.h0 = first - _d(180 + extra)
        self.h1 = self.as_of[-1] + _d(100)
        self.pre = self.h0 - _d(45)  # schedules of established streams start here
        self.end = self.as_of[-1] + _d(420)  # internal schedule horizon (for next_date)
        self.raws: list[tuple[date, Transaction, str, str]] = []
        self.streams: list[_Stream] = []
        self.cc_ledger: list[tuple[date, int]] = []
        self._fresh = False  # the last life() started on a day we see: bills on that day-of-month

        # ---- profile ----
        self.style = _wpick(r, SHARES["bank_style"][0])
        self.legacy = r.random() < RATES["legacy_category_user"][0]
        self.bofa_ref = r.random() < 0.5
        self.cu_prefix = r.choice(["POS DEBIT ", "DEBIT CARD PURCHASE ", "DBT PURCHASE - ", "POS PURCHASE "])
        self.last4 = _digits(r, 4)
        self.first, self.last = r.choice(_FIRST), r.choice(_LAST)
        self.indn = f"{self.last} {self.first}"[:22] if r.random() < 0.5 else f"{self.first} {self.last}"[:22]
        self.loc = r.choice(_LOCS)
        self.city, self.state, self.climate = self.loc[0], self.loc[1], self.loc[2]
        self.chk = "acc_" + f"{r.getrandbits(64):016x}"
        self.cc = ("acc_" + f"{r.getrandbits(64):016x}") if r.random() < RATES["credit_card_account"][0] else None
        self.cc_last4 = _digits(r, 4)
        self.cc_share = r.uniform(0.35, 0.9) if self.cc else 0.0
        self.switch = r.random() < RATES["new_switch_user"][0]
        self.active_from = first - _d(r.randint(30, 75)) if self.switch else self.pre
        self.has_car = r.random() < 0.82
        x = r.random()
        self.housing = (
            "owner"
            if x < RATES["homeowner"][0]
            else "none"
            if x < RATES["homeowner"][0] + RATES["no_housing_payment"][0]
            else "renter"
        )
        self.mover = self.housing == "renter" and not self.switch and r.random() < RATES["mover"][0]
        self.move_date: date | None = None
        if self.mover:
            self.move_date = date.fromordinal(r.randint(self.h0.toordinal() + 40, self.as_of[-1].toordinal()))

    # ------------------------------------------------------------------ naming
    def card_name(self, desc: str, auth: date, acct: str, recurring: bool) -> str:
        r = self.r
        if "{ref}" in desc:
            desc = desc.replace("{ref}", _alnum(r, 9))
        if acct == self.cc:
            return desc
        st = self.style
        if st == "chase":
            return desc
        if st == "bofa":
            s = f"CHECKCARD {auth:%m%d} {desc}"
            return s + " " + _digits(r, 23) if self.bofa_ref else s
        if st == "wells":
            head = "RECURRING PAYMENT" if recurring else "PURCHASE"
            return f"{head} AUTHORIZED ON {auth:%m/%d} {desc} S{_digits(r, 15)} CARD {self.last4}"
        return self.cu_prefix + desc

    def ach_name(
        self, co: str, entry: str, coid: str, indid: str | None, post: date, sec: str = "PPD", credit: bool = False
    ) -> str:
        if indid is None:  # id changes every time (confirmation numbers)
            indid = _digits(self.r, 10)
        st = self.style
        if st == "bofa":
            return f"{co} DES:{entry} ID:{indid} INDN:{self.indn} CO ID:{coid} {sec}"
        if st == "chase":
            return f"{co} {entry} {sec} ID: {coid}"
        if st == "wells":
            return f"{co} {entry} {post:%y%m%d} {indid} {self.indn}"
        return f"{'ACH CREDIT' if credit else 'ACH DEBIT'} {co} {entry}"

    def zelle_name(self, payee: str, post: date, incoming: bool = False) -> str:
        r = self.r
        st = self.style
        pretty = payee.title()
        if st == "chase":
            ref = f"{'BAC' if incoming else 'JPM99'}{_alnum(r, 7).lower()}"
            return f"Zelle payment {'from' if incoming else 'to'} {pretty} {ref}"
        if st == "bofa":
            return f"Zelle payment {'from' if incoming else 'to'} {pretty} Conf# {_alnum(r, 9).lower()}"
        if st == "wells":
            p = payee.split()
            nm = f"{p[-1]} {p[0]}" if len(p) > 1 else payee
            return f"ZELLE {'FROM' if incoming else 'TO'} {nm} ON {post:%m/%d} REF # WFCT0{_alnum(r, 6)}"
        return f"ZELLE {'CREDIT' if incoming else 'DEBIT'} {payee}"

    def xfer_name(self, to_sav: bool, post: date) -> str:
        r = self.r
        st = self.style
        tf = "to" if to_sav else "from"
        if st == "chase":
            return f"Online Transfer {tf} SAV ...{self.last4[::-1]} transaction#: {_digits(r, 11)} {post:%m/%d}"
        if st == "bofa":
            return f"Online Banking transfer {tf} SAV {self.last4[::-1]} Confirmation# {_digits(r, 10)}"
        if st == "wells":
            return (
                f"ONLINE TRANSFER {tf.upper()} {self.last} {self.first[0]} WAY2SAVE SAVINGS "
                f"XXXXXX{self.last4[::-1]} REF #IB0{_alnum(r, 6)} ON {post:%m/%d/%y}"
            )
        return f"TRANSFER {'TO' if to_sav else 'FROM'} SHARE 01"

    # ------------------------------------------------------------------ posting
    def card_post(self, auth: date, acct: str) -> date:
        if acct == self.cc:
            return auth + _d(_wchoice(self.r, _LAG_CC))
        return _next_bd(auth + _d(_wchoice(self.r, _LAG_CHK)))

    def emit(
        self,
        acct: str,
        amount: int,
        post: date,
        auth: date | None,
        name: str,
        mname: str | None,
        pfc: str,
        cat: str,
        label: str,
        kind: str = "other",
    ) -> Transaction | None:
        if acct == self.cc and not label.startswith("transfer:card_payment"):
            self.cc_ledger.append((post, amount))
        if post < self.h0 or post > self.h1:
            return None
        r = self.r
        if mname is not None and r.random() < RATES["merchant_name_drop"][0]:
            mname = None
        x = r.random()
        if x < RATES["pfc_missing"][0]:
            pf = None
        elif x < RATES["pfc_missing"][0] + RATES["pfc_wrong"][0]:
            pf = _pfc(r.choice(_WRONG_PFC))
        else:
            pf = _pfc(pfc)
        cg = list(_CATS[cat]) if (self.legacy and r.random() < 0.95) else None
        t: Transaction = {
            "txn_id": "",  # ids are drawn once every row exists
            "account_id": acct,
            "amount": int(amount),
            "iso_currency_code": "USD",
            "date": post.isoformat(),
            "authorized_date": auth.isoformat() if auth else None,
            "name": name,
            "merchant_name": mname,
            "personal_finance_category": pf,
            "category": cg,
            "pending": False,
        }
        self.raws.append((post, t, label, kind))
        return t

    def card_txn(
        self,
        acct: str,
        amount: int,
        day: date,
        desc: str,
        mname: str | None,
        pfc: str,
        cat: str,
        label: str,
        recurring: bool = False,
    ) -> Transaction | None:
        post = self.card_post(day, acct)
        return self.emit(
            acct, amount, post, day, self.card_name(desc, day, acct, recurring), mname, pfc, cat, label, "card"
        )

    # ------------------------------------------------------------------ lifetimes
    def life(self, p_est: float = 0.6, p_cancel: float = 0.0, min_len: int = 50) -> tuple[date, date]:
        r = self.r
        if r.random() < p_est:
            start = self.pre
            self._fresh = False  # pre-existing bill: billing day unrelated to any date we see
        else:
            start = date.fromordinal(r.randint(self.h0.toordinal() + 1, self.as_of[-1].toordinal() + 30))
            self._fresh = start > self.active_from  # signed up that day -> bills on that day-of-month
        start = max(start, self.active_from)
        end = self.end
        if r.random() < p_cancel:
            lo = max(start, self.h0).toordinal() + min_len
            hi = self.as_of[-1].toordinal() + 40
            if lo < hi:
                end = date.fromordinal(r.randint(lo, hi))
        return start, end

    def anchor_day(self, start: date) -> int:
        r = self.r
        if self._fresh and start > self.pre:
            return start.day
        return r.randint(29, 31) if r.random() < 0.08 else r.randint(1, 28)

    # ------------------------------------------------------------------ the stream engine
    def stream(
        self,
        what: str,
        detail: str,
        freq: str,
        acct: str,
        channel: str,
        noms: list[date],
        amt: AmountFn,
        namer: Namer,
        mname: str | None,
        pfc: str,
        cat: str,
        *,
        roll: str = "next",
        late: float = 0.0,
        late_days: tuple[int, int] = (1, 2),
        fail: float | None = None,
        skip: float = 0.0,
        skip_fn: Callable[[date], bool] | None = None,
        habit: int = 0,
        jit: Sequence[tuple[int, float]] = _AUTH_JIT,
    ) -> _Stream:
        r = self.r
        sid = f"{self.uid}-s{len(self.streams):02d}"
        st = _Stream(sid, what, detail, freq, acct)
        st.channel = channel if not (channel == "card" and acct == self.cc) else "credit_card"
        lab = f"bill:{what}:{sid}"
        if fail is None:
            fail = (
                RATES["card_decline_retry"][0]
                if channel == "card"
                else RATES["ach_return"][0]
                if channel == "ach"
                else 0.0
            )
        off = False
        for k, nom in enumerate(noms):
            if (skip_fn is not None and skip_fn(nom)) or (skip and r.random() < skip):
                off = True
                continue
            a = amt(nom, k)
            if a is None or a <= 0:
                off = True
                continue
            on = not off
            off = False
            auth: date | None = None
            if channel == "card":
                post, auth, regular = self._card_charge(nom, freq, acct, fail, jit)
            elif channel == "ach":
                post = _roll(nom, roll)
                regular = True
                if r.random() < fail:
                    self._returned(st, a, post, namer, mname, pfc, cat)
                    post = _add_bd(post, r.randint(2, 5))
                    regular = False
            else:  # user-initiated: portal / zelle / billpay / venmo
                post, auth, regular = self._user_payment(channel, nom, late, late_days, habit)
            ch = _Charge(post, a, on and regular)
            if post <= self.h1:
                ch.raw = self.emit(
                    acct,
                    a,
                    post,
                    auth,
                    namer(post, auth),
                    mname,
                    pfc,
                    cat,
                    lab,
                    "card" if channel == "card" else "other",
                )
            st.charges.append(ch)
        st.charges.sort(key=lambda c: c.date)
        self.streams.append(st)
        return st

    def _card_charge(
        self, nom: date, freq: str, acct: str, fail: float, jit: Sequence[tuple[int, float]]
    ) -> tuple[date, date, bool]:
        """(posting date, authorisation date, on schedule) of a card bill charge; a decline retries later."""
        r = self.r
        regular = True
        auth = nom + _d(_wchoice(r, jit))
        if r.random() < fail:
            auth += _d(r.randint(1, 2 if freq in ("WEEKLY", "BIWEEKLY") else 4))
            regular = False
        return self.card_post(auth, acct), auth, regular

    def _user_payment(
        self, channel: str, nom: date, late: float, late_days: tuple[int, int], habit: int
    ) -> tuple[date, date | None, bool]:
        """(posting date, authorisation date, on schedule) of a payment the user starts."""
        r = self.r
        regular = True
        if late and r.random() < late:
            init = nom + _d(r.randint(*late_days))
            regular = False
        else:
            init = nom - _d(max(0, habit + _wchoice(r, ((-1, 0.15), (0, 0.70), (1, 0.15)))))
        if channel == "zelle":
            return init, init, regular
        if channel == "portal":
            return _next_bd(init + ONE), None, regular
        # billpay / venmo: leaves the account next business day
        return (_add_bd(init, 1) if is_business_day(init) else _next_bd(init)), None, regular

    def _returned(self, st: _Stream, a: int, post: date, namer: Namer, mname: str | None, pfc: str, cat: str) -> None:
        if not (self.h0 <= post <= self.h1):
            return
        r = self.r
        nm = namer(post, None)
        self.emit(self.chk, a, post, None, nm, mname, pfc, cat, f"bill_returned:{st.what}:{st.sid}")
        rp = _add_bd(post, r.randint(1, 2))
        self.emit(
            self.chk,
            -a,
            rp,
            None,
            "RETURNED ITEM " + nm[:40],
            None,
            "TRANSFER_IN_OTHER_TRANSFER_IN",
            "transfer_in",
            f"reversal:{st.what}:{st.sid}",
        )
        fee = (
            "INSUFFICIENT FUNDS FEE"
            if self.style != "chase"
            else f"INSUFFICIENT FUNDS FEE FOR A ${a / 100:.2f} ITEM - DETAILS: {nm[:25]}"
        )
        self.emit(self.chk, 3400, rp, None, fee, None, "BANK_FEES_INSUFFICIENT_FUNDS", "fee", "fee:nsf")

    # namers -----------------------------------------------------------
    def card_namer(self, descs: str | list[str], acct: str, recurring: bool = True) -> Namer:
        desc = self.r.choice(descs) if isinstance(descs, list) else descs

        def namer(post: date, auth: date | None) -> str:
            if auth is None:
                raise ValueError("a card charge is authorised on a day")
            return self.card_name(desc, auth, acct, recurring)

        return namer

    def ach_namer(self, co: str, entry: str, indid: str | None = "fixed", sec: str = "PPD") -> Namer:
        r = self.r
        coid = _digits(r, 10) if r.random() < 0.7 else str(r.choice([1, 9])) + _digits(r, 9)
        if indid == "fixed":
            indid = _digits(r, r.choice([6, 8, 10, 12]))
            if r.random() < 0.3:
                indid = "XXXXX" + indid[-4:]
        return lambda post, auth: self.ach_name(co, entry, coid, indid, post, sec)

    def zelle_namer(self, payee: str) -> Namer:
        return lambda post, auth: self.zelle_name(payee, post)

    # channel chooser for card/ACH billers
    def card_acct(self, p_cc: float = 0.6) -> str:
        return self.cc if (self.cc and self.r.random() < p_cc) else self.chk

    # ------------------------------------------------------------------ bills
    def bills(self) -> None:
        self.housing_streams()
        self.utilities()
        self.telecom()
        self.insurance()
        self.gym()
        self.subscriptions()
        self.loans()
        self.household_services()
        self.memberships()

    def housing_streams(self) -> None:
        if self.housing == "none":
            return
        if self.housing == "owner":
            self._mortgage()
            return
        # renter
        segments = []
        if self.move_date is not None:
            mv = self.move_date
            segments.append((max(self.pre, self.active_from), mv))
            ny, nm = _madd(mv.year, mv.month, 1)
            segments.append((date(ny, nm, 1), self.end))
        else:
            segments.append((max(self.pre, self.active_from), self.end))
        for seg_start, seg_end in segments:
            self._rent(seg_start, seg_end)

    def _mortgage(self) -> None:
        r = self.r
        co, entry, mn = r.choice([("ROCKET MORTGAGE", "MTG PYMT", "Rocket Mortgage"),
                                  ("MR. COOPER", "MTG PMT", "Mr. Cooper"),
                                  ("WF HOME MTG", "AUTO PAY", "Wells Fargo"),
                                  ("PENNYMAC", "MTG PYMT", "PennyMac"),
                                  ("CHASE MORTGAGE", "MORTGAGE", "Chase"),
                                  ("US BANK HOME MTG", "MTG PMT", "U.S. Bank"),
                                  ("FREEDOM MORTGAGE", "MTG PYMTS", "Freedom Mortgage")])  # fmt: skip
        day = r.choice([1, 1, 1, 1, 1, 2, 5, 10, 15])
        start = max(self.pre, self.active_from)
        base = _money(r.uniform(1100, 3900) * 100)
        # escrow analysis once a year changes the payment
        esc_m = r.randint(1, 12)
        sched = [(date(2000, 1, 1), base)]
        amt_ = base
        for y in range(self.h0.year, self.end.year + 1):
            amt_ = _money(amt_ * (1 + r.uniform(-0.03, 0.08)))
            sched.append((date(y, esc_m, 1), amt_))
        noms = _month_noms(day, start, self.end)
        self.stream(
            "mortgage",
            "mortgage",
            "MONTHLY",
            self.chk,
            "ach",
            noms,
            _price_fn(sched),
            self.ach_namer(co, entry),
            mn if r.random() < 0.9 else None,
            "LOAN_PAYMENTS_MORTGAGE_PAYMENT",
            "mortgage",
            roll="next",
        )

    def _rent(self, start: date, end: date) -> None:
        r = self.r
        ch = _wpick(r, SHARES["rent_channel"][0])
        base = _money(r.uniform(950, 3600)) * 100
        if r.random() < 0.25:
            base += _money(r.uniform(15, 140) * 100)  # fees/utilities bundled, odd cents
        lease_m = r.randint(1, 12)
        sched = [(date(2000, 1, 1), base)]
        a = base
        for y in range(self.h0.year, self.end.year + 1):
            lo, hi = RENT_RAISE_PCT
            a = (
                _money(a * (1 + r.uniform(lo, hi) / 100) / 100) * 100
                if base % 100 == 0
                else _money(a * (1 + r.uniform(lo, hi) / 100))
            )
            sched.append((date(y, lease_m, 1), a))
        amt = _price_fn(sched)
        noms = _month_noms(1, start, end)
        pfc = "RENT_AND_UTILITIES_RENT"
        if ch == "ach_pull":
            co, entry, mn = r.choice([("GREYSTAR RE", "RENT", "Greystar"),
                                      ("EQUITY RESIDENTI", "WEB PMTS", "Equity Residential"),
                                      ("AVALONBAY COMMUN", "RENT PMT", "AvalonBay"),
                                      ("CAMDEN PROPERTY", "RENT", "Camden"),
                                      ("MAA", "RENT PYMT", "MAA"),
                                      ("LINCOLN PROPERTY", "RESIDENT", None),
                                      ("SUNSET PROPERTIES", "RENT", None),
                                      ("OAK HILL APTS LLC", "RENT", None),
                                      ("RIVERSIDE MGMT", "WEB PMTS", None)])  # fmt: skip
            self.stream(
                "rent",
                "rent_ach",
                "MONTHLY",
                self.chk,
                "ach",
                noms,
                amt,
                self.ach_namer(co, entry),
                mn,
                pfc,
                "rent",
                roll="next",
            )
        elif ch == "portal":
            co, entry, mn = r.choice([("RENTCAFE.COM", "RENT", "RentCafe"), ("APPFOLIO", "WEB PMTS", "AppFolio"),
                                      ("BILT RENT", "RENT PMT", "Bilt"), ("CLICKPAY", "ACH DEBIT", "ClickPay"),
                                      ("RENTPAYMENT.COM", "RENT PYMT", "RentPayment"),
                                      ("ACTIVE BUILDING", "RENT", None), ("BUILDIUM", "RENT", None)])  # fmt: skip
            habit = r.choice([0, 0, 0, 1, 1, 2, 3])
            self.stream(
                "rent",
                "rent_portal",
                "MONTHLY",
                self.chk,
                "portal",
                noms,
                amt,
                self.ach_namer(co, entry, indid=None, sec="WEB"),
                mn if r.random() < 0.6 else None,
                pfc,
                "rent",
                late=RATES["rent_late_portal"][0],
                late_days=(1, 2),
                habit=habit,
            )
        else:
            payee = f"{r.choice(_FIRST)} {r.choice(_LAST)}"
            habit = r.choice([0, 0, 1, 2, 3])
            self.stream(
                "rent",
                "rent_zelle",
                "MONTHLY",
                self.chk,
                "zelle",
                noms,
                amt,
                self.zelle_namer(payee),
                None,
                "TRANSFER_OUT_ACCOUNT_TRANSFER",
                "p2p",
                late=RATES["rent_late_zelle"][0],
                late_days=(1, 4),
                habit=habit,
            )

    def _utility(self, util: Utility, kind: str, start: date, end: date, freq: str = "MONTHLY") -> _Stream:
        """kind: electric | gas | combined | water | trash"""
        r = self.r
        co, entry, mn, card_desc, _comb = util
        ch = _wpick(r, SHARES["utility_channel"][0])
        if ch == "card" and not card_desc:
            ch = "ach"
        day = r.randint(1, 28)
        step = 3 if freq == "QUARTERLY" else 1
        ref_m = r.randint(1, 3) if step == 3 else None
        noms = _month_noms(day, start, end, step, ref_m)
        clim = self.climate
        base = {"electric": r.uniform(55, 170), "gas": r.uniform(30, 90), "combined": r.uniform(90, 240),
                "water": r.uniform(45, 110) * (3 if step == 3 else 1),
                "trash": r.uniform(25, 45) * (3 if step == 3 else 1)}[kind]  # fmt: skip
        budget = kind in ("electric", "gas", "combined") and r.random() < RATES["budget_billing"][0]

        fixed_trash = kind == "trash"
        trash_amt = _money(base * 100)
        level = _money(base * 100)
        true_up_m = r.randint(1, 12)

        def amt(nom: date, k: int) -> int:
            if fixed_trash:
                return trash_amt if nom.year < 2026 else _money(trash_amt * 1.04)
            if budget:
                yrs = nom.year - 2020 + (nom.month >= true_up_m)
                return _money(level * (1 + 0.06 * math.sin(yrs * 1.7)))
            um = nom.month - 1 or 12
            return _money(base * 100 * _season(kind, clim, um) * math.exp(r.gauss(0, 0.09)))

        pfc = {"water": "RENT_AND_UTILITIES_WATER", "trash": "RENT_AND_UTILITIES_SEWAGE_AND_WASTE_MANAGEMENT"}.get(
            kind, "RENT_AND_UTILITIES_GAS_AND_ELECTRICITY"
        )
        cat = {"electric": "electric", "combined": "electric", "gas": "gasutil", "water": "water", "trash": "trash"}[
            kind
        ]
        mname = mn if r.random() < 0.75 else None
        if ch == "card" and card_desc:
            acct = self.card_acct(0.5)
            return self.stream(
                "utility", kind, freq, acct, "card", noms, amt, self.card_namer(card_desc, acct), mname, pfc, cat
            )
        if ch == "billpay":
            payee = co
            habit = r.randint(0, 5)

            def namer(post: date, auth: date | None) -> str:
                return self._billpay_name(payee, post)

            return self.stream(
                "utility",
                kind,
                freq,
                self.chk,
                "billpay",
                noms,
                amt,
                namer,
                mname,
                pfc,
                cat,
                late=0.06,
                late_days=(1, 8),
                habit=habit,
            )
        return self.stream(
            "utility",
            kind,
            freq,
            self.chk,
            "ach",
            noms,
            amt,
            self.ach_namer(co, entry, sec=r.choice(["PPD", "WEB"])),
            mname,
            pfc,
            cat,
            roll="prev" if r.random() < 0.3 else "next",
        )

    def _billpay_name(self, payee: str, post: date) -> str:
        r = self.r
        st = self.style
        if st == "chase":
            return f"Online Payment {_digits(r, 11)} To {payee.title()} {post:%m/%d}"
        if st == "bofa":
            return f"{payee} Bill Payment"
        if st == "wells":
            return f"BILL PAY {payee} ON-LINE xxxxx{_digits(r, 5)} ON {post:%m-%d}"
        return f"BILLPAY {payee}"

    def utilities(self) -> None:
        r = self.r
        _, _, _clim, elec, gas, water = self.loc
        start0 = max(self.pre, self.active_from)
        if r.random() < RATES["electric"][0]:
            kind = "combined" if elec[4] else "electric"
            if self.move_date is not None:
                mv = self.move_date
                self._utility(elec, kind, start0, mv + _d(35))
                self._utility(elec, kind, mv + _d(20), self.end)
            else:
                self._utility(elec, kind, start0, self.end)
        if gas is not None and r.random() < RATES["separate_gas"][0]:
            self._utility(gas, "gas", start0, self.end)
        if water is not None and r.random() < SHARES["water"][0]["owner" if self.housing == "owner" else "renter"]:
            fq = "QUARTERLY" if r.random() < RATES["water_quarterly"][0] else "MONTHLY"
            self._utility(water, "water", start0, self.end, fq)
        if self.housing == "owner" and r.random() < RATES["trash_owner"][0]:
            t: Utility = r.choice(
                [
                    ("WASTE MANAGEMENT", "WM EZPAY", "Waste Management", "WM EZPAY 866-834-2080 TX", False),
                    ("REPUBLIC SERVICES", "RSI PAYMNT", "Republic Services", "REPUBLIC SERVICES TRASH AZ", False),
                ]
            )
            self._utility(t, "trash", start0, self.end, "QUARTERLY" if r.random() < 0.5 else "MONTHLY")

    def telecom(self) -> None:
        if self.r.random() < RATES["phone"][0]:
            self._phone()
        if self.r.random() < RATES["internet"][0]:
            self._internet()

    def _phone(self) -> None:
        r = self.r
        carrier = r.choice(["verizon", "verizon", "att", "att", "tmobile", "tmobile", "mint", "visible", "cricket"])
        start, end = self.life(p_est=0.9, p_cancel=0.04)
        day = self.anchor_day(start)
        noms = _month_noms(day, start, end)
        freq = "MONTHLY"
        ach: tuple[str, str] | None = None
        if carrier == "mint":
            if r.random() < 0.6:
                freq = "QUARTERLY"
                noms = _month_noms(day, start, end, 3, start.month)
            price = r.choice([4500, 6000, 7500]) if freq == "QUARTERLY" else r.choice([2000, 2500, 3000])
            base_amt = price
            descs, mn = ["MINT MOBILE 800-683-7392 CA", "MINT MOBILE MINTMOBILE.C CA"], "Mint Mobile"
        elif carrier == "visible":
            base_amt = r.choice([2500, 3500, 4500])
            descs, mn = ["VISIBLE SERVICE 844-847-4253 CO"], "Visible"
        elif carrier == "cricket":
            base_amt = r.choice([3000, 4000, 5500, 6000])
            descs, mn = ["CRICKET WIRELESS 800-274-2538 GA"], "Cricket Wireless"
        else:
            base_amt = _money(r.uniform(55, 280) * 100)
            descs, mn, ach = {
                "verizon": (["VZWRLSS*APOCC VISB 800-922-0204 FL", "VERIZON WRLS P1234-01 800-922-0204 FL"],
                            "Verizon", ("VERIZON WIRELESS", "PAYMENTREC")),
                "att": (["AT&T*BILL PAYMENT 800-288-2020 TX", "ATT*BILL PAYMENT 800-331-0500 TX"],
                        "AT&T", ("ATT", "PAYMENT")),
                "tmobile": (["TMOBILE*AUTO PAY 800-937-8997 WA", "T-MOBILE*AUTOPAY 800-937-8997 WA"],
                            "T-Mobile", ("T-MOBILE", "PCS SVC")),
            }[carrier]  # fmt: skip
        taxes = carrier in ("verizon", "att", "tmobile") and r.random() < RATES["phone_taxes_vary"][0]
        sched = [(date(2000, 1, 1), base_amt)]
        if r.random() < 0.2:  # plan change / device paid off
            dd = date.fromordinal(r.randint(self.h0.toordinal(), self.as_of[-1].toordinal()))
            sched.append((dd, _money(base_amt * r.choice([0.7, 0.8, 1.1, 1.2]))))
        pf = _price_fn(sched)

        def taxed(nom: date, k: int) -> int:
            return pf(nom, k) + r.randint(-90, 140)

        amt = taxed if taxes else pf
        if ach and r.random() < 0.5:
            self.stream(
                "phone",
                carrier,
                freq,
                self.chk,
                "ach",
                noms,
                amt,
                self.ach_namer(*ach),
                mn if r.random() < 0.85 else None,
                "RENT_AND_UTILITIES_TELEPHONE",
                "phone",
                roll="next",
            )
        else:
            acct = self.card_acct(0.5)
            self.stream(
                "phone",
                carrier,
                freq,
                acct,
                "card",
                noms,
                amt,
                self.card_namer(descs, acct),
                mn if r.random() < 0.9 else None,
                "RENT_AND_UTILITIES_TELEPHONE",
                "phone",
            )

    def _internet(self) -> None:
        r = self.r
        isp: tuple[str, list[str], tuple[str, str] | None] = r.choice([
            ("Comcast", ["COMCAST CABLE COMM 800-COMCAST PA", "XFINITY MOBILE 888-936-4968 PA"],
             ("COMCAST", "CABLE PAYMENT")),
            ("Spectrum", ["SPECTRUM 855-707-7328 MO", "CHARTER COMMUNICATIONS 877-772-2253 MO"],
             ("SPECTRUM", "SPECTRUM")),
            ("Verizon", ["VERIZON*FIOS 800-837-4966 VA"], ("VERIZON", "PAYMENTREC")),
            ("AT&T", ["ATT*BILL PAYMENT 800-288-2020 TX"], ("ATT", "PAYMENT")),
            ("Cox Communications", ["COX COMM ATL 888-566-7751 GA"], ("COX COMM", "COX")),
            ("Google Fiber", ["GOOGLE *FIBER g.co/helppay# CA"], None),
            ("T-Mobile", ["T-MOBILE HOME INTERNET WA"], None)])  # fmt: skip
        mn, descs, ach = isp
        start, end = self.life(p_est=0.85, p_cancel=0.05)
        day = self.anchor_day(start)
        base = r.choice([3000, 4000, 5000, 5500, 6000, 6500, 7000, 7999, 8500, 9999])
        if r.random() < 0.3:
            base += r.randint(1, 1500)
        sched = [(date(2000, 1, 1), base)]
        if r.random() < RATES["internet_promo_end"][0]:
            dd = date.fromordinal(r.randint(max(start, self.h0).toordinal(), self.as_of[-1].toordinal() + 30))
            sched.append((dd, base + r.choice([1500, 2000, 2500, 3000])))
        noms = _month_noms(day, start, end)
        if ach and r.random() < 0.45:
            self.stream(
                "internet",
                mn,
                "MONTHLY",
                self.chk,
                "ach",
                noms,
                _price_fn(sched),
                self.ach_namer(*ach),
                mn if r.random() < 0.85 else None,
                "RENT_AND_UTILITIES_INTERNET_AND_CABLE",
                "internet",
                roll="next",
            )
        else:
            acct = self.card_acct(0.5)
            self.stream(
                "internet",
                mn,
                "MONTHLY",
                acct,
                "card",
                noms,
                _price_fn(sched),
                self.card_namer(descs, acct),
                mn if r.random() < 0.9 else None,
                "RENT_AND_UTILITIES_INTERNET_AND_CABLE",
                "internet",
            )

    def _renewing_sched(self, base: int, every_months: int = 6, spread: float = 0.08) -> Callable[[date, int], int]:
        r = self.r
        sched = [(date(2000, 1, 1), base)]
        m0 = r.randint(1, every_months)
        y, m = self.h0.year - 1, m0
        a = base
        while date(y, m, 1) < self.end:
            a = _money(a * (1 + r.uniform(-spread / 2, spread)))
            sched.append((date(y, m, 1), a))
            y, m = _madd(y, m, every_months)
        return _price_fn(sched)

    def insurance(self) -> None:
        r = self.r
        if self.has_car and r.random() < RATES["auto_insurance"][0]:
            self._auto_insurance()
        if self.housing == "renter" and r.random() < RATES["renters_insurance"][0]:
            mn, descs = r.choice([("Lemonade", ["LEMONADE INSURANCE NY", "LEMONADE I* {ref} NY"]),
                                  ("State Farm", ["STATE FARM INSURANCE 800-956-6310 IL"]),
                                  ("Assurant", ["ASSURANT RENTERS INS 800-432-0084 GA"])])  # fmt: skip
            start, end = self.life(p_est=0.7, p_cancel=0.08)
            acct = self.card_acct(0.6)
            noms = _month_noms(self.anchor_day(start), start, end)
            self.stream(
                "insurance",
                "renters",
                "MONTHLY",
                acct,
                "card",
                noms,
                self._renewing_sched(r.randint(900, 2600), 12, 0.1),
                self.card_namer(descs, acct),
                mn,
                "GENERAL_SERVICES_INSURANCE",
                "insurance",
            )
        if r.random() < RATES["life_insurance"][0]:
            co, entry, mn = r.choice([("NORTHWESTERN MU", "ISA PAYMNT", "Northwestern Mutual"),
                                      ("BANNER LIFE", "INS PREM", "Banner Life"),
                                      ("HAVEN LIFE", "PREMIUM", "Haven Life"),
                                      ("PRUDENTIAL", "INS PREM", "Prudential"),
                                      ("NY LIFE INS", "PREM PMT", "New York Life")])  # fmt: skip
            start, end = self.life(p_est=0.8, p_cancel=0.03)
            noms = _month_noms(self.anchor_day(start), start, end)
            self.stream(
                "insurance",
                "life",
                "MONTHLY",
                self.chk,
                "ach",
                noms,
                _price_fn([(date(2000, 1, 1), _money(r.uniform(18, 140) * 100))]),
                self.ach_namer(co, entry),
                mn if r.random() < 0.7 else None,
                "GENERAL_SERVICES_INSURANCE",
                "insurance",
                roll="next",
            )
        if r.random() < RATES["pet_insurance"][0]:
            mn, descs = r.choice([("Trupanion", ["TRUPANION 800-569-7913 WA"]),
                                  ("Healthy Paws", ["HEALTHY PAWS PET INS WA"]),
                                  ("Lemonade", ["LEMONADE PET INS NY"])])  # fmt: skip
            start, end = self.life(p_est=0.6, p_cancel=0.1)
            acct = self.card_acct(0.6)
            noms = _month_noms(self.anchor_day(start), start, end)
            self.stream(
                "insurance",
                "pet",
                "MONTHLY",
                acct,
                "card",
                noms,
                self._renewing_sched(_money(r.uniform(25, 95) * 100), 12, 0.15),
                self.card_namer(descs, acct),
                mn,
                "GENERAL_SERVICES_INSURANCE",
                "insurance",
            )

    def _auto_insurance(self) -> None:
        r = self.r
        ins = r.choice([
            ("GEICO", ("GEICO", "GEICO"), ["GEICO *AUTO 800-841-3000 DC"]),
            ("Progressive", ("PROGRESSIVE", "INS PREM"), ["PROGRESSIVE *INSURANCE 800-776-4737 OH"]),
            ("State Farm", ("STATE FARM RO 27", "SFPP"), ["STATE FARM INSURANCE 800-956-6310 IL"]),
            ("Allstate", ("ALLSTATE", "INS PREM"), ["ALLSTATE *PAYMENT 800-255-7828 IL"]),
            ("USAA", ("USAA P&C", "AUTOPAY"), ["USAA P&C INT AUTOPAY TX"]),
            ("Liberty Mutual", ("LIBERTY MUTUAL", "PAYMENT"), ["LIBERTY MUTUAL 800-225-2467 MA"])])  # fmt: skip
        mn, ach, descs = ins
        start, end = self.life(p_est=0.85, p_cancel=0.06)
        freq = "QUARTERLY" if r.random() < 0.15 else "MONTHLY"
        day = self.anchor_day(start)
        noms = _month_noms(
            day, start, end, 3 if freq == "QUARTERLY" else 1, start.month if freq == "QUARTERLY" else None
        )
        base = _money(r.uniform(85, 260) * 100) * (3 if freq == "QUARTERLY" else 1)
        amt = self._renewing_sched(base, 6, 0.12)
        if r.random() < 0.6:
            self.stream(
                "insurance",
                "auto",
                freq,
                self.chk,
                "ach",
                noms,
                amt,
                self.ach_namer(*ach),
                mn if r.random() < 0.85 else None,
                "GENERAL_SERVICES_INSURANCE",
                "insurance",
                roll=r.choice(["next", "prev"]),
            )
        else:
            acct = self.card_acct(0.5)
            self.stream(
                "insurance",
                "auto",
                freq,
                acct,
                "card",
                noms,
                amt,
                self.card_namer(descs, acct),
                mn if r.random() < 0.85 else None,
                "GENERAL_SERVICES_INSURANCE",
                "insurance",
            )

    def gym(self) -> None:
        r = self.r
        if r.random() >= RATES["gym"][0]:
            return
        g = r.choice(["pf", "pf", "la", "equinox", "ymca", "otf", "crunch", "anytime", "local"])
        start, end = self.life(p_est=0.6, p_cancel=0.3)
        acct = self.card_acct(0.4)
        pfc, cat = "PERSONAL_CARE_GYMS_AND_FITNESS_CENTERS", "gym"
        if g == "pf":
            self._planet_fitness(start, end, acct)
            return
        if g in ("la", "ymca"):
            co, entry, mn = (
                ("LA FITNESS", "DUES", "LA Fitness")
                if g == "la"
                else (f"YMCA OF {self.city[:12]}", "MEMBERSHIP", "YMCA")
            )
            price = _money(r.uniform(35, 85)) * 100 - r.choice([0, 1])
            noms = _month_noms(self.anchor_day(start), start, end)
            self.stream(
                "gym",
                g,
                "MONTHLY",
                self.chk,
                "ach",
                noms,
                _price_fn([(date(2000, 1, 1), price)]),
                self.ach_namer(co, entry),
                mn if r.random() < 0.8 else None,
                pfc,
                cat,
                roll="next",
            )
            return
        city, state = self.city, self.state
        club_mn, desc, price = {
            "equinox": ("Equinox", f"EQUINOX {_digits(r, 3)} {city[:13]} {state}", r.choice([21000, 24000, 28500])),
            "otf": ("Orangetheory Fitness", f"ORANGETHEORY {_digits(r, 4)} {city[:12]} {state}",
                    r.choice([7900, 15900, 19900])),
            "crunch": ("Crunch Fitness", f"CRUNCH FITNESS {city[:12]} {state}", r.choice([1499, 2499, 3499])),
            "anytime": ("Anytime Fitness", f"ANYTIME FITNESS {_digits(r, 4)} {state}",
                        r.choice([3999, 4499, 4999])),
            "local": (None, f"SQ *{r.choice(['IRONWORKS GYM', 'CORE YOGA STUDIO', 'CITY CLIMB', 'FORGE CROSSFIT'])}",
                      r.choice([9900, 12900, 14500, 16000])),
        }[g]  # fmt: skip
        sched = [(date(2000, 1, 1), price)]
        if r.random() < 0.2:
            sched.append(
                (
                    date.fromordinal(r.randint(self.h0.toordinal(), self.as_of[-1].toordinal())),
                    price + r.choice([500, 1000]),
                )
            )
        noms = _month_noms(self.anchor_day(start), start, end)
        self.stream(
            "gym", g, "MONTHLY", acct, "card", noms, _price_fn(sched), self.card_namer(desc, acct), club_mn, pfc, cat
        )

    def _planet_fitness(self, start: date, end: date, acct: str) -> None:
        r = self.r
        pfc, cat = "PERSONAL_CARE_GYMS_AND_FITNESS_CENTERS", "gym"
        club = _digits(r, 4)
        desc = (
            f"PLANET FITNESS {club} 603-750-0001 NH" if r.random() < 0.5 else f"PF {self.city[:12]} {club} {self.state}"
        )
        price = r.choice([1500, 1500, 2499, 2499, 2999])
        sched = [(date(2000, 1, 1), price)]
        noms = _month_noms(17, start, end)
        self.stream(
            "gym",
            "planet_fitness",
            "MONTHLY",
            acct,
            "card",
            noms,
            _price_fn(sched),
            self.card_namer(desc, acct),
            "Planet Fitness",
            pfc,
            cat,
        )
        fee_m = r.choice([3, 4, 5, 6, 7, 8, 9, 10])  # annual fee in a fixed month
        noms2 = _month_noms(r.choice([1, 17, 25]), start + _d(60), end, 12, fee_m)
        self.stream(
            "gym",
            "planet_fitness_annual_fee",
            "ANNUAL",
            acct,
            "card",
            noms2,
            _price_fn([(date(2000, 1, 1), r.choice([4900, 5900]))]),
            self.card_namer(desc, acct),
            "Planet Fitness",
            pfc,
            cat,
        )

    def _sub(self, what: str, key: str, spec: SubSpec) -> _Stream:
        r = self.r
        mn, descs, pfc, cat, prices, change = spec
        start, end = self.life(p_est=RATES["sub_established"][0], p_cancel=RATES["sub_cancel"][0], min_len=40)
        price = r.choice(prices)
        sched = [(date(2000, 1, 1), price)]
        if change:
            eff, mp = change
            if price in mp and start < eff:
                sched.append((eff, mp[price]))
            elif start >= eff:
                sched[0] = (date(2000, 1, 1), mp.get(price, price))
        if r.random() < RATES["sub_generic_price_change"][0]:
            dd = date.fromordinal(r.randint(self.h0.toordinal(), self.as_of[-1].toordinal() + 30))
            last = sched[-1][1] if sched[-1][0] <= dd else sched[0][1]
            sched.append((dd, last + r.choice([100, 200, 250, 300])))
            sched.sort()
        acct = self.card_acct(RATES["sub_on_credit_card"][0])
        noms = _month_noms(self.anchor_day(start), start, end)
        st = self.stream(
            what,
            key,
            "MONTHLY",
            acct,
            "card",
            noms,
            _price_fn(sched),
            self.card_namer(descs, acct),
            mn if r.random() < 0.92 else None,
            pfc,
            cat,
        )
        # a few users get a refund for the last charge after cancelling
        if end < self.end and st.charges and r.random() < 0.04:
            c = st.charges[-1]
            if c.raw is not None:
                self.emit(
                    acct,
                    -c.amount,
                    c.date + _d(r.randint(2, 6)),
                    None,
                    c.raw["name"],
                    c.raw["merchant_name"],
                    pfc,
                    cat,
                    f"refund:{what}:{st.sid}",
                    "card",
                )
        return st

    def subscriptions(self) -> None:
        r = self.r
        pools: tuple[tuple[dict[str, SubSpec], dict[str, float], float, str], ...] = (
            (_STREAMING, _STREAMING_W, RATES["streaming_per_user"][0], "streaming"),
            (_SOFTWARE, _SOFTWARE_W, RATES["software_per_user"][0], "software"),
        )
        for pool, weights, mean, what in pools:
            n = min(_poisson(r, mean), 6)
            w = dict(weights)
            for _ in range(n):
                key = _wpick(r, w)
                w.pop(key)
                self._sub(what, key, pool[key])
                if not w:
                    break

    def loans(self) -> None:
        r = self.r
        specs = [
            ("auto_loan", "LOAN_PAYMENTS_CAR_PAYMENT", (260, 780),
             [("TOYOTA MOTOR CR", "TMCC PMT", "Toyota Financial Services"), ("ALLY", "ALLY PAYMT", "Ally"),
              ("CAPITAL ONE AUTO", "CARPAY", "Capital One"), ("AMERICAN HONDA", "AUTO PAY", "American Honda Finance"),
              ("FORD CREDIT", "FORD CR PMT", "Ford Credit"), ("GM FINANCIAL", "GMF PAYMNT", "GM Financial"),
              ("SANTANDER CONSUM", "SC PAYMENT", "Santander Consumer USA")]),
            ("student_loan", "LOAN_PAYMENTS_STUDENT_LOAN_PAYMENT", (110, 650),
             [("NELNET", "NELNET LNS", "Nelnet"), ("MOHELA", "STUDNTLOAN", "MOHELA"),
              ("DEPT EDUCATION", "STUDENT LN", "Department of Education"), ("AIDVANTAGE", "AIDV PMT", "Aidvantage"),
              ("NAVIENT", "NAVI PAYMT", "Navient"), ("SALLIE MAE BANK", "PAYMENT", "Sallie Mae")]),
            ("personal_loan", "LOAN_PAYMENTS_PERSONAL_LOAN_PAYMENT", (140, 620),
             [("SOFI BANK", "LOAN PMT", "SoFi"), ("UPSTART NETWORK", "LOAN PMT", "Upstart"),
              ("LENDINGCLUB BANK", "LOAN PMT", "LendingClub"), ("BEST EGG", "PAYMENT", "Best Egg"),
              ("DISCOVER PL", "PERS LOAN", "Discover")]),
        ]  # fmt: skip
        for key, pfc, (lo, hi), billers in specs:
            if key == "auto_loan" and not self.has_car:
                continue
            if r.random() >= RATES[key][0]:
                continue
            co, entry, mn = r.choice(billers)
            start, end = self.life(p_est=0.8, p_cancel=RATES["loan_payoff"][0], min_len=60)
            day = self.anchor_day(start)
            noms = _month_noms(day, start, end)
            amount = _money(r.uniform(lo, hi) * 100)
            if key == "student_loan" and r.random() < 0.3:
                amount = _money(amount / 100) * 100
            self.stream(
                "loan",
                key,
                "MONTHLY",
                self.chk,
                "ach",
                noms,
                _price_fn([(date(2000, 1, 1), amount)]),
                self.ach_namer(co, entry, sec=r.choice(["PPD", "WEB"])),
                mn if r.random() < 0.8 else None,
                pfc,
                "loan",
                roll="next" if r.random() < 0.75 else "prev",
            )
        if r.random() < RATES["bnpl"][0]:
            for _ in range(r.choice([1, 1, 2, 3])):
                p = date.fromordinal(r.randint(self.h0.toordinal(), self.as_of[-1].toordinal() + 30))
                if p < self.active_from:
                    continue
                if r.random() < 0.6:
                    self._pay_in_4(p)
                else:
                    self._affirm(p)

    def _pay_in_4(self, p: date) -> None:
        """Klarna / Afterpay pay-in-4, biweekly on the debit card."""
        r = self.r
        shop = r.choice(["TARGET", "NIKE", "SEPHORA", "ULTA", "BEST BUY", "WAYFAIR", "H&M", "MACYS"])
        prov = r.choice([("KLARNA* {}", "Klarna"), ("AFTERPAY {}", "Afterpay")])
        desc = prov[0].format(shop) + (" 844-552-7621 OH" if prov[1] == "Klarna" else " SAN FRANCISCO CA")
        amt = _money(r.uniform(15, 160) * 100)
        noms = [p + _d(14 * j) for j in range(4)]
        self.stream(
            "bnpl",
            prov[1].lower(),
            "BIWEEKLY",
            self.chk,
            "card",
            noms,
            _price_fn([(date(2000, 1, 1), amt)]),
            self.card_namer(desc, self.chk),
            prov[1],
            "LOAN_PAYMENTS_OTHER_PAYMENT",
            "loan",
            jit=_AUTH_JIT_WEEKLY,
        )

    def _affirm(self, p: date) -> None:
        """Affirm monthly plan by ACH."""
        r = self.r
        n = r.choice([3, 6, 6, 12])
        amt = _money(r.uniform(35, 180) * 100)
        noms = _month_noms(p.day, p + _d(20), self.end)[:n]
        self.stream(
            "bnpl",
            "affirm",
            "MONTHLY",
            self.chk,
            "ach",
            noms,
            _price_fn([(date(2000, 1, 1), amt)]),
            self.ach_namer("AFFIRM INC", "AFFIRM PAY", indid=None, sec="WEB"),
            "Affirm",
            "LOAN_PAYMENTS_OTHER_PAYMENT",
            "loan",
        )

    def household_services(self) -> None:
        r = self.r
        if r.random() < RATES["childcare"][0]:
            self._childcare()
        if self.housing == "owner" and r.random() < RATES["lawn_care"][0]:
            self._lawn_care()
        if r.random() < RATES["house_cleaning"][0]:
            self._house_cleaning()
        if r.random() < RATES["meal_kit"][0]:
            self._meal_kit()
        if r.random() < RATES["storage"][0]:
            self._storage()
        if r.random() < RATES["security"][0]:
            self._security()
        if r.random() < RATES["donation"][0]:
            self._donation()

    def _childcare(self) -> None:
        r = self.r
        start, end = self.life(p_est=0.7, p_cancel=0.12, min_len=60)
        kind = _wchoice(r, (("daycare_weekly", 0.5), ("nanny_weekly", 0.3), ("daycare_biweekly", 0.2)))
        if kind == "nanny_weekly":
            anchor = date(2024, 1, 5)  # a Friday
            noms = _week_noms(anchor, start, end, 7)
            payee = f"{r.choice(_FIRST)} {r.choice(_LAST)}"
            rate = r.choice([1800, 2000, 2200, 2500])
            hours_vary = r.random() < 0.4
            hrs = r.choice([25, 30, 40, 45])

            def varying(nom: date, k: int) -> int:
                return rate * max(10, hrs + r.choice([-5, -3, 0, 0, 0, 2, 4]))

            def steady(nom: date, k: int) -> int:
                return rate * hrs

            self.stream(
                "childcare",
                "nanny",
                "WEEKLY",
                self.chk,
                "zelle",
                noms,
                varying if hours_vary else steady,
                self.zelle_namer(payee),
                None,
                "TRANSFER_OUT_ACCOUNT_TRANSFER",
                "p2p",
                skip=0.04,
                late=0.05,
                late_days=(1, 3),
            )
            return
        co, entry, mn = r.choice([("BRIGHT HORIZONS", "TUITION", "Bright Horizons"),
                                  ("KINDERCARE", "KC TUITION", "KinderCare"),
                                  ("PROCARE SOLUTIONS", "LITTLESPROU", None),
                                  ("GODDARD SCHOOL", "TUITION", "The Goddard School"),
                                  ("LITTLE ACORNS ACAD", "TUITION", None)])  # fmt: skip
        step = 7 if kind == "daycare_weekly" else 14
        anchor = date(2024, 1, 1) + _d(r.choice([0, 0, 7]) if step == 14 else 0)  # Monday
        noms = _week_noms(anchor, start, end, step)
        base = _money(r.uniform(220, 480)) * 100 * (2 if step == 14 else 1)
        sched = [(date(2000, 1, 1), base)] + [
            (date(y, 9, 1), _money(base * (1.04 ** (y - 2023)))) for y in range(2024, 2028)
        ]
        self.stream(
            "childcare",
            kind,
            "WEEKLY" if step == 7 else "BIWEEKLY",
            self.chk,
            "ach",
            noms,
            _price_fn(sched),
            self.ach_namer(co, entry),
            mn,
            "GENERAL_SERVICES_CHILDCARE",
            "childcare",
            roll="next",
        )

    def _lawn_care(self) -> None:
        r = self.r
        start, end = self.life(p_est=0.7, p_cancel=0.1)
        step = 7 if r.random() < 0.4 else 14
        anchor = date(2024, 1, 3) + _d(r.randint(0, 2))  # Wed-Fri
        noms = _week_noms(anchor, start, end, step)
        seasonal = self.climate != "south"

        def winter(nom: date) -> bool:
            return nom.month in (12, 1, 2, 3)

        name = r.choice(["SQ *GREEN THUMB LAWN", "SQ *CLIP N MOW LLC", "GREENLEAF LANDSCAPING",
                         "TST* PRO LAWN SVCS", "SQ *JUAREZ LAWN CARE"])  # fmt: skip
        acct = self.card_acct(0.5)
        self.stream(
            "lawn_care",
            "lawn",
            "WEEKLY" if step == 7 else "BIWEEKLY",
            acct,
            "card",
            noms,
            _price_fn([(date(2000, 1, 1), r.choice([4000, 4500, 5000, 6000, 7500]))]),
            self.card_namer(name, acct),
            None,
            "HOME_IMPROVEMENT_REPAIR_AND_MAINTENANCE",
            "lawn",
            skip_fn=winter if seasonal else None,
            skip=0.05,
            jit=_AUTH_JIT_WEEKLY,
        )

    def _house_cleaning(self) -> None:
        r = self.r
        start, end = self.life(p_est=0.6, p_cancel=0.2)
        anchor = date(2024, 1, 2) + _d(r.randint(0, 3))
        noms = _week_noms(anchor, start, end, 14)
        base = r.choice([12000, 14000, 15000, 16000, 18000])

        def amt(nom: date, k: int) -> int:
            return base + (2000 if r.random() < 0.1 else 0)

        if r.random() < 0.5:
            self.stream(
                "house_cleaning",
                "cleaner_venmo",
                "BIWEEKLY",
                self.chk,
                "venmo",
                noms,
                amt,
                self.ach_namer("VENMO", "PAYMENT", indid=None, sec="WEB"),
                "Venmo",
                "TRANSFER_OUT_ACCOUNT_TRANSFER",
                "p2p",
                skip=0.05,
            )
        else:
            payee = f"{r.choice(_FIRST)} {r.choice(_LAST)}"
            self.stream(
                "house_cleaning",
                "cleaner_zelle",
                "BIWEEKLY",
                self.chk,
                "zelle",
                noms,
                amt,
                self.zelle_namer(payee),
                None,
                "TRANSFER_OUT_ACCOUNT_TRANSFER",
                "p2p",
                skip=0.05,
            )

    def _meal_kit(self) -> None:
        r = self.r
        mn, desc, price = r.choice([("HelloFresh", "HELLOFRESH 646-846-3663 NY", [6993, 7992, 8991]),
                                    ("Factor", "FACTOR75 888-400-8087 IL", [7992, 9990]),
                                    ("Home Chef", "HOME CHEF 872-225-2433 IL", [6494, 7990])])  # fmt: skip
        start, end = self.life(p_est=0.5, p_cancel=0.35, min_len=40)
        anchor = date(2024, 1, 3) + _d(r.randint(0, 3))
        noms = _week_noms(anchor, start, end, 7)
        acct = self.card_acct(0.6)
        self.stream(
            "meal_kit",
            mn.lower(),
            "WEEKLY",
            acct,
            "card",
            noms,
            _price_fn([(date(2000, 1, 1), r.choice(price))]),
            self.card_namer(desc, acct),
            mn,
            "FOOD_AND_DRINK_GROCERIES",
            "grocery",
            skip=0.2,
            jit=_AUTH_JIT_WEEKLY,
        )

    def _storage(self) -> None:
        r = self.r
        start, end = self.life(p_est=0.6, p_cancel=0.25)
        acct = self.card_acct(0.5)
        mn, desc = r.choice([("Public Storage", f"PUBLIC STORAGE {_digits(r, 5)} 800-567-0759 CA"),
                             ("Extra Space Storage", f"EXTRA SPACE {_digits(r, 4)} {self.state}"),
                             ("CubeSmart", f"CUBESMART {_digits(r, 4)} {self.city[:12]} {self.state}")])  # fmt: skip
        base = r.choice([6900, 9500, 12900, 15900, 21900])
        noms = _month_noms(self.anchor_day(start), start, end)
        self.stream(
            "storage",
            "storage",
            "MONTHLY",
            acct,
            "card",
            noms,
            self._renewing_sched(base, 12, 0.12),
            self.card_namer(desc, acct),
            mn,
            "GENERAL_SERVICES_STORAGE",
            "storage",
        )

    def _security(self) -> None:
        r = self.r
        start, end = self.life(p_est=0.85, p_cancel=0.05)
        noms = _month_noms(self.anchor_day(start), start, end)
        if r.random() < 0.5:
            self.stream(
                "security",
                "adt",
                "MONTHLY",
                self.chk,
                "ach",
                noms,
                _price_fn([(date(2000, 1, 1), r.choice([4599, 5299, 5999]))]),
                self.ach_namer("ADT SECURITY", "ADT SEC"),
                "ADT",
                "HOME_IMPROVEMENT_SECURITY",
                "security",
                roll="next",
            )
        else:
            acct = self.card_acct(0.5)
            self.stream(
                "security",
                "simplisafe",
                "MONTHLY",
                acct,
                "card",
                noms,
                _price_fn([(date(2000, 1, 1), r.choice([2799, 2999, 1999]))]),
                self.card_namer(["SIMPLISAFE 888-957-4675 MA", "RING PROTECT PLAN"], acct),
                None,
                "HOME_IMPROVEMENT_SECURITY",
                "security",
            )

    def _donation(self) -> None:
        r = self.r
        start, end = self.life(p_est=0.8, p_cancel=0.1)
        noms = _month_noms(self.anchor_day(start), start, end)
        amt = _price_fn([(date(2000, 1, 1), r.choice([1000, 2000, 2500, 5000, 10000, 20000]))])
        if r.random() < 0.5:
            co = r.choice(["ST MARYS PARISH", "FIRST BAPTIST CH", "GRACE COMMUNITY"])
            self.stream(
                "donation",
                "church",
                "MONTHLY",
                self.chk,
                "ach",
                noms,
                amt,
                self.ach_namer(co, "GIVING", sec="WEB"),
                None,
                "GOVERNMENT_AND_NON_PROFIT_DONATIONS",
                "donation",
                roll="next",
            )
        else:
            mn, desc = r.choice([("ACLU", "ACLU *DONATION 212-549-2500 NY"),
                                 ("St. Jude", "ST JUDE CHILDRENS RES 800-822-6344 TN"),
                                 ("NPR", "WNYC *MEMBERSHIP 646-829-4000 NY"),
                                 ("UNICEF", "UNICEF USA 800-367-5437 NY")])  # fmt: skip
            acct = self.card_acct(0.5)
            self.stream(
                "donation",
                "charity",
                "MONTHLY",
                acct,
                "card",
                noms,
                amt,
                self.card_namer(desc, acct),
                mn,
                "GOVERNMENT_AND_NON_PROFIT_DONATIONS",
                "donation",
            )

    def memberships(self) -> None:
        r = self.r
        pr = SHARES["annual_membership"][0]
        x = r.random()
        if x < pr["prime_annual"]:
            start, end = self.life(p_est=0.8, p_cancel=0.1, min_len=200)
            m = r.randint(1, 12)
            noms = _month_noms(r.randint(1, 28), start, end, 12, m)
            acct = self.card_acct(0.6)
            self.stream(
                "membership",
                "prime_annual",
                "ANNUAL",
                acct,
                "card",
                noms,
                _price_fn([(date(2000, 1, 1), 13900)]),
                self.card_namer("Amazon Prime*{ref} Amzn.com/bill WA", acct),
                "Amazon Prime",
                "GENERAL_MERCHANDISE_ONLINE_MARKETPLACES",
                "digital",
            )
        elif x < pr["prime_annual"] + pr["prime_monthly"]:
            start, end = self.life(p_est=0.6, p_cancel=0.25)
            noms = _month_noms(self.anchor_day(start), start, end)
            acct = self.card_acct(0.6)
            self.stream(
                "membership",
                "prime_monthly",
                "MONTHLY",
                acct,
                "card",
                noms,
                _price_fn([(date(2000, 1, 1), 1499)]),
                self.card_namer("Amazon Prime*{ref} Amzn.com/bill WA", acct),
                "Amazon Prime",
                "GENERAL_MERCHANDISE_ONLINE_MARKETPLACES",
                "digital",
            )
        if r.random() < pr["costco"]:
            start, end = self.life(p_est=0.85, p_cancel=0.08, min_len=200)
            m = r.randint(1, 12)
            noms = _month_noms(r.randint(1, 28), start, end, 12, m)
            acct = self.card_acct(0.5)
            fee = r.choice([6500, 13000])
            sched = [(date(2000, 1, 1), fee - 500 if fee == 6500 else fee - 1000), (date(2024, 9, 1), fee)]
            self.stream(
                "membership",
                "costco",
                "ANNUAL",
                acct,
                "card",
                noms,
                _price_fn(sched),
                self.card_namer("COSTCO *ANNUAL RENEWAL 800-774-2678 WA", acct),
                "Costco",
                "GENERAL_MERCHANDISE_SUPERSTORES",
                "membership",
            )

    # ------------------------------------------------------------------ credit card payments
    def external_card_autopay(self) -> None:
        r = self.r
        if r.random() >= RATES["external_card_autopay"][0]:
            return
        co, entry, mn = r.choice([("CHASE CREDIT CRD", "AUTOPAY", "Chase"),
                                  ("CAPITAL ONE", "CRCARDPMT", "Capital One"),
                                  ("AMERICAN EXPRESS", "ACH PMT", "American Express"),
                                  ("DISCOVER", "E-PAYMENT", "Discover"),
                                  ("CITI AUTOPAY", "PAYMENT", "Citibank"),
                                  ("SYNCHRONY BANK", "PAYMENT", "Synchrony"),
                                  ("BARCLAYCARD US", "CREDITCARD", "Barclays")])  # fmt: skip
        start, end = self.life(p_est=0.85, p_cancel=0.05)
        day = r.randint(1, 28)
        noms = _month_noms(day, start, end)
        amt: AmountFn
        if r.random() < RATES["autopay_full_balance"][0]:
            mean = r.uniform(250, 2800)
            state = {"z": 0.0}

            def balance(nom: date, k: int) -> int:  # AR(1) around the user's spending level
                state["z"] = 0.55 * state["z"] + r.gauss(0, 0.45)
                return _money(mean * 100 * math.exp(state["z"]))

            amt = balance
        else:
            fixed = r.choice([5000, 10000, 15000, 20000, 25000, 40000])

            def fixed_amount(nom: date, k: int) -> int:
                return fixed

            amt = fixed_amount
        self.stream(
            "card_payment",
            "external_card",
            "MONTHLY",
            self.chk,
            "ach",
            noms,
            amt,
            self.ach_namer(co, entry, sec="WEB"),
            mn if r.random() < 0.7 else None,
            "LOAN_PAYMENTS_CREDIT_CARD_PAYMENT",
            "ccpay",
            roll="next",
            fail=0.002,
        )

    def _cc_pay_name(self, post: date, autopay: bool = True) -> str:
        st = self.style
        if st == "chase":
            return f"Payment to Chase card ending in {self.cc_last4} {post:%m/%d}"
        if st == "bofa":
            return (
                "BANK OF AMERICA CREDIT CARD Bill Payment"
                if autopay
                else f"Online Banking transfer to CRD {self.cc_last4} Confirmation# {_digits(self.r, 10)}"
            )
        if st == "wells":
            return (
                f"WF CREDIT CARD AUTO PAY {post:%y%m%d} {_digits(self.r, 6)} {self.indn}"
                if autopay
                else f"ONLINE TRANSFER TO {self.last} {self.first[0]} VISA CARD XXXX{self.cc_last4} ON {post:%m/%d/%y}"
            )
        return f"TRANSFER TO LOAN {self.cc_last4[:2]} {'AUTOPAY' if autopay else 'ONLINE'}"

    def manual_card_payments(self) -> None:
        r = self.r
        if not self.cc or r.random() >= RATES["manual_extra_card_payment"][0]:
            return
        d = self.active_from + _d(r.randint(5, 40))
        while d <= self.h1:
            post = _next_bd(d)
            a = _money(r.uniform(50, 600)) * 100
            self.emit(
                self.chk,
                a,
                post,
                None,
                self._cc_pay_name(post, False),
                None,
                "LOAN_PAYMENTS_CREDIT_CARD_PAYMENT",
                "ccpay",
                "transfer:card_payment_manual",
            )
            self.cc_ledger.append((post, -a))
            self.emit(
                self.cc,
                -a,
                post,
                None,
                "PAYMENT - THANK YOU",
                None,
                "LOAN_PAYMENTS_CREDIT_CARD_PAYMENT",
                "ccpay",
                "transfer:card_payment_received",
            )
            d += _d(r.randint(20, 75))

    def cc_autopay(self) -> None:
        r = self.r
        if not self.cc:
            return
        cc = self.cc
        due = r.randint(1, 28)
        start = max(self.pre, self.active_from)
        noms = _month_noms(due, start + _d(55), self.end)
        led = sorted(self.cc_ledger)
        dates = [d for d, _ in led]
        pref = [0]
        for _, a in led:
            pref.append(pref[-1] + a)
        full = r.random() < RATES["autopay_full_balance"][0]
        fixed = r.choice([10000, 15000, 20000, 30000])

        def amt(nom: date, k: int) -> int | None:
            """The statement balance (or the fixed amount) of the cycle that closed 25 days before."""
            if nom > self.h1:
                return 1
            close = nom - _d(25)
            y, m = _madd(nom.year, nom.month, -1)
            prev_close = _clamp(y, m, due) - _d(25)
            i = bisect.bisect_right(dates, prev_close)
            j = bisect.bisect_right(dates, close)
            bal = pref[j] - pref[i]
            if bal <= 0:
                return None
            return bal if full else min(fixed, bal)

        st = self.stream(
            "card_payment",
            "own_card",
            "MONTHLY",
            self.chk,
            "ach",
            noms,
            amt,
            lambda post, auth: self._cc_pay_name(post, True),
            None,
            "LOAN_PAYMENTS_CREDIT_CARD_PAYMENT",
            "ccpay",
            roll="next",
            fail=0.0,
        )
        for c in st.charges:
            if c.raw is not None:
                self.emit(
                    cc,
                    -c.amount,
                    c.date,
                    None,
                    "AUTOPAY PAYMENT - THANK YOU",
                    None,
                    "LOAN_PAYMENTS_CREDIT_CARD_PAYMENT",
                    "ccpay",
                    "transfer:card_payment_received",
                )

    # ------------------------------------------------------------------ income
    def income(self) -> None:
        r = self.r
        start = self.active_from
        kind = _wchoice(r, (("biweekly", 0.55), ("semimonthly", 0.25), ("weekly", 0.07), ("ssa", 0.07), ("gig", 0.06)))
        co, entry = r.choice(_EMPLOYERS)
        coid = _digits(r, 10)
        indid = _digits(r, 8)
        net = r.uniform(1100, 4200) * (0.5 if kind == "weekly" else 1) * (2.1 if kind == "ssa" else 1)
        hourly = r.random() < 0.4
        payroll = _Payroll(co, entry, coid, indid, net, hourly)
        if kind in ("biweekly", "weekly"):
            step = 14 if kind == "biweekly" else 7
            anchor = date(2024, 1, 5) + _d(7 * r.randint(0, 1))
            for dd in _week_noms(anchor, start, self.h1 + ONE, step):
                self._pay(payroll, _prev_bd(dd))
        elif kind == "semimonthly":
            y, m = start.year, start.month
            while date(y, m, 1) <= self.h1:
                for dd in (date(y, m, 15), date(y, m, _mdays(y, m))):
                    if start <= dd:
                        self._pay(payroll, _prev_bd(dd))
                y, m = _madd(y, m, 1)
        elif kind == "ssa":
            self._social_security(indid)
        else:
            self._gig_payouts(coid, indid)
        self._tax_refunds(indid)
        self._interest()

    def _pay(self, p: _Payroll, dd: date) -> None:
        r = self.r
        a = p.net * (1.04 ** (dd.year - 2024))
        if p.hourly:
            a *= math.exp(r.gauss(0, 0.08))
        cents = _money(a * 100)
        self.emit(
            self.chk,
            -cents,
            dd,
            None,
            self.ach_name(p.co, p.entry, p.coid, p.indid, dd, "PPD", credit=True),
            None,
            "INCOME_WAGES",
            "payroll",
            "income:payroll",
        )

    def _social_security(self, indid: str) -> None:
        r = self.r
        start = self.active_from
        wk = r.choice([2, 3, 4])
        y, m = start.year, start.month
        amt = _money(r.uniform(1400, 2600) * 100)
        while date(y, m, 1) <= self.h1:
            dd = _prev_bd(_nth_weekday(y, m, 2, wk))
            if dd >= start:
                a = amt if y < 2025 else _money(amt * 1.025 ** (y - 2024))
                self.emit(
                    self.chk,
                    -a,
                    dd,
                    None,
                    self.ach_name(
                        "SSA TREAS 310", "XXSOC SEC", "9031036000", "XXXXX" + indid[-4:], dd, "PPD", credit=True
                    ),
                    "Social Security Administration",
                    "INCOME_RETIREMENT_PENSION",
                    "payroll",
                    "income:benefits",
                )
            y, m = _madd(y, m, 1)

    def _gig_payouts(self, coid: str, indid: str) -> None:
        """Weekly-ish payouts with very variable amounts."""
        r = self.r
        c, e, mn = r.choice([("UBER USA 6787", "EDI PAYMNT", "Uber"), ("DOORDASH, INC.", "PAYMENT", "DoorDash"),
                             ("LYFT", "EDI PYMNTS", "Lyft")])  # fmt: skip
        dd = self.active_from + _d(r.randint(0, 6))
        while dd <= self.h1:
            if r.random() < 0.85:
                a = _money(r.uniform(60, 900) * 100)
                self.emit(
                    self.chk,
                    -a,
                    _next_bd(dd),
                    None,
                    self.ach_name(c, e, coid, indid, dd, "PPD", True),
                    mn,
                    "INCOME_OTHER_INCOME",
                    "deposit",
                    "income:gig",
                )
            dd += _d(7)

    def _tax_refunds(self, indid: str) -> None:
        r = self.r
        for y in range(self.h0.year, self.h1.year + 1):
            if r.random() < 0.6:
                dd = _next_bd(date(y, 2, 10) + _d(r.randint(0, 70)))
                if self.active_from <= dd:
                    a = _money(r.uniform(150, 3500) * 100)
                    self.emit(
                        self.chk,
                        -a,
                        dd,
                        None,
                        self.ach_name(
                            "IRS TREAS 310", "TAX REF", "3090153000", "XXXXX" + indid[-4:], dd, "PPD", credit=True
                        ),
                        None,
                        "INCOME_TAX_REFUND",
                        "tax",
                        "income:tax_refund",
                    )

    def _interest(self) -> None:
        """Monthly interest on checking at some banks."""
        r = self.r
        start = self.active_from
        if self.style in ("cu", "chase") and r.random() < 0.5:
            y, m = start.year, start.month
            while date(y, m, 1) <= self.h1:
                dd = date(y, m, _mdays(y, m))
                if dd >= start:
                    name = "INTEREST PAYMENT" if self.style == "chase" else "DIVIDEND EARNED"
                    self.emit(
                        self.chk,
                        -r.randint(1, 240),
                        dd,
                        None,
                        name,
                        None,
                        "INCOME_INTEREST_EARNED",
                        "interest",
                        "income:interest",
                    )
                y, m = _madd(y, m, 1)

    # ------------------------------------------------------------------ everyday spending & misc
    def _spend_acct(self) -> str:
        return self.cc if (self.cc and self.r.random() < self.cc_share) else self.chk

    def _habits(self, start: date) -> _Habits:
        r = self.r
        city, stt = self.city, self.state
        coffee = r.random() < 0.72
        reload_ = coffee and r.random() < RATES["starbucks_reload"][0] / 0.72
        coffee_p = r.uniform(0.25, 0.8)
        shops = self._coffee_shops()
        usual = [r.choice([375, 425, 495, 545, 595, 645, 725]) for _ in range(2)]
        groc_day = r.choice([5, 6, 6, 0, 0, 2])
        grocers = [f"{g} {city[:13]} {stt}" for g in r.sample(
            ["KROGER #0" + _digits(r, 3), "SAFEWAY #" + _digits(r, 4),
             "WHOLEFDS " + _alnum(r, 3) + " " + _digits(r, 5), "TRADER JOE S #" + _digits(r, 3),
             "PUBLIX #" + _digits(r, 4), "H-E-B #" + _digits(r, 3), "ALDI " + _digits(r, 5),
             "WEGMANS #" + _digits(r, 3), "WAL-MART #" + _digits(r, 4), "MEIJER # " + _digits(r, 3),
             "STOP & SHOP " + _digits(r, 4), "COSTCO WHSE #" + _digits(r, 4)], 2)]  # fmt: skip
        groc_mean = r.uniform(60, 170)
        fuels = [f"{f} {city[:13]} {stt}" for f in r.sample(
            ["SHELL OIL " + _digits(r, 11), "CHEVRON " + _digits(r, 7), "EXXON MOBIL " + _digits(r, 8),
             "BP#" + _digits(r, 7), "CIRCLE K # " + _digits(r, 5), "QT " + _digits(r, 3),
             "SPEEDWAY " + _digits(r, 5), "WAWA " + _digits(r, 4), "SUNOCO " + _digits(r, 10)], 2)]  # fmt: skip
        next_fuel = start + _d(r.randint(1, 8))
        lunch_p = r.uniform(0.05, 0.45)
        lunches = [r.choice(["CHIPOTLE " + _digits(r, 4), "SWEETGREEN " + city[:10], "PANERA BREAD #" + _digits(r, 6),
                             "CHICK-FIL-A #" + _digits(r, 5), "MCDONALD'S F" + _digits(r, 5), "SUBWAY " + _digits(r, 5),
                             "TST* LUIGIS DELI", "SQ *TACO LOCO TRUCK", "CAVA " + _digits(r, 4),
                             "JERSEY MIKES " + _digits(r, 5), "PANDA EXPRESS #" + _digits(r, 4)])
                   for _ in range(3)]  # fmt: skip
        rides = r.random() < 0.45
        amazon_p = r.uniform(0.03, 0.25)
        return _Habits(
            coffee,
            reload_,
            coffee_p,
            shops,
            usual,
            groc_day,
            grocers,
            groc_mean,
            fuels,
            next_fuel,
            lunch_p,
            lunches,
            rides,
            amazon_p,
        )

    def _coffee_shops(self) -> list[tuple[str, str | None]]:
        r = self.r
        city, stt = self.city, self.state
        shops: list[tuple[str, str | None]] = []
        for _ in range(r.randint(1, 3)):
            c = r.random()
            if c < 0.45:
                shops.append((f"STARBUCKS STORE {_digits(r, 5)} {city[:13]} {stt}", "Starbucks"))
            elif c < 0.6:
                shops.append((f"DUNKIN #{_digits(r, 6)} {city[:13]} {stt}", "Dunkin'"))
            elif c < 0.7:
                shops.append((f"PEETS {_digits(r, 4)} {city[:13]} {stt}", "Peet's Coffee"))
            else:
                shops.append((r.choice(["SQ *BLUE DOOR COFFEE", "TST* MORNING RITUAL", "SQ *BEAN THERE CAFE",
                                        "TST* FIFTH ST ESPRESSO", "SQ *HOLLOW CUP"]) + f" {city[:13]} {stt}",
                              None))  # fmt: skip
        return shops

    def everyday(self) -> None:
        start = self.active_from if self.switch else self.h0 - _d(45)
        h = self._habits(start)
        d = start
        while d <= self.h1:
            wd = d.weekday()
            self._coffee(h, d, wd)
            self._groceries_and_fuel(h, d, wd)
            self._eating_out(h, d, wd)
            self._shopping(h, d)
            self._errands(h, d, wd)
            d += ONE

    def _coffee(self, h: _Habits, d: date, wd: int) -> None:
        r = self.r
        if not h.coffee:
            return
        p = h.coffee_p * (1 if wd < 5 else 0.5)
        if r.random() < p:
            desc, mn = r.choice(h.shops)
            # app users: purchases come off the Starbucks card balance
            if not (h.reload_ and mn == "Starbucks"):
                a = r.choice(h.usual) if r.random() < 0.55 else r.randint(285, 1150)
                self.card_txn(self._spend_acct(), a, d, desc, mn, "FOOD_AND_DRINK_COFFEE", "coffee", "everyday:coffee")
        if h.reload_ and r.random() < h.coffee_p / 9:
            self.card_txn(
                self._spend_acct(),
                r.choice([2500, 2500, 5000]),
                d,
                "STARBUCKS CARD RELOAD 800-782-7282 WA",
                "Starbucks",
                "FOOD_AND_DRINK_COFFEE",
                "coffee",
                "everyday:coffee_reload",
            )

    def _groceries_and_fuel(self, h: _Habits, d: date, wd: int) -> None:
        r = self.r
        if (wd == h.groc_day and r.random() < 0.8) or r.random() < 0.07:
            big = wd == h.groc_day
            a = _money(h.groc_mean * 100 * math.exp(r.gauss(0, 0.35))) if big else r.randint(600, 4800)
            gd = r.choice(h.grocers)
            self.card_txn(
                self._spend_acct(),
                a,
                d,
                gd,
                _mn_for(gd, r),
                "FOOD_AND_DRINK_GROCERIES",
                "grocery",
                "everyday:groceries",
            )
        if self.has_car and d >= h.next_fuel:
            fd = r.choice(h.fuels)
            self.card_txn(
                self._spend_acct(),
                r.randint(2200, 7200),
                d,
                fd,
                _mn_for(fd, r),
                "TRANSPORTATION_GAS",
                "gas",
                "everyday:fuel",
            )
            h.next_fuel = d + _d(r.randint(4, 12))

    def _eating_out(self, h: _Habits, d: date, wd: int) -> None:
        r = self.r
        city, stt = self.city, self.state
        if wd < 5 and r.random() < h.lunch_p:
            desc = r.choice(h.lunches)
            mn = _LUNCH_MN.get(desc.split(maxsplit=1)[0])
            self.card_txn(
                self._spend_acct(),
                r.randint(850, 1900),
                d,
                f"{desc} {city[:13]} {stt}",
                mn,
                "FOOD_AND_DRINK_FAST_FOOD",
                "fastfood",
                "everyday:lunch",
            )
        if wd >= 4 and r.random() < 0.25:
            rd_ = r.choice(["TST* THE FARMHOUSE", "OLIVE GARDEN " + _digits(r, 4), "SQ *NONNAS TRATTORIA",
                            "TST* BLUE MOON TAVERN", "CHEESECAKE FACTORY #" + _digits(r, 3),
                            "TST* PHO SAIGON", "SQ *EL COMAL TAQUERIA"]) + f" {city[:13]} {stt}"  # fmt: skip
            self.card_txn(
                self._spend_acct(),
                r.randint(2200, 14000),
                d,
                rd_,
                _mn_for(rd_, r),
                "FOOD_AND_DRINK_RESTAURANT",
                "restaurant",
                "everyday:restaurant",
            )

    def _shopping(self, h: _Habits, d: date) -> None:
        r = self.r
        city, stt = self.city, self.state
        if r.random() < h.amazon_p:
            a = r.randint(699, 16000)
            acct = self._spend_acct()
            desc = (
                f"AMAZON MKTPL*{_alnum(r, 9)} Amzn.com/bill WA"
                if r.random() < 0.7
                else f"Amazon.com*{_alnum(r, 9)} Amzn.com/bill WA"
            )
            self.card_txn(
                acct, a, d, desc, "Amazon", "GENERAL_MERCHANDISE_ONLINE_MARKETPLACES", "shops", "everyday:amazon"
            )
            if r.random() < 0.06:
                rd = d + _d(r.randint(4, 25))
                self.emit(
                    acct,
                    -a,
                    self.card_post(rd, acct),
                    rd,
                    self.card_name(desc, rd, acct, False),
                    "Amazon",
                    "GENERAL_MERCHANDISE_ONLINE_MARKETPLACES",
                    "shops",
                    "refund:amazon",
                    "card",
                )
        if r.random() < 0.07:
            desc, mn, pfc, cat = r.choice([
                (f"TARGET {_digits(r, 8)} {city[:13]} {stt}", "Target", "GENERAL_MERCHANDISE_SUPERSTORES", "shops"),
                (f"WALMART.COM {_alnum(r, 2)}", "Walmart", "GENERAL_MERCHANDISE_SUPERSTORES", "shops"),
                (f"CVS/PHARMACY #{_digits(r, 5)} {city[:13]} {stt}", "CVS", "MEDICAL_PHARMACIES_AND_SUPPLEMENTS",
                 "pharmacy"),
                (f"WALGREENS #{_digits(r, 4)} {city[:13]} {stt}", "Walgreens", "MEDICAL_PHARMACIES_AND_SUPPLEMENTS",
                 "pharmacy"),
                (f"HOME DEPOT #{_digits(r, 4)} {city[:13]} {stt}", "The Home Depot", "HOME_IMPROVEMENT_HARDWARE",
                 "home"),
                (f"TJ MAXX #{_digits(r, 4)} {city[:13]} {stt}", "T.J. Maxx",
                 "GENERAL_MERCHANDISE_CLOTHING_AND_ACCESSORIES", "shops"),
                ("DD *DOORDASH " + r.choice(["CHIPOTLE", "WINGSTOP", "PANERA", "THAI BASIL"]), "DoorDash",
                 "FOOD_AND_DRINK_RESTAURANT", "restaurant"),
                ("UBER *EATS PENDING", "Uber Eats", "FOOD_AND_DRINK_RESTAURANT", "restaurant")])  # fmt: skip
            self.card_txn(self._spend_acct(), r.randint(500, 12000), d, desc, mn, pfc, cat, "everyday:shopping")

    def _errands(self, h: _Habits, d: date, wd: int) -> None:
        r = self.r
        stt = self.state
        if h.rides and r.random() < 0.06:
            if r.random() < 0.6:
                desc, mn = "UBER *TRIP HELP.UBER.COM CA", "Uber"
            else:
                day_name = ["MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"][wd]
                desc, mn = f"LYFT *RIDE {day_name} {r.randint(1, 12)}{r.choice(['AM', 'PM'])}", "Lyft"
            self.card_txn(
                self._spend_acct(),
                r.randint(900, 4800),
                d,
                desc,
                mn,
                "TRANSPORTATION_TAXIS_AND_RIDE_SHARES",
                "taxi",
                "everyday:rideshare",
            )
        if r.random() < 0.035:  # haircut / salon / dry cleaning / parking: similar amounts, irregular
            desc, pfc = r.choice([(f"SQ *FADE FACTORY {stt}", "PERSONAL_CARE_HAIR_AND_BEAUTY"),
                                  (f"GREAT CLIPS #{_digits(r, 4)} {stt}", "PERSONAL_CARE_HAIR_AND_BEAUTY"),
                                  (f"MR CLEAN DRY CLEANERS {stt}", "PERSONAL_CARE_LAUNDRY_AND_DRY_CLEANING"),
                                  (f"PARKMOBILE {_digits(r, 6)} GA", "TRANSPORTATION_PARKING")])  # fmt: skip
            self.card_txn(
                self._spend_acct(),
                r.choice([2500, 3000, 3500, 4500]) + r.choice([0, 0, 500, 700]),
                d,
                desc,
                None,
                pfc,
                "service",
                "everyday:personal_care",
            )

    def misc(self) -> None:
        """ATM, P2P, own-account transfers, one-off purchases with refunds."""
        r = self.r
        start = self.active_from if self.switch else self.h0
        # sparse pre-switch activity so new-switch accounts still cover the full history
        if self.switch:
            self._pre_switch()
        atm_p = r.uniform(0.01, 0.09)
        p2p_p = r.uniform(0.02, 0.12)
        oneoff_p = r.uniform(0.015, 0.045)
        auto_sav = r.random() < RATES["auto_savings_transfer"][0]
        sav_day = r.choice([1, 5, 15, 16, 20, 28])
        sav_amt = r.choice([5000, 10000, 20000, 25000, 50000])
        d = start
        while d <= self.h1:
            if r.random() < atm_p:
                self._atm(d)
            if r.random() < p2p_p:
                self._p2p(d)
            if r.random() < 0.03:
                self._savings_transfer(d)
            if auto_sav and d.day == sav_day:
                post = _next_bd(d)
                self.emit(
                    self.chk,
                    sav_amt,
                    post,
                    None,
                    self.xfer_name(True, post),
                    None,
                    "TRANSFER_OUT_SAVINGS",
                    "transfer",
                    "transfer:auto_savings",
                )
            if r.random() < oneoff_p:
                self._one_off(d)
            d += ONE

    def _pre_switch(self) -> None:
        r = self.r
        d = self.h0
        while d < self.active_from:
            dd = _next_bd(d)
            a = r.choice([2500, 5000, 10000])
            self.emit(
                self.chk,
                -a,
                dd,
                None,
                self.xfer_name(False, dd),
                None,
                "TRANSFER_IN_ACCOUNT_TRANSFER",
                "transfer_in",
                "transfer:from_savings",
            )
            if r.random() < 0.5:
                self.card_txn(
                    self.chk,
                    r.randint(400, 3000),
                    dd + _d(r.randint(1, 6)),
                    f"WAL-MART #{_digits(r, 4)} {self.city[:13]} {self.state}",
                    "Walmart",
                    "GENERAL_MERCHANDISE_SUPERSTORES",
                    "shops",
                    "everyday:shopping",
                )
            d += _d(r.randint(20, 45))

    def _atm(self, d: date) -> None:
        r = self.r
        city, stt = self.city, self.state
        a = r.choice([2000, 4000, 6000, 8000, 10000, 20000, 30000])
        st = self.style
        name = {
            "chase": f"ATM WITHDRAWAL {_digits(r, 6)} {d:%m/%d} {r.randint(10, 9999)} MAIN ST {city[:12]} {stt}",
            "bofa": f"BKOFAMERICA ATM {d:%m/%d} #{_digits(r, 9)} WITHDRWL {city[:12]} {stt}",
            "wells": f"ATM WITHDRAWAL AUTHORIZED ON {d:%m/%d} {r.randint(10, 9999)} BROADWAY {city[:12]} {stt} "
                     f"{_digits(r, 7)} ATM ID {_digits(r, 4)}L CARD {self.last4}",
            "cu": f"ATM W/D {r.randint(10, 9999)} MAIN ST {city[:12]} {stt}",
        }[st]  # fmt: skip
        post = _next_bd(d)
        self.emit(self.chk, a, post, d, name, None, "TRANSFER_OUT_WITHDRAWAL", "atm", "atm")
        if r.random() < 0.3:
            self.emit(
                self.chk,
                r.choice([250, 300, 350]),
                post,
                None,
                "NON-BANK ATM FEE" if st != "wells" else "ATM WITHDRAWAL FEE",
                None,
                "BANK_FEES_ATM_FEES",
                "atmfee",
                "fee:atm",
            )

    def _p2p(self, d: date) -> None:
        r = self.r
        who = f"{r.choice(_FIRST)} {r.choice(_LAST)}"
        a = r.choice([1500, 2000, 2500, 3000, 4000, 5000, 6000, 7500, 10000, 12000, 20000]) + (
            r.randint(1, 99) if r.random() < 0.3 else 0
        )
        out = r.random() < 0.55
        pfc = "TRANSFER_OUT_ACCOUNT_TRANSFER" if out else "TRANSFER_IN_ACCOUNT_TRANSFER"
        if r.random() < 0.5:
            self.emit(
                self.chk,
                a if out else -a,
                d,
                d,
                self.zelle_name(who, d, incoming=not out),
                None,
                pfc,
                "p2p",
                "p2p:zelle_out" if out else "p2p:zelle_in",
            )
        else:
            post = _next_bd(d)
            self.emit(
                self.chk,
                a if out else -a,
                post,
                None,
                self.ach_name(
                    "VENMO", "PAYMENT" if out else "CASHOUT", "3264681992", None, post, "WEB", credit=not out
                ),
                "Venmo",
                pfc,
                "p2p",
                "p2p:venmo_out" if out else "p2p:venmo_in",
            )

    def _savings_transfer(self, d: date) -> None:
        r = self.r
        a = r.choice([10000, 20000, 25000, 50000, 100000]) if r.random() < 0.7 else r.randint(5000, 150000)
        to_sav = r.random() < 0.55
        post = _next_bd(d)
        self.emit(
            self.chk,
            a if to_sav else -a,
            post,
            None,
            self.xfer_name(to_sav, post),
            None,
            "TRANSFER_OUT_SAVINGS" if to_sav else "TRANSFER_IN_SAVINGS",
            "transfer" if to_sav else "transfer_in",
            "transfer:to_savings" if to_sav else "transfer:from_savings",
        )

    def _one_off(self, d: date) -> None:
        r = self.r
        city, stt = self.city, self.state
        desc, mn, pfc, cat = r.choice([
            (f"BEST BUY {_digits(r, 8)} {city[:13]} {stt}", "Best Buy", "GENERAL_MERCHANDISE_ELECTRONICS",
             "electronics"),
            (f"IKEA {city[:13]} {stt}", "IKEA", "HOME_IMPROVEMENT_FURNITURE", "home"),
            (f"DELTA AIR {_digits(r, 13)} DELTA.COM GA", "Delta Air Lines", "TRAVEL_FLIGHTS", "airline"),
            (f"UNITED {_digits(r, 13)} 800-932-2732 TX", "United Airlines", "TRAVEL_FLIGHTS", "airline"),
            (f"MARRIOTT {r.choice(['ORLANDO', 'DENVER', 'AUSTIN'])} {r.choice(['FL', 'CO', 'TX'])}", "Marriott",
             "TRAVEL_LODGING", "lodging"),
            (f"APPLE STORE #R{_digits(r, 3)} {city[:13]} {stt}", "Apple", "GENERAL_MERCHANDISE_ELECTRONICS",
             "electronics"),
            (f"FIRESTONE #{_digits(r, 6)} {city[:13]} {stt}", "Firestone", "GENERAL_SERVICES_AUTOMOTIVE", "auto"),
            (f"BANFIELD PET HOSP {_digits(r, 4)} {stt}", "Banfield Pet Hospital", "MEDICAL_VETERINARY_SERVICES",
             "medical"),
            (f"{city[:10]} DENTAL GROUP {stt}", None, "MEDICAL_DENTAL_CARE", "medical"),
            (f"LOWES #{_digits(r, 5)} {city[:13]} {stt}", "Lowe's", "HOME_IMPROVEMENT_HARDWARE", "home")])  # fmt: skip
        acct = self.cc if (self.cc and r.random() < 0.7) else self.chk
        a = _money(r.uniform(150, 2400) * 100)
        self.card_txn(acct, a, d, desc, mn, pfc, cat, "oneoff:purchase")
        if r.random() < 0.12:
            rd = d + _d(r.randint(3, 30))
            part = a if r.random() < 0.6 else _money(a * r.uniform(0.1, 0.6))
            self.emit(
                acct,
                -part,
                self.card_post(rd, acct),
                rd,
                self.card_name(desc, rd, acct, False),
                mn,
                pfc,
                cat,
                "refund:purchase",
                "card",
            )

    # ------------------------------------------------------------------ finish
    def build(self) -> User:
        self.bills()
        self.external_card_autopay()
        self.everyday()
        self.income()
        self.misc()
        self.manual_card_payments()
        self.cc_autopay()
        r = self.r
        # order + ids (random, so ids carry no stream information)
        keyed = [(post, r.random(), t, label, kind) for post, t, label, kind in self.raws]
        keyed.sort(key=lambda x: (x[0], x[1]))
        txns: list[Transaction] = []
        labels: dict[str, str] = {}
        seen: set[str] = set()
        for post, _, t, label, kind in keyed:
            tid = f"{r.getrandbits(100):025x}"
            while tid in seen:
                tid = f"{r.getrandbits(100):025x}"
            seen.add(tid)
            t["txn_id"] = tid
            if kind == "card" and (self.h1 - post).days <= 2 and r.random() < 0.5:
                t["pending"] = True
            txns.append(t)
            labels[tid] = label
        streams = [s for s in self.streams if any(c.raw is not None for c in s.charges)]
        return User(self.uid, tuple(self.as_of), txns, labels, self.h0, self.h1, streams)


def generate(seed: int, count: int) -> list[User]:
    """Deterministic for (seed, count); user i depends only on (seed, i)."""
    return [_Builder(seed, i).build() for i in range(count)]
