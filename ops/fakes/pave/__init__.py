"""A local fake of Pave, the cash-flow insights API, as a real HTTP server (see ``docs/peers.md``).

Tests start it on an ephemeral port (``with FakePave() as pave:``) and aim the client at it with
:meth:`FakePave.env` or :meth:`FakePave.config`; the run command serves it on its default port
with ``python -m ops.fakes.pave``.
"""

from __future__ import annotations

from ops.fakes.pave.server import FakePave

__all__ = ["FakePave"]
