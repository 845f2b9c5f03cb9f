"""The lazily exported packages: every name they export is there, and nothing else."""

from __future__ import annotations

import types

import pytest

import session_memory
import session_memory.formats


@pytest.mark.parametrize("package", [session_memory, session_memory.formats])
class TestLazyNames:
    def test_every_exported_name_is_its_modules_object(self, package: types.ModuleType) -> None:
        """Each name of ``__all__`` resolves, to the object its own module defines."""
        for name in package.__all__:
            value = getattr(package, name)
            home = getattr(value, "__module__", None)
            if home is not None and home.startswith("session_memory."):
                assert getattr(__import__(home, fromlist=[name]), name) is value

    def test_dir_lists_the_exported_names(self, package: types.ModuleType) -> None:
        """``dir`` shows the exported names before they are first asked for."""
        assert set(package.__all__) <= set(dir(package))

    def test_any_other_name_is_an_attribute_error(self, package: types.ModuleType) -> None:
        """A name the package does not export is an AttributeError, as for any module."""
        with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
            _ = package.nothing_here
