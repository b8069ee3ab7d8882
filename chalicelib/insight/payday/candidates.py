"""Payroll candidates: which inflows could be a paycheck, grouped into one stream per payer
and account.

An inflow is **never** income when it is another app's cash advance or a loan disbursement,
a tax refund, interest or dividends, a refund or return, a P2P transfer (Zelle, Venmo, Cash
App ...), a cash deposit, or a transfer between the user's own accounts (named so, or matched
by an equal outflow from another of the user's accounts within two days). These rules read
Plaid's personal-finance categories in both taxonomies (v1 ``INCOME_WAGES``,
``TRANSFER_IN_CASH_ADVANCES_AND_LOANS``; v2 ``INCOME_SALARY``, ``LOAN_DISBURSEMENTS_*``) and the
description, because categories are often missing or wrong.

What remains is grouped by payer (the description with bank wording, reference numbers and
the recipient's name removed: the same employer reads the same whatever bank format or
merchant name Plaid attached) and account (a paycheck split between checking and savings, or
posted by two banks on different days, makes two streams of the same payer). A stream is a
**payroll candidate** when its deposits carry income evidence (an income category, a legacy
"Payroll" category or payroll wording such as ``DIR DEP``, ``PAYROLL``, ``SSA TREAS 310``) at
least as often as a transfer category; a stream with no evidence either way stays as an
**unlabelled** candidate that must later prove itself by a strict schedule fit.
"""

from __future__ import annotations

import re
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from enum import StrEnum

from chalicelib.insight.transactions import Txn

#: Income categories, v1 and v2 names (tax refunds, interest and dividends are not paychecks).
INCOME_CATEGORIES = frozenset(
    {
        "INCOME_WAGES",
        "INCOME_SALARY",
        "INCOME_GIG_ECONOMY",
        "INCOME_CONTRACTOR",
        "INCOME_RETIREMENT_PENSION",
        "INCOME_MILITARY",
        "INCOME_LONG_TERM_DISABILITY",
        "INCOME_UNEMPLOYMENT",
        "INCOME_CHILD_SUPPORT",
        "INCOME_OTHER_INCOME",
        "INCOME_OTHER",
    }
)
#: Categories that are never a paycheck, whatever the description says, and why.
NOT_INCOME_CATEGORIES = {
    "INCOME_TAX_REFUND": "tax refund",
    "INCOME_INTEREST_EARNED": "interest",
    "INCOME_DIVIDENDS": "interest",
    "INCOME_RENTAL": "rental income",
    "TRANSFER_IN_CASH_ADVANCES_AND_LOANS": "cash advance",
}
#: Categories that say "moved between own accounts": they outvote weak income evidence.
TRANSFER_CATEGORIES = frozenset(
    {
        "TRANSFER_IN_ACCOUNT_TRANSFER",
        "TRANSFER_IN_SAVINGS",
        "TRANSFER_IN_INVESTMENT_AND_RETIREMENT_FUNDS",
        "TRANSFER_IN_TRANSFER_IN_FROM_APPS",
        "TRANSFER_IN_WIRE",
    }
)

_PAYROLL = re.compile(
    r"PAYROLL|PAYRL|\bDIR ?DEP|DIRECT DEP|SALARY|\bWAGES?\b|\bADP\b|GUSTO|PAYCHEX|TRINET|RIPPLING|"
    r"INTUIT PAY|PAYLOCITY|PAYCOM|PAYCOR|\bDFAS\b|NET PAY|TREAS 310|SOC SEC|SUPP SEC|\bSSA\b|\bSSI\b"
)
#: A pension or an annuity, by the payer's words: income as much as a payroll's (and pensions pay
#: monthly, on the 1st: :func:`chalicelib.insight.payday.posterior.payer_kind`).
PENSION_WORDS = re.compile(r"PENSION|ANNUIT|RETIREMENT|\bRET SYS\b|\bPERS\b")
#: Gig platforms, by the description or by Plaid's merchant name (banks abbreviate the first:
#: ``AMZN FLEX PAYOUT``).
_GIG = re.compile(
    r"DOORDASH|\bUBER\b|\bLYFT\b|INSTACART|MAPLEBEAR|GRUBHUB|\bSHIPT\b|POSTMATES|AMAZON ?FLEX|\bAMZN FLEX|"
    r"SPARK DRIVER|\bROVER\b|TASKRABBIT|FIVERR|UPWORK|\bGOPUFF\b"
)
_EXCLUDED = (
    (
        "cash advance",
        re.compile(
            r"EARNIN|ACTIVEHOURS|\bDAVE\b|BRIGIT|MONEYLION|INSTACASH|KLOVER|\bCLEO\b|\bALBERT\b|EMPOWER|FLOATME|"
            r"POSSIBLE FIN|\bGERALD\b|SPOTME|DAILYPAY|PAYACTIV|CASH ADVANCE|PAY ADVANCE"
        ),
    ),
    ("tax refund", re.compile(r"TAX ?REF|TAXRFD|TAX REFUND|\bFTB\b|\bIRS\b")),
    ("refund", re.compile(r"\bREFUND|\bRETURN\b|REVERSAL|\bREBATE\b|CASH ?BACK|CHARGEBACK|\bDISPUTE\b|CREDIT ADJ")),
    ("p2p", re.compile(r"\bZELLE\b|\bVENMO\b|CASH ?APP|SQUARE CASH|\bPAYPAL\b|APPLE CASH|GOOGLE PAY")),
    ("interest", re.compile(r"\bINTEREST\b|\bDIVIDEND")),
    ("cash deposit", re.compile(r"\bATM\b|CASH DEPOSIT")),
    ("own transfer", re.compile(r"TRANSFER FROM|XFER FROM|ONLINE TRANSFER|INTERNAL TRANSFER|\bFROM (?:SAV|CHK)")),
)

#: Where a description's payer name ends (BofA ``DES:``, ``INDN:``, NACHA ``CO ID``/``PPD``, the
#: NACHA field labels some banks print: ``ORIG ID:``, ``DESC DATE:``, ``CO ENTRY DESCR:`` ...).
_CUT = re.compile(
    r"\s(?:DES:|ID:|INDN:|CO ID|CO:|TYPE:|PPD|CCD|WEB\b|TRN\b|REF\b|SEC:|ORIG ID|DESC DATE|CO ENTRY|ENTRY DESCR|"
    r"IND ID|IND NAME|TRACE|EED:)"
)
#: A leading NACHA label before the payer's name: ``ORIG CO NAME:ACME CORP CO ENTRY DESCR:PAYROLL``.
_ORIGINATOR = re.compile(r"^(?:ORIG(?:INATOR)?\s+CO(?:MPANY)?\s+NAME|ORIG\s+NAME|CO\s+NAME)\s*:?\s*")
_WORDS = frozenset(
    [
        "PAYROLL",
        "PAYRL",
        "DIR",
        "DEP",
        "DIRECT",
        "DEPOSIT",
        "SALARY",
        "ACH",
        "CREDIT",
        "EDI",
        "PAYMNT",
        "PAYMENT",
        "PAYMENTS",
        "PYMNT",
        "PYMNTS",
        "PYMT",
        "PMT",
        "NET",
        "PAY",
        "PAYOUT",
        "ELECTRONIC",
        "ELEC",
        "TRANSFER",
        "XFER",
        "FROM",
        "REG",
        "FAST",
        "INSTANT",
        "EXPRESS",
    ]
)
_NOT_WORD = re.compile(r"[^A-Z&' ]+")


class Evidence(StrEnum):
    """Why a stream is a payroll candidate."""

    INCOME = "INCOME"  # its categories or description say income
    UNLABELLED = "UNLABELLED"  # nothing either way: it must prove itself by its schedule


def exclusion(txn: Txn) -> str | None:
    """Why an inflow can never be a paycheck, or ``None``."""
    if txn.pfc_primary == "LOAN_DISBURSEMENTS":
        return "cash advance"
    if txn.pfc_detailed in NOT_INCOME_CATEGORIES:
        return NOT_INCOME_CATEGORIES[txn.pfc_detailed]
    text = txn.name.upper()
    for reason, pattern in _EXCLUDED:
        if pattern.search(text):
            return reason
    return None


#: The words of a deposit line that names no payer: a check deposited by phone, at a branch or a
#: teller (``MOBILE DEPOSIT``, ``BRANCH DEPOSIT 0412``, ``CHECK DEPOSIT``).
_DEPOSIT_WORDS = frozenset({"MOBILE", "CHECK", "CHK", "BRANCH", "REMOTE", "TELLER", "COUNTER", "IMAGE", "DEPOSIT"})


def names_a_payer(payer: str) -> bool:
    """Whether a payer key (:func:`payer_key`) names someone, not only how money was deposited."""
    return not set(payer.split()) <= _DEPOSIT_WORDS


def payer_key(txn: Txn) -> str:
    """The payer's name as the description spells it, without bank wording, references (any word
    with a digit) or the recipient: ``ACME CORP DES:PAYROLL ID:123 INDN:J DOE CO ID:9 PPD``, ``ORIG CO NAME:ACME CORP
    CO ENTRY DESCR:PAYROLL SEC:PPD`` and ``DIRECT DEP ACME CORP`` are all ``ACME CORP``."""
    text = txn.name.upper()
    if "TREAS 310" in text:  # federal benefits: Social Security, SSI, VA ...
        if "SUPP SEC" in text or text.startswith("SSI"):
            return "SSI"
        if "SOC SEC" in text or text.startswith("SSA"):
            return "SSA"
        return text.split(" TREAS")[0].strip() or "US TREASURY"
    text = _ORIGINATOR.sub("", text)
    cut = _CUT.search(" " + text)
    if cut:
        text = (" " + text)[: cut.start()]
    words = _without_references(text.replace(".COM", " "))
    tokens = [t for t in _NOT_WORD.sub(" ", words).split() if t not in _WORDS and len(t) > 1]
    if tokens:
        return " ".join(tokens[:3])
    if txn.merchant_name:
        return txn.merchant_name.upper().strip()
    # Only bank wording before the cut ("PAYROLL DEPOSIT PPD 250925 000048074 MILLER TIFFANY"):
    # the whole line is the key, without its references (a date, a trace number).
    return _without_references(txn.name.upper()) or txn.name.upper()


def _without_references(text: str) -> str:
    """``text`` without its references: any word with a digit (a date, a trace or an id number)."""
    return " ".join(w for w in text.split() if not any(c.isdigit() for c in w))


def _is_gig(txn: Txn) -> bool:
    if txn.pfc_detailed == "INCOME_GIG_ECONOMY" or _GIG.search(txn.name.upper()):
        return True
    return bool(txn.merchant_name and _GIG.search(txn.merchant_name.upper()))


def _income_vote(txn: Txn) -> int:
    """+1 income evidence, -1 transfer evidence, 0 neither."""
    if txn.pfc_detailed in INCOME_CATEGORIES or any("Payroll" in c for c in txn.category):
        return 1
    name = txn.name.upper()
    if _PAYROLL.search(name) or PENSION_WORDS.search(name):
        return 1
    if txn.pfc_detailed in TRANSFER_CATEGORIES:
        return -1
    return 0


@dataclass(frozen=True, slots=True)
class Deposit:
    """What one payer put in one account on one day (a paycheck, or its parts)."""

    day: date
    cents: int
    txns: tuple[Txn, ...]


@dataclass(frozen=True, slots=True)
class Stream:
    """One payer's deposits into one account, oldest first."""

    payer: str
    account_id: str
    deposits: tuple[Deposit, ...]
    evidence: Evidence
    gig: bool
    display_name: str

    @property
    def days(self) -> list[date]:
        return [d.day for d in self.deposits]

    @property
    def txns(self) -> list[Txn]:
        return [t for d in self.deposits for t in d.txns]

    def median_cents(self, last: int = 6) -> int:
        return int(statistics.median(d.cents for d in self.deposits[-last:]))


def _own_transfers(txns: Sequence[Txn]) -> set[str]:
    """Inflows matched by an outflow of the same amount from another of the user's accounts
    within two days."""
    outflows: dict[int, list[Txn]] = defaultdict(list)
    for t in txns:
        if t.amount > 0:
            outflows[t.amount].append(t)
    matched = set()
    for t in txns:
        if t.amount < 0 and any(
            o.account_id != t.account_id and abs((o.day - t.day).days) <= 2 for o in outflows.get(-t.amount, ())
        ):
            matched.add(t.txn_id)
    return matched


def _deposits(txns: Iterable[Txn]) -> tuple[Deposit, ...]:
    by_day: dict[date, list[Txn]] = defaultdict(list)
    for t in txns:
        by_day[t.day].append(t)
    return tuple(Deposit(day, sum(t.cents for t in group), tuple(group)) for day, group in sorted(by_day.items()))


#: A payer key this long or longer absorbs the keys it begins (a bank that cuts descriptions at
#: a fixed width turns ``ACME LOGISTICS CO`` into ``ACME LOGISTICS C`` on some lines).
_MIN_PREFIX = 6
#: A payer key of whole words this long or longer absorbs the keys that add words to it (a
#: processor's reference without a digit, ``GUSTO PAY JQFDKJ``, reads as a word).
_MIN_WORD_PREFIX = 4


def _same_payers(keys: Iterable[str]) -> dict[str, str]:
    """Each payer key mapped to the shortest key it begins with (itself if none): the same
    payer spelt whole and cut short, or followed by a reference made of letters."""
    ordered = sorted(set(keys), key=lambda k: (len(k), k))
    canonical: dict[str, str] = {}
    for n, key in enumerate(ordered):
        canonical[key] = next(
            (
                canonical[k]
                for k in ordered[:n]
                if (len(k) >= _MIN_PREFIX and key.startswith(k))
                or (len(k) >= _MIN_WORD_PREFIX and key.startswith(k + " "))
            ),
            key,
        )
    return canonical


def candidate_streams(txns: Sequence[Txn]) -> list[Stream]:
    """The payroll-candidate streams among ``txns`` (see the module docstring), largest first."""
    transfers = _own_transfers(txns)
    kept = [
        (payer_key(t), t)
        for t in txns
        if t.amount < 0 and t.iso_currency_code in (None, "USD") and t.txn_id not in transfers and not exclusion(t)
    ]
    canonical = _same_payers(key for key, _ in kept)
    grouped: dict[tuple[str, str], list[Txn]] = defaultdict(list)
    for key, t in kept:
        grouped[(canonical[key], t.account_id)].append(t)
    streams = []
    for (payer, account_id), members in grouped.items():
        votes = [_income_vote(t) for t in members]
        income, transfer = votes.count(1), votes.count(-1)
        if transfer > income:
            continue
        names = [t.merchant_name for t in members if t.merchant_name]
        gig = any(_is_gig(t) for t in members)
        evidence = Evidence.INCOME if income else Evidence.UNLABELLED
        display = statistics.mode(names) if names else payer.title()
        streams.append(Stream(payer, account_id, _deposits(members), evidence, gig, display))
    return sorted(streams, key=lambda s: (-sum(d.cents for d in s.deposits), s.payer, s.account_id))
