"""Items: Link tokens, adding from a public token, Plaid Layer, persist, remine, removal,
main account, mining mode, item history and the change check."""

from __future__ import annotations

from chalice import Response
from chalice.app import Request

from chalicelib.api import item_changes, linking, requests, responses
from chalicelib.api.errors import ForbiddenError
from chalicelib.api.http import Call, ok
from chalicelib.data import items
from chalicelib.data.account_changes import ChangeType
from chalicelib.data.ttl import iso_timestamp, utcnow


def _linked(linked: linking.LinkedItem) -> dict[str, object]:
    return {**responses.ItemOut().dump(linked.item), "replaced_item_ids": list(linked.replaced_item_ids)}


def list_items(request: Request, user_id: str) -> Response:
    call = Call.for_user(request, requests.UserPath(), user_id=user_id)
    return ok(responses.items_body(items.list_items(call.user_id)))


def create_link_token(request: Request, user_id: str) -> Response:
    call = Call.for_user(request, requests.UserPath(), user_id=user_id)
    body = call.body(requests.LinkTokenBody())
    return ok(linking.create_link_token(call.user_id, body["item_id"]), status=201)


def add_item(request: Request, user_id: str) -> Response:
    call = Call.for_user(request, requests.UserPath(), user_id=user_id)
    body = call.body(requests.AddItemBody())
    linked = linking.add_item(
        call.user_id,
        body["public_token"],
        body["main_account_id"],
        body["purpose"],
        is_override=call.principal.is_service,
        now=utcnow(),
    )
    return ok(_linked(linked), status=201)


def start_layer(request: Request, user_id: str) -> Response:
    call = Call.for_user(request, requests.UserPath(), user_id=user_id)
    call.body(requests.EmptyBody())
    return ok(linking.start_layer_session(call.user_id), status=201)


def layer_results(request: Request, user_id: str) -> Response:
    call = Call.for_user(request, requests.UserPath(), user_id=user_id)
    body = call.body(requests.LayerResultsBody())
    return ok(linking.store_layer_results(call.user_id, body["public_token"], utcnow()), status=201)


def layer_items(request: Request, user_id: str) -> Response:
    call = Call.for_user(request, requests.UserPath(), user_id=user_id)
    body = call.body(requests.LayerItemsBody())
    linked = linking.create_layer_items(
        call.user_id,
        body["public_token"],
        body["item_ids"],
        body["main_account_id"],
        body["purpose"],
        is_override=call.principal.is_service,
        now=utcnow(),
    )
    return ok({"items": [_linked(li) for li in linked]}, status=201)


def persist(request: Request, user_id: str, item_id: str) -> Response:
    call = Call.for_user(request, requests.ItemPath(), user_id=user_id, item_id=item_id)
    call.body(requests.EmptyBody())
    return ok(responses.ItemOut().dump(item_changes.persist(call.user_id, call.path["item_id"])))


def remine(request: Request, user_id: str, item_id: str) -> Response:
    call = Call.for_user(request, requests.ItemPath(), user_id=user_id, item_id=item_id)
    body = call.body(requests.RemineBody())
    return ok(item_changes.remine(call.user_id, call.path["item_id"], body["webhook_code"], utcnow()), status=202)


def set_mining_mode(request: Request, user_id: str, item_id: str) -> Response:
    """Switch how the item is mined; service tokens only (an operational choice, not the user's)."""
    call = Call.for_user(request, requests.ItemPath(), user_id=user_id, item_id=item_id)
    if not call.principal.is_service:
        raise ForbiddenError("changing an item's mining mode needs a service token")
    body = call.body(requests.MiningModeBody())
    return ok(responses.ItemOut().dump(item_changes.set_mining_mode(call.user_id, call.path["item_id"], body["mode"])))


def remove_item(request: Request, user_id: str, item_id: str) -> Response:
    call = Call.for_user(request, requests.ItemPath(), user_id=user_id, item_id=item_id)
    query = call.query(requests.RemoveItemQuery())
    removed = item_changes.remove_item(
        call.user_id, call.path["item_id"], query["reason"], is_override=call.principal.is_service, now=utcnow()
    )
    return ok(responses.ItemOut().dump(removed))


def change_main_account(request: Request, user_id: str, item_id: str) -> Response:
    call = Call.for_user(request, requests.ItemPath(), user_id=user_id, item_id=item_id)
    body = call.body(requests.MainAccountBody())
    item = item_changes.change_main_account(
        call.user_id, call.path["item_id"], body["account_id"], is_override=call.principal.is_service, now=utcnow()
    )
    return ok(responses.ItemOut().dump(item))


def item_history(request: Request, user_id: str) -> Response:
    call = Call.for_user(request, requests.UserPath(), user_id=user_id)
    query = call.query(requests.ItemHistoryQuery())
    changes = item_changes.item_history(call.user_id, query["limit"])
    return ok({"changes": responses.dump_many(responses.AccountChangeOut(), changes)})


def change_check(request: Request, user_id: str) -> Response:
    call = Call.for_user(request, requests.UserPath(), user_id=user_id)
    query = call.query(requests.ChangeCheckQuery())
    check = item_changes.change_check(call.user_id, query["days"], utcnow())
    return ok(
        {
            "since": iso_timestamp(check.since),
            "changed": check.changed,
            "item_removed": check.any_of(ChangeType.ITEM_REMOVED),
            "main_account_changed": check.any_of(ChangeType.MAIN_ACCOUNT_CHANGED),
            "changes": responses.dump_many(responses.AccountChangeOut(), check.changes),
        }
    )
