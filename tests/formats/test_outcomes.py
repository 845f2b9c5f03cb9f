"""How each adapter says a call ended, from its own format's records.

The adapter puts the typed outcome on the event it emits (the native ``outcome`` field); the
rules read it without knowing which client wrote the transcript. Quoted strings marked
"fixture" are copied from the real recordings in tests/fixtures.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import orjson
import pytest

from session_memory.core.events import TranscriptEvent
from session_memory.core.outcome import ToolOutcome, tool_outcome
from session_memory.formats import read_transcript
from tests.cc_session import ClaudeCodeSession
from tests.transcripts import derive, jsonl

# fixture: cc-2.1.38_rejected-tools_interrupt_short, a rejected Bash call
REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). STOP what you are doing and "
    "wait for the user to tell you how to proceed."
)
# fixture: codex-0.125.0-cli_update-plan_apply-patch, the apply_patch output
CODEX_PATCH_OUTPUT = (
    '{"output":"Success. Updated the following files:\\n'
    'M src/agents/plugins/__tests__/codemie-code-reasoning.test.ts\\n",'
    '"metadata":{"exit_code":0,"duration_seconds":2.2}}'
)


def events(data: bytes, fmt: str) -> list[TranscriptEvent]:
    return [r for r in read_transcript(io.BytesIO(data), fmt) if isinstance(r, TranscriptEvent)]


def finished(evts: list[TranscriptEvent]) -> ToolOutcome:
    """The outcome of the one call that finished."""
    (end,) = [e for e in evts if e.payload.get("status") in ("completed", "failed")]
    outcome = tool_outcome(end.payload)
    assert outcome is not None
    return outcome


def claude_result(tmp_path: Path, result: str, **fields: Any) -> ToolOutcome:
    """The outcome of a Claude Code Bash call whose tool_result content is ``result``."""
    session = ClaudeCodeSession(tmp_path / "s.jsonl")
    session.prompt("run it")
    session.tool("Bash", {"command": "./run.sh"}, result, **fields)
    return finished(events(session.path.read_bytes(), "claude-code"))


def codex_line(kind: str, **payload: Any) -> dict[str, Any]:
    return {"timestamp": "2026-01-01T00:00:00Z", "type": kind, "payload": payload}


def codex_call(name: str, output: object, **args: Any) -> list[dict[str, Any]]:
    """A Codex function call, its arguments a JSON string as Codex writes them, and its output."""
    return [
        codex_line("session_meta", id="s", cwd="/w"),
        codex_line("event_msg", type="task_started", turn_id="turn-1"),
        codex_line("event_msg", type="user_message", message="run it"),
        codex_line(
            "response_item",
            type="function_call",
            name=name,
            call_id="c1",
            arguments=orjson.dumps(args).decode(),
        ),
        codex_line("response_item", type="function_call_output", call_id="c1", output=output),
    ]


def codex_result(output: object, name: str = "exec_command") -> ToolOutcome:
    return finished(events(jsonl(codex_call(name, output, cmd="./run.sh")), "codex"))


class TestClaudeCode:
    @pytest.mark.parametrize(
        ("result", "status"),
        [
            ("<tool_use_error>File does not exist.</tool_use_error>", "errored"),
            ("<tool_use_error>Sibling tool call errored</tool_use_error>", "interrupted"),
            ("Sibling tool call errored", "interrupted"),
            ("Error: File has not been read yet. Read it first before writing to it.", "stale"),
            ('InputValidationError: [\n  {\n    "code": "invalid_type"', "errored"),
        ],
    )
    def test_an_error_reported_as_a_completed_result(
        self, tmp_path: Path, result: str, status: str
    ) -> None:
        """A result not marked is_error that says the call did not succeed is not completed."""
        outcome = claude_result(tmp_path, result)
        assert (outcome.status, outcome.output) == (status, result)

    @pytest.mark.parametrize(
        "result", ["User rejected tool use", REJECTED, REJECTED.replace("'", "\u2019")]
    )
    def test_a_rejection_reported_as_a_completed_result(self, tmp_path: Path, result: str) -> None:
        """A result not marked is_error that says the user rejected the call is rejected."""
        rejected = "User rejected tool use"
        assert claude_result(tmp_path, result) == ToolOutcome("rejected", None, "", rejected)

    @pytest.mark.parametrize(
        "result",
        [
            "Todos have been modified successfully.",
            "     1\tError: this line of a file mentions an error",
            "no Error: at the start",
            "error: lower-case compiler output",
            "The operation was aborted by the remote side",
            # Codex's markers are not Claude Code's: a command may print these.
            "aborted",
            "write_stdin failed: no such session",
        ],
    )
    def test_ordinary_results_are_completed(self, tmp_path: Path, result: str) -> None:
        """Results that only mention errors, or another client's markers, are completed."""
        assert claude_result(tmp_path, result).status == "completed"

    def test_a_rejection_marked_is_error_is_rejected_not_failed(self, tmp_path: Path) -> None:
        """A rejected call the record marks is_error did not fail: the user rejected it."""
        outcome = claude_result(tmp_path, REJECTED, error=True, structured="User rejected tool use")
        rejected = "User rejected tool use"
        assert outcome == ToolOutcome("rejected", None, "", rejected)

    def test_a_rejection_keeps_what_the_user_said(self, tmp_path: Path) -> None:
        """The words the user typed when rejecting (before the client's note) are kept: the
        outcome's output, and after "User rejected tool use" in its error."""
        said = (
            "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. "
            "if it was a file edit, the new_string was NOT written to the file). To tell you how "
            "to proceed, the user said:\nkeep the old API, only rename the flag\n\nNote: The "
            "user's next message may contain a correction or preference. Pay close attention."
        )
        outcome = claude_result(tmp_path, said, error=True, structured="Error: " + said)
        said = "keep the old API, only rename the flag"
        assert outcome == ToolOutcome("rejected", None, said, f"User rejected tool use: {said}")

    def test_a_failed_bash_call_carries_its_exit_code(self, tmp_path: Path) -> None:
        """A failed Bash result's "Exit code N" header is the exit code, not the error text."""
        outcome = claude_result(tmp_path, "Exit code 2\nmake: *** [test] Error 1", error=True)
        assert outcome == ToolOutcome("failed", 2, "", "make: *** [test] Error 1")


class TestCodex:
    @pytest.mark.parametrize(
        ("output", "status"),
        [
            ({"content": "aborted", "success": True}, "interrupted"),
            ({"content": "write_stdin failed: no such session"}, "errored"),
            ("apply_patch verification failed: invalid hunk at line 3", "errored"),
            ("apply_patch verification failed: Failed to find expected lines in a.go:", "stale"),
            ("Error: no such file", "errored"),
        ],
    )
    def test_an_error_reported_as_a_completed_result(self, output: object, status: str) -> None:
        """An output that says the call did not succeed is not completed."""
        assert codex_result(output).status == status

    @pytest.mark.parametrize(
        "output",
        ["aborted", "write_stdin failed: no such session", {"content": "x", "success": False}],
    )
    def test_failed_outputs(self, output: object) -> None:
        """An aborted call, a failed poll and an unsuccessful output fail."""
        assert codex_result(output).status == "failed"

    @pytest.mark.parametrize(
        "output",
        [
            "Plan updated",
            # Claude Code's markers are not Codex's: a command may print these.
            "User rejected tool use",
            "<tool_use_error>x</tool_use_error>",
        ],
    )
    def test_ordinary_results_are_completed(self, output: str) -> None:
        """Plain outputs, another client's markers included, are completed."""
        assert codex_result(output).status == "completed"

    def test_metadata_exit_code_and_output(self) -> None:
        """A JSON output gives its ``output`` and ``metadata.exit_code`` (fixture)."""
        outcome = codex_result(CODEX_PATCH_OUTPUT, name="apply_patch")
        assert (outcome.status, outcome.exit_code) == ("completed", 0)
        assert outcome.output.startswith("Success. Updated the following files:\n")

    def test_exited_non_zero_fails_with_its_exit_code(self) -> None:
        """ "Process exited with code N" (N != 0) is a failure with exit code N."""
        outcome = codex_result("Process exited with code 1\nOutput:\n1 failed, 2 passed")
        assert outcome == ToolOutcome("failed", 1, "", "1 failed, 2 passed")

    def test_shell_command_says_its_exit_code_in_its_own_words(self) -> None:
        """Codex 0.118's ``shell_command`` heads its output "Exit code: N": 0 completed, with
        its exit code; N != 0 a failure."""
        done = codex_result(
            "Exit code: 0\nWall time: 1.2 seconds\nOutput:\nok", name="shell_command"
        )
        assert done == ToolOutcome("completed", 0, "ok", "")
        failed = codex_result(
            "Exit code: 1\nWall time: 0.1 seconds\nOutput:\nboom", name="shell_command"
        )
        assert failed == ToolOutcome("failed", 1, "", "boom")

    def test_a_failed_command_that_printed_nothing_has_no_error_text(self) -> None:
        """Its exit code says how it ended: the adapter adds no words of its own."""
        outcome = codex_result("Process exited with code 1\nOutput:\n")
        assert outcome == ToolOutcome("failed", 1, "", "")

    def test_a_search_that_found_nothing_is_no_failure(self) -> None:
        """``rg`` exiting 1 with no output found nothing, as asked: no failed attempt."""
        lines = codex_call(
            "exec_command",
            "Chunk ID: c53131\nWall time: 0.0000 seconds\nProcess exited with code 1\n"
            "Original token count: 0\nOutput:\n",
            cmd="rg -n 'Antigravity|antigravity' README.md",
        )
        assert derive(jsonl(lines), "codex").failed_attempts == ()

    def test_arguments_are_decoded_from_their_json_string(self) -> None:
        """Codex ``arguments`` encoded as a JSON string reach the rules as an object."""
        lines = codex_call("exec_command", "ok", cmd="git status --short", workdir="/repo")
        requested = [
            e for e in events(jsonl(lines), "codex") if e.payload.get("status") == "requested"
        ]
        assert requested[0].payload["args"] == {"cmd": "git status --short", "workdir": "/repo"}


class TestCodexTurnAborted:
    @pytest.mark.parametrize(
        ("reason", "ending"),
        [
            ("replaced", "interrupted (replaced)"),
            ("review_ended", "interrupted (review ended)"),
            ("interrupted", "interrupted"),
            ("something_new", "interrupted"),
        ],
    )
    def test_the_reason_is_said_once(self, reason: str, ending: str) -> None:
        """Why a turn was cut short is the ending's cause, in words; an interruption by the
        user, or a reason Codex did not write before, adds nothing."""
        lines = [
            codex_line("session_meta", id="s", cwd="/w"),
            codex_line("event_msg", type="task_started", turn_id="turn-1"),
            codex_line("event_msg", type="user_message", message="run it"),
            codex_line("event_msg", type="turn_aborted", turn_id="turn-1", reason=reason),
        ]
        memory = derive(jsonl(lines), "codex")
        assert [i.text for i in memory.where_stands] == [f"the last run did not complete: {ending}"]
