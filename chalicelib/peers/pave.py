"""Pave, the cash-flow insights API: upload a user's transactions, poll, read insights and scores.

Every Pave wire detail lives in this module (paths, headers, body shapes, field names, status
codes, frequency spellings), so correcting one is a one-file change; callers see only the typed
values below. Contract, errors and decisions: ``docs/peers.md`` (Pave).

How the calls fit together (the feeder and the miner drive them):

1. :meth:`PaveClient.upload_transactions` sends the user's transactions in Plaid's transaction
   format plus the ids Plaid removed, in pages; Pave answers each page with a request id at
   once (202) and processes it later. The :class:`UploadReceipt` names the request to poll.
2. :meth:`PaveClient.request_status` says whether that request has been processed. Pave
   processes a user's requests in order, so the last page processed means all are.
3. :meth:`PaveClient.insights` (recurring expenditures, rituals, income with Pave's payday
   estimate) and :meth:`PaveClient.cash_advance_score` read what Pave computed.

Uploads are safe to repeat: Pave keeps one copy per ``transaction_id``, and each page carries an
``Idempotency-Key`` derived from its content, so a repeated page (an inline retry, a redelivered
message reading the same window) is answered with the request it already created.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal
from enum import StrEnum
from functools import lru_cache
from typing import Any
from urllib.parse import quote

import requests
from marshmallow import EXCLUDE, Schema, fields, validate
from marshmallow import ValidationError as SchemaError

from chalicelib.data.money import dollars_to_cents
from chalicelib.data.transactions import UNCATEGORIZED, Transaction
from chalicelib.errors import ValidationError
from chalicelib.observability import logger
from chalicelib.peers.errors import PeerServiceError
from chalicelib.peers.idempotency import derive_key
from chalicelib.peers.transport import (
    TOO_MANY_REQUESTS,
    PeerTransport,
    RetryPolicy,
    Timeouts,
    is_retryable_status,
    retry_after_seconds,
)
from chalicelib.settings import PaveConfig, get_settings

# --- the wire ---------------------------------------------------------------------------

_UPLOAD_PATH = "/users/{user_id}/transactions"
_REQUEST_PATH = "/users/{user_id}/requests/{request_id}"
_INSIGHTS_PATH = "/users/{user_id}/cashflow/unified_insights"
_SCORE_PATH = "/users/{user_id}/scores/cash_advance"
_IDEMPOTENCY_HEADER = "Idempotency-Key"
_REPLAYED_HEADER = "Idempotent-Replayed"
_USER_NOT_FOUND = "USER_NOT_FOUND"
_REQUEST_NOT_FOUND = "REQUEST_NOT_FOUND"
_USER_CODES = frozenset({_USER_NOT_FOUND})
_ANY_NOT_FOUND = frozenset({_USER_NOT_FOUND, _REQUEST_NOT_FOUND})
#: What Pave accepts in one upload request (transactions plus removals).
MAX_PAGE_SIZE = 1000
#: A request id becomes part of a sort key (``LAST_PAGE#REQUEST_ID#<id>``): no ``#``, bounded length.
_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
_IDEMPOTENCY_KIND = "pave.upload"


# --- errors -----------------------------------------------------------------------------


class PaveError(PeerServiceError):
    """Pave refused or failed a call; ``retryable`` says whether a later attempt may succeed."""

    peer = "pave"


class PaveRateLimitedError(PaveError):
    """Pave answered 429; ``retry_after`` is its ``Retry-After`` in seconds (None when it sent none).

    Raised when the wait is longer than the client waits inside a call: a queue handler should
    put the message back with at least that delay.
    """

    def __init__(self, message: str, *, retry_after: float | None) -> None:
        super().__init__(message, status=TOO_MANY_REQUESTS, retryable=True)
        self.retry_after = retry_after


class PaveNotFoundError(PaveError):
    """Pave does not know the user (``what == "user"``: nothing uploaded yet) or the upload request
    (``what == "request"``); never retryable. A 404 without Pave's error code is a plain
    :class:`PaveError` (a wrong base URL must fail loudly, not look like "no data")."""

    def __init__(self, what: str, identifier: str) -> None:
        super().__init__(f"pave has no {what} {identifier}", status=404, retryable=False)
        self.what = what
        self.identifier = identifier


# --- typed values -----------------------------------------------------------------------


class Frequency(StrEnum):
    """How often a stream recurs. UNKNOWN: a cadence this service does not know yet (the raw
    value is kept on the stream); it is reported, not an error, so a new spelling at Pave cannot
    stop the miner."""

    DAILY = "DAILY"
    WEEKLY = "WEEKLY"
    BIWEEKLY = "BIWEEKLY"
    SEMI_MONTHLY = "SEMI_MONTHLY"
    MONTHLY = "MONTHLY"
    #: Every two months.
    BIMONTHLY = "BIMONTHLY"
    QUARTERLY = "QUARTERLY"
    SEMI_ANNUALLY = "SEMI_ANNUALLY"
    ANNUALLY = "ANNUALLY"
    UNKNOWN = "UNKNOWN"


_FREQUENCIES = {
    "daily": Frequency.DAILY,
    "weekly": Frequency.WEEKLY,
    "biweekly": Frequency.BIWEEKLY,
    "semi_monthly": Frequency.SEMI_MONTHLY,
    "monthly": Frequency.MONTHLY,
    "bimonthly": Frequency.BIMONTHLY,
    "quarterly": Frequency.QUARTERLY,
    "semi_annual": Frequency.SEMI_ANNUALLY,
    "annual": Frequency.ANNUALLY,
}


class RequestState(StrEnum):
    """Where an upload request is: PENDING (accepted, not yet in the insights), PROCESSED, FAILED
    (Pave could not process it; polling again will not change that)."""

    PENDING = "PENDING"
    PROCESSED = "PROCESSED"
    FAILED = "FAILED"


_STATES = {
    "pending": RequestState.PENDING,
    "processing": RequestState.PENDING,
    "processed": RequestState.PROCESSED,
    "failed": RequestState.FAILED,
}


@dataclass(frozen=True)
class UploadReceipt:
    """What an upload sent and the request ids Pave gave its pages, in order."""

    user_id: str
    request_ids: tuple[str, ...]
    transactions_sent: int
    removals_sent: int
    #: Pages Pave had already received under the same idempotency key (nothing new created).
    replayed_pages: int

    @property
    def request_id(self) -> str:
        """The request to poll: the last page's (Pave processes a user's requests in order)."""
        return self.request_ids[-1]

    @property
    def replayed(self) -> bool:
        """True when every page was a repeat: this upload created nothing at Pave."""
        return self.replayed_pages == len(self.request_ids)


@dataclass(frozen=True)
class RequestStatus:
    request_id: str
    state: RequestState
    processed_at: datetime | None = None
    #: The state as Pave spelled it (for logs when an unknown one was read as PENDING).
    raw_state: str = ""

    @property
    def is_processed(self) -> bool:
        return self.state is RequestState.PROCESSED


@dataclass(frozen=True)
class RecurringExpense:
    """A recurring expenditure (bill, subscription, rent). Amounts are positive integer cents."""

    merchant_uuid: str
    merchant_name: str
    frequency: Frequency
    #: Average charge, the amount a ``recurring`` row is keyed by.
    amount: int
    #: The next expected charge (the row's ``due_date``).
    due_date: date
    last_date: date | None
    last_amount: int | None
    next_amount: int | None
    count: int
    iso_currency_code: str | None
    tags: tuple[str, ...]
    transaction_ids: tuple[str, ...]
    frequency_raw: str = ""


@dataclass(frozen=True)
class Ritual:
    """Habitual spending (weekly groceries, coffee): regular, but not a bill. Positive cents."""

    #: Pave's merchant id (the ``<merchant_id>`` of a ``ritual`` row key).
    merchant_id: str
    merchant_name: str
    frequency: Frequency
    #: Average spend per occurrence.
    amount: int
    #: When the habit is next expected (the row's ``due_date``).
    due_date: date
    last_date: date | None
    count: int
    transaction_ids: tuple[str, ...]
    frequency_raw: str = ""


@dataclass(frozen=True)
class IncomeStream:
    """A recurring deposit (payroll, benefits). ``amount`` is the average deposit, positive cents."""

    source_id: str
    source: str
    frequency: Frequency
    amount: int
    next_date: date
    last_date: date | None
    count: int
    transaction_ids: tuple[str, ...]
    frequency_raw: str = ""


@dataclass(frozen=True)
class Income:
    """The user's income as Pave sees it, including its payday estimate (``PAVE_PAYDAY_CALCULATION``)."""

    streams: tuple[IncomeStream, ...]
    #: Pave's estimate of the next payday of the primary income, None when it has none.
    next_payday: date | None
    pay_frequency: Frequency | None
    primary_source: str | None
    #: Estimated income per month, positive cents.
    monthly_income: int | None


@dataclass(frozen=True)
class Insights:
    """One answer of Pave's unified insights for a user."""

    user_id: str
    recurring: tuple[RecurringExpense, ...]
    rituals: tuple[Ritual, ...]
    income: Income
    #: The span of transaction dates the insights were computed from (None when Pave says nothing).
    window_start: date | None
    window_end: date | None


@dataclass(frozen=True)
class ScoreBand:
    """The repayment score for an advance between ``lowest_amount`` and ``highest_amount`` cents."""

    score: int
    lowest_amount: int
    highest_amount: int


@dataclass(frozen=True)
class CashAdvanceScore:
    user_id: str
    #: When Pave computed the score (the ``CASH_ADVANCE_SCORE#<RFC3339>`` of a ``scores`` row).
    scored_at: datetime
    bands: tuple[ScoreBand, ...]


# --- outbound: Plaid's transaction format -------------------------------------------------


def plaid_transaction(txn: Transaction) -> dict[str, Any]:
    """``txn`` as Plaid's ``/transactions/get`` returns it (amount in dollars, positive = money out).

    The amount is written as ``cents / 100``: the shortest decimal that round-trips that value
    is exactly the two-place amount, so the JSON text carries the exact dollars.
    """
    pfc = txn.personal_finance_category
    return {
        "transaction_id": txn.txn_id,
        "account_id": txn.acct_id,
        "amount": txn.amount / 100,
        "iso_currency_code": txn.iso_currency_code,
        "date": txn.txn_date.isoformat(),
        "authorized_date": txn.authorized_date.isoformat() if txn.authorized_date else None,
        "authorized_datetime": txn.authorized_datetime,
        "name": txn.name,
        "merchant_name": txn.merchant_name,
        "original_description": txn.original_description,
        "pending": txn.pending,
        "pending_transaction_id": txn.pending_transaction_id,
        "category_id": None if txn.category_id == UNCATEGORIZED else txn.category_id,
        "category": list(txn.category) or None,
        # Only the text fields: stored maps may hold DynamoDB Decimals, which JSON cannot carry.
        "personal_finance_category": (
            {k: v for k, v in pfc.items() if isinstance(k, str) and isinstance(v, str)} if pfc else None
        ),
        "logo_url": txn.merchant_logo_url,
        "website": txn.merchant_website,
    }


def upload_pages(
    user_id: str, transactions: Iterable[Transaction], removed: Iterable[str], page_size: int
) -> list[dict[str, Any]]:
    """The upload bodies, deterministic for the same input (so a repeat derives the same keys).

    Removal wins: an id both listed and removed is sent only as removed (a listing read from an
    eventually consistent index may still show a transaction Plaid has just retracted), and a
    row marked removed is sent as a removal. Transactions go oldest first, removals last.
    """
    if not 1 <= page_size <= MAX_PAGE_SIZE:
        raise ValueError(f"page_size must be between 1 and {MAX_PAGE_SIZE}")
    gone = {r for r in removed if r}
    live: dict[str, Transaction] = {}
    for txn in transactions:
        if txn.user_id != user_id:
            raise ValueError(f"transaction {txn.txn_id} belongs to another user")
        if txn.removed:
            gone.add(txn.txn_id)
        else:
            live[txn.txn_id] = txn
    ordered = sorted((t for t in live.values() if t.txn_id not in gone), key=lambda t: (t.txn_date, t.txn_id))
    items: list[tuple[str, dict[str, Any]]] = [("transactions", plaid_transaction(t)) for t in ordered]
    items += [("removed", {"transaction_id": r}) for r in sorted(gone)]
    pages: list[dict[str, Any]] = []
    for start in range(0, len(items), page_size):
        page: dict[str, list[dict[str, Any]]] = {"transactions": [], "removed": []}
        for kind, body in items[start : start + page_size]:
            page[kind].append(body)
        pages.append(page)
    return pages


def _idempotency_key(user_id: str, page: Mapping[str, Any]) -> str:
    digest = hashlib.sha256(json.dumps(page, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    return derive_key(_IDEMPOTENCY_KIND, user_id, digest)


# --- inbound: schemas -------------------------------------------------------------------


class _Loose(Schema):
    class Meta:
        unknown = EXCLUDE


class _TransactionRef(_Loose):
    transaction_id = fields.String(required=True, validate=validate.Length(min=1))


class _Stream(_Loose):
    merchant_uuid = fields.String(required=True, validate=validate.Length(min=1))
    normalized_merchant_name = fields.String(required=True)
    normalized_frequency = fields.String(required=True)
    avg_amount = fields.Decimal(required=True)
    next_date = fields.Date(required=True)
    last_date = fields.Date(load_default=None, allow_none=True)
    last_amount = fields.Decimal(load_default=None, allow_none=True)
    next_amount = fields.Decimal(load_default=None, allow_none=True)
    count = fields.Integer(load_default=0, validate=validate.Range(min=0))
    iso_currency_code = fields.String(load_default=None, allow_none=True)
    tags = fields.List(fields.String(), load_default=list)
    transactions = fields.List(fields.Nested(_TransactionRef), load_default=list)


class _IncomeSummary(_Loose):
    monthly_income = fields.Decimal(load_default=None, allow_none=True)
    next_payday = fields.Date(load_default=None, allow_none=True)
    pay_frequency = fields.String(load_default=None, allow_none=True)
    primary_source = fields.String(load_default=None, allow_none=True)


class _UnifiedInsights(_Loose):
    user_id = fields.String(required=True)
    window_start = fields.Date(data_key="from", load_default=None, allow_none=True)
    window_end = fields.Date(data_key="to", load_default=None, allow_none=True)
    recurring_expenditures = fields.List(fields.Nested(_Stream), load_default=list)
    ritual_expenses = fields.List(fields.Nested(_Stream), load_default=list)
    recurring_income = fields.List(fields.Nested(_Stream), load_default=list)
    income = fields.Nested(_IncomeSummary, load_default=None, allow_none=True)


class _Upload(_Loose):
    request_id = fields.String(required=True)


class _RequestStatus(_Loose):
    request_id = fields.String(required=True)
    status = fields.String(required=True)
    processed_at = fields.AwareDateTime(default_timezone=UTC, load_default=None, allow_none=True)


class _ScoreBand(_Loose):
    score = fields.Integer(required=True, strict=True, validate=validate.Range(min=0))
    lowest_amount = fields.Decimal(required=True)
    highest_amount = fields.Decimal(required=True)


class _CashAdvanceScore(_Loose):
    user_id = fields.String(required=True)
    date = fields.AwareDateTime(required=True, default_timezone=UTC)
    scores = fields.List(fields.Nested(_ScoreBand), required=True)


_UNIFIED, _UPLOAD, _STATUS, _SCORE = _UnifiedInsights(), _Upload(), _RequestStatus(), _CashAdvanceScore()


def _cents(dollars: Decimal | None) -> int | None:
    """A Pave amount (dollars, either sign) as positive integer cents."""
    return None if dollars is None else abs(dollars_to_cents(dollars))


def _frequency(raw: str) -> Frequency:
    found = _FREQUENCIES.get(raw.strip().lower())
    if found is None:
        logger.warning("pave sent an unknown frequency", extra={"frequency": raw})
        return Frequency.UNKNOWN
    return found


def _ids(stream: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(t["transaction_id"] for t in stream["transactions"])


def _recurring(s: Mapping[str, Any]) -> RecurringExpense:
    return RecurringExpense(
        merchant_uuid=s["merchant_uuid"],
        merchant_name=s["normalized_merchant_name"],
        frequency=_frequency(s["normalized_frequency"]),
        amount=abs(dollars_to_cents(s["avg_amount"])),
        due_date=s["next_date"],
        last_date=s["last_date"],
        last_amount=_cents(s["last_amount"]),
        next_amount=_cents(s["next_amount"]),
        count=s["count"],
        iso_currency_code=s["iso_currency_code"],
        tags=tuple(s["tags"]),
        transaction_ids=_ids(s),
        frequency_raw=s["normalized_frequency"],
    )


def _ritual(s: Mapping[str, Any]) -> Ritual:
    return Ritual(
        merchant_id=s["merchant_uuid"],
        merchant_name=s["normalized_merchant_name"],
        frequency=_frequency(s["normalized_frequency"]),
        amount=abs(dollars_to_cents(s["avg_amount"])),
        due_date=s["next_date"],
        last_date=s["last_date"],
        count=s["count"],
        transaction_ids=_ids(s),
        frequency_raw=s["normalized_frequency"],
    )


def _income_stream(s: Mapping[str, Any]) -> IncomeStream:
    return IncomeStream(
        source_id=s["merchant_uuid"],
        source=s["normalized_merchant_name"],
        frequency=_frequency(s["normalized_frequency"]),
        amount=abs(dollars_to_cents(s["avg_amount"])),
        next_date=s["next_date"],
        last_date=s["last_date"],
        count=s["count"],
        transaction_ids=_ids(s),
        frequency_raw=s["normalized_frequency"],
    )


def _income(loaded: Mapping[str, Any]) -> Income:
    summary = loaded["income"] or {}
    cadence = summary.get("pay_frequency")
    return Income(
        streams=tuple(_income_stream(s) for s in loaded["recurring_income"]),
        next_payday=summary.get("next_payday"),
        pay_frequency=_frequency(cadence) if cadence else None,
        primary_source=summary.get("primary_source"),
        monthly_income=_cents(summary.get("monthly_income")),
    )


# --- the client -------------------------------------------------------------------------


class PaveClient:
    """Pave's API with an API key. Build with :func:`get_pave` (or :func:`pave_from` in tests)."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        api_key_header: str = "X-API-Key",
        timeouts: Timeouts | None = None,
        retry: RetryPolicy | None = None,
        upload_page_size: int = 500,
    ) -> None:
        if not 1 <= upload_page_size <= MAX_PAGE_SIZE:
            raise ValueError(f"upload_page_size must be between 1 and {MAX_PAGE_SIZE}")
        self.transport = PeerTransport(
            base_url, api_key, error_type=PaveError, timeouts=timeouts, retry=retry, auth_header=api_key_header
        )
        self.upload_page_size = upload_page_size

    def __repr__(self) -> str:
        return f"PaveClient(base_url={self.transport.base_url!r})"

    def upload_transactions(
        self, user_id: str, transactions: Iterable[Transaction], *, removed: Iterable[str] = ()
    ) -> UploadReceipt:
        """Send ``transactions`` (Plaid format) and the ids in ``removed``; one request per page.

        Safe to repeat (see the module docstring). Raises ``ValueError`` when there is nothing to
        send or a transaction belongs to another user, :class:`PaveRateLimitedError` on a 429
        with a longer ``Retry-After`` than the client waits, :class:`PaveError` otherwise. When a
        later page fails, the earlier ones stay uploaded; repeating the upload replays them.
        """
        path = _UPLOAD_PATH.format(user_id=_segment(user_id))
        pages = upload_pages(user_id, transactions, removed, self.upload_page_size)
        if not pages:
            raise ValueError("nothing to upload: no transactions and no removals")
        request_ids: list[str] = []
        replayed = 0
        for page in pages:
            headers = {_IDEMPOTENCY_HEADER: _idempotency_key(user_id, page)}
            response = self.transport.send("POST", path, json_body=page, headers=headers)
            if response.status_code not in (200, 201, 202):
                raise self._failure(response, "upload transactions")
            loaded = self._load(_UPLOAD, response, "upload transactions")
            request_ids.append(self._request_id(loaded["request_id"], response, "upload transactions"))
            replayed += (response.headers.get(_REPLAYED_HEADER) or "").lower() == "true"
        return UploadReceipt(
            user_id=user_id,
            request_ids=tuple(request_ids),
            transactions_sent=sum(len(p["transactions"]) for p in pages),
            removals_sent=sum(len(p["removed"]) for p in pages),
            replayed_pages=replayed,
        )

    def request_status(self, user_id: str, request_id: str) -> RequestStatus:
        """Whether Pave has processed upload request ``request_id`` of ``user_id``.

        :class:`PaveNotFoundError` (``what == "request"``) when Pave does not know the request.
        """
        if not _REQUEST_ID.fullmatch(request_id):
            raise ValueError("request_id is not a Pave request id")
        path = _REQUEST_PATH.format(user_id=_segment(user_id), request_id=quote(request_id, safe=""))
        response = self.transport.send("GET", path)
        # An unknown user has no requests either: both codes mean "no such request".
        self._raise_unless_ok(response, "get request status", ("request", request_id), _ANY_NOT_FOUND)
        loaded = self._load(_STATUS, response, "get request status")
        if loaded["request_id"] != request_id:
            raise self.transport.malformed("get request status", "request_id differs", response.status_code)
        raw = loaded["status"]
        state = _STATES.get(raw.strip().lower())
        if state is None:
            logger.warning("pave sent an unknown request status", extra={"status": raw})
        return RequestStatus(request_id, state or RequestState.PENDING, loaded["processed_at"], raw)

    def insights(self, user_id: str) -> Insights:
        """Recurring expenditures, rituals and income (with the payday estimate) from processed data.

        :class:`PaveNotFoundError` (``what == "user"``) when nothing was ever uploaded for the user.
        """
        response = self.transport.send("GET", _INSIGHTS_PATH.format(user_id=_segment(user_id)))
        self._raise_unless_ok(response, "get insights", ("user", user_id), _USER_CODES)
        loaded = self._load(_UNIFIED, response, "get insights")
        if loaded["user_id"] != user_id:
            raise self.transport.malformed("get insights", "user_id differs", response.status_code)
        return Insights(
            user_id=user_id,
            recurring=tuple(_recurring(s) for s in loaded["recurring_expenditures"]),
            rituals=tuple(_ritual(s) for s in loaded["ritual_expenses"]),
            income=_income(loaded),
            window_start=loaded["window_start"],
            window_end=loaded["window_end"],
        )

    def cash_advance_score(self, user_id: str) -> CashAdvanceScore:
        """Pave's cash-advance repayment score, one band per advance amount range."""
        response = self.transport.send("GET", _SCORE_PATH.format(user_id=_segment(user_id)))
        self._raise_unless_ok(response, "get cash advance score", ("user", user_id), _USER_CODES)
        loaded = self._load(_SCORE, response, "get cash advance score")
        if loaded["user_id"] != user_id:
            raise self.transport.malformed("get cash advance score", "user_id differs", response.status_code)
        bands = tuple(
            ScoreBand(b["score"], abs(dollars_to_cents(b["lowest_amount"])), abs(dollars_to_cents(b["highest_amount"])))
            for b in loaded["scores"]
        )
        return CashAdvanceScore(user_id=user_id, scored_at=loaded["date"], bands=bands)

    # --- helpers ------------------------------------------------------------------------

    def _raise_unless_ok(
        self, response: requests.Response, action: str, not_found: tuple[str, str], codes: frozenset[str]
    ) -> None:
        if response.status_code == 200:
            return
        if response.status_code == 404 and _error_code(response) in codes:
            raise self.transport.report(PaveNotFoundError(*not_found))
        raise self._failure(response, action)

    def _failure(self, response: requests.Response, action: str) -> PaveError:
        status = response.status_code
        summary = _error_code(response) or response.reason or "no error code"
        message = f"pave {action} answered {status}: {summary}"
        if status == TOO_MANY_REQUESTS:
            return self.transport.report(PaveRateLimitedError(message, retry_after=retry_after_seconds(response)))
        return self.transport.report(PaveError(message, status=status, retryable=is_retryable_status(status)))

    def _load(self, schema: Schema, response: requests.Response, action: str) -> dict[str, Any]:
        """The body through ``schema``; numbers are read as Decimal, never float."""
        try:
            body = json.loads(response.content, parse_float=Decimal)
            loaded: dict[str, Any] = schema.load(body)
        except (ValueError, SchemaError, ValidationError) as exc:
            raise self.transport.malformed(action, type(exc).__name__, response.status_code) from exc
        return loaded

    def _request_id(self, value: str, response: requests.Response, action: str) -> str:
        if not _REQUEST_ID.fullmatch(value):
            raise self.transport.malformed(action, "request_id is not a usable id", response.status_code)
        return value


def _segment(user_id: str) -> str:
    if not user_id:
        raise ValueError("user_id must not be empty")
    return quote(user_id, safe="")


def _error_code(response: requests.Response) -> str | None:
    """Pave's error code: ``{"error": {"code"}}`` from the API, ``{"message"}`` from its gateway."""
    try:
        body = response.json()
    except ValueError:
        return None
    if not isinstance(body, dict):
        return None
    error = body.get("error")
    if isinstance(error, dict) and isinstance(error.get("code"), str):
        return str(error["code"])
    for key in ("code", "message"):
        if isinstance(body.get(key), str):
            return str(body[key])[:100]
    return None


# --- factory ----------------------------------------------------------------------------


def pave_from(config: PaveConfig) -> PaveClient:
    return PaveClient(
        config.base_url,
        config.api_key,
        api_key_header=config.api_key_header,
        timeouts=Timeouts(connect=config.connect_timeout_seconds, read=config.read_timeout_seconds),
        retry=RetryPolicy(
            max_attempts=config.max_attempts,
            backoff_seconds=config.backoff_seconds,
            backoff_max_seconds=config.backoff_max_seconds,
            max_retry_after_seconds=config.max_retry_after_seconds,
        ),
        upload_page_size=config.upload_page_size,
    )


@lru_cache(maxsize=1)
def get_pave() -> PaveClient:
    """The process-wide Pave client (its API key is resolved on this first call)."""
    return pave_from(get_settings().pave)


def reset_pave() -> None:
    """Close the built client; the next :func:`get_pave` re-reads the settings."""
    if get_pave.cache_info().currsize:
        get_pave().transport.close()
    get_pave.cache_clear()
