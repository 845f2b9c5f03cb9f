"""Claude Code 2.1.3xx records: task tools, new record types, hook text, queued prompts,
failure text and the working directory, each from minimal records shaped as the client writes
them."""

from __future__ import annotations

from typing import Any

from session_memory.core.memory import SkippedLine
from tests.formats.cc_records import (
    CWD,
    base,
    events,
    feed,
    memory,
    prompt,
    prompts,
    queued,
    tool_result,
    tool_use,
)


def failed(*records: dict[str, Any]) -> dict[str, Any]:
    (end,) = [e for e in events(*records) if e.payload.get("status") == "failed"]
    return end.payload


class TestTaskTools:
    def test_tool_search_that_loads_the_task_tools_is_not_work(self) -> None:
        """`ToolSearch select:TaskCreate,TaskUpdate` emits no tool call and no completed item."""
        m = memory(
            prompt(1, "Fix checkout"),
            tool_use(2, "ToolSearch", {"query": "select:TaskCreate,TaskUpdate"}),
            tool_result(3, 2, "Loaded 2 tools: TaskCreate, TaskUpdate"),
        )
        assert m.completed_work == ()
        assert m.todo_items == ()

    def test_a_task_id_only_in_the_result_text_is_learnt(self) -> None:
        """A create whose id is only in "Task #7 created successfully" is updated by that id."""
        m = memory(
            prompt(1, "Fix checkout"),
            tool_use(2, "TaskCreate", {"subject": "Fix rounding", "description": "cents"}),
            tool_result(3, 2, "Task #7 created successfully: Fix rounding"),
            tool_use(4, "TaskUpdate", {"taskId": "7", "status": "in_progress"}),
            tool_result(5, 4, "Updated task #7 status"),
        )
        assert [(i.text, i.status) for i in m.todo_items] == [("Fix rounding", "in_progress")]

    def test_a_task_id_only_in_the_structured_result_is_learnt(self) -> None:
        """A create whose id is only in `toolUseResult.task.id` is updated by that id."""
        m = memory(
            prompt(1, "Fix checkout"),
            tool_use(2, "TaskCreate", {"subject": "Fix rounding"}),
            tool_result(3, 2, "created", structured={"task": {"id": "3", "subject": "x"}}),
            tool_use(4, "TaskUpdate", {"taskId": 3, "status": "deleted"}),
            tool_result(5, 4, "ok", structured={"success": True, "taskId": "3"}),
        )
        assert m.todo_items == ()

    def test_task_list_says_how_the_sessions_tasks_stand(self) -> None:
        """Teammates update the tasks in their own sessions: TaskList's result says how they
        stand, so the states it lists are the list's for the tasks this session created; a
        task it lists that this session did not create (another's) stays out."""
        listed = (
            "#2 [completed] Fix auth race\n#1 [in_progress] Add Redis cache (backend)\n"
            "#7 [pending] Someone else's task"
        )
        m = memory(
            prompt(1, "Go"),
            tool_use(2, "TaskCreate", {"subject": "Add Redis cache"}),
            tool_result(3, 2, "Task #1 created successfully: Add Redis cache"),
            tool_use(4, "TaskCreate", {"subject": "Fix auth race"}),
            tool_result(5, 4, "Task #2 created successfully: Fix auth race"),
            tool_use(6, "TaskList", {}),
            tool_result(7, 6, listed),
        )
        todos = [(t.status, t.text) for t in m.todo_items]
        assert ("in_progress", "Add Redis cache") in todos
        assert not any("Fix auth race" in text or "Someone else" in text for _, text in todos)
        assert any("Fix auth race" in t.text for t in m.completed_work)

    def test_a_listed_task_the_session_updates_is_its_own(self) -> None:
        """A teammate's session creates no task: its lead assigns them. One it lists and
        then claims or completes (TaskUpdate) is its own, named as listed, without the
        owner and the blocking the listing adds; one it only listed stays out."""
        listed = (
            "#29 [pending] TST-6: Integration test for migration flow (test-eng) "
            "[blocked by #20]\n#25 [pending] TST-2: Unit tests for repositories (test-eng)"
        )
        m = memory(
            prompt(1, "team-lead assigned task #29"),
            tool_use(2, "TaskList", {}),
            tool_result(3, 2, listed),
            tool_use(4, "TaskUpdate", {"taskId": "29", "status": "in_progress"}),
            tool_result(5, 4, "Updated task #29 status"),
        )
        assert [(t.status, t.text) for t in m.todo_items] == [
            ("in_progress", "TST-6: Integration test for migration flow")
        ]


class TestKnownRecords:
    def test_new_record_types_are_known_not_skipped(self) -> None:
        """attachment (every subtype), api-request*, last-prompt, tools-used, cost-state and
        mode records are ignored without a skipped line."""
        attachments = [
            {"type": t, "content": ["x"]}
            for t in (
                "hook_additional_context",
                "hook_success",
                "file",
                "environment",
                "deferred_tools_delta",
                "skill_listing",
                "queued_command",
            )
        ]
        out = feed(
            prompt(1, "Fix checkout"),
            *(base(2 + i, type="attachment", attachment=a) for i, a in enumerate(attachments)),
            {"type": "api-request", "sessionId": "s-1", "request": {"model": "m"}},
            {"type": "api-request-blob", "sessionId": "s-1", "blob": "…"},
            {"type": "api-request-shape", "sessionId": "s-1", "shape": {}},
            {"type": "last-prompt", "sessionId": "s-1", "lastPrompt": "Fix checkout"},
            {"type": "tools-used", "sessionId": "s-1", "tools": ["Bash"]},
            {"type": "cost-state", "sessionId": "s-1", "costUSD": 0.1},
            {"type": "mode", "sessionId": "s-1", "mode": "default"},
        )
        assert not [r for r in out if isinstance(r, SkippedLine)]
        assert prompts(prompt(1, "Fix checkout")) == ["Fix checkout"]

    def test_hook_context_never_becomes_a_goal(self) -> None:
        """Text a SessionStart hook injected (an attachment) is not a prompt."""
        hook = {
            "type": "hook_additional_context",
            "hookEvent": "SessionStart",
            "content": ["# Session memory\n## Current goal\n> Ship the old feature"],
        }
        m = memory(base(1, type="attachment", attachment=hook), prompt(2, "Fix checkout"))
        assert m.current_goal is not None and m.current_goal.text == "Fix checkout"
        assert m.earlier_goals == ()

    def test_system_reminder_in_a_prompt_is_not_the_users(self) -> None:
        """A `<system-reminder>` block the client put into a prompt is removed from it."""
        text = "Fix checkout\n<system-reminder>\nUserPromptSubmit hook: memory…\n</system-reminder>"
        assert prompts(prompt(1, text)) == ["Fix checkout"]

    def test_an_apps_instructions_before_a_prompt_are_not_the_users(self) -> None:
        """An app that runs the agent (Conductor) puts its instructions and the files the user
        attached in `<system_instruction>` blocks before the prompt: the prompt is the rest."""
        text = (
            "<system_instruction>\nYou are working inside Conductor, a Mac app that lets the "
            "user run many coding agents in parallel.\n</system_instruction>\n\n\n"
            "<system_instruction>\nThe user has attached these files. Read them before "
            "proceeding.\n- /w/.context/attachments/plan.md\n</system_instruction>\n\n\n"
            "implement the plan"
        )
        assert prompts(prompt(1, text)) == ["implement the plan"]

    def test_a_prompt_that_is_only_a_reminder_is_no_prompt(self) -> None:
        """A user record holding nothing but hook output gives no message."""
        assert (
            prompts(prompt(1, "<system-reminder>Stop hook said: run the tests</system-reminder>"))
            == []
        )


class TestQueuedPrompts:
    def test_a_prompt_handed_to_the_running_turn_is_more_of_its_request(self) -> None:
        """enqueue, then remove (handed to the running turn): the user's words join the
        request the agent is working on, in the current goal."""
        m = memory(
            prompt(1, "Fix checkout"),
            queued(2, "new beads for the epic were added. tackle them"),
            queued(3, "", operation="remove"),
        )
        assert m.current_goal is not None
        assert m.current_goal.text == "Fix checkout\nnew beads for the epic were added. tackle them"

    def test_a_queued_prompt_delivered_later_is_one_prompt(self) -> None:
        """enqueue, dequeue, then a user record with the same text: one prompt."""
        assert prompts(
            prompt(1, "Fix checkout"),
            queued(2, "check again"),
            queued(3, "", operation="dequeue"),
            prompt(4, "check again"),
        ) == ["Fix checkout", "check again"]

    def test_the_same_text_typed_after_a_remove_is_a_new_prompt(self) -> None:
        """A queued prompt handed to the running turn (remove) does not hide a later one."""
        assert prompts(
            queued(1, "check again"), queued(2, "", operation="remove"), prompt(3, "check again")
        ) == ["check again", "check again"]

    def test_task_notifications_in_the_queue_are_not_prompts(self) -> None:
        """A queued `<task-notification>` (a background command finished) gives nothing."""
        note = (
            "<task-notification>\n<task-id>b0be39e</task-id>\n<status>completed</status>\n"
            '<summary>Background command "mix test" completed (exit code 0)</summary>\n'
            "</task-notification>"
        )
        assert prompts(prompt(1, "Fix checkout"), queued(2, note)) == ["Fix checkout"]

    def test_the_text_of_a_queued_skill_is_not_a_prompt(self) -> None:
        """A slash command typed while the agent works is queued with the text of the skill
        it invokes ("Base directory for this skill: …"): the client's, not the user's words,
        however often it is queued and dequeued."""
        skill = (
            "Base directory for this skill: /home/u/.claude/skills/build\n\n# build\n\n"
            "Quick feature implementation with an adaptive interview.\n"
        )
        records = [prompt(1, "Fix checkout")]
        for n in range(2, 8, 2):
            records += [queued(n, skill), queued(n + 1, "", operation="dequeue")]
        assert prompts(*records) == ["Fix checkout"]


class TestFailureText:
    def test_the_exit_code_header_is_not_the_error_text(self) -> None:
        """`Exit code 128` becomes exit_code; the error starts with git's own line."""
        text = (
            "Exit code 128\nfatal: The current branch spotter-gqc has no upstream branch.\n"
            "To push the current branch and set the remote as upstream, use\n"
        )
        payload = failed(
            prompt(1, "Push"),
            tool_use(2, "Bash", {"command": "git push 2>&1"}),
            tool_result(3, 2, text, error=True, structured="Error: " + text),
        )
        assert payload["outcome"]["exit_code"] == 128
        assert str(payload["outcome"]["error"]).startswith("fatal: The current branch spotter-gqc")

    def test_the_failure_names_the_cause(self) -> None:
        """The failed attempt quotes the informative line, not "Exit code 1"."""
        m = memory(
            prompt(1, "Build"),
            tool_use(2, "Bash", {"command": "esbuild js/app.js --bundle --outdir=priv/static"}),
            tool_result(3, 2, 'Exit code 1\n✘ [ERROR] Could not resolve "js/app.js"\n', error=True),
        )
        assert any("Could not resolve" in i.text for i in m.failed_attempts)

    def test_an_error_prefix_from_the_structured_result_is_dropped(self) -> None:
        """With no content, `Error: Exit code 2\\n…` from toolUseResult loses its header too."""
        payload = failed(
            prompt(1, "Test"),
            tool_use(2, "Bash", {"command": "make test"}),
            tool_result(
                3, 2, "", error=True, structured="Error: Exit code 2\nmake: *** [test] Error 1"
            ),
        )
        assert payload["outcome"]["exit_code"] == 2
        assert payload["outcome"]["error"] == "make: *** [test] Error 1"

    def test_an_error_that_is_only_the_exit_code_still_says_it(self) -> None:
        """A result whose only line is "Exit code 1" keeps it as the error text."""
        payload = failed(
            prompt(1, "Check"),
            tool_use(2, "Bash", {"command": "test -f x"}),
            tool_result(3, 2, "Exit code 1", error=True),
        )
        assert (payload["outcome"]["exit_code"], payload["outcome"]["error"]) == (1, "Exit code 1")

    def test_a_passing_bash_result_keeps_its_whole_output(self) -> None:
        """A completed Bash result is handed to the fold in full, header lines included."""
        output = "Running ExUnit with seed: 1\n" + "\n".join(f"line {i}" for i in range(50))
        output += "\n297 tests, 11 failures"
        (end,) = [
            e
            for e in events(
                prompt(1, "Test"),
                tool_use(2, "Bash", {"command": "mix test | tail -30"}),
                tool_result(3, 2, output, structured={"stdout": output, "interrupted": False}),
            )
            if e.payload.get("status") == "completed"
        ]
        assert end.payload["outcome"]["output"] == output

    def test_a_persisted_output_preview_is_replaced_by_the_whole_output(self) -> None:
        """A result too large for the model (a preview) gives the fold toolUseResult's stdout."""
        preview = (
            "<persisted-output>\nOutput too large (141KB). Full output saved to: "
            "/p/tool-results/toolu_2.txt\n\nPreview (first 2KB):\nRunning ExUnit\n"
            "</persisted-output>"
        )
        stdout = "Running ExUnit\n" + "." * 5000 + "\n297 tests, 11 failures"
        (end,) = [
            e
            for e in events(
                prompt(1, "Test"),
                tool_use(2, "Bash", {"command": "mix test | tail -30"}),
                tool_result(3, 2, preview, structured={"stdout": stdout, "stderr": ""}),
            )
            if e.payload.get("status") == "completed"
        ]
        assert end.payload["outcome"]["output"] == stdout


class TestWorkingDirectory:
    def test_the_first_message_of_a_run_carries_the_cwd(self) -> None:
        """Each prompt starts a run, and its message carries the record's cwd."""
        out = events(prompt(1, "Fix checkout"), prompt(2, "Now the tests"))
        assert [e.payload.get("cwd") for e in out] == [CWD, CWD]

    def test_a_changed_cwd_is_sent_again_within_a_run(self) -> None:
        """When the cwd changes mid-run, the next message carries the new one."""
        text = {"id": "msg_9", "role": "assistant", "content": [{"type": "text", "text": "Done"}]}
        text["stop_reason"] = "end_turn"
        out = events(prompt(1, "Fix checkout"), base(2, type="assistant", message=text, cwd="/tmp"))
        assert [e.payload.get("cwd") for e in out] == [CWD, "/tmp"]

    def test_the_git_branch_goes_with_the_cwd(self) -> None:
        """``gitBranch`` says the directory is a git work tree: sent with the cwd, again when
        it changes; an empty one (no repository) is not sent."""
        out = events(
            prompt(1, "Fix", gitBranch=""),
            prompt(2, "Go", gitBranch="main"),
            prompt(3, "On", gitBranch="main"),
            prompt(4, "More", gitBranch="fix/a"),
        )
        assert [e.payload.get("git_branch") for e in out] == [None, "main", "main", "fix/a"]

    def test_tool_events_do_not_carry_the_cwd(self) -> None:
        """Only message and state_transition events carry it."""
        out = events(
            prompt(1, "Go"), tool_use(2, "Read", {"file_path": "a.py"}), tool_result(3, 2, "x")
        )
        assert [e.payload.get("cwd") for e in out if e.event_type == "tool_lifecycle"] == [None] * 3
