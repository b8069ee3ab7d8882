"""Print a user's accounts and newest transactions from the local tables.

``python -m ops.query <user_id> [--limit N]`` against ``AWS_ENDPOINT_URL`` (default the local
AWS on 127.0.0.1:4566): what the refiner wrote, read through the same data layer the API uses.
"""

from __future__ import annotations

import argparse

from ops.local_aws import apply_local_env


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ops.query", description=__doc__.splitlines()[0])
    parser.add_argument("user_id")
    parser.add_argument("--limit", type=int, default=20)
    args = parser.parse_args(argv)
    apply_local_env()
    from chalicelib.data import accounts, transactions
    from chalicelib.data.money import cents_to_string

    for account in accounts.list_accounts(args.user_id):
        b = account.balances
        available = cents_to_string(b.available) if b.available_reported is not False else "not reported"
        print(f"{account.acct_id}  {account.name:<28} current {cents_to_string(b.current):>12}  available {available}")
    page = transactions.list_transactions(args.user_id, limit=args.limit)
    for txn in page.transactions:
        print(f"{txn.txn_date}  {cents_to_string(txn.amount):>10}  {txn.name[:40]:<40}  {txn.txn_id}")
    if page.cursor:
        print(f"... more (showing the newest {args.limit})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
