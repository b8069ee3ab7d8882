"""Plaid's JSON API over :class:`FakeState`: one handler per endpoint the service calls.

A handler takes the parsed request body and returns the response body without
``request_id`` (the server adds it), or raises :class:`FakeApiError`. Request checks mirror
Plaid's where the service could get them wrong: missing fields, ``count`` outside 1..500,
inverted date windows, unknown account ids, removed Items.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

from ops.fakes.plaid.errors import FakeApiError
from ops.fakes.plaid.state import FakeItem, FakeState, iso, now_utc
from ops.fakes.plaid.sync import sync_page

Handler = Callable[[FakeState, dict[str, Any]], dict[str, Any]]
MAX_COUNT = 500
DEFAULT_TRANSACTIONS_COUNT = 100
MAX_DAYS_REQUESTED = 730
_OPTIONAL_METADATA = ("url", "primary_color", "logo")


def _missing(*names: str) -> FakeApiError:
    return FakeApiError("MISSING_FIELDS", f"the following required fields are missing: {', '.join(names)}")


def _invalid(message: str) -> FakeApiError:
    return FakeApiError("INVALID_FIELD", message)


def _require(body: dict[str, Any], *names: str) -> None:
    missing = [name for name in names if body.get(name) in (None, "", [])]
    if missing:
        raise _missing(*missing)


def _options(body: dict[str, Any]) -> dict[str, Any]:
    options = body.get("options") or {}
    if not isinstance(options, dict):
        raise _invalid("options must be an object")
    return options


def _date(body: dict[str, Any], name: str) -> date:
    _require(body, name)
    try:
        return date.fromisoformat(str(body[name]))
    except ValueError as exc:
        raise _invalid(f"{name} must be a date in YYYY-MM-DD format") from exc


def _int(value: Any, name: str, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        bound = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise _invalid(f"{name} must be an integer {bound}")
    return value


def _account_ids(item: FakeItem, options: dict[str, Any]) -> list[str] | None:
    ids = options.get("account_ids")
    if ids is None:
        return None
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise _invalid("account_ids must be a list of strings")
    if any(i not in item.account_ids for i in ids):
        raise FakeApiError("INVALID_ACCOUNT_ID")
    return list(ids)


def _usable(state: FakeState, body: dict[str, Any]) -> FakeItem:
    """The Item, unless it is unknown, removed, or in an error state (data calls fail with it)."""
    item = state.item(body.get("access_token"))
    if item.error_code is not None:
        raise FakeApiError(item.error_code)
    return item


# --- Items -----------------------------------------------------------------------------------------


def item_get(state: FakeState, body: dict[str, Any]) -> dict[str, Any]:
    item = state.item(body.get("access_token"))  # an Item in error still answers, with ``item.error``
    return {"item": item.item_json(consent_fields=True), "status": item.status_json()}


def item_remove(state: FakeState, body: dict[str, Any]) -> dict[str, Any]:
    state.remove_item(state.item(body.get("access_token")).access_token)
    return {}


def item_public_token_exchange(state: FakeState, body: dict[str, Any]) -> dict[str, Any]:
    _require(body, "public_token")
    item = state.exchange_public_token(body["public_token"])
    return {"access_token": item.access_token, "item_id": item.item_id}


def sandbox_public_token_create(state: FakeState, body: dict[str, Any]) -> dict[str, Any]:
    _require(body, "institution_id", "initial_products")
    options = _options(body)
    item = state.create_item(
        institution_id=str(body["institution_id"]),
        products=[str(p) for p in body["initial_products"]],
        webhook=options.get("webhook"),
    )
    return {"public_token": item.public_token}


# --- data --------------------------------------------------------------------------------------------


def _render_transaction(txn: dict[str, Any], *, original: bool, pfc: bool) -> dict[str, Any]:
    out = dict(txn)
    if not original:
        out["original_description"] = None
    if not pfc:
        out["personal_finance_category"] = None
    return out


def transactions_get(state: FakeState, body: dict[str, Any]) -> dict[str, Any]:
    item = _usable(state, body)
    if not item.transactions_ready:
        raise FakeApiError("PRODUCT_NOT_READY")
    start, end = _date(body, "start_date"), _date(body, "end_date")
    if start > end:
        raise _invalid("start_date must be on or before end_date")
    options = _options(body)
    count = _int(options.get("count", DEFAULT_TRANSACTIONS_COUNT), "count", 1, MAX_COUNT)
    offset = _int(options.get("offset", 0), "offset", 0)
    account_ids = _account_ids(item, options)
    first, last = start.isoformat(), end.isoformat()
    with state.lock:
        window = [
            t
            for t in item.transactions
            if first <= t["date"] <= last and (account_ids is None or t["account_id"] in account_ids)
        ]
        page = [
            _render_transaction(
                t,
                original=bool(options.get("include_original_description")),
                pfc=bool(options.get("include_personal_finance_category")),
            )
            for t in window[offset : offset + count]
        ]
        return {
            "accounts": item.accounts_json(account_ids),
            "transactions": page,
            "total_transactions": len(window),
            "item": item.item_json(),
        }


def transactions_sync(state: FakeState, body: dict[str, Any]) -> dict[str, Any]:
    """Net changes since the cursor, ``count`` at a time (see :mod:`ops.fakes.plaid.sync`).

    Before the Item's first pull completes Plaid answers empty arrays (``NOT_READY``) and
    hands the cursor back unchanged, rather than an error.
    """
    item = _usable(state, body)
    options = _options(body)
    count = _int(body.get("count", DEFAULT_TRANSACTIONS_COUNT), "count", 1, MAX_COUNT)
    cursor = body.get("cursor")
    if cursor is not None and not isinstance(cursor, str):
        raise _invalid("cursor must be a string")
    if options.get("account_id") is not None:
        raise _invalid("options.account_id is not supported by this fake")
    with state.lock:
        if not item.transactions_ready:
            return {
                "transactions_update_status": "NOT_READY",
                "accounts": item.accounts_json(),
                "added": [],
                "modified": [],
                "removed": [],
                "next_cursor": cursor or "",
                "has_more": False,
            }
        page = sync_page(item.changes, item.item_id, cursor, count)
        by_id = {t["transaction_id"]: t for t in item.transactions}

        def render(ids: list[str]) -> list[dict[str, Any]]:
            return [
                _render_transaction(
                    by_id[t],
                    original=bool(options.get("include_original_description")),
                    pfc=bool(options.get("include_personal_finance_category", True)),
                )
                for t in ids
            ]

        return {
            "transactions_update_status": "HISTORICAL_UPDATE_COMPLETE",
            "accounts": item.accounts_json(),
            "added": render(page.added),
            "modified": render(page.modified),
            "removed": [{"transaction_id": t, "account_id": item.changes.accounts[t]} for t in page.removed],
            "next_cursor": page.next_cursor,
            "has_more": page.has_more,
        }


def accounts_get(state: FakeState, body: dict[str, Any]) -> dict[str, Any]:
    item = _usable(state, body)
    return {"accounts": item.accounts_json(_account_ids(item, _options(body))), "item": item.item_json()}


def accounts_balance_get(state: FakeState, body: dict[str, Any]) -> dict[str, Any]:
    item = _usable(state, body)
    accounts = item.accounts_json(_account_ids(item, _options(body)))
    for account in accounts:
        account["balances"]["last_updated_datetime"] = iso(now_utc())
    return {"accounts": accounts, "item": item.item_json()}


def liabilities_get(state: FakeState, body: dict[str, Any]) -> dict[str, Any]:
    item = _usable(state, body)
    account_ids = _account_ids(item, _options(body))

    def wanted(rows: list[Any]) -> list[Any] | None:
        kept = [r for r in rows if account_ids is None or r["account_id"] in account_ids]
        return kept or None

    return {
        "accounts": item.accounts_json(account_ids),
        "item": item.item_json(),
        "liabilities": {kind: wanted(rows) for kind, rows in item.liabilities.items()},
    }


def processor_token_create(state: FakeState, body: dict[str, Any]) -> dict[str, Any]:
    _require(body, "account_id", "processor")
    item = _usable(state, body)
    return {"processor_token": state.create_processor_token(item, body["account_id"], body["processor"])}


# --- institutions --------------------------------------------------------------------------------------


def institutions_get(state: FakeState, body: dict[str, Any]) -> dict[str, Any]:
    _require(body, "country_codes")
    count = _int(body.get("count"), "count", 1, MAX_COUNT)
    offset = _int(body.get("offset"), "offset", 0)
    countries = set(body["country_codes"])
    options = _options(body)
    products = set(options.get("products") or [])
    oauth = options.get("oauth")
    routing = set(options.get("routing_numbers") or [])
    matching = [
        i
        for i in state.institutions
        if countries & set(i["country_codes"])
        and products <= set(i["products"])
        and (oauth is None or i["oauth"] == oauth)
        and (not routing or routing & set(i["routing_numbers"]))
    ]
    page = [dict(i) for i in matching[offset : offset + count]]
    if not options.get("include_optional_metadata"):
        for institution in page:
            for key in _OPTIONAL_METADATA:
                institution.pop(key, None)
    return {"institutions": page, "total": len(matching)}


# --- KYC ------------------------------------------------------------------------------------------------


def identity_verification_get(state: FakeState, body: dict[str, Any]) -> dict[str, Any]:
    _require(body, "identity_verification_id")
    with state.lock:
        session = state.identity_verifications.get(body["identity_verification_id"])
        if session is None:
            raise FakeApiError("INVALID_IDENTITY_VERIFICATION_ID")
        return dict(session)


def identity_verification_create(state: FakeState, body: dict[str, Any]) -> dict[str, Any]:
    _require(body, "client_user_id", "template_id")
    for flag in ("is_shareable", "gave_consent", "is_idempotent"):
        if flag in body and not isinstance(body[flag], bool):
            raise _invalid(f"{flag} must be a boolean")
    if "is_shareable" not in body:
        raise _missing("is_shareable")
    return state.start_identity_verification(
        str(body["client_user_id"]),
        str(body["template_id"]),
        shareable=bool(body["is_shareable"]),
        idempotent=bool(body.get("is_idempotent")),
    )


def watchlist_screening_individual_get(state: FakeState, body: dict[str, Any]) -> dict[str, Any]:
    _require(body, "watchlist_screening_id")
    with state.lock:
        screening = state.screenings.get(body["watchlist_screening_id"])
        if screening is None:
            raise FakeApiError("INVALID_WATCHLIST_SCREENING_ID")
        return dict(screening)


# --- webhooks, Link, Layer --------------------------------------------------------------------------------


def webhook_verification_key_get(state: FakeState, body: dict[str, Any]) -> dict[str, Any]:
    _require(body, "key_id")
    with state.lock:
        key = state.signing_keys.get(body["key_id"])
        if key is None:
            raise FakeApiError("INVALID_WEBHOOK_VERIFICATION_KEY_ID")
        return {"key": key.jwk()}


def link_token_create(state: FakeState, body: dict[str, Any]) -> dict[str, Any]:
    _require(body, "client_name", "language", "country_codes")
    user = body.get("user") or {}
    if not isinstance(user, dict) or not user.get("client_user_id"):
        raise _missing("user.client_user_id")
    if body.get("access_token") is not None:
        state.item(body["access_token"])  # update mode needs a live Item
    elif not body.get("products"):
        raise _missing("products")
    days = (body.get("transactions") or {}).get("days_requested")
    if days is not None:
        _int(days, "transactions.days_requested", 1, MAX_DAYS_REQUESTED)
    record = state.create_link_token(body)
    return {"link_token": record["link_token"], "expiration": record["expiration"]}


def session_token_create(state: FakeState, body: dict[str, Any]) -> dict[str, Any]:
    _require(body, "template_id")
    user = body.get("user") or {}
    if not isinstance(user, dict) or not user.get("client_user_id"):
        raise _missing("user.client_user_id")
    session = state.create_layer_session(str(user["client_user_id"]), str(body["template_id"]), body.get("webhook"))
    return {"link": {"link_token": session.link_token, "expiration": iso(now_utc() + timedelta(hours=4))}}


def user_account_session_get(state: FakeState, body: dict[str, Any]) -> dict[str, Any]:
    _require(body, "public_token")
    session = state.layer_session_for(body["public_token"])
    who = session.identity
    with state.lock:
        items = [state.items[t] for t in session.access_tokens]
    return {
        "link_session_id": session.link_session_id,
        "identity": {
            "name": {"first_name": who["given_name"], "last_name": who["family_name"]},
            "address": {
                "street": who["street"],
                "street2": None,
                "city": who["city"],
                "region": who["region"],
                "postal_code": who["postal_code"],
                "country": who["country"],
            },
            "phone_number": who["phone_number"],
            "email": who["email"],
            "date_of_birth": who["date_of_birth"],
            "ssn": None,
            "ssn_last_4": who["ssn_last_4"],
        },
        "items": [{"item_id": item.item_id, "access_token": item.access_token} for item in items],
    }


ENDPOINTS: dict[str, Handler] = {
    "/item/get": item_get,
    "/item/remove": item_remove,
    "/item/public_token/exchange": item_public_token_exchange,
    "/sandbox/public_token/create": sandbox_public_token_create,
    "/transactions/get": transactions_get,
    "/transactions/sync": transactions_sync,
    "/accounts/get": accounts_get,
    "/accounts/balance/get": accounts_balance_get,
    "/liabilities/get": liabilities_get,
    "/processor/token/create": processor_token_create,
    "/institutions/get": institutions_get,
    "/identity_verification/create": identity_verification_create,
    "/identity_verification/get": identity_verification_get,
    "/watchlist_screening/individual/get": watchlist_screening_individual_get,
    "/webhook_verification_key/get": webhook_verification_key_get,
    "/link/token/create": link_token_create,
    "/session/token/create": session_token_create,
    "/user_account/session/get": user_account_session_get,
}
