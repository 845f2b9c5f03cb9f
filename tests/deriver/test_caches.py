"""Every memo in the fold gives what its plainly named uncached twin gives."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from deriver import wording
from deriver.actions import actions_of, actions_of_uncached
from deriver.check_commands import (
    detect_check,
    detect_check_uncached,
    shown_command,
    shown_command_uncached,
)
from deriver.read_only import is_read_only_command, is_read_only_command_uncached
from deriver.tool_kinds import (
    _is_patch_name,
    _patch_tool,
    classify_tool,
    classify_tool_uncached,
)
from session_memory.core.redact import quote_untrusted

COMMANDS = st.sampled_from(
    ["pytest -q", "cd src && ls -la", "bash -lc 'npm test'", "cat a > b", "git status", "rg x"]
) | st.text(max_size=40)
NAMES = st.sampled_from(["Read", "apply_patch", "functions.shell", "mcp__a__b", "Bash"]) | st.text(
    max_size=20
)


class TestMemos:
    @given(NAMES)
    def test_tool_kinds(self, name: str) -> None:
        """classify_tool and the patch-tool test equal their uncached twins."""
        assert classify_tool(name) == classify_tool_uncached(name)
        assert _patch_tool(name) == _is_patch_name(name)

    @given(COMMANDS)
    def test_shell(self, command: str) -> None:
        """detect_check, is_read_only_command and shown_command equal their uncached twins."""
        assert detect_check(command) == detect_check_uncached(command)
        assert is_read_only_command(command) == is_read_only_command_uncached(command)
        assert shown_command(command) == shown_command_uncached(command)

    @given(NAMES, st.none() | COMMANDS, st.none() | st.sampled_from(["pytest", "ruff"]))
    def test_actions(self, tool: str, key: str | None, check: str | None) -> None:
        """actions_of equals its uncached twin."""
        assert actions_of(tool, key, check) == actions_of_uncached(tool, key, check)

    @given(st.text(max_size=200), st.integers(1, 300), st.none() | st.text(max_size=40))
    def test_wording(self, text: str, max_chars: int, key: str | None) -> None:
        """The contained code spans, lines, call names and quotes equal their uncached twins."""
        assert wording.code(text, max_chars) == wording.code_uncached(text, max_chars)
        assert wording.code(text) == wording.code_uncached(text)
        assert wording.line(text, max_chars) == wording.line_uncached(text, max_chars)
        assert wording.describe(text, key) == wording.describe_uncached(text, key)
        assert wording.quote(text, max_chars) == quote_untrusted(text, max_chars)

    @given(
        st.none() | st.text(max_size=80) | st.sampled_from(["/repo", "cd /repo && make"]),
        st.none() | st.sampled_from(["/", "/repo", "/repo/", "/re"]) | st.text(max_size=20),
    )
    def test_relative(self, text: str | None, cwd: str | None) -> None:
        """relative equals its uncached twin."""
        assert wording.relative(text, cwd) == wording.relative_uncached(text, cwd)
