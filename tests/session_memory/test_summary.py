"""Tests for session_memory.core.summary: the sections of a compaction summary, and how a
native checkpoint states them.

The summaries are minimal texts shaped like the ones MyCodeAgent writes (its heading style),
with this test's own content.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from session_memory.core.summary import (
    MAX_PER_KIND,
    CompactionSummary,
    checkpoint_summary,
    read_markdown_summary,
    section_kind,
    summary_payload,
)

NATIVE = """## Archived Session Summary
*(Contains context from step 1 to step 9)*

### Objectives & Status
* **Original Goal**: Rename load() to read_config() everywhere and keep the tests green.

### Completed Milestones (The "Done" Pile)
* [✓] Renamed load() in config/io.py

### Key Insights & Decisions
* **Decisions**: kept a deprecated load() alias for one release
* **Learnings**: Edit needs the exact old text; the shell tool denies git reset

### File System State (Snapshot)
* `config/io.py`: read_config() defined
"""


SECTIONS = CompactionSummary(
    "Ship the export", ("Add a test",), ("the 404 came from a missing blueprint",), (), (), (), ()
)


class TestSectionKind:
    def test_headings_are_matched_by_keywords(self) -> None:
        """Headings map to a kind by their words, not their exact text."""
        assert section_kind("Remaining work") == "todo"
        assert section_kind("Next steps") == "resume"
        assert section_kind("Bugs we hit") == "error"
        assert section_kind("The goal") == "request"
        assert section_kind("Design choices") == "decision"
        assert section_kind("What the user said") == "user"
        assert section_kind("Milestones") == "done"
        assert section_kind("Technical context") == "skip"
        assert section_kind("Random heading") is None


class TestMarkdownSummary:
    def test_labelled_bullets_are_read_by_their_label(self) -> None:
        """Original Goal, Decisions and Learnings are read from their bullets' labels."""
        s = read_markdown_summary(NATIVE)
        assert s.request == "Rename load() to read_config() everywhere and keep the tests green."
        assert s.decisions == ("kept a deprecated load() alias for one release",)
        assert s.errors == ("Edit needs the exact old text; the shell tool denies git reset",)
        assert s.done == ("Renamed load() in config/io.py",)
        assert s.todos == ()

    def test_an_error_entry_that_says_there_was_none_is_no_error(self) -> None:
        """ "No build or test errors encountered." in the errors section teaches nothing."""
        s = read_markdown_summary(
            "## Errors and fixes\n- No build or test errors encountered. All tests pass.\n"
            "- None\n- TypeError in export: fixed by passing the encoding\n"
        )
        assert s.errors == ("TypeError in export: fixed by passing the encoding",)

    def test_a_pending_task_that_says_there_is_none_is_no_todo(self) -> None:
        """ "None explicitly requested. All tasks have been completed" leaves nothing to do."""
        s = read_markdown_summary(
            "## Pending Tasks\n- None explicitly requested. All tasks have been completed.\n"
            "- No pending tasks\n- Reply to the second review thread\n"
            "## Optional Next Step\nNone recommended. The last message was incomplete.\n"
        )
        assert s.todos == ("Reply to the second review thread",)
        assert s.resume == ()

    def test_a_bold_entry_name_with_a_number_is_no_field_label(self) -> None:
        """ "**Task #10 (in_progress)**: ..." under Pending Tasks names a task, not a field:
        it is a pending task (its "progress" once read it as work done)."""
        s = read_markdown_summary(
            "## Pending Tasks\n"
            '- **Task #10 (in_progress)**: "Update the review and commit" \u2014 the final '
            "commit has NOT been made yet.\n"
        )
        assert s.done == ()
        assert s.todos == (
            'Task #10 (in_progress): "Update the review and commit" \u2014 the final commit has '
            "NOT been made yet.",
        )

    @given(st.text(max_size=400))
    def test_any_text_parses(self, text: str) -> None:
        """Any summary text parses, never raising."""
        assert isinstance(read_markdown_summary(text), CompactionSummary)


class TestUserMessages:
    def test_numbered_and_code_quoted_messages_are_the_messages(self) -> None:
        """ "Message 2: "..."" and `...` entries are quoted messages; remarks are not."""
        text = (
            "## All user messages\n"
            '* **Message 1**: "Review your changes" (after the plan)\n'
            "* `/security:review all of phase 14 work` (initial command)\n"
            "* System reminders about lint (treated as automated feedback)\n"
        )
        assert read_markdown_summary(text).user_messages == (
            "Review your changes",
            "/security:review all of phase 14 work",
        )


class TestCheckpointSummary:
    def test_stated_sections_are_taken_as_they_are(self) -> None:
        """The ``summary_sections`` an adapter read are the summary; the text is not re-read."""
        payload = {"summary": NATIVE, "summary_sections": summary_payload(SECTIONS)}
        assert checkpoint_summary(payload) == SECTIONS

    def test_a_native_checkpoint_s_text_is_read(self) -> None:
        """Without stated sections, the summary text is read as Markdown sections."""
        assert checkpoint_summary({"summary": NATIVE}) == read_markdown_summary(NATIVE)

    def test_no_summary_is_none(self) -> None:
        """A checkpoint with a blank summary and no sections states no summary."""
        assert checkpoint_summary({"summary": "  \n"}) is None
        assert checkpoint_summary({}) is None

    def test_wrong_types_read_as_empty(self) -> None:
        """Sections of the wrong type are empty; entries that are not text are left out."""
        stated = {"request": 3, "todos": "x", "errors": ["a", 1, None, "b"], "done": None}
        summary = checkpoint_summary({"summary_sections": stated})
        assert summary == CompactionSummary("", (), ("a", "b"), (), (), (), ())

    def test_each_kind_is_bounded(self) -> None:
        """A stated section keeps at most MAX_PER_KIND entries."""
        stated = {"todos": [f"t{n}" for n in range(50)]}
        summary = checkpoint_summary({"summary_sections": stated})
        assert summary is not None and len(summary.todos) == MAX_PER_KIND
