"""Tests for deriver.user_text: acknowledgements and first lines.

Quoted strings marked "fixture" are copied from the real recordings in tests/fixtures.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from deriver.user_text import first_line, is_acknowledgement
from tests.deriver.tool_samples import FIVE_MB, timed


class TestIsAcknowledgement:
    @pytest.mark.parametrize(
        "text",
        [
            "continue",
            "go on",
            "go ahead",
            "yes",
            "y",
            "ok",
            "okay",
            "proceed",
            "lgtm",
            "sounds good",
            "do it",
            "keep going",
            "next",
            "sure",
            "yep",
            "please continue",
            "继续",
            "好的",
            "好",
            "是",
            "可以",
            "ok thanks",
            "Yes!",
            "continue.",
            "ok, go ahead",
            "  OK  ",
            "Continue 🙏",
            "好的\uff0c继续",
            "Let's go!",
            "\U0001f44d",
        ],
    )
    def test_acknowledgements(self, text: str) -> None:
        """Short replies that only say "carry on" are acknowledgements."""
        assert is_acknowledgement(text)

    @pytest.mark.parametrize(
        "text",
        [
            "",
            "   ",
            "yes, but use postgres instead",
            "continue with the migration",
            "no",
            "stop",
            "Refactor the auth module",
            "mix phx.server doesnt seem to start",
            "ok ok ok ok ok ok ok",
            "1",
            "继续\uff0c但是用 postgres",
            "yes go ahead and then deploy it",
        ],
    )
    def test_not_acknowledgements(self, text: str) -> None:
        """Real requests, refusals, long replies and conditional yeses are not."""
        assert not is_acknowledgement(text)

    def test_huge_text_is_not_an_acknowledgement(self) -> None:
        """A 5 MB reply is rejected at once."""
        text = "ok " + " " * FIVE_MB
        assert timed(lambda: is_acknowledgement(text)) < 1.0
        assert not is_acknowledgement(text)

    @given(st.text())
    def test_total_and_deterministic(self, text: str) -> None:
        """Any text gives a bool, the same each time."""
        result = is_acknowledgement(text)
        assert isinstance(result, bool)
        assert is_acknowledgement(text) is result

    @given(st.text(min_size=1))
    def test_anything_with_a_long_tail_is_not(self, text: str) -> None:
        """Appending seven words to anything makes it not an acknowledgement."""
        assert not is_acknowledgement(text + " and also please fix the build")


def _reference_first_line(text: str, max_chars: int) -> str:
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return line if len(line) <= max_chars else line[: max_chars - 1].rstrip() + "\u2026"


class TestFirstLine:
    def test_first_non_blank_line(self) -> None:
        """Leading blank lines are skipped and the line is stripped."""
        assert first_line("\n\n   hello world  \nsecond") == "hello world"

    def test_capped_with_ellipsis(self) -> None:
        """A long line is cut to max_chars, the last of them an ellipsis."""
        assert first_line("abcdefghij", 5) == "abcd\u2026"
        assert first_line("abcde", 5) == "abcde"

    def test_blank(self) -> None:
        """Blank text gives an empty string."""
        assert first_line("") == ""
        assert first_line(" \n\t\r\n ") == ""

    def test_error_text_fixture(self) -> None:
        """The first line of a multi-line error is its headline (fixture)."""
        text = "Error: lsd: 3: No such file or directory (os error 2).\n\n\nDemo\n├── CLAUDE.md"
        assert first_line(text) == "Error: lsd: 3: No such file or directory (os error 2)."

    def test_huge_line_is_fast(self) -> None:
        """A 5 MB single line is cut without being copied whole."""
        text = "x" * FIVE_MB
        assert timed(lambda: first_line(text)) < 1.0
        assert first_line(text) == "x" * 199 + "\u2026"

    def test_line_padded_past_the_window(self) -> None:
        """Trailing blanks longer than the look-ahead do not make a short line look long."""
        assert first_line("abc" + " " * 500 + "\nnext", 10) == "abc"
        assert first_line("abc" + " " * 500 + "d", 10) == "abc\u2026"

    @given(st.text(), st.integers(min_value=1, max_value=300))
    def test_matches_reference(self, text: str, max_chars: int) -> None:
        """The result equals the obvious splitlines-based definition."""
        assert first_line(text, max_chars) == _reference_first_line(text, max_chars)

    @given(st.text(), st.integers(min_value=-5, max_value=300))
    def test_total_and_bounded(self, text: str, max_chars: int) -> None:
        """Any text gives one line of at most max_chars characters."""
        result = first_line(text, max_chars)
        assert len(result) <= max(max_chars, 0)
        assert result == result.strip()
        assert len(result.splitlines()) <= 1
