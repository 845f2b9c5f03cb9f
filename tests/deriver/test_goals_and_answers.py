"""Goals stay the user's requests (continuations are not new goals, the root request stays
pinned) and completed work says something (an answer's gist, paths relative to the session's
working directory)."""

from __future__ import annotations

import pytest

from deriver import SessionMemoryDeriver
from deriver.user_text import (
    answer_gist,
    choices_stated,
    is_acknowledgement,
    is_short_answer,
    names_nothing,
    only_asks,
    only_ships,
    reports_done,
)
from deriver.wording import path_code, relative
from tests.deriver.test_rules import assistant, call, derive, event, texts, user


class TestContinuations:
    @pytest.mark.parametrize(
        "reply",
        [
            "continue implementation",
            "continue until all are done",
            "ok continue",
            "keep going with the rest",
            "please proceed with the plan",
            "go ahead and finish it",
            "please continue from where you left off",
        ],
    )
    def test_a_short_imperative_to_go_on_is_an_acknowledgement(self, reply: str) -> None:
        """An imperative to go on that names nothing new continues the current goal."""
        assert is_acknowledgement(reply)

    @pytest.mark.parametrize(
        "reply",
        [
            "continue with the auth module",
            "go ahead and push it",
            "continue, but use postgres instead",
            "tackle them",
            "finish the migration",
        ],
    )
    def test_a_continuation_with_a_new_object_is_a_request(self, reply: str) -> None:
        """A reply that names something new (a module, an action, a choice) is a request."""
        assert not is_acknowledgement(reply)

    def test_a_continuation_keeps_the_goal(self) -> None:
        """ "continue implementation" after a request answers the agent, not a new goal."""
        memory = derive(user("Add CSV export to the report page"), user("continue implementation"))
        assert memory.current_goal is not None
        assert memory.current_goal.text == "Add CSV export to the report page"
        assert memory.earlier_goals == ()
        assert texts(memory.where_stands) == ["user answered “continue implementation”"]


@pytest.mark.parametrize(
    ("reply", "acknowledges"),
    [
        ("works now, thanks", True),
        ("perfect, that fixed it", True),
        ("great, it works!", True),
        ("it works but the button is still red", False),
        ("works on mac, not on linux", False),
    ],
)
def test_a_reply_that_confirms_the_work_is_an_acknowledgement(
    reply: str, acknowledges: bool
) -> None:
    """ "works now, thanks" confirms what was done: no new goal. A confirmation with a "but"
    or a place it fails is a report to act on."""
    assert is_acknowledgement(reply) is acknowledges


class TestQueuedPrompts:
    def test_words_taken_into_the_running_turn_join_its_request(self) -> None:
        """A prompt the user queued while the agent worked, handed to its running turn
        (``metadata.queued``): more of the request, shown with it. Once the run ended, the
        next one starts with it: a request of its own."""
        memory = derive(user("Fix checkout"), call("Edit", {"file_path": "a.py"}, call_id="e1"),
                        user("remember to resolve merge issues yourself", queued=True))  # fmt: skip
        assert memory.current_goal is not None
        assert memory.current_goal.text == "Fix checkout\nremember to resolve merge issues yourself"
        assert memory.earlier_goals == ()
        memory = derive(user("Fix the migrations"),
                        user("we also use migrations in staging", queued=True))  # fmt: skip
        assert texts(memory.key_decisions) == ["user said: “we also use migrations in staging”"]
        ended = event("terminal", status="completed")
        memory = derive(user("Fix checkout"), ended, user("now the README", queued=True))
        assert memory.current_goal is not None
        assert memory.current_goal.text == "now the README"

    def test_a_question_taken_into_the_running_turn_is_answered(self) -> None:
        """A question typed while the agent worked is answered by its next words ("That
        heuristic is too brittle"), a key decision; words that go on with the work first
        and end on the next step ("Let me check the bead status.") answer nothing yet."""
        asked = user("could we also just check the oldest ref?", queued=True)
        edit = call("Edit", {"file_path": "a.go"}, call_id="e1")
        answer = "That heuristic is too brittle.\n\nThe budget stops it, whatever the names."
        memory = derive(user("add a guard"), edit, asked, assistant(answer))
        (answered,) = texts(memory.key_decisions)
        assert answered.startswith("the agent answered “could we also just check the oldest")
        memory = derive(user("add a guard"), edit, asked, assistant("Copilot review requested. "
                        "Let me check the bead status."))  # fmt: skip
        assert memory.key_decisions == ()


class TestShortAnswers:
    @pytest.mark.parametrize(
        "reply", ["yes, please commit", "Try again", "Please merge.", "do it", "the second one",
                  "go with the second one", "use option 2"],
    )  # fmt: skip
    def test_an_approval_a_retry_or_a_pick_answers_the_agent(self, reply: str) -> None:
        assert is_short_answer(reply)

    @pytest.mark.parametrize(
        "reply", ["Ok, next 37 then?", "do the proper fix", "commit", "yes please commit and push"]
    )
    def test_a_reply_that_asks_or_bids_a_new_thing_done_is_a_request(self, reply: str) -> None:
        """ "Ok, next 37 then?" asks for the next piece of work; "do the proper fix" names
        the work: each is the new goal, not an answer bound to the agent's question."""
        assert not is_short_answer(reply)
        memory = derive(user("Review the open pull requests"), assistant("Done."), user(reply))
        assert memory.current_goal is not None and memory.current_goal.text == reply

    def test_a_polite_bid_answers_only_a_message_that_asks_or_offers(self) -> None:
        """ "Please open a PR" after a message that asks nothing and offers nothing is the
        new request (a resumed session's next step), not an answer bound to that message's
        last sentence; after "Want me to open a PR?" it answers. "please continue" goes on."""
        said = assistant("Removed the doubleTapScale prop (the zoom toggles between min and "
                         "max).", action_type="final")  # fmt: skip
        memory = derive(user("Fix the zoom"), said, user("Please open a PR"))
        assert memory.current_goal is not None and memory.current_goal.text == "Please open a PR"
        assert not any("answered" in t for t in texts(memory.key_decisions))
        offered = assistant("Fixed the zoom. Want me to open a PR?", action_type="final")
        memory = derive(user("Fix the zoom"), offered, user("Please open a PR"))
        assert memory.current_goal is not None and memory.current_goal.text == "Fix the zoom"
        memory = derive(user("Fix the zoom"), said, user("please continue"))
        assert memory.current_goal is not None and memory.current_goal.text == "Fix the zoom"


class TestStepsReportedDone:
    @pytest.mark.parametrize(
        "reply",
        [
            "The local Entire CLI is logged in",
            "I approve outside-sandbox Entire CLI access,",
            "I moved to Full access. Try again now.",
            "done, try now",
            "I restarted the server",
            "fixed the env var, try again",
            "my key is set now",
        ],
    )
    def test_the_user_s_report_of_a_step_done_answers_the_agent(self, reply: str) -> None:
        """The user did what the agent waited for, or what blocked it is gone: the work goes
        on; the report is no request, and decides nothing to keep."""
        assert reports_done(reply)
        memory = derive(
            user("Review trail 10"),
            assistant("The CLI is logged out here. Can you log in?", action_type="final"),
            user(reply),
            assistant("Resuming the review.", action_type="final"),
        )
        assert memory.current_goal is not None
        assert memory.current_goal.text == "Review trail 10"
        assert memory.earlier_goals == ()
        assert memory.key_decisions == ()

    @pytest.mark.parametrize(
        "reply",
        [
            "set the timeout to 30s",
            "I added a config file, wire it into the loader",
            "I ran the tests and they fail",
            "the server is down",
            "I updated the README, please review",
            "is the server running?",
        ],
    )
    def test_a_request_or_a_problem_is_no_step_done(self, reply: str) -> None:
        assert not reports_done(reply)


def test_a_request_sent_again_is_still_the_one_goal() -> None:
    """The same request sent again (after an interrupt) is no earlier goal of itself."""
    memory = derive(
        user("Start"),
        user("Fix the login redirect after logout"),
        assistant("Looking."),
        user("Fix the login redirect after logout"),
    )
    assert memory.current_goal is not None
    assert memory.current_goal.text == "Fix the login redirect after logout"
    assert texts(memory.earlier_goals) == ["“Start”"]


class TestQuestionsAnswered:
    @pytest.mark.parametrize(
        "text",
        ["what's the diff between e2e and e2e:lifecycle?", "Did you push them?",
         "Q: was this happening in both strategies? why was auto_commit doing this?",
         "you can use your LSP right?"],
    )  # fmt: skip
    def test_only_questions(self, text: str) -> None:
        assert only_asks(text)

    @pytest.mark.parametrize(
        "text",
        ["can you review the copilot comments on the PR?", "Fix X. Does it pass now?",
         "Can we have links, any URL should be clickable. Can you do those fixes?",
         "this is a sandbox issue, right? I feel we should flag it to the agent instead?",
         "fix the parser", "Please check the logs?"],
    )  # fmt: skip
    def test_questions_that_ask_for_work_or_propose(self, text: str) -> None:
        assert not only_asks(text)

    def test_a_question_answered_with_no_change_is_no_earlier_goal(self) -> None:
        """A question the agent answered is in its answer; one that led to a change (or the
        first request) stays an earlier goal."""
        memory = derive(
            user("what does the exporter do with empty rows?"), assistant("It skips them."),
            user("do we have tests for it?"),
            call("Edit", {"file_path": "tests/test_export.py"}, call_id="e1"),
            assistant("Added one."),
            user("how does the importer index?"), assistant("By id."),
            user("fix the parser"),
        )  # fmt: skip
        assert texts(memory.earlier_goals) == [
            "“what does the exporter do with empty rows?”",
            "“do we have tests for it?”",
        ]


def test_a_bare_word_request_is_no_earlier_goal() -> None:
    """ "update", "检查" (check): what such a request asks is in the agent's message before
    it, so once done it says nothing by itself; a request that names its object stays."""
    memory = derive(
        user("add a dark mode toggle"), assistant("Added. Want me to update the docs too?"),
        user("update"), assistant("Updated the docs."),
        user("检查"), assistant("检查完毕"),
        user("整理实验报告"), assistant("Done."),
        user("now fix the footer"),
    )  # fmt: skip
    assert texts(memory.earlier_goals) == ["“add a dark mode toggle”", "“整理实验报告”"]


@pytest.mark.parametrize(
    ("text", "bare"),
    [("update", True), ("检查", True), ("Test!", True), ("trigger the deploy", False),
     ("README.md", False), ("讲解Q-Former", False), ("epoch调为15", False),
     ("整理实验报告", False)],
)  # fmt: skip
def test_a_bare_word(text: str, bare: bool) -> None:
    assert names_nothing(text) is bare


class TestShippingAsked:
    @pytest.mark.parametrize(
        ("text", "ships"),
        [("commit this", True), ("push it", True), ("commit and push please", True),
         ("can you commit this in meaningful commits", True), ("yeah let's open a PR", True),
         ("fix the bug and commit", False), ("push the new schema to the database", False)],
    )  # fmt: skip
    def test_a_request_only_to_commit_or_push(self, text: str, ships: bool) -> None:
        assert only_ships(text) is ships

    def test_a_commit_asked_for_and_made_is_no_earlier_goal(self) -> None:
        """The commit is in the completed work; a commit asked for and not made (it failed)
        stays an earlier goal."""
        commit = call("Bash", {"command": 'git commit -am "fix a"'}, call_id="g1",
                      result="[main 1a2b3c4] fix a", exit_code=0)  # fmt: skip
        failed = call("Bash", {"command": 'git commit -am "fix b"'}, "failed", call_id="g2",
                      error="pre-commit hook failed", exit_code=1)  # fmt: skip
        memory = derive(
            user("fix the parser"), user("commit this"), *commit, assistant("Committed."),
            user("commit and push please"), *failed, assistant("The hook failed."),
            user("fix the hook"),
        )  # fmt: skip
        assert texts(memory.earlier_goals) == ["“fix the parser”", "“commit and push please”"]


class TestChoicesStated:
    @pytest.mark.parametrize(
        ("request_text", "stated"),
        [
            ("call it code-tour", "call it code-tour"),
            ("we dont support antigravity so we need to remove that",
             "we dont support antigravity so we need to remove that"),
            ("just do the other changes first. maybe we don't need to add name",
             "maybe we don't need to add name"),
            ("temporary SSH keypair, we should not touch the default ssh config",
             "temporary SSH keypair, we should not touch the default ssh config"),
            ("we're branding skills as lowercased ..so are there parts of the readme to change",
             "we're branding skills as lowercased"),
            ("yes, or amending into one commit in this branch is also fine",
             "yes, or amending into one commit in this branch is also fine"),
            ("fix the flaky test. do not modify the fixtures", "do not modify the fixtures"),
            (" use uv as the package manager", "use uv as the package manager"),
            ("in the story card lets remove the count\ninstead we should say\nShoot the gold "
             "records.", "instead we should say Shoot the gold records."),
            ("Keep examples limited to one or two entries in tables.",
             "Keep examples limited to one or two entries in tables."),
            # In Chinese: "teach me step 2, but do not give the code directly".
            ("教我Step 2 搭建模型组件, 但不要直接给出代码",
             "教我Step 2 搭建模型组件, 但不要直接给出代码"),
            ("给予我修改建议即可", "给予我修改建议即可"),
        ],
    )  # fmt: skip
    def test_a_request_s_clause_that_sets_how_to_work_is_stated(
        self, request_text: str, stated: str
    ) -> None:
        """A name, a constraint, a convention or a preference: how the work is to be done."""
        assert choices_stated(request_text) == stated

    @pytest.mark.parametrize(
        "request_text",
        [
            "can you fix linting",
            "nope I don't see it in cursor",
            "should this be moved as a note below the quickstart",
            "I think we use Haiku for Claude at the MCP? Can you check?",
            "Now rename the helper everywhere.",
            "we should not touch the config. " + "Context of the spec. " * 40,
            "the API returns 404 instead of 200",
            "it only fails when run in CI",
            "we're getting a 500 on login",
            "ideas for shortening the tutorial words. dont implement yet",
            "umm dont make any changes..what about the idea of a drone",
            "we should keep the old API for now",
            "Keep checking",
            "先不要改代码",
            "use the search box to find it",
            "Warning: unauthenticated requests.\n[transformers] `torch_dtype` is deprecated! "
            "Use `dtype` instead!是什么问题怎么解决",
        ],
    )
    def test_a_task_a_report_a_question_or_a_spec_states_no_choice(self, request_text: str) -> None:
        """What to do, what the user sees or reports, a question, and a long spec are not
        choices."""
        assert choices_stated(request_text) == ""

    def test_the_user_s_choice_is_a_key_decision_after_its_request_is_done(self) -> None:
        """The choice stays true after the request that stated it: it is kept as a key
        decision, and the request itself is an earlier goal."""
        memory = derive(
            user("Add a skill that gives a repo overview"),
            assistant("Ten names: repo-overview, code-tour, … I recommend repo-overview."),
            user("call it code-tour"),
            assistant("Renamed the skill to code-tour."),
            user("now add diagrams"),
        )
        assert "user said: “call it code-tour”" in texts(memory.key_decisions)
        assert "“call it code-tour”" in texts(memory.earlier_goals)

    def test_the_current_goal_s_choice_is_not_repeated_as_a_decision(self) -> None:
        """While the request is the current goal, the goal shows its choice: no key decision
        repeats it."""
        memory = derive(
            user("Add a skill that gives a repo overview"),
            assistant("Added the skill as repo-overview."),
            user("and we need to stop calling it Entire Skills, it's just skills"),
        )
        assert memory.current_goal is not None
        assert "stop calling it Entire Skills" in memory.current_goal.text
        assert not [t for t in texts(memory.key_decisions) if "Entire Skills" in t]


class TestLongGoal:
    def test_a_goal_cut_at_its_cap_keeps_its_head_and_tail(self) -> None:
        """A request longer than the goal's cap keeps its start and its end (what it asks
        for is often in its last sentence)."""
        request = (
            "Refactor the importer. "
            + "Some context about the old code path. " * 300
            + "Most important: keep the CLI flags unchanged."
        )
        goal = derive(user(request), budget=600).current_goal
        assert goal is not None and goal.truncated
        assert goal.text.startswith("Refactor the importer.")
        assert goal.text.endswith("Most important: keep the CLI flags unchanged.")
        assert "\u2026" in goal.text

    def test_a_cut_goal_keeps_the_error_lines_of_a_pasted_log(self) -> None:
        """A request quoting a long log asks about its error: the line that reports it stays
        in the cut, between head and tail, and it is the failure the user brings."""
        log = "\n".join(f"[12:0{n % 10}] GET /api/progress 200" for n in range(400))
        error = "[JobManager] Job 7 failed: git checkout failed (exit 1): pathspec '.' unknown"
        request = f"The run ends with a git error:\n{log}\n{error}\n{log}"
        memory = derive(user(request), budget=600)
        goal = memory.current_goal
        assert goal is not None and goal.truncated
        assert goal.text.startswith("The run ends with a git error:") and error in goal.text
        (reported,) = memory.failed_attempts
        assert reported.text.startswith("reported by the user: \u201c")
        assert error[1:] in reported.text  # its "[" quoted as data

    def test_code_that_reports_an_error_is_no_error_reported(self) -> None:
        """A plan, a diff or a review the user pastes quotes the code that prints errors (a
        format string, a call given a string) or a message's template ("failed: ..."): that
        is no failure the user brings; the log line that reports one is."""
        plan = (
            "Implement the following plan:\n## Step 5\n```go\nif err := h(); err != nil {\n"
            '    fmt.Fprintf(os.Stderr, "Warning: dispatch failed: %v\\n", err)\n}\n```\n'
        )
        assert derive(user(plan)).failed_attempts == ()
        review = (
            "Review (no changes):\n1. Medium: the error prefix changed\n  src/jj.rs:664\n"
            '    op_name: &str, // prefix: "{op_name} failed: {e}"\n  - new: Describe failed: ...\n'
        )
        assert derive(user(review)).failed_attempts == ()
        task = (
            "Verify found 2 issues:\n\n1. Two bare `except Exception:` without `as e` in:\n"
            "   - backend/src/session.py:39\nPlease add `as e` and logging.\n"
        )
        assert derive(user(task)).failed_attempts == ()  # Python's except clause
        spec = (
            "Implement the following plan:\n## Token state\n"
            "- After connection error (entering backoff), emit `TokenState::Refreshing`.\n"
            "### 2. Bug fix: `LoadNodeData` missing `continue` after error (both packages)\n"
            "| `orchestrator.py` | add `logfire.error()` for exceptions |\n"
            "If `risk.json` doesn't exist, treat as a hard error (all orders blocked).\n"
            "Keep `cclog.Fatal(err)` and `(error: AxiosError) => Promise.reject(error)`.\n"
        )
        assert derive(user(spec)).failed_attempts == ()  # a document's lines, code, prose
        guide = (
            'Follow this guide:\n```python\ndef total(items):\n    """Sum the items.\n\n'
            "    Raises:\n        ValueError: If items list is empty or contains invalid data\n"
            '    """\n```\n'
        )
        assert derive(user(guide)).failed_attempts == ()  # a docstring's Raises entry
        log = plan + "It printed:\nWarning: dispatch failed: context deadline exceeded\n"
        (reported,) = derive(user(log)).failed_attempts
        assert "context deadline exceeded" in reported.text

    def test_a_reported_error_is_resolved_by_the_turn_that_changed_files(self) -> None:
        """The turn that answers a report with an edit is its fix, shown resolved; a turn
        that changed nothing leaves it open."""
        report = "It fails:\nstep 1 ok\nstep 2 ok\nError: pathspec '.' did not match"
        edit = call("Edit", {"file_path": "src/git.ts", "old_string": "a", "new_string": "b"},
                    call_id="c1", result="ok")  # fmt: skip
        closing = assistant("Wrapped the checkout in a try/catch.", action_type="final")
        fixed = derive(user(report), *edit, closing)
        assert [i.status for i in fixed.failed_attempts] == ["resolved"]
        untouched = derive(user(report), assistant("Which command?", action_type="final"))
        assert [i.status for i in untouched.failed_attempts] == ["open"]

    def test_a_request_that_only_mentions_errors_reports_none(self) -> None:
        """ "error messages" in prose is no error line."""
        request = "Implement the plan.\nKeep the error messages short.\nAdd tests.\nUpdate docs."
        assert derive(user(request)).failed_attempts == ()


class TestRootRequest:
    def test_the_root_request_survives_later_goals_at_a_small_budget(self) -> None:
        """The session's first request stays among earlier goals when later ones are evicted."""
        later = [user(f"Now rename helper number {n} in module utils_{n}.py to a clearer name")
                 for n in range(12)]  # fmt: skip
        work = [call("Edit", {"file_path": f"src/m{n}.py"}, call_id=f"c{n}", result="ok")
                for n in range(30)]  # fmt: skip
        memory = derive(user("Make the importer skip rows without an id"), *later, *work,
                        budget=300)  # fmt: skip
        earlier = texts(memory.earlier_goals)
        assert "\u201cMake the importer skip rows without an id\u201d" in earlier
        assert memory.earlier_goals[0].kind == "root_goal"

    def test_only_the_first_request_is_pinned(self) -> None:
        """Later goals pushed out become plain earlier goals."""
        memory = derive(user("first request"), user("second request"), user("third request"))
        assert [i.kind for i in memory.earlier_goals] == ["root_goal", "goal"]


class TestAnswerGist:
    def test_a_lead_in_line_gives_way_to_the_body(self) -> None:
        """ "All done. Here's the summary:" is a lead-in: the first points after it are shown."""
        answer = ("All done. Here's the summary:\n\n## What changed\n\n"
                  "- **lib/report.ex**: CSV export added\n- 87 tests, 0 failures\n")  # fmt: skip
        assert answer_gist(answer) == "lib/report.ex: CSV export added; 87 tests, 0 failures"

    def test_bold_marks_go_but_a_names_underscores_stay(self) -> None:
        """``**x**`` and ``__x__`` are bold marks; ``__init__.py`` in a code span and a
        tool's ``mcp__playwright__browser_navigate`` are names, kept whole."""
        answer = "Found it: `code` lacks `__init__.py`; use __mcp__ tools, **not** the plugin."
        assert answer_gist(answer) == (
            "Found it: `code` lacks `__init__.py`; use mcp tools, not the plugin."
        )
        said = "The `mcp__playwright__browser_navigate` instance works."
        assert answer_gist(said) == said

    def test_a_substantive_sentence_before_the_lead_in_is_kept(self) -> None:
        """Openers and the closing "Here's …:" go; what was done stays."""
        answer = ("All done. The epic is implemented and pushed. Here's a summary of the two "
                  "tasks completed in this session:\n\n- first task")  # fmt: skip
        assert answer_gist(answer).startswith("The epic is implemented and pushed.")

    def test_a_plain_answer_is_its_first_line(self) -> None:
        """An answer that starts with what was done is shown from its start."""
        answer = "Fixed mean() in calc/stats.py: it divided by n - 1. pytest passes (3 passed)."
        assert answer_gist(answer) == answer

    def test_final_answer_is_quoted_whole_where_the_session_stands(self) -> None:
        """A final answer is the agent's last message, every line of it; no completed work."""
        memory = derive(
            user("export"),
            assistant("Done! Here's the summary:\n\n- CSV export added to the report page",
                      action_type="final"),
        )  # fmt: skip
        assert memory.completed_work == ()
        [line] = texts(memory.where_stands)
        assert "Here's the summary:" in line and "CSV export added to the report page" in line

    def test_literal_line_break_escapes_are_never_shown(self) -> None:
        """A ``\\n`` written out in an answer or a command reads as a break or a space."""
        assert answer_gist("Done.\\n\\nAdded the --dry-run flag") == "Added the --dry-run flag"
        memory = derive(call("Bash", {"command": "printf 'a\\nb' | wc -l && make"}, result=""))
        assert "\\n" not in "".join(texts(memory.completed_work))


class TestWorkingDirectory:
    def test_paths_are_shown_relative_to_the_session_s_cwd(self) -> None:
        """With ``payload["cwd"]`` on a message, files and commands under it read relative."""
        memory = derive(
            event("message", role="user", content="fix it", cwd="/home/u/projects/shop"),
            call("Edit", {"file_path": "/home/u/projects/shop/lib/cart.ex"}, call_id="c1",
                 result="ok"),
            call("Bash", {"command": "cd /home/u/projects/shop && git push"}, "failed", "c2",
                 error="fatal: no upstream"),
        )  # fmt: skip
        assert "files changed: `lib/cart.ex`" in texts(memory.where_stands)
        assert texts(memory.failed_attempts)[0].startswith("Bash `git push`")

    def test_windows_paths_keep_their_separators(self) -> None:
        """Under a Windows directory, a file reads relative with ``/``; a Windows path keeps
        its ``\\t`` and ``\\n`` (``src\\terminal``): they are separators, not escapes."""
        memory = derive(
            event("message", role="user", content="fix it", cwd="D:\\oh-my-posh"),
            call("Edit", {"file_path": "D:\\oh-my-posh\\src\\terminal\\writer.go"},
                 call_id="c1", result="ok"),
            call("Bash", {"command": "go test D:\\oh-my-posh\\src\\node\\x_test.go"},
                 "failed", "c2", error="FAIL"),
        )  # fmt: skip
        assert "files changed: `src/terminal/writer.go`" in texts(memory.where_stands)
        assert "src\\node\\x_test.go" in texts(memory.failed_attempts)[0]

    def test_the_latest_cwd_wins_and_survives_a_snapshot(self) -> None:
        """A later transition's cwd replaces the first; a restored deriver keeps it."""
        deriver = SessionMemoryDeriver(budget_tokens=1200)
        deriver.apply_all([
            event("message", role="user", content="go", cwd="/a"),
            event("state_transition", reason="tool_started", cwd="/b"),
        ])  # fmt: skip
        restored = SessionMemoryDeriver.restore(deriver.snapshot())
        restored.apply_all(call("Edit", {"file_path": "/b/src/x.py"}, result="..."))
        assert "files changed: `src/x.py`" in texts(restored.memory.where_stands)

    def test_files_are_named_from_the_project_after_the_shell_moves(self) -> None:
        """A ``cd`` into a subdirectory moves Claude Code's ``cwd``: a file edited before
        and after it is one file, named from the session's first directory."""
        memory = derive(
            event("message", role="user", content="fix it", cwd="/home/u/vpn"),
            call("Edit", {"file_path": "/home/u/vpn/frontend/src/app.tsx"}, call_id="c1",
                 result="ok"),
            event("state_transition", reason="tool_started", cwd="/home/u/vpn/frontend"),
            call("Edit", {"file_path": "/home/u/vpn/frontend/src/app.tsx"}, call_id="c2",
                 result="ok"),
            call("Edit", {"file_path": "/home/u/vpn/README.md"}, call_id="c3", result="ok"),
        )  # fmt: skip
        assert "files changed: `README.md`, `frontend/src/app.tsx`" in texts(memory.where_stands)

    def test_a_long_path_keeps_its_file_name(self) -> None:
        """A path too long for its span is shortened from the left."""
        shown = path_code("/srv/" + "deep/" * 30 + "components/layouts/root.html.heex", 60)
        assert shown.endswith("/layouts/root.html.heex`")
        assert shown.startswith("`\u2026/")

    def test_other_directories_are_left_alone(self) -> None:
        """A sibling directory sharing the cwd's prefix is not made relative."""
        assert relative("/home/u/shop-old/a.py", "/home/u/shop") == "/home/u/shop-old/a.py"
        assert relative("/home/u/shop", "/home/u/shop") == "."


def test_an_earlier_request_keeps_its_end() -> None:
    """A long earlier request keeps its head and its tail: what it asks often comes after
    the output it quotes."""
    pasted = "\n".join(f"Counting objects: {i}%" for i in range(0, 100, 3))
    request = f"the kubernetes sync worked, but this one did not:\n{pasted}\nit went to 74GB ram"
    memory = derive(user(request), user("add a guard for that"))
    (earlier,) = memory.earlier_goals
    assert earlier.text.startswith("\u201cthe kubernetes sync worked")
    assert earlier.text.endswith("it went to 74GB ram\u201d")


def test_an_earlier_request_says_its_middle_in_the_room_left() -> None:
    """A long request is kept cut, head and tail; as the memory is read, the room the rest
    leaves shows its middle, where a constraint often is ("never push sensitive data"); the
    memory stays within its budget."""
    request = (
        "create a new github repo named imessage-mail and copy the skill into it. "
        + "Describe each tool in the readme. " * 6
        + "as always never push sensitive data. "
        + "Use generic examples in the readme. " * 6
        + "also note that apple asks for permission once."
    )
    roomy = derive(user(request), user("now push the trace file"))
    (earlier,) = roomy.earlier_goals
    assert "never push sensitive data" in earlier.text
    assert earlier.text.endswith("apple asks for permission once.\u201d")
    assert roomy.tokens_used <= 1200
    tight = derive(user(request), user("now push the trace file"), budget=200)
    assert tight.tokens_used <= 200 and len(tight.earlier_goals) == 1
