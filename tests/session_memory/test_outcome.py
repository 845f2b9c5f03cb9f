"""Tests for session_memory.core.outcome: how a native tool_lifecycle payload reports a finished
call.

Quoted strings marked "fixture" are copied from the real recordings in shared/fixtures.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from session_memory.core.outcome import ToolOutcome, is_failure_text, tool_outcome

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


def bash_envelope(status: str, stdout: str, exit_code: int, stderr: str = "") -> dict[str, Any]:
    """A MyCodeAgent Bash result envelope, shaped as its tool runtime writes it."""
    return {
        "status": status,
        "data": {
            "stdout": stdout,
            "stderr": stderr,
            "exit_code": exit_code,
            "signal": None,
            "truncated": False,
            "command": "python -m pytest -q",
            "directory": ".",
        },
        "text": f"Command {'succeeded' if exit_code == 0 else 'failed'}: python -m pytest -q\n"
        f"(Exit code {exit_code}. Took 235ms)",
        "stats": {"time_ms": 235, "stdout_bytes": len(stdout), "stderr_bytes": len(stderr)},
        "context": {"cwd": ".", "params_input": {"command": "python -m pytest -q"}},
    }


class TestMyCodeAgentEnvelope:
    def test_bash_output_and_exit_code_come_from_data(self) -> None:
        """A Bash envelope's output is data.stdout and its exit code data.exit_code."""
        result = bash_envelope("success", "...\n3 passed in 0.01s\n", 0)
        outcome = tool_outcome({"status": "completed", "result": result})
        assert outcome == ToolOutcome("completed", 0, "...\n3 passed in 0.01s\n", "")

    def test_partial_with_a_non_zero_exit_code_carries_it(self) -> None:
        """A completed call whose envelope is partial with exit 1 reports exit code 1."""
        result = bash_envelope("partial", "F\n1 failed, 2 passed in 0.03s\n", 1)
        outcome = tool_outcome({"status": "completed", "result": result})
        assert outcome is not None and outcome.exit_code == 1
        assert "1 failed, 2 passed" in outcome.output

    def test_stderr_follows_stdout(self) -> None:
        """stderr is part of the output, after stdout."""
        result = bash_envelope("partial", "", 2, stderr="No module named calc.report")
        outcome = tool_outcome({"status": "completed", "result": result})
        assert outcome is not None and outcome.output == "No module named calc.report"

    def test_output_is_text_when_data_has_no_streams(self) -> None:
        """A non-shell envelope's output is its text."""
        result = {
            "status": "success",
            "data": {"content": "   1 | x = 1\n", "truncated": False},
            "text": "Read 1 lines from 'calc/stats.py' (Lines 1-1).",
        }
        outcome = tool_outcome({"status": "completed", "result": result})
        assert outcome is not None and outcome.output.startswith("Read 1 lines")

    def test_error_envelope_message_is_the_error(self) -> None:
        """A failed call's error is the envelope's error.message."""
        message = "Edit at index 0: old_string not found; it must be unique."
        result = {
            "status": "error",
            "data": {"failed_index": 0},
            "text": message,
            "error": {"code": "INVALID_PARAM", "message": message},
        }
        outcome = tool_outcome({"status": "failed", "result": result})
        assert outcome is not None
        assert (outcome.status, outcome.error) == ("failed", message)

    def test_error_text_without_error_object(self) -> None:
        """An error envelope without an error object says why in its text."""
        result = {
            "status": "error",
            "data": {},
            "text": "File has been modified since you read it.",
        }
        outcome = tool_outcome({"status": "failed", "result": result})
        assert outcome is not None and outcome.error == "File has been modified since you read it."

    def test_permission_denial_is_rejected(self) -> None:
        """An envelope whose error code is a permission denial is a rejected call."""
        result = {
            "status": "error",
            "data": {},
            "text": "Tool 'Bash' denied by permission core.",
            "error": {
                "code": "PERMISSION_DENIED",
                "message": "Tool 'Bash' denied by permission core.",
                "details": {"permission": {"reason": "git checkout mutates working tree"}},
            },
        }
        outcome = tool_outcome({"status": "failed", "result": result})
        assert outcome is not None and outcome.status == "rejected"
        assert outcome.error == "Tool 'Bash' denied by permission core."

    def test_error_envelope_on_a_completed_call_is_errored(self) -> None:
        """A completed call whose envelope says error is an error report."""
        result = {"status": "error", "text": "x", "error": {"code": "IO", "message": "disk full"}}
        outcome = tool_outcome({"status": "completed", "result": result})
        assert outcome == ToolOutcome("errored", None, "disk full", "disk full")


class TestPlainResultObjects:
    def test_stdout_and_exit_code(self) -> None:
        """{stdout, stderr, exit_code} gives its output and exit code."""
        result = {"stdout": "21 passed in 2.9s", "stderr": "", "exit_code": 0}
        outcome = tool_outcome({"status": "completed", "result": result})
        assert outcome == ToolOutcome("completed", 0, "21 passed in 2.9s", "")

    def test_output_and_returncode(self) -> None:
        """{output, returncode} gives its output and exit code."""
        result = {"output": "error: could not compile", "returncode": 101}
        outcome = tool_outcome({"status": "completed", "result": result})
        assert outcome == ToolOutcome("completed", 101, "error: could not compile", "")

    def test_content_parts(self) -> None:
        """{content: [...]} gives its parts' text."""
        result = {"content": [{"type": "text", "text": "done"}]}
        outcome = tool_outcome({"status": "completed", "result": result})
        assert outcome is not None and outcome.output == "done"

    def test_unknown_shape_is_shown_as_json(self) -> None:
        """An object of an unknown shape is its compact JSON, never dropped."""
        outcome = tool_outcome({"status": "completed", "result": {"rows": 3, "ok": True}})
        assert outcome is not None and outcome.output == '{"rows":3,"ok":true}'

    def test_old_top_level_exit_code_still_read(self) -> None:
        """The old shape, a result string and a top-level exit_code, is still read."""
        payload = {"status": "completed", "result": "1 failed", "exit_code": 1}
        assert tool_outcome(payload) == ToolOutcome("completed", 1, "1 failed", "")

    @given(
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=20),
            lambda inner: (
                st.lists(inner, max_size=3)
                | st.dictionaries(
                    st.sampled_from(
                        [
                            "status",
                            "data",
                            "text",
                            "error",
                            "stdout",
                            "stderr",
                            "exit_code",
                            "output",
                            "returncode",
                            "content",
                            "code",
                            "message",
                        ]
                    ),
                    inner,
                    max_size=4,
                )
            ),
            max_leaves=12,
        )
    )
    def test_any_result_shape_is_total(self, result: object) -> None:
        """Any JSON value as a result gives an outcome, never an exception."""
        for status in ("completed", "failed"):
            outcome = tool_outcome({"status": status, "result": result})
            assert isinstance(outcome, ToolOutcome)
