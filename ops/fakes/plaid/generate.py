"""Deterministic, Plaid-shaped data: accounts, two years of transactions, liabilities, institutions.

Everything is drawn from one ``random.Random(seed)``: the same seed and ``today`` give the
same ids, names, dates and amounts, so a failing test can be replayed. Amounts follow Plaid's
sign convention (positive = money out of the account, negative = money in).

By default an Item's purchases are drawn with no regard to its pay, overdraft fees among them,
so most Items spend more than they earn. ``solvent=True`` draws a household that lives within
its means instead: no overdraft fees, and paychecks that cover the spending (see
:func:`cover_spending`).
"""

from __future__ import annotations

import base64
import hashlib
import random
import string
import struct
import zlib
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache
from typing import Any

from ops.fakes.plaid.catalog import (
    BANK_KINDS,
    BANK_WORDS,
    CITIES,
    EMPLOYERS,
    FAMILY_NAMES,
    FAMOUS_INSTITUTIONS,
    GIVEN_NAMES,
    INSTITUTION_PRODUCTS,
    LANDLORDS,
    MERCHANTS,
    PLACES,
    STREETS,
    SUBSCRIPTIONS,
    Merchant,
)
from ops.synthetic.fedcal import CLOSED as FED_CLOSED

ID_ALPHABET = string.ascii_letters + string.digits
FRIDAY, SATURDAY = 4, 5
DEFAULT_INSTITUTIONS = 300
INSTITUTIONS_SEED = 20240601
PENDING_DAYS = 2
PENDING_LINK_DAYS = 30
#: A solvent household's pay exceeds its spending over the history by this share.
SOLVENT_MARGIN = 0.15
#: What moves money between the household's own accounts (card payments, savings transfers): not spending.
OWN_ACCOUNT_TRANSFERS = frozenset({"LOAN_PAYMENTS_CREDIT_CARD_PAYMENT", "TRANSFER_OUT_SAVINGS"})
#: Off by default: real checking accounts hold no crypto; tests opt in (e.g. one in 150 purchases).
UNOFFICIAL_CURRENCY_EVERY = 0


def seeded(seed: int | None = None) -> random.Random:
    """The generator every fake value comes from (test data, not secrets)."""
    return random.Random(seed)  # noqa: S311 - reproducible test data is the point


def plaid_id(rng: random.Random, length: int = 37) -> str:
    """An id shaped like Plaid's (37 base-62 characters for accounts, transactions and Items)."""
    return "".join(rng.choices(ID_ALPHABET, k=length))


def _money(value: float) -> float:
    return round(value, 2)


# --- accounts ---------------------------------------------------------------------------------


def build_accounts(rng: random.Random, *, loans: bool) -> dict[str, dict[str, Any]]:
    """Accounts by role: checking, savings, credit (and mortgage, student when ``loans``)."""
    limit = float(rng.choice((2000, 5000, 8000, 12000)))
    credit_current = _money(rng.uniform(150, limit * 0.6))
    checking_current = _money(rng.uniform(300, 5000))
    savings_current = _money(rng.uniform(1000, 20000))
    accounts = {
        "checking": _account(rng, "Everyday Checking", "Everyday Checking Account", "depository", "checking",
                             current=checking_current,
                             available=None if rng.random() < 0.2 else checking_current),
        "savings": _account(rng, "Way2Save Savings", "Way2Save® Savings", "depository", "savings",
                            current=savings_current, available=savings_current),
        "credit": _account(rng, "Cash Rewards Visa", "Cash Rewards Visa Signature®", "credit", "credit card",
                           current=credit_current,
                           available=None if rng.random() < 0.3 else _money(limit - credit_current),
                           limit=limit),
    }  # fmt: skip
    if loans:
        accounts["mortgage"] = _account(
            rng,
            "Home Mortgage",
            None,
            "loan",
            "mortgage",
            current=_money(rng.uniform(180_000, 420_000)),
            available=None,
        )
        accounts["student"] = _account(
            rng, "Student Loan", "Direct Subsidized Loan", "loan", "student",
            current=_money(rng.uniform(8_000, 45_000)), available=None,
        )  # fmt: skip
    return accounts


def _account(
    rng: random.Random,
    name: str,
    official_name: str | None,
    account_type: str,
    subtype: str,
    *,
    current: float,
    available: float | None,
    limit: float | None = None,
) -> dict[str, Any]:
    return {
        "account_id": plaid_id(rng),
        "balances": {
            "available": available,
            "current": current,
            "limit": limit,
            "iso_currency_code": "USD",
            "unofficial_currency_code": None,
        },
        "mask": f"{rng.randrange(10_000):04d}",
        "name": name,
        "official_name": official_name,
        "type": account_type,
        "subtype": subtype,
    }


# --- transactions -------------------------------------------------------------------------------


def _monthly(start: date, end: date, day: int) -> Iterator[date]:
    year, month = start.year, start.month
    while True:
        candidate = date(year, month, min(day, 28))
        if candidate > end:
            return
        if candidate >= start:
            yield candidate
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)


def _slug(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum()) or "bank"


def _entity_id(name: str) -> str:
    return hashlib.sha256(name.encode()).hexdigest()[:24]


class TransactionFactory:
    """Builds complete Plaid transaction dicts for one Item from its rng."""

    def __init__(
        self,
        rng: random.Random,
        *,
        today: date,
        long_text_length: int = 0,
        unofficial_currency_every: int = UNOFFICIAL_CURRENCY_EVERY,
    ) -> None:
        self.rng = rng
        self.today = today
        self.long_text_length = long_text_length
        self.unofficial_currency_every = unofficial_currency_every

    def make(
        self,
        account_id: str,
        day: date,
        amount: float,
        *,
        name: str,
        merchant_name: str | None,
        category: tuple[str, ...],
        category_id: str,
        pfc: tuple[str, str],
        channel: str = "other",
        website: str | None = None,
        descriptor: str | None = None,
        iso_currency_code: str | None = "USD",
        unofficial_currency_code: str | None = None,
    ) -> dict[str, Any]:
        rng = self.rng
        original = (descriptor or name.upper()).replace("{n}", str(rng.randrange(100, 9999)))
        in_store = channel == "in store"
        city, region, postal = rng.choice(CITIES)
        online_time = (
            datetime(day.year, day.month, day.day, rng.randrange(24), rng.randrange(60), tzinfo=UTC)
            .isoformat()
            .replace("+00:00", "Z")
            if channel == "online"
            else None
        )
        merchant = merchant_name or None
        return {
            "account_id": account_id,
            "account_owner": None,
            "amount": amount,
            "authorized_date": (day - timedelta(days=rng.randrange(3))).isoformat() if channel != "other" else None,
            "authorized_datetime": online_time,
            "category": list(category),
            "category_id": category_id,
            "check_number": None,
            "counterparties": (
                [
                    {
                        "name": merchant,
                        "type": "merchant",
                        "website": website,
                        "logo_url": f"https://plaid-merchant-logos.plaid.com/{_slug(merchant)}.png",
                        "entity_id": _entity_id(merchant),
                        "confidence_level": "VERY_HIGH",
                        "phone_number": None,
                    }
                ]
                if merchant
                else []
            ),
            "date": day.isoformat(),
            "datetime": online_time,
            "iso_currency_code": iso_currency_code,
            "location": {
                "address": f"{rng.randrange(10, 9999)} {rng.choice(STREETS)}" if in_store else None,
                "city": city if in_store else None,
                "region": region if in_store else None,
                "postal_code": postal if in_store else None,
                "country": "US" if in_store else None,
                "lat": round(rng.uniform(30, 45), 6) if in_store else None,
                "lon": round(rng.uniform(-120, -75), 6) if in_store else None,
                "store_number": str(rng.randrange(100, 9999)) if in_store else None,
            },
            "logo_url": f"https://plaid-merchant-logos.plaid.com/{_slug(merchant)}.png" if merchant else None,
            "merchant_entity_id": _entity_id(merchant) if merchant else None,
            "merchant_name": merchant,
            "name": self._long(name),
            "original_description": self._long(original),
            "payment_channel": channel,
            "payment_meta": {
                "by_order_of": None,
                "payee": None,
                "payer": None,
                "payment_method": None,
                "payment_processor": None,
                "ppd_id": None,
                "reason": None,
                "reference_number": None,
            },
            "pending": False,
            "pending_transaction_id": None,
            "personal_finance_category": {
                "primary": pfc[0],
                "detailed": pfc[1],
                "confidence_level": rng.choice(("VERY_HIGH", "VERY_HIGH", "HIGH")),
            },
            "personal_finance_category_icon_url": f"https://plaid-category-icons.plaid.com/PFC_{pfc[0]}.png",
            "transaction_code": None,
            "transaction_id": plaid_id(rng),
            "transaction_type": {"in store": "place", "online": "digital"}.get(channel, "special"),
            "unofficial_currency_code": unofficial_currency_code,
            "website": website,
        }

    def _long(self, text: str) -> str:
        if self.long_text_length <= len(text):
            return text
        filler = f" {text}" * (self.long_text_length // max(len(text), 1) + 1)
        return (text + filler)[: self.long_text_length]

    def purchase(self, account_id: str, day: date, merchant: Merchant) -> dict[str, Any]:
        if self.unofficial_currency_every and self.rng.randrange(self.unofficial_currency_every) == 0:
            return self.make(
                account_id, day, round(self.rng.uniform(0.0001, 0.01), 6), name="Coinbase", merchant_name="Coinbase",
                category=("Transfer", "Third Party", "Coinbase"), category_id="21010004",
                pfc=("TRANSFER_OUT", "TRANSFER_OUT_INVESTMENT_AND_RETIREMENT_FUNDS"), channel="online",
                website="coinbase.com", descriptor="COINBASE BTC PURCHASE",
                iso_currency_code=None, unofficial_currency_code="BTC",
            )  # fmt: skip
        return self.make(
            account_id, day, _money(self.rng.uniform(merchant.low, merchant.high)), name=merchant.name,
            merchant_name=merchant.merchant_name, category=merchant.category, category_id=merchant.category_id,
            pfc=(merchant.pfc_primary, merchant.pfc_detailed), channel=merchant.channel, website=merchant.website,
            descriptor=merchant.descriptor,
        )  # fmt: skip


def _payroll_day(day: date) -> date:
    """When an ACH payroll scheduled on ``day`` lands: a Fed holiday or weekend pays the business day before."""
    while day.weekday() >= SATURDAY or day in FED_CLOSED:
        day -= timedelta(days=1)
    return day


def _recurring(factory: TransactionFactory, accounts: dict[str, str], start: date, end: date) -> list[dict[str, Any]]:
    """Payroll, rent, subscriptions, card payments, savings transfers and interest."""
    rng, out = factory.rng, []
    checking, savings, credit = accounts["checking"], accounts["savings"], accounts.get("credit")
    employer, pay = rng.choice(EMPLOYERS), _money(rng.uniform(1100, 2600))
    first = start + timedelta(days=rng.randrange(14))
    payday = first + timedelta(days=(FRIDAY - first.weekday()) % 7)  # biweekly payroll on Fridays
    while payday <= end:
        out.append(factory.make(
            checking, _payroll_day(payday), -pay, name=f"{employer} Payroll", merchant_name=employer,
            category=("Transfer", "Payroll"), category_id="21009000", pfc=("INCOME", "INCOME_WAGES"),
            descriptor=f"{employer.upper()} DES:PAYROLL ID:{{n}} PPD",
        ))  # fmt: skip
        payday += timedelta(days=14)
    landlord, rent = rng.choice(LANDLORDS), float(rng.choice((1250, 1480, 1725, 2100)))
    for day in _monthly(start, end, 1):
        out.append(factory.make(
            checking, day, rent, name=f"{landlord} Rent", merchant_name=landlord,
            category=("Payment", "Rent"), category_id="16002000", pfc=("RENT_AND_UTILITIES", "RENT_AND_UTILITIES_RENT"),
            descriptor=f"{landlord.upper()} WEB PMT",
        ))  # fmt: skip
    for name, merchant, category, category_id, primary, detailed, amount, dom in SUBSCRIPTIONS:
        for day in _monthly(start, end, dom):
            out.append(factory.make(
                credit or checking, day, amount, name=name, merchant_name=merchant, category=category,
                category_id=category_id, pfc=(primary, detailed), channel="online", descriptor=name.upper(),
            ))  # fmt: skip
    for day in _monthly(start, end, 25):
        amount = _money(rng.uniform(200, 900))
        if credit is not None:
            out.append(factory.make(
                checking, day, amount, name="Credit Card Payment", merchant_name=None,
                category=("Payment", "Credit Card"), category_id="16001000",
                pfc=("LOAN_PAYMENTS", "LOAN_PAYMENTS_CREDIT_CARD_PAYMENT"), descriptor="CARDMEMBER SERV WEB PYMT",
            ))  # fmt: skip
            out.append(factory.make(
                credit, day, -amount, name="Payment Thank You", merchant_name=None,
                category=("Payment", "Credit Card"), category_id="16001000",
                pfc=("LOAN_PAYMENTS", "LOAN_PAYMENTS_CREDIT_CARD_PAYMENT"), descriptor="PAYMENT - THANK YOU",
            ))  # fmt: skip
    for day in _monthly(start, end, 2):
        amount = float(rng.choice((50, 100, 150, 250)))
        out.append(factory.make(
            checking, day, amount, name="Transfer to Savings", merchant_name=None,
            category=("Transfer", "Internal Account Transfer"), category_id="21001000",
            pfc=("TRANSFER_OUT", "TRANSFER_OUT_SAVINGS"), descriptor="ONLINE TRANSFER TO SAV XXXXXX{n}",
        ))  # fmt: skip
        out.append(factory.make(
            savings, day, -amount, name="Transfer from Checking", merchant_name=None,
            category=("Transfer", "Internal Account Transfer"), category_id="21001000",
            pfc=("TRANSFER_IN", "TRANSFER_IN_SAVINGS"), descriptor="ONLINE TRANSFER FROM CHK XXXXXX{n}",
        ))  # fmt: skip
    for day in _monthly(start, end, 28):
        out.append(factory.make(
            savings, day, -_money(rng.uniform(0.4, 3.5)), name="Interest Payment", merchant_name=None,
            category=("Interest", "Interest Earned"), category_id="15001000",
            pfc=("INCOME", "INCOME_INTEREST_EARNED"), descriptor="INTEREST PAYMENT",
        ))  # fmt: skip
    return out


def _sort_key(txn: dict[str, Any]) -> tuple[str, str]:
    return (txn["date"], txn["transaction_id"])


def build_transactions(
    rng: random.Random,
    accounts: dict[str, str],
    *,
    count: int,
    history_days: int,
    today: date,
    long_text_length: int = 0,
    unofficial_currency_every: int = UNOFFICIAL_CURRENCY_EVERY,
    solvent: bool = False,
) -> list[dict[str, Any]]:
    """``count`` transactions over the last ``history_days`` days, newest first (Plaid's order).

    ``accounts`` maps roles (checking, savings, credit) to account ids. Recent card purchases
    are pending; recent posted ones carry the ``pending_transaction_id`` of the pending row
    they replaced. ``solvent``: no overdraft fees, and pay that covers the spending.
    """
    factory = TransactionFactory(
        rng, today=today, long_text_length=long_text_length, unofficial_currency_every=unofficial_currency_every
    )
    start = today - timedelta(days=history_days)
    recurring = sorted(_recurring(factory, accounts, start, today), key=_sort_key, reverse=True)[:count]
    merchants = purchase_merchants(solvent=solvent)
    weights = [m.weight for m in merchants]
    discretionary = []
    for _ in range(count - len(recurring)):
        merchant = rng.choices(merchants, weights=weights)[0]
        account = accounts.get("credit") if merchant.card and rng.random() < 0.5 else None
        day = today - timedelta(days=rng.randrange(history_days + 1))
        discretionary.append(factory.purchase(account or accounts["checking"], day, merchant))
    for txn in discretionary:
        age = (today - date.fromisoformat(txn["date"])).days
        if age <= PENDING_DAYS and rng.random() < 0.6:
            txn["pending"] = True
        elif age <= PENDING_LINK_DAYS and rng.random() < 0.4:
            txn["pending_transaction_id"] = plaid_id(rng)
    transactions = sorted(recurring + discretionary, key=_sort_key, reverse=True)
    if solvent:
        cover_spending(transactions)
    return transactions


def purchase_merchants(*, solvent: bool = False) -> tuple[Merchant, ...]:
    """Who purchases are drawn from: a solvent household's balance never runs dry, so it pays no bank fees."""
    return tuple(m for m in MERCHANTS if not solvent or m.pfc_primary != "BANK_FEES")


def cover_spending(transactions: list[dict[str, Any]]) -> None:
    """Raise every paycheck (in place) so the pay covers the spending with ``SOLVENT_MARGIN`` to spare.

    Spending is every outflow except transfers between the household's own accounts; a pay
    already that high is kept. Pay stays one amount per paycheck, as a salary is.
    """
    paychecks = [t for t in transactions if t["personal_finance_category"]["detailed"] == "INCOME_WAGES"]
    spent = sum(
        t["amount"]
        for t in transactions
        if t["amount"] > 0 and t["personal_finance_category"]["detailed"] not in OWN_ACCOUNT_TRANSFERS
    )
    if not paychecks:
        return
    needed = _money(spent * (1 + SOLVENT_MARGIN) / len(paychecks))
    if -paychecks[0]["amount"] < needed:
        for paycheck in paychecks:
            paycheck["amount"] = -needed


def fresh_transactions(
    rng: random.Random, accounts: dict[str, str], *, count: int, today: date, solvent: bool = False
) -> list[dict[str, Any]]:
    """``count`` new posted purchases dated today or yesterday (a DEFAULT_UPDATE's worth)."""
    factory = TransactionFactory(rng, today=today)
    merchants = purchase_merchants(solvent=solvent)
    weights = [m.weight for m in merchants]
    return [
        factory.purchase(
            accounts["checking"], today - timedelta(days=rng.randrange(2)), rng.choices(merchants, weights)[0]
        )
        for _ in range(count)
    ]


def posted_copy(rng: random.Random, pending: dict[str, Any], today: date) -> dict[str, Any]:
    """The posted transaction that replaces ``pending`` (new id, linked through ``pending_transaction_id``)."""
    posted = dict(pending)
    posted.update(
        transaction_id=plaid_id(rng),
        pending=False,
        pending_transaction_id=pending["transaction_id"],
        date=max(date.fromisoformat(pending["date"]), today - timedelta(days=1)).isoformat(),
    )
    return posted


# --- liabilities ------------------------------------------------------------------------------------


def build_liabilities(rng: random.Random, accounts: dict[str, dict[str, Any]], today: date) -> dict[str, list[Any]]:
    """Liabilities for the credit card, mortgage and student loan accounts present."""
    out: dict[str, list[Any]] = {"credit": [], "mortgage": [], "student": []}
    due = (today + timedelta(days=rng.randrange(5, 25))).isoformat()
    last_paid = (today - timedelta(days=rng.randrange(5, 25))).isoformat()
    if "credit" in accounts:
        balance = accounts["credit"]["balances"]["current"]
        out["credit"].append({
            "account_id": accounts["credit"]["account_id"],
            "aprs": [
                {"apr_percentage": 24.99, "apr_type": "purchase_apr", "balance_subject_to_apr": balance,
                 "interest_charge_amount": _money(balance * 0.02)},
                {"apr_percentage": 29.99, "apr_type": "cash_apr", "balance_subject_to_apr": 0.0,
                 "interest_charge_amount": 0.0},
            ],
            "is_overdue": False,
            "last_payment_amount": _money(rng.uniform(50, 600)),
            "last_payment_date": last_paid,
            "last_statement_issue_date": (today - timedelta(days=rng.randrange(1, 28))).isoformat(),
            "last_statement_balance": _money(balance * 0.9),
            "minimum_payment_amount": _money(max(25.0, balance * 0.02)),
            "next_payment_due_date": due,
        })  # fmt: skip
    if "mortgage" in accounts:
        principal = accounts["mortgage"]["balances"]["current"]
        out["mortgage"].append({
            "account_id": accounts["mortgage"]["account_id"],
            "account_number": f"{rng.randrange(10**9, 10**10)}",
            "current_late_fee": 0.0,
            "escrow_balance": _money(rng.uniform(1500, 6000)),
            "has_pmi": rng.random() < 0.4,
            "has_prepayment_penalty": False,
            "interest_rate": {"percentage": round(rng.uniform(2.5, 7.5), 3), "type": "fixed"},
            "last_payment_amount": _money(principal / 240),
            "last_payment_date": last_paid,
            "loan_type_description": "conventional",
            "loan_term": "30 year",
            "maturity_date": date(today.year + 24, today.month, 1).isoformat(),
            "next_monthly_payment": _money(principal / 240),
            "next_payment_due_date": due,
            "origination_date": date(today.year - 6, today.month, 1).isoformat(),
            "origination_principal_amount": _money(principal * 1.18),
            "past_due_amount": 0.0,
            "property_address": {"city": "Pawnee", "country": "US", "postal_code": "46001", "region": "IN",
                                 "street": f"{rng.randrange(10, 9999)} {rng.choice(STREETS)}"},
            "ytd_interest_paid": _money(principal * 0.02),
            "ytd_principal_paid": _money(principal * 0.015),
        })  # fmt: skip
    if "student" in accounts:
        balance = accounts["student"]["balances"]["current"]
        out["student"].append({
            "account_id": accounts["student"]["account_id"],
            "account_number": f"{rng.randrange(10**7, 10**8)}",
            "disbursement_dates": [date(today.year - 8, 8, 15).isoformat()],
            "expected_payoff_date": date(today.year + 7, 1, 1).isoformat(),
            "guarantor": "DEPT OF ED",
            "interest_rate_percentage": round(rng.uniform(3.0, 7.0), 2),
            "is_overdue": False,
            "last_payment_amount": _money(rng.uniform(150, 450)),
            "last_payment_date": last_paid,
            "last_statement_issue_date": (today - timedelta(days=rng.randrange(1, 28))).isoformat(),
            "loan_name": "Consolidation",
            "loan_status": {"end_date": date(today.year + 7, 1, 1).isoformat(), "type": "repayment"},
            "minimum_payment_amount": _money(rng.uniform(150, 450)),
            "next_payment_due_date": due,
            "origination_date": date(today.year - 8, 8, 15).isoformat(),
            "origination_principal_amount": _money(balance * 1.4),
            "outstanding_interest_amount": _money(balance * 0.01),
            "payment_reference_number": f"{rng.randrange(10**7, 10**8)}",
            "pslf_status": {"estimated_eligibility_date": None, "payments_made": rng.randrange(0, 60),
                            "payments_remaining": None},
            "repayment_plan": {"description": "Standard Repayment", "type": "standard"},
            "sequence_number": "1",
            "servicer_address": {"city": "Madison", "country": "US", "postal_code": "53707", "region": "WI",
                                 "street": "123 Servicer Way"},
            "ytd_interest_paid": _money(balance * 0.03),
            "ytd_principal_paid": _money(balance * 0.05),
        })  # fmt: skip
    return out


# --- institutions ----------------------------------------------------------------------------------


def png_logo(rgb: tuple[int, int, int], size: int = 16) -> str:
    """A real ``size`` by ``size`` single-colour PNG, base64-encoded as Plaid sends logos."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    row = b"\x00" + bytes(rgb) * size
    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    png = (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(row * size)) + chunk(b"IEND", b"")
    )
    return base64.b64encode(png).decode()


def routing_number(rng: random.Random) -> str:
    """A 9-digit ABA routing number with a valid check digit."""
    digits = [rng.randrange(10) for _ in range(8)]
    weighted = 3 * (digits[0] + digits[3] + digits[6]) + 7 * (digits[1] + digits[4] + digits[7]) + digits[2] + digits[5]
    return "".join(map(str, digits)) + str((10 - weighted % 10) % 10)


@lru_cache(maxsize=4)
def build_institutions(count: int = DEFAULT_INSTITUTIONS, seed: int = INSTITUTIONS_SEED) -> tuple[dict[str, Any], ...]:
    """``count`` institutions with full optional metadata (logo, colour, url), stable per seed."""
    rng = seeded(seed)
    names: list[tuple[str, str, str, bool]] = list(FAMOUS_INSTITUTIONS)
    seen = {name for _, name, _, _ in names}
    while len(names) < count:
        name = f"{rng.choice(BANK_WORDS)} {rng.choice(BANK_KINDS)}{rng.choice(PLACES)}"
        if name in seen:
            name = f"{name} {rng.randrange(2, 99)}"
            if name in seen:
                continue
        seen.add(name)
        names.append((f"ins_{100_000 + len(names)}", name, f"https://www.{_slug(name)}.com", rng.random() < 0.15))
    institutions = []
    for institution_id, name, url, oauth in names[:count]:
        rgb = (rng.randrange(256), rng.randrange(256), rng.randrange(256))
        products = sorted({"transactions", "auth", "balance"} | set(rng.sample(INSTITUTION_PRODUCTS, rng.randrange(5))))
        institutions.append({
            "institution_id": institution_id,
            "name": name,
            "products": products,
            "country_codes": ["US", "CA"] if rng.random() < 0.05 else ["US"],
            "routing_numbers": sorted(routing_number(rng) for _ in range(rng.randrange(1, 4))),
            "oauth": oauth,
            "connection_availability": "SUPPORTED",
            "url": url,
            "primary_color": "#{:02x}{:02x}{:02x}".format(*rgb),
            "logo": png_logo(rgb),
            "dtc_numbers": [],
        })  # fmt: skip
    return tuple(institutions)


# --- people --------------------------------------------------------------------------------------------


def person(rng: random.Random) -> dict[str, Any]:
    """A made-up identity for KYC and Layer answers."""
    given, family = rng.choice(GIVEN_NAMES), rng.choice(FAMILY_NAMES)
    city, region, postal = rng.choice(CITIES)
    return {
        "given_name": given,
        "family_name": family,
        "street": f"{rng.randrange(10, 9999)} {rng.choice(STREETS)}",
        "city": city,
        "region": region,
        "postal_code": postal,
        "country": "US",
        "phone_number": f"+1415555{rng.randrange(10_000):04d}",
        "email": f"{given.lower()}.{family.lower()}@example.com",
        "date_of_birth": date(rng.randrange(1960, 2003), rng.randrange(1, 13), rng.randrange(1, 29)).isoformat(),
        "ssn_last_4": f"{rng.randrange(10_000):04d}",
    }
