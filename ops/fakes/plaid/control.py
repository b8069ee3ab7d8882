"""The control API under ``/__fake__/``: drive a fake running in another process.

Every route maps onto a :class:`~ops.fakes.plaid.server.FakePlaid` method; bodies and answers
are JSON. No credentials: the fake only ever listens on a developer machine or CI runner.

=======  ======================================  ====================================================
method   path                                    body / answer
=======  ======================================  ====================================================
GET      /__fake__/health                        ``{ok, url}``
POST     /__fake__/items                         create_item options -> ``{access_token, item_id, accounts...}``
GET      /__fake__/items/transactions            ``?access_token=`` -> ``{transactions}`` (stored, newest first)
POST     /__fake__/items/error                   ``{access_token, error_code|null}``
POST     /__fake__/items/ready                   ``{access_token, ready}`` (false: PRODUCT_NOT_READY)
POST     /__fake__/items/remove_transactions     ``{access_token, transaction_ids}`` -> ``{removed}``
POST     /__fake__/items/add_transactions        ``{access_token, count}`` -> ``{added}``
POST     /__fake__/items/post_pending            ``{access_token}`` -> ``{removed, posted}``
POST     /__fake__/items/modify_transactions     ``{access_token, transaction_ids?, count?}`` -> ``{modified}``
POST     /__fake__/faults                        ``{endpoint, error?, delay?, times?, access_token?, response?}``
GET      /__fake__/faults                        ``{faults}``
DELETE   /__fake__/faults                        clear every fault
GET      /__fake__/calls                         ``?endpoint=`` -> ``{calls}``
DELETE   /__fake__/calls                         forget recorded calls
POST     /__fake__/reset                         clear faults and calls
POST     /__fake__/keys/rotate                   ``{kid, expired_kid}``
POST     /__fake__/webhooks/sign                 ``{payload, iat?}`` -> ``{body, plaid_verification}``
POST     /__fake__/webhooks/send                 ``{url, payload, iat?}`` -> ``{status, body}``
POST     /__fake__/identity_verifications        ``{client_user_id, status?}`` -> the session
POST     /__fake__/identity_verifications/finish ``{id, status?}`` -> the session, finished (default success)
POST     /__fake__/screenings                    ``{client_user_id, status?, legal_name?}`` -> the screening
POST     /__fake__/layer/complete                ``{link_token, items?}`` -> ``{public_token}``
=======  ======================================  ====================================================
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date
from typing import TYPE_CHECKING, Any

from ops.fakes.plaid.errors import Fault

if TYPE_CHECKING:
    from ops.fakes.plaid.server import FakePlaid

Query = dict[str, list[str]]
Route = Callable[["FakePlaid", dict[str, Any], Query], Any]

_ITEM_OPTIONS = (
    "institution_id",
    "transaction_count",
    "history_days",
    "seed",
    "webhook",
    "loans",
    "long_text_length",
    "unofficial_currency_every",
    "products",
    "transactions_ready",
    "solvent",
)


class ControlError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _field(body: dict[str, Any], name: str) -> Any:
    if name not in body:
        raise ControlError(400, f"missing field {name!r}")
    return body[name]


def _token(body: dict[str, Any]) -> str:
    return str(_field(body, "access_token"))


def item_summary(item: Any) -> dict[str, Any]:
    return {
        "access_token": item.access_token,
        "item_id": item.item_id,
        "public_token": item.public_token,
        "institution_id": item.institution_id,
        "accounts": item.roles(),
        "transaction_count": len(item.transactions),
        "seed": item.seed,
    }


def _create_item(fake: FakePlaid, body: dict[str, Any], _: Query) -> Any:
    options = {k: body[k] for k in _ITEM_OPTIONS if k in body}
    if "today" in body:
        options["today"] = date.fromisoformat(str(body["today"]))
    return item_summary(fake.create_item(**options))


def _transactions(fake: FakePlaid, _: dict[str, Any], query: Query) -> Any:
    token = (query.get("access_token") or [""])[0]
    return {"transactions": fake.item(token).transactions}


def _item_error(fake: FakePlaid, body: dict[str, Any], _: Query) -> Any:
    fake.set_item_error(_token(body), body.get("error_code"))
    return {}


def _item_ready(fake: FakePlaid, body: dict[str, Any], _: Query) -> Any:
    fake.set_transactions_ready(_token(body), bool(body.get("ready", True)))
    return {}


def _remove_transactions(fake: FakePlaid, body: dict[str, Any], _: Query) -> Any:
    return {"removed": fake.remove_transactions(_token(body), list(_field(body, "transaction_ids")))}


def _add_transactions(fake: FakePlaid, body: dict[str, Any], _: Query) -> Any:
    added = fake.add_transactions(_token(body), int(body.get("count", 1)))
    return {"added": [t["transaction_id"] for t in added]}


def _post_pending(fake: FakePlaid, body: dict[str, Any], _: Query) -> Any:
    removed, posted = fake.post_pending(_token(body))
    return {"removed": removed, "posted": [t["transaction_id"] for t in posted]}


def _modify_transactions(fake: FakePlaid, body: dict[str, Any], _: Query) -> Any:
    ids = body.get("transaction_ids")
    chosen = list(ids) if ids is not None else None
    modified = fake.modify_transactions(_token(body), chosen, count=int(body.get("count", 1)))
    return {"modified": [t["transaction_id"] for t in modified]}


def _add_fault(fake: FakePlaid, body: dict[str, Any], _: Query) -> Any:
    fault = Fault(
        endpoint=str(_field(body, "endpoint")),
        error=body.get("error"),
        delay=float(body.get("delay", 0.0)),
        times=body.get("times", 1),
        access_token=body.get("access_token"),
        response=body.get("response"),
        response_status=int(body.get("status", 200)),
    )
    return fake.add_fault(fault).describe()


def _list_faults(fake: FakePlaid, _: dict[str, Any], __: Query) -> Any:
    return {"faults": [f.describe() for f in fake.faults()]}


def _clear_faults(fake: FakePlaid, _: dict[str, Any], __: Query) -> Any:
    fake.clear_faults()
    return {}


def _calls(fake: FakePlaid, _: dict[str, Any], query: Query) -> Any:
    endpoint = query["endpoint"][0] if query.get("endpoint") else None
    return {"calls": [c.as_json() for c in fake.calls(endpoint)]}


def _clear_calls(fake: FakePlaid, _: dict[str, Any], __: Query) -> Any:
    fake.clear_calls()
    return {}


def _reset(fake: FakePlaid, _: dict[str, Any], __: Query) -> Any:
    fake.reset()
    return {}


def _rotate(fake: FakePlaid, _: dict[str, Any], __: Query) -> Any:
    expired = fake.current_key.kid
    return {"kid": fake.rotate_key().kid, "expired_kid": expired}


def _sign(fake: FakePlaid, body: dict[str, Any], _: Query) -> Any:
    raw, header = fake.sign_webhook(dict(_field(body, "payload")), iat=body.get("iat"))
    return {"body": raw.decode(), "plaid_verification": header}


def _send(fake: FakePlaid, body: dict[str, Any], _: Query) -> Any:
    delivery = fake.send_webhook(str(_field(body, "url")), dict(_field(body, "payload")), iat=body.get("iat"))
    return {"status": delivery.status, "body": delivery.body.decode(errors="replace")}


def _identity_verification(fake: FakePlaid, body: dict[str, Any], _: Query) -> Any:
    return fake.create_identity_verification(
        str(_field(body, "client_user_id")), status=str(body.get("status", "success"))
    )


def _finish_identity_verification(fake: FakePlaid, body: dict[str, Any], _: Query) -> Any:
    try:
        return fake.finish_identity_verification(str(_field(body, "id")), str(body.get("status", "success")))
    except KeyError as exc:
        raise ControlError(404, "no such identity verification") from exc


def _screening(fake: FakePlaid, body: dict[str, Any], _: Query) -> Any:
    return fake.create_screening(
        str(_field(body, "client_user_id")),
        status=str(body.get("status", "cleared")),
        legal_name=body.get("legal_name"),
    )


def _layer_complete(fake: FakePlaid, body: dict[str, Any], _: Query) -> Any:
    return {
        "public_token": fake.complete_layer_session(str(_field(body, "link_token")), items=int(body.get("items", 1)))
    }


def _health(fake: FakePlaid, _: dict[str, Any], __: Query) -> Any:
    return {"ok": True, "url": fake.url}


ROUTES: dict[tuple[str, str], Route] = {
    ("GET", "health"): _health,
    ("POST", "items"): _create_item,
    ("GET", "items/transactions"): _transactions,
    ("POST", "items/error"): _item_error,
    ("POST", "items/ready"): _item_ready,
    ("POST", "items/remove_transactions"): _remove_transactions,
    ("POST", "items/add_transactions"): _add_transactions,
    ("POST", "items/post_pending"): _post_pending,
    ("POST", "items/modify_transactions"): _modify_transactions,
    ("POST", "faults"): _add_fault,
    ("GET", "faults"): _list_faults,
    ("DELETE", "faults"): _clear_faults,
    ("GET", "calls"): _calls,
    ("DELETE", "calls"): _clear_calls,
    ("POST", "reset"): _reset,
    ("POST", "keys/rotate"): _rotate,
    ("POST", "webhooks/sign"): _sign,
    ("POST", "webhooks/send"): _send,
    ("POST", "identity_verifications"): _identity_verification,
    ("POST", "identity_verifications/finish"): _finish_identity_verification,
    ("POST", "screenings"): _screening,
    ("POST", "layer/complete"): _layer_complete,
}


def handle_control(fake: FakePlaid, method: str, path: str, query: Query, raw: bytes) -> tuple[int, Any]:
    """Status and JSON answer for one control request."""
    route = ROUTES.get((method, path.removeprefix("/__fake__/").strip("/")))
    if route is None:
        return 404, {"error": f"no control route {method} {path}"}
    try:
        body = json.loads(raw) if raw else {}
        if not isinstance(body, dict):
            raise ControlError(400, "the body must be a JSON object")
        return 200, route(fake, body, query)
    except ControlError as exc:
        return exc.status, {"error": str(exc)}
    except KeyError as exc:
        return 404, {"error": f"unknown {exc}"}
    except (ValueError, TypeError) as exc:
        return 400, {"error": str(exc)}
