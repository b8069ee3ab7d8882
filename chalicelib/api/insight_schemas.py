"""marshmallow schemas of the insight routes' bodies and responses.

Each mirrors a component of ``openapi.yaml`` (``tests/api/test_contract.py`` checks that).
Unknown body fields are refused; money is integer cents.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from marshmallow import Schema, ValidationError, fields, validate

from chalicelib.api.fields import QueryInteger, id_field
from chalicelib.data.ttl import iso_timestamp
from chalicelib.insight import income_detection
from chalicelib.insight.cash_flow import UserForecast
from chalicelib.insight.data.income_verifications import (
    IncomeVerification,
    PayFrequency,
    VerificationSource,
    VerificationStatus,
)
from chalicelib.insight.data.scores import Score
from chalicelib.insight.expenses import Expenses
from chalicelib.insight.forecast import DEFAULT_DAYS, MAX_DAYS
from chalicelib.insight.income import StreamVerdict
from chalicelib.insight.income_detection import DetectionRun
from chalicelib.insight.payday_evaluation import PaydayAnswer
from chalicelib.insight.savings import MonthOfSavings
from chalicelib.plaid.schemas import StrictInteger

MAX_TXN_NAME = 256
MAX_NOTE = 1000
#: Larger than any paycheck: ten million dollars.
MAX_INCOME_CENTS = 1_000_000_000
DECISIONS = (VerificationStatus.APPROVED.value, VerificationStatus.DENIED.value)


def _storable(value: str) -> None:
    """Free text must be UTF-8 text (a lone surrogate cannot be stored)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValidationError("Not valid text.") from exc


def text_field(*, min_length: int, max_length: int, **kwargs: Any) -> fields.String:
    checks: list[Callable[[Any], Any]] = [validate.Length(min=min_length, max=max_length), _storable]
    return fields.String(validate=checks, allow_none=False, **kwargs)


def _source(**kwargs: Any) -> fields.Enum[VerificationSource]:
    return fields.Enum(VerificationSource, by_value=True, allow_none=False, **kwargs)


# --- income verification --------------------------------------------------------------


class SubmitIncomeVerificationBody(Schema):
    txn_name = text_field(min_length=1, max_length=MAX_TXN_NAME, required=True)
    txn_id = id_field(required=True)
    amount_in_cents = StrictInteger(required=True, validate=validate.Range(min=1, max=MAX_INCOME_CENTS))
    pay_frequency = fields.Enum(PayFrequency, by_value=True, required=True)
    institution_id = id_field(required=True)
    verification_source = _source(load_default=VerificationSource.NONE)
    note = text_field(min_length=0, max_length=MAX_NOTE, load_default="")


class ReviewIncomeVerificationBody(Schema):
    decision = fields.String(required=True, validate=validate.OneOf(DECISIONS))
    note = text_field(min_length=1, max_length=MAX_NOTE, required=True)
    version = StrictInteger(required=True, validate=validate.Range(min=1, max=2**31))
    verification_source = _source(load_default=None)


class VerificationNoteOut(Schema):
    """A note; one the previous system stored as plain text has only its text (the rest null)."""

    at = fields.Function(lambda n: _timestamp(n.at) if n.at else None)
    author = fields.String(allow_none=True)
    role = fields.Function(lambda n: n.role.value if n.role else None)
    status = fields.Function(lambda n: n.status.value if n.status else None)
    text = fields.String()


def _timestamp(moment: datetime) -> str:
    return iso_timestamp(moment)


class IncomeVerificationOut(Schema):
    user_id = fields.String()
    txn_name = fields.Function(lambda v: v.stream.txn_name)
    txn_id = fields.Function(lambda v: v.stream.txn_id)
    amount_in_cents = fields.Function(lambda v: v.stream.amount_in_cents)
    pay_frequency = fields.Function(lambda v: v.stream.pay_frequency.value)
    institution_id = fields.Function(lambda v: v.stream.institution_id)
    verification_status = fields.Function(lambda v: v.status.value)
    is_valid = fields.Boolean()
    last_updated = fields.Function(lambda v: _timestamp(v.last_updated) if v.last_updated else None)
    submitted_at = fields.Function(lambda v: _timestamp(v.submitted_at) if v.submitted_at else None)
    verification_source = fields.Function(lambda v: v.verification_source.value)
    version = fields.Integer()
    notes = fields.List(fields.Nested(VerificationNoteOut))


def income_verification_body(verification: IncomeVerification) -> dict[str, Any]:
    return dict(IncomeVerificationOut().dump(verification))


# --- payday -----------------------------------------------------------------------------


class PaydayQuery(Schema):
    """``GET .../payday``: the loan asking (recorded in the capture row), optional."""

    loan_id = id_field(load_default=None)


class PaydayCollectionDatesOut(Schema):
    instant = fields.Date(allow_none=True)
    standard = fields.Date(allow_none=True)
    extended = fields.Date(allow_none=True)


class PaydayOut(Schema):
    user_id = fields.String()
    loan_id = fields.String(allow_none=True)
    prediction_date = fields.Date()
    next_payday = fields.Date(allow_none=True)
    cadence = fields.String()
    income_source = fields.String(allow_none=True)
    collection_dates = fields.Function(lambda a: PaydayCollectionDatesOut().dump(a))
    detection_used = fields.String()
    confidence = fields.Function(lambda a: round(a.confidence, 3))
    reason = fields.String(allow_none=True)
    from_cache = fields.Boolean()
    moved_from = fields.Date(allow_none=True)


def payday_body(answer: PaydayAnswer) -> dict[str, Any]:
    return dict(PaydayOut().dump(answer))


# --- savings progress -----------------------------------------------------------------


class SavingsAccountOut(Schema):
    account_id = fields.String()
    amount = fields.Integer()
    subtype = fields.String(allow_none=True)


class SavingsMonthOut(Schema):
    month = fields.String()
    total_available = fields.Function(lambda m: m.snapshot.total_available if m.snapshot else None)
    accounts = fields.Function(
        lambda m: [SavingsAccountOut().dump(a) for a in m.snapshot.accounts] if m.snapshot else []
    )
    updated_date = fields.Function(
        lambda m: _timestamp(m.snapshot.updated_date) if m.snapshot and m.snapshot.updated_date else None
    )


class SavingsOut(Schema):
    user_id = fields.String()
    months = fields.List(fields.Nested(SavingsMonthOut))


def savings_body(user_id: str, months: Sequence[MonthOfSavings]) -> dict[str, Any]:
    return dict(SavingsOut().dump({"user_id": user_id, "months": months}))


# --- income detection -----------------------------------------------------------------


def verification_request(run: DetectionRun, verdict: StreamVerdict) -> dict[str, Any] | None:
    """The body that submits ``verdict``'s stream for verification, exactly as
    ``POST .../income/verification`` accepts it; None when it could not be accepted (the
    account's bank is not known, or the description is empty)."""
    latest = verdict.latest
    body = {
        "txn_name": latest.name.strip() or verdict.payer,
        "txn_id": latest.txn_id,
        "amount_in_cents": verdict.typical_cents,
        "pay_frequency": income_detection.pay_frequency(verdict.cadence).value,
        "institution_id": run.institution_id(verdict),
    }
    return None if SubmitIncomeVerificationBody().validate(body) else body


@dataclass(frozen=True)
class _Stream:
    """A detected stream in its run (the run knows the account's institution)."""

    run: DetectionRun
    verdict: StreamVerdict


class IncomeStreamOut(Schema):
    payer = fields.Function(lambda s: s.verdict.payer)
    account_id = fields.Function(lambda s: s.verdict.account_id)
    cadence = fields.Function(lambda s: s.verdict.cadence)
    typical_amount_in_cents = fields.Function(lambda s: s.verdict.typical_cents)
    next_date = fields.Function(lambda s: s.verdict.next_date.isoformat() if s.verdict.next_date else None)
    status = fields.Function(lambda s: s.verdict.status)
    deposits = fields.Function(lambda s: s.verdict.profile.deposits)
    first_date = fields.Function(lambda s: s.verdict.first_date.isoformat())
    last_date = fields.Function(lambda s: s.verdict.last_date.isoformat())
    methods = fields.Function(lambda s: list(s.verdict.methods))
    confidence = fields.Function(lambda s: round(s.verdict.confidence, 3))
    verification_request = fields.Function(lambda s: verification_request(s.run, s.verdict))


class IncomeDetectionOut(Schema):
    user_id = fields.String()
    run_date = fields.Function(lambda r: _timestamp(r.run_date))
    as_of = fields.Function(lambda r: r.detection.as_of.isoformat())
    ml_enabled = fields.Function(lambda r: r.detection.ml_enabled)
    ml_results_used = fields.Function(lambda r: r.detection.ml_results_used)
    ml_prediction_id = fields.Function(lambda r: r.detection.ml_prediction_id)
    streams_considered = fields.Function(lambda r: len(r.detection.streams))
    income_streams = fields.Function(
        lambda r: IncomeStreamOut(many=True).dump([_Stream(r, v) for v in r.detection.income_streams])
    )


def income_detection_body(run: DetectionRun) -> dict[str, Any]:
    return dict(IncomeDetectionOut().dump(run))


# --- Pave insights: recurring expenses, cash-advance score ----------------------------


class RecurringExpenseOut(Schema):
    merchant_name = fields.String()
    merchant_id = fields.String(allow_none=True)
    frequency = fields.String()
    amount = fields.Integer()
    next_date = fields.Date()
    last_date = fields.Date(allow_none=True)
    transaction_ids = fields.List(fields.String())
    status = fields.String(allow_none=True)
    kind = fields.String(allow_none=True)


class RecurringExpensesOut(Schema):
    user_id = fields.String()
    source = fields.Function(lambda e: e.source.value)
    mined_at = fields.Function(lambda e: _timestamp(e.mined_at) if e.mined_at else None)
    expenses = fields.List(fields.Nested(RecurringExpenseOut))


class ScoreBandOut(Schema):
    score = fields.Integer()
    lowest_amount = fields.Integer()
    highest_amount = fields.Integer()


class CashAdvanceScoreOut(Schema):
    user_id = fields.String()
    scored_at = fields.Function(lambda s: _timestamp(s.scored_at))
    bands = fields.List(fields.Nested(ScoreBandOut))


def recurring_expenses_body(expenses: Expenses) -> dict[str, Any]:
    return dict(RecurringExpensesOut().dump(expenses))


def cash_advance_score_body(score: Score) -> dict[str, Any]:
    return dict(CashAdvanceScoreOut().dump(score))


# --- cash-flow forecast -------------------------------------------------------------------


class ForecastQuery(Schema):
    """``GET .../forecast``: how many days to project (1-35, 14 by default)."""

    days = QueryInteger(load_default=DEFAULT_DAYS, validate=validate.Range(min=1, max=MAX_DAYS))


class ForecastDayOut(Schema):
    date = fields.Date()
    balance_cents = fields.Integer()


class ForecastEventOut(Schema):
    kind = fields.String()
    source = fields.String()
    date = fields.Date(allow_none=True)
    amount_cents = fields.Integer()
    name = fields.String(allow_none=True)
    frequency = fields.String(allow_none=True)
    weekday_cents = fields.Function(lambda e: e.to_dict()["weekday_cents"])


def _day(found: UserForecast, name: str) -> Any:
    value = getattr(found.forecast, name)
    return ForecastDayOut().dump(value) if value is not None else None


class ForecastOut(Schema):
    user_id = fields.String()
    as_of = fields.Function(lambda f: f.forecast.as_of.isoformat())
    confidence = fields.Function(lambda f: f.forecast.confidence)
    reason = fields.Function(lambda f: f.forecast.reason)
    account_id = fields.Function(lambda f: f.forecast.account_id)
    account_rule = fields.Function(lambda f: f.forecast.account_rule)
    starting_balance_cents = fields.Function(lambda f: f.forecast.starting_balance_cents)
    balance_source = fields.Function(lambda f: f.forecast.balance_source)
    days = fields.Function(lambda f: ForecastDayOut(many=True).dump(f.forecast.days))
    lowest = fields.Function(lambda f: _day(f, "lowest"))
    lowest_range = fields.Function(lambda f: list(f.forecast.lowest_range) if f.forecast.lowest_range else None)
    risk_below_zero = fields.Function(lambda f: _rounded(f.forecast.risk_below_zero))
    risk_below_threshold = fields.Function(lambda f: _rounded(f.forecast.risk_below_threshold))
    risk_below_threshold_in_days = fields.Function(lambda f: _rounded(f.forecast.risk_below_threshold_in_days))
    threshold_cents = fields.Function(lambda f: f.forecast.threshold_cents)
    next_payday = fields.Function(lambda f: f.forecast.next_payday.isoformat() if f.forecast.next_payday else None)
    payday_confidence = fields.Function(lambda f: f.forecast.payday_confidence)
    bills_source = fields.String()
    events = fields.Function(lambda f: ForecastEventOut(many=True).dump(f.forecast.events))


def _rounded(probability: float | None) -> float | None:
    return round(probability, 3) if probability is not None else None


def forecast_body(found: UserForecast) -> dict[str, Any]:
    return dict(ForecastOut().dump(found))
