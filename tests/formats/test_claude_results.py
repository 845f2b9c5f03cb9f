"""How a Claude Code plan awaiting approval reaches the fold: ExitPlanMode's call, its result
or its absence, from minimal real-shaped records."""

from __future__ import annotations

from tests.formats.cc_records import events, memory, prompt, text_reply, tool_result, tool_use

PLAN = "# Plan: Move the + button\n\n1. Remove it from the search input\n2. Add it to the right"
REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). To tell you how to proceed, "
    "the user said:\nkeep it inside the sidebar, just to the right of the search"
)


def plan_events(*records: dict[str, object]) -> list[tuple[str, dict[str, object]]]:
    return [
        (str(e.payload["status"]), e.payload)
        for e in events(*records)
        if e.event_type == "tool_lifecycle" and e.payload["tool_name"] == "ExitPlanMode"
    ]


class TestPlanAwaitingApproval:
    def test_a_plan_never_answered_is_an_open_call_with_its_plan(self) -> None:
        """The session ended while the plan waited: requested and started, the plan in args."""
        seen = plan_events(
            prompt(1, "move the + button"), tool_use(2, "ExitPlanMode", {"plan": PLAN})
        )
        assert [status for status, _ in seen] == ["requested", "started"]
        assert seen[-1][1]["args"] == {"plan": PLAN}

    def test_a_rejected_plan_is_rejected_with_the_users_words(self) -> None:
        """The user turned the plan down and said why: a rejected outcome, their words kept."""
        seen = plan_events(
            prompt(1, "move the + button"),
            tool_use(2, "ExitPlanMode", {"plan": PLAN}),
            tool_result(3, 2, REJECTED, error=True, structured="Error: " + REJECTED),
        )
        status, payload = seen[-1]
        assert status == "completed"
        assert payload["outcome"] == {
            "status": "rejected",
            "exit_code": None,
            "output": "keep it inside the sidebar, just to the right of the search",
            "error": "User rejected tool use: keep it inside the sidebar, just to the right "
            "of the search",
        }

    def test_a_plan_refused_with_words_is_the_users_answer(self) -> None:
        """What the user said refusing the plan is their answer to it, a key decision; the
        refusal is no failed attempt. Refused without words, it is one."""
        m = memory(
            prompt(1, "move the + button"),
            tool_use(2, "ExitPlanMode", {"plan": PLAN}),
            tool_result(3, 2, REJECTED, error=True, structured="Error: " + REJECTED),
        )
        assert m.failed_attempts == ()
        [answer] = [i.text for i in m.key_decisions if i.text.startswith("user answered")]
        assert "keep it inside the sidebar" in answer and "Move the + button" in answer
        m = memory(
            prompt(1, "move the + button"),
            tool_use(2, "ExitPlanMode", {"plan": PLAN}),
            tool_result(3, 2, "User rejected tool use", error=True),
        )
        assert [i.kind for i in m.failed_attempts] == ["tool_failed"]

    def test_an_approved_plan_completes_with_the_plan(self) -> None:
        """Approval completes the call, and the plan the result holds is its text."""
        seen = plan_events(
            prompt(1, "move the + button"),
            tool_use(2, "ExitPlanMode", {"plan": PLAN}),
            tool_result(3, 2, "User has approved your plan.", structured={"plan": PLAN}),
            text_reply(4, "Moving it now."),
        )
        status, payload = seen[-1]
        assert status == "completed"
        assert payload["outcome"]["status"] == "completed"  # type: ignore[index]
        assert payload["args"] == {"plan": PLAN}


class TestStaleEdits:
    def test_an_edit_of_a_file_not_as_last_seen_is_stale(self) -> None:
        """Edit's "File has not been read yet" and "String to replace not found": the call
        failed because the file was not as the agent saw it, a stale outcome."""
        for error in (
            "<tool_use_error>File has not been read yet. Read it first before writing to it."
            "</tool_use_error>",
            "<tool_use_error>String to replace not found in file.\nString: foo()</tool_use_error>",
        ):
            seen = [
                e.payload["outcome"]
                for e in events(
                    prompt(1, "rename it"),
                    tool_use(2, "Edit", {"file_path": "/p/a.py", "old_string": "foo()"}),
                    tool_result(3, 2, error, error=True),
                )
                if e.event_type == "tool_lifecycle" and e.payload["status"] == "failed"
            ]
            [outcome] = seen  # the call failed: its event says so
            assert isinstance(outcome, dict) and outcome["status"] == "stale"
