"""Codex's tool calls beyond one call and its output: sub-agents, processes that run on
past their call, patches applied through the shell.

Records are shaped as Codex writes them (``tests/formats/codex_records.py``): the collab
tools of 0.125 (``spawn_agent`` with ``message``, ``wait_agent`` with ``targets``) and of
0.145 (``spawn_agent`` with ``task_name``, ``list_agents``, ``send_message``,
``followup_task``), unified exec's "Process running with session ID N".
"""

from __future__ import annotations

import pytest

from session_memory.core.events import SkippedLine
from tests.formats.codex_records import (
    COMPLETE,
    SESSION,
    STARTED,
    event,
    feed,
    function_call,
    function_output,
    line,
    lines,
    memory,
    prompt,
    tool_events,
)

START = (SESSION, STARTED, prompt("Review PRs 36 to 43"))
SPAWN = function_call(
    "call_1",
    "spawn_agent",
    agent_type="explorer",
    fork_turns="3",
    message="Review PR #43 for correctness; do not edit files.",
    task_name="review_pr43",
)


AGENT_ID = "019ddb95-1abd-7190-90a5-819995809a27"
ERRORED = '{"errored":"stream disconnected before completion"}'


def _errored_agent() -> tuple[dict[str, object], ...]:
    """A 0.125 sub-agent: spawned by its message, waited for, reported as errored."""
    return (
        function_call("call_1", "spawn_agent", message="Check the tests of PR #43"),
        function_output("call_1", f'{{"agent_id":"{AGENT_ID}","nickname":"Nash"}}'),
        function_call("call_2", "wait_agent", targets=[AGENT_ID], timeout_ms=600000),
        function_output("call_2", f'{{"status":{{"{AGENT_ID}":{ERRORED}}},"timed_out":false}}'),
    )


def unified_exec(call_id: str, status: str, output: str) -> dict[str, object]:
    """An exec_command or write_stdin output as unified exec writes it."""
    text = f"Chunk ID: 2bb2a9\nWall time: 5.0021 seconds\n{status}\nOriginal token count: 30\n"
    return function_output(call_id, f"{text}Output:\n{output}")


def running(call_id: str, session: int, output: str) -> dict[str, object]:
    return unified_exec(call_id, f"Process running with session ID {session}", output)


def exited(call_id: str, code: int, output: str) -> dict[str, object]:
    return unified_exec(call_id, f"Process exited with code {code}", output)


class TestSubAgents:
    def test_a_spawned_agent_is_a_sub_agent_task(self) -> None:
        """``spawn_agent`` is a native sub-agent task: named by its task, its message the
        prompt."""
        events = tool_events(
            *START, SPAWN, function_output("call_1", '{"task_name":"/root/review_pr43"}')
        )
        assert events[0] == (
            "requested",
            "Task",
            {
                "description": "review_pr43",
                "prompt": "Review PR #43 for correctness; do not edit files.",
                "subagent_type": "explorer",
            },
        )
        assert events[1][:2] == ("completed", "Task")

    def test_a_spawn_that_started_no_agent_failed(self) -> None:
        """A spawn whose output is an error, not the agent it started, failed."""
        m = memory(
            *START,
            SPAWN,
            function_output("call_1", "collab spawn failed: agent thread limit reached (max 6)"),
        )
        assert lines(m.failed_attempts) == [
            "Task `review_pr43`: “collab spawn failed: agent thread limit reached (max 6)”"
        ]

    def test_the_spawn_that_started_a_forked_agent_in_its_own_rollout(self) -> None:
        """A forked sub-agent's rollout copies its parent's history up to the spawn that
        started it, whose output there is the fork's note: the agent started."""
        note = (
            "You are the newly spawned agent. The prior conversation history was forked from "
            "your parent agent. Treat the next user message as your new task, and use the "
            "forked history only as background context."
        )
        m = memory(*START, SPAWN, function_output("call_1", note))
        assert lines(m.failed_attempts) == []

    @pytest.mark.parametrize(
        ("name", "args"),
        [
            (
                "wait_agent",
                {"targets": ["019ddb90-9933-7461-ad38-875618e21ac6"], "timeout_ms": 600000},
            ),
            ("wait_agent", {"timeout_ms": 10000}),
            ("list_agents", {}),
            ("send_message", {"target": "/root/review_pr43", "message": "Any findings yet?"}),
            ("send_input", {"target": "019ddb90", "interrupt": False, "message": "Fix the gaps"}),
            ("followup_task", {"target": "/root/review_pr43", "message": "Also check the tests"}),
            ("close_agent", {"target": "019ddb90-9933-7461-ad38-875618e21ac6"}),
            ("wait", {"ids": ["019ddb90"], "timeout_ms": 30000}),
        ],
    )
    def test_agent_bookkeeping_is_no_call(self, name: str, args: dict[str, object]) -> None:
        """Waiting for, listing, messaging or closing agents already spawned is bookkeeping,
        not work: no call."""
        events = tool_events(
            *START,
            function_call("call_2", name, **args),
            function_output("call_2", '{"message":"Wait completed.","timed_out":false}'),
            COMPLETE,
        )
        assert events == []

    def test_an_agent_that_ended_in_error_is_its_task_failed(self) -> None:
        """A sub-agent a wait reports as errored is its task, failed: the agent's work
        failed, which the spawn (it started) never says."""
        m = memory(*START, *_errored_agent())
        assert lines(m.failed_attempts) == [
            "Task `Check the tests of PR #43`: “stream disconnected before completion”"
        ]

    def test_an_agent_error_reported_twice_is_one_failure(self) -> None:
        """The close after the wait reports the same error again: one failed task."""
        close = function_call("call_3", "close_agent", target=AGENT_ID)
        closed = function_output("call_3", f'{{"previous_status":{ERRORED}}}')
        events = tool_events(*START, *_errored_agent(), close, closed, COMPLETE)
        assert [e[:2] for e in events] == [
            ("requested", "Task"),
            ("completed", "Task"),
            ("requested", "Task"),
            ("failed", "Task"),
        ]

    def test_an_agent_listed_as_errored_is_its_task_failed(self) -> None:
        """0.145's list_agents reports each agent's status by its task name: an errored one
        is its task, failed."""
        listing = (
            '{"agents":[{"agent_name":"/root","agent_status":"running"},'
            '{"agent_name":"/root/review_pr43","agent_status":'
            '{"errored":"stream disconnected before completion"}}]}'
        )
        m = memory(
            *START,
            SPAWN,
            function_output("call_1", '{"task_name":"/root/review_pr43"}'),
            function_call("call_2", "list_agents"),
            function_output("call_2", listing),
        )
        assert lines(m.failed_attempts) == [
            "Task `review_pr43`: “stream disconnected before completion”"
        ]

    def test_an_agent_that_completed_is_no_failure(self) -> None:
        """A wait that reports an agent's final answer adds no call."""
        spawn, spawned, wait, _ = _errored_agent()
        done = function_output(
            "call_2", f'{{"status":{{"{AGENT_ID}":{{"completed":"APPROVED"}}}},"timed_out":false}}'
        )
        events = tool_events(*START, spawn, spawned, wait, done, COMPLETE)
        assert [e[:2] for e in events] == [("requested", "Task"), ("completed", "Task")]

    def test_agent_records_are_known(self) -> None:
        """What Codex writes about its agents' messages is read and set aside, not skipped."""
        records = feed(
            *START,
            line("inter_agent_communication_metadata", trigger_turn=False),
            line(
                "response_item",
                type="agent_message",
                author="/root/review_pr43",
                recipient="/root",
                content=[
                    {
                        "type": "input_text",
                        "text": "Message Type: FINAL_ANSWER\nPayload:\nNo findings.",
                    }
                ],
            ),
            event("collab_waiting_end", call_id="call_3", agent_statuses=[]),
        )
        assert not [r for r in records if isinstance(r, SkippedLine)]


class TestRunningProcesses:
    def test_a_process_left_running_ends_with_its_turn(self) -> None:
        """A command that runs on and is never polled again ends when the turn does, with
        what it printed: the agent moved on with that output."""
        events = tool_events(
            *START,
            function_call("call_1", "exec_command", cmd="env GOCACHE=/tmp/go-build go test ./..."),
            running("call_1", 60674, "FAIL\tentire.io/git-sync [setup failed]\n"),
            COMPLETE,
        )
        assert events[-1] == (
            "completed",
            "exec_command",
            {
                "status": "completed",
                "exit_code": None,
                "output": "FAIL\tentire.io/git-sync [setup failed]\n",
                "error": "",
            },
        )

    def test_a_polled_process_keeps_what_it_printed_before_the_poll(self) -> None:
        """The output of a command that ran on and ended under a poll is all it printed: the
        commit line of ``git commit && git push`` came before the push finished."""
        events = tool_events(
            *START,
            function_call("call_1", "exec_command", cmd="git commit -m 'Docs' && git push"),
            running("call_1", 89501, "[main 6cc4245] Docs\n 2 files changed\n"),
            function_call("call_2", "write_stdin", session_id=89501, chars=""),
            exited("call_2", 0, "To github.com:o/r.git\n"),
        )
        status, _, outcome = events[-1]
        assert status == "completed"
        assert outcome["exit_code"] == 0
        assert outcome["output"].startswith("[main 6cc4245] Docs")
        assert outcome["output"].endswith("To github.com:o/r.git\n")

    def test_a_process_stopped_with_ctrl_c_is_interrupted_not_failed(self) -> None:
        """The agent stops its dev server by writing Ctrl-C: the exit that follows (the
        terminal echoes "^C") is no failure of the server."""
        records = (
            *START,
            function_call("call_1", "exec_command", cmd="npm run dev -- --host 127.0.0.1"),
            running("call_1", 53083, "> planetfall@0.0.1 dev\n  Local: http://127.0.0.1:5173/\n"),
            function_call("call_2", "write_stdin", session_id=53083, chars="\u0003"),
            exited("call_2", 1, "^C"),
        )
        status, _, outcome = tool_events(*records)[-1]
        assert (status, outcome["status"], outcome["exit_code"]) == ("completed", "interrupted", 1)
        assert lines(memory(*records).failed_attempts) == []
        # The terminal's last screen before the echo (Vite's cleared lines): the Ctrl-C the
        # poll wrote says it all the same.
        redrawn = (*records[:-1], exited("call_2", 1, "\x1b[1;1H\x1b[0J12:02:03 PM [vite] hmr\n^C"))
        assert tool_events(*redrawn)[-1][2]["status"] == "interrupted"

    def test_the_same_command_run_again_ends_the_earlier_run(self) -> None:
        """A command run again while an earlier run of it was left running, unpolled, ends
        that run there, with what it printed: the new run's result comes after it, not
        before it at the turn's end."""
        command = "env GOCACHE=/tmp/go-build go test ./..."
        events = tool_events(
            *START,
            function_call("call_1", "exec_command", cmd=command),
            running("call_1", 48830, "FAIL\tacme/syncer [build failed]\n"),
            function_call("call_2", "exec_command", cmd=command),
            exited("call_2", 0, "ok  \tacme/syncer\t5.5s\n"),
            COMPLETE,
        )
        finished = [(status, data["output"]) for status, _, data in events if status != "requested"]
        assert finished == [
            ("completed", "FAIL\tacme/syncer [build failed]\n"),
            ("completed", "ok  \tacme/syncer\t5.5s\n"),
        ]

    def test_a_poll_after_the_turn_is_no_call_of_its_own(self) -> None:
        """A later poll of a process whose call ended with its turn is still that process's."""
        events = tool_events(
            *START,
            function_call("call_1", "exec_command", cmd="mise run check"),
            running("call_1", 19906, ""),
            COMPLETE,
            STARTED,
            prompt("is it done?"),
            function_call("call_2", "write_stdin", session_id=19906, chars=""),
            exited("call_2", 0, "ok\n"),
        )
        assert [(status, name) for status, name, _ in events] == [
            ("requested", "exec_command"),
            ("completed", "exec_command"),
        ]


class TestPatchesThroughTheShell:
    def test_a_patch_handed_to_apply_patch_in_the_shell_is_the_file_change(self) -> None:
        """Codex 0.40's model runs ``apply_patch <<'PATCH'`` through the shell tool, and
        Codex applies the patch itself: the call is the ``apply_patch`` it is."""
        command = (
            "apply_patch <<'PATCH'\n*** Begin Patch\n*** Update File: src/teams/route.ts\n@@\n"
            "-const a = 1;\n+const a = 2;\n*** End Patch\nPATCH"
        )
        m = memory(
            *START,
            function_call(
                "call_1", "shell", command=["bash", "-lc", command], workdir="/home/dev/graph"
            ),
            function_output(
                "call_1",
                '{"output":"Success. Updated the following files:\\nM src/teams/route.ts\\n",'
                '"metadata":{"exit_code":0,"duration_seconds":0.0}}',
            ),
        )
        assert any("src/teams/route.ts" in line for line in lines(m.where_stands))
