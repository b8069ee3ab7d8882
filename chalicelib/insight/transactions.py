"""The insight models' input: the user's transactions as the API shows them, parsed once.

The models' pure entry points (``payday.predict``, ``recurring.detect``) take a list of
dicts shaped like the API's transaction objects; this module turns them into typed,
validated :class:`Txn` values and applies the rules every model shares: only what is
dated on or before ``as_of`` is visible, a transaction id counts once, and a pending
transaction is not yet money that moved.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import Any

from chalicelib.errors import ValidationError


class InvalidTransactionError(ValidationError):
    """A transaction handed to a model does not follow the input contract."""


@dataclass(frozen=True, slots=True)
class Txn:
    """One transaction. ``amount`` is integer cents; positive is money leaving the account."""

    txn_id: str
    account_id: str
    amount: int
    day: date
    authorized_day: date | None
    name: str
    merchant_name: str | None
    pfc_primary: str | None
    pfc_detailed: str | None
    category: tuple[str, ...]
    pending: bool
    iso_currency_code: str | None

    def posted_as_charged(self) -> Txn:
        """This transaction with its posting day as its authorization day (the detector's posting
        clock)."""
        return self.authorized_on(self.day)

    def authorized_on(self, day: date) -> Txn:
        """This transaction with ``day`` as its authorization day; built directly, as
        ``dataclasses.replace`` costs several times more per call."""
        return Txn(
            self.txn_id,
            self.account_id,
            self.amount,
            self.day,
            day,
            self.name,
            self.merchant_name,
            self.pfc_primary,
            self.pfc_detailed,
            self.category,
            self.pending,
            self.iso_currency_code,
        )

    @property
    def is_inflow(self) -> bool:
        return self.amount < 0

    @property
    def cents(self) -> int:
        """The amount's size, whichever way it moved."""
        return abs(self.amount)


def _day(value: Any, field: str, txn_id: str) -> date | None:
    if value is None or value == "":
        return None
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            return _iso_day(value[:10])
        except ValueError:
            pass
    raise InvalidTransactionError(f"transaction {txn_id}: {field} is not a YYYY-MM-DD date: {value!r}")


#: A transaction without a personal finance category.
_NO_PFC: Mapping[str, Any] = {}


@lru_cache(maxsize=4096)
def _iso_day(text: str) -> date:
    """(A user's transactions fall on a few hundred days: each is read once.)"""
    return date.fromisoformat(text)


def parse(raw: Mapping[str, Any]) -> Txn:
    """One API-shaped transaction dict as a :class:`Txn` (see the module docstring)."""
    get = raw.get
    txn_id = get("txn_id")
    if not isinstance(txn_id, str) or not txn_id:
        raise InvalidTransactionError(f"transaction without a txn_id: {raw!r}")
    amount = get("amount")
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise InvalidTransactionError(f"transaction {txn_id}: amount must be integer cents, got {amount!r}")
    day = _day(get("date"), "date", txn_id)
    if day is None:
        raise InvalidTransactionError(f"transaction {txn_id}: date is required")
    pfc = get("personal_finance_category") or _NO_PFC
    if not isinstance(pfc, Mapping):
        raise InvalidTransactionError(f"transaction {txn_id}: personal_finance_category must be an object")
    category = get("category")
    # (positional: a model parses every row it reads, and keywords cost a third more here)
    return Txn(
        txn_id,
        str(get("account_id") or ""),
        amount,
        day,
        _day(get("authorized_date"), "authorized_date", txn_id),
        str(get("name") or ""),
        get("merchant_name") or None,
        pfc.get("primary") or None,
        pfc.get("detailed") or None,
        tuple(map(str, category)) if category else (),
        bool(get("pending", False)),
        get("iso_currency_code") or None,
    )


def visible(transactions: Iterable[Mapping[str, Any]], as_of: date, *, include_pending: bool = False) -> list[Txn]:
    """The transactions a model may see at ``as_of``: dated on or before it, each id once,
    pending ones only when asked, oldest first (ties by id, so the order is deterministic)."""
    return visible_of(map(parse, transactions), as_of, include_pending=include_pending)


def visible_of(txns: Iterable[Txn], as_of: date, *, include_pending: bool = False) -> list[Txn]:
    """:func:`visible` for transactions already parsed (a caller that runs several models
    parses once)."""
    seen: dict[str, Txn] = {}
    for txn in txns:
        if txn.day > as_of or (txn.pending and not include_pending):
            continue
        seen.setdefault(txn.txn_id, txn)
    return sorted(seen.values(), key=lambda t: (t.day, t.txn_id))


_NOISE = re.compile(
    r"\b(?:POS|ACH|DEBIT|CREDIT|PURCHASE|RECURRING|CHECKCARD|ONLINE|PMT|PAYMENT|PPD|CCD|WEB|ID|"
    r"INDN|CO|ENTRY|DESCR|DES|TRN|REF)\b|#\S*|\b\d{4,}\b|\d{1,2}/\d{1,2}(?:/\d{2,4})?|[*:]"
)
_SPACES = re.compile(r"\s+")


def stream_key(txn: Txn) -> str:
    """The payer or payee a transaction belongs to: Plaid's merchant name when it has one,
    else the description with card-network and ACH noise, reference numbers and dates removed."""
    return _stream_key(txn.merchant_name, txn.name)


@lru_cache(maxsize=8192)
def _stream_key(merchant_name: str | None, name: str) -> str:
    # Cached: several models key a history's transactions by payee, and a user's few hundred
    # descriptions repeat (the same merchant, the same payroll line).
    if merchant_name:
        return _SPACES.sub(" ", merchant_name.upper()).strip()
    text = _NOISE.sub(" ", name.upper().replace(".COM", " ").replace(".NET", " "))
    tokens = [t for t in _SPACES.split(text) if t and not t.isdigit()]
    return " ".join(tokens[:3]) or name.upper().strip()
