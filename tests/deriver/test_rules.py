"""One example per derivation rule (docs/rules.md)."""

from __future__ import annotations

from itertools import count
from typing import Any

import pytest

from deriver import SessionMemoryDeriver
from deriver.recording import decision
from deriver.store import MemoryStore
from deriver.token_budget import TokenArithmetic
from session_memory.core.errors import ConfigError
from session_memory.core.memory import SessionMemory
from session_memory.core.redact import quote_untrusted
from session_memory.core.tokens import DEFAULT_ENCODING, counter
from viewbuilder import render_memory

_ids = count()


def event(event_type: str, run_id: str = "run-1", **payload: Any) -> dict[str, Any]:
    n = next(_ids)
    return {
        "event_id": f"evt-{n}",
        "session_id": "s-1",
        "run_id": run_id,
        "step": n,
        "event_type": event_type,
        "payload": payload,
    }


def user(content: str, **metadata: Any) -> dict[str, Any]:
    return event("message", role="user", content=content, metadata=metadata)


def assistant(content: str, **metadata: Any) -> dict[str, Any]:
    return event("message", role="assistant", content=content, metadata=metadata)


def tool(
    status: str, name: str, call_id: str = "c1", run_id: str = "run-1", **fields: Any
) -> dict[str, Any]:
    return event(
        "tool_lifecycle",
        run_id=run_id,
        tool_name=name,
        tool_call_id=call_id,
        status=status,
        **fields,
    )


def call(
    name: str,
    args: dict[str, Any],
    outcome: str = "completed",
    call_id: str = "c1",
    run_id: str = "run-1",
    **fields: Any,
) -> list[dict[str, Any]]:
    """The whole lifecycle of one tool call."""
    return [
        tool("requested", name, call_id, run_id, args=args),
        tool("started", name, call_id, run_id, args=args),
        tool(outcome, name, call_id, run_id, **fields),
    ]


def derive(*events: dict[str, Any] | list[dict[str, Any]], budget: int = 1200) -> SessionMemory:
    flat: list[dict[str, Any]] = []
    for e in events:
        flat.extend(e if isinstance(e, list) else [e])
    return SessionMemoryDeriver.rebuild(flat, budget_tokens=budget).memory


def texts(items: tuple[Any, ...]) -> list[str]:
    return [i.text for i in items]


class TestGoal:
    def test_user_message_becomes_goal(self) -> None:
        """The latest real user request is the current goal, verbatim."""
        memory = derive(user("Refactor the auth module\nkeep the API stable"))
        assert memory.current_goal is not None
        assert memory.current_goal.text == "Refactor the auth module\nkeep the API stable"

    def test_new_request_keeps_previous_goal_as_earlier(self) -> None:
        """A new request replaces the goal; the previous one stays as an earlier goal."""
        memory = derive(user("Fix the login bug"), user("Now add rate limiting"))
        assert memory.current_goal is not None
        assert memory.current_goal.text == "Now add rate limiting"
        assert texts(memory.earlier_goals) == ["“Fix the login bug”"]

    def test_completion_gate_message_is_not_a_goal(self) -> None:
        """A synthetic completion_gate user message does not replace the goal."""
        memory = derive(user("Fix the login bug"), user("Verify first", source="completion_gate"))
        assert memory.current_goal is not None
        assert memory.current_goal.text == "Fix the login bug"

    @pytest.mark.parametrize("reply", ["continue", "yes", "ok", "继续", "Go on."])
    def test_acknowledgement_is_not_a_goal(self, reply: str) -> None:
        """A short reply that continues the task is an answer, not made the goal."""
        memory = derive(user("Fix the login bug"), user(reply))
        goal = memory.current_goal
        assert goal is not None
        assert goal.text == "Fix the login bug"
        assert memory.earlier_goals == ()
        assert [i.kind for i in memory.where_stands] == ["answered"]

    def test_goal_records_provenance(self) -> None:
        """The goal says which event it came from."""
        e = user("Fix it")
        goal = derive(e).current_goal
        assert goal is not None
        assert (goal.event_id, goal.step, goal.run_id) == (e["event_id"], e["step"], "run-1")


class TestToolCalls:
    def test_completed_edit_is_a_file_changed_where_the_session_stands(self) -> None:
        """A completed Edit is no milestone: the file shows as changed where the session
        stands."""
        memory = derive(call("Edit", {"file_path": "src/a.py"}))
        assert memory.completed_work == ()
        assert texts(memory.where_stands) == ["files changed: `src/a.py`"]
        assert memory.todo_items == ()

    def test_requested_only_call_is_a_replan_todo(self) -> None:
        """A call requested but never started becomes a todo to replan."""
        memory = derive(tool("requested", "Bash", args={"command": "rm -rf build"}))
        [todo] = memory.todo_items
        assert todo.status == "replan"
        assert todo.text == "Bash `rm -rf build`"

    def test_started_only_edit_is_uncertain(self) -> None:
        """A started, unfinished Edit is an uncertain todo, not safe to replay; no warning
        repeats it."""
        memory = derive(call("Edit", {"file_path": "src/a.py"})[:2])
        [todo] = memory.todo_items
        assert (todo.status, todo.safe_to_replay) == ("uncertain", False)
        assert "src/a.py" in todo.text
        assert memory.verification_status == ()

    def test_a_clean_tree_settles_an_edit_left_open(self) -> None:
        """An edit whose result was never written (the session resumed), then a status that
        says the tree is clean: nothing of it is pending, taken or not."""
        clean = "On branch main\nnothing to commit, working tree clean\n"
        memory = derive(call("Edit", {"file_path": "src/a.py"})[:2],
                        bash("git status", clean, "g1"))  # fmt: skip
        assert memory.todo_items == ()

    def test_started_only_read_is_safe_to_replay(self) -> None:
        """A read-only call that never finished is uncertain but safe to replay."""
        memory = derive(call("Read", {"file_path": "a.py"})[:2])
        [todo] = memory.todo_items
        assert todo.safe_to_replay is True

    def test_finishing_the_call_clears_the_todo_and_warning(self) -> None:
        """Once the call completes, neither the todo nor the warning remain."""
        memory = derive(call("Bash", {"command": "ls"}))
        assert memory.todo_items == ()
        assert memory.verification_status == ()

    def test_a_call_cut_off_by_a_compaction_and_done_again_is_settled(self) -> None:
        """A test run whose result a compaction cut off, run again after it (the same check,
        as wide), is done over: no longer uncertain. Done again before a compaction, or a
        narrower run, settles nothing: the first may still end."""
        cut = call("Bash", {"command": "python -m pytest tests/ -v"}, call_id="t1")[:2]
        again = bash("pytest tests/ -v", "5 passed in 0.1s", "t2")
        compaction = event("checkpoint", checkpoint_id="ck-1", summary="Goal: test it")
        memory = derive(user("test it"), cut, compaction, again)
        assert memory.todo_items == ()
        memory = derive(user("test it"), cut, again)
        assert len(memory.todo_items) == 1
        narrower = bash("pytest tests/test_a.py", "1 passed in 0.1s", "t3")
        memory = derive(user("test it"), cut, compaction, narrower)
        assert len(memory.todo_items) == 1

    def test_an_edit_cut_off_by_a_compaction_is_settled_by_the_next_edit_of_its_file(
        self,
    ) -> None:
        """An edit whose result a compaction cut off, then another edit of the same file that
        worked (it matched the file's text as it then was): no longer uncertain. An edit of
        another file settles nothing."""
        cut = call("Edit", {"file_path": "src/bookmark.rs"}, call_id="e1")[:2]
        compaction = event("checkpoint", checkpoint_id="ck-1", summary="Goal: refactor")
        same = call("Edit", {"file_path": "src/bookmark.rs"}, call_id="e2")
        other = call("Edit", {"file_path": "src/mod.rs"}, call_id="e3")
        assert derive(user("refactor"), cut, compaction, same).todo_items == ()
        assert len(derive(user("refactor"), cut, compaction, other).todo_items) == 1

    def test_reused_call_id_across_runs_keeps_calls_apart(self) -> None:
        """Calls are keyed by (run_id, tool_call_id): the same id in two runs is two calls."""
        memory = derive(
            tool("requested", "Edit", "call_1", "run-1", args={"file_path": "a.py"}),
            tool("started", "Edit", "call_1", "run-1", args={"file_path": "a.py"}),
            call("Write", {"file_path": "b.py"}, call_id="call_1", run_id="run-2"),
        )
        [todo] = memory.todo_items
        assert todo.status == "uncertain" and "a.py" in todo.text
        assert "files changed: `b.py`" in texts(memory.where_stands)

    def test_failed_call_is_a_failed_attempt(self) -> None:
        """A failed call records the tool, key argument and the error's first line."""
        memory = derive(
            call("Write", {"file_path": "x.py"}, "failed", error="PermissionError: x.py\nmore")
        )
        [failure] = memory.failed_attempts
        assert failure.text == "Write `x.py`: “PermissionError: x.py”"
        assert failure.status == "open"

    def test_nonzero_exit_is_a_failed_attempt(self) -> None:
        """A completed command that exited non-zero is a failed attempt."""
        memory = derive(
            call("Bash", {"command": "python -c 'import x'"}, result="ImportError", exit_code=1)
        )
        [failure] = memory.failed_attempts
        assert "exited 1" in failure.text

    def test_repeated_failure_counts_up_one_item(self) -> None:
        """The same failure again increments a count instead of adding an item."""
        failing = [
            call("Write", {"file_path": "x.py"}, "failed", call_id=f"c{i}", error="denied")
            for i in range(3)
        ]
        memory = derive(*failing)
        [failure] = memory.failed_attempts
        assert failure.count == 3
        assert "(x3)" in render_memory(memory)

    def test_later_success_resolves_the_failure(self) -> None:
        """A failure whose same call later succeeds is marked resolved."""
        memory = derive(
            call("Write", {"file_path": "x.py"}, "failed", call_id="c1", error="denied"),
            call("Write", {"file_path": "x.py", "content": "v2"}, call_id="c2"),
        )
        [failure] = memory.failed_attempts
        assert failure.status == "resolved"
        assert failure.provenance.closed_by is not None

    def test_reads_are_no_completed_work(self) -> None:
        """Reads are no milestone: they leave no item."""
        reads = [call("Read", {"file_path": f"f{i}.py"}, call_id=f"c{i}") for i in range(8)]
        memory = derive(*reads)
        assert memory.completed_work == ()

    def test_a_file_edited_again_is_named_once(self) -> None:
        """Editing the same file again names it once among the files changed."""
        memory = derive(
            call("Edit", {"file_path": "a.py"}, call_id="c1"),
            call("Edit", {"file_path": "a.py"}, call_id="c2"),
        )
        assert texts(memory.where_stands) == ["files changed: `a.py`"]


class TestTodoTools:
    def test_todo_write_replaces_the_list_verbatim(self) -> None:
        """The latest TodoWrite list becomes the todo items in order, with statuses."""
        memory = derive(
            call("TodoWrite", {"todos": [{"content": "old", "status": "pending"}]}, call_id="c1"),
            call(
                "TodoWrite",
                {
                    "todos": [
                        {
                            "content": "Write tests",
                            "status": "in_progress",
                            "activeForm": "Writing",
                        },
                        {"content": "Ship it", "status": "pending"},
                    ]
                },
                call_id="c2",
            ),
        )
        assert [(i.text, i.status) for i in memory.todo_items] == [
            ("Write tests", "in_progress"),
            ("Ship it", "pending"),
        ]

    def test_a_list_replaced_leaves_no_count_of_its_evicted_steps(self) -> None:
        """Steps of a list the budget left out are replaced with it by the newer list: no
        "+N more todo items" says that open steps remain when none do."""
        long = [{"content": f"Step {i}: " + "wire the importer " * 12, "status": "pending"}
                for i in range(12)]  # fmt: skip
        short = [{"content": "Ship it", "status": "pending"}]
        tight = derive(call("TodoWrite", {"todos": long}, call_id="c1"), budget=400)
        assert tight.omitted.get("todo_items", 0) > 0
        memory = derive(call("TodoWrite", {"todos": long}, call_id="c1"),
                        call("TodoWrite", {"todos": short}, call_id="c2"), budget=400)  # fmt: skip
        assert [i.text for i in memory.todo_items] == ["Ship it"]
        assert memory.omitted.get("todo_items", 0) == 0
        assert memory.tokens_used <= 400

    def test_completed_todos_move_to_completed_work(self) -> None:
        """An item that became completed leaves the list and appears as completed work."""
        memory = derive(
            call(
                "TodoWrite",
                {"todos": [{"content": "Write tests", "status": "pending"}]},
                call_id="c1",
            ),
            call(
                "TodoWrite",
                {"todos": [{"content": "Write tests", "status": "completed"}]},
                call_id="c2",
            ),
        )
        assert memory.todo_items == ()
        assert texts(memory.completed_work) == ["done: Write tests"]

    def test_the_steps_done_are_one_line_with_the_last_few(self) -> None:
        """Six steps done: one line of completed work says how many, and the last four."""
        steps = [f"Step {n}" for n in range(1, 7)]

        def todo_list(done: int, call_id: str) -> list[dict[str, object]]:
            todos = [{"content": t, "status": "completed" if i < done else "pending"}
                     for i, t in enumerate(steps)]  # fmt: skip
            return call("TodoWrite", {"todos": todos}, call_id=call_id)

        memory = derive(*todo_list(0, "c0"), *todo_list(2, "c1"), *todo_list(6, "c2"))
        assert texts(memory.completed_work) == [
            "done: 6 steps, the last: Step 3; Step 4; Step 5; Step 6"
        ]

    @pytest.mark.parametrize(
        "said",
        [
            "The README instructions I just wrote (`ln -s ... ~/.cursor/x`) are wrong.",
            "Then drop the bogus Cursor install instructions I wrote earlier.",
        ],
    )
    def test_a_step_the_agent_later_says_was_wrong_is_no_longer_done(self, said: str) -> None:
        """The agent says work it did is wrong: the step done that the line names (by most
        of its words) is no longer shown done, even when the list marks it done again."""
        todos = [
            {"content": "Create the plugin manifest", "status": "completed"},
            {"content": "Update README Cursor install instructions", "status": "completed"},
        ]
        memory = derive(
            call("TodoWrite", {"todos": todos}, call_id="c1"),
            assistant(f"Found the real picture.\n\n{said}", action_type="final"),
            call("TodoWrite", {"todos": todos}, call_id="c2"),
        )
        assert texts(memory.completed_work) == ["done: Create the plugin manifest"]

    def test_a_line_that_says_no_work_of_the_agent_wrong_retracts_nothing(self) -> None:
        todos = [{"content": "Update README install instructions", "status": "completed"}]
        memory = derive(
            call("TodoWrite", {"todos": todos}, call_id="c1"),
            assistant("The README install instructions upstream are wrong; I fixed ours."),
        )
        assert texts(memory.completed_work) == ["done: Update README install instructions"]

    def test_a_verifying_step_marked_done_without_a_check_is_a_warning(self) -> None:
        """ "Test the layout" marked done while no test, build or linter ran since it was
        planned is no verification: a warning says so; with a check run it is done."""
        plan = [{"content": "Test the layout", "status": "pending"}]
        done = [{"content": "Test the layout", "status": "completed"}]
        unchecked = derive(
            call("TodoWrite", {"todos": plan}, call_id="c1"),
            call("TodoWrite", {"todos": done}, call_id="c2"),
        )
        assert unchecked.completed_work == ()
        assert texts(unchecked.verification_status) == [
            "marked done, but no test, build or linter ran: Test the layout"
        ]
        checked = derive(
            call("TodoWrite", {"todos": plan}, call_id="c3"),
            bash("npm test", "Tests: 3 passed, 3 total", "c4"),
            call("TodoWrite", {"todos": done}, call_id="c5"),
        )
        assert texts(checked.completed_work) == ["done: Test the layout"]

    def test_update_plan_feeds_the_todo_list(self) -> None:
        """Codex update_plan steps become todo items."""
        memory = derive(
            call("update_plan", {"plan": [{"step": "Read code", "status": "in_progress"}]})
        )
        assert [(i.text, i.status) for i in memory.todo_items] == [("Read code", "in_progress")]

    def test_a_closing_message_leaves_the_plan_as_it_stands(self) -> None:
        """The agent's closing message does not end the plan's open steps: the list says what
        is open, and the closing message (in full where the session stands) says why."""
        plan = {"plan": [{"step": "Note the change in the changelog", "status": "pending"}]}
        memory = derive(
            call("update_plan", plan, call_id="c1"),
            assistant("Search is fixed; the changelog entry is still open.", action_type="final"),
        )
        assert texts(memory.todo_items) == ["Note the change in the changelog"]

    def test_a_new_request_after_the_turn_ended_leaves_the_old_plan_behind(self) -> None:
        """A plan is the plan of the request it was written for: once the agent worked on
        past its last update, ended the turn and the user asks for something new, its steps
        still open are not todos (the closing message says how that work ended). An answer
        ("yes") keeps them, and so does a plan left as it stood when the agent stopped."""
        plan = {"plan": [{"step": "Run combined verification and commit", "status": "pending"}]}
        commit = bash('git commit -am "README"', "[main 1a2b3c4] README", "g1")
        closing = assistant("Committed the README update.", action_type="final")
        answered = derive(
            user("Update the README"),
            call("update_plan", plan, call_id="c1"),
            commit,
            closing,
            user("yes"),
        )
        assert texts(answered.todo_items) == ["Run combined verification and commit"]
        moved_on = derive(
            call("update_plan", plan, call_id="c2"),
            bash('git commit -am "README"', "[main 1a2b3c4] README", "g2"),
            closing,
            user("Now add a diagram section"),
        )
        assert moved_on.todo_items == ()
        left_as_it_stood = derive(
            call("update_plan", plan, call_id="c3"),
            assistant("The verification step is still open.", action_type="final"),
            user("Now add a diagram section"),
        )
        assert texts(left_as_it_stood.todo_items) == ["Run combined verification and commit"]
        still_working = derive(call("update_plan", plan, call_id="c4"), user("Also add a diagram"))
        assert texts(still_working.todo_items) == ["Run combined verification and commit"]

    def test_a_verifying_step_whose_checks_passed_is_done_at_the_turns_end(self) -> None:
        """A step that verifies the work ("Verify: …", "Run the tests"), in progress, with
        checks passed since it began and the latest of them too, was done when the agent
        closed its turn, though the list never said so. A failing last check, checks that
        passed only before it began, or a step that does not verify keep it open."""

        def plan(step: str, n: int) -> list[dict[str, Any]]:
            return call("update_plan", {"plan": [{"step": step, "status": "in_progress"}]},
                        call_id=f"p{n}")  # fmt: skip

        passed = bash("pytest -q", "3 passed in 0.1s", "c1")
        failed = bash("pytest -q", "1 failed, 2 passed in 0.1s", "c2", exit_code=1)
        closing = assistant("Checks pass; the PR is open.", action_type="final")
        verify = "Verify: lint, tests, then open the PR"
        assert derive(plan(verify, 1), passed, closing).todo_items == ()
        assert texts(derive(plan(verify, 2), passed, failed, closing).todo_items) == [verify]
        assert texts(derive(passed, plan(verify, 3), closing).todo_items) == [verify]
        other = "Update the changelog"
        assert texts(derive(plan(other, 4), passed, closing).todo_items) == [other]

    def test_a_step_naming_its_checks_is_done_once_each_passed(self) -> None:
        """A step in progress that names its checks by their programs ("Run ruff, mypy, and
        pytest") is done once each passed after it began, though the list never said so and
        the turn goes on; one of them alone, or a step that also pushes, stays open."""
        step = "Run ruff, mypy, and pytest to verify all fixes"

        def plan(text: str) -> list[dict[str, Any]]:
            return call("update_plan", {"plan": [{"step": text, "status": "in_progress"}]},
                        call_id="p1")  # fmt: skip

        lint = bash("uv run ruff check . && echo --- && uv run mypy .", "Success", "c1")
        tests = bash("uv run pytest", "354 passed, 7 skipped in 9.1s", "c2")
        assert derive(plan(step), lint, tests).todo_items == ()
        assert texts(derive(plan(step), lint).todo_items) == [step]
        assert texts(derive(lint, tests, plan(step)).todo_items) == [step]
        pushing = "Run pytest, then commit and push"
        assert texts(derive(plan(pushing), tests).todo_items) == [pushing]

    def test_passing_test_command_is_verification(self) -> None:
        """A pytest run that passed is a passed check with its counts."""
        memory = derive(
            call(
                "Bash",
                {"command": "pytest -q"},
                result="===== 12 passed in 1.0s =====",
                exit_code=0,
            )
        )
        [check] = memory.verification_status
        assert check.status == "passed"
        assert check.text == "`pytest -q` (12 passed)"

    def test_failing_test_command_is_failed_verification(self) -> None:
        """A pytest run with failures is a failed check with its counts."""
        memory = derive(
            call("Bash", {"command": "pytest"}, result="3 failed, 12 passed in 0.2s", exit_code=1)
        )
        [check] = memory.verification_status
        assert check.status == "failed"
        assert "3 failed" in check.text and "12 passed" in check.text

    def test_edit_after_passing_check_makes_it_stale(self) -> None:
        """A later edit marks an earlier passing check stale until it runs again."""
        passing: dict[str, Any] = {"result": "5 passed in 0.1s", "exit_code": 0}
        memory = derive(
            call("Bash", {"command": "pytest"}, call_id="c1", **passing),
            call("Edit", {"file_path": "a.py"}, call_id="c2"),
        )
        [check] = memory.verification_status
        assert check.status == "stale"
        assert "passed before later edits" in render_memory(memory)
        rerun = derive(
            call("Bash", {"command": "pytest"}, call_id="c1", **passing),
            call("Edit", {"file_path": "a.py"}, call_id="c2"),
            call("Bash", {"command": "pytest"}, call_id="c3", **passing),
        )
        [check] = rerun.verification_status
        assert check.status == "passed"

    def test_stop_hook_blocking_is_verification(self) -> None:
        """stop_hook_blocking says completion is blocked pending verification."""
        memory = derive(event("state_transition", reason="stop_hook_blocking", details="tests"))
        [item] = memory.verification_status
        assert item.status == "blocked"

    def test_terminal_event_says_how_the_run_ended(self) -> None:
        """A run that did not complete says how it ended, where the session stands."""
        memory = derive(event("terminal", reason="max_steps", details={"max_steps": 44}))
        assert texts(memory.where_stands) == [
            "the last run did not complete: stopped at the step limit (44 steps)"
        ]
        assert memory.verification_status == ()

    def test_a_completed_run_has_no_line_of_its_own(self) -> None:
        """A run that completed qualifies the agent's last message and adds no line."""
        memory = derive(
            user("Fix it"),
            assistant("Fixed.", action_type="final"),
            event("terminal", reason="completed", details={"duration_ms": 900}),
        )
        assert texts(memory.where_stands) == [
            "last run completed; the agent's last message: “Fixed.”"
        ]
        assert memory.verification_status == ()

    @pytest.mark.parametrize(
        ("payload", "text"),
        [
            ({"reason": "interrupted", "details": {"by": "user"}}, "interrupted by the user"),
            ({"reason": "interrupted", "details": {"cause": "review ended"}},
             "interrupted (review ended)"),
            ({"reason": "error", "details": {"error": "RateLimitError: 429"}},
             "stopped by an error: \u201cRateLimitError: 429\u201d"),
        ],
    )  # fmt: skip
    def test_terminal_reason_is_readable_without_the_run_id(
        self, payload: dict[str, Any], text: str
    ) -> None:
        """The run's ending is said in words, never as a bare run id."""
        memory = derive(event("terminal", run_id="1a2252ee-fde8-4a8f", **payload))
        [item] = memory.where_stands
        assert item.text == f"the last run did not complete: {text}"
        assert "1a2252ee" not in render_memory(memory)

    def test_ending_of_an_earlier_turn_goes_when_a_new_turn_starts(self) -> None:
        """An interruption is about the last run only: a later turn removes it."""
        memory = derive(
            user("Fix the parser"),
            event("terminal", reason="interrupted", details={"by": "user"}),
            user("go on, but skip the slow tests", run_id="run-2"),
        )
        assert memory.verification_status == ()
        assert not any("did not complete" in t for t in texts(memory.where_stands))


class TestDecisionsAndFailures:
    def test_checkpoint_is_a_key_decision(self) -> None:
        """A checkpoint is a key decision with the first line of its summary."""
        memory = derive(event("checkpoint", checkpoint_id="ck-1", summary="Goal: X\nmore"))
        assert texts(memory.key_decisions) == ["checkpoint `ck-1`: “Goal: X”"]

    def test_context_compacted_is_a_key_decision(self) -> None:
        """A context_compacted transition is a key decision."""
        memory = derive(event("state_transition", reason="context_compacted"))
        assert texts(memory.key_decisions) == ["context compacted"]

    def test_the_latest_compaction_stands_for_the_earlier_ones(self) -> None:
        """That the context was compacted is said once, by the latest compaction."""
        memory = derive(
            event("state_transition", reason="context_compacted", details={"trigger": "auto"}),
            event("checkpoint", checkpoint_id="ck-1", summary="Goal: X"),
            event("state_transition", reason="context_compacted"),
        )
        assert texts(memory.key_decisions) == ["context compacted"]

    def test_decision_markers_are_key_decisions(self) -> None:
        """metadata.decision and assistant lines starting 'Decision:' are key decisions."""
        memory = derive(
            assistant("Looked around.\nDecision: use PostgreSQL\nok"),
            assistant("x", decision="keep the v1 API"),
        )
        assert texts(memory.key_decisions) == ["use PostgreSQL", "keep the v1 API"]

    def test_model_recovery_failed_is_a_failed_attempt(self) -> None:
        """model_recovery_failed is a failed attempt."""
        memory = derive(event("state_transition", reason="model_recovery_failed", details="429"))
        [failure] = memory.failed_attempts
        assert failure.text == "model recovery failed: “429”"

    def test_final_answer_is_where_the_session_stands(self) -> None:
        """An assistant final answer is the agent's last message, not completed work."""
        memory = derive(assistant("All done: tests pass.", action_type="final"))
        assert memory.completed_work == ()
        assert texts(memory.where_stands) == ["the agent's last message: “All done: tests pass.”"]

    def test_plan_mode_exit_is_a_decision(self) -> None:
        """An approved plan (ExitPlanMode) is a key decision."""
        memory = derive(call("ExitPlanMode", {"plan": "1. Add cache\n2. Test"}))
        assert texts(memory.key_decisions) == [f"approved plan: {quote_untrusted('1. Add cache')}"]


class TestBudgetAndBookkeeping:
    def test_impossible_budget_is_a_config_error(self) -> None:
        """A budget too small for the fixed skeleton fails at construction."""
        with pytest.raises(ConfigError, match="use at least"):
            SessionMemoryDeriver(budget_tokens=50)

    def test_eviction_leaves_markers_and_counts(self) -> None:
        """Items dropped for the budget are counted in omitted and marked in the text."""
        commits = [
            bash(f'git commit -m "port module {i}"', f"[main {i + 1:07x}] port module {i}", f"c{i}")
            for i in range(80)
        ]
        memory = derive(user("Refactor everything"), *[e for c in commits for e in c], budget=300)
        omitted = memory.omitted["completed_work"]
        assert omitted > 0
        assert len(memory.completed_work) + omitted == 79  # the last one: where it stands
        assert f"+{omitted} earlier completed items" in render_memory(memory)
        assert memory.omitted_kinds == {"commit": omitted}

    def test_evicted_requests_come_back_when_room_frees(self) -> None:
        """A request evicted while a long last message took the room comes back, counted
        exactly and in its place, once the memory read later has room for it."""
        requests = [
            user(f"Add report {i} to the admin page of the billing service") for i in range(20)
        ]
        long_reply = assistant(
            " ".join(["The report needs a new query."] * 60), action_type="final"
        )
        tight = derive(*requests, long_reply, budget=250)
        done = derive(*requests, long_reply, assistant("Done.", action_type="final"), budget=250)
        assert done.omitted["earlier_goals"] < tight.omitted["earlier_goals"]
        assert len(done.earlier_goals) + done.omitted["earlier_goals"] == 19
        rendered = render_memory(done)
        assert done.tokens_used == counter().count(rendered) <= 250
        shown = [item.text for item in done.earlier_goals]
        assert shown == sorted(shown, key=lambda text: int(text.split()[2]))

    def test_a_decision_evicted_twice_comes_back_once(self) -> None:
        """The same decision taken again after its item was evicted, and evicted again: the
        memory read later with room brings it back once, the latest."""
        store = MemoryStore(TokenArithmetic(counter(DEFAULT_ENCODING)), 150, 40)
        stamp = ("e", 1)

        def taken(text: str) -> None:
            decision(store, "decision", text, stamp)
            store.fit()

        money = "use Decimal with ROUND_HALF_EVEN for all money arithmetic"
        for batch in range(2):
            taken(money)
            for i in range(8):
                taken(f"keep module {batch}.{i} of the billing service as it is for now")
        assert [i.text for i in store.evicted].count(money) == 2
        back, _ = store.returned(10_000)
        assert [i.text for i in back].count(money) == 1

    def test_open_todos_outlive_completed_work(self) -> None:
        """Under pressure completed work goes first; open todos and the goal stay."""
        edits = [call("Edit", {"file_path": f"src/m{i}.py"}, call_id=f"c{i}") for i in range(80)]
        memory = derive(
            user("Refactor everything"),
            call(
                "TodoWrite", {"todos": [{"content": "Keep me", "status": "pending"}]}, call_id="t"
            ),
            *edits,
            budget=300,
        )
        assert texts(memory.todo_items) == ["Keep me"]
        assert memory.current_goal is not None

    def test_unknown_types_and_fields_are_counted_not_shown(self) -> None:
        """Unknown event types and fields stay out of the memory but are counted."""
        odd = event("telemetry", x=1)
        extra = dict(user("Fix it"), surprise=True)
        memory = derive(odd, extra)
        assert memory.diagnostics.unknown_event_types == {"telemetry": 1}
        assert memory.diagnostics.events_with_unknown_fields == 1
        assert "telemetry" not in render_memory(memory)

    def test_duplicate_event_id_is_ignored(self) -> None:
        """An event whose id was already applied is ignored and counted."""
        e = user("Fix it")
        memory = derive(e, dict(e))
        assert memory.event_count == 1
        assert memory.diagnostics.duplicate_events == 1

    def test_empty_memory_renders_empty(self) -> None:
        """With nothing derived the rendering is the empty string."""
        assert render_memory(derive(event("state_transition", reason="other"))) == ""


class TestFailureLifecycle:
    def test_failure_again_after_success_reopens_and_resolves_again(self) -> None:
        """A resolved failure that recurs is open again, and a later success resolves it."""
        fail = {"error": "denied"}
        v2 = {"file_path": "x.py", "content": "v2"}
        reopened = derive(
            call("Write", {"file_path": "x.py"}, "failed", call_id="c1", **fail),
            call("Write", v2, call_id="c2"),
            call("Write", {"file_path": "x.py"}, "failed", call_id="c3", **fail),
        )
        [failure] = reopened.failed_attempts
        assert (failure.status, failure.count, failure.provenance.closed_by) == ("open", 2, None)
        resolved = derive(
            call("Write", {"file_path": "x.py"}, "failed", call_id="c1", **fail),
            call("Write", v2, call_id="c2"),
            call("Write", {"file_path": "x.py"}, "failed", call_id="c3", **fail),
            call("Write", v2, call_id="c4"),
        )
        [failure] = resolved.failed_attempts
        assert failure.status == "resolved"


class TestSubAgents:
    @pytest.mark.parametrize(
        "description", ["Port the lexer", "Find Phase 14 files and plans", "Explore the auth flow"]
    )
    def test_a_finished_task_is_no_milestone(self, description: str) -> None:
        """A sub-agent's task done ("Port the lexer", "Explore the auth flow") is no line of
        completed work: what it found or made shows in what the agent did and said next,
        and a list of finished tasks tells a resuming agent nothing of where work stands."""
        memory = derive(call("Task", {"description": description}))
        assert memory.completed_work == ()

    @pytest.mark.parametrize(
        "report",
        [
            "I could not finish: the tests fail with ImportError: cannot import name 'writer'.",
            "BLOCKED: I need database credentials to run the integration tests.",
            "## Unable to complete\nThe migration needs a running database.",
        ],
    )
    def test_a_sub_agent_that_says_it_did_not_finish_failed(self, report: str) -> None:
        """A sub-agent whose report opens by saying the task was not done: a failed attempt
        in its words, not completed work (the main agent's claim may rest on it)."""
        memory = derive(call("Task", {"description": "Implement CSV export"}, result=report))
        assert memory.completed_work == ()
        [failure] = memory.failed_attempts
        assert failure.status == "open" and failure.text.startswith("Task `Implement CSV export`")

    def test_a_report_of_work_done_that_tells_of_a_failure_is_no_failure(self) -> None:
        report = "Implemented the export. The old parser failed to handle quotes; fixed that."
        memory = derive(call("Task", {"description": "Implement CSV export"}, result=report))
        assert memory.failed_attempts == () and memory.completed_work == ()

    def test_a_sub_agent_call_naming_no_task_is_no_milestone(self) -> None:
        """Waiting on sub-agents (no description, no prompt) is bookkeeping, not work done."""
        memory = derive(call("wait_agent", {"ids": ["agent-1"], "timeout_ms": 30000}))
        assert memory.completed_work == ()


class TestShellCommands:
    @pytest.mark.parametrize(
        "again",
        ["gh pr checks 7 2>&1; true", "gh pr checks 7 || :", 'gh pr checks 7; echo "exit=$?"'],
    )
    def test_a_line_that_sets_its_own_exit_settles_nothing(self, again: str) -> None:
        """``cmd; true`` exits 0 whatever ``cmd`` did: the failure of ``cmd`` stays open,
        and a check so run has no verdict."""
        memory = derive(
            bash("gh pr checks 7", "Exit code 1", "c1", exit_code=1), bash(again, "", "c2")
        )
        (failure,) = memory.failed_attempts
        assert failure.status == "open"
        assert all(item.status != "passed" for item in memory.verification_status)

    def test_commands_are_no_completed_work(self) -> None:
        """Shell commands, read-only or not, are no milestone: they leave no item."""
        memory = derive(
            call("exec_command", {"cmd": "cat package.json"}, call_id="c1", exit_code=0),
            call("exec_command", {"cmd": "git status --short"}, call_id="c3"),
            call("exec_command", {"cmd": "npm install left-pad"}, call_id="c4"),
        )
        assert memory.completed_work == ()


def bash(command: str, result: str, call_id: str, exit_code: int = 0) -> list[dict[str, Any]]:
    """A shell call that finished, as the adapters emit it (a failure when exit_code != 0)."""
    if exit_code:
        return call("Bash", {"command": command}, "failed", call_id, error=result,
                    exit_code=exit_code)  # fmt: skip
    return call("Bash", {"command": command}, call_id=call_id, result=result, exit_code=0)


EXUNIT_OK = (
    "Running ExUnit with seed: 1\n\nFinished in 5.3 seconds\n14 doctests, 87 tests, 0 failures"
)
EXUNIT_FAILED = (
    "Exit code 2\nRunning ExUnit with seed: 918599, max_cases: 32\n\n"
    "  1) test mount renders the review page (MyAppWeb.ReviewLiveTest)\n"
    "     test/my_app_web/live/review_live_test.exs:58\n"
    "     ** (RuntimeError) no :secret_key_base configuration found in MyAppWeb.Endpoint.\n\n"
    "5 tests, 5 failures\n"
)


GOLANGCI_FAILED = "internal/syncer/syncer.go:665:3: SA9003: empty branch (staticcheck)\n1 issues:\n"


class TestGatesAndPastedRuns:
    def test_a_passing_gate_stands_for_the_failed_runs_it_covers(self) -> None:
        """``mise run lint`` passing after ``golangci-lint run`` failed: the linter's FAILED
        line goes and so does its failure (a linter's finding, fixed); a gate that runs no
        linter leaves them."""
        memory = derive(
            bash("golangci-lint run ./...", GOLANGCI_FAILED, "c1", exit_code=1),
            bash("mise run lint", "[lint:go] 0 issues.", "c2"),
        )
        assert [(i.status, i.text) for i in memory.verification_status] == [
            ("passed", "`mise run lint`")
        ]
        assert memory.failed_attempts == ()
        other = derive(
            bash("golangci-lint run ./...", GOLANGCI_FAILED, "c3", exit_code=1),
            bash("mise run build", "built", "c4"),
        )
        assert "failed" in [i.status for i in other.verification_status]

    def test_a_passing_gate_stands_for_a_gate_of_its_kinds_that_never_ran(self) -> None:
        """``nx lint api`` failed for want of nx ("zsh: command not found: nx"), then ``mise
        run //apps/api:lint`` passed: the gate that ran is the word on the lint, and the
        missing program stays a lesson. A gate of those kinds that ran and failed stays
        FAILED after another gate of them passes (``mise run test`` runs no e2e suite)."""
        memory = derive(
            bash("nx lint api", "zsh: command not found: nx", "c1", exit_code=127),
            bash("mise run //apps/api:lint", "All checks passed!", "c2"),
        )
        assert [i.status for i in memory.verification_status] == ["passed"]
        assert [i.status for i in memory.failed_attempts] == ["resolved"]
        memory = derive(
            bash("mise run test:e2e", "--- FAIL: TestLifecycle (2.1s)\nFAIL", "c1", exit_code=1),
            bash("mise run test", "ok  \tx/internal/pi\t0.2s", "c2"),
        )
        assert "failed" in [i.status for i in memory.verification_status]

    def test_a_passing_gate_replaces_the_stale_passes_it_covers(self) -> None:
        """``go test ./internal/sem`` passed, a file changed, then ``mise run check`` passed:
        the gate's pass is the word on the code as it is, and the stale line goes. A pass
        not stale since stays (a gate may run less), and so does a stale one of a kind the
        gate does not run."""
        memory = derive(
            bash("go test ./internal/sem", "ok  \tx/internal/sem\t0.1s", "c1"),
            bash("golangci-lint run ./...", "0 issues.", "c2"),
            call("Edit", {"file_path": "internal/sem/a.go"}, call_id="c3"),
            bash("go test ./internal/gitutil", "ok  \tx/internal/gitutil\t0.1s", "c4"),
            bash("mise run test", "[test] ok  \tx/internal/sem\t0.1s", "c5"),
        )
        assert [(i.status, i.text.split("`")[1]) for i in memory.verification_status] == [
            ("stale", "golangci-lint run ./..."),
            ("passed", "go test ./internal/gitutil"),
            ("passed", "mise run test"),
        ]

    def test_a_gate_replaces_the_stale_pass_of_a_narrower_gate_of_its_kinds(self) -> None:
        """``mise run rust:lint`` (a gate that runs the linters) passed, a file changed, then
        ``mise run lint`` passed: the stale narrower gate's line goes, as a linter's would."""
        memory = derive(
            bash("mise run rust:lint", "[rust:lint] Finished", "c1"),
            call("Edit", {"file_path": "src/a.rs"}, call_id="c2"),
            bash("mise run lint", "[lint] ok", "c3"),
        )
        assert [(i.status, i.text.split("`")[1]) for i in memory.verification_status] == [
            ("passed", "mise run lint")
        ]

    def test_a_linter_of_some_paths_is_not_stale_after_an_edit_elsewhere(self) -> None:
        """``dart analyze lib/features/`` passed, then only a test file changed: the linter
        read none of it, and its pass still stands; an edit under lib/ makes it stale, and
        a test run of some paths is stale after any edit (tests import the code)."""
        ran = bash("dart analyze lib/features/", "No issues found!", "c1")
        memory = derive(ran, call("Edit", {"file_path": "test/a_test.dart"}, call_id="c2"))
        assert [i.status for i in memory.verification_status] == ["passed"]
        memory = derive(ran, call("Edit", {"file_path": "lib/features/a.dart"}, call_id="c2"))
        assert [i.status for i in memory.verification_status] == ["stale"]
        tests = bash("pytest tests/test_a.py", "1 passed in 0.1s", "c1")
        memory = derive(tests, call("Edit", {"file_path": "src/a.py"}, call_id="c2"))
        assert [i.status for i in memory.verification_status] == ["stale"]
        # The session went into web/ since: the edit is read from the project's root too.
        memory = derive(
            event("message", role="user", content="lint it", cwd="/w/p"),
            ran,
            event("message", role="user", content="now the frontend", cwd="/w/p/web"),
            call("Edit", {"file_path": "/w/p/lib/features/a.dart"}, call_id="c2"),
        )
        assert [i.status for i in memory.verification_status] == ["stale"]

    @pytest.mark.parametrize(
        ("failed", "output", "rerun", "settled"),
        [
            ("mise run check", "[test:ci] --- FAIL: TestPrior (0.00s)\n[test:ci] FAIL\n",
             "mise exec -- go test ./internal/sem -run 'TestPrior|TestBoost'", True),
            ("pytest", "FAILED tests/test_a.py::test_b - assert 1 == 2\n1 failed, 9 passed\n",
             "pytest tests/test_a.py::test_b", True),
            ("make test", "--- FAIL: TestPrior (0.00s)\n--- FAIL: TestOther (0.01s)\nFAIL\n",
             "go test ./... -run TestPrior", False),
            ("mise run check", "[test:ci] --- FAIL: TestPrior (0.00s)\n",
             "go test ./internal/sem -run TestPriorLater", False),
        ],
    )  # fmt: skip
    def test_a_pass_of_the_failing_tests_by_name_settles_the_run_that_failed(
        self, failed: str, output: str, rerun: str, settled: bool
    ) -> None:
        """A gate or suite failed on some tests; after a fix, a run naming each of them
        passed: that failure is fixed (resolved) and its FAILED line goes. A run naming
        only some of them, or other tests, settles nothing."""
        memory = derive(
            bash(failed, output, "c1", exit_code=1),
            bash(rerun, "ok  \tacme/internal/sem\t0.4s\n=== 1 passed ===\n", "c2"),
        )
        statuses = [i.status for i in memory.verification_status]
        assert ("failed" in statuses) is not settled
        assert [f.status for f in memory.failed_attempts] == ["resolved" if settled else "open"]

    def test_a_silent_check_with_no_exit_code_passed(self) -> None:
        """A linter, a formatter's check, a type checker or a build prints nothing when all
        is well: a blank output with no exit code (a Codex code-mode cell reports none)
        passed. A test run that printed nothing says nothing."""

        def unknown_exit(command: str, n: int) -> list[dict[str, Any]]:
            return call("exec_command", {"cmd": command}, call_id=f"x{n}", result="")

        memory = derive(unknown_exit("git diff --check", 1), unknown_exit("tsc --noEmit", 2))
        assert [i.status for i in memory.verification_status] == ["passed", "passed"]
        (tests,) = derive(unknown_exit("pytest -q", 3)).verification_status
        assert tests.status == "warning"

    def test_a_check_the_user_ran_and_pasted_is_a_run(self) -> None:
        """Output the user pasted after a prompt line is that check's run: it replaces the
        agent's failed run of the same test and says who ran it."""
        failed = "--- FAIL: TestRun_SSHDocker (30.0s)\nFAIL\nFAIL\tacme/syncer\t30.1s\n"
        pasted = (
            "works on my machine:\n\u276f mise run test:ssh\n[test:ssh] $ go test ./internal/"
            "syncer -run TestRun_SSHDocker -v\n=== RUN   TestRun_SSHDocker\n"
            "--- PASS: TestRun_SSHDocker (6.15s)\nPASS\nok  \tacme/syncer\t6.4s\n"
        )
        memory = derive(
            user("make the docker test pass"),
            bash("go test ./internal/syncer -run TestRun_SSHDocker -v", failed, "c1",
                 exit_code=1),
            user(pasted),
        )  # fmt: skip
        (line,) = memory.verification_status
        assert line.status == "passed"
        assert line.text.endswith(", run by the user")
        assert [i.status for i in memory.failed_attempts] == ["resolved"]

    def test_a_check_a_pasted_script_went_on_from_is_not_its_failure(self) -> None:
        """A script's output pasted whole: its first step is a check (``$ turbo run typecheck
        lint test``), then other steps run (``$ bun publish``) and one fails. What follows the
        check is not its output: no check failed; the error is the one the user reports."""
        pasted = (
            "i tried to publish via `bun release:manual` but got this error:\n"
            "$ doppler run -- turbo run typecheck lint test\n\u2022 turbo 2.8.9\n"
            "$ bun publish --tag beta --access public\n"
            "404 Not Found: https://registry.example/-/v1/done\n"
            "ERROR: Command failed (1): bun publish --tag beta --access public\n"
            + "".join(f"packed {n}KB dist/file{n}.js\n" for n in range(6))
            + 'error: script "release:manual" exited with code 1\n'
        )
        memory = derive(user(pasted))
        assert memory.verification_status == ()
        # The error is the line that says why, not the script runner's exit code after it.
        assert texts(memory.failed_attempts) == [
            "reported by the user: \u201cERROR: Command failed (1): bun publish --tag beta "
            "--access public\u201d"
        ]

    def test_a_pasted_run_is_no_earlier_goal(self) -> None:
        """A message that is a pasted run (it opens with the prompt line) is the current goal
        while it is the latest; once replaced, the run is in the checks, not a request among
        the earlier goals. A request that quotes a run stays one."""
        pasted = (
            "\u276f mise run test:ssh\n[test:ssh] $ go test ./x\n--- FAIL: TestA (1.0s)\nFAIL\n"
        )
        memory = derive(
            user("add an end-to-end test"),
            user(pasted),
            user("why does this fail?\n" + pasted),
            user("commit it"),
        )
        first, quoting = memory.earlier_goals
        assert first.text == "“add an end-to-end test”"
        assert quoting.text.startswith("“why does this fail?")


class TestChecks:
    def test_runner_summary_in_its_own_words(self) -> None:
        """A passing mix test shows ExUnit's own summary words."""
        memory = derive(bash("mix test 2>&1", EXUNIT_OK, "c1"))
        [check] = memory.verification_status
        assert (check.status, check.text) == (
            "passed",
            "`mix test` (14 doctests, 87 tests, 0 failures)",
        )

    def test_piped_exit_does_not_hide_failures(self) -> None:
        """`mix test | tail -30` exits 0, but the runner said 11 failures: it failed."""
        output = "  1) test a (M)\n     Assertion failed\n\n297 tests, 11 failures\n"
        memory = derive(bash("mix test --seed 0 2>&1 | tail -30", output, "c1"))
        [check] = memory.verification_status
        assert check.status == "failed"
        assert check.text.startswith("`mix test --seed 0` (297 tests, 11 failures)")

    def test_a_filter_that_shows_lines_around_its_matches_tells_no_verdict(self) -> None:
        """``eslint | grep -B1 no-unused-vars`` prints the line before each match too (here
        another rule's error): what it shows says neither pass nor fail."""
        output = (
            "30:10  error  Component definition is missing display name\n"
            "31:7  warning  'x' is assigned a value but never used  no-unused-vars"
        )
        memory = derive(bash('npx eslint src/ | grep -B1 "no-unused-vars"', output, "c1"))
        [check] = memory.verification_status
        assert check.status == "warning" and memory.failed_attempts == ()

    def test_a_filter_that_kept_nothing_tells_no_verdict(self) -> None:
        """``cargo test --lib | grep -E "(test result|passed)"`` printed nothing, its exit 0:
        the summary it looked for never showed, so neither verdict does ("Tests pass." is
        the agent's word, not the run's)."""
        command = 'cargo test --lib | grep -E "(test result|passed)"'
        memory = derive(bash(command, "", "c1"), assistant("Tests pass."))
        [check] = memory.verification_status
        assert check.status == "warning" and check.text.endswith("(outcome unknown)")

    def test_ci_run_locally_is_a_check_of_its_job(self) -> None:
        """``act -j lint`` runs the project's CI job in a container: a check, one per job;
        ``act --list`` only lists the jobs."""
        memory = derive(
            bash("act -j rust-lint --container-architecture linux/amd64", "Job failed", "c1", 1),
            bash("act -j web", "Job succeeded", "c2"),
            bash("act -l", "Stage  Job ID  Job name", "c3"),
        )
        assert [(c.status, c.text.split("`")[1]) for c in memory.verification_status] == [
            ("failed", "act -j rust-lint --container-architecture linux/amd64"),
            ("passed", "act -j web"),
        ]

    def test_a_count_of_problems_is_the_verdict(self) -> None:
        """``analyze | grep -c " error "`` prints how many error lines there were: any is a
        failed run whatever grep's exit (0 when it counted some), none a pass (grep exits 1)."""
        memory = derive(bash('flutter analyze --no-fatal-infos | grep -c " error "', "472", "c1"))
        [check] = memory.verification_status
        assert check.status == "failed"
        memory = derive(bash("npx tsc --noEmit 2>&1 | grep error | wc -l", "0", "c1"))
        [check] = memory.verification_status
        assert check.status == "passed"
        memory = derive(bash('npx tsc --noEmit | grep -c "error TS"', "0", "c1", exit_code=1))
        [check] = memory.verification_status
        assert check.status == "passed" and memory.failed_attempts == ()
        # What the count is, not a line printed before it, says why the run failed.
        counted = 'echo "schema valid" && npx markdownlint-cli2 a.mdx 2>&1 | grep -c "error "'
        memory = derive(bash(counted, "schema valid\n25", "c1"))
        [check] = memory.verification_status
        assert check.text.endswith("(25 problem lines counted)")
        [failure] = memory.failed_attempts
        assert failure.text.endswith(": \u201c25 problem lines counted\u201d")

    def test_a_piped_check_whose_program_is_not_there_did_not_run(self) -> None:
        """``nx lint api | tail`` exits as tail does (0) after "command not found: nx": the
        check did not run, a failure of what the machine lacks, not a pass."""
        output = "zoxide: detected a possible configuration issue.\n\nzsh: command not found: nx"
        memory = derive(bash("nx lint api 2>&1 | tail -40", output, "c1"))
        [check] = memory.verification_status
        assert check.status == "failed" and check.text.endswith(
            "\u201czsh: command not found: nx\u201d"
        )

    def test_failed_check_names_its_failing_tests(self) -> None:
        """A failed check's line lists the tests the runner says failed."""
        memory = derive(bash("mix test", EXUNIT_FAILED, "c1", exit_code=2))
        [check] = memory.verification_status
        assert check.status == "failed"
        assert "(5 tests, 5 failures)" in check.text
        assert "test mount renders the review page" in check.text

    def test_project_gate_is_a_check(self) -> None:
        """`just check` is verification (read with every parser), not completed work."""
        output = (
            "cargo llvm-cov --fail-under-lines 100\n   Compiling util v0.1.0\n"
            "test result: ok. 29 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n"
        )
        memory = derive(bash("just check 2>&1", output, "c1"))
        [check] = memory.verification_status
        assert check.text == "`just check` (test result: ok. 29 passed; 0 failed; 0 ignored)"
        assert memory.completed_work == ()

    def test_one_line_per_check(self) -> None:
        """Runs of the same check in other spellings share one line: the latest result."""
        memory = derive(
            bash("mix test 2>&1 | tail -5", EXUNIT_FAILED, "c1"),
            bash("mix test 2>&1", EXUNIT_OK, "c2"),
        )
        [check] = memory.verification_status
        assert (check.status, check.text) == (
            "passed",
            "`mix test` (14 doctests, 87 tests, 0 failures)",
        )

    def test_broader_run_settles_narrower_ones(self) -> None:
        """A run of the whole suite replaces the lines of earlier runs of single files."""
        memory = derive(
            bash("pytest tests/test_a.py", "=== 3 passed in 0.1s ===", "c1"),
            bash("pytest tests/test_b.py", "=== 1 failed, 2 passed in 0.1s ===", "c2", 1),
            bash("pytest -q", "=== 40 passed in 2.0s ===", "c3"),
        )
        assert [(c.status, c.text) for c in memory.verification_status] == [
            ("passed", "`pytest -q` (40 passed)")
        ]

    def test_a_run_that_goes_into_the_sessions_own_directory_runs_there(self) -> None:
        """``cd /w/p && ruff check`` is a run in the session's own directory, as ``ruff check``
        is: it covers a narrower run in ``/w/p/api`` whose failure it settles."""
        memory = derive(
            event("message", role="user", content="lint it", cwd="/w/p"),
            bash(
                "cd /w/p/api && ruff check a.py", "a.py:1:1: F401 unused\nFound 1 error.", "c1", 1
            ),
            bash("cd /w/p && ruff check", "All checks passed!", "c2"),
        )
        assert [(c.status, c.text) for c in memory.verification_status] == [
            ("passed", "`ruff check` (All checks passed!)")
        ]

    @pytest.mark.parametrize(
        ("output", "said"),
        [("> jest --passWithNoTests\n\nNo tests found, exiting with code 0", "ran no test"),
         ("=== no tests ran in 0.01s ===", "no tests ran")],
    )  # fmt: skip
    def test_a_run_that_found_no_test_is_no_pass(self, output: str, said: str) -> None:
        """Exit 0 with "No tests found": nothing was checked, and the line says so."""
        memory = derive(bash("npm test -- --testPathPattern=shares", output, "c1"))
        [check] = memory.verification_status
        assert check.status == "warning"
        assert check.text.startswith("`npm test -- --testPathPattern=shares` (")
        assert check.text.endswith(f"{said})")

    @pytest.mark.parametrize("command", ["go build ./...", "go vet ./...", "go test ./..."])
    def test_a_run_whose_paths_matched_no_code_is_no_pass(self, command: str) -> None:
        """``go build ./...`` from a directory with no Go code under it (web/frontend) exits
        0 saying its pattern matched no packages: it built nothing, and the line says so."""
        output = 'go: warning: "./..." matched no packages'
        memory = derive(bash(command, output, "c1"))
        [check] = memory.verification_status
        assert (check.status, check.text) == ("warning", f"`{command}` (matched no code)")

    def test_a_linter_after_tests_is_not_a_run_that_found_no_test(self) -> None:
        """``go test ./... | tail -40 && golangci-lint run ./...``: the line is the linter's,
        which runs no tests; a package's "[no tests to run]" above its "0 issues." does not
        make it a run that checked nothing."""
        output = "ok  \tx/src\t(cached) [no tests to run]\nok  \tx/src/cli\t(cached)\n0 issues.\n"
        command = "go test ./... 2>&1 | tail -40 && golangci-lint run ./..."
        memory = derive(bash(command, output, "c1"))
        assert "passed" in [c.status for c in memory.verification_status]
        assert "warning" not in [c.status for c in memory.verification_status]

    def test_narrower_run_keeps_the_broader_line(self) -> None:
        """A later run of one file does not settle the whole suite's line."""
        memory = derive(
            bash("pytest", "=== 40 passed in 2.0s ===", "c1"),
            bash("pytest tests/test_a.py", "=== 3 passed in 0.1s ===", "c2"),
        )
        assert len(memory.verification_status) == 2

    @pytest.mark.parametrize("path", ["README.md", "docs/usage.rst", ".gitignore", "LICENSE"])
    def test_editing_docs_does_not_make_checks_stale(self, path: str) -> None:
        """Documentation and ignore files are read by no check: the pass still stands."""
        memory = derive(
            bash("pytest", "=== 5 passed in 0.1s ===", "c1"),
            call("Edit", {"file_path": path}, call_id="c2"),
        )
        [check] = memory.verification_status
        assert check.status == "passed"

    @pytest.mark.parametrize(
        ("path", "status"),
        [("/tmp/scratch/poll.sh", "passed"), ("~/.config/tool.toml", "passed"),
         ("/home/u/shop/src/cart.py", "stale")],
    )  # fmt: skip
    def test_a_file_outside_the_working_directory_is_no_checked_code(
        self, path: str, status: str
    ) -> None:
        """A scratch script in /tmp is outside the project the checks ran on: the pass still
        stands; a file under the session's working directory makes it stale."""
        memory = derive(
            event("message", role="user", content="fix it", cwd="/home/u/shop"),
            bash("pytest", "=== 5 passed in 0.1s ===", "c1"),
            call("Write", {"file_path": path, "content": "x"}, call_id="c2"),
        )
        [check] = memory.verification_status
        assert check.status == status

    def test_a_project_file_above_the_working_directory_is_checked_code(self) -> None:
        """The agent went into ``assets/``: a file of the project above it is still read by
        the checks run there."""
        memory = derive(
            event("message", role="user", content="fix it", cwd="/home/u/shop/assets"),
            bash("mix compile", "Compiling 3 files (.ex)", "c1"),
            call("Edit", {"file_path": "/home/u/shop/lib/shop/cart.ex"}, call_id="c2"),
        )
        [check] = memory.verification_status
        assert check.status == "stale"

    @pytest.mark.parametrize(
        ("command", "edited", "status"),
        [("cargo check", "agents/bridge.py", "passed"),
         ("cargo clippy -- -D warnings", "web/app.ts", "passed"),
         ("cargo check", "src/main.rs", "stale"),
         ("cargo check", "Cargo.toml", "stale"),
         ("cargo check", "fixtures/orders.json", "stale"),
         ("mypy src", "src/lib.rs", "passed"),
         ("cargo test", "agents/bridge.py", "stale"),
         ("make check", "agents/bridge.py", "stale")],
    )  # fmt: skip
    def test_a_static_check_reads_only_its_own_language(
        self, command: str, edited: str, status: str
    ) -> None:
        """A build, linter or type checker reads its language's sources and files of no
        language: another language's source leaves its pass standing. A test or a gate may
        run anything, so any change makes its pass stale."""
        memory = derive(
            bash(command, "Finished dev profile", "c1"),
            call("Edit", {"file_path": edited}, call_id="c2"),
        )
        [check] = memory.verification_status
        assert check.status == status

    @pytest.mark.parametrize(
        ("later", "stale"),
        [("go build ./... && go test ./...", False), ("go vet ./... && go test ./...", True),
         ("go build ./... ; go test ./...", True), ("go build ./... | tail && go test", True)],
    )  # fmt: skip
    def test_a_check_that_passed_on_the_way_settles_its_old_line(
        self, later: str, stale: bool
    ) -> None:
        """``go build ./... && go test ./...`` exited 0: the build passed too, so its older
        stale line goes (the line shows the test run). Not when the line runs no build, nor
        after a ``;`` or piped into a filter: their exit status says nothing of the build."""
        memory = derive(
            bash("go build ./...", "", "c1"),
            call("Edit", {"file_path": "main.go"}, call_id="c2"),
            bash(later, "ok  \tex.com/app\t0.1s", "c3"),
        )
        lines = texts(memory.verification_status)
        assert any("`go build ./...`" in line for line in lines) is stale

    def test_a_check_failed_before_and_passed_on_the_way_is_resolved(self) -> None:
        """A failed ``go vet`` that passes before the tests of a later line: its FAILED line
        goes and its failure is resolved."""
        memory = derive(
            bash("go vet ./...", "main.go:3:2: unreachable code", "c1", 1),
            call("Edit", {"file_path": "main.go"}, call_id="c2"),
            bash("go vet ./... && go test ./...", "ok  \tex.com/app\t0.1s", "c3"),
        )
        assert not any("FAILED" in line for line in texts(memory.verification_status))
        assert all(f.status == "resolved" for f in memory.failed_attempts)

    @pytest.mark.parametrize("path", ["src/parser.py", "tests/test_parser.py", "pyproject.toml"])
    def test_editing_code_makes_checks_stale(self, path: str) -> None:
        """Source, test and configuration files make an earlier pass stale."""
        memory = derive(
            bash("pytest", "=== 5 passed in 0.1s ===", "c1"),
            call("Edit", {"file_path": path}, call_id="c2"),
        )
        [check] = memory.verification_status
        assert check.status == "stale"

    def test_a_check_run_beside_the_project_goes_stale_only_by_its_files(self) -> None:
        """Tests run in a library checked out beside the project (``cd ../lib``) still hold
        after edits of the project; an edit of the library makes them stale."""
        for edited, status in (("/home/u/app/internal/loader.go", "passed"),
                               ("/home/u/lib/resampler/average.go", "stale")):  # fmt: skip
            memory = derive(
                event("message", role="user", content="add a resampler", cwd="/home/u/app"),
                bash("cd /home/u/lib && go test ./resampler/...", "ok  \tex.com/lib\t0.2s", "c1"),
                call("Edit", {"file_path": edited}, call_id="c2"),
            )
            [check] = memory.verification_status
            assert check.status == status

    def test_a_check_run_beside_the_project_is_that_checkouts_own(self) -> None:
        """The same gate run in a library checked out beside the project (``cd ../lib``) is
        that library's check: it stands beside the project's run, which it does not replace,
        shown with the ``cd`` that says where it ran."""
        gate = "uv run ruff check src/ && uv run pytest tests/"
        memory = derive(
            event("message", role="user", content="publish the types", cwd="/home/u/app"),
            bash(gate, "All checks passed!\n=== 241 passed in 3.1s ===", "c1"),
            bash(f"cd /home/u/lib && {gate}", "All checks passed!\n=== 1 passed in 0.1s ===",
                 "c2"),
        )  # fmt: skip
        assert texts(memory.verification_status) == [
            f"`{gate}` (241 passed)",
            f"`cd ../lib && {gate}` (1 passed)",
        ]

    @pytest.mark.parametrize(
        ("check", "output", "write"),
        [("cargo fmt --check", "Diff in /p/src/app.rs at line 3:\n-let x = 1;\n", "cargo fmt"),
         ("ruff format --check .", "Would reformat: a.py\n1 file would be reformatted",
          "ruff format .")],
    )  # fmt: skip
    def test_a_formatter_run_to_write_fixes_what_its_check_reported(
        self, check: str, output: str, write: str
    ) -> None:
        """``cargo fmt`` after ``cargo fmt --check`` failed wrote the formatting it asked
        for: the FAILED line goes, and its failure with no lesson. A formatter of another
        name fixes nothing of it."""
        failed = bash(check, output, "c1", exit_code=1)
        memory = derive(user("scroll"), failed, bash(write, "", "c2"))
        assert memory.verification_status == () and memory.failed_attempts == ()
        memory = derive(user("scroll"), failed, bash("prettier --write .", "", "c2"))
        assert [c.status for c in memory.verification_status] == ["failed"]

    def test_failed_check_is_a_failed_attempt_with_its_cause(self) -> None:
        """A failed check also records a failed attempt with the line that says why."""
        memory = derive(bash("mix test test/review_live_test.exs 2>&1", EXUNIT_FAILED, "c1", 2))
        [failure] = memory.failed_attempts
        assert failure.status == "open"
        assert failure.text == (
            "Bash `mix test test/review_live_test.exs` exited 2: \u201c** (RuntimeError) no "
            ":secret_key_base configuration found in MyAppWeb.Endpoint.\u201d"
        )

    def test_broader_pass_resolves_the_failure_and_keeps_the_lesson(self) -> None:
        """A later pass of the whole suite resolves a single file's failure; it stays."""
        memory = derive(
            bash("mix test test/review_live_test.exs 2>&1", EXUNIT_FAILED, "c1", 2),
            bash("mix test 2>&1", EXUNIT_OK, "c2"),
        )
        [failure] = memory.failed_attempts
        assert failure.status == "resolved"
        assert "secret_key_base" in failure.text

    def test_each_cause_is_one_failed_attempt(self) -> None:
        """Failing again for the same cause counts up; a new cause is a new lesson."""
        other = EXUNIT_FAILED.replace(
            "no :secret_key_base configuration found", "lazy_html missing"
        )
        memory = derive(
            bash("mix test", EXUNIT_FAILED, "c1", 2),
            bash("mix test", EXUNIT_FAILED, "c2", 2),
            bash("mix test", other, "c3", 2),
        )
        assert [(f.count, "lazy_html" in f.text) for f in memory.failed_attempts] == [
            (2, False),
            (1, True),
        ]

    def test_narrower_pass_does_not_resolve_a_broader_failure(self) -> None:
        """A pass of one file leaves the whole suite's failure open."""
        memory = derive(
            bash("mix test", EXUNIT_FAILED, "c1", 2),
            bash("mix test test/other_test.exs", EXUNIT_OK, "c2"),
        )
        [failure] = memory.failed_attempts
        assert failure.status == "open"
