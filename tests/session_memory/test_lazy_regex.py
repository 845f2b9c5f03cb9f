"""Patterns compiled on first use: the same matches as a compiled pattern, compiled once."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from session_memory.lazy_regex import LazyPattern

PATTERNS = [
    (r"(\d+)\s+([a-z]+)", re.IGNORECASE),
    (r"^Tests:[ \t]+([^\n]*?\d+ total)", re.MULTILINE),
    (r"[_./~+=-]++", 0),
    (r"(?i)(?<![A-Za-z0-9_])((?:human|assistant)[^\S\n]*+):", 0),
]
TEXTS = st.text(alphabet="0123456789 \t\nabcTESTS:total_./~+=-humanASSISTANT", max_size=60)


def spans(matches: object) -> list[tuple[int, int]]:
    return [m.span() for m in matches]  # type: ignore[attr-defined]


class TestLazyPattern:
    @given(st.sampled_from(PATTERNS), TEXTS, st.integers(0, 70), st.booleans())
    def test_matches_as_the_compiled_pattern(
        self, source: tuple[str, int], text: str, pos: int, used_before: bool
    ) -> None:
        """Every method gives what the compiled pattern gives, before and after compiling."""
        lazy, compiled = LazyPattern(*source), re.compile(*source)
        if used_before:
            lazy.search("")
        for name in ("search", "match", "fullmatch"):
            found, expected = getattr(lazy, name)(text, pos), getattr(compiled, name)(text, pos)
            assert (found and found.span()) == (expected and expected.span())
        assert spans(lazy.finditer(text, pos)) == spans(compiled.finditer(text, pos))
        assert lazy.findall(text) == compiled.findall(text)
        assert lazy.sub("<\\g<0>>", text) == compiled.sub("<\\g<0>>", text)
        assert lazy.sub(lambda m: m.group(0)[::-1], text, 1) == compiled.sub(
            lambda m: m.group(0)[::-1], text, 1
        )
        assert lazy.split(text) == compiled.split(text)

    def test_is_compiled_only_when_first_used(self) -> None:
        """Making one compiles nothing; its text and flags are there already."""
        lazy = LazyPattern("(unbalanced", re.MULTILINE)  # would not compile
        assert (lazy.pattern, lazy.flags) == ("(unbalanced", re.MULTILINE)

    def test_hands_out_the_compiled_methods_once_compiled(self) -> None:
        """After the first use, its methods are the compiled pattern's own."""
        lazy = LazyPattern(r"\d+")
        assert lazy.match("12") is not None
        assert lazy.search == lazy.compiled.search and lazy.sub == lazy.compiled.sub
        assert lazy.compiled is lazy.compiled
