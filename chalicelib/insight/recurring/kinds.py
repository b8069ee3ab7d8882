"""What a stream is by its charges' categories: a bill, a card's autopay, everyday spending."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from chalicelib.insight.payees import is_card_payment
from chalicelib.insight.transactions import Txn


class Kind(StrEnum):
    """What a stream pays, so that an expenses view can show or hide it."""

    BILL = "bill"  # a subscription, a utility, rent, a loan, insurance: money spent
    CARD_PAYMENT = "card_payment"  # a credit card's autopay from checking: it pays the card's own charges


#: Everyday spending: frequent, near-regular, never a bill by itself.
_EVERYDAY_PFC_PREFIXES = (
    "FOOD_AND_DRINK_",
    "TRANSPORTATION_GAS",
    "TRANSPORTATION_PUBLIC_TRANSIT",
    "TRANSPORTATION_TAXIS_AND_RIDE_SHARES",
    "GENERAL_MERCHANDISE_SUPERSTORES",
    "PERSONAL_CARE_HAIR_AND_BEAUTY",
)


#: Everyday services paid per visit, where no plan is sold (see ``is_membership``).
PER_VISIT_PFC_PREFIXES = ("PERSONAL_CARE_HAIR_AND_BEAUTY",)


#: Categories of bills whose amount varies from one charge to the next.
_BILL_PFC_PREFIXES = ("RENT_AND_UTILITIES_", "GENERAL_SERVICES_INSURANCE", "LOAN_PAYMENTS_")


#: Bills that people pay by card as often as by debit.
CARD_PAID_BILLS = ("RENT_AND_UTILITIES_TELEPHONE", "RENT_AND_UTILITIES_INTERNET_AND_CABLE")


def is_everyday(txns: Sequence[Txn]) -> bool:
    """At least half the charges that carry a category carry an everyday one, and more than carry
    a bill's (a rent debit miscategorised once is still rent; a haircut once filed under general
    merchandise is still a haircut)."""
    categorised = [t.pfc_detailed for t in txns if t.pfc_detailed]
    everyday = sum(c.startswith(_EVERYDAY_PFC_PREFIXES) for c in categorised)
    bills = sum(c.startswith(_BILL_PFC_PREFIXES) for c in categorised)
    return everyday > bills and 2 * everyday >= len(categorised)


def kind_of(txns: Sequence[Txn]) -> Kind:
    cards = sum(is_card_payment(t) for t in txns)
    return Kind.CARD_PAYMENT if 2 * cards >= len(txns) else Kind.BILL


def mostly_bills(txns: Sequence[Txn]) -> bool:
    """Most charges that carry a category carry a bill's (some carry none)."""
    bills = sum(is_bill_charge(t) for t in txns)
    return bills > 0 and 2 * bills >= sum(1 for t in txns if t.pfc_detailed)


def is_bill_charge(txn: Txn) -> bool:
    return bool(txn.pfc_detailed and txn.pfc_detailed.startswith(_BILL_PFC_PREFIXES))
