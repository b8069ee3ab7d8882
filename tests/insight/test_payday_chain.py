"""The payday chain: Pave, then V2, then the legacy guess; what each answer carries."""

from __future__ import annotations

import json
import random
from datetime import timedelta
from typing import Any

import pytest

from chalicelib.insight.payday import (
    Detection,
    PaveIncome,
    PaydayPrediction,
    predict,
    run_chain,
    v2,
)
from chalicelib.insight.schedule import Schedule
from chalicelib.insight.transactions import InvalidTransactionError
from tests.insight.builders import d, on_schedule, spending, txn

AS_OF = d("2026-09-28")


def biweekly_payroll() -> list[dict[str, Any]]:
    """Every other Friday from 7 August 2026 (next: Friday 2 October), with spending."""
    return on_schedule(Schedule.biweekly(d("2026-08-07")), "2026-06-01", "2026-09-28") + spending(
        "2026-06-01", "2026-09-28"
    )


def gig_worker() -> list[dict[str, Any]]:
    """A cash-out every five to nine days on any weekday, categorised as wages (so the legacy
    guess reads a weekly gap)."""
    rng = random.Random(8)
    days, day = [], d("2026-06-01")
    while day <= AS_OF:
        days.append(day)
        day += timedelta(days=rng.randint(5, 9))
    wages = {"primary": "INCOME", "detailed": "INCOME_WAGES"}
    rows = [txn(day, -rng.randint(3_000, 9_000), "UBER USA EDI", personal_finance_category=wages) for day in days]
    return rows + spending("2026-06-01", "2026-09-28")


def test_predict_runs_v2_and_answers_the_contract() -> None:
    result = predict(biweekly_payroll(), AS_OF)
    assert (result.next_payday, result.cadence, result.detection_used) == (
        d("2026-10-02"),
        "BIWEEKLY",
        Detection.FLOATME_V2,
    )
    assert 0 < result.confidence <= 1 and result.source == "Acme Corp"
    # AND the legacy guess was computed all the same; Pave was not asked
    assert result.fm is not None and result.pave is None and not result.used_pave_v2


def test_pave_with_a_date_wins_and_short_circuits_v2() -> None:
    pave = PaveIncome(d("2026-10-01"), "BIWEEKLY", "ACME")
    result = run_chain(biweekly_payroll(), AS_OF, used_pave_v2=True, pave_income=pave)
    assert (result.detection_used, result.next_payday, result.source) == (Detection.PAVE, d("2026-10-01"), "ACME")
    assert result.v2 is None and result.fm is not None
    assert result.collection is not None and result.collection.extended == d("2026-10-15")


@pytest.mark.parametrize(
    ("pave", "message"),
    [
        (None, "no Pave income insight cached"),
        (PaveIncome(None, None), "no next income date"),
        (PaveIncome(d("2026-09-25"), "BIWEEKLY"), "stale"),
    ],
)
def test_pave_without_a_usable_date_falls_through_to_v2(pave: PaveIncome | None, message: str) -> None:
    result = run_chain(biweekly_payroll(), AS_OF, used_pave_v2=True, pave_income=pave)
    assert (result.detection_used, result.next_payday) == (Detection.FLOATME_V2, d("2026-10-02"))
    assert message in result.errors[Detection.PAVE].message


def test_v2_saying_income_is_irregular_is_an_answer_the_legacy_guess_cannot_override() -> None:
    # GIVEN a gig worker whose wage-categorised payouts give the legacy guess a date
    legacy_only = run_chain(gig_worker(), AS_OF, used_v2=False)
    assert legacy_only.next_payday is not None and legacy_only.detection_used is Detection.FLOATME
    # WHEN V2 runs
    result = run_chain(gig_worker(), AS_OF)
    # THEN its "no payday" is the answer
    assert (result.detection_used, result.next_payday, result.cadence) == (Detection.FLOATME_V2, None, "NONE")
    assert "irregular" in (result.reason or "")
    assert result.fm is not None and result.fm.next_payday is not None  # kept for the capture row


def test_the_legacy_guess_answers_when_v2_has_too_little_history() -> None:
    # GIVEN ten days of history holding two weekly paychecks
    rows = on_schedule(Schedule.weekly(4), "2026-09-18", "2026-09-28") + spending("2026-09-18", "2026-09-28")
    result = run_chain(rows, AS_OF)
    assert result.detection_used is Detection.FLOATME and result.next_payday == d("2026-10-02")
    assert result.errors[Detection.FLOATME_V2].error == "InsufficientHistoryError"
    assert result.v2 is None


def test_the_legacy_guess_answers_when_v2_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_: Any, **__: Any) -> Any:
        raise RuntimeError("model bug")

    monkeypatch.setattr(v2, "analyse", broken)
    result = run_chain(biweekly_payroll(), AS_OF)
    assert result.detection_used is Detection.FLOATME and result.next_payday is not None
    assert result.errors[Detection.FLOATME_V2].to_dict() == {
        "algorithm": "FLOATME_V2_PAYDAY_CALCULATION",
        "error": "RuntimeError",
        "message": "model bug",
    }


def test_v2_off_uses_the_legacy_guess() -> None:
    result = run_chain(biweekly_payroll(), AS_OF, used_v2=False)
    assert result.detection_used is Detection.FLOATME and result.v2 is None and not result.used_v2


def test_no_usable_income_history_is_no_date_cadence_none_and_the_reason() -> None:
    result = predict(spending("2026-09-20", "2026-09-28"), AS_OF)
    assert (result.next_payday, result.cadence) == (None, "NONE")
    assert "fewer than two income deposits" in (result.reason or "")
    assert "FLOATME_V2_PAYDAY_CALCULATION" in (result.reason or "")


def test_capture_payload_holds_every_answer_and_is_json() -> None:
    pave = PaveIncome(d("2026-09-01"), "BIWEEKLY")  # stale: recorded as Pave's error
    result = run_chain(biweekly_payroll(), AS_OF, used_pave_v2=True, pave_income=pave)
    payload = json.loads(json.dumps(result.capture()))
    assert payload["detection_used"] == "FLOATME_V2_PAYDAY_CALCULATION"
    assert (payload["used_v2"], payload["used_pave_v2"]) == (True, True)
    assert payload["next_date"] == "2026-10-02" and payload["frequency"] == "BIWEEKLY"
    assert payload["v2"]["instant"] == "2026-10-02" and payload["v2"]["standard"] == "2026-10-05"
    assert payload["v2"]["extended"] == "2026-10-16"
    assert payload["fm"]["algorithm"] == "FLOATME_PAYDAY_CALCULATION"
    assert payload["pave"] is None and payload["errors"]["PAVE_PAYDAY_CALCULATION"]["error"] == "PaveUnavailableError"


def test_filtered_transactions_are_the_payroll_candidates() -> None:
    rows = [*biweekly_payroll(), txn("2026-09-10", -20_000, "Zelle payment from JORDAN SMITH")]
    payload = predict(rows, AS_OF).filtered_txns_payload()
    assert payload and all("ACME CORP" in t["name"] for t in payload)
    assert {t["date"] for t in payload} >= {"2026-09-04", "2026-09-18"}


def test_a_transaction_breaking_the_contract_is_a_typed_error() -> None:
    with pytest.raises(InvalidTransactionError):
        predict([*biweekly_payroll(), txn("2026-09-01", 12.5, "BAD AMOUNT")], AS_OF)


# --- every answer on a business day -----------------------------------------------------------------


def test_a_pave_payday_on_a_holiday_friday_moves_to_the_business_day_before_and_says_so() -> None:
    # GIVEN Pave's next date every other Friday, that Friday being Christmas Day 2026
    as_of = d("2026-12-20")
    rows = on_schedule(Schedule.biweekly(d("2026-12-11")), "2026-09-01", "2026-12-20") + spending(
        "2026-09-01", "2026-12-20"
    )
    pave = PaveIncome(d("2026-12-25"), "BIWEEKLY", "ACME")
    # WHEN the chain answers from Pave
    result = run_chain(rows, as_of, used_pave_v2=True, pave_income=pave)
    # THEN Thursday the 24th, saying the date given was the 25th; the collection dates follow it
    assert (result.detection_used, result.next_payday, result.moved_from) == (
        Detection.PAVE,
        d("2026-12-24"),
        d("2026-12-25"),
    )
    assert result.collection is not None
    assert (result.collection.instant, result.collection.standard, result.collection.extended) == (
        d("2026-12-24"),
        d("2026-12-28"),
        d("2027-01-08"),
    )
    payload = json.loads(json.dumps(result.capture()))
    assert payload["moved_from"] == "2026-12-25" and payload["pave"]["moved_from"] == "2026-12-25"
    # AND V2, run on the same history, is on the same business day, with nothing to move
    alone = predict(rows, as_of)
    assert (alone.next_payday, alone.moved_from) == (d("2026-12-24"), None)


def test_a_pave_date_whose_business_day_before_is_not_ahead_falls_through_to_v2() -> None:
    # GIVEN Pave's next date on Saturday 3 October 2026, evaluated on Friday the 2nd
    as_of = d("2026-10-02")
    result = run_chain(biweekly_payroll(), as_of, used_pave_v2=True, pave_income=PaveIncome(d("2026-10-03"), "WEEKLY"))
    # THEN Pave has no payday to give (Friday is today), and V2 answers
    assert result.detection_used is Detection.FLOATME_V2 and result.next_payday == d("2026-10-16")
    assert result.errors[Detection.PAVE].error == "ClosedPaydayError"


def test_the_legacy_guess_says_when_it_moved_its_date() -> None:
    # GIVEN wages every 14 days from Friday 13 November 2026 (the legacy guess alone: V2 off);
    # the projected next one is Christmas Day
    rows = on_schedule(Schedule.biweekly(d("2026-11-13")), "2026-11-01", "2026-12-12") + spending(
        "2026-11-01", "2026-12-12"
    )
    result = run_chain(rows, d("2026-12-12"), used_v2=False)
    # THEN Thursday the 24th, saying the projected day was the 25th
    assert (result.detection_used, result.next_payday, result.moved_from) == (
        Detection.FLOATME,
        d("2026-12-24"),
        d("2026-12-25"),
    )
    # AND an answer on a business day says nothing moved
    assert run_chain(biweekly_payroll(), AS_OF).moved_from is None


def test_an_answer_moved_off_a_closed_day_moves_its_readings_with_it() -> None:
    # GIVEN an answer of Friday 25 December 2026 (Christmas), one reading on it and one two weeks on
    answer = PaydayPrediction(
        Detection.FLOATME_V2,
        d("2026-12-25"),
        "BIWEEKLY",
        0.9,
        upcoming=(d("2026-12-25"), d("2027-01-08")),
        readings=((0.8, (d("2026-12-25"), d("2027-01-08"))), (0.2, (d("2027-01-08"),))),
    )
    # WHEN put on business days
    moved = answer.on_business_day(d("2026-12-20"))
    # THEN the answer and its reading are on Thursday the 24th; the other reading keeps its Friday
    assert moved.next_payday == d("2026-12-24")
    assert moved.readings == ((0.8, (d("2026-12-24"), d("2027-01-08"))), (0.2, (d("2027-01-08"),)))
