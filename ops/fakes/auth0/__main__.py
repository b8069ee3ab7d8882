"""Run the development issuer: ``python -m ops.fakes.auth0 [--port 4574] [--user demo-user]``.

Prints the issuer, a user token for ``--user`` and a service token as JSON lines, then
serves the JWKS until interrupted. The app's settings default to this issuer outside prod.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from chalicelib.settings import AUTH0_PORT
from ops.fakes.auth0.issuer import DEFAULT_KEY_PATH, FakeAuth0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m ops.fakes.auth0", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=AUTH0_PORT)
    parser.add_argument("--user", default="demo-user", help="user id to print a token for")
    parser.add_argument("--key-file", type=Path, default=DEFAULT_KEY_PATH, help="signing key (PEM; created if missing)")
    args = parser.parse_args(argv)

    issuer = FakeAuth0(host=args.host, port=args.port, key_path=args.key_file).start()
    print(json.dumps({"issuer": issuer.issuer, "jwks": issuer.jwks_url}), flush=True)
    print(json.dumps({"user_id": args.user, "user_token": issuer.user_token(args.user)}), flush=True)
    print(json.dumps({"service_token": issuer.service_token()}), flush=True)
    try:
        issuer.serve_forever()
    except KeyboardInterrupt:
        issuer.stop()


if __name__ == "__main__":
    main()
