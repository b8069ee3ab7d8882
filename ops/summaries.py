"""Backfill or check users' monthly summaries.

``python -m ops.summaries backfill <user_id>...`` makes every transaction row of the users'
open months record what it contributes and moves their summaries by the difference (rows
stored before summaries were kept, or written while ``SUMMARIES_ENABLED`` was off); a second
run changes nothing. ``--all-users`` backfills every user that has transaction rows (it
Scans the transactions table once to find them: an operation, never an online path).

``python -m ops.summaries check <user_id>...`` recomputes the users' summaries of the open
months (those whose transaction rows are all still retained) and prints every difference
from the stored rows and every row whose record disagrees with its content; the exit code
is 1 if anything differs. The AWS account, region and endpoint are the environment's
(``STAGE``, ``AWS_REGION``, ``AWS_ENDPOINT_URL`` for a local AWS).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from dataclasses import asdict
from typing import Any


def users_with_transactions() -> Iterator[str]:
    """Every user id a TRANSACTION row names, each once (a Scan of the whole table)."""
    from chalicelib.aws.errors import translated
    from chalicelib.data import keys, tables

    seen: set[str] = set()
    kwargs: dict[str, Any] = {
        "ProjectionExpression": "user_id, GSI1PK",
        "FilterExpression": "#type = :type",
        "ExpressionAttributeNames": {"#type": "type"},
        "ExpressionAttributeValues": {":type": keys.TRANSACTION},
    }
    while True:
        with translated():
            page = tables.transactions().scan(**kwargs)
        for row in page.get("Items", []):
            user = row.get("user_id") or keys.key_part(row.get("GSI1PK"), "ACCOUNTS")
            if user and user not in seen:
                seen.add(str(user))
                yield str(user)
        if "LastEvaluatedKey" not in page:
            return
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def backfill(user_ids: list[str]) -> list[dict[str, Any]]:
    from chalicelib.data.ttl import utcnow
    from chalicelib.pipeline.summary_upkeep import backfill_user

    return [asdict(backfill_user(user_id, utcnow())) for user_id in user_ids]


def check(user_ids: list[str]) -> tuple[bool, list[dict[str, Any]]]:
    from chalicelib.data.ttl import utcnow
    from chalicelib.pipeline.summary_upkeep import check_user, describe

    reports = [check_user(user_id, utcnow()) for user_id in user_ids]
    return all(r.ok for r in reports), [dict(describe(r)) for r in reports]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ops.summaries", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    fill = commands.add_parser("backfill", help="record contributions and move summaries by the difference")
    fill.add_argument("user_ids", nargs="*")
    fill.add_argument("--all-users", action="store_true", help="every user with transaction rows (Scans the table)")
    verify = commands.add_parser("check", help="recompute the open months and report differences (exit 1)")
    verify.add_argument("user_ids", nargs="+")
    args = parser.parse_args(argv)
    if args.command == "backfill":
        if bool(args.user_ids) == bool(args.all_users):
            parser.error("backfill takes user ids or --all-users")
        users = list(users_with_transactions()) if args.all_users else args.user_ids
        for result in backfill(users):
            print(json.dumps(result))
        return 0
    ok, reports = check(args.user_ids)
    for report in reports:
        print(json.dumps(report, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
