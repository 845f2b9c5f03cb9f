"""Tests for session_memory.core.outcome: how a native tool_lifecycle payload reports a finished
call."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from session_memory.core.outcome import (
    ToolOutcome,
    outcome_payload,
    reports_error,
    tool_outcome,
)

FIVE_MB = 5 * 1024 * 1024


def timed(function: Any) -> float:
    import time

    start = time.perf_counter()
    function()
    return time.perf_counter() - start


class TestReportsError:
    @pytest.mark.parametrize("text", ["Error: no such file", "  ERROR: build failed"])
    def test_a_leading_error_is_an_error_report(self, text: str) -> None:
        """A text that opens with "Error:" or "ERROR:" reports an error."""
        assert reports_error(text)

    @pytest.mark.parametrize(
        "text",
        [
            "",
            "Plan updated",
            "     1\tError: this line of a file mentions an error",
            "no Error: at the start",
            "error: lower-case compiler output",
        ],
    )
    def test_ordinary_results(self, text: str) -> None:
        """Ordinary results, including ones that mention errors, are not error reports."""
        assert not reports_error(text)

    def test_huge_text_is_fast(self) -> None:
        """Only the start of a 5 MB result is looked at."""
        text = " " * FIVE_MB + "Error: late"
        assert timed(lambda: reports_error(text)) < 1.0
        assert not reports_error(text)


class TestStatedOutcome:
    def test_the_outcome_field_is_the_outcome(self) -> None:
        """An ``outcome`` object is read as it states the call ended."""
        stated = ToolOutcome("rejected", None, "no", "")
        payload = {"status": "completed", "result": "ok", "outcome": outcome_payload(stated)}
        assert tool_outcome(payload) == stated

    @pytest.mark.parametrize(
        "outcome",
        [
            ToolOutcome("completed", 0, "3 passed", ""),
            ToolOutcome("failed", 2, "", "make: *** [test] Error 1"),
            ToolOutcome("interrupted", None, "aborted", ""),
            ToolOutcome("errored", None, "x", ""),
        ],
    )
    def test_round_trip(self, outcome: ToolOutcome) -> None:
        """What :func:`outcome_payload` writes, :func:`tool_outcome` reads back."""
        status = "failed" if outcome.status == "failed" else "completed"
        assert tool_outcome({"status": status, "outcome": outcome_payload(outcome)}) == outcome

    def test_wrong_field_types_are_defaults(self) -> None:
        """A stated outcome's fields of the wrong type read as unknown or empty."""
        payload = {
            "status": "completed",
            "outcome": {"status": "completed", "exit_code": True, "output": 3, "error": None},
        }
        assert tool_outcome(payload) == ToolOutcome("completed", None, "", "")

    @pytest.mark.parametrize("outcome", [None, "failed", [], {"status": "done"}, {}])
    def test_without_a_known_status_the_result_is_read(self, outcome: object) -> None:
        """An ``outcome`` that is not an object with a known status is not read."""
        payload = {"status": "completed", "result": "ok", "outcome": outcome}
        assert tool_outcome(payload) == ToolOutcome("completed", None, "ok", "")

    def test_an_unfinished_call_has_no_outcome(self) -> None:
        """A requested or started call has no outcome, whatever its payload states."""
        stated = outcome_payload(ToolOutcome("completed", 0, "", ""))
        assert tool_outcome({"status": "started", "outcome": stated}) is None


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

    @pytest.mark.parametrize("result", ["Error: File has not been read yet.", "ERROR: x"])
    def test_an_error_report_as_a_result_is_errored(self, result: str) -> None:
        """A completed result that opens as an error report is errored."""
        outcome = tool_outcome({"status": "completed", "result": result})
        assert outcome == ToolOutcome("errored", None, result, "")

    @pytest.mark.parametrize(
        "result",
        ["User rejected tool use", "<tool_use_error>x</tool_use_error>", "aborted"],
    )
    def test_a_client_s_marker_in_a_result_is_output(self, result: str) -> None:
        """A client's own markers mean nothing in a native result: its adapter reads them
        (tests/formats/test_outcomes.py)."""
        outcome = tool_outcome({"status": "completed", "result": result})
        assert outcome == ToolOutcome("completed", None, result, "")

    @given(
        st.dictionaries(
            st.sampled_from(["status", "result", "error", "exit_code", "outcome"]),
            st.none()
            | st.booleans()
            | st.integers()
            | st.text()
            | st.sampled_from(["completed", "failed"])
            | st.dictionaries(
                st.sampled_from(["status", "exit_code", "output", "error"]),
                st.none() | st.integers() | st.text() | st.sampled_from(["completed", "errored"]),
            ),
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
