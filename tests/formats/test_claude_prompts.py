"""What of a Claude Code user record is the user's request: queued prompts, slash commands, and
the fixed texts the client writes into the transcript, each from minimal real-shaped records."""

from __future__ import annotations

import time

import pytest

from session_memory.core.events import Record, TranscriptEvent
from session_memory.formats import ClaudeCodeAdapter
from session_memory.formats.claude_prompts import prompt_text
from tests.formats.cc_records import (
    events,
    local_command,
    memory,
    prompt,
    prompt_command,
    prompts,
    queued,
    text_reply,
    turn_end,
)

TASK_REGISTRATION = (
    '{"task_id":"ba03ea8","tool_use_id":"toolu_01VyqY2Zf1qjGAnqXLwErAtX",'
    '"description":"Commit and push from repo root","task_type":"local_bash"}'
)
"""What Claude Code 2.1.4x queues when a call becomes a background task."""


class TestQueue:
    def test_a_queued_task_registration_is_no_request(self) -> None:
        """A queued JSON object naming a background task is the client's, not a prompt."""
        m = memory(
            prompt(1, "now there's some test coverage gaps being reported in CI on that PR"),
            queued(2, TASK_REGISTRATION),
        )
        assert m.current_goal is not None
        assert m.current_goal.text.startswith("now there's some test coverage gaps")
        assert m.earlier_goals == ()

    def test_a_prompt_typed_while_the_agent_is_busy_is_still_a_request(self) -> None:
        """Between task registrations, the text the user queued is their prompt."""
        assert prompts(
            prompt(1, "Fix the share dialog"),
            queued(2, TASK_REGISTRATION),
            queued(3, "ok lets get a pr up for this"),
            queued(4, "", operation="remove"),
        ) == ["Fix the share dialog", "ok lets get a pr up for this"]

    def test_a_queued_slash_command_is_read_when_the_queue_delivers_it(self) -> None:
        """Queued "/model" is the client's own command once delivered; no prompt at all."""
        assert prompts(
            prompt(1, "Implement the plan"),
            queued(2, "/model"),
            queued(3, "", operation="dequeue"),
            *local_command(4, "model", "", "Set model to Opus"),
        ) == ["Implement the plan"]

    def test_a_remove_that_names_its_text_hands_over_that_text(self) -> None:
        """2.1.2xx says which text it removes: only that one is handed to the running turn,
        not the oldest; the other comes with its user record."""
        assert prompts(
            queued(1, "check again"),
            queued(2, "and the lint"),
            queued(3, "and the lint", operation="remove"),
            prompt(4, "check again"),
        ) == ["and the lint", "check again"]

    def test_a_prompt_is_held_until_the_queue_hands_it_over(self) -> None:
        """Typed while the agent works, a prompt comes where the queue hands it over: into
        the running turn (``remove``: marked queued), as a new turn (``dequeue``), or, still
        queued when the read ends, as the user's last words."""

        def said(records: list[Record]) -> list[tuple[object, object]]:
            return [
                (r.payload["content"], r.payload["metadata"])
                for r in records
                if isinstance(r, TranscriptEvent) and r.event_type == "message"
            ]

        records = [prompt(1, "Fix checkout"), queued(2, "also the README")]
        adapter = ClaudeCodeAdapter()
        assert said([e for i, r in enumerate(records) for e in adapter.feed(r, i)]) == [
            ("Fix checkout", {})
        ]
        handed = adapter.feed(queued(3, "", operation="remove"), 3)
        assert said(handed) == [("also the README", {"queued": True})]
        adapter = ClaudeCodeAdapter()
        for i, r in enumerate(records):
            adapter.feed(r, i)
        assert said(adapter.finish()) == [("also the README", {})]


class TestSlashCommands:
    def test_a_command_after_the_local_command_caveat_is_no_request(self) -> None:
        """`/effort mid` is not one the adapter knows by name; the caveat says it is local."""
        assert prompts(
            prompt(1, "find why the ads are not loaded"),
            *local_command(2, "effort", "mid", "Invalid argument: mid."),
            prompt(5, "try again"),
        ) == ["find why the ads are not loaded", "try again"]

    def test_a_command_that_expands_into_a_prompt_is_the_request(self) -> None:
        """A custom command's name and arguments are the request; its expansion is not."""
        records = prompt_command(
            1, "security:review", "all of phase 14 work", "<objective>Review code</objective>"
        )
        assert prompts(*records) == ["/security:review all of phase 14 work"]

    def test_the_caveat_speaks_only_for_the_command_after_it(self) -> None:
        """A prompt command right after a local one is still a request."""
        assert prompts(
            *local_command(1, "model", "", "Set model to Opus"),
            *prompt_command(4, "simplify", "", "Review the changed code for reuse"),
        ) == ["/simplify"]


PLAN_NOTES = (
    "\n\nIf you need specific details from before exiting plan mode (like exact code snippets, "
    "error messages, or content you generated), read the full transcript at: "
    "/Users/k/.claude/projects/-p/3f1c.jsonl"
    "\n\nIf this plan can be broken down into multiple independent tasks, consider using the "
    "TeamCreate tool to create a team and parallelize the work."
)
"""What Claude Code 2.1.4x appends to a plan it hands on after plan mode."""


class TestClientTexts:
    def test_the_notes_after_a_plan_handed_on_are_not_the_users_words(self) -> None:
        """The planning transcript's path and the hint to split the work among a team end the
        prompt that hands on a plan approved in plan mode: the client's, not the plan's; the
        user's own words of the same kind stay."""
        plan = "Implement the following plan:\n\n# Plan: Port the mapper\n\n1. Install deps"
        assert prompts(prompt(1, plan + PLAN_NOTES)) == [plan]
        assert prompts(prompt(1, plan + PLAN_NOTES.split("\n\nIf this")[0])) == [plan]
        own = "plan it. If this plan can be broken down into multiple independent tasks, say so"
        assert prompts(prompt(1, own)) == [own]

    def test_image_placeholders_are_not_the_users_words(self) -> None:
        """ "[Image #1]" marks where an image was pasted; the request is the text around it."""
        content = [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": ""}},
            {"type": "text", "text": "[Image #1] can you fix this?"},
        ]
        assert prompts(prompt(1, content)) == ["can you fix this?"]

    def test_an_ide_s_context_is_not_the_users_words(self) -> None:
        """An IDE extension's blocks before a prompt: the file open is context, the lines
        selected are what "this" refers to; a record of context alone asks nothing."""
        opened = (
            "<ide_opened_file>The user opened the file /p/src/a.py in the IDE. This may or may "
            "not be related to the current task.</ide_opened_file>"
        )
        selected = (
            "<ide_selection>The user selected the lines 12 to 14 from /p/src/a.py:\nx = 1\n"
            "y = 2\n\nThis may or may not be related to the current task.</ide_selection>"
        )
        content = [{"type": "text", "text": opened}, {"type": "text", "text": "fix the parser"}]
        assert prompts(prompt(1, content), prompt(2, opened)) == ["fix the parser"]
        assert prompts(prompt(1, f"{selected}fix this")) == [
            "[selected: /p/src/a.py lines 12-14] fix this"
        ]

    def test_stop_hook_feedback_is_no_request(self) -> None:
        """A stop hook's feedback written as a user record is the hook's, not the user's."""
        feedback = "Stop hook feedback:\n[~/.claude/hooks/check.sh]: 2 tests failing"
        assert prompts(prompt(1, "Fix checkout"), prompt(2, feedback)) == ["Fix checkout"]

    def test_a_summary_record_without_its_flag_is_no_request(self) -> None:
        """The compaction summary's text is never a prompt, flagged or not."""
        summary = (
            "This session is being continued from a previous conversation that ran out of "
            "context. The summary below covers the earlier portion of the conversation.\n\n"
            "Summary:\n1. Primary Request and Intent:\n   Fix checkout"
        )
        assert prompts(prompt(1, "Fix checkout"), prompt(2, summary)) == ["Fix checkout"]

    def test_an_api_error_the_client_wrote_ends_the_run_on_that_error(self) -> None:
        """A synthetic "API Error" message is how the run ended, not the agent's answer; the
        turn's end after it does not say "completed"."""
        error = text_reply(2, "API Error: 529 Overloaded", model="<synthetic>")
        out = events(prompt(1, "Fix checkout"), {**error, "isApiErrorMessage": True}, turn_end(3))
        assert [(e.event_type, e.payload.get("reason")) for e in out] == [
            ("message", None),
            ("terminal", "model_error"),
        ]

    def test_a_client_written_reply_is_no_final_answer(self) -> None:
        """ "No response requested." (model "<synthetic>") is nobody's answer."""
        m = memory(
            prompt(1, "Fix checkout"),
            text_reply(2, "No response requested.", model="<synthetic>"),
        )
        assert not [i for i in m.completed_work if "No response requested" in i.text]


def team_message(sender: str, body: str, **attributes: str) -> str:
    """A message of a Claude Code agent team, as a ``user`` record's text holds it."""
    extra = "".join(f' {name}="{value}"' for name, value in attributes.items())
    return f'<teammate-message teammate_id="{sender}"{extra}>\n{body}\n</teammate-message>'


class TestAgentTeams:
    def test_the_lead_s_words_and_a_task_assigned_ask_a_teammate_for_work(self) -> None:
        """In a teammate's session, the lead's message and a task assigned to it are its
        requests; the lead's shutdown request is the team's notice, no request."""
        assignment = (
            '{"type":"task_assignment","taskId":"8","subject":"FT-1: Implement 9 test stubs",'
            '"description":"Implement all TODO test stubs in Modal.test.tsx",'
            '"assignedBy":"team-lead","timestamp":"2026-02-11T15:21:00.000Z"}'
        )
        shutdown = '{"type":"shutdown_request","requestId":"s-1","reason":"All done."}'
        assert prompts(
            prompt(1, team_message("team-lead", "You are frontend-3d. Fix purity violations.")),
            prompt(2, team_message("team-lead", assignment)),
            prompt(3, team_message("team-lead", shutdown)),
        ) == [
            "team-lead: You are frontend-3d. Fix purity violations.",
            "team-lead assigned task #8: FT-1: Implement 9 test stubs\n"
            "Implement all TODO test stubs in Modal.test.tsx",
        ]

    def test_the_lead_s_briefing_comes_before_the_tasks_delivered_with_it(self) -> None:
        """A teammate's first record may hold a task assigned to it before the lead's
        briefing (who it is on the team): the briefing is read first, then the task, so a
        quote of the request's head says who the session is."""
        assignment = (
            '{"type":"task_assignment","taskId":"17","subject":"UI-6: Add i18n strings",'
            '"description":"Add the profile keys to app_en.arb","assignedBy":"team-lead"}'
        )
        briefing = "You are ui-dev on the VPN team. You build the presentation layer."
        both = f"{team_message('team-lead', assignment)}\n\n{team_message('team-lead', briefing)}"
        assert prompts(prompt(1, both)) == [
            f"team-lead: {briefing}\n\n"
            "team-lead assigned task #17: UI-6: Add i18n strings\n"
            "Add the profile keys to app_en.arb"
        ]

    def test_a_teammate_s_report_and_the_team_s_notices_ask_the_lead_nothing(self) -> None:
        """In the lead's session, a teammate's report and its idle notices are no requests:
        the user's own request stays the goal."""
        idle = '{"type":"idle_notification","from":"ui-dev","idleReason":"available"}'
        report = team_message("ui-dev", "UI-5 and UI-7 are complete.", color="yellow")
        m = memory(
            prompt(1, "Build multi-profile support with a team of four"),
            prompt(2, f"{report}\n\n{team_message('ui-dev', idle, color='yellow')}"),
            prompt(3, team_message("system", '{"type":"teammate_terminated","message":"x"}')),
        )
        assert m.current_goal is not None
        assert m.current_goal.text == "Build multi-profile support with a team of four"
        assert m.earlier_goals == ()

    @pytest.mark.parametrize(
        "opening", ['<teammate-message teammate_id="team-lead">x ', "<teammate-message a "]
    )
    def test_an_unclosed_team_message_is_read_in_linear_time(self, opening: str) -> None:
        """A message never closed, its body a megabyte of spaces, costs about ten times a
        tenth of it (not a hundred)."""

        def seconds(size: int) -> float:
            started = time.process_time()
            prompt_text(opening + " " * size + "y")
            return time.process_time() - started

        small, large = seconds(100_000), seconds(1_000_000)
        assert large < 30 * max(small, 0.02)
