"""Query to the end: the one pagination loop every list read of the data layer shares."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from chalicelib.aws.errors import translated

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.service_resource import Table

Row = dict[str, Any]


def query_rows(
    table: Table,
    *,
    entity: str | None = None,
    keep: Callable[[Mapping[str, Any]], bool] | None = None,
    limit: int | None = None,
    **request: Any,
) -> list[Row]:
    """Every row a Query returns, following ``LastEvaluatedKey`` until done or ``limit`` kept.

    ``entity`` keeps only rows of that ``type`` (single-table partitions mix entities);
    ``keep`` filters further. ``request`` is the Query's own parameters.
    """
    kwargs = dict(request)
    if limit:
        kwargs["Limit"] = limit
    found: list[Row] = []
    while True:
        with translated():
            response = table.query(**kwargs)
        found += [
            row
            for row in response.get("Items", [])
            if (entity is None or row.get("type") == entity) and (keep is None or keep(row))
        ]
        if (limit and len(found) >= limit) or "LastEvaluatedKey" not in response:
            return found[:limit] if limit else found
        kwargs["ExclusiveStartKey"] = response["LastEvaluatedKey"]


def projection(fields: Iterable[str]) -> dict[str, Any]:
    """A request's ``ProjectionExpression`` for ``fields``, each by a placeholder name (so a
    reserved word or a dotted name is read as the attribute it is)."""
    names = {f"#p{n}": name for n, name in enumerate(fields)}
    return {"ProjectionExpression": ", ".join(names), "ExpressionAttributeNames": names}
