"""Run the fake Plaid: ``python -m ops.fakes.plaid --port 4567 [--demo-items 1]``.

Point the service at it with ``PLAID_BASE_URL=http://127.0.0.1:4567`` (the settings default);
the credentials default to the settings' local ones. Demo Items are printed as JSON lines.
"""

from __future__ import annotations

import argparse
import json
import os

from ops.fakes.plaid.control import item_summary
from ops.fakes.plaid.server import DEFAULT_CLIENT_ID, DEFAULT_SECRET, FakePlaid


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m ops.fakes.plaid", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=4567)
    parser.add_argument("--client-id", default=os.environ.get("PLAID_CLIENT_ID", DEFAULT_CLIENT_ID))
    parser.add_argument("--secret", default=os.environ.get("PLAID_SECRET", DEFAULT_SECRET))
    parser.add_argument("--demo-items", type=int, default=0, help="Items to create at start (printed as JSON)")
    parser.add_argument("--transactions", type=int, default=400, help="transactions per demo Item")
    parser.add_argument("--webhook", default=None, help="webhook URL recorded on demo Items")
    args = parser.parse_args(argv)

    fake = FakePlaid(host=args.host, port=args.port, client_id=args.client_id, secret=args.secret).start()
    print(json.dumps({"fake_plaid": fake.url, "control": f"{fake.url}/__fake__/"}), flush=True)
    for _ in range(args.demo_items):
        item = fake.create_item(transaction_count=args.transactions, webhook=args.webhook)
        print(json.dumps(item_summary(item)), flush=True)
    try:
        fake.serve_forever()
    except KeyboardInterrupt:
        fake.stop()


if __name__ == "__main__":
    main()
