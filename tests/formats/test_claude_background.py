"""Claude Code work that goes on in the background: a background command and an asynchronous
sub-agent end when their notification or a poll says so, from minimal real-shaped records."""

from __future__ import annotations

from tests.formats.cc_records import calls, events, memory, prompt, queued, tool_result, tool_use

LAUNCHED = (
    "Command running in background with ID: bva995yqy. Output is being written to: "
    "/tmp/claude-501/-Users-dev-shop/s-1/tasks/bva995yqy.output"
)
BASH_STARTED = {"stdout": "", "stderr": "", "interrupted": False, "backgroundTaskId": "bva995yqy"}
AGENT_STARTED = {
    "isAsync": True,
    "status": "async_launched",
    "agentId": "a2d15a850069b24ba",
    "description": "Surface parse failures",
}


def notification(task: str, call: str, status: str, summary: str, result: str = "") -> str:
    body = (
        f"<task-notification>\n<task-id>{task}</task-id>\n<tool-use-id>{call}</tool-use-id>\n"
        f"<output-file>/tmp/claude-501/-Users-dev-shop/s-1/tasks/{task}.output</output-file>\n"
        f"<status>{status}</status>\n<summary>{summary}</summary>\n"
    )
    if result:
        body += f"<result>{result}</result>\n"
    return body + "</task-notification>"


def background_test_run() -> list[dict[str, object]]:
    return [
        prompt(1, "Run the tests"),
        tool_use(2, "Bash", {"command": "mix test", "run_in_background": True}),
        tool_result(3, 2, LAUNCHED, structured=BASH_STARTED),
    ]


def background_agent(request: str, description: str) -> list[dict[str, object]]:
    """A request, and the asynchronous sub-agent launched for it (its result says only that)."""
    return [
        prompt(1, request),
        tool_use(2, "Agent", {"description": description, "prompt": "..."}),
        tool_result(3, 2, "Async agent launched successfully.", structured=AGENT_STARTED),
    ]


class TestBackgroundCommands:
    def test_a_background_command_stays_open_until_it_ends(self) -> None:
        """ "Command running in background" is no result: the call is still running."""
        assert calls(*background_test_run()) == [
            ("Bash", "requested", ""),
            ("Bash", "started", ""),
        ]

    def test_its_notification_says_how_it_ended(self) -> None:
        """A failed task's notification fails the call, with its exit code and summary."""
        summary = 'Background command "mix test" failed with exit code 2'
        ended = queued(4, notification("bva995yqy", "toolu_2", "failed", summary))
        (end,) = [
            e for e in events(*background_test_run(), ended) if e.payload.get("status") == "failed"
        ]
        assert end.payload["outcome"] == {
            "status": "failed",
            "exit_code": 2,
            "output": "",
            "error": summary,
        }

    def test_a_poll_that_finds_it_finished_ends_it_and_is_no_call(self) -> None:
        """TaskOutput reporting the task completed completes the command with its output."""
        output = "Running ExUnit with seed: 1\n49 tests, 0 failures"
        task = {"task_id": "bva995yqy", "task_type": "local_bash", "status": "completed",
                "exitCode": 0, "output": output}  # fmt: skip
        polled = (
            "<retrieval_status>success</retrieval_status>\n\n<task_id>bva995yqy</task_id>\n\n"
            f"<status>completed</status>\n\n<exit_code>0</exit_code>\n\n<output>\n{output}\n</output>"
        )
        records = [
            *background_test_run(),
            tool_use(4, "TaskOutput", {"task_id": "bva995yqy", "block": True, "timeout": 120000}),
            tool_result(5, 4, polled, structured={"retrieval_status": "success", "task": task}),
        ]
        assert calls(*records)[-1] == ("Bash", "completed", "completed")
        (end,) = [e for e in events(*records) if e.payload.get("status") == "completed"]
        assert (end.payload["outcome"]["exit_code"], end.payload["outcome"]["output"]) == (
            0,
            output,
        )

    def test_a_poll_that_finds_it_running_changes_nothing(self) -> None:
        """A poll that timed out while the task runs leaves the command open."""
        task = {"task_id": "bva995yqy", "task_type": "local_bash", "status": "running"}
        records = [
            *background_test_run(),
            tool_use(4, "TaskOutput", {"task_id": "bva995yqy", "block": True}),
            tool_result(5, 4, "<status>running</status>", structured={"task": task}),
        ]
        assert calls(*records)[-1] == ("Bash", "started", "")

    def test_a_stop_ends_it_interrupted_and_is_no_call(self) -> None:
        """The agent stops a command that hung (a push waiting for credentials): the call
        ends interrupted, no failure; a stop of a task that had already ended is no call."""
        stopped = (
            '{"message":"Successfully stopped task: bva995yqy (mix test)","task_id":"bva995yqy",'
            '"task_type":"local_bash","command":"mix test"}'
        )
        records = [
            *background_test_run(),
            tool_use(4, "TaskStop", {"task_id": "bva995yqy"}),
            tool_result(5, 4, stopped),
            tool_use(6, "TaskStop", {"task_id": "b99rj07wt"}),
            tool_result(7, 6, "Task b99rj07wt is not running (status: completed)", error=True),
        ]
        assert calls(*records)[2:] == [("Bash", "completed", "interrupted")]
        assert memory(*records).failed_attempts == ()

    def test_a_second_notification_of_the_same_task_changes_nothing(self) -> None:
        """The queue and then the user record both carry the notification: one end."""
        note = notification("bva995yqy", "toolu_2", "completed", "completed (exit code 0)")
        ends = [
            c
            for c in calls(*background_test_run(), queued(4, note), prompt(5, note))
            if c[1] != "requested" and c[1] != "started"
        ]
        assert ends == [("Bash", "completed", "completed")]


class TestAsyncSubAgents:
    def test_a_sub_agents_failure_is_the_calls_failure(self) -> None:
        """An asynchronous agent whose notification says it failed fails its Agent call,
        in the sub-agent's own words; the main agent's later claim does not hide it."""
        report = "Could not make the parser tests pass: 3 still fail in dependents_test.go"
        note = notification(
            "a2d15a850069b24ba", "REDACTED", "failed", 'Agent "Surface parse failures" failed',
            report,
        )  # fmt: skip
        m = memory(
            *background_agent("Fix the parse failures", "Surface parse failures"),
            prompt(4, note),
        )
        assert any("3 still fail" in i.text for i in m.failed_attempts)

    def test_a_sub_agent_that_finished_completes_with_its_report(self) -> None:
        """A completed notification completes the Agent call; its report is the output."""
        note = notification(
            "a2d15a850069b24ba", "toolu_2", "completed", 'Agent "Surface parse failures" finished',
            "Parse failures are now warnings; mise run check is green.",
        )  # fmt: skip
        records = [
            *background_agent("Fix the parse failures", "Surface parse failures"),
            prompt(4, note),
        ]
        (end,) = [e for e in events(*records) if e.payload.get("status") == "completed"]
        assert "mise run check is green" in end.payload["outcome"]["output"]

    def test_a_sub_agent_still_running_at_the_end_stays_open(self) -> None:
        """No notification before the file ends: the work's outcome is unknown."""
        m = memory(
            *background_agent("Fix the parse failures", "Surface parse failures"),
        )
        assert [i.status for i in m.todo_items] == ["uncertain"]

    def test_a_sub_agent_completed_on_the_models_error_failed(self) -> None:
        """A notification that says "completed" with the model's error as the agent's whole
        report ("API Error: … Rate limited") ends a task that did not do its work: failed,
        not done."""
        note = notification(
            "afbbfe19b42de49b9", "toolu_2", "completed", 'Agent "Security audit" finished',
            "API Error: Server is temporarily limiting requests · Rate limited",
        )  # fmt: skip
        m = memory(
            *background_agent("Audit the new tools", "Security audit"),
            prompt(4, note),
        )
        assert m.completed_work == ()
        (failed,) = m.failed_attempts
        assert "Security audit" in failed.text and "Rate limited" in failed.text


class TestSubAgentsThatDidNothing:
    def test_a_sub_agent_ended_by_the_models_error_failed(self) -> None:
        """A sub-agent whose result has no tokens ended on the model's error (a usage limit),
        whatever it ran before: its task failed, in its own words (the one that finished is
        no milestone)."""
        limit = "You've hit your limit · resets 8pm (Europe/Warsaw)"
        ended = {
            "status": "completed",
            "agentId": "ad66786327d6271ac",
            "content": [{"type": "text", "text": limit}],
            "totalDurationMs": 21379,
            "totalTokens": 0,
            "totalToolUseCount": 12,
        }
        done = {**ended, "agentId": "a93393080b39c8224", "totalTokens": 18240}
        m = memory(
            prompt(1, "/code-review"),
            tool_use(2, "Agent", {"description": "Blind Hunter review", "prompt": "..."}),
            tool_use(3, "Agent", {"description": "Edge Case Hunter review", "prompt": "..."}),
            tool_result(4, 2, "7 findings: ...", structured=done),
            tool_result(5, 3, limit, structured=ended),
        )
        assert m.completed_work == ()
        (failed,) = m.failed_attempts
        assert "Edge Case Hunter review" in failed.text and "hit your limit" in failed.text
