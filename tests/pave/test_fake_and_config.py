"""The fake Pave's own contract (validation, key reuse, controls, command) and the Pave settings."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path

import boto3
import pytest
import requests

from chalicelib.errors import ConfigurationError
from chalicelib.peers import reset_peers
from chalicelib.peers.pave import PaveClient, PaveError, get_pave
from chalicelib.settings import LOCAL_PAVE_API_KEY, load_pave_config
from ops.fakes.pave import FakePave, insights
from ops.fakes.plaid.state import FakeState
from tests.pave.conftest import TODAY, Clock, txn

ROOT = Path(__file__).resolve().parents[2]


def _post(pave: FakePave, user_id: str, body: object, key: str | None = None) -> requests.Response:
    headers = {"X-API-Key": pave.api_key, **({"Idempotency-Key": key} if key else {})}
    return requests.post(f"{pave.api_url}/users/{user_id}/transactions", json=body, headers=headers, timeout=2)


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"removed": []}, 422, "INVALID_UPLOAD"),
        (
            {"transactions": [{"transaction_id": "t", "account_id": "a", "amount": "1", "date": "2024-06-01"}]},
            422,
            "INVALID_TRANSACTION",
        ),
        (
            {"transactions": [{"transaction_id": "t", "account_id": "a", "amount": 1, "date": "June 1"}]},
            422,
            "INVALID_TRANSACTION",
        ),
        ({"transactions": [], "removed": [{"id": "t"}]}, 422, "INVALID_TRANSACTION"),
        ({"transactions": [], "removed": [{"transaction_id": f"t{i}"} for i in range(1001)]}, 413, "PAYLOAD_TOO_LARGE"),
    ],
)
def test_the_fake_refuses_uploads_that_break_the_contract(
    pave: FakePave, user_id: str, body: object, status: int, code: str
) -> None:
    # GIVEN an upload body with a missing list, a text amount, a bad date, a bad removal, or too many entries
    # WHEN it is posted
    answer = _post(pave, user_id, body)

    # THEN it is refused with Pave's error shape, and nothing is held
    assert (answer.status_code, answer.json()["error"]["code"]) == (status, code)
    assert pave.requests_of(user_id) == []


def test_an_idempotency_key_reused_for_another_upload_is_a_conflict(pave: FakePave, user_id: str) -> None:
    # GIVEN an upload made with a key
    first = _post(pave, user_id, {"transactions": [], "removed": [{"transaction_id": "a"}]}, key="k-1")

    # WHEN the same key comes with a different body, and then with the same body again
    other = _post(pave, user_id, {"transactions": [], "removed": [{"transaction_id": "b"}]}, key="k-1")
    again = _post(pave, user_id, {"transactions": [], "removed": [{"transaction_id": "a"}]}, key="k-1")

    # THEN the different body is refused and the same body replays the first request
    assert first.status_code == 202
    assert (other.status_code, other.json()["error"]["code"]) == (409, "IDEMPOTENCY_KEY_REUSED")
    assert (again.status_code, again.headers["Idempotent-Replayed"]) == (200, "true")
    assert again.json()["request_id"] == first.json()["request_id"]


def test_the_control_plane_drives_processing_faults_and_state(pave: FakePave, client: PaveClient, user_id: str) -> None:
    # GIVEN an upload, and a fake that would need 10 polls to process it
    base = pave.url
    requests.post(f"{base}/_fake/pave/processing", json={"polls": 10}, timeout=2).raise_for_status()
    receipt = client.upload_transactions(user_id, [txn(user_id, "t-1", 100, TODAY)])
    assert not client.request_status(user_id, receipt.request_id).is_processed

    # WHEN it is processed over HTTP, and a 429 is injected over HTTP
    processed = requests.post(f"{base}/_fake/pave/process", json={"user_id": user_id}, timeout=2).json()
    requests.post(f"{base}/_fake/pave/rate-limit", json={"count": 1, "retry_after": 0.01}, timeout=2).raise_for_status()

    # THEN the request is processed (the 429 waited out inside the call) and the state shows it
    assert processed == {"processed": 1}
    assert client.request_status(user_id, receipt.request_id).is_processed
    state = requests.get(f"{base}/_fake/state", timeout=2).json()
    assert state["users"][user_id]["transactions"] == 1
    assert [r["status"] for r in state["users"][user_id]["requests"]] == ["processed"]


def test_a_request_can_be_failed_over_http(pave: FakePave, client: PaveClient, user_id: str) -> None:
    # GIVEN a pending upload
    pave.set_processing(polls=5)
    receipt = client.upload_transactions(user_id, [txn(user_id, "t-1", 100, TODAY)])

    # WHEN the fake is told to fail it
    answer = requests.post(f"{pave.url}/_fake/pave/requests/{receipt.request_id}/fail", timeout=2)

    # THEN polling reads it as failed
    assert answer.status_code == 204
    assert client.request_status(user_id, receipt.request_id).state == "FAILED"


def test_insights_use_the_fakes_clock_for_what_is_next(
    pave: FakePave, client: PaveClient, clock: Clock, user_id: str
) -> None:
    # GIVEN a monthly bill paid on the 3rd for four months, processed
    rows = [txn(user_id, f"b-{m}", 2000, TODAY.replace(month=m, day=3), merchant="Comcast") for m in (3, 4, 5, 6)]
    client.request_status(user_id, client.upload_transactions(user_id, rows).request_id)

    # WHEN the insights are read now, and again once the clock passes the next due date
    now = client.insights(user_id).recurring[0].due_date
    clock.advance(24 * 3600 * 25)
    later = client.insights(user_id).recurring[0].due_date

    # THEN the next due date is always after the fake's today
    assert (now, later) == (TODAY.replace(month=7, day=3), TODAY.replace(month=8, day=3))


def test_only_the_banks_charges_are_fees_and_the_score_explains_itself(
    pave: FakePave, client: PaveClient, user_id: str
) -> None:
    # GIVEN biweekly pay, monthly transfers to savings, and two charges by the bank, processed
    rows = [
        txn(user_id, f"pay-{i}", -180000, TODAY - timedelta(days=14 * i + 1), name="ACME PAYROLL") for i in range(7)
    ]
    rows += [
        txn(user_id, f"sav-{i}", 15000, TODAY - timedelta(days=30 * i + 2), name="Transfer to Savings")
        for i in (0, 1, 2)
    ]
    rows += [txn(user_id, "nsf", 3500, TODAY - timedelta(days=3), name="NSF RETURNED ITEM FEE")]
    rows += [txn(user_id, "od", 3500, TODAY - timedelta(days=9), name="OVERDRAFT ITEM FEE")]
    client.request_status(user_id, client.upload_transactions(user_id, rows).request_id)

    # WHEN the score is read, and the fake says what drives it
    score = client.cash_advance_score(user_id)
    drivers = pave.score_drivers(user_id)

    # THEN only the bank's two charges are fees ("NSF" is inside "TRANSFER", and a transfer is none)
    assert drivers is not None and drivers.fees == 2
    # AND the drivers give every band's score, name the income and say what each part adds
    assert [b.score for b in score.bands] == [drivers.band_score(b.highest_amount // 100) for b in score.bands]
    assert drivers.income == "Acme Payroll, biweekly"
    assert (drivers.inflow, drivers.outflow) == (7 * 180000, 3 * 15000 + 2 * 3500)
    explained = drivers.describe()
    assert "+10 for an active income (Acme Payroll, biweekly)" in explained
    assert "-8 x 2 overdraft/NSF fees" in explained and "+$12,080 on $12,600 in over 90 days" in explained
    # AND a user who never uploaded has nothing to explain
    assert pave.score_drivers(f"{user_id}-never") is None


@pytest.mark.parametrize("seed", range(4))
def test_a_solvent_household_from_the_fake_plaid_scores_above_zero_in_every_band(seed: int) -> None:
    # GIVEN the household the run command's demo links: a year of 1,500 transactions, living within its means
    item = FakeState(institutions=20, today=TODAY).create_item(
        seed=seed, transaction_count=1500, history_days=365, solvent=True
    )

    # WHEN the fake Pave scores what it would be sent (the posted transactions)
    drivers = insights.score_drivers([insights.to_txn(t) for t in item.transactions if not t["pending"]], TODAY)

    # THEN no fee pulls it down, its pay is an active income, and every advance band scores above 0
    assert drivers.fees == 0 and drivers.income
    assert all(drivers.band_score(high) > 0 for high in insights.SCORE_BANDS)


def test_the_command_serves_the_fake_until_terminated(user_id: str) -> None:
    # GIVEN the command started on a free port
    process = subprocess.Popen(
        [sys.executable, "-m", "ops.fakes.pave", "--any-port"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        name, api_url = process.stdout.readline().split()

        # WHEN a client with the app's default key uploads to it
        client = PaveClient(api_url, load_pave_config().api_key)
        receipt = client.upload_transactions(user_id, [txn(user_id, "t-1", 100, TODAY)])

        # THEN it answered like Pave
        assert name == "pave"
        assert client.request_status(user_id, receipt.request_id).is_processed
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
    # AND it stops cleanly on SIGTERM
    assert process.returncode == 0


# --- settings -------------------------------------------------------------------------------


@pytest.fixture
def clean_pave() -> Iterator[None]:
    reset_peers()
    yield
    reset_peers()


def test_the_defaults_aim_at_the_local_fake_and_hide_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN no Pave variables in the environment
    for name in ("PAVE_URL", "PAVE_API_KEY", "PAVE_API_KEY_HEADER", "PAVE_UPLOAD_PAGE_SIZE"):
        monkeypatch.delenv(name, raising=False)

    # WHEN the configuration is read
    config = load_pave_config()

    # THEN it points at the fake on 4575 with X-API-Key, and the key stays out of repr
    assert (config.base_url, config.api_key_header, config.upload_page_size) == (
        "http://127.0.0.1:4575/v1",
        "X-API-Key",
        500,
    )
    assert config.api_key == LOCAL_PAVE_API_KEY
    assert LOCAL_PAVE_API_KEY not in repr(config)


def test_the_environment_overrides_the_pave_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN production-like values
    monkeypatch.setenv("PAVE_URL", "https://api.pave.dev/v1/")
    monkeypatch.setenv("PAVE_API_KEY", "k-prod")
    monkeypatch.setenv("PAVE_API_KEY_HEADER", "Authorization")
    monkeypatch.setenv("PAVE_READ_TIMEOUT_SECONDS", "15")
    monkeypatch.setenv("PAVE_MAX_RETRY_AFTER_SECONDS", "0")
    monkeypatch.setenv("PAVE_UPLOAD_PAGE_SIZE", "250")

    # WHEN the configuration is read
    config = load_pave_config()

    # THEN they are used (trailing slash dropped)
    assert (config.base_url, config.api_key, config.api_key_header) == (
        "https://api.pave.dev/v1",
        "k-prod",
        "Authorization",
    )
    assert (config.read_timeout_seconds, config.max_retry_after_seconds, config.upload_page_size) == (15.0, 0.0, 250)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("PAVE_URL", "api.pave.dev"),
        ("PAVE_UPLOAD_PAGE_SIZE", "1001"),
        ("PAVE_UPLOAD_PAGE_SIZE", "0"),
        ("PAVE_MAX_ATTEMPTS", "x"),
    ],
)
def test_malformed_pave_settings_are_configuration_errors(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    # GIVEN a malformed value / WHEN read / THEN the error names the variable
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigurationError, match=name):
        load_pave_config()


def test_prod_needs_a_pave_key(monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN prod with its URL but no key and no SSM parameter for it
    monkeypatch.setenv("PAVE_URL", "https://pave.example.test/v1")
    monkeypatch.delenv("PAVE_API_KEY", raising=False)
    monkeypatch.delenv("PAVE_API_KEY_PARAMETER", raising=False)

    # WHEN the configuration is read / THEN it refuses rather than use the local key
    with pytest.raises(ConfigurationError, match="PAVE_API_KEY"):
        load_pave_config("prod")


@pytest.mark.integration
def test_prod_authenticates_to_pave_with_the_key_in_the_ssm_parameter_its_config_names(
    pave: FakePave,
    clean_pave: None,
    aws_endpoint: str,
    monkeypatch: pytest.MonkeyPatch,
    override_settings: Callable[..., None],
    user_id: str,
) -> None:
    from aws_lambda_powertools.utilities.parameters import clear_caches

    from ops.package import chalice_config

    # GIVEN prod's Lambda environment as .chalice/config.json declares it (no key, a parameter
    # name), aimed at the fake, and the key stored as operations.md says: a SecureString
    config = chalice_config()
    env = {**config["environment_variables"], **config["stages"]["prod"]["environment_variables"]}
    parameter = env["PAVE_API_KEY_PARAMETER"]
    assert env["PAVE_URL"].startswith("https://")  # prod calls Pave itself (here: the fake instead)
    ssm = boto3.client("ssm")
    ssm.put_parameter(Name=parameter, Type="SecureString", Value=pave.api_key, Overwrite=True)
    monkeypatch.delenv("PAVE_API_KEY", raising=False)
    override_settings(**{**env, "PAVE_URL": pave.api_url, "PAVE_API_KEY_HEADER": pave.api_key_header})
    clear_caches()
    reset_peers()
    try:
        # WHEN the process-wide client uploads THEN Pave accepted the key read from SSM
        get_pave().upload_transactions(user_id, [txn(user_id, "t-1", 100, TODAY)])
        assert len(pave.requests_of(user_id)) == 1

        # WHEN the parameter is rotated to a key Pave does not know and a new execution
        # environment starts (operations.md: Set or rotate the Pave API key)
        ssm.put_parameter(Name=parameter, Type="SecureString", Value="k-revoked", Overwrite=True)
        clear_caches()
        reset_peers()
        # THEN the new key is the one sent, and Pave refuses it
        with pytest.raises(PaveError) as refused:
            get_pave().upload_transactions(user_id, [txn(user_id, "t-2", 100, TODAY)])
        assert refused.value.status in (401, 403)
    finally:
        ssm.delete_parameter(Name=parameter)
        clear_caches()


def test_the_process_wide_client_follows_the_settings(
    pave: FakePave, clean_pave: None, monkeypatch: pytest.MonkeyPatch, user_id: str
) -> None:
    # GIVEN the environment aimed at the fake
    for name, value in pave.env().items():
        monkeypatch.setenv(name, value)
    reset_peers()

    # WHEN the process-wide client uploads, twice
    first = get_pave()
    first.upload_transactions(user_id, [txn(user_id, "t-1", 100, TODAY)])

    # THEN it is built once, reached the fake, and is rebuilt after a reset
    assert get_pave() is first
    assert len(pave.requests_of(user_id)) == 1
    reset_peers()
    assert get_pave() is not first
