"""Fake Payments Service: ``DELETE /v1/users/{user_id}/bank-account`` over accounts you seed.

204 when a stored account was deleted, 404 ``BANK_ACCOUNT_NOT_FOUND`` when none is stored
(the client treats that as success). ``deletions`` lists every user whose account was
actually deleted, in order, so a test can prove a repeat deleted nothing.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from chalicelib.peers.config import LOCAL_PAYMENTS_SERVICE_TOKEN, PAYMENTS_SERVICE_PORT
from ops.fakes.peers.server import FakeServer, RecordedRequest, Reply, error_reply, path_param

_BANK_ACCOUNT_PATH = r"/v1/users/(?P<user_id>[^/]+)/bank-account"


class FakePaymentsService(FakeServer):
    name: ClassVar[str] = "payments-service"
    default_port: ClassVar[int] = PAYMENTS_SERVICE_PORT

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, token: str = LOCAL_PAYMENTS_SERVICE_TOKEN) -> None:
        super().__init__(host, port)
        self.token = token
        self._accounts: dict[str, dict[str, Any]] = {}
        self._deletions: list[str] = []
        self.add_route("GET", _BANK_ACCOUNT_PATH, self._get_account)
        self.add_route("DELETE", _BANK_ACCOUNT_PATH, self._delete_account)
        self.add_control("PUT", r"/_fake/bank-accounts/(?P<user_id>[^/]+)", self._put_account)

    def add_bank_account(self, user_id: str, plaid_account_id: str = "acct-main", mask: str = "0000") -> None:
        """Store a bank account for ``user_id`` (as if read from Plaid Auth earlier)."""
        with self._lock:
            self._accounts[user_id] = {"user_id": user_id, "plaid_account_id": plaid_account_id, "mask": mask}

    def has_bank_account(self, user_id: str) -> bool:
        with self._lock:
            return user_id in self._accounts

    @property
    def deletions(self) -> list[str]:
        with self._lock:
            return list(self._deletions)

    def authorized(self, request: RecordedRequest) -> bool:
        return request.header("Authorization") == f"Bearer {self.token}"

    def clear_state(self) -> None:
        self._accounts.clear()
        self._deletions.clear()

    def state(self) -> dict[str, Any]:
        with self._lock:
            return {"bank_accounts": list(self._accounts.values()), "deletions": list(self._deletions)}

    def _get_account(self, _request: RecordedRequest, match: re.Match[str]) -> Reply:
        account = self._accounts.get(path_param(match, "user_id"))
        if account is None:
            return error_reply(404, "BANK_ACCOUNT_NOT_FOUND")
        return Reply(200, dict(account))

    def _delete_account(self, _request: RecordedRequest, match: re.Match[str]) -> Reply:
        user_id = path_param(match, "user_id")
        if self._accounts.pop(user_id, None) is None:
            return error_reply(404, "BANK_ACCOUNT_NOT_FOUND", f"no stored bank account for {user_id}")
        self._deletions.append(user_id)
        return Reply(204)

    def _put_account(self, request: RecordedRequest, match: re.Match[str]) -> Reply:
        body = request.json or {}
        self.add_bank_account(
            path_param(match, "user_id"), body.get("plaid_account_id", "acct-main"), body.get("mask", "0000")
        )
        return Reply(204)
