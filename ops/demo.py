"""What the run command, the benchmarks and the end-to-end tests do alike: link a fake item,
and read back every row the refiner wrote for a user."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from boto3.dynamodb.conditions import Key

from chalicelib.data import items, keys, tables

if TYPE_CHECKING:
    from ops.fakes.plaid import FakeItem, FakePlaid


def link_fake_item(
    plaid: FakePlaid, user_id: str, *, mining_mode: items.MiningMode = items.MiningMode.GET, **options: Any
) -> FakeItem:
    """An item created at the fake Plaid and saved as an ITEM row, as adding an item does."""
    fake = plaid.create_item(**options)
    now = datetime.now(UTC)
    items.create_item(
        items.Item(
            user_id=user_id,
            item_id=fake.item_id,
            access_token=fake.access_token,
            institution_id=fake.institution_id,
            institution_name=fake.institution_name,
            created_at=now.isoformat(),
            main_account_id=fake.roles().get("checking"),
            link_accounts=items.link_accounts_from(list(fake.accounts.values())),
            mining_mode=mining_mode,
        ),
        now,
    )
    return fake


def refined_rows(user_id: str) -> list[dict[str, Any]]:
    """A user's ACCOUNT, BALANCE and (live) TRANSACTION rows, read by key and GSI1."""
    table = tables.transactions()
    rows: list[dict[str, Any]] = []
    for pk in (keys.accounts_pk(user_id), keys.balances_pk(user_id)):
        rows += table.query(KeyConditionExpression=Key("PK").eq(pk), ConsistentRead=True)["Items"]
    kwargs: dict[str, Any] = {
        "IndexName": "GSI1",
        "KeyConditionExpression": Key("GSI1PK").eq(keys.user_transactions_pk(user_id)),
    }
    while True:
        page = table.query(**kwargs)
        rows += page["Items"]
        if "LastEvaluatedKey" not in page:
            return rows
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
