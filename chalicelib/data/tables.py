"""Handles on the service's tables, named by the infrastructure declaration."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib.aws.clients import table
from chalicelib.settings import get_settings

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.service_resource import Table


def transactions() -> Table:
    return table(get_settings().transactions_table)


def transactions_name() -> str:
    """The transactions table's name, for request parameters built per row (a handle costs milliseconds)."""
    return get_settings().transactions_table


def plaid() -> Table:
    return table(get_settings().plaid_table)


def institutions() -> Table:
    return table(get_settings().institutions_table)


def account_changes() -> Table:
    """The shared table, in its own region (us-east-1 in prod) whatever the deploy region."""
    settings = get_settings()
    return table(settings.account_changes_table, settings.account_changes_region)
