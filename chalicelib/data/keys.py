"""Every DynamoDB key the service builds, in one place (``docs/access-patterns.md#data-model``).

Segments are joined with ``#``. No other module formats a key: it asks here, so a key
shape changes in one line and the access patterns in ``docs/access-patterns.md`` stay true.
"""

from __future__ import annotations

from chalicelib.errors import ValidationError

SEP = "#"
#: Prefix put on every GSI sort key of a soft-deleted transaction.
REMOVED_PREFIX = "REMOVED" + SEP


class InvalidKeyError(ValidationError):
    """An identifier that cannot be part of a key (empty, or containing ``#``)."""


def join(*segments: str) -> str:
    """Join key segments; a segment may not itself contain the separator or be empty.

    Plaid and Auth0 identifiers, dates and timestamps never contain ``#``; refusing one
    that does keeps a crafted id from reading another user's key range.
    """
    for segment in segments:
        if not segment or SEP in segment:
            raise InvalidKeyError(f"invalid key segment {segment!r}")
    return SEP.join(segments)


def key_part(key: object, label: str) -> str | None:
    """The segment after ``label`` in a key (``key_part("ITEM#i#ACCOUNT#a", "ACCOUNT") == "a"``).

    Readers use it to recover identifiers from the keys of rows that do not repeat them as
    attributes (rows written by the system this service took over); None when absent.
    """
    if not isinstance(key, str):
        return None
    parts = key.split(SEP)
    for index, part in enumerate(parts[:-1]):
        if part == label and parts[index + 1]:
            return parts[index + 1]
    return None


def last_part(key: object) -> str | None:
    """The last segment of a key (a balance row's day, a transaction's id)."""
    return (key.rsplit(SEP, 1)[-1] or None) if isinstance(key, str) else None


# --- <stage>-txn-transactions ---------------------------------------------------------

# Entity names stored in the ``type`` attribute of every row.
TRANSACTION = "TRANSACTION"
ACCOUNT = "ACCOUNT"
BALANCE = "BALANCE"
WEBHOOK_INFO = "WEBHOOK_INFO"
REMOVE = "REMOVE"
CATEGORY = "CATEGORY"
SUMMARY = "SUMMARY"
LAYER = "LAYER"
ITEM = "ITEM"
LIABILITY = "LIABILITY"
IDENTITY_VERIFICATION = "IDENTITY_VERIFICATION"
SYNC = "SYNC"


def transaction_key(txn_id: str) -> dict[str, str]:
    k = join("TXN", txn_id)
    return {"PK": k, "SK": k}


def user_transactions_pk(user_id: str) -> str:
    """GSI1: every transaction of a user."""
    return join("ACCOUNTS", user_id)


def user_category_transactions_pk(user_id: str, category_id: str) -> str:
    """GSI2: a user's transactions in one category."""
    return join("ACCOUNTS", user_id, "CATEGORY", category_id)


def account_transactions_pk(user_id: str, acct_id: str) -> str:
    """GSI3: a user's transactions on one account."""
    return join("ACCOUNTS", user_id, "ACCOUNT", acct_id)


def account_category_transactions_pk(user_id: str, acct_id: str, category_id: str) -> str:
    """GSI4: a user's transactions on one account in one category."""
    return join("ACCOUNTS", user_id, "ACCOUNT", acct_id, "CATEGORY", category_id)


def transaction_date_sk(txn_date: str, txn_id: str) -> str:
    """The sort key every transaction GSI shares: listing by date, newest last."""
    return join("DATE", txn_date, "TXN", txn_id)


DATE_PREFIX = "DATE" + SEP


def transaction_gsi_keys(user_id: str, acct_id: str, category_id: str, txn_date: str, txn_id: str) -> dict[str, str]:
    """All four GSI key pairs of a live transaction."""
    sk = transaction_date_sk(txn_date, txn_id)
    return {
        "GSI1PK": user_transactions_pk(user_id),
        "GSI1SK": sk,
        "GSI2PK": user_category_transactions_pk(user_id, category_id),
        "GSI2SK": sk,
        "GSI3PK": account_transactions_pk(user_id, acct_id),
        "GSI3SK": sk,
        "GSI4PK": account_category_transactions_pk(user_id, acct_id, category_id),
        "GSI4SK": sk,
    }


def removed(sort_key: str) -> str:
    """A GSI sort key hidden from ``begins_with DATE#`` listings (idempotent)."""
    return sort_key if sort_key.startswith(REMOVED_PREFIX) else REMOVED_PREFIX + sort_key


def account_key(user_id: str, acct_id: str) -> dict[str, str]:
    return {"PK": accounts_pk(user_id), "SK": join("ACCOUNT", acct_id)}


def accounts_pk(user_id: str) -> str:
    return join("ACCOUNTS", user_id)


ACCOUNT_SK_PREFIX = "ACCOUNT" + SEP


def balance_key(user_id: str, acct_id: str, day: str) -> dict[str, str]:
    return {"PK": balances_pk(user_id), "SK": join("ACCOUNT", acct_id, day)}


def balances_pk(user_id: str) -> str:
    return join("BALANCE", user_id)


def balance_account_prefix(acct_id: str) -> str:
    return join("ACCOUNT", acct_id) + SEP


def webhook_info_keys(user_id: str, item_id: str, ts: str, webhook_type: str, code: str, source: str) -> dict[str, str]:
    """Primary key and the four GSIs of a WEBHOOK_INFO row."""
    type_code = ("TYPE", webhook_type, "CODE", code)
    return {
        "PK": webhook_item_pk(item_id),
        "SK": join("DATETIME", ts, *type_code),
        "GSI1PK": webhook_user_pk(user_id),
        "GSI1SK": join("DATETIME", ts, "ITEM", item_id),
        "GSI2PK": webhook_item_pk(item_id),
        "GSI2SK": join(*type_code, "DATETIME", ts),
        "GSI3PK": webhook_user_pk(user_id),
        "GSI3SK": join(*type_code, "DATETIME", ts, "ITEM", item_id),
        "GSI4PK": webhook_item_pk(item_id),
        "GSI4SK": join("SOURCE", source, *type_code, "DATETIME", ts),
    }


def webhook_item_pk(item_id: str) -> str:
    return join("WEBHOOK_ITEM", item_id)


def webhook_user_pk(user_id: str) -> str:
    return join("WEBHOOK_USER", user_id)


def webhook_type_prefix(webhook_type: str, code: str | None = None) -> str:
    """GSI2 sort-key prefix: every webhook of a type, or of a type and code."""
    if code is None:
        return join("TYPE", webhook_type, "CODE") + SEP
    return join("TYPE", webhook_type, "CODE", code, "DATETIME") + SEP


def remove_key(txn_id: str) -> dict[str, str]:
    k = join("REMOVE", txn_id)
    return {"PK": k, "SK": k}


def remove_gsi_keys(ts: str) -> dict[str, str]:
    return {"GSI1PK": "REMOVE", "GSI1SK": join("REMOVEDATE", ts)}


CATEGORIES_PK = "CATEGORIES"


def category_key(hierarchy: list[str]) -> dict[str, str]:
    return {"PK": CATEGORIES_PK, "SK": join("HIERARCHY", *hierarchy)}


def category_gsi_keys(category_id: str) -> dict[str, str]:
    k = join("CATEGORY", category_id)
    return {"GSI1PK": k, "GSI1SK": k}


def summary_pk(user_id: str) -> str:
    return join("SUMMARY", user_id)


def summary_sk(month: str, acct_id: str | None = None, category_id: str | None = None) -> str:
    """``DATE#<YYYY-MM>`` optionally followed by ``#ACCOUNT#<id>`` and/or ``#CATEGORY#<id>``."""
    segments = ["DATE", month]
    if acct_id is not None:
        segments += ["ACCOUNT", acct_id]
    if category_id is not None:
        segments += ["CATEGORY", category_id]
    return join(*segments)


def layer_key(public_token: str) -> dict[str, str]:
    return {"PK": join("LAYER", public_token), "SK": "TOKEN"}


# --- <stage>-txn-plaid ----------------------------------------------------------------


def item_key(user_id: str, item_id: str) -> dict[str, str]:
    return {"PK": users_pk(user_id), "SK": join("ITEMS", item_id)}


def users_pk(user_id: str) -> str:
    return join("USERS", user_id)


ITEMS_SK_PREFIX = "ITEMS" + SEP
#: Entity of a per-user allowance counter (one row per user, limited call and window).
RATE_LIMIT = "RATE_LIMIT"


def rate_limit_key(user_id: str, call: str, window_start: int) -> dict[str, str]:
    """The counter of ``user_id``'s ``call``s in the window starting at ``window_start`` (epoch seconds)."""
    return {"PK": users_pk(user_id), "SK": join("RATE_LIMIT", call, str(window_start))}


def item_gsi_keys(user_id: str, item_id: str) -> dict[str, str]:
    return {"GSI1PK": item_gsi_pk(item_id), "GSI1SK": users_pk(user_id)}


def item_gsi_pk(item_id: str) -> str:
    return join("ITEMS", item_id)


def sync_state_key(user_id: str, item_id: str) -> dict[str, str]:
    """An item's ``/transactions/sync`` cursors and running loop (no GSI keys: read only by key)."""
    return {"PK": users_pk(user_id), "SK": join("SYNC", item_id)}


def liability_key(user_id: str, item_id: str, acct_id: str) -> dict[str, str]:
    return {"PK": join("LIABILITIES", user_id), "SK": join("ITEM", item_id, "ACCOUNT", acct_id)}


def liabilities_pk(user_id: str) -> str:
    return join("LIABILITIES", user_id)


def liability_gsi_keys(user_id: str, acct_id: str) -> dict[str, str]:
    return {"GSI1PK": join("LIABILITIES", acct_id), "GSI1SK": users_pk(user_id)}


def liability_history_key(user_id: str, item_id: str, acct_id: str, ts: str) -> dict[str, str]:
    return {
        "PK": liability_history_pk(user_id),
        "SK": join("ITEM", item_id, "ACCOUNT", acct_id, "TIMESTAMP", ts),
    }


def liability_history_pk(user_id: str) -> str:
    return join("LIABILITY_HISTORY", user_id)


def liability_history_gsi_keys(user_id: str, acct_id: str, ts: str) -> dict[str, str]:
    stamp = join("TIMESTAMP", ts)
    return {
        "GSI1PK": join("LIABILITY_HISTORY", acct_id),
        "GSI1SK": stamp,
        "GSI2PK": liability_history_pk(user_id),
        "GSI2SK": stamp,
    }


def identity_verification_key(user_id: str, idv_id: str) -> dict[str, str]:
    return {"PK": users_pk(user_id), "SK": join("IDENTITY_VERIFICATION", idv_id)}


IDENTITY_VERIFICATION_PREFIX = "IDENTITY_VERIFICATION" + SEP


def identity_verification_gsi_keys(
    user_id: str, idv_id: str, created_at: str, watchlist_id: str | None
) -> dict[str, str]:
    keys = {
        "GSI1PK": users_pk(user_id),
        "GSI1SK": join("IDENTITY_VERIFICATION", created_at, idv_id),
    }
    if watchlist_id:
        keys["GSI2PK"] = users_pk(user_id)
        keys["GSI2SK"] = join("IDENTITY_VERIFICATION", watchlist_id)
    return keys


# --- builders for the webhook-info, category, summary, layer, item, liability, identity
# --- verification, institution and account-change modules ------------------------------

INSTITUTION = "INSTITUTION"
ACCOUNT_CHANGE = "ACCOUNT_CHANGE"
#: Sorts after every character a key segment holds: the top of a ``BETWEEN`` range.
HIGH = "~"


def webhook_source_prefix(source: str, webhook_type: str | None = None, code: str | None = None) -> str:
    """GSI4 sort-key prefix: every webhook of a source, of a source and type, or also of a code."""
    if webhook_type is None:
        return join("SOURCE", source, "TYPE") + SEP
    return join("SOURCE", source) + SEP + webhook_type_prefix(webhook_type, code)


def summary_month_range(start_month: str, end_month: str) -> tuple[str, str]:
    """``BETWEEN`` bounds covering every granularity of the months ``start..end`` (inclusive)."""
    return join("DATE", start_month), join("DATE", end_month) + HIGH


def liability_account_pk(acct_id: str) -> str:
    """GSI1 partition of an account's current liability row."""
    return join("LIABILITIES", acct_id)


def liability_history_account_pk(acct_id: str) -> str:
    """GSI1 partition of an account's liability history."""
    return join("LIABILITY_HISTORY", acct_id)


def liability_history_prefix(item_id: str, acct_id: str) -> str:
    """Base-table sort-key prefix of one account's history rows (strongly consistent reads)."""
    return join("ITEM", item_id, "ACCOUNT", acct_id, "TIMESTAMP") + SEP


TIMESTAMP_PREFIX = "TIMESTAMP" + SEP


def identity_verification_watchlist_sk(watchlist_id: str) -> str:
    """GSI2 sort key: the session a watchlist screening belongs to."""
    return join("IDENTITY_VERIFICATION", watchlist_id)


def institution_key(institution_id: str) -> dict[str, str]:
    if not institution_id:
        raise InvalidKeyError("empty institution id")
    return {"institution_id": institution_id}


def account_change_key(user_id: str, change_date: str) -> dict[str, str]:
    if not user_id or not change_date:
        raise InvalidKeyError("account change keys need a user id and a change date")
    return {"user_id": user_id, "change_date": change_date}
