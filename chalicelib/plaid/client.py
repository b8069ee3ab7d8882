"""The Plaid client layer: every Plaid call the service makes, as plain JSON-shaped dicts.

Why it looks like this:

* ``plaid`` (0.3 s and ~680 model modules to import) is imported on the first call, not at
  module import, so handlers that never call Plaid keep their cold start.
* Every call has ``_request_timeout=(connect, read)``: the SDK's default is no timeout at all.
  ``/accounts/balance/get`` gets a longer read timeout (Plaid: "occasionally up to 30 seconds").
* urllib3's own retries are off: a retry policy belongs to the caller (SQS redelivery,
  throttle queue), not hidden inside one call where it multiplies the timeout.
* The big pages (``/transactions/get``, ``/transactions/sync``, ``/institutions/get``) are read raw
  (``_preload_content=False``) and checked with marshmallow (:mod:`chalicelib.plaid.schemas`);
  the SDK's model parsing costs ~1.3 s of CPU per 500 transactions. Small responses keep the
  SDK's strict models and are converted back to JSON-shaped dicts.
* Every failure leaves as a typed :class:`~chalicelib.plaid.errors.PlaidError`
  (:mod:`chalicelib.plaid.translate`). Tokens and secrets are never logged.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from datetime import date
from functools import lru_cache
from typing import Any

import urllib3.exceptions
from marshmallow import Schema, ValidationError

from chalicelib.observability import count, logger
from chalicelib.plaid.config import PLAID_VERSION, PlaidTimeouts
from chalicelib.plaid.errors import (
    PlaidError,
    PlaidInvalidInputError,
    PlaidResponseError,
    error_code_of,
    error_family,
)
from chalicelib.plaid.plain import post_json
from chalicelib.plaid.schemas import (
    INSTITUTIONS_PAGE,
    TRANSACTIONS_PAGE,
    TRANSACTIONS_SYNC_PAGE,
    flatten_errors,
    load_page,
)
from chalicelib.plaid.translate import from_http_error, from_parse_error, from_transport_error
from chalicelib.settings import Settings, get_settings

MAX_PAGE_SIZE = 500
#: Every call sent to Plaid, and every one that failed (by Plaid's error type, and its code):
#: the alarms watch the failure rate of each type.
SENT_METRIC = "plaid.request.sent"
FAILED_METRIC = "plaid.request.failed"
#: Transactions history asked for at link time: HISTORICAL_UPDATE covers 180 days.
LINK_DAYS_REQUESTED = 180
DEFAULT_CLIENT_NAME = "FloatMe"


class PlaidClient:
    """Plaid's API for this service. Build it with :func:`get_plaid` outside tests."""

    def __init__(
        self,
        base_url: str,
        client_id: str,
        secret: str,
        *,
        timeouts: PlaidTimeouts | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeouts = timeouts or PlaidTimeouts()
        self._client_id = client_id
        self._secret = secret
        self._api: Any = None
        self._api_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"PlaidClient(base_url={self.base_url!r}, timeouts={self.timeouts!r})"

    @classmethod
    def from_settings(cls, settings: Settings) -> PlaidClient:
        return cls(
            settings.plaid_base_url,
            settings.plaid_client_id,
            settings.plaid_secret,
            timeouts=PlaidTimeouts.from_settings(settings),
        )

    # --- Items ------------------------------------------------------------------------

    def item_get(self, access_token: str) -> dict[str, Any]:
        """``/item/get``: the Item (error, products, consent) and its update ``status``."""
        from plaid.model.item_get_request import ItemGetRequest

        return self._modelled("/item/get", "item_get", lambda: ItemGetRequest(access_token=access_token))

    def item_remove(
        self, access_token: str, *, reason_code: str | None = None, reason_note: str | None = None
    ) -> dict[str, Any]:
        """``/item/remove``: revoke the token (ends billing). A second call raises ``ITEM_NOT_FOUND``."""
        from plaid.model.item_remove_reason_code import ItemRemoveReasonCode
        from plaid.model.item_remove_request import ItemRemoveRequest

        def build() -> Any:
            extra: dict[str, Any] = {}
            if reason_code is not None:
                extra["reason_code"] = ItemRemoveReasonCode(reason_code)
            if reason_note is not None:
                extra["reason_note"] = reason_note
            return ItemRemoveRequest(access_token=access_token, **extra)

        return self._modelled("/item/remove", "item_remove", build)

    def item_public_token_exchange(self, public_token: str) -> dict[str, Any]:
        """``/item/public_token/exchange``: ``{access_token, item_id, request_id}``."""
        from plaid.model.item_public_token_exchange_request import ItemPublicTokenExchangeRequest

        return self._modelled(
            "/item/public_token/exchange",
            "item_public_token_exchange",
            lambda: ItemPublicTokenExchangeRequest(public_token=public_token),
        )

    # --- Transactions, accounts, liabilities -------------------------------------------

    def transactions_get(
        self,
        access_token: str,
        start_date: date,
        end_date: date,
        *,
        offset: int = 0,
        count: int = MAX_PAGE_SIZE,
        account_ids: Sequence[str] | None = None,
    ) -> dict[str, Any]:
        """One ``/transactions/get`` page (hot path: raw JSON + marshmallow, no SDK models).

        Returns ``{accounts, transactions, total_transactions, item, request_id, ...}`` as Plaid
        sent it, with personal finance categories and original descriptions included.
        """
        from plaid.model.transactions_get_request import TransactionsGetRequest
        from plaid.model.transactions_get_request_options import TransactionsGetRequestOptions

        def build() -> Any:
            options: dict[str, Any] = {
                "count": count,
                "offset": offset,
                "include_personal_finance_category": True,
                "include_original_description": True,
            }
            if account_ids:
                options["account_ids"] = list(account_ids)
            return TransactionsGetRequest(
                access_token=access_token,
                start_date=start_date,
                end_date=end_date,
                options=TransactionsGetRequestOptions(**options),
            )

        return self._raw("/transactions/get", "transactions_get", build, TRANSACTIONS_PAGE)

    def transactions_sync(
        self, access_token: str, *, cursor: str | None = None, count: int = MAX_PAGE_SIZE
    ) -> dict[str, Any]:
        """One ``/transactions/sync`` page (hot path like :meth:`transactions_get`).

        ``cursor`` None (or empty) asks for the Item's whole history. Returns
        ``{transactions_update_status, accounts, added, modified, removed, next_cursor, has_more,
        request_id}`` as Plaid sent it, with personal finance categories and original descriptions.
        ``TRANSACTIONS_SYNC_MUTATION_DURING_PAGINATION`` raises
        :class:`~chalicelib.plaid.errors.PlaidSyncMutationError`: restart the loop from its first cursor.
        """
        from plaid.model.transactions_sync_request import TransactionsSyncRequest
        from plaid.model.transactions_sync_request_options import TransactionsSyncRequestOptions

        def build() -> Any:
            extra: dict[str, Any] = {"cursor": cursor} if cursor else {}
            return TransactionsSyncRequest(
                access_token=access_token,
                count=count,
                options=TransactionsSyncRequestOptions(
                    include_original_description=True, include_personal_finance_category=True
                ),
                **extra,
            )

        return self._raw("/transactions/sync", "transactions_sync", build, TRANSACTIONS_SYNC_PAGE)

    def accounts_get(self, access_token: str, *, account_ids: Sequence[str] | None = None) -> dict[str, Any]:
        """``/accounts/get``: accounts with Plaid's cached balances."""
        from plaid.model.accounts_get_request import AccountsGetRequest
        from plaid.model.accounts_get_request_options import AccountsGetRequestOptions

        def build() -> Any:
            if account_ids:
                return AccountsGetRequest(
                    access_token=access_token, options=AccountsGetRequestOptions(account_ids=list(account_ids))
                )
            return AccountsGetRequest(access_token=access_token)

        return self._modelled("/accounts/get", "accounts_get", build)

    def accounts_balance_get(self, access_token: str, *, account_ids: Sequence[str] | None = None) -> dict[str, Any]:
        """``/accounts/balance/get``: live balances (slow, billed per call, 5/min per Item)."""
        from plaid.model.accounts_balance_get_request import AccountsBalanceGetRequest
        from plaid.model.accounts_balance_get_request_options import AccountsBalanceGetRequestOptions

        def build() -> Any:
            if account_ids:
                return AccountsBalanceGetRequest(
                    access_token=access_token,
                    options=AccountsBalanceGetRequestOptions(account_ids=list(account_ids)),
                )
            return AccountsBalanceGetRequest(access_token=access_token)

        return self._modelled(
            "/accounts/balance/get", "accounts_balance_get", build, read_timeout=self.timeouts.balance_read
        )

    def liabilities_get(self, access_token: str, *, account_ids: Sequence[str] | None = None) -> dict[str, Any]:
        """``/liabilities/get``: ``{accounts, item, liabilities: {credit, mortgage, student}}``."""
        from plaid.model.liabilities_get_request import LiabilitiesGetRequest
        from plaid.model.liabilities_get_request_options import LiabilitiesGetRequestOptions

        def build() -> Any:
            if account_ids:
                return LiabilitiesGetRequest(
                    access_token=access_token, options=LiabilitiesGetRequestOptions(account_ids=list(account_ids))
                )
            return LiabilitiesGetRequest(access_token=access_token)

        return self._modelled("/liabilities/get", "liabilities_get", build)

    def processor_token_create(self, access_token: str, account_id: str, processor: str) -> dict[str, Any]:
        """``/processor/token/create``: ``{processor_token, request_id}`` for a partner (e.g. ``dwolla``)."""
        from plaid.model.processor_token_create_request import ProcessorTokenCreateRequest

        return self._modelled(
            "/processor/token/create",
            "processor_token_create",
            lambda: ProcessorTokenCreateRequest(access_token=access_token, account_id=account_id, processor=processor),
        )

    # --- Institutions -------------------------------------------------------------------

    def institutions_get(
        self,
        *,
        offset: int = 0,
        count: int = MAX_PAGE_SIZE,
        country_codes: Sequence[str] = ("US",),
        include_optional_metadata: bool = True,
    ) -> dict[str, Any]:
        """One ``/institutions/get`` page (raw + marshmallow): ``{institutions, total, request_id}``."""
        from plaid.model.country_code import CountryCode
        from plaid.model.institutions_get_request import InstitutionsGetRequest
        from plaid.model.institutions_get_request_options import InstitutionsGetRequestOptions

        def build() -> Any:
            return InstitutionsGetRequest(
                count=count,
                offset=offset,
                country_codes=[CountryCode(code) for code in country_codes],
                options=InstitutionsGetRequestOptions(include_optional_metadata=include_optional_metadata),
            )

        return self._raw("/institutions/get", "institutions_get", build, INSTITUTIONS_PAGE)

    # --- KYC ------------------------------------------------------------------------------

    def identity_verification_create(
        self, *, client_user_id: str, template_id: str, gave_consent: bool = False, is_shareable: bool = False
    ) -> dict[str, Any]:
        """``/identity_verification/create``: start (or, being idempotent, return) the user's session.

        ``is_idempotent`` is always set: a retried call returns the session the first call
        created for this user and template instead of failing or starting another.
        """
        from plaid.model.identity_verification_create_request import IdentityVerificationCreateRequest

        return self._modelled(
            "/identity_verification/create",
            "identity_verification_create",
            lambda: IdentityVerificationCreateRequest(
                client_user_id=client_user_id,
                template_id=template_id,
                gave_consent=gave_consent,
                is_shareable=is_shareable,
                is_idempotent=True,
            ),
        )

    def identity_verification_get(self, identity_verification_id: str) -> dict[str, Any]:
        """``/identity_verification/get``: the session (``client_user_id``, ``status``, ``steps``...)."""
        from plaid.model.identity_verification_get_request import IdentityVerificationGetRequest

        return self._modelled(
            "/identity_verification/get",
            "identity_verification_get",
            lambda: IdentityVerificationGetRequest(identity_verification_id=identity_verification_id),
        )

    def watchlist_screening_individual_get(self, watchlist_screening_id: str) -> dict[str, Any]:
        """``/watchlist_screening/individual/get``: ``id``, ``client_user_id``, ``status``, ``search_terms``."""
        from plaid.model.watchlist_screening_individual_get_request import WatchlistScreeningIndividualGetRequest

        return self._modelled(
            "/watchlist_screening/individual/get",
            "watchlist_screening_individual_get",
            lambda: WatchlistScreeningIndividualGetRequest(watchlist_screening_id=watchlist_screening_id),
        )

    # --- Webhooks, Link, Layer ---------------------------------------------------------------

    def webhook_verification_key_get(self, key_id: str) -> dict[str, Any]:
        """``/webhook_verification_key/get``: ``{key: JWK, request_id}``.

        Plain JSON, not the SDK (:mod:`chalicelib.plaid.plain`): the webhook route makes this
        call on a cold start and must not pay for importing the SDK.
        """
        endpoint = "/webhook_verification_key/get"
        count(SENT_METRIC)
        try:
            answer = post_json(
                self.base_url,
                endpoint,
                {"key_id": key_id},
                client_id=self._client_id,
                secret=self._secret,
                timeout=self._timeout(None),
            )
        except PlaidError as exc:
            _logged(exc)
            raise
        if not isinstance(answer.get("key"), dict):
            raise _logged(from_parse_error(endpoint, KeyError("key"), answer.get("request_id")))
        return answer

    def link_token_create(
        self,
        *,
        client_user_id: str,
        webhook: str | None = None,
        access_token: str | None = None,
        client_name: str = DEFAULT_CLIENT_NAME,
        language: str = "en",
        country_codes: Sequence[str] = ("US",),
        products: Sequence[str] = ("transactions",),
        days_requested: int = LINK_DAYS_REQUESTED,
    ) -> dict[str, Any]:
        """``/link/token/create``; with ``access_token`` the token opens Link in update mode.

        New Items ask for ``days_requested`` (180) of history: Plaid's default is 90 and it
        cannot be raised after the Item exists.
        """
        from plaid.model.country_code import CountryCode
        from plaid.model.link_token_create_request import LinkTokenCreateRequest
        from plaid.model.link_token_create_request_user import LinkTokenCreateRequestUser
        from plaid.model.link_token_transactions import LinkTokenTransactions
        from plaid.model.products import Products

        def build() -> Any:
            extra: dict[str, Any] = {}
            if webhook is not None:
                extra["webhook"] = webhook
            if access_token is not None:
                extra["access_token"] = access_token
            else:
                extra["products"] = [Products(product) for product in products]
                extra["transactions"] = LinkTokenTransactions(days_requested=days_requested)
            return LinkTokenCreateRequest(
                client_name=client_name,
                language=language,
                country_codes=[CountryCode(code) for code in country_codes],
                user=LinkTokenCreateRequestUser(client_user_id=client_user_id),
                **extra,
            )

        return self._modelled("/link/token/create", "link_token_create", build)

    def session_token_create(
        self, *, template_id: str, client_user_id: str, webhook: str | None = None
    ) -> dict[str, Any]:
        """``/session/token/create`` (Layer): ``{request_id, link: {link_token, expiration}}``."""
        from plaid.model.session_token_create_request import SessionTokenCreateRequest
        from plaid.model.session_token_create_request_user import SessionTokenCreateRequestUser

        def build() -> Any:
            extra: dict[str, Any] = {"webhook": webhook} if webhook is not None else {}
            return SessionTokenCreateRequest(
                template_id=template_id, user=SessionTokenCreateRequestUser(client_user_id=client_user_id), **extra
            )

        return self._modelled("/session/token/create", "session_token_create", build)

    def user_account_session_get(self, public_token: str) -> dict[str, Any]:
        """``/user_account/session/get`` (Layer results): ``{link_session_id, identity, items}``."""
        from plaid.model.user_account_session_get_request import UserAccountSessionGetRequest

        return self._modelled(
            "/user_account/session/get",
            "user_account_session_get",
            lambda: UserAccountSessionGetRequest(public_token=public_token),
        )

    # --- machinery ----------------------------------------------------------------------------

    def _sdk(self) -> Any:
        """The SDK's ``PlaidApi``, imported and configured on first use."""
        if self._api is None:
            with self._api_lock:
                if self._api is None:
                    import plaid
                    from plaid.api import plaid_api

                    configuration = plaid.Configuration(
                        host=self.base_url,
                        api_key={"clientId": self._client_id, "secret": self._secret, "plaidVersion": PLAID_VERSION},
                    )
                    configuration.retries = False
                    self._api = plaid_api.PlaidApi(plaid.ApiClient(configuration))
        return self._api

    def _timeout(self, read_timeout: float | None) -> tuple[float, float]:
        return (self.timeouts.connect, self.timeouts.read if read_timeout is None else read_timeout)

    @staticmethod
    def _build(endpoint: str, build: Callable[[], Any]) -> Any:
        """The request model; the SDK validates types and ranges here (``count`` > 500...)."""
        from plaid.exceptions import OpenApiException

        try:
            return build()
        except (OpenApiException, TypeError, ValueError) as exc:
            raise _logged(PlaidInvalidInputError(f"invalid {endpoint} request: {exc}", endpoint=endpoint)) from exc

    def _send(self, endpoint: str, method: str, request: Any, read_timeout: float | None, **kwargs: Any) -> Any:
        """Call the SDK method; HTTP and transport failures become typed errors."""
        from plaid.exceptions import ApiException

        count(SENT_METRIC)
        try:
            return getattr(self._sdk(), method)(request, _request_timeout=self._timeout(read_timeout), **kwargs)
        except ApiException as exc:
            if not exc.status:  # status 0: TLS failure or a request urllib3 could not send
                raise _logged(from_transport_error(endpoint, exc)) from exc
            raise _logged(from_http_error(endpoint, exc.status, exc.body)) from exc
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            raise _logged(from_transport_error(endpoint, exc)) from exc

    def _modelled(
        self, endpoint: str, method: str, build: Callable[[], Any], *, read_timeout: float | None = None
    ) -> dict[str, Any]:
        """A call through the SDK's strict models, returned as a JSON-shaped dict."""
        from plaid import ApiClient
        from plaid.exceptions import OpenApiException

        request = self._build(endpoint, build)
        try:
            response = self._send(endpoint, method, request, read_timeout)
        except (OpenApiException, TypeError, ValueError, KeyError, AttributeError) as exc:
            # _send already turned HTTP and transport failures into PlaidError (not caught here):
            # what is left is the SDK refusing the 2xx body (missing key, wrong type, null).
            raise _logged(from_parse_error(endpoint, exc)) from exc
        sanitized: dict[str, Any] = ApiClient.sanitize_for_serialization(response)
        return sanitized

    def _raw(self, endpoint: str, method: str, build: Callable[[], Any], schema: Schema) -> dict[str, Any]:
        """A call without the SDK's model parsing: raw JSON checked by a marshmallow schema."""
        request = self._build(endpoint, build)
        response = self._send(endpoint, method, request, None, _preload_content=False)
        try:
            payload = response.data
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            raise _logged(from_transport_error(endpoint, exc)) from exc
        finally:
            response.release_conn()
        try:
            data = json.loads(payload)
        except ValueError as exc:
            raise _logged(from_parse_error(endpoint, exc)) from exc
        request_id = data.get("request_id") if isinstance(data, dict) else None
        try:
            return load_page(schema, data)
        except ValidationError as exc:
            errors = flatten_errors(exc.messages)
            raise _logged(
                PlaidResponseError(
                    f"Plaid {endpoint} page failed validation: {'; '.join(errors[:3])}",
                    endpoint=endpoint,
                    request_id=request_id if isinstance(request_id, str) else None,
                    details={"errors": errors},
                )
            ) from exc


def _logged(error: PlaidError) -> PlaidError:
    """Log and count a failure once, with identifiers only (never the request, which holds the token)."""
    logger.warning("plaid call failed", extra={"plaid_error": error.describe()})
    count(FAILED_METRIC, error_type=error_family(error), detail={"error_code": error_code_of(error)})
    return error


@lru_cache(maxsize=1)
def get_plaid() -> PlaidClient:
    """The process-wide Plaid client from settings (the SDK itself loads on the first call)."""
    return PlaidClient.from_settings(get_settings())


def reset_plaid() -> None:
    """Forget the process-wide client so the next :func:`get_plaid` re-reads settings (tests)."""
    get_plaid.cache_clear()
