"""Income detection's pure entry point: exclusions, each method, how they combine, the streams."""

from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from chalicelib.insight import income
from chalicelib.insight.income import METHODS, detect, load_model
from chalicelib.insight.income import model as income_model
from chalicelib.insight.income.methods import RULES
from chalicelib.insight.income.profile import profiles
from chalicelib.insight.income_detection import pay_frequency, run_record
from chalicelib.insight.schedule import Schedule
from chalicelib.insight.transactions import visible
from tests.insight.builders import d, on_schedule, spending, txn

AS_OF = d("2026-11-20")
START = "2026-07-24"
#: Biweekly Fridays; the last one a week before ``AS_OF``.
BIWEEKLY = Schedule.biweekly(d("2026-11-13"))


LOAN = {"primary": "LOAN_DISBURSEMENTS", "detailed": "LOAN_DISBURSEMENTS_PERSONAL"}


def pfc(detailed: str) -> dict[str, str]:
    return {"primary": "INCOME" if detailed.startswith("INCOME") else "TRANSFER_IN", "detailed": detailed}


def deposits(days: list[date], cents: int, name: str, **kw: Any) -> list[dict[str, Any]]:
    return [txn(day, -cents, name, **kw) for day in days]


def fridays(every: int = 2, count: int = 8) -> list[date]:
    return [d("2026-11-13") - timedelta(days=7 * every * k) for k in range(count)][::-1]


def verdicts(rows: list[dict[str, Any]], **kw: Any) -> dict[str, income.StreamVerdict]:
    return {v.profile.stream.payer: v for v in detect(rows, AS_OF, **kw).streams}


def test_inflows_that_are_never_income_make_no_stream() -> None:
    # GIVEN a paycheck stream and, around it, every kind of money in that is not income
    rows = on_schedule(BIWEEKLY, START, "2026-11-20") + spending(START, "2026-11-20")
    rows += deposits(fridays(4, 4), 40_000, "Zelle payment from JORDAN SMITH 8812")
    rows += deposits([d("2026-09-03")], 2_599, "AMAZON REFUND")
    rows += deposits([d("2026-10-01"), d("2026-11-02")], 50_000, "ONLINE TRANSFER FROM SAV ...7730")
    rows += deposits(
        [d("2026-08-12")], 120_000, "IRS TREAS 310 TAX REF", personal_finance_category=pfc("INCOME_TAX_REFUND")
    )
    rows += deposits(fridays(2, 6), 10_000, "EARNIN ACTIVEHOURS")
    rows += deposits([d("2026-09-15")], 500_000, "QUICK LOANS INC", personal_finance_category=LOAN)
    # WHEN income is detected
    found = detect(rows, AS_OF)
    # THEN only the paycheck is a stream, and it is income
    assert [v.profile.stream.payer for v in found.streams] == ["ACME CORP"]
    assert [v.payer for v in found.income_streams] == ["Acme Corp"]


@pytest.mark.parametrize("category", ["INCOME_WAGES", "INCOME_SALARY", "INCOME_GIG_ECONOMY", "INCOME_OTHER"])
def test_a_reads_plaid_income_categories_in_both_taxonomies(category: str) -> None:
    rows = deposits(
        [d("2026-10-02"), d("2026-11-13")], 90_000, "NORTHWIND 7781", personal_finance_category=pfc(category)
    )
    [p] = profiles(visible(rows, AS_OF), AS_OF)
    assert RULES["a"](p)
    assert not RULES["b"](p)


def test_a_does_not_take_a_tax_refund_category_or_a_minority() -> None:
    rows = deposits([d("2026-10-02"), d("2026-10-16")], 90_000, "NORTHWIND 7781")
    rows += deposits([d("2026-10-30")], 90_000, "NORTHWIND 7781", personal_finance_category=pfc("INCOME_WAGES"))
    [p] = profiles(visible(rows, AS_OF), AS_OF)
    assert not RULES["a"](p)  # one of three


@pytest.mark.parametrize(
    "name",
    [
        "GLOBEX DES:PAYROLL ID:88 PPD",
        "DIRECT DEP GLOBEX",
        "SSA TREAS 310 XXSOC SEC",
        "NYS DOL UI DD",
        "CHILD SUPPORT PMT",
        "CALPERS RETIREMENT",
        "DOORDASH DASHER PAYOUT",
    ],
)
def test_b_reads_pay_benefit_and_gig_wording(name: str) -> None:
    [p] = profiles(visible(deposits([d("2026-10-02"), d("2026-11-13")], 60_000, name), AS_OF), AS_OF)
    assert RULES["b"](p)


def test_c_finds_a_payer_by_its_schedule_alone_and_d_by_its_regularity() -> None:
    # GIVEN biweekly deposits with no category and no pay wording
    rows = deposits(BIWEEKLY.dates(d(START), AS_OF), 130_000, "ZENITH AIRLINES 4471123") + spending(START, "2026-11-20")
    [p] = profiles(visible(rows, AS_OF), AS_OF)
    # THEN neither a nor b, but c and d
    assert [name for name, rule in RULES.items() if rule(p)] == ["c", "d"]


def test_c_and_d_want_a_meaningful_amount_and_d_steady_amounts() -> None:
    small = deposits(BIWEEKLY.dates(d(START), AS_OF), 4_000, "ZENITH AIRLINES 4471123")
    [p] = profiles(visible(small, AS_OF), AS_OF)
    assert not RULES["c"](p) and not RULES["d"](p)
    wobbly = [
        txn(day, -(50_000 if n % 2 else 150_000), "ZENITH AIRLINES 4471123")
        for n, day in enumerate(BIWEEKLY.dates(d(START), AS_OF))
    ]
    [p] = profiles(visible(wobbly, AS_OF), AS_OF)
    assert RULES["c"](p) and not RULES["d"](p)


def unlabelled_schedule_and_a_one_off() -> list[dict[str, Any]]:
    """A plain-named biweekly payer (c and d only) and a one-off labelled income (a and b)."""
    rows = deposits(BIWEEKLY.dates(d(START), AS_OF), 130_000, "ZENITH AIRLINES 4471123")
    rows += deposits([d("2026-10-20")], 30_000, "GLOBEX PAYROLL", personal_finance_category=pfc("INCOME_WAGES"))
    return rows + spending(START, "2026-11-20")


def test_without_the_model_two_rule_methods_must_agree() -> None:
    found = detect(unlabelled_schedule_and_a_one_off(), AS_OF, ml_enabled=False)
    assert (found.ml_enabled, found.ml_results_used, found.ml_prediction_id) == (False, False, None)
    by_payer = {v.profile.stream.payer: v for v in found.streams}
    assert by_payer["ZENITH AIRLINES"].methods == ("c", "d") and by_payer["ZENITH AIRLINES"].income
    assert by_payer["GLOBEX"].methods == ("a", "b") and by_payer["GLOBEX"].income
    assert by_payer["ZENITH AIRLINES"].confidence == 0.5 and by_payer["ZENITH AIRLINES"].probability is None
    assert found.ml_probabilities == [] and found.ml_predictions() == []
    assert set(found.method_results()) == {"a", "b", "c", "d"}


def test_with_the_model_its_probability_decides() -> None:
    # GIVEN the committed model
    model = load_model()
    found = detect(unlabelled_schedule_and_a_one_off(), AS_OF)
    # THEN each stream's verdict is its probability against the threshold, and it is recorded
    assert found.ml_results_used and found.ml_prediction_id == model.prediction_id
    for v in found.streams:
        assert v.probability is not None
        assert v.income == (v.probability >= model.threshold) and v.confidence == v.probability
        assert ("ml" in v.methods) == v.income
    assert found.ml_probabilities == [round(v.probability or 0, 4) for v in found.streams]
    assert [p["income"] for p in found.ml_predictions()] == [v.income for v in found.streams]
    assert set(found.method_results()) == set(METHODS)


def test_unusable_weights_leave_the_rules_to_decide(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN weights trained on other features
    weights = json.loads(income_model.WEIGHTS_PATH.read_text())
    bad = tmp_path / "weights.json"
    bad.write_text(json.dumps({**weights, "features": weights["features"][::-1]}))
    monkeypatch.setattr(income_model, "WEIGHTS_PATH", bad)
    # WHEN income is detected with the model enabled
    found = detect(unlabelled_schedule_and_a_one_off(), AS_OF)
    # THEN the rules decide and the run says why
    assert found.ml_enabled and not found.ml_results_used
    assert found.ml_error is not None and "other features" in found.ml_error
    assert all(v.probability is None for v in found.streams)


def test_a_stream_reports_cadence_amount_next_date_and_status() -> None:
    rows = on_schedule(BIWEEKLY, START, "2026-11-20", cents=152_310) + spending(START, "2026-11-20")
    [v] = detect(rows, AS_OF).income_streams
    assert (v.cadence, v.typical_cents, v.next_date, v.status) == ("BIWEEKLY", 152_310, d("2026-11-27"), "ACTIVE")
    assert v.latest.day == d("2026-11-13") and pay_frequency(v.cadence).value == "BIWEEKLY"


def test_a_stopped_payer_has_ended_and_no_next_date() -> None:
    rows = on_schedule(BIWEEKLY, START, "2026-09-20") + spending(START, "2026-11-20")
    [v] = detect(rows, AS_OF).streams
    assert v.status == "ENDED" and v.next_date is None


def test_payouts_on_no_schedule_are_irregular() -> None:
    days = [d("2026-08-01") + timedelta(days=k * k % 11 + 3 * k) for k in range(12)]
    rows = deposits(days, 8_000, "DOORDASH DASHER PAYOUT") + spending(START, "2026-11-20")
    [v] = detect(rows, AS_OF).streams
    assert v.cadence == "IRREGULAR" and v.next_date is None and pay_frequency(v.cadence).value == "UNKNOWN"


def test_the_run_row_stores_each_methods_transactions_newest_first() -> None:
    found = detect(unlabelled_schedule_and_a_one_off(), AS_OF, ml_enabled=False)
    run = run_record("u1", AS_OF, found)  # type: ignore[arg-type]
    assert set(run.method_results) == {"a", "b", "c", "d"}
    stored = run.method_results["c"]
    assert [t["date"] for t in stored] == sorted((t["date"] for t in stored), reverse=True)
    assert {t["payer"] for t in stored} == {"ZENITH AIRLINES"}
    assert run.details["income_streams"][0]["methods"] == ["c", "d"]
