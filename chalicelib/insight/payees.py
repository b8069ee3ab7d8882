"""Who an outflow pays: payee keys that survive the ways banks print a statement line, the
names people read, the money that only moves between the user's own accounts, and the day a
card line prints.

Used by the recurring-expense detector (``insight.recurring``); pure functions on
:class:`~chalicelib.insight.transactions.Txn`.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Container, Iterable, Sequence
from datetime import date
from functools import lru_cache
from typing import Final

from chalicelib.insight.transactions import Txn

#: Days a counterpart inflow may sit from its outflow.
COUNTERPART_DAYS: Final = 3

_CARD_PAYMENT_PFC = "LOAN_PAYMENTS_CREDIT_CARD_PAYMENT"
#: Categories of money moving between the user's own accounts (a credit-card payment too: the
#: card's own charges are the expenses, the payment would count them twice).
_OWN_TRANSFER_PFC = frozenset(
    {
        "TRANSFER_OUT_SAVINGS",
        "TRANSFER_OUT_INVESTMENT_AND_RETIREMENT_FUNDS",
        "TRANSFER_OUT_WITHDRAWAL",
        _CARD_PAYMENT_PFC,
    }
)
_OWN_TRANSFER_CATEGORY = (
    ("Payment", "Credit Card"),
    ("Transfer", "Withdrawal"),
    ("Transfer", "Savings"),
    ("Transfer", "Internal Account Transfer"),
)
_P2P = re.compile(r"\b(?:ZELLE|VENMO|CASH APP|PAYPAL)\b")
#: A credit-card payment as statement lines print it.
_CARD_PAYMENT_LINE = re.compile(r"CRE?DI?T CA?RD|\bCRD AUTOPAY\b|\bCARD AUTO ?PAY\b")
#: The ACH fields and words a bank prints on a debit it settled by ACH, not by card.
_ACH_DEBIT_LINE = re.compile(r"\b(?:ACH|PPD|CCD|WEB|PREAUTHORIZED|WITHDRAWAL|AUTO ?PAY|BILL ?PAY)\b")
#: Transfers, cash, card payments and investment apps, as statement lines print them.
_OWN_TRANSFER_LINE = re.compile(
    r"\b(?:TRANSFER|XFER|TRNSFR)\b|\bATM\b|CRE?DI?T CA?RD AUTOPAY|CRD AUTOPAY|\bE-?PAYMENT\b"
    r"|\b(?:ACORNS|ROBINHOOD|VANGUARD|BETTERMENT|WEALTHFRONT|FIDELITY|SCHWAB|STASH|COINBASE)\b"
)

_JOINED = re.compile(r"(?<=[A-Z])[-&'](?=[A-Z])")
_DOMAIN = re.compile(r"\.(?:COM|NET|ORG|CO)\b")
_TOKEN = re.compile(r"[A-Z0-9]+")
#: Words that open statement lines without naming the payee.
_LEADING_NOISE = frozenset(
    {"ACH", "DEBIT", "CREDIT", "CARD", "PURCHASE", "POS", "CHECKCARD", "RECURRING", "ONLINE", "PREAUTHORIZED"}
    | {"ELECTRONIC", "WITHDRAWAL", "AUTHORIZED", "ON", "THE", "PAYMENT", "PMT", "BILL", "WEB", "VISA", "MC", "DDA"}
    | {"TRANSFER", "XFER", "TO", "FROM"}
)
#: Payment processors that print "PROCESSOR *MERCHANT": the merchant is after the star.
_PROCESSORS = frozenset({"SQ", "SQU", "TST", "PAYPAL", "PP", "PY", "GOOGLE", "SP", "DNH", "IN"})
#: P2P services whose lines name the person paid after the service's name.
P2P_SERVICES = frozenset({"ZELLE", "VENMO"})
_P2P_FILLER = frozenset({"PAYMENT", "TO", "SENT", "PMT"})
#: Words that end the readable part of a statement line.
_TRAILING_NOISE = frozenset(
    {"DES", "ID", "INDN", "CO", "PPD", "CCD", "WEB", "PMTS", "PMT", "PAYMENT", "PAYMENTS", "PAYMT", "PYMT"}
    | {"AUTOPAY", "AUTO", "PAY", "BILL", "ACH", "DEBIT", "ONLINE", "INC", "LLC", "TO", "FROM", "REF"}
)
_SMALL_WORDS = frozenset({"OF", "AND", "THE", "FOR"})
#: Two-letter state codes end the payee's name on a card line ("NETFLIX.COM LOS GATOS CA").
_STATES = frozenset(
    [
        "AL",
        "AK",
        "AZ",
        "AR",
        "CA",
        "CO",
        "CT",
        "DE",
        "DC",
        "FL",
        "GA",
        "HI",
        "ID",
        "IL",
        "IN",
        "IA",
        "KS",
        "KY",
        "LA",
        "ME",
        "MD",
        "MA",
        "MI",
        "MN",
        "MS",
        "MO",
        "MT",
        "NE",
        "NV",
        "NH",
        "NJ",
        "NM",
        "NY",
        "NC",
        "ND",
        "OH",
        "OK",
        "OR",
        "PA",
        "RI",
        "SC",
        "SD",
        "TN",
        "TX",
        "UT",
        "VT",
        "VA",
        "WA",
        "WV",
        "WI",
        "WY",
    ]
)


# ------------------------------------------------------------------ own-account transfers


def paired_transfers(txns: Iterable[Txn]) -> set[str]:
    """Ids of outflows whose counterpart shows in another of the user's accounts: an inflow
    of the same amount within ``COUNTERPART_DAYS``. Pairs are one to one, closest days first,
    so one $100 transfer to savings does not also explain a $100 bill the same week."""
    outflows: dict[int, list[Txn]] = defaultdict(list)
    inflows: dict[int, list[Txn]] = defaultdict(list)
    for txn in txns:
        (outflows if txn.amount > 0 else inflows)[abs(txn.amount)].append(txn)
    paired: set[str] = set()
    for cents, ins in inflows.items():
        pairs = sorted(
            (abs((i.day - o.day).days), o.txn_id, i.txn_id)
            for o in outflows.get(cents, ())
            for i in ins
            if i.account_id != o.account_id and abs((i.day - o.day).days) <= COUNTERPART_DAYS
        )
        used: set[str] = set()
        for _, out_id, in_id in pairs:
            if out_id not in paired and in_id not in used:
                paired.add(out_id)
                used.add(in_id)
    return paired


def is_own_transfer(txn: Txn, paired: Container[str] = frozenset()) -> bool:
    """Money the user moved to another account of theirs (or took out as cash), not spent:
    paired with its counterpart (``paired_transfers``), or so categorised, or so described.
    A P2P payment (Zelle, Venmo) pays someone else and is not one."""
    if txn.txn_id in paired:
        return True
    if txn.pfc_detailed in _OWN_TRANSFER_PFC or txn.category[:2] in _OWN_TRANSFER_CATEGORY:
        return True
    return _own_transfer_line(txn.name)


@lru_cache(maxsize=4096)
def _own_transfer_line(name: str) -> bool:
    """(A user's statement lines repeat, and the detector asks of each several times: each
    line is read once.)"""
    line = name.upper()
    return bool(_OWN_TRANSFER_LINE.search(line)) and not _P2P.search(line)


def is_card_payment(txn: Txn) -> bool:
    """A payment to a credit card from the paying account (an outflow): categorised so, or a
    statement line naming a credit-card payment. It moves money between the user's accounts,
    but leaves checking on a schedule like a bill: the recurring detector reports its autopay
    as a stream of its own kind."""
    if txn.amount <= 0:
        return False
    if txn.pfc_detailed == _CARD_PAYMENT_PFC or txn.category[:2] == ("Payment", "Credit Card"):
        return True
    return _card_payment_line(txn.name)


@lru_cache(maxsize=4096)
def _card_payment_line(name: str) -> bool:
    """(Read once per line, as :func:`_own_transfer_line`.)"""
    return bool(_CARD_PAYMENT_LINE.search(name.upper()))


@lru_cache(maxsize=4096)
def is_ach_debit_line(name: str) -> bool:
    """A statement line that reads as an ACH debit ("ACH DEBIT VERIZON WIRELESS", "WF HOME MTG
    AUTO PAY"): its payee pulled the money, as a bill's biller does, rather than a card being
    charged. (Read once per line, as :func:`_own_transfer_line`.)"""
    return bool(_ACH_DEBIT_LINE.search(name.upper()))


# ------------------------------------------------------------------------------ payee keys


def _tokens(text: str) -> list[str]:
    """Upper-case words without digits (store, phone and reference numbers, dates), a
    processor's prefix before its star dropped ("SQ *BLUE BOTTLE" is Blue Bottle)."""
    text = _DOMAIN.sub(" ", _JOINED.sub("", text.upper()))
    if "*" in text:
        head, _, tail = text.partition("*")
        head_tokens = _TOKEN.findall(head)
        if head_tokens and head_tokens[-1] in _PROCESSORS and _TOKEN.findall(tail):
            text = " ".join(head_tokens[:-1]) + " " + tail
    return [t for t in _TOKEN.findall(text) if t.isalpha()]  # (tokens are A-Z and 0-9 only)


def payee_words(text: str) -> list[str]:
    """The words of a statement line (or merchant name) from the payee's name on."""
    return list(_payee_words(text))


@lru_cache(maxsize=4096)
def _payee_words(text: str) -> tuple[str, ...]:
    """(A user's merchant names and most lines repeat: each is read once.)"""
    tokens = _tokens(text)
    start = 0
    while start < len(tokens) and (tokens[start] in _LEADING_NOISE or len(tokens[start]) < 2):
        start += 1
    return tuple(tokens[start:] or tokens)


def _recipient(words: Sequence[str]) -> list[str]:
    return [w for w in words[1:] if w not in _P2P_FILLER][:2]


#: A word opening the statement lines of this many merchants Plaid names, and none of their
#: names, is the bank's prefix.
PREFIX_MERCHANTS: Final = 3


def bank_prefixes(txns: Iterable[Txn]) -> frozenset[str]:
    """Words the user's bank opens its statement lines with, learnt from the lines Plaid names:
    a word before the merchant's name on the lines of ``PREFIX_MERCHANTS`` merchants or more
    ("DBT CRD 0424 STARZ ENTERTAINMENT", "DBT CRD 0502 NETFLIX.COM": DBT and CRD), which the
    fixed list of card and ACH words does not know."""
    opened: dict[str, set[str]] = defaultdict(set)
    for txn in txns:
        if not txn.merchant_name:
            continue
        name = set(_payee_words(txn.merchant_name))
        for word in _payee_words(txn.name)[:3]:
            if word in name:
                break
            opened[word].add(txn.merchant_name)
    return frozenset(word for word, merchants in opened.items() if len(merchants) >= PREFIX_MERCHANTS)


def _line_words(txn: Txn, prefixes: Container[str]) -> list[str]:
    """The payee words of Plaid's merchant name, else of the line without the bank's prefix (a
    P2P payment's too: Plaid names the service, the line names whom it paid)."""
    return _words_of(txn.merchant_name, txn.name, prefixes)


def _words_of(merchant_name: str | None, name: str, prefixes: Container[str]) -> list[str]:
    """:func:`_line_words` of a merchant name and a statement line (the cached key reads them)."""
    if merchant_name:
        words = payee_words(merchant_name)
        if not words or words[0] not in P2P_SERVICES:
            return words
    words = payee_words(name)
    start = 0
    while start < len(words) - 1 and words[start] in prefixes:
        start += 1
        while start < len(words) - 1 and (words[start] in _LEADING_NOISE or len(words[start]) < 2):
            start += 1  # the noise a prefix hid ("DBT CRD 0427 THE HOME DEPOT")
    return words[start:]


def merchant_key(txn: Txn, prefixes: frozenset[str] = frozenset()) -> str:
    """The payee a charge belongs to, stable across the ways banks print it: the first word
    of Plaid's merchant name, else of the statement line after its noise (card prefixes, the
    bank's own ``prefixes``, processors such as Square or PayPal, ACH fields, store and
    reference numbers); a P2P payment is keyed by its recipient."""
    return _merchant_key(txn.merchant_name, txn.name, prefixes)


@lru_cache(maxsize=4096)
def _merchant_key(merchant_name: str | None, name: str, prefixes: frozenset[str]) -> str:
    """(The detector keys each charge several times, and a user's lines repeat: each line's
    key is read once per set of the bank's prefixes.)"""
    words = _words_of(merchant_name, name, prefixes)
    if not words:
        return name.upper().strip()
    if words[0] in P2P_SERVICES:
        return " ".join([words[0], *_recipient(words)])
    return next((w for w in words if len(w) >= 3), words[0])


def unnamed_p2p(txn: Txn, prefixes: frozenset[str] = frozenset()) -> bool:
    """A P2P payment whose line does not name whom it paid ("VENMO PAYMENT 1023"): its payee
    is unknown, so two of them a month apart prove nothing."""
    return merchant_key(txn, prefixes) in P2P_SERVICES


#: A word the payee words of this many payees' lines share names a place (the city a card
#: line ends with), not a payee: no join goes through it (:func:`payee_groups`).
PLACE_PAYEES: Final = 3


def payee_groups(txns: Iterable[Txn], prefixes: frozenset[str] = frozenset()) -> list[list[Txn]]:
    """``txns`` grouped by payee, across the user's accounts (a habit paid with two cards is
    as dense as it really is; a subscription moved to another card stays one stream).

    Keys naming the same payee are joined: one a prefix of the other ("SIRIUS" and
    "SIRIUSXM", "YOUTUBE" and "YOUTUBEPREMIUM"), or one among the other's payee words (a bank
    printing "NY SDU CHILD SUPPORT" one month and "CHILD SUPPORT SDU NY" the next; "CHARTER
    COMMUNICATIONS SPECTRUM" and "SPECTRUM"), unless the lines of :data:`PLACE_PAYEES` payees
    or more share that word: it is then a place ("KROGER #0049 SEATTLE WA", "CVS/PHARMACY
    #8812 SEATTLE WA"), not the name of the utility "SEATTLE CITY LIGHT". A charge Plaid left
    unnamed goes with the merchant that prints its line (:func:`_move_unnamed_lines`), and
    payees Plaid names apart stay apart (:func:`_by_merchant`)."""
    groups: dict[str, list[Txn]] = defaultdict(list)
    for txn in txns:
        groups[merchant_key(txn, prefixes)].append(txn)
    keys = sorted(groups)
    words = {k: {w for t in groups[k] for w in _line_words(t, prefixes)[:5]} for k in keys}
    shared = Counter(w for k in keys for w in words[k])
    words = {k: {w for w in ws if shared[w] < PLACE_PAYEES} for k, ws in words.items()}
    parent = {k: k for k in keys}

    def root(k: str) -> str:
        while parent[k] != k:
            k = parent[k]
        return k

    named = [k for k in keys if " " not in k]  # P2P recipients are only ever themselves
    for i, a in enumerate(named):
        for b in named[i + 1 :]:
            short, long = (a, b) if len(a) <= len(b) else (b, a)
            if (len(short) >= 5 and long.startswith(short)) or a in words[b] or b in words[a]:
                parent[root(b)] = root(a)
    merged: dict[str, list[Txn]] = defaultdict(list)
    for k in keys:
        merged[root(k)].extend(groups[k])
    _move_unnamed_lines(merged, prefixes)
    places = frozenset(w for w, n in shared.items() if n >= PLACE_PAYEES)
    return [part for group in merged.values() for part in _by_merchant(group, prefixes, places)]


def _move_unnamed_lines(groups: dict[str, list[Txn]], prefixes: frozenset[str]) -> None:
    """Plaid names a merchant on some of its charges only: a charge without a merchant name
    goes to the one merchant whose named charges print the same line (its words, numbers and
    references aside: "HLU*HULUPLUS 888-265-6650 CA" is Hulu's line), whatever its own key."""
    owners: dict[tuple[str, ...], set[str]] = defaultdict(set)
    for key, txns in groups.items():
        for t in txns:
            if t.merchant_name:
                owners[_line_of(t, prefixes)].add(key)
    for key in list(groups):
        for t in list(groups[key]):
            found = owners.get(_line_of(t, prefixes), set()) if not t.merchant_name else set()
            if len(found) == 1 and (owner := next(iter(found))) != key:
                groups[key].remove(t)
                groups[owner].append(t)
        if not groups[key]:
            del groups[key]


def _line_of(txn: Txn, prefixes: frozenset[str]) -> tuple[str, ...]:
    """A statement line's payee words without the bank's prefix, Plaid's merchant name aside."""
    return tuple(_words_of(None, txn.name, prefixes)[:LINE_WORDS])


#: The words of a line that say whose it is (the rest: a city, a state, a processor's code).
LINE_WORDS = 3


def _by_merchant(group: list[Txn], prefixes: frozenset[str], places: frozenset[str]) -> list[list[Txn]]:
    """``group`` split by the payees Plaid tells apart: merchant names neither of which holds the
    other's words ("Seattle City Light" and "Seattle Public Utilities", "YouTube TV" and
    "YouTube Premium") are two payees, where a name and its extension ("Amazon" and "Amazon
    Prime", "Spectrum" and "Charter Spectrum") are one. A line without a merchant name goes
    with the one payee whose name its words hold; else, keyed by a place (``places``: "SEATTLE
    DENTAL GROUP WA" beside Seattle City Light), it is a payee of its own line, and beside two
    payees or more, apart."""
    families = _name_families(group)
    if len(families) < 2 and not any(not t.merchant_name and merchant_key(t, prefixes) in places for t in group):
        return [group]
    parts: dict[object, list[Txn]] = defaultdict(list)
    for t in group:
        words = tuple(payee_words(t.merchant_name)) if t.merchant_name else ()
        if words:
            parts[next(i for i, f in enumerate(families) if any(_extends(words, n) for n in f))].append(t)
            continue
        line = set(_line_words(t, prefixes))
        holding = [i for i, f in enumerate(families) if set(f[0]) <= line]
        if len(holding) == 1:
            parts[holding[0]].append(t)
        elif merchant_key(t, prefixes) in places:
            parts[_line_of(t, prefixes)].append(t)
        else:
            parts[0 if len(families) == 1 else "apart"].append(t)
    return list(parts.values())


def _name_families(group: Sequence[Txn]) -> list[list[tuple[str, ...]]]:
    """The merchant names in ``group``, those that extend one another together, shortest first."""
    families: list[list[tuple[str, ...]]] = []
    names = {tuple(payee_words(t.merchant_name)) for t in group if t.merchant_name} - {()}
    for name in sorted(names, key=lambda n: (len(n), n)):  # (the order is the same in every run)
        family = next((f for f in families if any(_extends(name, n) for n in f)), None)
        if family is None:
            families.append([name])
        else:
            family.append(name)
    return families


def _extends(name: Sequence[str], shorter: Sequence[str]) -> bool:
    """Whether merchant name ``name`` holds every word of ``shorter`` ("Amazon Prime" and
    "Amazon", "Charter Spectrum" and "Spectrum"): one payee's names."""
    return set(shorter) <= set(name)


def readable_name(txns: Sequence[Txn], prefixes: Container[str] = frozenset()) -> str:
    """Plaid's merchant name when it has one, else the payee words of the statement line
    without the bank's ``prefixes`` ("CON ED OF NY INTELL CK" reads "Con Ed"; "ZELLE PAYMENT
    TO JOHN KIM", "Zelle to John Kim")."""
    names = Counter(t.merchant_name for t in txns if t.merchant_name)
    if names:
        return names.most_common(1)[0][0]
    line = Counter(t.name for t in txns).most_common(1)[0][0]
    words = _line_words(next(t for t in txns if t.name == line), prefixes)
    if words and words[0] in P2P_SERVICES:
        return f"{words[0].title()} to {' '.join(w.title() for w in _recipient(words))}".strip()
    readable: list[str] = []
    for word in words:
        if word in _STATES and not readable:
            continue  # "NY SDU CHILD SUPPORT": the state that collects it
        if word in _TRAILING_NOISE or word in _STATES:
            break
        readable.append(word.lower() if word in _SMALL_WORDS and readable else word.title())
        if len(readable) == 3:
            break
    while len(readable) > 1 and readable[-1].upper() in _SMALL_WORDS:
        readable.pop()
    return " ".join(readable) or line.strip()


_LINE_DATE = re.compile(r"(?<![\d/])(0[1-9]|1[0-2])/?([0-3]\d)(?![\d/])")
#: How many days before its posting a card charge's authorization may lie (a weekend and a
#: holiday between them, and a slow bank).
LINE_DATE_REACH = 7


def line_authorization_day(name: str, posted: date) -> date | None:
    """The day a card line prints (``PURCHASE AUTHORIZED ON 08/22``, ``CHECKCARD 0822``): the day
    the card was charged, when it lies on or within a week before the posting day."""
    for month, day in _line_dates(name):  # (most lines print none: cached per line)
        year = posted.year - (1 if month > posted.month else 0)
        try:
            printed = date(year, month, day)
        except ValueError:
            continue
        if 0 <= (posted - printed).days <= LINE_DATE_REACH:
            return printed
    return None


@lru_cache(maxsize=8192)
def _line_dates(name: str) -> tuple[tuple[int, int], ...]:
    return tuple((int(m.group(1)), int(m.group(2))) for m in _LINE_DATE.finditer(name))
