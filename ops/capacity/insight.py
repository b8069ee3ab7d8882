"""The insight tables' writes: each written once through its data module, measured, and given a rate.

No flow of the service writes these tables in a local run yet (the payday chain, the Pave feeder and
miner and the balance alert call the data modules but are not driven here), so the run writes one
representative row of each access pattern through the module that owns it, and the meter charges
the write as it charges the pipeline's. How often a user causes each write is an assumption
(:func:`per_user_day`); the units per write are measured.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from ops.capacity.model import Assumptions

if TYPE_CHECKING:
    from ops.capacity.measure import Measurements

#: The phase the insight writes are charged to.
INSIGHT = "insight"
PAVE, INCOME_DETECTION, DATA_CAPTURE = "pave", "incomedetection", "fmdatacapture"


@dataclass(frozen=True)
class InsightWrite:
    """One access pattern's write, what triggers it, and how to make one."""

    access: str
    table: str  # PAVE, INCOME_DETECTION or DATA_CAPTURE
    what: str
    trigger: str
    per_user_day: Callable[[Assumptions], float]
    write: Callable[[str, datetime], object]

    @property
    def function(self) -> str:
        return f"insight.{self.access}"


def _txn(n: int, day: date) -> dict[str, Any]:
    """A payroll-like transaction as the insight models pass them around."""
    return {
        "transaction_id": f"{n:02d}" + "x" * 35,
        "account_id": "a" * 37,
        "date": (day - timedelta(days=14 * n)).isoformat(),
        "amount": -184_213,
        "name": "ACME Payroll",
    }


def _prediction(day: date) -> dict[str, Any]:
    return {
        "next_date": (day + timedelta(days=9)).isoformat(),
        "frequency": "BIWEEKLY",
        "source": "ACME Payroll",
        "confidence": Decimal("0.92"),
    }


def _payday(user_id: str, now: datetime) -> object:
    from chalicelib.insight.data import payday

    day = now.date()
    record = payday.PaydayRecord(
        user_id=user_id,
        prediction_date=day,
        detection_used=payday.FLOATME_V2_PAYDAY_CALCULATION,
        next_date=day + timedelta(days=9),
        source="ACME Payroll",
        frequency="BIWEEKLY",
        loan_id=None,
        created_date=now,
        fm=_prediction(day),
        v2=_prediction(day),
        pave=_prediction(day),
    )
    return payday.put_payday(record)


def _prediction_capture(user_id: str, now: datetime) -> object:
    from chalicelib.insight import capture

    day = now.date()
    payload = {
        "detection_used": "FLOATME_V2_PAYDAY_CALCULATION",
        "used_v2": True,
        "used_pave_v2": False,
        "from_cache": False,
        "loan_id": None,
        "prediction_date": day,
        "fm": _prediction(day),
        "v2": _prediction(day),
        "pave": _prediction(day),
    }
    return capture.capture_payday_prediction(user_id, payload, now=now)


def _filtered_capture(user_id: str, now: datetime) -> object:
    from chalicelib.insight import capture

    return capture.capture_filtered_transactions(user_id, now.date(), [_txn(n, now.date()) for n in range(6)], now=now)


def _predicted_capture(user_id: str, now: datetime) -> object:
    from chalicelib.insight import capture

    return capture.capture_predicted_payday(user_id, now.date(), _prediction(now.date()), now=now)


def _detection_run(user_id: str, now: datetime) -> object:
    from chalicelib.insight.data import income_detection_runs as runs

    day = now.date()
    results = {method: [_txn(n, day) for n in range(4)] for method in ("a", "b", "c", "d", "ml")}
    run = runs.IncomeDetectionRun(
        user_id=user_id,
        run_date=now,
        method_results=results,
        ml_enabled=True,
        ml_results_used=False,
        ml_prediction_id=uuid.uuid4().hex,
        ml_predictions=[1, 1, 0, 1],
        ml_probabilities=[0.97, 0.91, 0.12, 0.88],
    )
    return runs.put_income_detection_run(run)


def _savings(user_id: str, now: datetime) -> object:
    from chalicelib.insight.data import savings

    accounts = (
        savings.SavingsAccount("s" * 37, 152_000, "savings"),
        savings.SavingsAccount("m" * 37, 48_512, "money market"),
    )
    return savings.put_savings_month(savings.SavingsMonth(user_id, now.strftime("%Y-%m"), accounts, 200_512, now))


def _alert_claim(user_id: str, now: datetime) -> object:
    from chalicelib.insight.data import alerts

    claim = alerts.claim_cooldown(
        user_id, now, balance_setting=5_000, available_balance=3_212, current_balance=3_480, fence=7
    )
    if claim is not None:
        alerts.mark_sent(claim, fence=7)
    return claim


def _predicted_claim(user_id: str, now: datetime) -> object:
    from chalicelib.insight.data import alerts

    prediction = alerts.Prediction(now.date() + timedelta(days=5), 1_250, 87, now.date() + timedelta(days=6))
    claim = alerts.claim_cooldown(
        user_id,
        now,
        balance_setting=5_000,
        available_balance=31_212,
        current_balance=31_480,
        fence=7,
        account_id="acct-0123456789abcdef0123456789abcdef012",
        kind=alerts.AlertKind.PREDICTED,
        prediction=prediction,
    )
    if claim is not None:
        alerts.mark_sent(claim, fence=7)
    return claim


def _label(user_id: str, now: datetime) -> object:
    from chalicelib.insight.data import pave_labels

    return pave_labels.put_pave_label(pave_labels.PaveLabel(user_id, now, pave_request_id=str(uuid.uuid4())))


def _last_page(user_id: str, now: datetime) -> object:
    from chalicelib.insight.data import last_pages

    page = last_pages.LastPage(user_id, str(uuid.uuid4()), now, pages=1, transaction_count=47)
    last_pages.put_last_page(page)
    return last_pages.mark_processed(user_id, page.pave_request_id)


def _mine(user_id: str, now: datetime) -> object:
    from chalicelib.insight.data import insights

    window = {"window_start": (now - timedelta(days=120)).date(), "window_end": now.date()}
    mine = insights.Mine(
        user_id, now, "PAVE", pave_request_id=str(uuid.uuid4()), recurring_count=8, ritual_count=4, details=window
    )
    return insights.put_insights(mine)


def _expenses(user_id: str, now: datetime) -> object:
    from chalicelib.insight.data import recurring_expenses, rituals

    due = now.date() + timedelta(days=12)
    merchants = ("Netflix", "Spotify", "Verizon", "Geico", "Planet Fitness", "Hulu", "Comcast", "Duke Energy")
    recurring = [
        recurring_expenses.Expense(user_id, now, str(uuid.uuid4()), "MONTHLY", 1_599 + n, due, merchant_name=name)
        for n, name in enumerate(merchants)
    ]
    habits = [
        recurring_expenses.Expense(user_id, now, str(uuid.uuid4()), "WEEKLY", 650 + n, due, merchant_name=name)
        for n, name in enumerate(("Starbucks", "Chipotle", "Shell", "Kroger"))
    ]
    return recurring_expenses.put_recurring_expenses(recurring) + rituals.put_rituals(habits)


def _income(user_id: str, now: datetime) -> object:
    from chalicelib.insight.data import incomes

    stream = {"name": "ACME Payroll", "frequency": "BIWEEKLY", "amount": 184_213, "next_payday": now.date()}
    income = incomes.Income(
        user_id,
        now,
        last_mine=now,
        next_payday=now.date() + timedelta(days=9),
        frequency="BIWEEKLY",
        source="ACME Payroll",
        amount=184_213,
        monthly_income=399_128,
        streams=[stream],
    )
    return incomes.put_income(income)


def _score(user_id: str, now: datetime) -> object:
    from chalicelib.insight.data import scores

    bands = (scores.ScoreBand(610, 2_500, 5_000), scores.ScoreBand(680, 5_000, 10_000))
    return scores.put_score(scores.Score(user_id, now, bands, last_mine=now))


def _verification(user_id: str, now: datetime) -> object:
    from chalicelib.insight.data import income_verifications as v

    stream = v.IncomeStream("ACME Payroll", "t" * 37, 184_213, v.PayFrequency.BIWEEKLY, "ins_109508")
    note = v.VerificationNote(now, user_id, v.NoteRole.USER, v.VerificationStatus.PENDING, "submitted from the app")
    verification = v.IncomeVerification(
        user_id, stream, v.VerificationStatus.PENDING, False, now, v.VerificationSource.NONE, (note,), 1, now
    )
    return v.create_income_verification(verification)


def _mines(a: Assumptions) -> float:
    """Each transactions mine is uploaded to Pave, and Pave's insights come back once per upload."""
    return a.update_webhooks_per_user_day


def _evaluations(a: Assumptions) -> float:
    """A payday evaluation per app session."""
    return a.transaction_pages_per_user_day


WRITES: tuple[InsightWrite, ...] = (
    InsightWrite("V01", PAVE, "payday prediction cache", "first payday evaluation of the day", lambda a: 1.0, _payday),
    InsightWrite(
        "F01", DATA_CAPTURE, "capture of every payday evaluation", "every evaluation", _evaluations, _prediction_capture
    ),
    InsightWrite(
        "F02",
        DATA_CAPTURE,
        "payroll candidates, once a day",
        "first evaluation of the day",
        lambda a: 1.0,
        _filtered_capture,
    ),
    InsightWrite(
        "F02+",
        DATA_CAPTURE,
        "payroll candidates, later the same day",
        "condition fails, still costs",
        lambda a: max(_evaluations(a) - 1, 0.0),
        _filtered_capture,
    ),
    InsightWrite(
        "F02p",
        DATA_CAPTURE,
        "predicted payday, once a day",
        "first evaluation of the day",
        lambda a: 1.0,
        _predicted_capture,
    ),
    InsightWrite(
        "F02p+",
        DATA_CAPTURE,
        "predicted payday, later the same day",
        "condition fails, still costs",
        lambda a: max(_evaluations(a) - 1, 0.0),
        _predicted_capture,
    ),
    InsightWrite(
        "D01",
        INCOME_DETECTION,
        "income-detection run",
        "evaluation without a cached prediction",
        lambda a: 1.0,
        _detection_run,
    ),
    InsightWrite("V06", PAVE, "savings month snapshot", "daily snapshot", lambda a: 1.0, _savings),
    InsightWrite(
        "V08-09",
        PAVE,
        "balance alert: claim and mark sent",
        "balance under the user's threshold",
        lambda a: 0.1,
        _alert_claim,
    ),
    InsightWrite(
        "V21-22",
        PAVE,
        "predicted alert: claim and mark sent",
        "a forecast likely to cross the threshold",
        lambda a: 0.1,
        _predicted_claim,
    ),
    InsightWrite("V10", PAVE, "Pave state label", "each upload to Pave", _mines, _label),
    InsightWrite("V11-12", PAVE, "upload's last page, then processed", "each upload to Pave", _mines, _last_page),
    InsightWrite("V13", PAVE, "mine record", "each set of Pave insights", _mines, _mine),
    InsightWrite(
        "V15+V17", PAVE, "recurring expenses (8) and rituals (4)", "each set of Pave insights", _mines, _expenses
    ),
    InsightWrite("V18", PAVE, "income insight", "each set of Pave insights", _mines, _income),
    InsightWrite("V19", PAVE, "cash-advance score", "each set of Pave insights", _mines, _score),
    InsightWrite(
        "V04",
        PAVE,
        "income verification submitted",
        "rare: a user submits an income stream",
        lambda a: 0.01,
        _verification,
    ),
)


@dataclass(frozen=True)
class InsightLoad:
    """One insight write: its assumed rate and its measured cost per occurrence."""

    write: InsightWrite
    per_user_day: float
    rows: int
    bytes_per_row: float
    units: float

    @property
    def units_per_user_day(self) -> float:
        return self.per_user_day * self.units


def loads(m: Measurements, a: Assumptions) -> list[InsightLoad]:
    """Every insight write with what the run measured for it."""
    found = []
    for write in WRITES:
        usage = m.of(INSIGHT, write.function)
        rows = sum(usage.items_written.values())
        written = sum(usage.bytes_written.values())
        units = float(sum(usage.write_units.values()))
        found.append(InsightLoad(write, write.per_user_day(a), rows, written / rows if rows else 0.0, units))
    return found


def per_table(found: list[InsightLoad]) -> dict[str, float]:
    """Write units per user per day, by table."""
    totals: dict[str, float] = {}
    for load in found:
        totals[load.write.table] = totals.get(load.write.table, 0.0) + load.units_per_user_day
    return totals
