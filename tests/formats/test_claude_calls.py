"""The records that end or summarise a Claude Code call: the session's pull request, and a
result written before its call, from minimal real-shaped records."""

from __future__ import annotations

from typing import Any

from tests.formats.cc_records import (
    CWD,
    calls,
    events,
    memory,
    prompt,
    tool_result,
    tool_use,
)


def pr_link(n: int, number: int = 74) -> dict[str, Any]:
    return {
        "type": "pr-link",
        "sessionId": "s-1",
        "prNumber": number,
        "prUrl": f"https://github.com/entireio/git-sync/pull/{number}",
        "prRepository": "entireio/git-sync",
        "timestamp": f"2026-12-01T10:00:{n:02d}Z",
    }


class TestPullRequest:
    def test_the_sessions_pull_request_is_a_completed_call_with_its_url(self) -> None:
        """A `pr-link` says the session opened a pull request: its number and URL are kept."""
        (end,) = [
            e
            for e in events(prompt(1, "open a PR"), pr_link(2))
            if e.payload.get("status") == "completed"
        ]
        assert end.payload["tool_name"] == "pull request"
        assert end.payload["outcome"]["output"] == "https://github.com/entireio/git-sync/pull/74"
        m = memory(prompt(1, "open a PR"), pr_link(2))
        assert "pull request left open: `https://github.com/entireio/git-sync/pull/74`" in [
            i.text for i in m.where_stands
        ]

    def test_the_same_pull_request_linked_again_is_no_new_call(self) -> None:
        """Claude Code writes the link again on later turns: one call per pull request."""
        assert len(calls(prompt(1, "open a PR"), pr_link(2), pr_link(3), pr_link(4, 75))) == 6


class TestResultBeforeItsCall:
    """Claude Code 2.1.1xx sometimes writes a ``tool_result`` one record before the
    ``tool_use`` it answers (the result's ``parentUuid`` names the call's record)."""

    def test_the_result_ends_its_call_when_the_call_comes(self) -> None:
        edit = {"file_path": f"{CWD}/a.go", "old_string": "x", "new_string": "y"}
        records = (
            prompt(1, "fix a.go"),
            tool_result(3, 2, f"The file {CWD}/a.go has been updated successfully."),
            tool_use(2, "Edit", edit),
        )
        assert calls(*records) == [
            ("Edit", "requested", ""),
            ("Edit", "started", ""),
            ("Edit", "completed", "completed"),
        ]
        m = memory(*records)
        assert not m.todo_items  # no edit left "uncertain": it was done
        assert [i.text for i in m.where_stands] == ["files changed: `a.go`"]

    def test_a_failed_result_before_its_call_fails_it(self) -> None:
        records = (
            prompt(1, "run the tests"),
            tool_result(3, 2, "Exit code 1\nFAIL", error=True),
            tool_use(2, "Bash", {"command": "go test ./..."}),
        )
        assert calls(*records)[-1] == ("Bash", "failed", "failed")

    def test_a_result_whose_call_never_comes_is_no_call(self) -> None:
        assert calls(prompt(1, "go on"), tool_result(2, 9, "done")) == []
