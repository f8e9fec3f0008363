"""Fixtures for the Structure pages: the ledger's project writer and fresh count cache."""

from tests.ledger.conftest import fresh_process, remember  # noqa: F401
