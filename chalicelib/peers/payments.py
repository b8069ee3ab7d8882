"""The Payments Service: forget a user's stored bank account so it is re-read from Plaid.

AUTH ``DEFAULT_UPDATE`` for an item's main account means the account or routing number
changed at the bank; the Payments Service keeps a copy of the old numbers, and deleting it
makes the next fetch take the new ones. ``DELETE`` is idempotent by contract: a 404
``BANK_ACCOUNT_NOT_FOUND`` means the account is already gone, which is the outcome asked for,
so redelivered webhooks are safe.
"""

from __future__ import annotations

from urllib.parse import quote

from chalicelib.peers.errors import PaymentsServiceError
from chalicelib.peers.transport import PeerTransport, RetryPolicy, Timeouts, error_code

#: 404 codes meaning "nothing stored"; any other 404 (wrong URL, proxy) is a failure, not success.
GONE_CODES = frozenset({"BANK_ACCOUNT_NOT_FOUND", "USER_NOT_FOUND"})


class PaymentsServiceClient:
    """``DELETE /v1/users/{user_id}/bank-account``. Build with :func:`get_payments_service`."""

    def __init__(
        self, base_url: str, token: str, *, timeouts: Timeouts | None = None, retry: RetryPolicy | None = None
    ) -> None:
        self.transport = PeerTransport(base_url, token, error_type=PaymentsServiceError, timeouts=timeouts, retry=retry)

    def __repr__(self) -> str:
        return f"PaymentsServiceClient(base_url={self.transport.base_url!r})"

    def delete_bank_account(self, user_id: str) -> bool:
        """Delete the stored bank account; True if one was deleted now, False if none was stored.

        Raises :class:`PaymentsServiceError` for any other answer (retryable for 5xx, timeouts).
        """
        if not user_id:
            raise ValueError("user_id must not be empty")
        response = self.transport.send("DELETE", f"/v1/users/{quote(user_id, safe='')}/bank-account")
        if response.status_code in (200, 204):
            return True
        if response.status_code == 404 and error_code(response) in GONE_CODES:
            return False
        raise self.transport.failure(response, "delete bank account")
