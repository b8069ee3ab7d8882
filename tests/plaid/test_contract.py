"""Contract: every fake endpoint answers what the real plaid-python 46 SDK accepts.

Each call goes through ``PlaidApi`` with model parsing ON (the default), whose models refuse
a missing required key, a null in a non-nullable field or a mistyped value. If the fake
drifts from the SDK, these tests fail loudly; the client layer's raw hot path is validated
against the same rules (tests/plaid/test_schemas.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import date, timedelta
from typing import Any

import plaid
import pytest
from plaid.api import plaid_api
from plaid.model.accounts_balance_get_request import AccountsBalanceGetRequest
from plaid.model.accounts_get_request import AccountsGetRequest
from plaid.model.auth_default_update_webhook import AuthDefaultUpdateWebhook
from plaid.model.country_code import CountryCode
from plaid.model.default_update_webhook import DefaultUpdateWebhook
from plaid.model.identity_verification_create_request import IdentityVerificationCreateRequest
from plaid.model.identity_verification_get_request import IdentityVerificationGetRequest
from plaid.model.identity_verification_status_updated_webhook import IdentityVerificationStatusUpdatedWebhook
from plaid.model.institutions_get_request import InstitutionsGetRequest
from plaid.model.institutions_get_request_options import InstitutionsGetRequestOptions
from plaid.model.item_error_webhook import ItemErrorWebhook
from plaid.model.item_get_request import ItemGetRequest
from plaid.model.item_login_repaired_webhook import ItemLoginRepairedWebhook
from plaid.model.item_public_token_exchange_request import ItemPublicTokenExchangeRequest
from plaid.model.item_remove_request import ItemRemoveRequest
from plaid.model.layer_authentication_passed_webhook import LayerAuthenticationPassedWebhook
from plaid.model.liabilities_default_update_webhook import LiabilitiesDefaultUpdateWebhook
from plaid.model.liabilities_get_request import LiabilitiesGetRequest
from plaid.model.liabilities_get_request_options import LiabilitiesGetRequestOptions
from plaid.model.link_token_create_request import LinkTokenCreateRequest
from plaid.model.link_token_create_request_user import LinkTokenCreateRequestUser
from plaid.model.link_token_transactions import LinkTokenTransactions
from plaid.model.plaid_error import PlaidError
from plaid.model.processor_token_create_request import ProcessorTokenCreateRequest
from plaid.model.products import Products
from plaid.model.sandbox_public_token_create_request import SandboxPublicTokenCreateRequest
from plaid.model.sandbox_public_token_create_request_options import SandboxPublicTokenCreateRequestOptions
from plaid.model.screening_status_updated_webhook import ScreeningStatusUpdatedWebhook
from plaid.model.session_token_create_request import SessionTokenCreateRequest
from plaid.model.session_token_create_request_user import SessionTokenCreateRequestUser
from plaid.model.sync_updates_available_webhook import SyncUpdatesAvailableWebhook
from plaid.model.transactions_get_request import TransactionsGetRequest
from plaid.model.transactions_get_request_options import TransactionsGetRequestOptions
from plaid.model.transactions_removed_webhook import TransactionsRemovedWebhook
from plaid.model.transactions_sync_request import TransactionsSyncRequest
from plaid.model.transactions_sync_request_options import TransactionsSyncRequestOptions
from plaid.model.user_account_revoked_webhook import UserAccountRevokedWebhook
from plaid.model.user_account_session_get_request import UserAccountSessionGetRequest
from plaid.model.user_permission_revoked_webhook import UserPermissionRevokedWebhook
from plaid.model.watchlist_screening_individual_get_request import WatchlistScreeningIndividualGetRequest
from plaid.model.webhook_verification_key_get_request import WebhookVerificationKeyGetRequest

from ops.fakes.plaid import DEFAULT_CLIENT_ID, DEFAULT_SECRET, ERRORS, FakePlaid, webhooks
from ops.fakes.plaid.api import ENDPOINTS
from ops.fakes.plaid.errors import FakeApiError
from tests.plaid.factories import history, new_item

TIMEOUT = (2.0, 10.0)


@pytest.fixture(scope="module")
def sdk(fake_plaid: FakePlaid) -> Iterator[Any]:
    configuration = plaid.Configuration(
        host=fake_plaid.url, api_key={"clientId": DEFAULT_CLIENT_ID, "secret": DEFAULT_SECRET}
    )
    api_client = plaid.ApiClient(configuration)
    yield plaid_api.PlaidApi(api_client)
    api_client.close()


class _Body:
    """What ``ApiClient.deserialize`` reads: a response with ``data``."""

    def __init__(self, payload: Any) -> None:
        self.data = json.dumps(payload)

    def getheader(self, name: str, default: Any = None) -> Any:
        return default


def sdk_model(sdk: Any, payload: Any, model: type) -> Any:
    """``payload`` parsed by the SDK's strict model (raises on drift)."""
    return sdk.api_client.deserialize(_Body(payload), (model,), True)


# --- one contract call per endpoint ---------------------------------------------------------------


def call_item_get(sdk: Any, fake: FakePlaid) -> None:
    # GIVEN an Item in an error state (item.error populated)
    item = new_item(fake)
    fake.set_item_error(item.access_token, "ITEM_LOGIN_REQUIRED")
    # WHEN /item/get is parsed by the SDK
    response = sdk.item_get(ItemGetRequest(access_token=item.access_token), _request_timeout=TIMEOUT)
    # THEN the item, its error and status parse
    assert response.item.item_id == item.item_id
    assert response.item.error.error_code == "ITEM_LOGIN_REQUIRED"
    assert response.status.transactions.last_successful_update is not None


#: The day the contract item's history ends. The fake is deterministic for a seed and a day, and
#: whether a recent purchase is still pending depends on both: seed 1 on this day has pending and
#: linked rows whatever the date the suite runs on.
CONTRACT_DAY = date(2026, 11, 2)


def call_transactions_get(sdk: Any, fake: FakePlaid) -> None:
    # GIVEN an Item with 250 transactions, long texts, pending, linked and unofficial-currency rows
    item = new_item(
        fake,
        transaction_count=250,
        history_days=240,
        seed=1,
        long_text_length=300,
        unofficial_currency_every=50,
        today=CONTRACT_DAY,
    )
    stored = fake.item(item.access_token).transactions
    start, end = history(item)
    assert any(t["pending"] for t in stored) and any(t["pending_transaction_id"] for t in stored)
    assert any(t["iso_currency_code"] is None and t["unofficial_currency_code"] for t in stored)
    pages = [(500, 0, True), (100, 200, True), (100, 0, False)]  # the largest page Plaid allows, a last one
    for count, offset, include in pages:
        # WHEN every page is parsed by the SDK, with and without the optional fields
        options = TransactionsGetRequestOptions(
            count=count,
            offset=offset,
            include_personal_finance_category=include,
            include_original_description=include,
        )
        response = sdk.transactions_get(
            TransactionsGetRequest(access_token=item.access_token, start_date=start, end_date=end, options=options),
            _request_timeout=TIMEOUT,
        )
        # THEN it parses, and paging adds up
        assert response.total_transactions == 250
        assert len(response.transactions) == min(count, 250 - offset)
        assert len(response.accounts) == 5


def _sync(sdk: Any, access_token: str, cursor: str | None, count: int = 500) -> Any:
    extra = {"cursor": cursor} if cursor else {}
    return sdk.transactions_sync(
        TransactionsSyncRequest(
            access_token=access_token,
            count=count,
            options=TransactionsSyncRequestOptions(
                include_original_description=True, include_personal_finance_category=True
            ),
            **extra,
        ),
        _request_timeout=TIMEOUT,
    )


def call_transactions_sync(sdk: Any, fake: FakePlaid) -> None:
    # GIVEN an Item with 250 transactions (long texts, pending, linked and unofficial-currency rows)
    item = new_item(
        fake, transaction_count=250, history_days=240, seed=2, long_text_length=300, unofficial_currency_every=50
    )
    # WHEN its whole history is synced 100 at a time, every page parsed by the SDK
    cursor, added, pages = None, 0, 0
    while True:
        response = _sync(sdk, item.access_token, cursor, count=100)
        added += len(response.added)
        pages += 1
        cursor = response.next_cursor
        if not response.has_more:
            break
    # THEN three pages add up to every transaction, and the cursor is Plaid-sized
    assert (pages, added) == (3, 250)
    assert response.transactions_update_status.value == "HISTORICAL_UPDATE_COMPLETE"
    assert len(response.accounts) == 5 and len(cursor) <= 256
    # AND after modifications, removals, posted pending rows and new ones, the next sync carries each kind
    changed = fake.modify_transactions(item.access_token, count=2)
    fake.remove_transactions(item.access_token, [fake.item(item.access_token).transactions[-1]["transaction_id"]])
    fake.add_transactions(item.access_token, 3)
    response = _sync(sdk, item.access_token, cursor)
    assert {t.transaction_id for t in response.modified} == {t["transaction_id"] for t in changed}
    assert len(response.added) == 3 and len(response.removed) == 1 and response.removed[0].account_id
    # AND a change between two pages of a loop is refused with the mutation error (a 400 the SDK raises)
    fake.add_transactions(item.access_token, 3)
    first = _sync(sdk, item.access_token, response.next_cursor, count=2)
    assert first.has_more
    fake.add_transactions(item.access_token, 1)
    with pytest.raises(plaid.ApiException) as raised:
        _sync(sdk, item.access_token, first.next_cursor, 2)
    assert json.loads(raised.value.body)["error_code"] == "TRANSACTIONS_SYNC_MUTATION_DURING_PAGINATION"
    # AND before the first pull completes the answer is empty and NOT_READY, not an error
    waiting = new_item(fake, transactions_ready=False)
    empty = _sync(sdk, waiting.access_token, None)
    assert (empty.added, empty.has_more, empty.transactions_update_status.value) == ([], False, "NOT_READY")


def call_accounts_get(sdk: Any, fake: FakePlaid) -> None:
    item = new_item(fake)
    response = sdk.accounts_get(AccountsGetRequest(access_token=item.access_token), _request_timeout=TIMEOUT)
    assert {a.subtype.value for a in response.accounts} == {"checking", "savings", "credit card", "mortgage", "student"}


def call_accounts_balance_get(sdk: Any, fake: FakePlaid) -> None:
    item = new_item(fake)
    response = sdk.accounts_balance_get(
        AccountsBalanceGetRequest(access_token=item.access_token), _request_timeout=TIMEOUT
    )
    assert all(a.balances.last_updated_datetime is not None for a in response.accounts)


def call_liabilities_get(sdk: Any, fake: FakePlaid) -> None:
    item = new_item(fake)
    response = sdk.liabilities_get(LiabilitiesGetRequest(access_token=item.access_token), _request_timeout=TIMEOUT)
    assert len(response.liabilities.credit) == len(response.liabilities.mortgage) == 1
    assert len(response.liabilities.student) == 1
    # Filtered to one account, the other kinds are null (nullable in the model).
    only_credit = sdk.liabilities_get(
        LiabilitiesGetRequest(
            access_token=item.access_token,
            options=LiabilitiesGetRequestOptions(account_ids=[item.account_id("credit")]),
        ),
        _request_timeout=TIMEOUT,
    )
    assert only_credit.liabilities.mortgage is None
    assert [a.account_id for a in only_credit.accounts] == [item.account_id("credit")]


def call_item_remove(sdk: Any, fake: FakePlaid) -> None:
    item = new_item(fake)
    response = sdk.item_remove(ItemRemoveRequest(access_token=item.access_token), _request_timeout=TIMEOUT)
    assert response.request_id


def call_item_public_token_exchange(sdk: Any, fake: FakePlaid) -> None:
    item = new_item(fake)
    response = sdk.item_public_token_exchange(
        ItemPublicTokenExchangeRequest(public_token=item.public_token), _request_timeout=TIMEOUT
    )
    assert (response.access_token, response.item_id) == (item.access_token, item.item_id)


def call_sandbox_public_token_create(sdk: Any, fake: FakePlaid) -> None:
    response = sdk.sandbox_public_token_create(
        SandboxPublicTokenCreateRequest(
            institution_id="ins_109508",
            initial_products=[Products("transactions")],
            options=SandboxPublicTokenCreateRequestOptions(webhook="https://example.com/v1/plaid"),
        ),
        _request_timeout=TIMEOUT,
    )
    assert response.public_token.startswith("public-")


def call_processor_token_create(sdk: Any, fake: FakePlaid) -> None:
    item = new_item(fake)
    response = sdk.processor_token_create(
        ProcessorTokenCreateRequest(
            access_token=item.access_token, account_id=item.account_id("checking"), processor="dwolla"
        ),
        _request_timeout=TIMEOUT,
    )
    assert response.processor_token.startswith("processor-")


def call_institutions_get(sdk: Any, fake: FakePlaid) -> None:
    for include in (True, False):
        response = sdk.institutions_get(
            InstitutionsGetRequest(
                count=500,
                offset=0,
                country_codes=[CountryCode("US")],
                options=InstitutionsGetRequestOptions(include_optional_metadata=include),
            ),
            _request_timeout=TIMEOUT,
        )
        assert response.total == len(response.institutions) == 300
        assert (response.institutions[0].get("logo") is not None) is include


def call_identity_verification_create(sdk: Any, fake: FakePlaid) -> None:
    request = IdentityVerificationCreateRequest(
        client_user_id="user-idv",
        template_id="idvtmp_contract",
        is_shareable=True,
        gave_consent=True,
        is_idempotent=True,
    )
    first = sdk.identity_verification_create(request, _request_timeout=TIMEOUT)
    again = sdk.identity_verification_create(request, _request_timeout=TIMEOUT)
    assert (first.client_user_id, first.status.value, first.template.id) == ("user-idv", "active", "idvtmp_contract")
    assert first.shareable_url and again.id == first.id, "idempotent: the same session comes back"
    other = IdentityVerificationCreateRequest(
        client_user_id="user-idv", template_id="idvtmp_contract", is_shareable=False, gave_consent=False
    )
    assert sdk.identity_verification_create(other, _request_timeout=TIMEOUT).id != first.id
    # AND a finished session reads back as what the KYC webhook announces
    fake.finish_identity_verification(first.id, "success")
    finished = sdk.identity_verification_get(
        IdentityVerificationGetRequest(identity_verification_id=first.id), _request_timeout=TIMEOUT
    )
    assert (finished.status.value, finished.steps.kyc_check.value) == ("success", "success")


def call_identity_verification_get(sdk: Any, fake: FakePlaid) -> None:
    for status in ("success", "failed", "active", "pending_review", "expired", "canceled"):
        session = fake.create_identity_verification("user-1", status=status)
        response = sdk.identity_verification_get(
            IdentityVerificationGetRequest(identity_verification_id=session["id"]), _request_timeout=TIMEOUT
        )
        assert (response.client_user_id, response.status.value) == ("user-1", status)


def call_watchlist_screening_individual_get(sdk: Any, fake: FakePlaid) -> None:
    for status in ("cleared", "pending_review", "rejected"):
        screening = fake.create_screening("user-2", status=status)
        response = sdk.watchlist_screening_individual_get(
            WatchlistScreeningIndividualGetRequest(watchlist_screening_id=screening["id"]), _request_timeout=TIMEOUT
        )
        assert (response.client_user_id, response.status.value) == ("user-2", status)


def call_webhook_verification_key_get(sdk: Any, fake: FakePlaid) -> None:
    # An active key (expired_at null) and, after rotation, an expired one both parse.
    old = fake.current_key
    fake.rotate_key()
    for kid in (old.kid, fake.current_key.kid):
        response = sdk.webhook_verification_key_get(
            WebhookVerificationKeyGetRequest(key_id=kid), _request_timeout=TIMEOUT
        )
        assert response.key.kid == kid
    assert response.key.expired_at is None


def call_link_token_create(sdk: Any, fake: FakePlaid) -> None:
    item = new_item(fake)
    user = LinkTokenCreateRequestUser(client_user_id="user-3")
    new = sdk.link_token_create(
        LinkTokenCreateRequest(
            client_name="FloatMe",
            language="en",
            country_codes=[CountryCode("US")],
            user=user,
            products=[Products("transactions")],
            webhook="https://example.com/v1/plaid",
            transactions=LinkTokenTransactions(days_requested=180),
        ),
        _request_timeout=TIMEOUT,
    )
    update = sdk.link_token_create(
        LinkTokenCreateRequest(
            client_name="FloatMe",
            language="en",
            country_codes=[CountryCode("US")],
            user=user,
            access_token=item.access_token,
        ),
        _request_timeout=TIMEOUT,
    )
    assert new.link_token != update.link_token
    assert new.expiration > update.expiration - timedelta(minutes=1)


def call_session_token_create(sdk: Any, fake: FakePlaid) -> None:
    response = sdk.session_token_create(
        SessionTokenCreateRequest(template_id="template_1", user=SessionTokenCreateRequestUser(client_user_id="u4")),
        _request_timeout=TIMEOUT,
    )
    assert response.link.link_token.startswith("link-")


def call_user_account_session_get(sdk: Any, fake: FakePlaid) -> None:
    session = sdk.session_token_create(
        SessionTokenCreateRequest(template_id="template_1", user=SessionTokenCreateRequestUser(client_user_id="u5")),
        _request_timeout=TIMEOUT,
    )
    public_token = fake.complete_layer_session(session.link.link_token, items=2, transaction_count=10)
    response = sdk.user_account_session_get(
        UserAccountSessionGetRequest(public_token=public_token), _request_timeout=TIMEOUT
    )
    assert len(response.items) == 2
    assert response.identity.name.first_name


CONTRACT_CALLS: dict[str, Callable[[Any, FakePlaid], None]] = {
    "/item/get": call_item_get,
    "/item/remove": call_item_remove,
    "/item/public_token/exchange": call_item_public_token_exchange,
    "/sandbox/public_token/create": call_sandbox_public_token_create,
    "/transactions/get": call_transactions_get,
    "/transactions/sync": call_transactions_sync,
    "/accounts/get": call_accounts_get,
    "/accounts/balance/get": call_accounts_balance_get,
    "/liabilities/get": call_liabilities_get,
    "/processor/token/create": call_processor_token_create,
    "/institutions/get": call_institutions_get,
    "/identity_verification/create": call_identity_verification_create,
    "/identity_verification/get": call_identity_verification_get,
    "/watchlist_screening/individual/get": call_watchlist_screening_individual_get,
    "/webhook_verification_key/get": call_webhook_verification_key_get,
    "/link/token/create": call_link_token_create,
    "/session/token/create": call_session_token_create,
    "/user_account/session/get": call_user_account_session_get,
}


def test_every_fake_endpoint_has_a_contract_call() -> None:
    # GIVEN the fake's endpoint table WHEN compared with the contract calls THEN none is untested
    assert set(CONTRACT_CALLS) == set(ENDPOINTS)


@pytest.mark.parametrize("endpoint", sorted(CONTRACT_CALLS))
def test_endpoint_parses_with_strict_sdk_models(endpoint: str, sdk: Any, fake_plaid: FakePlaid) -> None:
    # GIVEN the fake WHEN the endpoint is called through the SDK (model parsing on)
    CONTRACT_CALLS[endpoint](sdk, fake_plaid)
    # THEN no exception was raised, and the fake really served the endpoint
    assert any(call.endpoint == endpoint and call.status == 200 for call in fake_plaid.calls(endpoint))


@pytest.mark.parametrize("code", sorted(ERRORS))
def test_every_error_body_parses_as_the_sdk_plaid_error(code: str, sdk: Any) -> None:
    # GIVEN the fake's error body for a code (rate limits with an endpoint-specific code)
    body = FakeApiError(code).body("/transactions/get")
    # WHEN parsed as the SDK's PlaidError model
    error = sdk_model(sdk, body, PlaidError)
    # THEN it parses and keeps type, code and status
    assert (error.error_type.value, error.status) == (ERRORS[code].error_type, ERRORS[code].status)
    assert error.error_code == ("TRANSACTIONS_LIMIT" if code == "RATE_LIMIT_EXCEEDED" else code)


WEBHOOK_CONTRACTS: list[tuple[dict[str, Any], type]] = [
    (webhooks.transactions_update("item-1", "DEFAULT_UPDATE", new_transactions=3), DefaultUpdateWebhook),
    (webhooks.transactions_removed("item-1", ["t1", "t2"]), TransactionsRemovedWebhook),
    (webhooks.sync_updates_available("item-1"), SyncUpdatesAvailableWebhook),
    (webhooks.item_error("item-1"), ItemErrorWebhook),
    (webhooks.item_event("item-1", "LOGIN_REPAIRED"), ItemLoginRepairedWebhook),
    (webhooks.item_event("item-1", "USER_PERMISSION_REVOKED", error=None), UserPermissionRevokedWebhook),
    (webhooks.item_event("item-1", "USER_ACCOUNT_REVOKED", account_id="acc-1"), UserAccountRevokedWebhook),
    (webhooks.auth_update("item-1", updated={"acc-1": ["ACCOUNT_NUMBER"]}), AuthDefaultUpdateWebhook),
    (webhooks.liabilities_update("item-1", new=["acc-1"]), LiabilitiesDefaultUpdateWebhook),
    (webhooks.identity_verification("idv_1"), IdentityVerificationStatusUpdatedWebhook),
    (webhooks.screening("scr_1"), ScreeningStatusUpdatedWebhook),
    (webhooks.layer_authentication_passed("session-1", "link-local-1"), LayerAuthenticationPassedWebhook),
]


@pytest.mark.parametrize(("payload", "model"), WEBHOOK_CONTRACTS, ids=lambda v: getattr(v, "__name__", ""))
def test_webhook_payload_builders_parse_as_sdk_webhook_models(payload: dict[str, Any], model: type, sdk: Any) -> None:
    # GIVEN a payload built by the fake WHEN parsed by the SDK's webhook model THEN it parses unchanged
    parsed = sdk_model(sdk, payload, model)
    assert parsed.webhook_code == payload["webhook_code"]


def test_contract_catches_a_missing_required_key(sdk: Any, fake_plaid: FakePlaid) -> None:
    # GIVEN the fake answers /item/get without item.webhook (required, nullable)
    item = new_item(fake_plaid)
    body: dict[str, Any] = {"item": fake_plaid.item(item.access_token).item_json(), "request_id": "req"}
    del body["item"]["webhook"]
    fake_plaid.respond("/item/get", body)
    # WHEN the SDK parses it THEN it refuses: the contract tests have teeth
    with pytest.raises((TypeError, ValueError)):
        sdk.item_get(ItemGetRequest(access_token=item.access_token), _request_timeout=TIMEOUT)
