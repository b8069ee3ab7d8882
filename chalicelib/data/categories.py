"""CATEGORY rows: Plaid's category tree, read by the API.

All categories share one partition (``CATEGORIES``) sorted by hierarchy, so the whole tree
is one Query; GSI1 finds one category by id. No deployed function writes categories:
:func:`put_categories` is the loader for local seeding and tests (an overwrite by key,
so loading twice changes nothing).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from boto3.dynamodb.conditions import Key

from chalicelib.aws.errors import translated
from chalicelib.data import keys, tables
from chalicelib.data.batch import put_items
from chalicelib.data.query import query_rows
from chalicelib.errors import ValidationError
from chalicelib.observability import logger


@dataclass(frozen=True)
class Category:
    category_id: str
    hierarchy: tuple[str, ...]
    group: str | None = None


def category_item(category: Category) -> dict[str, Any]:
    """The row for ``category`` (pure)."""
    if not category.hierarchy:
        raise ValidationError(f"category {category.category_id} has an empty hierarchy")
    item: dict[str, Any] = {
        **keys.category_key(list(category.hierarchy)),
        **keys.category_gsi_keys(category.category_id),
        "type": keys.CATEGORY,
        "category_id": category.category_id,
        "hierarchy": list(category.hierarchy),
    }
    if category.group:
        item["category_group"] = category.group
    return item


def from_item(item: Mapping[str, Any]) -> Category:
    """A stored row; id and hierarchy come from the keys when not repeated as attributes."""
    hierarchy = item.get("hierarchy") or str(item.get("SK", "")).split(keys.SEP)[1:]
    return Category(
        category_id=str(item.get("category_id") or keys.key_part(item.get("GSI1PK"), "CATEGORY")),
        hierarchy=tuple(str(level) for level in hierarchy),
        group=item.get("category_group"),
    )


def category_from_plaid(payload: Mapping[str, Any]) -> Category:
    """A category from Plaid's ``/categories/get`` shape (``category_id, group, hierarchy``)."""
    return Category(
        category_id=str(payload["category_id"]),
        hierarchy=tuple(str(level) for level in payload.get("hierarchy", ())),
        group=payload.get("group"),
    )


def put_categories(categories: Iterable[Category]) -> int:
    """Load categories (batch overwrite by key); returns rows written."""
    return put_items(tables.transactions().name, (category_item(c) for c in categories), ("PK", "SK"))


def list_categories() -> list[Category]:
    """Every category, in hierarchy order (one partition, strongly consistent, paginated)."""
    rows = query_rows(
        tables.transactions(),
        entity=keys.CATEGORY,
        KeyConditionExpression=Key("PK").eq(keys.CATEGORIES_PK),
        ConsistentRead=True,
    )
    return [from_item(row) for row in rows]


def get_category(category_id: str) -> Category | None:
    """One category by id (GSI1, eventually consistent); ``None`` when unknown."""
    gsi = keys.category_gsi_keys(category_id)
    condition = Key("GSI1PK").eq(gsi["GSI1PK"]) & Key("GSI1SK").eq(gsi["GSI1SK"])
    with translated():
        rows: Sequence[Mapping[str, Any]] = (
            tables.transactions().query(IndexName="GSI1", KeyConditionExpression=condition).get("Items", [])
        )
    if len(rows) > 1:
        logger.warning("category id has more than one row", extra={"category_id": category_id, "rows": len(rows)})
    return from_item(rows[0]) if rows else None
