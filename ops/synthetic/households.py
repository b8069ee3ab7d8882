"""World B of the recurring-expense benchmark: households and the bills they pay.

Written apart from world A (:mod:`ops.synthetic.spending`) and on other assumptions, so that a
detector tuned on one world is judged on another. What differs:

* **The bill's day is the day it posts.** A card subscription posts on its billing day, every
  month, weekends included; the card network's ``authorized_date`` comes up to two days
  *before* it (batch billing runs, time zones: 60 % on the day, 30 % one day before, 10 % two),
  and a household's bank may not report it at all. World A does the reverse (charged on the
  day, posted one to three days later). The next date a detector should give is the next
  charge's posting day.
* **Rent is paid late.** Rent is due on the 1st (or the 3rd, the 5th) and leaves by ACH up to
  two days late (60 % on time, 25 % one day, 15 % two), then on the next Fed business day.
* **Two-charge windows.** A third of subscriptions and some bills began recently, and households
  are seen on three days with 60, 90 or 180 days of history, so many bills show twice.
* **Card autopay is a bill**: monthly from checking on the autopay day (next business day),
  the statement balance (its amount varies widely) or a fixed minimum.
* **Everyday merchants that look regular**: coffee most weekdays at two or three drink prices,
  a café every Saturday at varying amounts, a weekly grocery shop, fuel every week or so,
  parking at a fixed fare most weekdays, a haircut every four to six weeks at a fixed price,
  lunch spots. None is a bill.
* Price changes, cancellations (the cancelled bill is not expected once its next charge is more
  than its grace overdue), retried card charges, annual renewals (one charge in most windows),
  weekly meal kits and a biweekly cleaner (recurring but not monthly or quarterly bills),
  own-account transfers, P2P, cash, payroll, refunds and one-off purchases.
* Noise: statement lines with bank-specific prefixes and reference numbers, Plaid's
  ``merchant_name`` for about two thirds of payees (some lines only for a few), personal finance
  categories missing or wrong for one in ten, never a legacy ``category``.

The truth (:func:`expectations`): a **monthly or quarterly** bill (card autopay included) is
expected at ``as_of`` when at least two of its charges posted in the window and it charges
again after ``as_of``; a cancelled one is *inactive* (reporting it is wrong) once ``as_of`` is
more than its period plus grace after its last charge. Weekly and biweekly streams are in the
truth as ``other`` frequencies: a benchmark decides how to count them.
"""

from __future__ import annotations

import calendar
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from ops.synthetic.fedcal import is_open
from ops.synthetic.spending_catalog import primary_of

MONTHLY, QUARTERLY, WEEKLY, BIWEEKLY, ANNUALLY = "MONTHLY", "QUARTERLY", "WEEKLY", "BIWEEKLY", "ANNUALLY"
CARD_PAYMENT = "card_payment"
EXPECTED, INACTIVE, UNSCORED = "expected", "inactive", "unscored"

#: Days after a cancelled bill's last charge past which it is visibly gone: a period and a grace.
PERIOD_DAYS = {WEEKLY: 7, BIWEEKLY: 14, MONTHLY: 31, QUARTERLY: 92, ANNUALLY: 366}
GRACE_DAYS = {WEEKLY: 4, BIWEEKLY: 4, MONTHLY: 7, QUARTERLY: 14, ANNUALLY: 30}
#: Charges a stream needs in the window to be expected (monthly and quarterly bills: two).
MIN_VISIBLE = {WEEKLY: 3, BIWEEKLY: 3, MONTHLY: 2, QUARTERLY: 2, ANNUALLY: 2}
FIRST_AS_OF = (date(2025, 3, 1), date(2027, 12, 31))

Amount = Callable[[date], int]
#: Turns a due day and an amount into a posted row: its id and its posting day.
Post = Callable[[date, int, str], tuple[str, date]]


@dataclass(frozen=True, slots=True)
class Posting:
    """One charge of a bill: ``due`` is the billing day, ``posted`` the transaction's date."""

    txn_id: str
    due: date
    posted: date
    amount: int
    #: Posted on the due day, or the first business day from it (not paid late, not retried).
    on_schedule: bool


@dataclass
class Bill:
    bill_id: str
    payee: str
    frequency: str
    what: str  # "rent", "subscription", "utility", "card_payment", "meal kit", ...
    postings: list[Posting] = field(default_factory=list)
    cancelled: bool = False

    def next_after(self, day: date) -> Posting | None:
        return next((p for p in self.postings if p.posted > day), None)


@dataclass(frozen=True, slots=True)
class Expectation:
    bill: Bill
    status: str
    visible_ids: frozenset[str]
    next_posting: Posting | None


@dataclass
class Household:
    user_id: str
    as_of_days: tuple[date, ...]
    transactions: list[dict[str, Any]]
    bills: list[Bill]
    labels: dict[str, str]

    def window(self, as_of: date, history_days: int) -> list[dict[str, Any]]:
        """The last ``history_days`` days up to ``as_of`` and everything after (a detector must
        ignore what is after ``as_of`` itself)."""
        first = (as_of - timedelta(days=history_days - 1)).isoformat()
        return [t for t in self.transactions if t["date"] >= first]


def expectations(household: Household, as_of: date, history_days: int) -> list[Expectation]:
    """What a detector should report at ``as_of`` with ``history_days`` of history (module docstring)."""
    first = as_of - timedelta(days=history_days - 1)
    out = []
    for bill in household.bills:
        seen = [p for p in bill.postings if first <= p.posted <= as_of]
        upcoming = bill.next_after(as_of)
        status = UNSCORED
        if upcoming is not None and len(seen) >= MIN_VISIBLE[bill.frequency]:
            status = EXPECTED
        elif upcoming is None and bill.cancelled and seen:
            last = max(p.posted for p in bill.postings if p.posted <= as_of)
            if (as_of - last).days > PERIOD_DAYS[bill.frequency] + GRACE_DAYS[bill.frequency]:
                status = INACTIVE
        out.append(Expectation(bill, status, frozenset(p.txn_id for p in seen), upcoming))
    return out


def households(seed: int, count: int, *, debits_roll: bool = True) -> Iterator[Household]:
    """``count`` households drawn from ``seed``; the same arguments give the same households.
    ``debits_roll=False``: their banks post a debit on its due day, weekends and holidays
    included (as some ledgers date them), instead of the next business day."""
    master = random.Random(f"households-{seed}")  # noqa: S311 - reproducible synthetic data
    for n in range(count):
        yield _Household(random.Random(master.random()), f"b{seed}h{n:04d}", debits_roll).draw()  # noqa: S311


# ----------------------------------------------------------------------------- the catalogue

#: (name, Plaid merchant name, card line, personal finance category, prices in cents)
_SUBSCRIPTIONS = (
    ("Netflix", "Netflix", "NETFLIX.COM", "ENTERTAINMENT_TV_AND_MOVIES", (775, 1549, 2299)),
    ("Spotify", "Spotify", "SPOTIFY {ref}", "ENTERTAINMENT_MUSIC_AND_AUDIO", (1199, 1699)),
    ("Hulu", "Hulu", "HULU {ref} HULU.COM/BILL", "ENTERTAINMENT_TV_AND_MOVIES", (999, 1899)),
    ("Disney Plus", "Disney+", "DISNEY PLUS {ref}", "ENTERTAINMENT_TV_AND_MOVIES", (999, 1399)),
    ("Apple", "Apple", "APPLE.COM/BILL", "GENERAL_SERVICES_OTHER_GENERAL_SERVICES", (299, 999, 1099)),
    ("YouTube TV", "YouTube", "GOOGLE *YOUTUBE TV", "ENTERTAINMENT_TV_AND_MOVIES", (7299, 8299)),
    ("Audible", "Audible", "AUDIBLE {ref}", "ENTERTAINMENT_MUSIC_AND_AUDIO", (1495,)),
    (
        "NYTimes",
        "The New York Times",
        "NYTIMES {ref} NYTIMES.COM",
        "GENERAL_SERVICES_OTHER_GENERAL_SERVICES",
        (400, 1700),
    ),
    ("Adobe", "Adobe", "ADOBE {ref} SAN JOSE", "GENERAL_SERVICES_OTHER_GENERAL_SERVICES", (2099, 5499)),
    ("Peloton", "Peloton", "PELOTON* MEMBERSHIP", "PERSONAL_CARE_GYMS_AND_FITNESS_CENTERS", (1299, 4400)),
    ("Nintendo", "Nintendo", "NINTENDO CA{ref}", "ENTERTAINMENT_VIDEO_GAMES", (399, 799)),
    ("Canva", "Canva", "CANVA* {ref}", "GENERAL_SERVICES_OTHER_GENERAL_SERVICES", (1499,)),
    ("Grammarly", "Grammarly", "GRAMMARLY COACHING", "GENERAL_SERVICES_OTHER_GENERAL_SERVICES", (1200, 3000)),
    ("Sling", "Sling TV", "SLING.COM {ref}", "ENTERTAINMENT_TV_AND_MOVIES", (4000, 6000)),
    ("Starz", None, "STARZ ENTERTAINMENT {ref}", "ENTERTAINMENT_TV_AND_MOVIES", (999,)),
    ("Noom", "Noom", "NOOM INC {ref}", "PERSONAL_CARE_OTHER_PERSONAL_CARE", (7000, 5900)),
    ("Walmart+", "Walmart", "WMT PLUS {ref}", "GENERAL_MERCHANDISE_SUPERSTORES", (1295,)),
    ("Ring", "Ring", "RING PROTECT BASIC PLAN", "GENERAL_SERVICES_SECURITY", (499, 1000)),
    ("Bumble", "Bumble", "BUMBLE {ref} BUMBLE.COM", "ENTERTAINMENT_OTHER_ENTERTAINMENT", (2499,)),
    ("iHeart", None, "IHEARTRADIO ALL ACCESS", "ENTERTAINMENT_MUSIC_AND_AUDIO", (1299,)),
)
_PHONES = (
    ("T-Mobile", "T-Mobile", "T-MOBILE PCS SVC {ref}", "TMOBILE AUTO PAY {ref}"),
    ("AT&T", "AT&T", "ATT* BILL PAYMENT {ref}", "ATT PAYMENT {ref} WEB"),
    ("Cricket", "Cricket Wireless", "CRICKET WIRELESS {ref}", "CRICKET WRLS AUTOPAY {ref}"),
    ("Mint Mobile", "Mint Mobile", "MINT MOBILE {ref}", "MINT MOBILE PMT {ref}"),
)
_INTERNET = (
    ("Cox", "Cox Communications", "COX COMM {ref}", "COX COMMUNICATIONS AUTOPAY {ref}"),
    ("Optimum", "Optimum", "OPTIMUM {ref}", "OPTIMUM ONLINE PMT {ref}"),
    ("Frontier", "Frontier", "FRONTIER COMM {ref}", "FRONTIER AUTOPAY {ref}"),
    ("Starlink", "Starlink", "STARLINK INTERNET {ref}", "STARLINK {ref}"),
)
_GYMS = (
    ("LA Fitness", "LA Fitness", "LA FITNESS {ref}", "LA FITNESS DUES {ref}"),
    ("Anytime Fitness", "Anytime Fitness", "ANYTIME FITNESS {ref}", "ANYTIME FITNESS CLUB DUES"),
    ("YMCA", None, "YMCA OF THE {city} {ref}", "YMCA MEMBERSHIP DRAFT {ref}"),
)
_INSURERS = (
    ("Geico", "GEICO", "GEICO *AUTO {ref}", "GEICO PAYMENT {ref} PPD"),
    ("Progressive", "Progressive", "PROGRESSIVE *INS {ref}", "PROGRESSIVE INS PREM {ref}"),
    ("State Farm", "State Farm", "STATE FARM INSURANCE {ref}", "STATE FARM RO 27 SFPP {ref}"),
    ("Allstate", "Allstate", "ALLSTATE {ref}", "ALLSTATE INS CO PREM {ref}"),
)
_LANDLORDS = (
    ("Parkside Residences", "PARKSIDE RESIDENCE WEB PMT {ref}"),
    ("Lincoln Property", "LINCOLN PROP MGMT ONLINE PMT {ref}"),
    ("Oak Hill Apartments", "OAK HILL APTS RENT {ref}"),
    ("Bozzuto", "BOZZUTO MGMT RENTPAY {ref}"),
)
_LENDERS = (
    ("Toyota Financial", "TOYOTA FINANCIAL SVCS", "TOYOTA FINANCIAL PMT {ref}", "LOAN_PAYMENTS_CAR_PAYMENT"),
    ("Ally Auto", "Ally", "ALLY AUTO PAYMENT {ref}", "LOAN_PAYMENTS_CAR_PAYMENT"),
    ("Nelnet", "Nelnet", "NELNET STUDENT LN {ref}", "LOAN_PAYMENTS_STUDENT_LOAN_PAYMENT"),
    ("Aidvantage", None, "AIDVANTAGE DEPT ED {ref}", "LOAN_PAYMENTS_STUDENT_LOAN_PAYMENT"),
)
_POWER = (
    ("Xcel Energy", "Xcel Energy", "XCEL ENERGY-NSP {ref}"),
    ("Dominion Energy", "Dominion Energy", "DOMINION ENERGY {ref}"),
    ("Entergy", None, "ENTERGY ARKANSAS {ref}"),
)
_ISSUERS = (
    ("Capital One", "CAPITAL ONE MOBILE PMT {ref}"),
    ("Chase", "CHASE CREDIT CRD AUTOPAY {ref}"),
    ("Wells Fargo", "WF CREDIT CARD AUTO PAY {ref}"),
    ("Bank of America", "BK OF AMER VISA ONLINE PMT {ref}"),
    ("Synchrony", "SYNCHRONY BANK PAYMENT {ref}"),
)
_COFFEE = (("Starbucks", "Starbucks", "STARBUCKS STORE {store}"), ("Dunkin'", "Dunkin'", "DUNKIN #{store}"))
_CAFES = (("Blue Door Cafe", None, "BLUE DOOR CAFE"), ("Sweet Pea Bakery", None, "SQ *SWEET PEA BAKERY"))
_GROCERS = (
    ("Kroger", "Kroger", "KROGER #{store}"),
    ("Safeway", "Safeway", "SAFEWAY {store}"),
    ("Aldi", "Aldi", "ALDI {store}"),
    ("Publix", "Publix", "PUBLIX #{store}"),
)
_FUEL = (
    ("Shell", "Shell", "SHELL OIL {store}"),
    ("Chevron", "Chevron", "CHEVRON {store}"),
    ("QT", "QuikTrip", "QT {store}"),
)
_LUNCH = (
    ("Chipotle", "Chipotle Mexican Grill", "CHIPOTLE {store}"),
    ("Panera", "Panera Bread", "PANERA BREAD #{store}"),
)
_SHOPS = (
    ("Amazon", "Amazon", "AMAZON MKTPL*{ref}", "GENERAL_MERCHANDISE_ONLINE_MARKETPLACES"),
    ("Target", "Target", "TARGET T-{store}", "GENERAL_MERCHANDISE_SUPERSTORES"),
    ("CVS", "CVS Pharmacy", "CVS/PHARMACY #{store}", "MEDICAL_PHARMACIES_AND_SUPPLEMENTS"),
    ("Home Depot", "The Home Depot", "THE HOME DEPOT #{store}", "HOME_IMPROVEMENT_HARDWARE"),
    ("Olive Garden", "Olive Garden", "OLIVE GARDEN {store}", "FOOD_AND_DRINK_RESTAURANT"),
    ("Best Buy", "Best Buy", "BEST BUY {store}", "GENERAL_MERCHANDISE_ELECTRONICS"),
    ("Kindle", "Amazon Kindle", "KINDLE SVCS*{ref}", "ENTERTAINMENT_OTHER_ENTERTAINMENT"),
    ("Uber Eats", "Uber Eats", "UBER *EATS {ref}", "FOOD_AND_DRINK_RESTAURANT"),
)
_CITIES = ("DENVER", "TAMPA", "OMAHA", "RALEIGH", "BOISE", "AKRON")
_WRONG_PFC = "GENERAL_MERCHANDISE_OTHER_GENERAL_MERCHANDISE"
_CARD_PREFIXES = ("", "", "POS DEBIT ", "VISA PURCHASE ", "DBT CRD {mmdd} ")
_ACH_PREFIXES = ("", "ACH PMT ", "ACH WITHDRAWAL ")


# ----------------------------------------------------------------------------- the calendar


def _bank_day_on_or_after(day: date) -> date:
    while not is_open(day):
        day += timedelta(days=1)
    return day


def _month_day(year: int, month: int, day: int) -> date:
    return date(year, month, min(day, calendar.monthrange(year, month)[1]))


def _months_from(start: date, day: int, step: int) -> Iterator[date]:
    """``day`` of every ``step``-th month from ``start``'s month on (a short month's last day)."""
    year, month = start.year, start.month
    while True:
        due = _month_day(year, month, day)
        if due >= start:
            yield due
        month += step
        year, month = year + (month - 1) // 12, (month - 1) % 12 + 1


def _constant(cents: int) -> Amount:
    return lambda _due: cents


def _pick(rng: random.Random, weights: dict[int, float]) -> int:
    return rng.choices(list(weights), list(weights.values()))[0]


# ----------------------------------------------------------------------------- one household


class _Household:
    """Draws one household; every choice from ``rng``, in a fixed order."""

    def __init__(self, rng: random.Random, user_id: str, debits_roll: bool = True) -> None:
        self.rng = rng
        self.user_id = user_id
        self.debits_roll = debits_roll
        first = FIRST_AS_OF[0] + timedelta(days=rng.randint(0, (FIRST_AS_OF[1] - FIRST_AS_OF[0]).days))
        second = first + timedelta(days=rng.randint(25, 45))
        third = second + timedelta(days=rng.randint(25, 45))
        self.as_of_days = (first, second, third)
        self.bills_from = first - timedelta(days=420)
        self.until = third + timedelta(days=120)
        self.daily = (first - timedelta(days=185), third + timedelta(days=3))
        self.checking = f"{user_id}-dda"
        self.card = f"{user_id}-visa" if rng.random() < 0.6 else None
        self.savings = f"{user_id}-sav" if rng.random() < 0.5 else None
        self.reports_authorization = rng.random() < 0.9
        self.card_prefix = rng.choice(_CARD_PREFIXES)
        self.ach_prefix = rng.choice(_ACH_PREFIXES)
        self.city = rng.choice(_CITIES)
        self.rows: list[dict[str, Any]] = []
        self.bills: list[Bill] = []
        self.labels: dict[str, str] = {}
        self.coverage: dict[str, str] = {}

    def draw(self) -> Household:
        self._housing()
        self._subscriptions()
        self._services()
        self._utilities_and_loans()
        self._card_autopay()
        self._not_monthly()
        self._everyday()
        self._money()
        rows = self.rows
        self.rng.shuffle(rows)
        return Household(self.user_id, self.as_of_days, rows, self.bills, self.labels)

    # -- rows

    def _row(
        self,
        account: str,
        posted: date,
        cents: int,
        line: str,
        merchant: str | None,
        pfc: str | None,
        label: str,
        *,
        authorized: date | None = None,
        card: bool = False,
    ) -> str:
        rng = self.rng
        txn_id = f"{self.user_id}-{len(self.rows):05d}"
        values = {"ref": f"{rng.randint(10**6, 10**9 - 1)}", "store": f"{rng.randint(100, 9999)}", "city": self.city}
        values["mmdd"] = f"{posted.month:02d}{posted.day:02d}"
        name = line.format(**values)
        if account == self.checking:
            name = (self.card_prefix if card else self.ach_prefix).format(**values) + name
        if merchant is not None:
            coverage = self.coverage.setdefault(merchant, rng.choices(("all", "some", "none"), (65, 10, 25))[0])
            if coverage == "none" or (coverage == "some" and rng.random() < 0.5):
                merchant = None
        noise = rng.random()
        if noise < 0.05:
            pfc = None
        elif noise < 0.1 and pfc is not None and not pfc.startswith("TRANSFER_IN"):
            pfc = _WRONG_PFC
        self.rows.append(
            {
                "txn_id": txn_id,
                "account_id": account,
                "amount": cents,
                "iso_currency_code": "USD",
                "date": posted.isoformat(),
                "authorized_date": authorized.isoformat() if authorized and self.reports_authorization else None,
                "name": name,
                "merchant_name": merchant,
                "personal_finance_category": {"primary": primary_of(pfc), "detailed": pfc} if pfc else None,
                "category": None,
                "pending": False,
            }
        )
        self.labels[txn_id] = label
        return txn_id

    # -- bill lifetimes

    def _lifetime(self, *, recent: float, cancel: float) -> tuple[date, date | None]:
        """When a bill begins (long ago, or recently: a two-charge window) and when it is cancelled."""
        rng, (first, _, third) = self.rng, self.as_of_days
        begins = self.bills_from
        if rng.random() < recent:
            begins = first - timedelta(days=rng.randint(0, 110)) + timedelta(days=rng.randint(0, (third - first).days))
        ends = None
        if rng.random() < cancel:
            ends = first - timedelta(days=150) + timedelta(days=rng.randint(0, (third - first).days + 170))
            ends = max(ends, begins + timedelta(days=40))
        return begins, ends

    def _price(self, base: int, *, change: float) -> tuple[int, date | None, int]:
        """A price, and maybe a day it changes (a rise; now and then a cheaper plan) and the new one."""
        rng = self.rng
        if rng.random() >= change:
            return base, None, base
        when = self.as_of_days[0] - timedelta(days=rng.randint(-80, 150))
        new = base + rng.choice((100, 200, 300)) if rng.random() < 0.8 else max(199, base - rng.choice((200, 500)))
        return base, when, new

    def _bill(
        self,
        payee: str,
        frequency: str,
        what: str,
        dues: Iterator[date],
        amount: Amount,
        post: Post,
        *,
        ends: date | None,
    ) -> None:
        """A bill: each due day becomes a posting (``post(due, cents)`` makes its row); stops at ``ends``."""
        bill = Bill(f"{self.user_id}/{len(self.bills)}", payee, frequency, what, cancelled=ends is not None)
        for due in dues:
            if due > self.until or (ends is not None and due >= ends):
                break
            cents = amount(due)
            txn_id, posted = post(due, cents, bill.bill_id)
            on_schedule = posted in {due, self._debit_day(due)}
            bill.postings.append(Posting(txn_id, due, posted, cents, on_schedule))
        self.bills.append(bill)

    def _card_post(self, line: str, merchant: str | None, pfc: str | None) -> Post:
        """Card billing: posts on the due day; authorized up to two days before; 3 % retried later."""
        account = self.card if self.card and self.rng.random() < 0.7 else self.checking

        def post(due: date, cents: int, label: str) -> tuple[str, date]:
            rng = self.rng
            posted = due + timedelta(days=rng.randint(2, 4)) if rng.random() < 0.03 else due
            authorized = posted - timedelta(days=_pick(rng, {0: 0.6, 1: 0.3, 2: 0.1}))
            return self._row(
                account, posted, cents, line, merchant, pfc, label, authorized=authorized, card=True
            ), posted

        return post

    def _ach_post(
        self, line: str, merchant: str | None, pfc: str | None, *, late: dict[int, float] | None = None
    ) -> Post:
        """ACH debit from checking: the due day (maybe paid late), on the next business day."""

        def post(due: date, cents: int, label: str) -> tuple[str, date]:
            delay = _pick(self.rng, late) if late else 0
            posted = self._debit_day(due + timedelta(days=delay))
            return self._row(self.checking, posted, cents, line, merchant, pfc, label), posted

        return post

    def _debit_day(self, day: date) -> date:
        """The day a debit due on ``day`` posts: the next business day, or the day itself."""
        return _bank_day_on_or_after(day) if self.debits_roll else day

    def _fixed(self, base: int, *, change: float) -> Amount:
        old, when, new = self._price(base, change=change)
        return lambda due: old if when is None or due < when else new

    # -- the bills

    def _housing(self) -> None:
        rng = self.rng
        roll = rng.random()
        if roll < 0.55:
            name, line = rng.choice(_LANDLORDS)
            rent = rng.randint(80, 320) * 1000 + rng.choice((0, 0, 500, 2500))
            due_day = rng.choice((1, 1, 1, 1, 3, 5))
            begins, ends = self._lifetime(recent=0.15, cancel=0.05)
            late = {0: 0.6, 1: 0.25, 2: 0.15}
            post = self._ach_post(line, None, "RENT_AND_UTILITIES_RENT", late=late)
            self._bill(
                name, MONTHLY, "rent", _months_from(begins, due_day, 1), self._fixed(rent, change=0.2), post, ends=ends
            )
        elif roll < 0.8:
            payment = rng.randint(900, 3800) * 100 + rng.randint(0, 99)
            begins, _ = self._lifetime(recent=0.05, cancel=0.0)
            post = self._ach_post("MORTGAGE SERV CTR PMT {ref}", None, "LOAN_PAYMENTS_MORTGAGE_PAYMENT")
            self._bill(
                "Mortgage",
                MONTHLY,
                "mortgage",
                _months_from(begins, rng.choice((1, 15)), 1),
                _constant(payment),
                post,
                ends=None,
            )

    def _subscriptions(self) -> None:
        rng = self.rng
        count = _pick(rng, {0: 0.1, 1: 0.2, 2: 0.25, 3: 0.2, 4: 0.15, 5: 0.1})
        for name, merchant, line, pfc, prices in rng.sample(_SUBSCRIPTIONS, count):
            begins, ends = self._lifetime(recent=0.3, cancel=0.15)
            day = begins.day if begins.day <= 28 or rng.random() < 0.5 else 31
            amount = self._fixed(rng.choice(prices), change=0.2)
            post = self._card_post(line, merchant, pfc)
            self._bill(name, MONTHLY, "subscription", _months_from(begins, day, 1), amount, post, ends=ends)

    def _card_or_ach(
        self, name: str, merchant: str | None, lines: tuple[str, str], pfc: str, card_share: float
    ) -> Post:
        if self.rng.random() < card_share:
            return self._card_post(lines[0], merchant, pfc)
        return self._ach_post(lines[1], merchant, pfc)

    def _services(self) -> None:
        rng = self.rng
        for what, catalogue, share, pfc, price in (
            ("phone", _PHONES, 0.85, "RENT_AND_UTILITIES_TELEPHONE", (3000, 14000)),
            ("internet", _INTERNET, 0.7, "RENT_AND_UTILITIES_INTERNET_AND_CABLE", (4500, 12000)),
            ("gym", _GYMS, 0.3, "PERSONAL_CARE_GYMS_AND_FITNESS_CENTERS", (1000, 6000)),
        ):
            if rng.random() < share:
                name, merchant, card_line, ach_line = rng.choice(catalogue)
                begins, ends = self._lifetime(recent=0.12, cancel=0.06)
                amount = self._fixed(rng.randint(*price) // 100 * 100 + rng.choice((0, 0, 99, 47, 83)), change=0.15)
                post = self._card_or_ach(name, merchant, (card_line, ach_line), pfc, 0.5)
                self._bill(name, MONTHLY, what, _months_from(begins, rng.randint(1, 28), 1), amount, post, ends=ends)
        insurance = rng.random()
        if insurance < 0.6:
            name, merchant, card_line, ach_line = rng.choice(_INSURERS)
            quarterly = insurance < 0.12
            premium = rng.randint(60, 250) * 100 * (3 if quarterly else 1) + rng.randint(0, 99)
            begins, ends = self._lifetime(recent=0.08, cancel=0.05)
            post = self._card_or_ach(name, merchant, (card_line, ach_line), "GENERAL_SERVICES_INSURANCE", 0.4)
            step, frequency = (3, QUARTERLY) if quarterly else (1, MONTHLY)
            dues = _months_from(begins, rng.randint(1, 28), step)
            self._bill(name, frequency, "insurance", dues, self._fixed(premium, change=0.2), post, ends=ends)
        if rng.random() < 0.1:
            begins, ends = self._lifetime(recent=0.05, cancel=0.05)
            visit = rng.choice((8900, 12900, 14900))
            post = self._card_post("BUGOUT PEST CONTROL {ref}", None, "GENERAL_SERVICES_OTHER_GENERAL_SERVICES")
            dues = _months_from(begins, rng.randint(1, 28), 3)
            self._bill("Bugout Pest Control", QUARTERLY, "pest control", dues, _constant(visit), post, ends=ends)
        if rng.random() < 0.1:
            begins, _ = self._lifetime(recent=0.0, cancel=0.0)
            dues_amount = rng.randint(150, 900) * 100
            post = self._ach_post("WILLOW CREEK HOA DUES {ref}", None, "GENERAL_SERVICES_OTHER_GENERAL_SERVICES")
            self._bill(
                "Willow Creek HOA",
                QUARTERLY,
                "hoa",
                _months_from(begins, 1, 3),
                _constant(dues_amount),
                post,
                ends=None,
            )

    def _utilities_and_loans(self) -> None:
        rng = self.rng
        if rng.random() < 0.6:
            name, merchant, line = rng.choice(_POWER)
            base = rng.randint(60, 220) * 100
            begins, ends = self._lifetime(recent=0.08, cancel=0.03)
            spread = rng.uniform(0.1, 0.3)
            post = self._ach_post(line, merchant, "RENT_AND_UTILITIES_GAS_AND_ELECTRICITY")
            amount = self._varying(base, spread)
            self._bill(name, MONTHLY, "utility", _months_from(begins, rng.randint(1, 28), 1), amount, post, ends=ends)
        if rng.random() < 0.2:
            base = rng.randint(120, 320) * 100
            begins, ends = self._lifetime(recent=0.0, cancel=0.02)
            post = self._ach_post("CITY WATER SEWER UTIL {ref}", None, "RENT_AND_UTILITIES_WATER")
            dues = _months_from(begins, rng.randint(1, 28), 3)
            self._bill("City Water", QUARTERLY, "water", dues, self._varying(base, 0.15), post, ends=ends)
        for share in (0.3, 0.2):
            if rng.random() < share:
                name, merchant, line, pfc = rng.choice(_LENDERS)
                payment = rng.randint(150, 700) * 100 + rng.randint(0, 99)
                begins, ends = self._lifetime(recent=0.06, cancel=0.06)
                post = self._ach_post(line, merchant, pfc)
                self._bill(
                    name,
                    MONTHLY,
                    "loan",
                    _months_from(begins, rng.randint(1, 28), 1),
                    _constant(payment),
                    post,
                    ends=ends,
                )

    def _varying(self, base: int, spread: float) -> Amount:
        rng = self.rng
        drawn: dict[date, int] = {}

        def amount(due: date) -> int:
            return drawn.setdefault(due, max(1000, int(base * rng.uniform(1 - spread, 1 + spread))))

        return amount

    def _card_autopay(self) -> None:
        """The card's autopay from checking; the linked card shows the payment coming in."""
        rng = self.rng
        if not ((self.card and rng.random() < 0.95) or (not self.card and rng.random() < 0.25)):
            return
        issuer, line = rng.choice(_ISSUERS)
        minimum = rng.randint(35, 150) * 100 if rng.random() < 0.2 else None
        drawn: dict[date, int] = {}

        def amount(due: date) -> int:
            balance = int(60000 * rng.lognormvariate(0, 0.8))
            return drawn.setdefault(due, minimum or max(2500, min(500000, balance)))

        def post(due: date, cents: int, label: str) -> tuple[str, date]:
            posted = self._debit_day(due)
            txn_id = self._row(self.checking, posted, cents, line, None, "LOAN_PAYMENTS_CREDIT_CARD_PAYMENT", label)
            if self.card:
                self._row(
                    self.card,
                    posted,
                    -cents,
                    "AUTOPAY PAYMENT - THANK YOU",
                    None,
                    "TRANSFER_IN_ACCOUNT_TRANSFER",
                    label,
                )
            return txn_id, posted

        begins, _ = self._lifetime(recent=0.05, cancel=0.0)
        self._bill(issuer, MONTHLY, CARD_PAYMENT, _months_from(begins, rng.randint(1, 28), 1), amount, post, ends=None)

    def _not_monthly(self) -> None:
        """Recurring, but not a monthly or quarterly bill: meal kits, a cleaner, annual renewals."""
        rng = self.rng
        if rng.random() < 0.06:
            begins, ends = self._lifetime(recent=0.2, cancel=0.15)
            price = rng.choice((5999, 7499, 8999))
            weekday_start = begins + timedelta(days=rng.randint(0, 6))
            post = self._card_post("HOME CHEF MEALS {ref}", "Home Chef", "FOOD_AND_DRINK_GROCERIES")
            dues = (weekday_start + timedelta(days=7 * k) for k in range(400))
            self._bill("Home Chef", WEEKLY, "meal kit", dues, _constant(price), post, ends=ends)
        if rng.random() < 0.05:
            begins, ends = self._lifetime(recent=0.1, cancel=0.1)
            fee = rng.choice((12000, 15000, 18000))
            post = self._ach_post("ZELLE TO ROSA CLEANING {ref}", None, "GENERAL_SERVICES_OTHER_GENERAL_SERVICES")
            dues = (begins + timedelta(days=14 * k) for k in range(200))
            self._bill("Rosa Cleaning", BIWEEKLY, "cleaner", dues, _constant(fee), post, ends=ends)
        if rng.random() < 0.3:
            name, merchant, line, pfc, prices = rng.choice(_SUBSCRIPTIONS)
            begins, ends = self._lifetime(recent=0.0, cancel=0.1)
            begins += timedelta(days=rng.randint(0, 364))
            post = self._card_post(line.replace("{ref}", "ANNUAL {ref}"), merchant, pfc)
            price = prices[0] * 10
            self._bill(
                f"{name} annual",
                ANNUALLY,
                "annual renewal",
                _months_from(begins, begins.day, 12),
                _constant(price),
                post,
                ends=ends,
            )

    # -- not bills

    def _days(self) -> Iterator[date]:
        day = self.daily[0]
        while day <= self.daily[1]:
            yield day
            day += timedelta(days=1)

    def _spend(self, day: date, cents: int, line: str, merchant: str | None, pfc: str, label: str) -> None:
        """A card purchase: authorized on the day, posted up to three days later."""
        rng = self.rng
        account = self.card if self.card and rng.random() < 0.6 else self.checking
        posted = day + timedelta(days=_pick(rng, {0: 0.3, 1: 0.4, 2: 0.2, 3: 0.1}))
        self._row(account, posted, max(100, cents), line, merchant, pfc, label, authorized=day, card=True)

    def _everyday(self) -> None:
        rng = self.rng
        coffee = rng.choice(_COFFEE) if rng.random() < 0.65 else None
        drinks = [rng.choice((325, 475, 545, 595, 645)) for _ in range(rng.randint(2, 3))]
        coffee_rate = rng.uniform(0.3, 0.8)
        cafe = rng.choice(_CAFES) if rng.random() < 0.15 else None
        grocer = rng.choice(_GROCERS) if rng.random() < 0.95 else None
        shop_day, basket = rng.randrange(7), rng.randint(50, 180) * 100
        fuel = rng.choice(_FUEL) if rng.random() < 0.7 else None
        next_fuel = self.daily[0] + timedelta(days=rng.randint(0, 8))
        lunch = rng.choice(_LUNCH) if rng.random() < 0.4 else None
        parking = rng.random() < 0.15
        fare = rng.choice((600, 1200, 1500))
        haircut = rng.random() < 0.35
        cut_price, next_cut = rng.choice((2500, 3000, 4500)), self.daily[0] + timedelta(days=rng.randint(0, 40))
        shops = rng.sample(_SHOPS, 4)
        for day in self._days():
            weekday = day.weekday()
            if coffee and rng.random() < (coffee_rate if weekday < 5 else 0.1):
                self._spend(day, rng.choice(drinks), coffee[2], coffee[1], "FOOD_AND_DRINK_COFFEE", "everyday:coffee")
            if cafe and weekday == 5 and rng.random() < 0.9:
                cents = rng.randint(525, 1480)
                self._spend(day, cents, cafe[2], cafe[1], "FOOD_AND_DRINK_COFFEE", "everyday:cafe")
            if grocer and ((weekday == shop_day and rng.random() < 0.85) or rng.random() < 0.04):
                cents = int(basket * rng.lognormvariate(0, 0.3)) if weekday == shop_day else rng.randint(800, 4000)
                self._spend(day, cents, grocer[2], grocer[1], "FOOD_AND_DRINK_GROCERIES", "everyday:groceries")
            if fuel and day >= next_fuel:
                self._spend(day, rng.randint(2800, 7200), fuel[2], fuel[1], "TRANSPORTATION_GAS", "everyday:fuel")
                next_fuel = day + timedelta(days=rng.randint(5, 12))
            if lunch and weekday < 5 and rng.random() < 0.25:
                cents = int(1300 * rng.lognormvariate(0, 0.2))
                self._spend(day, cents, lunch[2], lunch[1], "FOOD_AND_DRINK_FAST_FOOD", "everyday:lunch")
            if parking and weekday < 5 and rng.random() < 0.8:
                self._spend(day, fare, "PARKMOBILE {ref}", "ParkMobile", "TRANSPORTATION_PARKING", "everyday:parking")
            if haircut and day >= next_cut:
                tip = 0 if rng.random() < 0.6 else rng.choice((500, 800))
                self._spend(
                    day,
                    cut_price + tip,
                    "SUPERCUTS {store}",
                    "Supercuts",
                    "PERSONAL_CARE_HAIR_AND_BEAUTY",
                    "everyday:haircut",
                )
                next_cut = day + timedelta(days=rng.randint(28, 42))
            if rng.random() < 0.35:
                name, merchant, line, pfc = rng.choice(shops)
                cents = 999 if name == "Kindle" else int(3000 * rng.lognormvariate(0, 0.9))
                self._spend(day, cents, line, merchant, pfc, "one-off")
                if rng.random() < 0.04:
                    back = day + timedelta(days=rng.randint(4, 20))
                    self._row(self.card or self.checking, back, -cents, line, merchant, pfc, "refund", card=True)

    def _money(self) -> None:
        """Pay in; transfers to savings, P2P and cash out (none of them a bill)."""
        rng = self.rng
        pay = rng.randint(1400, 4200) * 100
        payday = self.daily[0] + timedelta(days=(4 - self.daily[0].weekday()) % 7)
        while payday <= self.daily[1]:
            posted = payday
            while not is_open(posted):
                posted -= timedelta(days=1)
            self._row(self.checking, posted, -pay, "ACME LOGISTICS PAYROLL {ref}", None, "INCOME_WAGES", "income")
            payday += timedelta(days=14)
        if self.savings or rng.random() < 0.3:
            amount, day_of_month = rng.choice((5000, 10000, 20000)), rng.randint(1, 28)
            for due in _months_from(self.daily[0], day_of_month, 1):
                if due > self.daily[1]:
                    break
                posted = self._debit_day(due)
                self._row(
                    self.checking,
                    posted,
                    amount,
                    "ONLINE TRANSFER TO SAV XXXX{ref}",
                    None,
                    "TRANSFER_OUT_SAVINGS",
                    "transfer",
                )
                if self.savings:
                    self._row(
                        self.savings,
                        posted,
                        -amount,
                        "ONLINE TRANSFER FROM DDA",
                        None,
                        "TRANSFER_IN_ACCOUNT_TRANSFER",
                        "transfer",
                    )
        for day in self._days():
            if rng.random() < 0.06:
                cents = rng.choice((2000, 2500, 4000, 6000)) if rng.random() < 0.5 else rng.randint(700, 12000)
                self._row(
                    self.checking, day, cents, "VENMO PAYMENT {ref}", "Venmo", "TRANSFER_OUT_ACCOUNT_TRANSFER", "p2p"
                )
            if rng.random() < 0.05:
                cash = rng.choice((4000, 6000, 10000))
                self._row(
                    self.checking, day, cash, "ATM WITHDRAWAL {store} {city}", None, "TRANSFER_OUT_WITHDRAWAL", "cash"
                )
