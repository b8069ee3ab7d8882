"""Institution rows: ``<stage>-txn-plaid-institutions``, keyed on ``institution_id``.

The weekly sync overwrites every row with a full PutItem (attributes Plaid no longer
reports disappear, and a rerun writes the same rows); the API reads names and logos by id,
one or many at a time. ``logo`` is the base64 PNG Plaid serves.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from chalicelib.aws.errors import translated
from chalicelib.data import keys, tables
from chalicelib.data.batch import batch_get, put_items


@dataclass(frozen=True)
class Institution:
    institution_id: str
    name: str
    products: tuple[str, ...] = ()
    country_codes: tuple[str, ...] = ()
    url: str | None = None
    primary_color: str | None = None
    logo: str | None = None
    routing_numbers: tuple[str, ...] = ()
    dtc_numbers: tuple[str, ...] = ()
    oauth: bool = False


def institution_item(institution: Institution) -> dict[str, Any]:
    """The full row for ``institution`` (pure). Optional attributes are omitted when empty."""
    row: dict[str, Any] = {
        **keys.institution_key(institution.institution_id),
        "type": keys.INSTITUTION,
        "name": institution.name,
        "products": list(institution.products),
        "country_codes": list(institution.country_codes),
        "routing_numbers": list(institution.routing_numbers),
        "dtc_numbers": list(institution.dtc_numbers),
        "oauth": institution.oauth,
    }
    optional = {"url": institution.url, "primary_color": institution.primary_color, "logo": institution.logo}
    row.update({k: v for k, v in optional.items() if v})
    return row


def from_item(row: Mapping[str, Any]) -> Institution:
    return Institution(
        institution_id=str(row["institution_id"]),
        name=str(row.get("name", "")),
        products=tuple(row.get("products", ())),
        country_codes=tuple(row.get("country_codes", ())),
        url=row.get("url"),
        primary_color=row.get("primary_color"),
        logo=row.get("logo"),
        routing_numbers=tuple(row.get("routing_numbers", ())),
        dtc_numbers=tuple(row.get("dtc_numbers", ())),
        oauth=bool(row.get("oauth", False)),
    )


def institution_from_plaid(payload: Mapping[str, Any]) -> Institution:
    """An institution from Plaid's ``/institutions/get`` shape (nulls become absent)."""
    return Institution(
        institution_id=str(payload["institution_id"]),
        name=str(payload["name"]),
        products=tuple(payload.get("products") or ()),
        country_codes=tuple(payload.get("country_codes") or ()),
        url=payload.get("url"),
        primary_color=payload.get("primary_color"),
        logo=payload.get("logo"),
        routing_numbers=tuple(payload.get("routing_numbers") or ()),
        dtc_numbers=tuple(payload.get("dtc_numbers") or ()),
        oauth=bool(payload.get("oauth", False)),
    )


def put_institution(institution: Institution) -> None:
    """Overwrite one row entirely."""
    with translated():
        tables.institutions().put_item(Item=institution_item(institution))


def put_institutions(institutions: Iterable[Institution]) -> int:
    """Overwrite rows entirely in batches (one page of the sync); returns rows written."""
    rows = (institution_item(i) for i in institutions)
    return put_items(tables.institutions().name, rows, ("institution_id",))


def get_institution(institution_id: str) -> Institution | None:
    """One institution (eventually consistent: the data changes weekly)."""
    with translated():
        row = tables.institutions().get_item(Key=keys.institution_key(institution_id)).get("Item")
    return from_item(row) if row else None


def get_institutions(institution_ids: Iterable[str]) -> dict[str, Institution]:
    """Many institutions by id (BatchGetItem, bounded retries); unknown ids are absent."""
    wanted = [keys.institution_key(i) for i in dict.fromkeys(institution_ids)]
    if not wanted:
        return {}
    found = batch_get(tables.institutions().name, wanted)
    return {str(row["institution_id"]): from_item(row) for row in found}
