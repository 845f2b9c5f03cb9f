"""deriver.token_budget: the token arithmetic of the budget, and the encodings it accepts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deriver.token_budget import TokenArithmetic, _pieces
from session_memory.core.errors import ConfigError
from session_memory.core.layout import body, item_prefix, marker_line
from session_memory.core.tokens import counter

_CHARACTERS = "ab Z9,.`'\"s\t\n\u00a0\u00e9\u4e2d\u2026-/()[]:;!?#*<>|\\"


class ByteQuarters:
    """A token counter that estimates: a quarter of the UTF-8 bytes, rounded up."""

    encoding = "byte-quarters"

    def count(self, text: str) -> int:
        return -(-len(text.encode("utf-8")) // 4)


class TestTokenArithmetic:
    def test_cl100k_is_accepted(self) -> None:
        """The default encoding counts the memory's parts additively."""
        assert TokenArithmetic(counter()).encoding == "cl100k_base"

    def test_an_encoding_without_the_seams_is_a_config_error(self) -> None:
        """An encoding whose counts do not add up at the seams is refused at construction."""
        with pytest.raises(ConfigError, match="byte-quarters"):
            TokenArithmetic(ByteQuarters())

    def test_parts_are_exact(self) -> None:
        """An item line counts as its prefix plus its body; markers count per digit length."""
        arithmetic, count = TokenArithmetic(counter()), counter().count
        text = "changed `src/app.py`"
        assert arithmetic.prefix("failed", 2, None) + arithmetic.body(text) == count(
            item_prefix("failed", 2) + body(text)
        )
        for omitted in (1, 9, 10, 99, 100, 999, 1000, 123456):
            assert arithmetic.marker("todo_items", omitted) == count(
                marker_line("todo_items", omitted)
            )

    def test_a_long_body_counts_as_its_words(self) -> None:
        """A long body (the files changed, a last message) is counted word by word, exactly."""
        arithmetic, count = TokenArithmetic(counter()), counter().count
        files = ", ".join(f"`/home/dev/project/src/module_{i}/file-{i}.py`" for i in range(12))
        for text in (f"files changed and not committed: {files} (+4 more)", "a " * 150):
            assert arithmetic.body(text) == count(body(text))

    @settings(max_examples=300, deadline=None)
    @given(st.text(st.sampled_from(list(_CHARACTERS)), max_size=60) | st.text(max_size=60))
    def test_the_words_of_any_line_add_up(self, text: str) -> None:
        """The words a body line is cut into count as much as the line, for any text."""
        count = counter().count
        line = body(text)
        assert sum(count(piece) for piece in _pieces(line)) == count(line)
        assert "".join(_pieces(line)) == line

    def test_deriver_rejects_such_an_encoding(self) -> None:
        """The deriver is built on the arithmetic, so it refuses what the arithmetic refuses."""
        from deriver.store import MemoryStore

        with pytest.raises(ConfigError):
            MemoryStore(TokenArithmetic(ByteQuarters()), 1200, 300)


class Counting:
    """The default encoding's counter, remembering how many texts it counted."""

    encoding = "cl100k_base"

    def __init__(self) -> None:
        self.counted = 0

    def count(self, text: str) -> int:
        self.counted += 1
        return counter().count(text)


class TestSharedCounts:
    def test_a_second_arithmetic_counts_nothing_to_start(self) -> None:
        """The header, headings and largest markers are counted once per counter."""
        counting = Counting()
        first = TokenArithmetic(counting)
        counted = counting.counted
        second = TokenArithmetic(counting)
        assert counting.counted == counted
        assert (second.header, second.section_headers) == (first.header, first.section_headers)

    def test_parts_counted_by_one_arithmetic_serve_the_next(self) -> None:
        """A body, prefix or marker counted once is not counted again, and the shared count
        is the counter's own."""
        counting = Counting()
        first, second = TokenArithmetic(counting), TokenArithmetic(counting)
        text = "changed `src/app.py`"
        counts = (
            first.body(text),
            first.prefix("failed", 2, None),
            first.marker("todo_items", 7),
        )
        counted = counting.counted
        again = (
            second.body(text),
            second.prefix("failed", 2, None),
            second.marker("todo_items", 3),
        )
        assert counting.counted == counted
        count = counter().count
        expected = (
            count(body(text)),
            count(item_prefix("failed", 2)),
            count(marker_line("todo_items", 3)),
        )
        assert again == counts == expected
