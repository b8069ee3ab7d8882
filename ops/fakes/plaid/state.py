"""What the fake Plaid knows: Items by access token, their data, tokens, KYC and Layer sessions.

All mutation goes through :class:`FakeState` under one lock, so the threaded server and a
test thread can drive it at the same time.
"""

from __future__ import annotations

import copy
import random
import secrets
import threading
import uuid
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from chalicelib import clock
from ops.fakes.plaid.errors import FakeApiError
from ops.fakes.plaid.generate import (
    build_accounts,
    build_institutions,
    build_liabilities,
    build_transactions,
    fresh_transactions,
    person,
    plaid_id,
    posted_copy,
    seeded,
)
from ops.fakes.plaid.keys import SigningKey
from ops.fakes.plaid.sync import ChangeLog

DEFAULT_TRANSACTIONS = 400
DEFAULT_HISTORY_DAYS = 730
DEFAULT_INSTITUTION = "ins_109508"
DEFAULT_PRODUCTS = ("transactions", "auth", "liabilities")
ENV = "local"


def now_utc() -> datetime:
    return clock.utcnow().replace(microsecond=0)


def iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat().replace("+00:00", "Z")


def token(kind: str) -> str:
    """A token shaped like Plaid's (``access-sandbox-<uuid>``), in the ``local`` environment."""
    return f"{kind}-{ENV}-{uuid.uuid4()}"


@dataclass
class FakeItem:
    """One linked Item and everything Plaid holds for it."""

    item_id: str
    access_token: str
    public_token: str
    institution_id: str
    institution_name: str
    seed: int
    today: date
    rng: random.Random
    accounts: dict[str, dict[str, Any]]  # by role: checking, savings, credit, mortgage, student
    transactions: list[dict[str, Any]]  # newest first
    liabilities: dict[str, list[Any]]
    products: list[str]
    webhook: str | None = None
    error_code: str | None = None
    transactions_ready: bool = True
    #: Drawn as a household that lives within its means (no overdraft fees, pay covers spending).
    solvent: bool = False
    removed: bool = False
    created_at: datetime = field(default_factory=now_utc)
    last_successful_update: datetime = field(default_factory=now_utc)
    last_webhook: tuple[datetime, str] | None = None
    #: Every change to ``transactions``, for ``/transactions/sync``.
    changes: ChangeLog = field(default_factory=ChangeLog)

    def __post_init__(self) -> None:
        if not self.changes.history:
            self.changes = ChangeLog.starting_with(self.transactions)

    @property
    def account_ids(self) -> list[str]:
        return [account["account_id"] for account in self.accounts.values()]

    def account_id(self, role: str) -> str:
        return str(self.accounts[role]["account_id"])

    def item_json(self, *, consent_fields: bool = False) -> dict[str, Any]:
        """The ``item`` object (``ItemWithConsentFields`` for /item/get)."""
        error = None
        if self.error_code is not None:
            error = FakeApiError(self.error_code).body()
        item: dict[str, Any] = {
            "item_id": self.item_id,
            "institution_id": self.institution_id,
            "institution_name": self.institution_name,
            "webhook": self.webhook,
            "error": error,
            "available_products": sorted({"balance", "identity", "investments"} - set(self.products)),
            "billed_products": sorted(self.products),
            "products": sorted(self.products),
            "consented_products": sorted(self.products),
            "consent_expiration_time": None,
            "update_type": "background",
            "auth_method": None,
        }
        if consent_fields:
            item["created_at"] = iso(self.created_at)
        return item

    def status_json(self) -> dict[str, Any]:
        failed = self.last_successful_update if self.error_code else None
        last_webhook = (
            {"sent_at": iso(self.last_webhook[0]), "code_sent": self.last_webhook[1]} if self.last_webhook else None
        )
        status: dict[str, Any] = {
            "transactions": {
                "last_successful_update": iso(self.last_successful_update),
                "last_failed_update": iso(failed),
            }
        }
        if last_webhook is not None:
            status["last_webhook"] = last_webhook
        return status

    def accounts_json(self, account_ids: list[str] | None = None) -> list[dict[str, Any]]:
        selected = [a for a in self.accounts.values() if account_ids is None or a["account_id"] in account_ids]
        return copy.deepcopy(selected)

    def roles(self) -> dict[str, str]:
        return {role: str(account["account_id"]) for role, account in self.accounts.items()}


@dataclass
class LayerSession:
    link_token: str
    link_session_id: str
    client_user_id: str
    template_id: str
    webhook: str | None
    identity: dict[str, Any]
    access_tokens: list[str] = field(default_factory=list)
    public_token: str | None = None


class FakeState:
    """Every Item and session the fake holds; thread-safe through :attr:`lock`."""

    def __init__(self, *, institutions: int = 300, today: date | None = None) -> None:
        self.lock = threading.RLock()
        self.today_override = today
        self.institutions = build_institutions(institutions)
        self.items: dict[str, FakeItem] = {}  # by access token
        self.public_tokens: dict[str, str] = {}  # public token -> access token ("" once exchanged)
        self.link_tokens: dict[str, dict[str, Any]] = {}
        self.processor_tokens: dict[str, dict[str, str]] = {}
        self.identity_verifications: dict[str, dict[str, Any]] = {}
        self.screenings: dict[str, dict[str, Any]] = {}
        self.layer_sessions: dict[str, LayerSession] = {}  # by link token
        self.layer_public_tokens: dict[str, str] = {}  # public token -> link token
        first_key = SigningKey.generate()
        self.signing_keys: dict[str, SigningKey] = {first_key.kid: first_key}
        self.current_kid = first_key.kid

    @property
    def today(self) -> date:
        return self.today_override or clock.today()

    def institution(self, institution_id: str) -> dict[str, Any]:
        for institution in self.institutions:
            if institution["institution_id"] == institution_id:
                return institution
        raise FakeApiError("INVALID_INSTITUTION")

    # --- webhook keys ------------------------------------------------------------------------

    @property
    def current_key(self) -> SigningKey:
        with self.lock:
            return self.signing_keys[self.current_kid]

    def rotate_key(self) -> SigningKey:
        """Expire the current key (it stays served, with ``expired_at``) and sign with a new one."""
        fresh = SigningKey.generate()
        with self.lock:
            self.signing_keys[self.current_kid].expired_at = int(now_utc().timestamp())
            self.signing_keys[fresh.kid] = fresh
            self.current_kid = fresh.kid
        return fresh

    # --- Items ---------------------------------------------------------------------------------

    def create_item(
        self,
        *,
        institution_id: str = DEFAULT_INSTITUTION,
        transaction_count: int = DEFAULT_TRANSACTIONS,
        history_days: int = DEFAULT_HISTORY_DAYS,
        seed: int | None = None,
        webhook: str | None = None,
        loans: bool = True,
        long_text_length: int = 0,
        unofficial_currency_every: int = 0,
        products: tuple[str, ...] | list[str] = DEFAULT_PRODUCTS,
        transactions_ready: bool = True,
        today: date | None = None,
        solvent: bool = False,
    ) -> FakeItem:
        """A new Item with its accounts and transactions; a given ``seed`` reproduces ids and data.

        ``solvent``: a household that lives within its means (see :mod:`ops.fakes.plaid.generate`).
        """
        institution = self.institution(institution_id)
        seed = secrets.randbits(63) if seed is None else seed
        rng = seeded(seed)
        day = today or self.today
        accounts = build_accounts(rng, loans=loans)
        roles = {role: str(account["account_id"]) for role, account in accounts.items()}
        item = FakeItem(
            item_id=plaid_id(rng),
            access_token=token("access"),
            public_token=token("public"),
            institution_id=institution_id,
            institution_name=str(institution["name"]),
            seed=seed,
            today=day,
            rng=rng,
            accounts=accounts,
            transactions=build_transactions(
                rng,
                roles,
                count=transaction_count,
                history_days=history_days,
                today=day,
                long_text_length=long_text_length,
                unofficial_currency_every=unofficial_currency_every,
                solvent=solvent,
            ),
            liabilities=build_liabilities(rng, accounts, day),
            products=list(products),
            webhook=webhook,
            transactions_ready=transactions_ready,
            solvent=solvent,
        )
        with self.lock:
            self.items[item.access_token] = item
            self.public_tokens[item.public_token] = item.access_token
        return item

    def link_again(self, previous: FakeItem, **options: Any) -> FakeItem:
        """The same bank login linked a second time: a new Item (new ids and token) at the same
        institution, whose accounts have the same names, masks, types and subtypes."""
        options.setdefault("loans", "mortgage" in previous.accounts)
        item = self.create_item(institution_id=previous.institution_id, **options)
        with self.lock:
            for role, account in list(item.accounts.items()):
                if role not in previous.accounts:
                    del item.accounts[role]
                    continue
                for field_name in ("name", "official_name", "mask", "type", "subtype"):
                    account[field_name] = previous.accounts[role][field_name]
        return item

    def item(self, access_token: Any) -> FakeItem:
        """The live Item for a token, or the error Plaid answers (invalid token, removed Item)."""
        if not isinstance(access_token, str) or not access_token:
            raise FakeApiError("MISSING_FIELDS", "the following required fields are missing: access_token")
        with self.lock:
            item = self.items.get(access_token)
        if item is None:
            raise FakeApiError("INVALID_ACCESS_TOKEN")
        if item.removed:
            raise FakeApiError("ITEM_NOT_FOUND")
        return item

    def item_by_id(self, item_id: str) -> FakeItem | None:
        with self.lock:
            return next((item for item in self.items.values() if item.item_id == item_id), None)

    def exchange_public_token(self, public_token: Any) -> FakeItem:
        with self.lock:
            access_token = self.public_tokens.get(public_token) if isinstance(public_token, str) else None
            if not access_token:
                raise FakeApiError("INVALID_PUBLIC_TOKEN")
            self.public_tokens[public_token] = ""  # single use, like Plaid
            return self.items[access_token]

    def set_item_error(self, access_token: str, error_code: str | None) -> None:
        """Put the Item in an error state (``None`` repairs it); data calls then fail with it."""
        if error_code is not None:
            FakeApiError(error_code)  # validates the code
        with self.lock:
            item = self.items[access_token]
            item.error_code = error_code
            if error_code is None:
                item.last_successful_update = now_utc()

    def set_transactions_ready(self, access_token: str, ready: bool = True) -> None:
        with self.lock:
            self.items[access_token].transactions_ready = ready

    def remove_item(self, access_token: str) -> None:
        with self.lock:
            self.item(access_token).removed = True

    # --- transactions ---------------------------------------------------------------------

    def remove_transactions(self, access_token: str, transaction_ids: list[str]) -> list[str]:
        """Drop transactions (what a TRANSACTIONS_REMOVED webhook announces); returns the ids removed."""
        wanted = set(transaction_ids)
        with self.lock:
            item = self.items[access_token]
            gone = [t for t in item.transactions if t["transaction_id"] in wanted]
            item.transactions = [t for t in item.transactions if t["transaction_id"] not in wanted]
            item.changes.record(gone=gone)
            item.last_successful_update = now_utc()
        return [t["transaction_id"] for t in gone]

    def add_transactions(self, access_token: str, count: int) -> list[dict[str, Any]]:
        """``count`` new posted purchases dated today/yesterday (a DEFAULT_UPDATE's worth)."""
        with self.lock:
            item = self.items[access_token]
            new = fresh_transactions(item.rng, item.roles(), count=count, today=self.today, solvent=item.solvent)
            item.transactions = sorted(
                item.transactions + new, key=lambda t: (t["date"], t["transaction_id"]), reverse=True
            )
            item.changes.record(present=new)
            item.last_successful_update = now_utc()
        return copy.deepcopy(new)

    def modify_transactions(
        self, access_token: str, transaction_ids: list[str] | None = None, *, count: int = 1
    ) -> list[dict[str, Any]]:
        """Change transactions in place (a merchant's final amount, a corrected name): ``/transactions/sync``
        reports them as ``modified``. Without ids, the ``count`` newest; returns the changed rows."""
        with self.lock:
            item = self.items[access_token]
            wanted = set(transaction_ids) if transaction_ids is not None else None
            chosen = [t for t in item.transactions if wanted is None or t["transaction_id"] in wanted]
            chosen = chosen if wanted is not None else chosen[:count]
            for txn in chosen:
                txn["amount"] = round(txn["amount"] + 1.25, 2)
                txn["name"] = f"{txn.get('name') or 'Purchase'} (adjusted)"
            item.changes.record(present=chosen)
            item.last_successful_update = now_utc()
            return copy.deepcopy(chosen)

    def post_pending(self, access_token: str) -> tuple[list[str], list[dict[str, Any]]]:
        """Settle every pending transaction: the pending ids go away, posted copies link back to them."""
        with self.lock:
            item = self.items[access_token]
            pending = [t for t in item.transactions if t["pending"]]
            posted = [posted_copy(item.rng, t, self.today) for t in pending]
            gone = {t["transaction_id"] for t in pending}
            item.transactions = sorted(
                [t for t in item.transactions if t["transaction_id"] not in gone] + posted,
                key=lambda t: (t["date"], t["transaction_id"]),
                reverse=True,
            )
            item.changes.record(present=posted, gone=pending)
            item.last_successful_update = now_utc()
        return sorted(gone), copy.deepcopy(posted)

    # --- KYC ------------------------------------------------------------------------------------

    def create_identity_verification(
        self,
        client_user_id: str,
        *,
        status: str = "success",
        template_id: str = "idvtmp_local",
        watchlist_screening_id: str | None = None,
        shareable: bool = False,
    ) -> dict[str, Any]:
        rng = seeded()
        who = person(rng)
        created = now_utc()
        passed = status == "success"
        step = "success" if passed else {"failed": "failed", "pending_review": "pending_review"}.get(status, "active")
        idv_id = f"idv_{plaid_id(rng, 14)}"
        session: dict[str, Any] = {
            "id": idv_id,
            "client_user_id": client_user_id,
            "created_at": iso(created),
            "completed_at": iso(created + timedelta(minutes=4)) if status != "active" else None,
            "previous_attempt_id": None,
            "shareable_url": f"https://flow.plaid.com/verify/{idv_id}" if shareable else None,
            "template": {"id": template_id, "version": 2},
            "user": {
                "phone_number": who["phone_number"],
                "date_of_birth": who["date_of_birth"],
                "ip_address": "203.0.113.7",
                "email_address": who["email"],
                "name": {"given_name": who["given_name"], "family_name": who["family_name"]},
                "address": {
                    "street": who["street"],
                    "street2": None,
                    "city": who["city"],
                    "region": who["region"],
                    "postal_code": who["postal_code"],
                    "country": "US",
                },
                "id_number": {"value": f"{rng.randrange(10**8, 10**9)}", "type": "us_ssn"},
            },
            "status": status,
            "steps": {
                "accept_tos": "success",
                "verify_sms": "success",
                "kyc_check": step,
                "documentary_verification": "not_applicable",
                "selfie_check": "not_applicable",
                "watchlist_screening": "success" if passed else "waiting_for_prerequisite",
                "risk_check": "success" if passed else "waiting_for_prerequisite",
            },
            "documentary_verification": None,
            "selfie_check": None,
            "kyc_check": None,
            "risk_check": None,
            "verify_sms": None,
            "watchlist_screening_id": watchlist_screening_id,
            "beacon_user_id": None,
            "user_id": None,
            "redacted_at": None,
        }
        with self.lock:
            self.identity_verifications[session["id"]] = session
        return copy.deepcopy(session)

    def start_identity_verification(
        self, client_user_id: str, template_id: str, *, shareable: bool, idempotent: bool
    ) -> dict[str, Any]:
        """``/identity_verification/create``: a new ``active`` session; with ``idempotent``, the
        user's existing session of the same template instead (Plaid's ``is_idempotent``)."""
        if idempotent:
            with self.lock:
                for session in self.identity_verifications.values():
                    if session["client_user_id"] == client_user_id and session["template"]["id"] == template_id:
                        return copy.deepcopy(session)
        return self.create_identity_verification(
            client_user_id, status="active", template_id=template_id, shareable=shareable
        )

    def finish_identity_verification(self, idv_id: str, status: str = "success") -> dict[str, Any]:
        """The user finished the session: its status and steps become ``status``'s (the KYC webhook follows)."""
        with self.lock:
            session = self.identity_verifications[idv_id]
        finished = self.create_identity_verification(
            session["client_user_id"],
            status=status,
            template_id=session["template"]["id"],
            watchlist_screening_id=session["watchlist_screening_id"],
        )
        with self.lock:
            del self.identity_verifications[finished["id"]]
            session.update({k: v for k, v in finished.items() if k in ("status", "steps", "completed_at")})
            return copy.deepcopy(session)

    def create_screening(
        self, client_user_id: str, *, status: str = "cleared", legal_name: str | None = None
    ) -> dict[str, Any]:
        rng = seeded()
        who = person(rng)
        screening: dict[str, Any] = {
            "id": f"scr_{plaid_id(rng, 14)}",
            "search_terms": {
                "watchlist_program_id": "prg_local_sanctions",
                "legal_name": legal_name or f"{who['given_name']} {who['family_name']}",
                "date_of_birth": who["date_of_birth"],
                "document_number": None,
                "country": "US",
                "version": 1,
            },
            "assignee": None,
            "status": status,
            "client_user_id": client_user_id,
            "audit_trail": {"source": "link", "dashboard_user_id": None, "timestamp": iso(now_utc())},
        }
        with self.lock:
            self.screenings[screening["id"]] = screening
        return copy.deepcopy(screening)

    # --- Link and Layer ----------------------------------------------------------------------------

    def create_link_token(self, request: dict[str, Any]) -> dict[str, Any]:
        link_token = token("link")
        record = {"link_token": link_token, "expiration": iso(now_utc() + timedelta(hours=4)), "request": request}
        with self.lock:
            self.link_tokens[link_token] = record
        return record

    def create_layer_session(self, client_user_id: str, template_id: str, webhook: str | None) -> LayerSession:
        rng = seeded()
        session = LayerSession(
            link_token=token("link"),
            link_session_id=str(uuid.uuid4()),
            client_user_id=client_user_id,
            template_id=template_id,
            webhook=webhook,
            identity=person(rng),
        )
        with self.lock:
            self.layer_sessions[session.link_token] = session
        return session

    def complete_layer_session(self, link_token: str, *, items: int = 1, **item_options: Any) -> str:
        """The user finished Layer: create its Item(s) and return the public token Link would hand back."""
        with self.lock:
            session = self.layer_sessions[link_token]
        created = [self.create_item(webhook=session.webhook, **item_options) for _ in range(items)]
        public_token = token("public")
        with self.lock:
            session.access_tokens.extend(item.access_token for item in created)
            session.public_token = public_token
            self.layer_public_tokens[public_token] = link_token
        return public_token

    def layer_session_for(self, public_token: Any) -> LayerSession:
        with self.lock:
            link_token = self.layer_public_tokens.get(public_token) if isinstance(public_token, str) else None
            if link_token is None:
                raise FakeApiError("INVALID_PUBLIC_TOKEN")
            return self.layer_sessions[link_token]

    def create_processor_token(self, item: FakeItem, account_id: Any, processor: Any) -> str:
        if account_id not in item.account_ids:
            raise FakeApiError("INVALID_ACCOUNT_ID")
        if not isinstance(processor, str) or not processor:
            raise FakeApiError("INVALID_FIELD", "processor must be a non-empty string")
        processor_token = token("processor")
        with self.lock:
            self.processor_tokens[processor_token] = {
                "access_token": item.access_token,
                "account_id": account_id,
                "processor": processor,
            }
        return processor_token
