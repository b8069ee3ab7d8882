"""The capacity tests run the pipeline on the end-to-end suite's stack (fake Plaid, local AWS)."""

from tests.e2e.conftest import stack_env

__all__ = ["stack_env"]
