"""CI's checks as the forge lists them (deriver/ci_checks.py), and a merge of the session's
pull request (its last push is then history)."""

from __future__ import annotations

from typing import Any

from tests.deriver.test_rules import bash, derive, texts, user

T = "\t"


def rows(*states: tuple[str, str, str]) -> str:
    """``gh pr checks`` rows as an agent's shell gets them: name, state, time, link."""
    return "".join(f"{name}{T}{state}{T}19s{T}https://ci/{link}\n" for name, state, link in states)


class TestCiChecks:
    def test_the_states_listed_are_the_verdict(self) -> None:
        """All pass: passed. One fails: failed, naming it (gh exits 1). Some pending and
        none failing: a warning, whatever gh's exit (8)."""
        output = rows(("build", "pass", "1"), ("lint", "pass", "2"))
        passed = derive(user("ship"), bash("gh pr checks 15", output, "c1"))
        [check] = passed.verification_status
        assert (check.status, check.text) == ("passed", "`gh pr checks 15` (2 pass)")
        output = rows(("build", "fail", "1"), ("lint", "pass", "2"))
        failed = derive(user("ship"), bash("gh pr checks 15", output, "c1", exit_code=1))
        [check] = failed.verification_status
        assert (check.status, check.text) == (
            "failed",
            "`gh pr checks 15` (1 failing: build; 1 pass)",
        )
        assert texts(failed.failed_attempts) == [
            "Bash `gh pr checks 15` exited 1: \u201c1 failing: build; 1 pass\u201d"
        ]
        output = rows(("build", "pending", "1"), ("lint", "pass", "2"))
        pending = derive(user("ship"), bash("gh pr checks 15", output, "c1", exit_code=8))
        [check] = pending.verification_status
        assert (check.status, check.text) == ("warning", "`gh pr checks 15` (1 pending; 1 pass)")
        assert pending.failed_attempts == ()

    def test_a_watch_says_each_checks_last_state(self) -> None:
        """``--watch`` prints the table at each refresh, piped into tail: the last states
        count, each check once; a loop over two pull requests lists both one's checks."""
        output = rows(("build", "pending", "1"), ("build", "pass", "1"), ("lint", "pass", "2"))
        command = "sleep 20 && gh pr checks 15 --watch --interval 15 2>&1 | tail -15"
        [check] = derive(user("ship"), bash(command, output, "c1")).verification_status
        assert check.text.endswith("(2 pass)") and check.status == "passed"
        loop = 'for pr in 15 16; do echo "PR $pr"; gh pr checks "$pr"; done'
        output = rows(("build", "pass", "1"), ("build", "fail", "3"))
        [check] = derive(user("ship"), bash(loop, output, "c1")).verification_status
        assert check.status == "failed" and check.text.endswith("(1 failing: build; 1 pass)")

    def test_a_run_watched_to_its_end(self) -> None:
        done = "\u2713 Run CI (24583811088) completed with 'success'"
        memory = derive(user("ship"), bash("gh run watch 24583811088 --exit-status", done, "c1"))
        [check] = memory.verification_status
        assert (check.status, check.text) == (
            "passed",
            "`gh run watch 24583811088 --exit-status` (run CI: success)",
        )

    def test_a_push_after_ci_was_listed_makes_its_verdict_an_earlier_pushs(self) -> None:
        """CI failed, the fix was committed and pushed: the FAILED verdict is of the commit
        before, and so is the failure it listed (the push may hold its fix). CI's checks
        listed again say how the new commit stands."""
        failing = rows(("test", "fail", "1"), ("lint", "pass", "2"))
        events: list[Any] = [
            user("CI fails on the PR"),
            bash("gh pr checks 183", failing, "c1", exit_code=1),
            bash('git commit -am "add tests"', "[fix/a 68ba6a5] add tests", "g1"),
            bash("git push", "", "p1"),
        ]
        memory = derive(*events)
        [check] = memory.verification_status
        assert (check.status, check.text) == (
            "earlier_push",
            "`gh pr checks 183` (1 failing: test; 1 pass)",
        )
        assert texts(memory.failed_attempts) == [
            "Bash `gh pr checks 183` exited 1: \u201c1 failing: test; 1 pass\u201d"
            "; pushed again since"
        ]
        passing = rows(("test", "pass", "3"), ("lint", "pass", "4"))
        memory = derive(*events, bash("gh pr checks 183", passing, "c2"))
        [check] = memory.verification_status
        assert check.status == "passed"
        assert [item.status for item in memory.failed_attempts] == ["resolved"]
        # A local check is no CI verdict: a push leaves it as it was.
        local = derive(user("fix"), bash("pytest", "1 failed, 2 passed", "t1", exit_code=1),
                       bash("gh pr checks 183", failing, "c1", exit_code=1),
                       bash("git push", "", "p1"))  # fmt: skip
        statuses = sorted(str(check.status) for check in local.verification_status)
        assert statuses == ["earlier_push", "failed"]

    def test_a_merge_of_the_sessions_pull_request_makes_its_last_push_history(self) -> None:
        """The commit pushed is where the session stands until its pull request merges:
        then its work is on the base branch, and the commit a line of completed work."""
        pushed: list[Any] = [
            user("ship"),
            bash('git commit -m "fix a"', "[fix/a 1a2b3c4] fix a", "g1"),
            bash("git push -u origin fix/a", "", "p1"),
            bash("gh pr create --fill", "https://github.com/o/r/pull/15", "pr1"),
        ]
        memory = derive(*pushed)
        assert "committed and pushed on `fix/a`: `1a2b3c4` \u201cfix a\u201d" in texts(
            memory.where_stands
        )
        memory = derive(*pushed, bash("gh pr merge 15 --squash --delete-branch", "", "m1"))
        assert texts(memory.where_stands) == []
        assert "committed and pushed `1a2b3c4` \u201cfix a\u201d" in texts(memory.completed_work)
        other = derive(*pushed, bash("gh pr merge 12 --squash", "", "m1"))  # not its own
        assert any("committed and pushed on" in t for t in texts(other.where_stands))
