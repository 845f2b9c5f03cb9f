"""The session's commits and whether they are pushed (deriver/commits.py)."""

from __future__ import annotations

from typing import Any

from tests.deriver.test_rules import bash, call, derive, event, texts, user

UP_TO_DATE = "On branch main\nYour branch is up to date with 'origin/main'.\n\nnothing to commit"


class TestCommits:
    def test_commits_not_pushed_are_counted_and_pushed_together(self) -> None:
        """Three commits and no push: the last is named, the two before it counted; a push
        takes all three."""
        commits = [
            bash(f'git commit -m "fix {c}"', f"[main {h}] fix {c}", f"g{c}")
            for c, h in (("a", "1a2b3c4"), ("b", "2b3c4d5"), ("c", "3c4d5e6"))
        ]
        memory = derive(user("fix it"), *commits)
        assert (
            "committed and not pushed on `main`: `3c4d5e6` “fix c” (and 2 earlier commits)"
            in texts(memory.where_stands)
        )
        memory = derive(user("fix it"), *commits, bash("git push", "", "p1"))
        assert all(t.startswith("committed and pushed") for t in texts(memory.completed_work))
        assert not any("not pushed" in t for t in texts(memory.where_stands))

    def test_codex_shell_command_tool_commits(self) -> None:
        """Codex 0.118's ``shell_command`` (Codex Desktop) is a shell: its ``git commit``,
        run where the session is (``workdir``), is the session's commit."""
        args = {"command": 'git commit -m "remove recovery view"', "workdir": "/w/p"}
        commit = call("shell_command", args, call_id="g1", result="[main d566928] remove")
        memory = derive(event("message", role="user", content="commit", cwd="/w/p"), commit)
        assert "committed and not pushed on `main`: `d566928` \u201cremove\u201d" in texts(
            memory.where_stands
        )

    def test_a_commit_never_answered_names_its_subject(self) -> None:
        """A commit whose result the session never saw (it ended first) is uncertain, named
        by its subject even where the command's cut hides it (files staged before it, a
        message in a heredoc)."""
        staged = " ".join(f"src/module_{n}/implementation.py" for n in range(5))
        message = "\"$(cat <<'EOF'\nfix(io): retry reads\nEOF\n)\""
        command = f"git add {staged} && git commit -m {message}"
        memory = derive(user("commit it"), *call("Bash", {"command": command})[:2])
        [todo] = memory.todo_items
        assert todo.status == "uncertain"
        assert todo.text.endswith(", committing \u201cfix(io): retry reads\u201d")
        short = derive(user("commit it"), *call("Bash", {"command": 'git commit -m "x"'})[:2])
        assert [t.text for t in short.todo_items] == ['Bash `git commit -m "x"`']

    def test_commits_rebased_or_filtered_are_named_by_subject(self) -> None:
        """``git pull --rebase`` or ``git filter-repo`` made the commits not pushed anew:
        the hashes ``git commit`` printed name commits no longer on the branch, so the
        push that follows pushed them by their subjects. An aborted rebase made nothing."""
        commits = [
            bash(f'git commit -m "fix {c}"', f"[main {h}] fix {c}", f"g{c}")
            for c, h in (("a", "1a2b3c4"), ("b", "2b3c4d5"))
        ]
        for rewrite in (
            "git pull --rebase origin main",
            "git filter-repo --path .claude/worktrees/ --invert-paths --force",
        ):
            memory = derive(user("fix it"), *commits, bash(rewrite, "", "r1"),
                            bash("git push", "", "p1"))  # fmt: skip
            assert texts(memory.completed_work) == ["committed and pushed \u201cfix a\u201d"]
            assert "committed and pushed on `main`: \u201cfix b\u201d" in texts(memory.where_stands)
        memory = derive(user("fix it"), *commits, bash("git rebase --abort", "", "r1"))
        assert (
            "committed and not pushed on `main`: `2b3c4d5` \u201cfix b\u201d (and 1 earlier commit)"
            in texts(memory.where_stands)
        )

    def test_a_line_that_makes_two_commits_made_two(self) -> None:
        """``git add a && git commit -q -m "perf: a" && git add b && git commit -q -m "perf:
        b"``: two commits, the last is the one not pushed and the first counts before it;
        so too when git prints each."""
        quiet = (
            'git add a.go && git commit -q -m "perf: a" && '
            'git add b.go && git commit -q -m "perf: b"'
        )
        memory = derive(user("commit both"), bash(quiet, "", "g1"))
        assert "committed and not pushed: \u201cperf: b\u201d (and 1 earlier commit)" in texts(
            memory.where_stands
        )
        printed = "[main 1a2b3c4] perf: a\n 1 file changed\n[main 2b3c4d5] perf: b\n"
        memory = derive(user("commit both"), bash(quiet.replace(" -q", ""), printed, "g2"))
        assert (
            "committed and not pushed on `main`: `2b3c4d5` \u201cperf: b\u201d (and 1 earlier"
            " commit)" in texts(memory.where_stands)
        )

    def test_a_push_that_names_another_head_names_the_commit_by_it(self) -> None:
        """``git pull --rebase && git push`` failed at the push, after the rebase rewrote the
        commit; ``git push origin HEAD:main`` then says the head it pushed: the commit is
        named by that hash. A push whose head is the commit made changes nothing, nor does
        one of another branch."""
        rebased = "Successfully rebased and updated refs/heads/wt.\nfatal: The upstream branch"
        memory = derive(
            user("push it"),
            bash('git commit -m "fix a"', "[wt 53ea0ad1] fix a", "g1"),
            bash("git pull --rebase && git push", rebased, "p1", exit_code=128),
            bash("git push origin HEAD:main", "   b3e6ad6e..e921c91e  HEAD -> main", "p2"),
        )
        assert "committed and pushed on `wt`: `e921c91e` \u201cfix a\u201d" in texts(
            memory.where_stands
        )
        for output in ("   b3e6ad6e..53ea0ad1  HEAD -> main", "   1111111..2222222  dev -> dev"):
            same = derive(
                user("push it"),
                bash('git commit -m "fix a"', "[wt 53ea0ad1] fix a", "g1"),
                bash("git push origin HEAD:main", output, "p2"),
            )
            assert "`53ea0ad1`" in " ".join(texts(same.where_stands))

    def test_a_branch_whose_pull_request_merged_and_deleted_it_is_left(self) -> None:
        """``gh pr merge 15 --squash --delete-branch`` deletes the branch the session made
        and moves to the default branch, whatever it prints (the switch goes to stderr)."""
        made = bash("git switch -c fix/cask", "Switched to a new branch 'fix/cask'", "s1")
        merged = bash("gh pr merge 15 --squash --delete-branch", "Fast-forward", "m1")
        memory = derive(user("fix the cask"), made, merged)
        assert not any("fix/cask" in t for t in texts(memory.where_stands))
        kept = derive(user("fix the cask"), made, bash("gh pr merge 15 --squash", "", "m1"))
        assert any("on branch `fix/cask`" in t for t in texts(kept.where_stands))

    def test_a_push_of_notes_or_tags_only_pushes_no_commit(self) -> None:
        """``git push origin refs/notes/ai`` and ``git push --tags`` send no commit of the
        branch: the last commit is still not pushed."""
        commit = bash('git commit -m "add marker"', "[main 3e2941c] add marker", "g1")
        for push in ("git push origin refs/notes/ai 2>&1", "git push --tags > /dev/null"):
            memory = derive(user("try git-ai"), commit, bash(push, "", "p1"))
            assert "committed and not pushed on `main`: `3e2941c` “add marker”" in texts(
                memory.where_stands
            )

    def test_an_amended_commit_replaces_the_last_one(self) -> None:
        """``git commit --amend`` of a commit not pushed: the new hash is the commit, and
        the replaced one is in no line. A commit not pushed is shown where the session
        stands, with no line of completed work repeating it."""
        memory = derive(
            user("fix it"),
            bash('git commit -m "fix a"', "[main 1a2b3c4] fix a", "g1"),
            bash("git commit --amend --no-edit", "[main 5d6e7f8] fix a", "g2"),
        )
        assert "committed and not pushed on `main`: `5d6e7f8` “fix a”" in texts(memory.where_stands)
        assert texts(memory.completed_work) == []

    def test_an_amend_of_a_pushed_commit_replaces_it_until_force_pushed(self) -> None:
        """A pushed commit amended: its line goes, the new one is not pushed until the
        force-push takes it."""
        first: list[Any] = [
            user("fix it"),
            bash('git commit -m "fix a"', "[fix 1a2b3c4] fix a", "g1"),
            bash("git push -u origin fix", "", "p1"),
            bash('git commit --amend -m "fix a better"', "[fix 5d6e7f8] fix a better", "g2"),
        ]
        memory = derive(*first)
        assert texts(memory.completed_work) == []
        assert "committed and not pushed on `fix`: `5d6e7f8` “fix a better”" in texts(
            memory.where_stands
        )
        memory = derive(*first, bash("git push --force-with-lease", "", "p2"))
        assert texts(memory.completed_work) == []
        assert "committed and pushed on `fix`: `5d6e7f8` “fix a better”" in texts(
            memory.where_stands
        )


class TestUpstream:
    """What ``git status`` says of the branch against its upstream, whoever pushed."""

    def commits(self) -> list[Any]:
        return [
            user("fix it"),
            *(
                bash(f'git commit -m "fix {c}"', f"[main {h}] fix {c}", f"g{c}")
                for c, h in (("a", "1a2b3c4"), ("b", "2b3c4d5"), ("c", "3c4d5e6"))
            ),
        ]

    def test_up_to_date_with_its_upstream_is_pushed(self) -> None:
        memory = derive(*self.commits(), bash("git status && git diff --stat", UP_TO_DATE, "s1"))
        assert not any("not pushed" in t for t in texts(memory.where_stands))
        assert all(t.startswith("committed and pushed") for t in texts(memory.completed_work))

    def test_ahead_by_n_leaves_the_last_n_unpushed(self) -> None:
        ahead = "On branch main\nYour branch is ahead of 'origin/main' by 2 commits.\n"
        memory = derive(*self.commits(), bash("git status", ahead, "s1"))
        assert (
            "committed and not pushed on `main`: `3c4d5e6` “fix c” (and 1 earlier commit)"
            in texts(memory.where_stands)
        )
        assert texts(memory.completed_work)[0] == "committed and pushed `1a2b3c4` “fix a”"
        short = "## main...origin/main [ahead 1, behind 2]\n M a.py\n"
        memory = derive(*self.commits(), bash("git status -sb", short, "s1"))
        assert (
            "committed and not pushed on `main`: `3c4d5e6` “fix c”; its upstream has 2 commits "
            "it has not" in texts(memory.where_stands)
        )

    def test_a_branch_behind_its_upstream_says_so_until_it_takes_them(self) -> None:
        """git status after the commit: the branch and its upstream have diverged, 1 and 1
        commits each; its push will be refused until the upstream's commit is taken in. A
        pull (or a rebase onto it) takes it; a push then says nothing of it."""
        diverged = (
            "On branch hotfix\nYour branch and 'origin/hotfix' have diverged,\nand have 1 and 1 "
            "different commits each, respectively.\n"
        )
        commit = bash(
            'git commit -m "Optimize"', "[hotfix d586fe4b] Optimize\n 3 files changed", "c1"
        )
        memory = derive(user("commit it"), commit, bash("git status", diverged, "s1"))
        assert texts(memory.where_stands) == [
            "committed and not pushed on `hotfix`: `d586fe4b` “Optimize”; its upstream has 1 "
            "commit it has not"
        ]
        pulled = bash(
            "git pull --rebase", "Successfully rebased and updated refs/heads/hotfix.", "p1"
        )
        memory = derive(user("commit it"), commit, bash("git status", diverged, "s1"), pulled)
        assert not any("upstream has" in t for t in texts(memory.where_stands))

    def test_another_branch_or_a_gone_upstream_says_nothing_of_them(self) -> None:
        """The status of a branch the commits are not on, or of one whose upstream is gone,
        leaves them unpushed."""
        other = UP_TO_DATE.replace("main", "release")
        for said in (other, "## main...origin/main [gone]\n"):
            memory = derive(*self.commits(), bash("git status -sb", said, "s1"))
            assert (
                "committed and not pushed on `main`: `3c4d5e6` “fix c” (and 2 earlier commits)"
                in texts(memory.where_stands)
            )


class TestOtherRepositories:
    def test_commits_beside_the_project_are_their_repository_s(self) -> None:
        """A session that works in another repository beside its own (``cd ../other``, or
        Codex's ``workdir``) commits there on another branch: the project's amend replaces
        the project's commit, and each line names where it is."""
        memory = derive(
            event("message", role="user", content="raise both PRs", cwd="/w/app"),
            bash("git switch -c fix-app", "Switched to a new branch 'fix-app'", "b1"),
            bash('git commit -m "feat!: app"', "[fix-app 1a2b3c4] feat!: app", "c1"),
            call("exec_command", {"cmd": "git switch -c fix-action", "workdir": "/w/action"},
                 call_id="b2", result="Switched to a new branch 'fix-action'", exit_code=0),
            bash('cd ../action && git commit -m "feat: action"',
                 "[fix-action 9f8e7d6] feat: action", "c2"),
            bash('git commit --amend -m "feat: app"', "[fix-app 5d6e7f8] feat: app", "c3"),
        )  # fmt: skip
        assert texts(memory.where_stands) == [
            "committed and not pushed on `fix-app`: `5d6e7f8` “feat: app”",
            "committed and not pushed on `fix-action`: `9f8e7d6` “feat: action” in `../action`",
        ]
        assert texts(memory.completed_work) == []


class TestReset:
    def test_a_reset_back_past_the_last_commit_takes_it_off(self) -> None:
        """``git reset <last>^`` (or ``HEAD~1``) and a new commit: the commit taken off is
        in no line, and the one before it is still the session's. A reset of paths only
        unstages."""
        made: list[dict[str, Any] | list[dict[str, Any]]] = [
            user("split the top commit"),
            bash('git commit -m "a"', "[main 1a2b3c4] a", "c1"),
            bash('git commit -m "b"', "[main 74e8a5e] b", "c2"),
        ]
        for reset in ("git reset 74e8a5e^", "git reset --soft HEAD~1", "git reset HEAD^"):
            memory = derive(*made, bash(reset, "", "r1"),
                            bash('git commit -m "b1"', "[main 9f8e7d6] b1", "c3"))  # fmt: skip
            assert texts(memory.completed_work) == ["committed `1a2b3c4` “a”"], reset
            assert texts(memory.where_stands) == [
                "committed and not pushed on `main`: `9f8e7d6` “b1” (and 1 earlier commit)"
            ], reset
        memory = derive(*made, bash("git reset HEAD src/a.py", "", "r1"))
        assert texts(memory.completed_work) == ["committed `1a2b3c4` “a”"]
        assert texts(memory.where_stands) == [
            "committed and not pushed on `main`: `74e8a5e` “b” (and 1 earlier commit)"
        ]

    def test_a_reset_to_a_named_commit_takes_off_those_after_it(self) -> None:
        """``git reset --soft <base>`` and a commit squash the commits made since: those
        after the commit it names go (all not pushed, when it names none of them: the
        upstream's ``origin/main``, a hash of before the session), and a status of the same
        line, "up to date" with the upstream after the reset, pushed none of them."""
        made: list[dict[str, Any] | list[dict[str, Any]]] = [
            user("squash it"),
            bash('git commit -m "a"', "[main 1a2b3c4] a", "c1"),
            bash('git commit -m "b"', "[main 74e8a5e] b", "c2"),
        ]
        squash = bash('git commit -m "ab"', "[main 9f8e7d6] ab", "c3")
        up_to_date = "On branch main\nYour branch is up to date with 'origin/main'.\n"
        for reset in ("git reset --soft 0ff1ce0", "git reset --soft origin/main",
                      "git reset --soft 0ff1ce0 && git status"):  # fmt: skip
            memory = derive(*made, bash(reset, up_to_date, "r1"), squash)
            assert texts(memory.completed_work) == [], reset
            assert texts(memory.where_stands) == [
                "committed and not pushed on `main`: `9f8e7d6` “ab”"
            ], reset
        memory = derive(*made, bash("git reset --soft 1a2b3c4", "", "r1"), squash)
        assert texts(memory.completed_work) == ["committed `1a2b3c4` “a”"]
        memory = derive(*made, bash("git reset --hard HEAD", "", "r1"))
        assert "(and 1 earlier commit)" in texts(memory.where_stands)[0]
