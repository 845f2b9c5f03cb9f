"""The one exception hierarchy: every exception of the packages in errors.py, under one root."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

from session_memory.core import errors
from session_memory.core.errors import SessionMemoryError

PACKAGES = ("session_memory", "deriver", "viewbuilder")


def exception_classes() -> list[type[BaseException]]:
    """Every exception class defined in a module of the packages."""
    found: dict[str, type[BaseException]] = {}
    for package in PACKAGES:
        root = importlib.import_module(package)
        names = [package] + [
            m.name for m in pkgutil.walk_packages(root.__path__, prefix=f"{package}.")
        ]
        for name in names:
            for _, obj in inspect.getmembers(importlib.import_module(name), inspect.isclass):
                if issubclass(obj, BaseException) and obj.__module__.startswith(PACKAGES):
                    found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return list(found.values())


class TestHierarchy:
    @pytest.mark.parametrize("cls", exception_classes(), ids=lambda c: c.__name__)
    def test_defined_in_errors_under_the_root(self, cls: type[BaseException]) -> None:
        """Each exception class lives in session_memory.core.errors and is a SessionMemoryError."""
        assert cls.__module__ == errors.__name__
        assert issubclass(cls, SessionMemoryError)

    @pytest.mark.parametrize("name", errors.__all__)
    def test_each_says_when_it_is_raised(self, name: str) -> None:
        """Each class of errors.py has a one-line "Raised when ..." docstring."""
        doc = getattr(errors, name).__doc__ or ""
        assert doc.startswith("Raised ") and "\n" not in doc.strip()

    def test_the_old_import_places_still_work(self) -> None:
        """StateError and TranscriptReplaced are still importable where they used to live."""
        from session_memory.apps.memory_dir.outputs import StateError
        from session_memory.apps.tail import TranscriptReplaced

        assert StateError is errors.StateError
        assert TranscriptReplaced is errors.TranscriptReplaced
