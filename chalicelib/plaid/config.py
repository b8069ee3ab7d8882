"""What every Plaid call shares, with or without the SDK: the API version and the timeouts."""

from __future__ import annotations

from dataclasses import dataclass

from chalicelib.settings import Settings

#: The API version every call pins (``Plaid-Version``).
PLAID_VERSION = "2020-09-14"

#: Slowest documented call; Plaid: "typically less than 10 seconds, but occasionally up to 30 seconds or more".
BALANCE_READ_TIMEOUT_SECONDS = 45.0
MAX_CONNECT_TIMEOUT_SECONDS = 3.05


@dataclass(frozen=True)
class PlaidTimeouts:
    """Seconds for ``(connect, read)``; balance refresh has its own, longer read timeout."""

    connect: float = MAX_CONNECT_TIMEOUT_SECONDS
    read: float = 10.0
    balance_read: float = BALANCE_READ_TIMEOUT_SECONDS

    @classmethod
    def from_settings(cls, settings: Settings) -> PlaidTimeouts:
        read = settings.plaid_timeout_seconds
        return cls(
            connect=min(MAX_CONNECT_TIMEOUT_SECONDS, read),
            read=read,
            balance_read=max(BALANCE_READ_TIMEOUT_SECONDS, read),
        )
