"""The hand-kept OpenAPI document agrees with the app: routes, inputs, outputs, and it lints.

These run without AWS: they compare the document with ``app.app.routes`` and with the
marshmallow schemas that validate requests and shape responses.
"""

from __future__ import annotations

from typing import Any

import pytest
import requests
import schemathesis
from marshmallow import Schema
from openapi_spec_validator import validate
from openapi_spec_validator.readers import read_from_filename
from schemathesis.core.failures import FailureGroup

from chalicelib.api import fields as api_fields
from chalicelib.api import insight_schemas
from chalicelib.api import requests as api_requests
from chalicelib.api import responses as api_responses
from tests.api.conftest import OPENAPI

METHODS = {"get", "put", "post", "delete", "patch", "head", "options"}


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    loaded, _url = read_from_filename(str(OPENAPI))
    return dict(loaded)


def operations(document: dict[str, Any]) -> dict[str, tuple[str, str, dict[str, Any]]]:
    """operationId -> (path, METHOD, operation)."""
    return {
        op["operationId"]: (path, method.upper(), op)
        for path, item in document["paths"].items()
        for method, op in item.items()
        if method in METHODS
    }


def resolve(document: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        target: Any = document
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


def test_the_document_is_valid_openapi(document: dict[str, Any]) -> None:
    validate(document)


def test_routes_and_document_match_exactly(document: dict[str, Any]) -> None:
    import app

    # GIVEN every (path, method) the app routes and every one the document describes
    routed = {(path, method) for path, entry in app.app.routes.items() for method in entry}
    documented = {(path, method) for path, _method, _op in operations(document).values() for method in [_method]}
    # THEN they are the same set
    assert routed - documented == set(), "routes missing from the document"
    assert documented - routed == set(), "documented operations the app does not route"


def test_operation_ids_are_unique(document: dict[str, Any]) -> None:
    ids = [op["operationId"] for item in document["paths"].values() for m, op in item.items() if m in METHODS]
    assert len(ids) == len(set(ids))


def test_every_protected_operation_declares_401_and_every_user_route_403(document: dict[str, Any]) -> None:
    for op_id, (path, _method, op) in operations(document).items():
        protected = op.get("security", document["security"]) != []
        assert not protected or "401" in op["responses"], op_id
        assert "{user_id}" not in path or "403" in op["responses"], op_id


def patterns(node: Any) -> set[str]:
    """Every ``pattern`` anywhere in the document."""
    if isinstance(node, dict):
        own = {node["pattern"]} if isinstance(node.get("pattern"), str) else set()
        return own.union(*(patterns(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(patterns(v) for v in node))
    return set()


def test_input_patterns_are_the_documents(document: dict[str, Any]) -> None:
    # GIVEN every pattern the document uses for parameters and bodies
    # THEN it is exactly the set the marshmallow fields enforce
    enforced = {
        api_fields.USER_ID_PATTERN,
        api_fields.ID_PATTERN,
        api_fields.TOKEN_PATTERN,
        api_fields.DATE_PATTERN,
        api_fields.MONTH_PATTERN,
    }
    assert patterns(document) == enforced


QUERIES: dict[str, type[Schema]] = {
    "listTransactions": api_requests.TransactionsQuery,
    "getTransactionSummary": api_requests.SummaryQuery,
    "listAccounts": api_requests.AccountsQuery,
    "getBalanceHistory": api_requests.BalancesQuery,
    "getItemHistory": api_requests.ItemHistoryQuery,
    "checkAccountChanges": api_requests.ChangeCheckQuery,
    "getLiabilityHistory": api_requests.LiabilityHistoryQuery,
    "removeItem": api_requests.RemoveItemQuery,
    "getPayday": insight_schemas.PaydayQuery,
    "getForecast": insight_schemas.ForecastQuery,
}

BODIES: dict[str, type[Schema]] = {
    "EmptyRequest": api_requests.EmptyBody,
    "RefreshRequest": api_requests.RefreshBody,
    "QaSeedRequest": api_requests.QaSeedBody,
    "LinkTokenRequest": api_requests.LinkTokenBody,
    "AddItemRequest": api_requests.AddItemBody,
    "LayerResultsRequest": api_requests.LayerResultsBody,
    "LayerItemsRequest": api_requests.LayerItemsBody,
    "RemineRequest": api_requests.RemineBody,
    "MainAccountRequest": api_requests.MainAccountBody,
    "MiningModeRequest": api_requests.MiningModeBody,
    "SubmitIncomeVerificationRequest": insight_schemas.SubmitIncomeVerificationBody,
    "ReviewIncomeVerificationRequest": insight_schemas.ReviewIncomeVerificationBody,
    "IdentityVerificationRequest": api_requests.IdentityVerificationBody,
}

OUTPUTS: dict[str, type[Schema]] = {
    "Transaction": api_responses.TransactionOut,
    "TransactionPage": api_responses.TransactionPageOut,
    "Account": api_responses.AccountOut,
    "Balances": api_responses.BalancesOut,
    "Balance": api_responses.BalanceOut,
    "Summary": api_responses.SummaryOut,
    "Item": api_responses.ItemOut,
    "AccountChange": api_responses.AccountChangeOut,
    "Liability": api_responses.LiabilityOut,
    "IdentityVerification": api_responses.IdentityVerificationOut,
    "IdentityVerificationStarted": api_responses.IdentityVerificationStartedOut,
    "Category": api_responses.CategoryOut,
    "Institution": api_responses.InstitutionOut,
    "IncomeVerification": insight_schemas.IncomeVerificationOut,
    "IncomeVerificationNote": insight_schemas.VerificationNoteOut,
    "Payday": insight_schemas.PaydayOut,
    "PaydayCollectionDates": insight_schemas.PaydayCollectionDatesOut,
    "Savings": insight_schemas.SavingsOut,
    "SavingsMonth": insight_schemas.SavingsMonthOut,
    "SavingsAccount": insight_schemas.SavingsAccountOut,
    "IncomeDetection": insight_schemas.IncomeDetectionOut,
    "IncomeStream": insight_schemas.IncomeStreamOut,
    "RecurringExpense": insight_schemas.RecurringExpenseOut,
    "RecurringExpenseList": insight_schemas.RecurringExpensesOut,
    "ScoreBand": insight_schemas.ScoreBandOut,
    "CashAdvanceScore": insight_schemas.CashAdvanceScoreOut,
    "Forecast": insight_schemas.ForecastOut,
    "ForecastDay": insight_schemas.ForecastDayOut,
    "ForecastEvent": insight_schemas.ForecastEventOut,
}


def _names(schema: type[Schema], *, dump: bool) -> set[str]:
    return {f.data_key or name for name, f in schema().fields.items() if (not f.load_only if dump else not f.dump_only)}


def test_query_parameters_are_the_query_schemas(document: dict[str, Any]) -> None:
    ops = operations(document)
    for op_id, (_path, _method, op) in ops.items():
        params = [resolve(document, p) for p in op.get("parameters", [])]
        documented = {p["name"] for p in params if p["in"] == "query"}
        expected = _names(QUERIES[op_id], dump=False) if op_id in QUERIES else set()
        assert documented == expected, op_id


def test_request_bodies_are_the_body_schemas(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    for name, schema in BODIES.items():
        component = schemas[name]
        assert component.get("additionalProperties") is False, name
        assert set(component.get("properties", {})) == _names(schema, dump=False), name
        required = {n for n, f in schema().fields.items() if f.required}
        assert set(component.get("required", [])) == required, name


def test_response_components_are_the_output_schemas(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    for name, schema in OUTPUTS.items():
        component = schemas[name]
        assert set(component["properties"]) == _names(schema, dump=True), name
        assert set(component["required"]) == set(component["properties"]), f"{name}: every field is always present"


def test_the_contract_check_used_by_every_http_test_rejects_a_wrong_response() -> None:
    # GIVEN a 200 for the transactions page whose amount is a string
    contract = schemathesis.openapi.from_path(OPENAPI)
    response = requests.Response()
    response.status_code = 200
    response.headers["Content-Type"] = "application/json"
    response._content = b'{"transactions": [{"amount": "12.34"}], "next_cursor": null}'
    response.request = requests.Request("GET", "http://app/v1/users/u1/transactions").prepare()
    # WHEN it is validated / THEN it fails, so passing HTTP tests do prove conformance
    with pytest.raises(FailureGroup) as raised:
        contract["/v1/users/{user_id}/transactions"]["GET"].validate_response(response)
    messages = " ".join(str(getattr(f, "message", f)) for f in raised.value.exceptions)
    assert '"12.34" is not of type "integer"' in messages
