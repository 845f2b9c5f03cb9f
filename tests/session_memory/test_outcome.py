"""Tests for session_memory.outcome: how a native tool_lifecycle payload reports a finished call.

Quoted strings marked "fixture" are copied from the real recordings in shared/fixtures.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from session_memory.outcome import ToolOutcome, is_failure_text, tool_outcome

FIVE_MB = 5 * 1024 * 1024
# fixture: codex-0.125.0-cli_update-plan_apply-patch, the apply_patch output
CODEX_PATCH_OUTPUT = (
    '{"output":"Success. Updated the following files:\\n'
    'M src/agents/plugins/__tests__/codemie-code-reasoning.test.ts\\n",'
    '"metadata":{"exit_code":0,"duration_seconds":2.2}}'
)
# fixture: cc-2.1.38_rejected-tools_interrupt_short, a rejected Bash call
REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). STOP what you are doing and "
    "wait for the user to tell you how to proceed."
)


def timed(function: Any) -> float:
    import time

    start = time.perf_counter()
    function()
    return time.perf_counter() - start


class TestIsFailureText:
    @pytest.mark.parametrize(
        "text",
        [
            "<tool_use_error>File does not exist.</tool_use_error>",
            "<tool_use_error>Sibling tool call errored</tool_use_error>",
            "Error: File has not been read yet. Read it first before writing to it.",
            "Error: File content (85812 tokens) exceeds maximum allowed tokens",
            "User rejected tool use",
            REJECTED,
            'InputValidationError: [\n  {\n    "code": "invalid_type"',
            "write_stdin failed: no such session",
            "aborted",
        ],
    )
    def test_errors_reported_as_text(self, text: str) -> None:
        """The markers agents use for failed calls are recognised (fixtures)."""
        assert is_failure_text(text)

    @pytest.mark.parametrize(
        "text",
        [
            "",
            "Todos have been modified successfully.",
            "Plan updated",
            CODEX_PATCH_OUTPUT,
            "     1\tError: this line of a file mentions an error",
            "no Error: at the start",
            "error: lower-case compiler output",
            "The operation was aborted by the remote side",
        ],
    )
    def test_ordinary_results(self, text: str) -> None:
        """Ordinary results, including ones that mention errors, are not failures."""
        assert not is_failure_text(text)

    @given(st.text())
    def test_total_and_deterministic(self, text: str) -> None:
        """Any text gives a bool, the same each time."""
        result = is_failure_text(text)
        assert isinstance(result, bool)
        assert is_failure_text(text) is result

    def test_huge_text_is_fast(self) -> None:
        """Only the start of a 5 MB result is looked at."""
        text = " " * FIVE_MB + "Error: late"
        assert timed(lambda: is_failure_text(text)) < 1.0
        assert not is_failure_text(text)


class TestToolOutcome:
    def test_requested_and_started_have_no_outcome(self) -> None:
        """Only a finished call has an outcome."""
        assert tool_outcome({"status": "requested"}) is None
        assert tool_outcome({"status": "started"}) is None

    def test_completed(self) -> None:
        """A completed call carries its result as output and an integer exit code."""
        assert tool_outcome({"status": "completed", "result": "ok", "exit_code": 0}) == (
            ToolOutcome("completed", 0, "ok", "")
        )

    def test_failed_error_falls_back_to_result_then_to_failed(self) -> None:
        """A failed call's error is its error text, else its result, else "failed"."""
        assert tool_outcome({"status": "failed", "error": "boom"}) == ToolOutcome(
            "failed", None, "", "boom"
        )
        assert tool_outcome({"status": "failed", "result": "bad"}) == ToolOutcome(
            "failed", None, "bad", "bad"
        )
        assert tool_outcome({"status": "failed"}) == ToolOutcome("failed", None, "", "failed")

    def test_exit_code_only_when_an_integer(self) -> None:
        """A boolean or text exit code is not an exit code."""
        for code in (True, "1", 1.0, None):
            outcome = tool_outcome({"status": "completed", "exit_code": code})
            assert outcome is not None and outcome.exit_code is None

    @pytest.mark.parametrize(
        ("result", "status"),
        [
            ("<tool_use_error>File does not exist.</tool_use_error>", "errored"),
            ("Error: File has not been read yet.", "errored"),
            ("User rejected tool use", "rejected"),
            (REJECTED, "rejected"),
            ("aborted", "interrupted"),
        ],
    )
    def test_error_reported_as_a_result(self, result: str, status: str) -> None:
        """A completed result that reports an error says how the call really ended."""
        outcome = tool_outcome({"status": "completed", "result": result})
        assert outcome is not None and outcome.status == status

    @given(
        st.dictionaries(
            st.sampled_from(["status", "result", "error", "exit_code"]),
            st.none()
            | st.booleans()
            | st.integers()
            | st.text()
            | st.sampled_from(["completed", "failed"]),
        )
    )
    def test_total(self, payload: dict[str, Any]) -> None:
        """Any payload gives an outcome or None, never an exception."""
        outcome = tool_outcome(payload)
        assert outcome is None or isinstance(outcome, ToolOutcome)
