"""Seeded synthetic spenders whose recurring expenses are known exactly (the ground truth).

Each user has a checking account (and maybe a savings account and a credit card) and a
timeline of outflows and inflows in the API's transaction shape, built to be hard:

* recurring expenses (the truth): card subscriptions charged on the sign-up day whatever the
  weekday, ACH bills (rent, mortgage, utilities with seasonal amounts, loans, insurance,
  childcare) settling on the Federal Reserve calendar (usually the next business day, some
  billers the previous one), weekly and biweekly services, semi-monthly payments, quarterly
  and annual bills, credit-card autopay from checking; price increases and plan downgrades,
  promotions ending, cancellations, loans paid off, free trials that convert (or not), card
  posting lag, a few late retries;
* everyday spending that looks periodic but is not a bill: weekly groceries on a favourite
  day, coffee most weekdays at the same price, transit taps, fuel every so many days, lunch,
  fixed-price habits whose timing drifts (car wash, haircut, laundry);
* one-off purchases (some refunded), app-store purchases under a subscription's statement line,
  own-account transfers (to savings, to investment apps) with or without their counterpart in
  a linked account, cash withdrawals, P2P payments, payroll;
* noise: statement lines as different banks print them (card prefixes, ACH company ids,
  reference numbers, dates), Plaid's ``merchant_name`` present for some payees only, missing
  or wrong categories.

Debits settle on the Federal Reserve's published closings (:mod:`ops.synthetic.fedcal`), not
on the detector's computed calendar, so the two cannot share a mistake.

:func:`expectations` states, for one evaluation day and history length, which true streams a
detector is expected to report (see its docstring for the rules).
"""

from __future__ import annotations

import calendar
import math
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from ops.synthetic import spending_catalog as cat
from ops.synthetic.fedcal import business_days_before, roll_back, roll_forward
from ops.synthetic.spending_catalog import Payee, primary_of

WEEKLY, BIWEEKLY, SEMI_MONTHLY, MONTHLY, QUARTERLY, ANNUALLY = (
    "WEEKLY",
    "BIWEEKLY",
    "SEMI_MONTHLY",
    "MONTHLY",
    "QUARTERLY",
    "ANNUALLY",
)
#: A stream is expected once this many of its charges are visible: two for monthly, quarterly and
#: annual bills (Plaid reports a stream seen twice as ``EARLY_DETECTION``, and a new user's
#: rent is as much a bill as anyone's), three for the shorter cadences.
MIN_CHARGES = {WEEKLY: 3, BIWEEKLY: 3, SEMI_MONTHLY: 3, MONTHLY: 2, QUARTERLY: 2, ANNUALLY: 2}
#: A cancellation counts once the first missing charge is this many days overdue: before that
#: nobody looking at the account can tell a cancelled stream from a late one.
CANCEL_GRACE_DAYS = {WEEKLY: 4, BIWEEKLY: 5, SEMI_MONTHLY: 5, MONTHLY: 7, QUARTERLY: 15, ANNUALLY: 30}
#: Evaluation days fall in this range (holidays of several years are crossed).
FIRST_EVALUATION = (date(2025, 2, 1), date(2027, 6, 30))
#: A second evaluation of every user this many days after the first (rolling origin).
SECOND_EVALUATION_AFTER = 45

NEXT, PREV, NONE = "NEXT", "PREV", "NONE"
DETECTABLE, INACTIVE, UNSCORED = "detectable", "inactive", "unscored"


@dataclass(frozen=True, slots=True)
class Charge:
    """One charge of a true stream: ``day`` is when the payee charges (a card's authorization
    day, an ACH debit's settlement day), ``posted`` the transaction's ``date``, ``scheduled``
    the day the schedule says (``day`` differs when a card charge was retried or an ACH file
    ran late)."""

    txn_id: str
    day: date
    posted: date
    amount: int
    scheduled: date


@dataclass
class TrueStream:
    stream_id: str
    merchant: str
    frequency: str
    kind: str
    account_id: str
    charges: list[Charge] = field(default_factory=list)
    #: The first scheduled charge that did not happen (cancelled, paid off); None if it goes on.
    ended: date | None = None
    #: Every day the schedule charges on (rolled), skipped ones included, until it ends.
    scheduled: list[date] = field(default_factory=list)

    def scheduled_after(self, day: date) -> date | None:
        return next((d for d in self.scheduled if d > day), None)


@dataclass
class SpendingUser:
    user_id: str
    evaluation_days: tuple[date, ...]
    transactions: list[dict[str, Any]]
    streams: list[TrueStream]
    #: What made each transaction: a stream id, or "habit:…", "one-off", "transfer:…", ….
    labels: dict[str, str]

    def window(self, as_of: date, history_days: int) -> list[dict[str, Any]]:
        """What the service holds at ``as_of`` with ``history_days`` of retention, plus the
        days after ``as_of`` (the detector must ignore them itself)."""
        first = as_of - timedelta(days=history_days - 1)
        return [t for t in self.transactions if t["date"] >= first.isoformat()]


@dataclass(frozen=True, slots=True)
class Expectation:
    """One true stream as a detector should see it on one day."""

    stream: TrueStream
    status: str  # DETECTABLE, INACTIVE (cancelled and visibly so) or UNSCORED
    visible_ids: frozenset[str]
    next_charge: Charge | None  # the first charge after as_of


def expectations(user: SpendingUser, as_of: date, history_days: int) -> list[Expectation]:
    """The truth at ``as_of`` when the service holds ``history_days`` of transactions.

    * DETECTABLE: the stream still charges after ``as_of`` and at least ``MIN_CHARGES`` of its
      charges are visible (posted within the window). A detector should report it with the
      next charge day.
    * INACTIVE: the stream stopped and its first missing charge is more than
      ``CANCEL_GRACE_DAYS`` overdue. Reporting it as upcoming is an error.
    * UNSCORED: everything else — too few charges visible yet (new, or an annual bill the
      window cannot show twice), or a stop not yet observable. Neither reporting nor omitting
      it counts.
    """
    first = as_of - timedelta(days=history_days - 1)
    out: list[Expectation] = []
    for stream in user.streams:
        visible = frozenset(c.txn_id for c in stream.charges if first <= c.posted <= as_of)
        upcoming = next((c for c in stream.charges if c.day > as_of), None)
        if stream.ended is not None and stream.ended <= as_of - timedelta(days=CANCEL_GRACE_DAYS[stream.frequency]):
            status = INACTIVE if visible else UNSCORED
        elif upcoming is not None and len(visible) >= MIN_CHARGES[stream.frequency]:
            status = DETECTABLE
        else:
            status = UNSCORED
        out.append(Expectation(stream, status, visible, upcoming))
    return out


def generate(seed: int, count: int) -> Iterator[SpendingUser]:
    """``count`` users drawn from ``seed``; the same arguments give the same users."""
    rng = random.Random(seed)  # noqa: S311 - reproducible synthetic data is the point
    for n in range(count):
        user_rng = random.Random(rng.getrandbits(64))  # noqa: S311
        yield _UserBuilder(user_rng, f"s{seed}u{n:04d}").build()


# --------------------------------------------------------------------------------------- dates


def roll(day: date, rule: str) -> date:
    if rule == NEXT:
        return roll_forward(day)
    if rule == PREV:
        return roll_back(day)
    return day


def _add_months(year: int, month: int, months: int) -> tuple[int, int]:
    index = year * 12 + month - 1 + months
    return index // 12, index % 12 + 1


def monthly(start: date, stop: date, day: int | None, every: int = 1) -> list[date]:
    """Every ``every`` months on ``day`` (clamped to short months; None = last day), in [start, stop)."""
    out: list[date] = []
    year, month = start.year, start.month
    while True:
        last = date(year, month, calendar.monthrange(year, month)[1])
        scheduled = last if day is None else last.replace(day=min(day, last.day))
        if scheduled >= stop:
            return out
        if scheduled >= start:
            out.append(scheduled)
        year, month = _add_months(year, month, every)


def every_days(anchor: date, step: int, start: date, stop: date) -> list[date]:
    """``anchor`` + k·``step`` days within [start, stop)."""
    day = anchor + timedelta(days=step * math.ceil((start - anchor).days / step))
    out: list[date] = []
    while day < stop:
        out.append(day)
        day += timedelta(days=step)
    return out


def _uniform_day(rng: random.Random, low: date, high: date) -> date:
    return low + timedelta(days=rng.randint(0, max(0, (high - low).days)))


def _price(cents: float) -> int:
    """A price as billers write them: .99 endings for small ones, whole dollars for large."""
    if cents < 10000:
        return max(99, int(cents / 100) * 100 + 99)
    return round(cents / 100) * 100


# ------------------------------------------------------------------------------------ the user


_NOISE_PFC = (
    "GENERAL_MERCHANDISE_OTHER_GENERAL_MERCHANDISE",
    "GENERAL_SERVICES_OTHER_GENERAL_SERVICES",
    "FOOD_AND_DRINK_OTHER_FOOD_AND_DRINK",
    "ENTERTAINMENT_OTHER_ENTERTAINMENT",
    "TRANSFER_OUT_ACCOUNT_TRANSFER",
    "BANK_FEES_OTHER_BANK_FEES",
)
#: How banks open a debit-card line ("" twice: many print the merchant alone).
_CARD_PREFIXES = (
    "",
    "",
    "DEBIT CARD PURCHASE - ",
    "POS PURCHASE {mmdd} ",
    "PURCHASE AUTHORIZED ON {mmdd} ",
    "CHECKCARD ",
)
_SAVINGS_PFC: tuple[str | None, ...] = ("TRANSFER_OUT_SAVINGS", "TRANSFER_OUT_SAVINGS", "TRANSFER_OUT_ACCOUNT_TRANSFER")
_ACH_PREFIXES = ("", "", "ACH DEBIT ", "PREAUTHORIZED DEBIT ", "ELECTRONIC WITHDRAWAL ")


@dataclass
class _Account:
    account_id: str
    last4: str
    kind: str  # "checking", "savings", "credit"


class _UserBuilder:
    """Draws one user. Every choice comes from ``rng``, in a fixed order."""

    def __init__(self, rng: random.Random, user_id: str) -> None:
        self.rng = rng
        self.user_id = user_id
        first = _uniform_day(rng, *FIRST_EVALUATION)
        self.evaluation_days = (first, first + timedelta(days=SECOND_EVALUATION_AFTER))
        # Streams run long enough for an annual bill to show before and after the evaluation;
        # everyday spending only where a window can see it.
        self.span = (first - timedelta(days=420), self.evaluation_days[-1] + timedelta(days=400))
        self.noise = (first - timedelta(days=200), self.evaluation_days[-1] + timedelta(days=6))
        self.card_prefix = rng.choice(_CARD_PREFIXES)
        self.ach_prefix = rng.choice(_ACH_PREFIXES)
        self.who = rng.choice(cat.PEOPLE).replace("MARIA ALVAREZ", "JORDAN REYES")
        self.city, self.state = rng.choice(cat.CITIES)
        self.accounts = {"checking": _Account(f"{user_id}-chk", f"{rng.randint(1000, 9999)}", "checking")}
        if rng.random() < 0.65:
            self.accounts["savings"] = _Account(f"{user_id}-sav", f"{rng.randint(1000, 9999)}", "savings")
        if rng.random() < 0.6:
            self.accounts["credit"] = _Account(f"{user_id}-cc", f"{rng.randint(1000, 9999)}", "credit")
        self.transactions: list[dict[str, Any]] = []
        self.streams: list[TrueStream] = []
        self.labels: dict[str, str] = {}
        self._fixed: dict[tuple[str, str], dict[str, Any]] = {}
        self._ids = 0

    # ------------------------------------------------------------------ transaction rendering

    def _payee_state(self, payee: Payee) -> dict[str, Any]:
        """Per user and payee: which statement line the bank prints, store number, ids, and
        whether Plaid recognises the merchant (always, never, or for some lines only)."""
        key = (payee.display, payee.lines[0])
        if key not in self._fixed:
            rng = self.rng
            coverage = rng.choices(("always", "never", "mixed"), (70, 20, 10))[0] if payee.merchant_name else "never"
            self._fixed[key] = {
                "line": rng.randrange(len(payee.lines)),
                "coverage": coverage,
                "store": f"{rng.randint(100, 99999):0{rng.choice((4, 5))}d}",
                "phone": f"{rng.randint(200, 999)}-{rng.randint(200, 999)}-{rng.randint(1000, 9999)}",
                "id": f"{rng.randint(10**9, 10**10 - 1)}",
                "shop": rng.choice(cat.ETSY_SHOPS + cat.DELIVERY_SHOPS),
            }
        return self._fixed[key]

    def _line(self, payee: Payee, day: date, account: _Account, *, card: bool, person: str = "") -> tuple[str, bool]:
        state = self._payee_state(payee)
        index = state["line"]
        if len(payee.lines) > 1 and self.rng.random() < 0.1:
            index = self.rng.randrange(len(payee.lines))
        values = {
            "store": state["store"],
            "phone": state["phone"],
            "id": state["id"],
            "ref": "".join(self.rng.choices("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789", k=10)),
            "mmdd": f"{day.month:02d}/{day.day:02d}",
            "last4": account.last4,
            "who": self.who,
            "person": person,
            "city": self.city,
            "st": self.state,
            "shop": self.rng.choice(cat.DELIVERY_SHOPS) if "{shop}" in payee.lines[index] else state["shop"],
        }
        line = payee.lines[index].format(**values)
        if account.kind == "checking":
            prefix = self.card_prefix if card else self.ach_prefix
            line = prefix.format(**values) + line
        named = state["coverage"] == "always" or (state["coverage"] == "mixed" and index % 2 == 0)
        return line, named

    def _txn(
        self,
        account: _Account,
        posted: date,
        amount: int,
        payee: Payee,
        label: str,
        *,
        card: bool,
        authorized: date | None = None,
        pfc: str | None = "",
        person: str = "",
    ) -> str:
        """Append one API-shaped transaction; ``pfc=""`` means the payee's own category."""
        rng = self.rng
        self._ids += 1
        txn_id = f"{self.user_id}t{self._ids:05d}"
        name, named = self._line(payee, authorized or posted, account, card=card, person=person)
        detailed = payee.pfc if pfc == "" else pfc
        roll_noise = rng.random()
        if roll_noise < 0.06:
            detailed = None
        elif roll_noise < 0.09:
            detailed = rng.choice(_NOISE_PFC)
        if card and authorized is None:
            authorized = posted
        if card and rng.random() < 0.15:
            authorized = None  # some banks do not report the authorization day
        if not card and rng.random() < 0.75:
            authorized = None
        self.transactions.append(
            {
                "txn_id": txn_id,
                "account_id": account.account_id,
                "amount": amount,
                "iso_currency_code": "USD",
                "date": posted.isoformat(),
                "authorized_date": authorized.isoformat() if authorized else None,
                "name": name,
                "merchant_name": payee.merchant_name if named else None,
                "personal_finance_category": (
                    {"primary": primary_of(detailed), "detailed": detailed} if detailed else None
                ),
                "category": list(payee.category) if rng.random() < 0.65 else None,
                "pending": False,
            }
        )
        self.labels[txn_id] = label
        return txn_id

    # ------------------------------------------------------------------------ true streams

    def _stream(
        self,
        payee: Payee,
        kind: str,
        frequency: str,
        scheduled: Sequence[date],
        amount: Callable[[date], int],
        *,
        card: bool,
        rule: str,
        account: _Account | None = None,
        stop: date | None = None,
        pfc: str | None = "",
        person: str = "",
    ) -> TrueStream:
        """Charges on ``scheduled`` days (before ``stop``, the cancellation), rolled by ``rule``."""
        rng = self.rng
        account = account or self.accounts["checking"]
        stream = TrueStream(f"{self.user_id}/{len(self.streams)}", payee.display, frequency, kind, account.account_id)
        for day in scheduled:
            if stop is not None and day >= stop:
                stream.ended = roll(day, rule)
                break
            stream.scheduled.append(roll(day, rule))
            if frequency == WEEKLY and kind == "meal kit" and rng.random() < 0.1:
                continue  # a skipped delivery week
            if card:
                charged = day + timedelta(days=rng.randint(1, 3)) if rng.random() < 0.02 else day
                posted = roll_forward(charged + timedelta(days=rng.choice((0, 1, 1, 1, 2, 2, 3))))
            else:
                charged = posted = roll(day, rule)
                if rng.random() < 0.03:
                    charged = posted = business_days_before(posted, -1)  # a late ACH file
            cents = amount(day)
            txn_id = self._txn(
                account, posted, cents, payee, stream.stream_id, card=card, authorized=charged, pfc=pfc, person=person
            )
            stream.charges.append(Charge(txn_id, charged, posted, cents, roll(day, rule)))
        self.streams.append(stream)
        return stream

    def _lifetime(self, *, new: float, cancel: float) -> tuple[date, date | None]:
        """When a stream starts (long before the evaluation, or recently) and stops, if it does."""
        rng, (first, last) = self.rng, self.evaluation_days
        start = self.span[0] if rng.random() >= new else _uniform_day(rng, first - timedelta(days=150), last)
        stop = None
        if rng.random() < cancel:
            earliest = max(start + timedelta(days=20), first - timedelta(days=160))
            stop = _uniform_day(rng, earliest, last + timedelta(days=30))
        return start, stop

    def _fixed_price(self, base: int, *, change: float, down: float = 0.0) -> Callable[[date], int]:
        """A price that may rise (or drop to a cheaper plan) once around the evaluation."""
        rng, (first, last) = self.rng, self.evaluation_days
        if rng.random() >= change:
            return lambda _day: base
        when = _uniform_day(rng, first - timedelta(days=150), last)
        factor = rng.uniform(0.55, 0.75) if rng.random() < down else rng.uniform(1.08, 1.35)
        after = _price(base * factor) if base % 100 == 99 else round(base * factor / 100) * 100
        return lambda day: base if day < when else after

    def _card_account(self) -> _Account:
        if "credit" in self.accounts and self.rng.random() < 0.6:
            return self.accounts["credit"]
        return self.accounts["checking"]

    def _subscriptions(self) -> None:
        rng = self.rng
        chosen = rng.sample(cat.MONTHLY_SUBSCRIPTIONS, rng.randint(1, 7))
        for payee in chosen:
            start, stop = self._lifetime(new=0.25, cancel=0.18)
            account = self._card_account()
            if start > self.span[0] and rng.random() < 0.5:  # a free trial that converts
                if rng.random() < 0.3:
                    self._txn(account, start, 100, payee, "trial", card=True)
                start += timedelta(days=rng.choice((7, 14, 30)))
            base = rng.choice(payee.prices)
            days = monthly(start, self.span[1], start.day if start.day <= 28 or rng.random() < 0.5 else None)
            self._stream(
                payee,
                "subscription",
                MONTHLY,
                days,
                self._fixed_price(base, change=0.25, down=0.2),
                card=True,
                rule=NONE,
                account=account,
                stop=stop,
            )
        # A trial never converted: one small charge, nothing after.
        if rng.random() < 0.15:
            payee = rng.choice([p for p in cat.MONTHLY_SUBSCRIPTIONS if p not in chosen])
            self._txn(self._card_account(), _uniform_day(rng, *self.noise), 100, payee, "trial", card=True)
        monthly_names = {p.display for p in chosen}
        annual = [p for p in cat.ANNUAL_SUBSCRIPTIONS if p.display not in monthly_names]
        for payee in rng.sample(annual, rng.choice((0, 1, 1, 2, 3))):
            start = _uniform_day(rng, self.span[0], self.span[0] + timedelta(days=364))
            _, stop = self._lifetime(new=0.0, cancel=0.1)
            self._stream(
                payee,
                "membership",
                ANNUALLY,
                monthly(start, self.span[1], start.day, every=12),
                self._fixed_price(rng.choice(payee.prices), change=0.2),
                card=payee.display not in {"Lemonade", "Vehicle registration"} or rng.random() < 0.5,
                rule=NONE,
                account=self._card_account(),
                stop=stop,
            )
        if rng.random() < 0.12:
            payee = rng.choice(cat.WEEKLY_CARD)
            start, stop = self._lifetime(new=0.3, cancel=0.2)
            anchor = start + timedelta(days=rng.randint(0, 6))
            self._stream(
                payee,
                "meal kit",
                WEEKLY,
                every_days(anchor, 7, start, self.span[1]),
                self._fixed_price(rng.choice(payee.prices), change=0.2),
                card=True,
                rule=NONE,
                account=self._card_account(),
                stop=stop,
            )
        if rng.random() < 0.1:
            payee = rng.choice(cat.BIWEEKLY_CARD)
            start, stop = self._lifetime(new=0.3, cancel=0.15)
            self._stream(
                payee,
                "autoship",
                BIWEEKLY,
                every_days(start + timedelta(days=rng.randint(0, 13)), 14, start, self.span[1]),
                self._fixed_price(rng.choice(payee.prices), change=0.3),
                card=True,
                rule=NONE,
                account=self._card_account(),
                stop=stop,
            )

    def _ach_rule(self) -> str:
        return NEXT if self.rng.random() < 0.8 else PREV

    def _monthly_bill(
        self,
        payee: Payee,
        kind: str,
        amount: Callable[[date], int],
        *,
        day: int | None = None,
        card: float = 0.0,
        new: float = 0.05,
        cancel: float = 0.03,
    ) -> None:
        rng = self.rng
        start, stop = self._lifetime(new=new, cancel=cancel)
        pay_day = day or rng.randint(1, 28)
        on_card = rng.random() < card
        self._stream(
            payee,
            kind,
            MONTHLY,
            monthly(start, self.span[1], pay_day),
            amount,
            card=on_card,
            rule=NONE if on_card else self._ach_rule(),
            account=self._card_account() if on_card else None,
            stop=stop,
        )

    def _seasonal(self, base: int, swing: float, peak: int, noise: float) -> Callable[[date], int]:
        rng = self.rng
        draws: dict[date, int] = {}

        def amount(day: date) -> int:
            if day not in draws:
                season = 1 + swing * math.cos(2 * math.pi * (day.month - peak) / 12)
                draws[day] = max(1500, int(base * season * rng.lognormvariate(0, noise)))
            return draws[day]

        return amount

    def _housing_and_bills(self) -> None:
        rng = self.rng
        housing = rng.random()
        if housing < 0.5:
            rent = rng.randint(90, 380) * 1000
            raise_on = _uniform_day(rng, self.span[0], self.span[1])
            factor = rng.uniform(1.02, 1.07)
            self._monthly_bill(
                rng.choice(cat.LANDLORDS),
                "rent",
                lambda day: rent if day < raise_on else round(rent * factor / 100) * 100,
                day=rng.choice((1, 1, 1, 1, 3, 5)),
                cancel=0.04,
            )
        elif housing < 0.6:
            person = rng.choice(cat.PEOPLE)
            rent = rng.randint(60, 200) * 1000
            payee = Payee(
                "Rent to " + person.title(),
                None,
                ("ZELLE PAYMENT TO {person} {ref}",),
                "TRANSFER_OUT_ACCOUNT_TRANSFER",
                ("Transfer", "Third Party", "Zelle"),
            )
            start, stop = self._lifetime(new=0.05, cancel=0.04)
            self._stream(
                payee,
                "rent",
                MONTHLY,
                monthly(start, self.span[1], 1),
                lambda _d: rent,
                card=False,
                rule=NEXT,
                stop=stop,
                person=person,
            )
        elif housing < 0.68:
            rent = rng.randint(120, 300) * 1000 + rng.randint(0, 99) * 10
            self._monthly_bill(rng.choice(cat.RENT_PORTALS), "rent", lambda _d: rent, day=1, card=1.0)
        elif housing < 0.9:
            payment = rng.randint(900, 4200) * 100 + rng.randint(0, 99)
            self._monthly_bill(rng.choice(cat.MORTGAGES), "mortgage", lambda _d: payment, day=rng.choice((1, 1, 15)))
        if rng.random() < 0.2 and housing < 0.6:
            # Child support or a rent split: 1st and 15th (or 15th and month end).
            payee = rng.choice(cat.CHILD_SUPPORT)
            payment = rng.randint(150, 900) * 100
            start, stop = self._lifetime(new=0.05, cancel=0.03)
            pair = rng.choice(((1, 15), (15, None)))
            days = sorted(monthly(start, self.span[1], pair[0]) + monthly(start, self.span[1], pair[1]))
            self._stream(
                payee,
                "child support",
                SEMI_MONTHLY,
                days,
                lambda _d: payment,
                card=False,
                rule=self._ach_rule(),
                stop=stop,
            )
        if rng.random() < 0.8:
            self._monthly_bill(
                rng.choice(cat.ELECTRIC),
                "utility",
                self._seasonal(rng.randint(50, 180) * 100, rng.uniform(0.05, 0.35), rng.choice((1, 7, 8)), 0.12),
                card=0.15,
            )
        if rng.random() < 0.4:
            self._monthly_bill(
                rng.choice(cat.GAS_UTILITIES),
                "utility",
                self._seasonal(rng.randint(40, 110) * 100, rng.uniform(0.2, 0.6), 1, 0.12),
            )
        water = rng.random()
        if water < 0.2:
            self._monthly_bill(
                rng.choice(cat.WATER_MONTHLY), "utility", self._seasonal(rng.randint(30, 90) * 100, 0.15, 7, 0.1)
            )
        elif water < 0.45:
            start, stop = self._lifetime(new=0.0, cancel=0.02)
            start = _uniform_day(rng, start, start + timedelta(days=89))
            self._stream(
                rng.choice(cat.WATER_QUARTERLY),
                "utility",
                QUARTERLY,
                monthly(start, self.span[1], start.day if start.day <= 28 else 28, every=3),
                self._seasonal(rng.randint(90, 260) * 100, 0.2, 7, 0.1),
                card=False,
                rule=self._ach_rule(),
                stop=stop,
            )
        for payees, share, card in ((cat.INTERNET, 0.75, 0.5), (cat.PHONES, 0.8, 0.5)):
            if rng.random() < share:
                payee = rng.choice(payees)
                price = self._fixed_price(rng.choice(payee.prices) + rng.choice((0, 0, 99, 537, 1249)), change=0.2)
                self._monthly_bill(payee, "telecom", price, card=card, new=0.08, cancel=0.04)

    def _loans_and_insurance(self) -> None:
        rng = self.rng
        if rng.random() < 0.4:
            payment = rng.randint(250, 750) * 100 + rng.randint(0, 99)
            self._monthly_bill(rng.choice(cat.CAR_LOANS), "loan", lambda _d: payment, cancel=0.12)
        if rng.random() < 0.35:
            payment = rng.randint(90, 600) * 100 + rng.randint(0, 99)
            self._monthly_bill(rng.choice(cat.STUDENT_LOANS), "loan", lambda _d: payment, cancel=0.05)
        if rng.random() < 0.08:
            payee = rng.choice(cat.PERSONAL_LOANS)
            payment = rng.randint(80, 400) * 100 + rng.randint(0, 99)
            start, stop = self._lifetime(new=0.15, cancel=0.1)
            anchor = start + timedelta(days=(4 - start.weekday()) % 7 + 7 * rng.randint(0, 1))  # a Friday
            self._stream(
                payee,
                "loan",
                BIWEEKLY,
                every_days(anchor, 14, start, self.span[1]),
                lambda _d: payment,
                card=False,
                rule=NEXT,
                stop=stop,
            )
        insurance = rng.random()
        if insurance < 0.5:
            premium = rng.randint(60, 260) * 100 + rng.randint(0, 99)
            renew = _uniform_day(rng, self.evaluation_days[0] - timedelta(days=150), self.evaluation_days[1])
            factor = rng.uniform(0.9, 1.25)
            self._monthly_bill(
                rng.choice(cat.AUTO_INSURANCE),
                "insurance",
                lambda day: premium if day < renew else int(premium * factor),
                card=0.3,
                cancel=0.04,
            )
        elif insurance < 0.62:
            premium = rng.randint(250, 700) * 100
            start, stop = self._lifetime(new=0.0, cancel=0.03)
            start = _uniform_day(rng, start, start + timedelta(days=89))
            self._stream(
                rng.choice(cat.AUTO_INSURANCE),
                "insurance",
                QUARTERLY,
                monthly(start, self.span[1], min(start.day, 28), every=3),
                lambda _d: premium,
                card=False,
                rule=self._ach_rule(),
                stop=stop,
            )
        if rng.random() < 0.15:
            premium = rng.randint(20, 120) * 100 + rng.randint(0, 99)
            self._monthly_bill(rng.choice(cat.LIFE_INSURANCE), "insurance", lambda _d: premium)
        if rng.random() < 0.08:
            payee = rng.choice(cat.CHILD_CARE)
            tuition = rng.randint(200, 500) * 100
            start, stop = self._lifetime(new=0.2, cancel=0.1)
            monday = start + timedelta(days=(7 - start.weekday()) % 7)
            self._stream(
                payee,
                "childcare",
                WEEKLY,
                every_days(monday, 7, start, self.span[1]),
                lambda _d: tuition,
                card=False,
                rule=NEXT,
                stop=stop,
            )
        if rng.random() < 0.15:
            payee = rng.choice(cat.QUARTERLY_SERVICES)
            dues = rng.choice(payee.prices) if payee.prices else rng.randint(150, 600) * 100
            start, stop = self._lifetime(new=0.0, cancel=0.05)
            quarter_start = date(start.year, 1 + 3 * ((start.month - 1) // 3), 1)
            self._stream(
                payee,
                "service",
                QUARTERLY,
                monthly(quarter_start, self.span[1], rng.choice((1, 1, 15)), every=3),
                lambda _d: dues,
                card=bool(payee.prices),
                rule=self._ach_rule() if not payee.prices else NONE,
                account=self._card_account() if payee.prices else None,
                stop=stop,
            )

    # ---------------------------------------------------------------------- everyday spending

    def _days(self) -> Iterator[date]:
        day, stop = self.noise
        while day <= stop:
            yield day
            day += timedelta(days=1)

    def _spend(self, payee: Payee, day: date, cents: int, label: str, *, account: _Account | None = None) -> str:
        account = account or self._card_account()
        posted = roll_forward(day + timedelta(days=self.rng.choice((0, 0, 1, 1, 2))))
        return self._txn(account, posted, max(50, cents), payee, label, card=True, authorized=day)

    def _habits(self) -> None:
        self._groceries()
        self._coffee()
        self._fuel()
        self._lunch()
        self._transit()
        self._drifting()

    def _groceries(self) -> None:
        """A favourite shopping day most weeks (a day either side now and then), top-ups."""
        rng = self.rng
        for payee in rng.sample(cat.GROCERS, rng.choice((1, 1, 2))):
            weekday, median = rng.randrange(7), rng.randint(45, 140) * 100
            for day in self._days():
                if day.weekday() == weekday and rng.random() < 0.8:
                    shopped = day + timedelta(days=rng.choice((0, 0, 0, -1, 1)))
                    self._spend(payee, shopped, int(median * rng.lognormvariate(0, 0.35)), "habit:groceries")
                elif rng.random() < 0.05:
                    self._spend(payee, day, int(median * 0.4 * rng.lognormvariate(0, 0.5)), "habit:groceries")

    def _coffee(self) -> None:
        """Most weekdays, usually the same drink at the same price (which goes up once)."""
        rng = self.rng
        if rng.random() < 0.6:
            payee = rng.choice(cat.COFFEE)
            favourite, rate = rng.choice(payee.prices), rng.uniform(0.35, 0.9)
            bump = _uniform_day(rng, *self.noise)
            for day in self._days():
                if rng.random() < (rate if day.weekday() < 5 else 0.15):
                    price = favourite if rng.random() < 0.7 else rng.choice(payee.prices)
                    self._spend(payee, day, price + (25 if day >= bump else 0), "habit:coffee")

    def _fuel(self) -> None:
        rng = self.rng
        if rng.random() < 0.7:
            payee, day = rng.choice(cat.GAS_STATIONS), self.noise[0]
            while day <= self.noise[1]:
                self._spend(payee, day, rng.randint(2500, 6500), "habit:fuel")
                day += timedelta(days=rng.randint(4, 11))

    def _lunch(self) -> None:
        rng = self.rng
        for payee in rng.sample(cat.LUNCH, rng.choice((0, 1, 2))):
            rate, median = rng.uniform(0.1, 0.45), rng.randint(1000, 1600)
            for day in self._days():
                if day.weekday() < 5 and rng.random() < rate:
                    self._spend(payee, day, int(median * rng.lognormvariate(0, 0.15)), "habit:lunch")

    def _transit(self) -> None:
        """Two taps at the same fare most weekdays."""
        rng = self.rng
        if rng.random() < 0.2:
            payee = rng.choice(cat.TRANSIT)
            for day in self._days():
                if day.weekday() < 5 and rng.random() < 0.85:
                    for _ in range(2):
                        self._spend(payee, day, rng.choice(payee.prices), "habit:transit")

    def _drifting(self) -> None:
        """A fixed price every so many days: the next visit counts from the last, not a calendar."""
        rng = self.rng
        for payee in rng.sample(cat.DRIFTING_HABITS, rng.choice((0, 0, 1, 2))):
            price = rng.choice(payee.prices)
            low, high = {"Mister Car Wash": (9, 20), "Great Clips": (24, 45), "Laundromat": (5, 10)}[payee.display]
            day = self.noise[0] + timedelta(days=rng.randint(0, high))
            tipped = payee.display == "Great Clips" and rng.random() < 0.5
            while day <= self.noise[1]:
                self._spend(payee, day, price + (rng.choice((300, 500, 600)) if tipped else 0), "habit:drifting")
                day += timedelta(days=rng.randint(low, high))

    def _one_offs(self) -> None:
        rng = self.rng
        amazon_rate = rng.choice((0.0, 0.15, 0.3, 0.5))
        other_rate = rng.uniform(0.2, 0.6)
        rides = rng.choice(cat.RIDES) if rng.random() < 0.5 else None
        delivery = rng.choice(cat.DELIVERY) if rng.random() < 0.5 else None
        app_store = rng.random() < 0.4
        favourites = rng.sample(cat.ONE_OFF, 6)
        for day in self._days():
            purchases: list[tuple[Payee, int]] = []
            if rng.random() < amazon_rate:
                purchases.append((cat.AMAZON, int(2500 * rng.lognormvariate(0, 0.9))))
            if rng.random() < other_rate:
                payee = rng.choice(favourites) if rng.random() < 0.7 else rng.choice(cat.ONE_OFF)
                purchases.append((payee, int(3500 * rng.lognormvariate(0, 0.9))))
            if rides and rng.random() < 0.12:
                purchases.append((rides, int(1800 * rng.lognormvariate(0, 0.5))))
            if delivery and rng.random() < 0.1:
                purchases.append((delivery, int(3200 * rng.lognormvariate(0, 0.35))))
            if app_store and rng.random() < 0.03:
                purchases.append((cat.APP_STORE, rng.choice(cat.APP_STORE.prices)))
            for payee, cents in purchases:
                self._spend(payee, day, cents, "one-off")
                if rng.random() < 0.06:  # returned, fully or in part, a few days later
                    back = day + timedelta(days=rng.randint(3, 25))
                    refund = cents if rng.random() < 0.7 else cents // 2
                    self._txn(self._card_account(), back, -refund, payee, "refund", card=True)

    def _money_movement(self) -> None:
        """Payroll in; transfers between own accounts, investing, card autopay, cash, P2P out."""
        paydays = self._payroll()
        self._savings(paydays)
        self._investing()
        self._card_autopay()
        self._cash()
        self._p2p()

    def _payroll(self) -> list[date]:
        rng, checking = self.rng, self.accounts["checking"]
        employer = rng.choice(cat.EMPLOYERS)
        payroll = Payee(employer.title(), None, (employer + " PAYROLL PPD ID: {id}",), "INCOME_WAGES", ("Transfer",))
        pay = rng.randint(1200, 4500) * 100
        friday = self.span[0] + timedelta(days=(4 - self.span[0].weekday()) % 7)
        paydays = [roll(d, PREV) for d in every_days(friday, 14, self.noise[0], self.noise[1])]
        for day in paydays:
            self._txn(checking, day, -int(pay * rng.uniform(0.97, 1.03)), payroll, "income", card=False)
        return paydays

    def _savings(self, paydays: Sequence[date]) -> None:
        """A standing transfer to savings (monthly, or the day after payday), its counterpart
        inflow in the linked savings account, money moved back now and then; or a transfer to a
        savings account at another bank, whose side the service never sees."""
        rng, checking, savings = self.rng, self.accounts["checking"], self.accounts.get("savings")
        if savings and rng.random() < 0.75:
            amount = rng.choice((5000, 10000, 20000, 25000, 50000))
            to_sav = Payee("Transfer to savings", None, cat.TO_SAVINGS, "TRANSFER_OUT_SAVINGS", ("Transfer", "Debit"))
            from_chk = Payee("From checking", None, cat.FROM_CHECKING, "TRANSFER_IN_ACCOUNT_TRANSFER", ("Transfer",))
            to_chk = Payee(
                "Transfer to checking", None, cat.TO_CHECKING, "TRANSFER_OUT_ACCOUNT_TRANSFER", ("Transfer",)
            )
            from_sav = Payee("From savings", None, cat.FROM_SAVINGS, "TRANSFER_IN_ACCOUNT_TRANSFER", ("Transfer",))
            if rng.random() < 0.5:
                days = [roll(d, NEXT) for d in monthly(self.noise[0], self.noise[1], rng.randint(1, 28))]
            else:
                days = [roll_forward(d + timedelta(days=1)) for d in paydays]
            for day in days:
                pfc = rng.choice((*_SAVINGS_PFC, None))
                self._txn(checking, day, amount, to_sav, "transfer:own", card=False, pfc=pfc)
                self._txn(savings, day, -amount, from_chk, "transfer:own", card=False)
            for day in self._days():
                if rng.random() < 0.02:
                    back = rng.randint(50, 600) * 100
                    self._txn(savings, day, back, to_chk, "transfer:own", card=False)
                    self._txn(checking, day, -back, from_sav, "transfer:own", card=False)
        if rng.random() < 0.2:
            bank, line = rng.choice(cat.SAVINGS_ELSEWHERE)
            payee = Payee(bank, None, (line,), "TRANSFER_OUT_SAVINGS", ("Transfer", "Debit"))
            amount = rng.choice((10000, 25000, 40000))
            for day in monthly(self.noise[0], self.noise[1], rng.randint(1, 28)):
                pfc = rng.choice(_SAVINGS_PFC)
                self._txn(checking, roll(day, NEXT), amount, payee, "transfer:own", card=False, pfc=pfc)

    def _investing(self) -> None:
        """Weekly round-ups or a monthly contribution to an investment app (an own account)."""
        rng = self.rng
        if rng.random() < 0.3:
            name, line = rng.choice(cat.INVESTING)
            payee = Payee(name, name, (line,), "TRANSFER_OUT_INVESTMENT_AND_RETIREMENT_FUNDS", ("Transfer", "Debit"))
            if name == "Acorns":
                monday = self.noise[0] + timedelta(days=(7 - self.noise[0].weekday()) % 7)
                days = [roll(d, NEXT) for d in every_days(monday, 7, self.noise[0], self.noise[1])]
                amount = rng.choice((500, 1000, 2500))
            else:
                days = [roll(d, NEXT) for d in monthly(self.noise[0], self.noise[1], rng.randint(1, 28))]
                amount = rng.choice((5000, 10000, 25000))
            for day in days:
                self._txn(self.accounts["checking"], day, amount, payee, "transfer:investment", card=False)

    def _card_autopay(self) -> None:
        """The credit card's monthly autopay from checking (statement balance or a fixed sum): for
        the user's cash flow a bill, a true stream of kind ``card_payment``. The card account shows
        the payment coming in when it is linked."""
        rng, credit = self.rng, self.accounts.get("credit")
        if credit or rng.random() < 0.3:
            issuer, line = rng.choice(cat.CARD_ISSUERS)
            autopay = Payee(issuer, None, (line,), "LOAN_PAYMENTS_CREDIT_CARD_PAYMENT", ("Payment", "Credit Card"))
            thanks = Payee(
                issuer, None, cat.CARD_THANKS, "LOAN_PAYMENTS_CREDIT_CARD_PAYMENT", ("Payment", "Credit Card")
            )
            fixed = rng.random() < 0.25
            amount = rng.randint(100, 800) * 100
            balances: dict[date, int] = {}

            def cents(day: date) -> int:
                return balances.setdefault(day, amount if fixed else rng.randint(8000, 250000))

            days = monthly(self.span[0], self.span[1], rng.randint(1, 28))
            stream = self._stream(autopay, "card_payment", MONTHLY, days, cents, card=False, rule=NEXT)
            if credit:
                for charge in stream.charges:
                    self._txn(credit, charge.posted, -charge.amount, thanks, "transfer:card", card=False)

    def _cash(self) -> None:
        """Cash every week or so, usually the same round sum."""
        rng = self.rng
        if rng.random() < 0.5:
            atm = Payee("ATM", None, cat.ATM_LINES, "TRANSFER_OUT_WITHDRAWAL", ("Transfer", "Withdrawal", "ATM"))
            favourite, day = rng.choice((4000, 6000, 10000, 20000)), self.noise[0]
            while day <= self.noise[1]:
                cash = favourite if rng.random() < 0.75 else rng.choice((2000, 4000, 8000, 10000))
                self._txn(self.accounts["checking"], day, cash, atm, "cash", card=False)
                day += timedelta(days=rng.randint(5, 12))

    def _p2p(self) -> None:
        """Paying friends back: Venmo and Zelle, round sums or not."""
        rng = self.rng
        if rng.random() < 0.5:
            p2p = "TRANSFER_OUT_ACCOUNT_TRANSFER"
            venmo = Payee("Venmo", "Venmo", cat.VENMO_LINES, p2p, ("Transfer", "Third Party", "Venmo"))
            zelle = Payee("Zelle", None, cat.ZELLE_LINES, p2p, ("Transfer", "Third Party", "Zelle"))
            for day in self._days():
                if rng.random() < 0.1:
                    payee = venmo if rng.random() < 0.6 else zelle
                    cents = rng.choice((1500, 2000, 2500, 4000, 5000)) if rng.random() < 0.5 else rng.randint(500, 9000)
                    person = rng.choice(cat.PEOPLE)
                    self._txn(self.accounts["checking"], day, cents, payee, "p2p", card=False, person=person)

    def build(self) -> SpendingUser:
        self._subscriptions()
        self._housing_and_bills()
        self._loans_and_insurance()
        self._habits()
        self._one_offs()
        self._money_movement()
        self.rng.shuffle(self.transactions)  # the API promises no order
        return SpendingUser(self.user_id, self.evaluation_days, self.transactions, self.streams, self.labels)
