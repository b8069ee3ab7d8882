"""Handles on the insight service's tables, named by the infrastructure declaration."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib.aws.clients import table
from chalicelib.settings import get_settings

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.service_resource import Table


def pave() -> Table:
    return table(get_settings().pave_table)


def income_detection() -> Table:
    return table(get_settings().income_detection_table)


def data_capture() -> Table:
    return table(get_settings().data_capture_table)


def user_balance_settings() -> Table:
    return table(get_settings().user_balance_settings_table)


def locks() -> Table:
    return table(get_settings().locks_table)
