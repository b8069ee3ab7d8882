"""Payroll-candidate selection: what may be a paycheck, and how deposits group into streams."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from chalicelib.insight.payday.candidates import Evidence, candidate_streams, exclusion, payer_key
from chalicelib.insight.transactions import parse, visible
from tests.insight.builders import d, paycheck, txn


def streams(rows: list[dict[str, Any]]) -> dict[tuple[str, str], Any]:
    return {(s.payer, s.account_id): s for s in candidate_streams(visible(rows, d("2026-12-31")))}


def pfc(detailed: str) -> dict[str, str]:
    primaries = ("INCOME", "TRANSFER_IN", "LOAN_DISBURSEMENTS", "GENERAL_MERCHANDISE")
    return {"primary": next(p for p in primaries if detailed.startswith(p)), "detailed": detailed}


@pytest.mark.parametrize(
    ("name", "pfc", "reason"),
    [
        ("Zelle payment from JORDAN SMITH 8812", None, "p2p"),
        ("VENMO CASHOUT MARIA GARCIA", pfc("TRANSFER_IN_ACCOUNT_TRANSFER"), "p2p"),
        ("CASH APP*DAVID NGUYEN*CASH OUT", None, "p2p"),
        ("EARNIN ACTIVEHOURS", None, "cash advance"),
        ("MONEYLION INSTACASH", pfc("INCOME_OTHER_INCOME"), "cash advance"),
        ("DAVE INC", pfc("TRANSFER_IN_CASH_ADVANCES_AND_LOANS"), "cash advance"),
        ("SOME APP", pfc("LOAN_DISBURSEMENTS_EWA"), "cash advance"),
        ("QUICK CASH", pfc("LOAN_DISBURSEMENTS_CASH_ADVANCES"), "cash advance"),
        ("IRS TREAS 310 TAX REF", pfc("INCOME_TAX_REFUND"), "tax refund"),
        ("STATE OF CA FTB TAX REFUND", None, "tax refund"),
        ("BANK BONUS", pfc("INCOME_INTEREST_EARNED"), "interest"),
        ("AMAZON REFUND", pfc("GENERAL_MERCHANDISE_ONLINE_MARKETPLACES"), "refund"),
        ("INTEREST PAYMENT", None, "interest"),
        ("ONLINE TRANSFER FROM SAV ...7730", None, "own transfer"),
        ("ATM CASH DEPOSIT", None, "cash deposit"),
    ],
)
def test_inflows_that_are_never_paychecks(name: str, pfc: dict[str, str] | None, reason: str) -> None:
    assert exclusion(parse(txn("2026-11-02", -50_000, name, personal_finance_category=pfc))) == reason


def test_a_paycheck_is_not_excluded() -> None:
    assert exclusion(parse(paycheck(d("2026-11-13")))) is None


@pytest.mark.parametrize(
    "name",
    [
        "ACME CORP DES:PAYROLL ID:4327772035 INDN:PAT DOE CO ID:5773232992 PPD",
        "ACME CORP PAYROLL PPD ID: 5773232992",
        "ACME CORP DIR DEP 607850 6705",
        "ACH DEPOSIT ACME CORP DIRECT DEP",
        "DEPOSIT ACH ACME CORP TYPE: PAYROLL CO: ACME CORP",
        "ACME CORP",
        "ORIG CO NAME:ACME CORP CO ENTRY DESCR:PAYROLL SEC:PPD TRACE#:123456 EED:261113",
        "ORIG CO NAME:ACME CORP ORIG ID:1234567890 DESC DATE:261113 CO ENTRY DESCR:PAYROLL SEC:PPD TRACE#:1",
        "ORIG CO NAME:ACME CORP CO ENTRY",  # truncated by the bank
        "ACME CORP PAYROLL 7K2M9X",  # a reference of letters and digits
        "ACH CREDIT ACME CORP SALARY Q4X8 2JH7",
    ],
)
def test_one_employer_reads_the_same_in_every_bank_format(name: str) -> None:
    assert payer_key(parse(txn("2026-11-13", -1, name))) == "ACME CORP"


def test_a_payroll_processors_deposits_read_as_one_payer_whatever_their_reference() -> None:
    # GIVEN the lines a processor writes for one employer, each with its own reference
    keys = {payer_key(parse(txn("2026-11-13", -1, f"GUSTO PAY {ref}"))) for ref in ("58C7D4RBVH", "NK9NKK", "7EJLVUW4")}
    # THEN one payer: a word with a digit in it is a reference, not a name
    assert keys == {"GUSTO"}


def test_federal_benefits_key_by_program() -> None:
    assert payer_key(parse(txn("2026-11-13", -1, "SSA TREAS 310 XXSOC SEC"))) == "SSA"
    assert payer_key(parse(txn("2026-11-13", -1, "SSA TREAS 310 DES:XXSOC SEC ID:1 INDN:X CO ID:2 PPD"))) == "SSA"
    assert payer_key(parse(txn("2026-11-13", -1, "SSI TREAS 310 XXSUPP SEC"))) == "SSI"


def test_an_inflow_matched_by_an_outflow_from_another_own_account_is_a_transfer() -> None:
    # GIVEN 500.00 leaving savings and arriving in checking the next day, with no category
    rows = [
        txn("2026-11-02", 50_000, "WITHDRAWAL", account_id="sav"),
        txn("2026-11-03", -50_000, "DEPOSIT 0042"),
        *[paycheck(d("2026-11-06") + timedelta(days=14 * k)) for k in range(3)],
    ]
    # THEN only the payroll is a candidate
    assert list(streams(rows)) == [("ACME CORP", "chk")]


def test_split_deposits_make_one_stream_per_account() -> None:
    days = [d("2026-10-02") + timedelta(days=14 * k) for k in range(4)]
    rows = [paycheck(day, 120_000) for day in days] + [paycheck(day, 30_000, account_id="sav") for day in days]
    found = streams(rows)
    assert set(found) == {("ACME CORP", "chk"), ("ACME CORP", "sav")}
    assert found[("ACME CORP", "chk")].median_cents() == 120_000


def test_categories_in_either_taxonomy_or_payroll_wording_make_income_evidence() -> None:
    v2 = {"primary": "INCOME", "detailed": "INCOME_SALARY"}
    rows = [
        txn("2026-11-06", -90_000, "NORTHWIND", personal_finance_category=v2),
        txn("2026-11-20", -90_000, "NORTHWIND", personal_finance_category=v2),
        txn("2026-11-06", -80_000, "GLOBEX DIR DEP"),
        txn("2026-11-20", -80_000, "GLOBEX DIR DEP"),
        txn("2026-11-06", -70_000, "SIDE HUSTLE LLC"),
        txn("2026-11-20", -70_000, "SIDE HUSTLE LLC"),
    ]
    found = {payer: s.evidence for (payer, _), s in streams(rows).items()}
    assert found == {"NORTHWIND": Evidence.INCOME, "GLOBEX": Evidence.INCOME, "SIDE HUSTLE LLC": Evidence.UNLABELLED}


def test_a_stream_labelled_as_transfers_more_than_income_is_dropped() -> None:
    moved = {"primary": "TRANSFER_IN", "detailed": "TRANSFER_IN_ACCOUNT_TRANSFER"}
    rows = [txn(f"2026-11-{n:02d}", -20_000, "SAVINGS SWEEP", personal_finance_category=moved) for n in (2, 9, 16)]
    assert streams(rows) == {}


def test_gig_platforms_are_flagged() -> None:
    rows = [txn(f"2026-11-{n:02d}", -4_000, "DOORDASH DASHER PAYOUT") for n in (2, 3, 5)]
    (stream,) = streams(rows).values()
    assert stream.gig


def test_same_day_deposits_of_a_payer_merge() -> None:
    rows = [paycheck(d("2026-11-13"), 100_000), paycheck(d("2026-11-13"), 5_000)]
    (stream,) = streams(rows).values()
    assert [(dep.day, dep.cents) for dep in stream.deposits] == [(d("2026-11-13"), 105_000)]


def test_a_payer_cut_short_by_the_bank_is_the_same_payer() -> None:
    # GIVEN descriptions a bank cuts at 40 characters, in the middle of a NACHA label
    whole = "ORIG CO NAME:EVERGREEN UTILITIES CO ENTRY DESCR:PAYROLL SEC:PPD"
    rows = [txn("2026-10-02", -90_000, whole), txn("2026-10-16", -90_000, whole[:40])]
    # THEN one payer, spelt the shorter way
    assert [payer for payer, _ in streams(rows)] == ["EVERGREEN UTILITIES"]
