"""The capacity tests run the pipeline on the session's stack (:mod:`tests.stack`: fake Plaid, local AWS)."""
