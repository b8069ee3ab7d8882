"""Plaid: the client layer (:mod:`.client`), its typed errors (:mod:`.errors`), the raw-page
schemas (:mod:`.schemas`) and webhook verification (:mod:`.webhook_verification`).

Importing this package does not import the ``plaid`` SDK; the first Plaid call does.
"""

from chalicelib.plaid.client import PlaidClient, PlaidTimeouts, get_plaid, reset_plaid

__all__ = ["PlaidClient", "PlaidTimeouts", "get_plaid", "reset_plaid"]
