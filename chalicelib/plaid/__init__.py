"""Plaid: the client layer (:mod:`.client`), its typed errors (:mod:`.errors`), the raw-page
schemas (:mod:`.schemas`) and webhook verification (:mod:`.webhook_verification`).

Importing this package imports nothing else, so reading :mod:`.errors` (the webhook intake,
the HTTP error mapping) does not load the client, marshmallow or the ``plaid`` SDK.
"""
