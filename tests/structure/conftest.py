"""Fixtures for the Structure pages: the ledger's project writer and fresh count cache."""

from tests.ledger.conftest import remember  # noqa: F401
