"""The records that end or summarise a Claude Code call: the session's pull request, from
minimal real-shaped records."""

from __future__ import annotations

from typing import Any

from tests.formats.cc_records import calls, events, memory, prompt


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
