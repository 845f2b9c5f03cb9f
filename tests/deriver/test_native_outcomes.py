"""MyCodeAgent's result envelopes and other agents' result objects, as the rules read them."""

from __future__ import annotations

from typing import Any

from tests.deriver.test_rules import call, derive, event, texts, user


def bash_result(status: str, stdout: str, exit_code: int) -> dict[str, Any]:
    """A Bash result envelope as MyCodeAgent's tool runtime writes it."""
    return {
        "status": status,
        "data": {"stdout": stdout, "stderr": "", "exit_code": exit_code, "signal": None},
        "text": f"Command finished\n(Exit code {exit_code}. Took 240ms)",
        "stats": {"time_ms": 240},
        "context": {"cwd": ".", "params_input": {"command": "python -m pytest -q"}},
    }


def error_result(code: str, message: str) -> dict[str, Any]:
    return {
        "status": "error",
        "data": {},
        "text": message,
        "error": {"code": code, "message": message},
    }


PYTEST = {"command": "python -m pytest -q"}


class TestEnvelopes:
    def test_passing_pytest_in_data_stdout_is_verified(self) -> None:
        """pytest's summary in data.stdout makes a passed verification line with its counts."""
        result = bash_result("success", "...\n3 passed in 0.01s\n", 0)
        memory = derive(user("fix it"), call("Bash", PYTEST, result=result))
        assert any("3 passed" in t for t in texts(memory.verification_status))

    def test_partial_with_exit_one_is_a_failure(self) -> None:
        """A completed Bash call whose envelope is partial with exit 1 is a failed command."""
        result = bash_result("partial", "Traceback\nValueError: bad\n", 1)
        memory = derive(
            user("fix it"), call("Bash", {"command": "python -m calc.report"}, result=result)
        )
        assert any("exited 1" in t for t in texts(memory.failed_attempts))
        assert not any("calc.report" in t for t in texts(memory.completed_work))

    def test_failing_pytest_is_a_failed_check(self) -> None:
        """A failing pytest run in an envelope is a failed verification line."""
        result = bash_result("partial", "F\n1 failed, 2 passed in 0.03s\n", 1)
        memory = derive(user("fix it"), call("Bash", PYTEST, result=result))
        assert any(i.status == "failed" for i in memory.verification_status)

    def test_error_message_is_the_failure_text(self) -> None:
        """A failed call's error envelope message is quoted in its failed attempt."""
        message = "Edit at index 0: old_string not found; it must be unique."
        result = error_result("INVALID_PARAM", message)
        memory = derive(
            user("add median"), call("Edit", {"path": "calc/stats.py"}, "failed", result=result)
        )
        assert any("old_string not found" in t for t in texts(memory.failed_attempts))

    def test_permission_denial_is_a_failed_attempt(self) -> None:
        """A permission denial is kept as a failed attempt with its message."""
        result = error_result("PERMISSION_DENIED", "Tool 'Bash' denied by permission core.")
        args = {"command": "git checkout -- calc/stats.py"}
        memory = derive(user("revert"), call("Bash", args, "failed", result=result))
        assert any("denied by permission core" in t for t in texts(memory.failed_attempts))


class TestPlainObjects:
    def test_stdout_exit_code_object_is_verified(self) -> None:
        """{stdout, exit_code} from another agent verifies a pytest run."""
        result = {"stdout": "21 passed in 2.9s", "exit_code": 0}
        memory = derive(user("run tests"), call("Bash", PYTEST, result=result))
        assert any("21 passed" in t for t in texts(memory.verification_status))

    def test_returncode_object_is_a_failure(self) -> None:
        """{output, returncode: 1} is a failed command."""
        result = {"output": "make: *** [all] Error 1", "returncode": 1}
        memory = derive(user("build"), call("Bash", {"command": "./build.sh"}, result=result))
        assert any("exited 1" in t for t in texts(memory.failed_attempts))


class TestGateDetails:
    def test_stop_hook_keeps_its_reasons(self) -> None:
        """A blocked completion names the gate's reasons, as code."""
        details = {"completion_verdict": "fail", "reasons": ["verification_invalid:tests"]}
        blocked = event("state_transition", reason="stop_hook_blocking", details=details)
        memory = derive(user("fix it"), blocked)
        (line,) = [i.text for i in memory.verification_status if i.kind == "stop_hook"]
        assert line == "completion blocked pending verification: `verification_invalid:tests`"

    def test_completion_gate_terminal_keeps_its_reasons(self) -> None:
        """A run that ended at the completion gate says why."""
        details = {"reasons": ["incomplete_todos", "verification_invalid:tests"]}
        ended = event("terminal", reason="completion_gate_blocked", details=details)
        memory = derive(user("fix it"), ended)
        (line,) = [i.text for i in memory.where_stands if i.kind == "ending"]
        assert "`incomplete_todos`, `verification_invalid:tests`" in line

    def test_compaction_without_checkpoint_names_its_details(self) -> None:
        """A compaction whose checkpoint is not in the memory keeps its count and id."""
        details = {"checkpoint_id": "compact_1", "messages_compacted": 14}
        compacted = event("state_transition", reason="context_compacted", details=details)
        memory = derive(user("fix it"), compacted)
        assert "context compacted (14 messages, checkpoint `compact_1`)" in texts(
            memory.key_decisions
        )
