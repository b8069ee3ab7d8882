"""Balance updates: the message telling the insight service that a user's balances changed.

Three writers send one to ``<stage>-insight-balance-updates``, each after its rows are stored:

* the refiner, after it stores a page's ACCOUNT and BALANCE rows (every mine, whether or not
  the page brought new transactions: balances move without them);
* the balance refresh (``POST .../accounts/refresh``), after it stores live balances;
* item removal, once the item is REMOVED (its accounts stop counting as savings).

The message only names the user (the item and the source are for logs). The consumer
reads the stored rows when it runs, so a duplicate, a late or a reordered message can
never feed it old numbers: every delivery looks at the newest state.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from marshmallow import EXCLUDE, Schema, fields, validate
from marshmallow import ValidationError as SchemaError

from chalicelib.aws.messaging import send_message
from chalicelib.data.ttl import iso_timestamp, utcnow
from chalicelib.errors import ValidationError
from chalicelib.settings import get_settings

#: The shape of a user id the service stores (the API's pattern; also a valid lock-key segment).
USER_ID_PATTERN = r"^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$"


class BalanceUpdateSource(StrEnum):
    REFINER = "refiner"
    BALANCE_REFRESH = "balance_refresh"
    ITEM_REMOVED = "item_removed"


class _BalanceUpdateSchema(Schema):
    class Meta:
        unknown = EXCLUDE

    user_id = fields.String(required=True, validate=validate.Regexp(USER_ID_PATTERN))
    item_id = fields.String(load_default=None, allow_none=True, validate=validate.Length(min=1, max=128))
    source = fields.Enum(BalanceUpdateSource, by_value=True, required=True)
    sent_at = fields.String(required=True, validate=validate.Length(min=1, max=64))


@dataclass(frozen=True)
class BalanceUpdate:
    user_id: str
    source: BalanceUpdateSource
    sent_at: str
    item_id: str | None = None

    def to_json(self) -> str:
        body: dict[str, Any] = {"user_id": self.user_id, "source": self.source.value, "sent_at": self.sent_at}
        if self.item_id is not None:
            body["item_id"] = self.item_id
        return json.dumps(body, separators=(",", ":"))


def parse_balance_update(body: str) -> BalanceUpdate:
    """The message in ``body``; :class:`ValidationError` when it is not one (never retried)."""
    try:
        loaded = _BalanceUpdateSchema().load(json.loads(body))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValidationError("balance update is not JSON") from exc
    except SchemaError as exc:
        raise ValidationError("invalid balance update", {"errors": exc.messages}) from exc
    return BalanceUpdate(**loaded)


def announce(
    user_id: str, source: BalanceUpdateSource, *, item_id: str | None = None, now: datetime | None = None
) -> str:
    """Queue a balance update for ``user_id`` (call it after the rows are stored); returns the message id."""
    update = BalanceUpdate(user_id, source, iso_timestamp(now or utcnow()), item_id)
    return send_message(get_settings().balance_updates_queue, update.to_json())
