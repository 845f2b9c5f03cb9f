"""The lazily exported packages: every name they export is there, and nothing else; the
NamedTuple a hook call's modules are written with, and its digests."""

from __future__ import annotations

import hashlib
import pickle
import types

import pytest

import session_memory
import session_memory.formats
from session_memory.core import startup
from session_memory.core.startup import NamedTuple


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


class Pair(NamedTuple):
    """Two things, the second optional."""

    first: str
    second: int = 2

    @property
    def both(self) -> str:
        return f"{self.first}{self.second}"

    @classmethod
    def one(cls) -> Pair:
        return cls("one")


class TestNamedTuple:
    """At run time, a class written with startup's NamedTuple is what typing's makes."""

    def test_it_is_a_namedtuple_with_its_fields_and_defaults(self) -> None:
        assert Pair._fields == ("first", "second") and Pair._field_defaults == {"second": 2}
        assert Pair("a") == ("a", 2) and Pair("a", 3)._replace(second=4) == Pair("a", 4)
        assert repr(Pair("a")) == "Pair(first='a', second=2)"
        assert pickle.loads(pickle.dumps(Pair("a"))) == Pair("a")

    def test_it_keeps_the_rest_of_its_body(self) -> None:
        assert Pair.one().both == "one2"
        assert Pair.__doc__ == "Two things, the second optional."
        assert Pair.__module__ == __name__ and Pair.__qualname__ == "Pair"


def test_the_digests_are_hashlibs() -> None:
    """startup's sha256 and blake2b give hashlib's digests (the state files and the hook's
    records keep them)."""
    data = "état\n".encode() * 1000
    assert startup.sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
    assert (
        startup.blake2b(data, digest_size=16).hexdigest()
        == hashlib.blake2b(data, digest_size=16).hexdigest()
    )
