"""Fixtures of the format adapter tests."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.formats.fixture_reads import FIXTURES, Read


@pytest.fixture(scope="session")
def read() -> Callable[[str], Read]:
    """Read a fixture by its path relative to tests/fixtures (cached per session)."""
    cache: dict[str, Read] = {}

    def _read(name: str) -> Read:
        if name not in cache:
            cache[name] = Read(FIXTURES / name)
        return cache[name]

    return _read
