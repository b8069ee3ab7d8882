"""Pipeline tests share the suite-wide fixtures in ``tests/conftest.py``."""
