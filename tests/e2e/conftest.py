"""End-to-end tests use the session's whole local stack (:mod:`tests.stack`)."""

from __future__ import annotations

from tests.stack import empty_pipeline_queues, link_item, new_runtime

__all__ = ["empty_pipeline_queues", "link_item", "new_runtime"]
