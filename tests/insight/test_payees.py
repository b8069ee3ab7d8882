"""Payees: keys that survive the ways banks print a line, readable names, own-account transfers."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from chalicelib.insight.payees import (
    bank_prefixes,
    is_card_payment,
    is_own_transfer,
    line_authorization_day,
    merchant_key,
    paired_transfers,
    payee_groups,
    readable_name,
    unnamed_p2p,
)
from chalicelib.insight.transactions import Txn, parse


def txn(name: str, *, merchant: str | None = None, amount: int = 1000, **overrides: Any) -> Txn:
    raw: dict[str, Any] = {
        "txn_id": overrides.pop("txn_id", name[:12]),
        "account_id": "chk",
        "amount": amount,
        "date": "2026-04-01",
        "name": name,
        "merchant_name": merchant,
        **overrides,
    }
    return parse(raw)


@pytest.mark.parametrize(
    ("line", "merchant", "key"),
    [
        ("NETFLIX.COM 866-579-7172 CA", None, "NETFLIX"),
        ("Netflix.com Los Gatos CA", None, "NETFLIX"),
        ("anything", "Netflix", "NETFLIX"),
        ("PURCHASE AUTHORIZED ON 01/07 SIRIUSXM 888-635-5144 NY", None, "SIRIUSXM"),
        ("DEBIT CARD PURCHASE - SQ *BLUE BOTTLE COFFEE AUSTIN", None, "BLUE"),
        ("PAYPAL *HULU 402-935-7733 CA", None, "HULU"),
        ("ACH DEBIT CON ED OF NY INTELL CK 8812", None, "CON"),
        ("T-MOBILE AUTO PAY 9636164194", None, "TMOBILE"),
        ("TMOBILE*AUTO PAY 800-937-8997 WA", None, "TMOBILE"),
        ("ZELLE PAYMENT TO MARIA ALVAREZ JPM99B1XYZ", None, "ZELLE MARIA ALVAREZ"),
    ],
)
def test_the_payee_key_ignores_card_ach_and_processor_noise(line: str, merchant: str | None, key: str) -> None:
    assert merchant_key(txn(line, merchant=merchant)) == key


def test_variants_of_one_payee_are_grouped_and_different_payees_are_not() -> None:
    rows = [
        txn("NY SDU CHILD SUPPORT PMT 8812", txn_id="a"),
        txn("CHILD SUPPORT SDU NY 8812", txn_id="b"),
        txn("GOOGLE *YouTubePremium g.co/helppay#", txn_id="c"),
        txn("x", merchant="YouTube Premium", txn_id="d"),
        txn("ZELLE PAYMENT TO MARIA ALVAREZ 1", txn_id="e"),
        txn("ZELLE PAYMENT TO JOHN KIM 2", txn_id="f"),
    ]
    groups = sorted(sorted(t.txn_id for t in group) for group in payee_groups(rows))
    assert groups == [["a", "b"], ["c", "d"], ["e"], ["f"]]


def test_a_utility_named_after_a_city_is_not_joined_with_the_card_lines_ending_in_that_city() -> None:
    # GIVEN a utility keyed by its first word, and card lines whose descriptors end with the city
    rows = [
        txn("ACH DEBIT SEATTLE CITY LIGHT UTIL PMT", txn_id="a"),
        txn("ACH DEBIT SEATTLE CITY LIGHT UTIL PMT", txn_id="b"),
        txn("KROGER #0049 SEATTLE WA", txn_id="c"),
        txn("CHEESECAKE FACTORY #954 SEATTLE WA", txn_id="d"),
    ]
    # WHEN the charges are grouped by payee
    groups = sorted(sorted(t.txn_id for t in group) for group in payee_groups(rows))
    # THEN the city's word alone joins nothing: each payee is its own group
    assert groups == [["a", "b"], ["c"], ["d"]]


def test_two_payees_plaid_names_apart_are_two_groups_though_their_keys_agree() -> None:
    # GIVEN a city's two utilities, both keyed by the city's name, one of them also printed
    # without a merchant name; a shop and its membership; a streaming service's two plans
    rows = [
        txn("ACH DEBIT SEATTLE CITY LIGHT UTIL PMT", merchant="Seattle City Light", txn_id="a"),
        txn("ACH DEBIT SEATTLE CITY LIGHT UTIL PMT 0412", txn_id="b"),
        txn("BILLPAY SEATTLE PUBLIC UTIL", merchant="Seattle Public Utilities", txn_id="c"),
        txn("AMAZON.COM*2K4L81 AMZN.COM/BILL WA", merchant="Amazon", txn_id="d"),
        txn("Amazon Prime*MVV7017WJG", merchant="Amazon Prime", txn_id="e"),
        txn("GOOGLE *YOUTUBE TV", merchant="YouTube TV", txn_id="f"),
        txn("GOOGLE *YOUTUBEPREMIUM", merchant="YouTube Premium", txn_id="g"),
        txn("SEATTLE PARKING", txn_id="h"),
        txn("SPECTRUM 855-707-7328", merchant="Spectrum", txn_id="i"),
        txn("CHARTER COMMUNICATIONS SPECTRUM", merchant="Charter Spectrum", txn_id="j"),
    ]
    # WHEN the charges are grouped by payee
    groups = sorted(sorted(t.txn_id for t in group) for group in payee_groups(rows))
    # THEN each utility is its own payee, the unnamed line going with the one it names; a shop
    # and its membership stay one payee (a name and its extension), as do the names Plaid gives
    # one cable company; the two plans are two; a line that names neither utility is apart
    assert groups == [["a", "b"], ["c"], ["d", "e"], ["f"], ["g"], ["h"], ["i", "j"]]


def test_a_line_plaid_left_unnamed_goes_with_the_merchant_that_prints_it() -> None:
    # GIVEN Hulu's line, named by Plaid on one charge and not on another; Max's line likewise;
    # and a gym's line whose only word of three letters is the city, beside a dentist there
    rows = [
        txn("CHECKCARD 1006 HLU*HULUPLUS 888-265-6650 CA", merchant="Hulu", txn_id="a"),
        txn("CHECKCARD 1104 HLU*HULUPLUS 888-265-6650 CA", txn_id="b"),
        txn("CHECKCARD 0818 HBOMAX.COM 855-442-6629 NY", merchant="Max", txn_id="c"),
        txn("CHECKCARD 0919 HBOMAX.COM 855-442-6629 NY", txn_id="d"),
        txn("DEBIT CARD PURCHASE PF MIAMI 7031 FL", merchant="Planet Fitness", txn_id="e"),
        txn("DEBIT CARD PURCHASE PF MIAMI 7031 FL", txn_id="f"),
        txn("MIAMI DENTAL GROUP FL", txn_id="g"),
    ]
    # WHEN the charges are grouped by payee
    groups = sorted(sorted(t.txn_id for t in group) for group in payee_groups(rows, bank_prefixes(rows)))
    # THEN each unnamed charge is its merchant's, the gym's too, though its own key, the city's
    # name, is the dentist's
    assert groups == [["a", "b"], ["c", "d"], ["e", "f"], ["g"]]


def test_a_line_keyed_by_a_city_goes_apart_from_the_utility_named_after_it() -> None:
    # GIVEN Seattle City Light, named by Plaid once and not once, a dentist's line that begins
    # with the city's name, and card lines ending with it (so the city is a place here)
    rows = [
        txn("SEATTLE CITY LIGHT DES:UTIL PMT ID:X7983", merchant="Seattle City Light", txn_id="a"),
        txn("SEATTLE CITY LIGHT DES:UTIL PMT ID:X7983 INDN:W", txn_id="b"),
        txn("CHECKCARD 0505 SEATTLE DENTAL GROUP WA 8115792", txn_id="c"),
        txn("CHECKCARD 0202 SEATTLE DENTAL GROUP WA 1869921", txn_id="d"),
        txn("KROGER #0049 SEATTLE WA", txn_id="e"),
        txn("CVS/PHARMACY #8812 SEATTLE WA", txn_id="f"),
        txn("PANERA BREAD #829996 SEATTLE WA", txn_id="g"),
    ]
    # WHEN the charges are grouped by payee
    groups = sorted(sorted(t.txn_id for t in group) for group in payee_groups(rows, bank_prefixes(rows)))
    # THEN the dentist is a payee of its own, not the utility's
    assert ["a", "b"] in groups and ["c", "d"] in groups


@pytest.mark.parametrize(
    ("line", "merchant", "name"),
    [
        ("NETFLIX.COM 866-579-7172 CA", "Netflix", "Netflix"),
        ("NETFLIX.COM 866-579-7172 CA", None, "Netflix"),
        ("ACH DEBIT CON ED OF NY INTELL CK 8812", None, "Con Ed"),
        ("AVALONBAY COMMUN DES:WEB PMTS ID:55 INDN:JANE DOE", None, "Avalonbay Commun"),
        ("ZELLE PAYMENT TO MARIA ALVAREZ JPM99B1XYZ", None, "Zelle to Maria Alvarez"),
    ],
)
def test_the_readable_name_is_plaids_merchant_or_the_lines_payee_words(
    line: str, merchant: str | None, name: str
) -> None:
    assert readable_name([txn(line, merchant=merchant)]) == name


@pytest.mark.parametrize(
    ("line", "overrides"),
    [
        ("ANYTHING", {"personal_finance_category": {"primary": "TRANSFER_OUT", "detailed": "TRANSFER_OUT_SAVINGS"}}),
        ("ANYTHING", {"category": ["Payment", "Credit Card"]}),
        ("ONLINE TRANSFER TO SAV XXXXXX4821", {}),
        ("ATM WITHDRAWAL 8812 AUSTIN TX", {}),
        ("CHASE CREDIT CRD AUTOPAY PPD ID: 4471", {}),
        ("ACORNS INVEST 8812 WEB", {}),
    ],
)
def test_own_account_money_movements_are_recognised(line: str, overrides: dict[str, Any]) -> None:
    assert is_own_transfer(txn(line, **overrides))


def test_payments_to_other_people_and_bills_are_not_own_transfers() -> None:
    zelle = txn(
        "ZELLE TRANSFER TO MARIA ALVAREZ",
        personal_finance_category={"primary": "TRANSFER_OUT", "detailed": "TRANSFER_OUT_ACCOUNT_TRANSFER"},
    )
    assert not is_own_transfer(zelle)
    assert not is_own_transfer(txn("TOYOTA FINANCIAL DES:AUTOPAY ID:4471"))


def test_a_banks_own_line_prefix_is_learnt_from_the_lines_plaid_names() -> None:
    # GIVEN a bank that opens card lines with "DBT CRD" and the day, on lines of three merchants
    # Plaid names, and two lines it does not name
    named = [
        txn("DBT CRD 0424 STARZ ENTERTAINMENT 11", merchant="Starz", txn_id="a"),
        txn("DBT CRD 0502 NETFLIX.COM", merchant="Netflix", txn_id="b"),
        txn("DBT CRD 0511 SPOTIFY P3F7A2", merchant="Spotify", txn_id="c"),
    ]
    unnamed = [
        txn("DBT CRD 0424 IHEARTRADIO ALL ACCESS", txn_id="d"),
        txn("DBT CRD 0427 THE HOME DEPOT #8811", txn_id="e"),
    ]
    # WHEN the prefixes are learnt
    prefixes = bank_prefixes(named + unnamed)
    # THEN its words are the bank's, and the unnamed lines keep their own payees
    assert prefixes == {"DBT", "CRD"}
    assert [merchant_key(t, prefixes) for t in unnamed] == ["IHEARTRADIO", "HOME"]
    assert len(payee_groups(unnamed, prefixes)) == 2 and len(payee_groups(unnamed)) == 1
    assert readable_name(unnamed[:1], prefixes) == "Iheartradio All Access"
    # AND a word one merchant's lines open with (its own brand) is no prefix
    walmart = [txn("WMT PLUS 6008", merchant="Walmart", txn_id=f"w{k}") for k in range(3)]
    assert bank_prefixes(walmart) == frozenset()


def test_a_p2p_payment_is_keyed_by_whom_the_line_names_whatever_plaid_calls_it() -> None:
    to_maria = txn("VENMO *MARIA ALVAREZ", merchant="Venmo")
    to_lee = txn("PREAUTHORIZED DEBIT VENMO *LEE WONG", merchant="Venmo")
    nameless = txn("VENMO PAYMENT 1023884", merchant="Venmo")
    assert (merchant_key(to_maria), merchant_key(to_lee)) == ("VENMO MARIA ALVAREZ", "VENMO LEE WONG")
    assert unnamed_p2p(nameless) and not unnamed_p2p(to_maria)
    assert not unnamed_p2p(txn("NETFLIX.COM", merchant="Netflix"))


def test_a_card_payment_is_told_by_its_category_or_its_line_and_only_as_an_outflow() -> None:
    card_pfc = {"primary": "LOAN_PAYMENTS", "detailed": "LOAN_PAYMENTS_CREDIT_CARD_PAYMENT"}
    assert is_card_payment(txn("CITI AUTOPAY PAYMENT 8812 WEB", personal_finance_category=card_pfc))
    assert is_card_payment(txn("ANYTHING", category=["Payment", "Credit Card"]))
    assert is_card_payment(txn("CHASE CREDIT CRD AUTOPAY PPD ID: 4471"))
    assert is_card_payment(txn("WF CREDIT CARD AUTO PAY 8812"))
    # the card's side of the payment (money in) and other autopays are not
    assert not is_card_payment(txn("AUTOMATIC PAYMENT - THANK YOU", amount=-5000, personal_finance_category=card_pfc))
    assert not is_card_payment(txn("TOYOTA FINANCIAL DES:AUTOPAY ID:4471"))
    assert not is_card_payment(txn("TMOBILE*AUTO PAY 800-937-8997 WA"))


def test_counterparts_pair_one_to_one_closest_first() -> None:
    # GIVEN a 100.00 bill on the 1st, a 100.00 transfer on the 3rd, and one 100.00 inflow in the
    # savings account on the 3rd (both outflows within three days of it)
    bill = txn("GOOGLE FIBER", txn_id="a", amount=10000, date="2026-04-01")
    transfer = txn("ONLINE TRANSFER", txn_id="b", amount=10000, date="2026-04-03")
    inflow = txn("FROM CHK", txn_id="c", amount=-10000, date="2026-04-03", account_id="sav")
    same_account = txn("REFUND", txn_id="d", amount=-10000, date="2026-04-02")
    # THEN only the closest outflow is paired, and an inflow in the same account pairs nothing
    assert paired_transfers([bill, transfer, inflow, same_account]) == {"b"}


@pytest.mark.parametrize(
    ("line", "posted", "printed"),
    [
        ("PURCHASE AUTHORIZED ON 08/22 SPOTIFY USA", "2027-08-24", "2027-08-22"),
        ("CHECKCARD 0822 SPOTIFY USA", "2027-08-22", "2027-08-22"),
        ("POS PURCHASE 12/30 HULU", "2028-01-02", "2027-12-30"),  # across the new year
        ("POS PURCHASE 08/02 HULU", "2027-08-22", None),  # three weeks before posting: not its day
        ("POS PURCHASE 08/25 HULU", "2027-08-22", None),  # after posting: not its day
        ("VERIZON WIRELESS PAYMENTS 1633010058", "2027-08-22", None),  # digits of a longer number
        ("POS PURCHASE 02/30 HULU", "2027-03-02", None),  # no such day
    ],
)
def test_a_card_line_may_print_the_day_the_card_was_charged(line: str, posted: str, printed: str | None) -> None:
    # GIVEN a statement line posted on a day WHEN reading the day it prints THEN only a day of
    # the week before posting counts
    expected = date.fromisoformat(printed) if printed else None
    assert line_authorization_day(line, date.fromisoformat(posted)) == expected
