"""Institutions: full overwrite by the weekly sync, one or many read by id."""

from __future__ import annotations

import pytest

from chalicelib.data.institutions import (
    Institution,
    get_institution,
    get_institutions,
    institution_from_plaid,
    institution_item,
    put_institution,
    put_institutions,
)
from tests.conftest import new_id


def a_plaid_institution(institution_id: str, **kw: object) -> dict[str, object]:
    return {
        "institution_id": institution_id,
        "name": "First Platypus Bank",
        "products": ["auth", "transactions"],
        "country_codes": ["US"],
        "url": "https://platypus.example",
        "primary_color": "#1f1f1f",
        "logo": "iVBORw0KGgo=",
        "routing_numbers": ["011000138"],
        "dtc_numbers": [],
        "oauth": False,
        **kw,
    }


def test_row_shape() -> None:
    row = institution_item(institution_from_plaid(a_plaid_institution("ins_1", url=None)))
    assert row["institution_id"] == "ins_1"
    assert row["type"] == "INSTITUTION"
    assert row["products"] == ["auth", "transactions"]
    assert row["oauth"] is False
    assert "url" not in row


@pytest.mark.integration
def test_full_overwrite_drops_attributes_plaid_stopped_reporting(ddb: str) -> None:
    # GIVEN an institution stored with a logo
    ins = new_id("ins")
    put_institution(institution_from_plaid(a_plaid_institution(ins)))

    # WHEN the next sync reports it without a logo and with OAuth
    put_institutions([institution_from_plaid(a_plaid_institution(ins, logo=None, oauth=True))])

    # THEN the row is exactly the new report
    found = get_institution(ins)
    assert found is not None
    assert found.logo is None
    assert found.oauth is True
    assert found.routing_numbers == ("011000138",)


@pytest.mark.integration
def test_batch_get_many(ddb: str) -> None:
    # GIVEN 120 institutions (more than one BatchGetItem chunk)
    ids = [new_id("ins") for _ in range(120)]
    put_institutions(Institution(i, f"Bank {n}") for n, i in enumerate(ids))

    # WHEN read together with an unknown id and a repeat
    found = get_institutions([*ids, ids[0], "ins_unknown"])

    # THEN every known one is returned once, keyed by id
    assert set(found) == set(ids)
    assert found[ids[5]].name == "Bank 5"
    assert get_institutions([]) == {}
