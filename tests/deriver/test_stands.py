"""Where the session stands (deriver/stands.py): each item only while it is true at the end."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from deriver.agent_text import question_of, quote_head_tail
from deriver.git_state import commit_line
from session_memory.core.tokens import counter
from tests.deriver.test_rules import assistant, bash, call, derive, event, texts, user
from tests.deriver.test_rules import tool as tool_event
from viewbuilder import render_memory


def final(content: str) -> dict[str, object]:
    return assistant(content, action_type="final")


LATER = (final("Done."), user("next"))
"""Another turn: the closing message before it is no longer what the latest request follows
(shown where the session stands), but history."""


class TestLastMessage:
    def test_the_closing_message_is_quoted_in_full(self) -> None:
        """Every sentence of the agent's closing message is kept, not only the first."""
        memory = derive(user("fix the parser"), final("Fixed it.\n\nNext: the lexer needs work."))
        assert texts(memory.where_stands) == [
            "the agent's last message: “Fixed it. ⏎ Next: the lexer needs work.”"
        ]

    def test_a_long_message_keeps_its_head_and_tail(self) -> None:
        """Cut to fit its share of the budget, the message keeps its start and its end."""
        long = "Start here. " + "filler words " * 400 + "Pushed to main."
        memory = derive(user("fix the parser"), final(long), budget=600)
        line = memory.where_stands[0].text
        assert "Start here." in line and "Pushed to main." in line and "\u2026" in line

    def test_the_question_a_message_ends_with_is_quoted_once(self) -> None:
        """The question shows whole on its awaiting line; the message, cut to fit, keeps
        the words before it (a question too long for that line stays in the message)."""
        long = "Start here. " + "filler words " * 400 + "Tests pass.\n\nWant me to push?"
        memory = derive(user("fix the parser"), final(long), budget=600)
        message, awaiting = texts(memory.where_stands)
        assert "Tests pass.”" in message and "push" not in message
        assert awaiting == "awaiting the user's answer to: “Want me to push?”"
        only = derive(user("fix the parser"), final("Which do you prefer?"))
        assert texts(only.where_stands) == ["awaiting the user's answer to: “Which do you prefer?”"]

    def test_an_earlier_closing_message_becomes_a_decision(self) -> None:
        """A closing message that states a choice is a key decision once a new turn follows
        it; while the latest request is the one that followed it, it says where the session
        stands (what that request answers), there and not twice."""
        turns = (user("fix the parser"), final("The heuristic is too brittle, so I parse."),
                 user("now the lexer"))  # fmt: skip
        memory = derive(*turns)
        said = "“The heuristic is too brittle, so I parse.”"
        assert texts(memory.where_stands) == [f"before the latest request, the agent said: {said}"]
        assert not any("too brittle" in t for t in texts(memory.key_decisions))
        assert not any("final answer" in t for t in texts(memory.completed_work))
        memory = derive(*turns, final("Lexed."), user("and the printer"))
        assert any("too brittle" in t for t in texts(memory.key_decisions))
        assert not any("too brittle" in t for t in texts(memory.where_stands))

    def test_a_request_added_to_while_the_agent_worked_answers_no_closing_message(
        self,
    ) -> None:
        """The agent reported the plan and the user asked for the fix; while the agent
        worked the user queued "You introduced ruff errors": the report is behind that work,
        no longer what the request answers, and is not quoted before it."""
        turns = (user("make a plan for the warnings"),
                 final("The investigation confirmed it: the engine leaks connections."),
                 user("Fix the leak then"),
                 call("Edit", {"file_path": "conftest.py"}, call_id="e1"))  # fmt: skip
        before = "before the latest request, the agent said"
        assert any(t.startswith(before) for t in texts(derive(*turns).where_stands))
        memory = derive(*turns, user("You introduced ruff errors. Fix those.", queued=True))
        assert not any(t.startswith(before) for t in texts(memory.where_stands))

    def test_a_kept_closing_message_leaves_out_the_question_answered(self) -> None:
        """The question a closing message ended with was the user's to answer, and the next
        request did: the decision kept is what the message concluded."""
        memory = derive(
            user("review the connection manager"),
            final("Issues #2 and #4 are acceptable trade-offs, so no action is needed.\n\n"
                  "What would you like to do about the race condition?"),
            user("Guard it"), final("Added the isConnecting guard."), user("now the docs"),
        )  # fmt: skip
        [kept] = [t for t in texts(memory.key_decisions) if "trade-offs" in t]
        assert "What would you like" not in kept

    @pytest.mark.parametrize(
        ("request_text", "closing", "next_request", "kept_end", "gone"),
        [
            ("simplify the push code",
             "Precomputed the empty packs because they depend only on the hash.\n"
             "The changes remain uncommitted in the working tree.",
             "commit and push", "because they depend only on the hash.", "uncommitted"),
            ("take a look at how the latest version has panned out",
             "Kept the level as it is, because it already teaches the flow.\n"
             "Worktree is clean except untracked `.codex/`.",
             "okay lets update the readme", "because it already teaches the flow.", "clean"),
            ("fix the loader",
             "Moved the parser to `src/app.ts` because v1.2 dropped it. The changes in "
             "`src/app.ts` are uncommitted.", "now the docs",
             "“Moved the parser to `src/app.ts` because v1.2 dropped it.", "uncommitted"),
            ("harden the session cookie",
             "Set HttpOnly because the frontend never reads the cookie. I haven't committed.",
             "yes commit it", "because the frontend never reads the cookie.", "committed"),
            ("check which beads can close",
             "Closing av-3 because its fix landed. No code changes were made. Main checkout "
             "is clean at `main...origin/main`.", "now fix the skill",
             "because its fix landed.", "clean"),
            ("address the review",
             "Bound the tools in the middleware because the fallback leaked. Nothing committed "
             "yet.", "commit and push", "because the fallback leaked.", "Nothing"),
        ],
    )  # fmt: skip
    def test_a_kept_closing_message_says_nothing_of_git_state(
        self, request_text: str, closing: str, next_request: str, kept_end: str, gone: str
    ) -> None:
        """A closing message kept as a decision loses its sentences on where the work stands
        in git ("The changes remain uncommitted"): the next commit makes them false, and
        where the session stands says it from the commands. A sentence ends at a mark before
        a blank, not at the dot of `app.ts`."""
        memory = derive(user(request_text), final(closing), user(next_request), *LATER)
        (kept,) = [t for t in texts(memory.key_decisions) if t.startswith("the agent concluded")]
        assert kept.endswith(f"{kept_end}\u201d") and gone not in kept

    @pytest.mark.parametrize(
        ("closing", "kept"),
        [
            ("Saved the constraint. Holding on the restructure until you tell me which "
             "approach you prefer.", False),
            ("Two options: a symlink or a copy. Which approach would you choose?", False),
            ("Let me know if you'd prefer the copy instead.", False),
            ("Skipped the name field per your call, so the folder name is used.", True),
            ("| A. `auto_summarize` (Recommended) | simple |\n| B. nested | room to grow |\n"
             "I recommend **Option A** because it is simple.\n\nWhich naming do you prefer?",
             False),
            ("Used a lock file because two hooks race. Want me to commit?", True),
            ("A fresh project, so you're at the very beginning.\n## Recommended Next Steps\n"
             "1. **Create Brief** — a guided experience\n2. **Create PRD** (required)\n"
             "What would you like to do?", False),
            ("Used a lock file because two hooks race. Want me to commit them as one commit, "
             "or fold them into the existing transport commit?", False),
        ],
    )  # fmt: skip
    def test_a_choice_left_to_the_user_is_no_decision(self, closing: str, kept: bool) -> None:
        """A closing message whose only words of choice ask the user to choose ("until you
        tell me which approach you prefer", a question) decided nothing: the user's answer
        does, and the message is overtaken by it."""
        memory = derive(user("fix the install"), final(closing), user("go with it"), *LATER)
        assert any(t.startswith("the agent concluded") for t in texts(memory.key_decisions)) is (
            kept
        )

    def test_a_revised_plan_replaces_the_plan_proposed_before(self) -> None:
        """Codex's plan mode ends each proposal with a ``<proposed_plan>``: once a revision is
        proposed, the plan before it is no decision of the session."""
        memory = derive(
            user("plan the broker"),
            final("<proposed_plan>\n# Broker\nUse the Authorization header for Google, "
                  "because Cloud Run reads it.\n</proposed_plan>"),
            user("the token should go in subject_token instead"),
            final("<proposed_plan>\n# Broker, revised\nReject Authorization with 401, "
                  "because the token belongs in subject_token.\n</proposed_plan>"),
            user("ok"),
            final("Noted."),
            user("next"),
        )  # fmt: skip
        decisions = " ".join(texts(memory.key_decisions))
        assert "Reject Authorization" in decisions
        assert "Use the Authorization header" not in decisions

    @pytest.mark.parametrize(
        ("reply", "kept"),
        [("Correct — I was sloppy on that. GitHub rejects hidden refs even into an empty "
          "target, so the warning ships on day one.", False),
         ("Good catch, my mistake: the lock is per repository.", False),
         ("You're right. I conflated two models: one principal per request.", False),
         ("Right, and the lock also covers the second hook.", True)],
    )  # fmt: skip
    def test_a_conclusion_the_agent_owns_was_wrong_is_no_decision(
        self, reply: str, kept: bool
    ) -> None:
        """The user corrects what a closing message concluded and the agent's next words own
        it ("I was sloppy on that"): that conclusion did not hold and leaves Key decisions."""
        memory = derive(
            user("add the flag"),
            final("Used a lock file because two hooks race; on a first sync it just works."),
            user("on a first sync it would not work for pull refs"),
            final(reply),
            user("next"),
        )
        assert any("two hooks race" in t for t in texts(memory.key_decisions)) is kept

    def test_a_fix_the_agent_finds_changed_nothing_is_no_decision(self) -> None:
        """The user answers a closing message with only a screenshot (no request); the
        agent's next words, "Still empty.", say its fix did not hold: the closing message it
        concluded with is not kept when the next turn closes."""
        memory = derive(
            user("the charts are empty"),
            final("Read the summary from topMeta, because it was sitting right there unparsed."),
            assistant("Still empty. The summary may live in the session-level metadata."),
            final("Read it in parseSessionMeta, because the summary is in the session's metadata."),
            user("now add a legend to each chart"),
            final("Added the legends."),
            user("thanks, now the dark theme"),
        )
        decisions = " ".join(texts(memory.key_decisions))
        assert "parseSessionMeta" in decisions
        assert "sitting right there" not in render_memory(memory)


class TestMidTurn:
    def test_the_agents_words_while_working_stay_within_the_budget(self) -> None:
        """Words said while working change where the session stands: the memory is fitted
        to its budget after them as after any change (they once were not, and a full memory
        went over by their tokens)."""
        todos = [{"content": f"Port module {i} of the billing service", "status": "pending"}
                 for i in range(30)]  # fmt: skip
        for words in (1, 5, 20):
            memory = derive(
                user("Port the billing service"),
                call("TodoWrite", {"todos": todos}, call_id="t1"),
                assistant("Checking the next module now. " * words),
                budget=260,
            )
            assert memory.tokens_used == counter().count(render_memory(memory)) <= 260

    def test_a_transcript_that_ends_inside_a_turn_keeps_the_agents_last_words(self) -> None:
        """Words said while working after the last closing message say where work stopped;
        the closing message is then the last closing one."""
        memory = derive(
            user("fix it"), final("Waiting on the fix agent."),
            assistant("Fix landed. Committing and pushing:"),
            *call("Bash", {"command": "git commit -am fix"}, call_id="c1")[:2],
        )  # fmt: skip
        assert texts(memory.where_stands)[:2] == [
            "the agent's last closing message: “Waiting on the fix agent.”",
            "unfinished: the agent, mid-turn: “Fix landed. Committing and pushing:”",
        ]

    def test_a_completed_run_or_a_closing_message_ends_the_turn(self) -> None:
        """A run that completed, or a turn closed, after the words: no longer mid-turn."""
        done = event("terminal", reason="completed")
        for ending in (done, final("Pushed.")):
            memory = derive(user("fix it"), assistant("Committing."), ending)
            assert not any("mid-turn" in t for t in texts(memory.where_stands))

    def test_a_todo_list_written_after_the_words_supersedes_them(self) -> None:
        """ "Let me now explore the source" then a todo list that marks the exploring done:
        the list says where the work stands; the words point at work already done."""
        todos = [
            {"content": "Explore the source", "status": "completed", "activeForm": "x"},
            {"content": "Check security", "status": "in_progress", "activeForm": "y"},
        ]
        memory = derive(
            user("audit the codebase"), assistant("Let me now explore the source:"),
            *call("TodoWrite", {"todos": todos}, result="ok"),
        )  # fmt: skip
        assert not any("mid-turn" in t for t in texts(memory.where_stands))


class TestAnswers:
    @pytest.mark.parametrize(
        ("reply", "answers"),
        [("post it", True), ("push them now", True),
         ("post it and close the issue", False), ("fix the tests", False)],
    )  # fmt: skip
    def test_a_reply_that_takes_up_the_step_offered_answers(
        self, reply: str, answers: bool
    ) -> None:
        """ "Say the word and I'll post it": "post it" takes up the one step offered, in its
        own words, and answers; a reply that asks for more, or for something else, is a
        request."""
        offer = (
            "Reply drafted.\n\nSay the word and I'll post it with `gh issue comment` and push "
            "the fix."
        )
        memory = derive(user("write the reply"), final(offer), user(reply))
        assert memory.current_goal is not None
        assert (memory.current_goal.text == "write the reply") is answers
        assert (
            any(
                t.startswith(f"user answered “{reply}” to: “Say the word")
                for t in texts(memory.where_stands)
            )
            is answers
        )

    def test_an_offer_of_this_or_that_is_not_taken_by_shared_words(self) -> None:
        """To "the minimal fix, or the restructure?", "do the proper fix" is a request."""
        offer = "Want me to implement the minimal fix, or the proper restructure?"
        memory = derive(user("check the plugin"), final(offer), user("do the proper fix"))
        assert memory.current_goal is not None
        assert memory.current_goal.text == "do the proper fix"

    @pytest.mark.parametrize(
        ("reply", "option"),
        [("B, nested - room to grow. use british spelling",
          "option B: `summarise.enabled` | Nested"),
         ("I think A. ensure we log", "option A: `auto_summarize` (Recommended) | Simple")],
    )  # fmt: skip
    def test_a_reply_that_opens_by_picking_an_option_answers(self, reply: str, option: str) -> None:
        """A longer reply that picks one of the options offered is the user's answer, bound
        to the option, not a new request."""
        menu = (
            "| Option | Description |\n|---|---|\n| **A. `auto_summarize` (Recommended)** | "
            "Simple |\n| **B. `summarise.enabled`** | Nested |\n\nI recommend **A** "
            "because it is simple. Which naming do you prefer?"
        )
        memory = derive(user("add auto summaries"), final(menu), user(reply))
        assert memory.current_goal is not None
        assert memory.current_goal.text == "add auto summaries"
        assert f"user answered “{reply}” to: “{option}”" in texts(memory.where_stands)

    @pytest.mark.parametrize(
        ("reply", "goal"),
        [("yes, please commit", "fix the parser"),
         ("1. fix the lexer, 2. fix the docs", "1. fix the lexer, 2. fix the docs")],
    )  # fmt: skip
    def test_a_short_reply_is_bound_to_the_question_it_answers(self, reply: str, goal: str) -> None:
        """ "yes, please commit" answers the agent's question and is not a new goal; a
        numbered list after a question that offers no options is a request."""
        memory = derive(
            user("fix the parser"), final("Done. Want me to commit this?"), user(reply)
        )  # fmt: skip
        assert memory.current_goal is not None
        assert memory.current_goal.text == goal
        answered = f"user answered “{reply}” to: “Want me to commit this?”"
        assert (answered in texts(memory.where_stands)) is (goal == "fix the parser")

    def test_the_first_words_after_a_question_are_its_answer(self) -> None:
        """The user asks while the agent works; its first words answer, and are kept."""
        memory = derive(
            user("could we also check the oldest ref and fail if it differs?"),
            assistant("That heuristic is too brittle: it rejects lagging targets.\n\nI'm keeping "
                      "the budget guard."),
            *bash("go test ./...", "ok", "c1"), final("Done: the guard aborts early."),
        )  # fmt: skip
        assert (
            "the agent answered “could we also check the oldest ref and fail if it differs?”: "
            "“That heuristic is too brittle: it rejects lagging targets. ⏎ I'm keeping the "
            "budget guard.”"
        ) in texts(memory.key_decisions)

    @pytest.mark.parametrize(
        ("asked", "said"),
        [
            ("how does it index?", "Good question, let me check the source."),
            ("can you open a PR?", "I'm checking the branch state first."),
            ("fix the lexer", "The lexer drops the last token."),
            (
                "Find out what is done and write it to a .md file:\nWhich DB (PostgreSQL?)\n"
                "Is 2FA needed?\nIs multi-tenancy needed?",
                "Launching the research in parallel.",
            ),
        ],
    )
    def test_words_that_only_say_what_comes_next_answer_nothing(
        self, asked: str, said: str
    ) -> None:
        """An announcement is no answer, and a request that asks nothing gets none; nor does
        one that asks several questions (a list of them to look into)."""
        memory = derive(user(asked), assistant(said), *bash("ls", "a.py", "c1"), final("Done."))
        assert not any(t.startswith("the agent answered") for t in texts(memory.key_decisions))

    @pytest.mark.parametrize("reply", ["1", "option 1", "the first one"])
    def test_a_reply_that_picks_an_option_is_bound_to_that_option(self, reply: str) -> None:
        """ "1" decides nothing without the option it picks: the option's line is kept."""
        offer = (
            "Two ways to draw it:\n1. **Mermaid in fenced code blocks**: both clients render "
            "it.\n2. ASCII trees: readable anywhere.\n\nWhich approach?"
        )
        memory = derive(user("add a diagram"), final(offer), user(reply))
        option = "option 1: Mermaid in fenced code blocks: both clients render it."
        assert f"user answered “{reply}” to: “{option}”" in texts(memory.where_stands)

    def test_a_reply_that_names_an_option_of_each_question_answers_them(self) -> None:
        """Two decisions asked, each with numbered options, "Reply with your choices": a
        reply of two lines, each the words an option starts with, picks them; it is an
        answer bound to those options, not a new goal. A line that names no option makes
        the reply a request."""
        asked = (
            "**[DN1] Metric 3 denominator**\nOptions:\n1. **Show no-data / 0** — return 0\n"
            "2. **Keep the guard** — max(x, 1)\n\n**[DN2] Cadence**\nOptions:\n1. **Strip "
            "the first zero bar** — slice index 0\n2. **Keep as-is**\n\nReply with your "
            "choices."
        )
        memory = derive(
            user("/review"), final(asked), user("Show no-data / 0\nStrip the first zero bar")
        )
        assert memory.current_goal is not None and memory.current_goal.text == "/review"
        [answered] = [t for t in texts(memory.where_stands) if t.startswith("user answered")]
        assert "option 1: Show no-data / 0 — return 0" in answered
        assert "option 1: Strip the first zero bar — slice index 0" in answered
        other = derive(user("/review"), final(asked), user("Show no-data / 0\nand add a legend"))
        assert other.current_goal is not None and other.current_goal.text.startswith("Show")

    def test_a_menu_numbered_from_zero_binds_zero_to_its_first_item(self) -> None:
        """A workflow's menu numbered from 0 ("0. Batch-apply all", "1. Fix them one by
        one"): "0" picks the item numbered 0, not the next one."""
        menu = (
            "That brings the total to 16 patch findings.\n\n**How would you like to handle "
            "them?**\n\n> **0. Batch-apply all** — fix every non-controversial patch\n> **1. "
            "Fix them automatically** — one by one\n> **2. Leave as action items**"
        )
        memory = derive(user("/review"), final(menu), user("0"))
        answered = "user answered “0” to: “option 0: Batch-apply all — fix every"
        assert any(t.startswith(answered) for t in texts(memory.where_stands))

    @pytest.mark.parametrize(
        ("reply", "answers"),
        [("only me", True), ("speed, aesthetics, focus", True), ("keep it simple", True),
         ("fix the flaky test instead", False), ("/simplify", False),
         ("what about the level 3 plans", False), ("which one is faster?", False),
         ("the importer drops rows with empty ids when run on a large file", False)],
    )  # fmt: skip
    def test_a_few_words_after_a_question_answer_it(self, reply: str, answers: bool) -> None:
        """A reply of a few words to the question the agent ended with is its answer, bound
        to it; one that asks, opens with a verb of work, runs a slash command or says more
        is a request."""
        asked = "Drafted the brief.\n\nWho else will use the dashboard?"
        memory = derive(user("/create-brief"), final(asked), user(reply))
        assert memory.current_goal is not None
        assert (memory.current_goal.text == "/create-brief") is answers
        answered = f"user answered “{reply}” to: “Who else will use the dashboard?”"
        assert (answered in texts(memory.where_stands)) is answers

    def test_a_menu_at_the_end_is_what_a_pick_answers(self) -> None:
        """A workflow's menu on the message's last line ("[A] … [C] Continue - …") is its
        question: "c" picks the menu's C, not an option C listed above it; a pick that only
        goes on to the next step decides nothing, one that chooses is kept."""
        step = (
            "Directions:\nA: Terminal — monospace\nB: Card Grid — two columns\nC: Compact "
            "Strip — one bar\n\n**[A] Advanced Elicitation [P] Party Mode [C] Continue - "
            "Save and move to user journeys**"
        )
        memory = derive(user("/design"), final(step), user("c"))
        assert "awaiting" not in " ".join(texts(memory.where_stands))
        assert (
            "user answered “c” to: “option C: Continue - Save and move to user journeys”"
            in texts(memory.where_stands)
        )
        memory = derive(user("/design"), final(step), user("c"), final(step), user("a"))
        assert [t for t in texts(memory.key_decisions) if t.startswith("user answered")] == []
        memory = derive(user("/design"), final(step), user("a"), final("Done."), user("x"))
        assert "user answered “a” to: “option A: Advanced Elicitation”" in texts(
            memory.key_decisions
        )
        assert question_of(step) == (
            "[A] Advanced Elicitation [P] Party Mode [C] Continue - Save and move to user journeys"
        )

    def test_a_question_at_the_end_awaits_an_answer(self) -> None:
        """A closing message that ends by asking the user is flagged as awaiting."""
        memory = derive(user("fix it"), final("Two options:\n1. A\n2. B\nWhich do you prefer?"))
        assert "awaiting the user's answer to: “Which do you prefer?”" in texts(memory.where_stands)

    def test_question_of_takes_the_last_question(self) -> None:
        assert question_of("Done. Shall I push? Or wait?\n") == "Or wait?"
        assert question_of("Done.\nAll good.") == ""
        # "e.g." and "etc." inside the question end no sentence.
        asked = "I haven't committed. One commit, or split (e.g. backend vs. frontend)?"
        assert question_of(asked) == "One commit, or split (e.g. backend vs. frontend)?"

    def test_a_question_starts_after_a_sentence_not_inside_a_name(self) -> None:
        """The "." of a file name or a version ends no sentence: the question is whole."""
        asked = "Or do you want a `writeup.md` created and linked, as in v1.2?"
        assert question_of(f"Removed the reference. {asked}") == asked
        assert question_of(f"**Done.** {asked}") == asked

    def test_a_question_mark_in_an_address_asks_nothing(self) -> None:
        """A URL's query or a path holds "?" without asking the user anything."""
        assert question_of("Open https://map.example.org/?lat=1&lon=2 to see it.") == ""
        assert question_of("It is served at map.example.org/?lat=1 now.") == ""
        assert question_of("Should I push (y/n)?") == "Should I push (y/n)?"


class TestEndState:
    def test_files_changed_after_the_last_commit_are_uncommitted(self) -> None:
        """Edits after the last successful commit are flagged; the commit not pushed is shown
        where the session stands, and in the completed work once pushed."""
        memory = derive(
            user("fix it"),
            call("Edit", {"file_path": "a.py"}, call_id="e1"),
            bash('git commit -m "fix a"', "[main 1a2b3c4] fix a\n 1 file changed", "g1"),
            call("Edit", {"file_path": "b.py"}, call_id="e2"),
        )
        assert "files changed and not committed: `b.py`" in texts(memory.where_stands)
        assert "committed and not pushed on `main`: `1a2b3c4` “fix a”" in texts(memory.where_stands)
        assert texts(memory.completed_work) == []

    def test_an_edit_that_puts_back_what_the_last_replaced_leaves_no_change(self) -> None:
        """A version bumped, then set back: the file is as it was, nothing of it to commit.
        An edit that sets back only part, or undoes an edit committed since, is a change."""

        def edit(old: str, new: str, n: int) -> list[dict[str, Any]]:
            args = {"file_path": "Makefile", "old_string": old, "new_string": new}
            return call("Edit", args, call_id=f"e{n}")

        notes = call("Edit", {"file_path": "ReleaseNotes.md", "old_string": "a",
                              "new_string": "b"}, call_id="n1")  # fmt: skip
        bump, back = (
            edit("VERSION := 1.5.4", "VERSION := 1.5.5", 1),
            edit("VERSION := 1.5.5", "VERSION := 1.5.4", 2),
        )
        memory = derive(user("release notes"), bump, notes, back)
        assert texts(memory.where_stands) == ["files changed: `ReleaseNotes.md`"]
        partly = edit("VERSION := 1.5.5", "VERSION := 1.5.4 # pinned", 3)
        memory = derive(user("release notes"), bump, notes, partly)
        assert texts(memory.where_stands) == ["files changed: `Makefile`, `ReleaseNotes.md`"]
        commit = bash('git commit -am "bump"', "[main 1a2b3c4] bump\n 1 file changed", "g1")
        memory = derive(user("release notes"), bump, commit, back)
        assert "files changed and not committed: `Makefile`" in texts(memory.where_stands)

    @pytest.mark.parametrize(
        ("command", "left"),
        [("git stash push -m 'wip' src/b.py", ["src/a.py"]), ("git stash", []),
         ("git stash push -p", ["src/b.py", "src/a.py"]),
         ("git stash list", ["src/b.py", "src/a.py"])],
    )  # fmt: skip
    def test_a_stash_puts_changes_aside(self, command: str, left: list[str]) -> None:
        """Changes stashed are not in the tree to commit: those of the paths named, else all
        (not a part of them, ``-p``; not ``git stash list``)."""
        memory = derive(
            user("switch branches"),
            call("Edit", {"file_path": "src/a.py"}, call_id="e1"),
            call("Edit", {"file_path": "src/b.py"}, call_id="e2"),
            bash(command, "Saved working directory and index state WIP on main", "g1"),
        )
        shown = [t for t in texts(memory.where_stands) if t.startswith("files changed")]
        files = ", ".join(f"`{path}`" for path in left)
        assert shown == ([f"files changed and not committed: {files}"] if left else [])

    def test_a_file_a_later_read_or_edit_finds_missing_is_no_change_left(self) -> None:
        """A file the session wrote that is gone by a later read or edit (removed, or reset
        away) has no change left to commit: it is not listed, the others stay."""
        missing = "File does not exist. Note: your current working directory is /p."
        memory = derive(
            user("write the plans"),
            call("Write", {"file_path": "docs/plans/rewrite.md"}, call_id="w1"),
            call("Write", {"file_path": "docs/backlog/packaging.md"}, call_id="w2"),
            call("Edit", {"file_path": "docs/backlog/packaging.md"}, "failed", call_id="e1",
                 error=missing),
        )  # fmt: skip
        assert texts(memory.where_stands) == ["files changed: `docs/plans/rewrite.md`"]

    @pytest.mark.parametrize(
        ("command", "output"),
        [("git status --short", "## main\n M src/b.py\n"),
         ("cd pkg && git status -s", " M ../src/b.py\n"),
         ("git status", "On branch main\nChanges not staged for commit:\n"
                        "\tmodified:   src/b.py\n")],
    )  # fmt: skip
    def test_a_status_of_the_whole_tree_says_which_files_are_still_changed(
        self, command: str, output: str
    ) -> None:
        """Files committed by someone else (between turns, by the user) are no longer
        changed: a status of the whole tree lists those that are."""
        memory = derive(
            user("fix it"),
            call("Edit", {"file_path": "src/a.py"}, call_id="e1"),
            call("Edit", {"file_path": "src/b.py"}, call_id="e2"),
            bash(command, output, "g1"),
        )
        assert "files changed and not committed: `src/b.py`" in texts(memory.where_stands)

    def test_files_a_status_lists_that_the_session_did_not_change_are_changed(self) -> None:
        """A status of the whole tree, run in the session's directory, lists files changed
        before the session, or by a sub-agent: they are not committed either, listed
        before the session's own. Run elsewhere (``cd pkg``), it names no more files."""
        short = " M src/a.py\n M docs/x.md\n?? src/new/\n"
        memory = derive(
            event("message", role="user", content="fix it", cwd="/w/shop"),
            call("Edit", {"file_path": "/w/shop/src/a.py"}, call_id="e1"),
            bash("cd /w/shop && git status --short", short, "g1"),
        )
        assert "files changed and not committed: `src/a.py`, `src/new/`, `docs/x.md`" in texts(
            memory.where_stands
        )
        memory = derive(
            event("message", role="user", content="fix it", cwd="/w/shop"),
            call("Edit", {"file_path": "/w/shop/src/a.py"}, call_id="e1"),
            bash("cd pkg && git status --short", " M ../src/a.py\n M b.py\n", "g1"),
        )
        assert "files changed and not committed: `src/a.py`" in texts(memory.where_stands)

    def test_files_changed_before_the_session_are_not_its_work(self) -> None:
        """What the session's first status lists, before it edited a file or ran a
        sub-agent, was changed before it: no file of its work, then or later."""
        first = bash("git fetch origin && git status --short --branch",
                     "## main...origin/main\n M examples/x.ts\n", "g0")  # fmt: skip
        memory = derive(
            event("message", role="user", content="fix it", cwd="/w/shop"),
            first,
            call("Edit", {"file_path": "/w/shop/src/a.py"}, call_id="e1"),
            bash("git status --short", " M examples/x.ts\n M src/a.py\n", "g1"),
        )
        assert "files changed and not committed: `src/a.py`" in texts(memory.where_stands)

    def test_a_first_status_of_a_clean_tree_is_a_look(self) -> None:
        """A first status that lists nothing says nothing was changed before the session:
        what a later one lists, after the session wrote files with a script (no edit tool),
        is its work, not more of what was there before it."""
        memory = derive(
            event("message", role="user", content="fix it", cwd="/w/shop"),
            bash("git status --short", "", "g0"),
            bash("python3 gen.py --write code/viz.py", "wrote code/viz.py", "w1"),
            bash("git status --short", " M .gitignore\nA  code/viz.py\n", "g1"),
        )
        assert "files changed and not committed: `code/viz.py`, `.gitignore`" in texts(
            memory.where_stands
        )

    def test_a_session_that_only_looks_lists_no_change_of_its_own(self) -> None:
        """An approval reviewer (or any session that only reads) looks at a tree another
        agent works in: what its statuses list is not its work, however often it looks;
        once it runs a command that does more than read, the next status lists its changes."""
        looks: list[dict[str, Any] | list[dict[str, Any]]] = [
            event("message", role="user", content="May this action run?", cwd="/w/shop"),
            bash("git status --short --branch && git branch --show-current && git remote "
                 "show origin | sed -n '1,80p'", "## main\n?? .pnpm-store/\nmain\n", "g0"),
            bash("git status --short", "?? .pnpm-store/\n M src/a.ts\n", "g1"),
        ]  # fmt: skip
        memory = derive(*looks, bash("git diff --stat", " src/a.ts | 2 +-\n", "g2"))
        assert not any("files changed" in t for t in texts(memory.where_stands))
        memory = derive(*looks, bash("npx prettier --write src/b.ts", "src/b.ts 20ms", "w1"),
                        bash("git status --short", " M src/a.ts\n M src/b.ts\n", "g3"))  # fmt: skip
        assert "files changed and not committed: `src/b.ts`" in texts(memory.where_stands)

    def test_a_status_followed_by_another_command_is_read(self) -> None:
        """``git status --short; git diff --stat``: the listing comes first, up to the
        first line that is none of it."""
        output = " M src/a.py\n?? src/b.py\n src/a.py | 2 +-\n 1 file changed\n"
        memory = derive(
            event("message", role="user", content="fix it", cwd="/w/shop"),
            call("Task", {"description": "implement b"}, call_id="t1", result="done"),
            bash("git status --short; git diff --stat", output, "g1"),
        )
        assert "files changed and not committed: `src/b.py`, `src/a.py`" in texts(
            memory.where_stands
        )

    def test_a_status_after_a_commit_on_its_line_says_what_it_left(self) -> None:
        """``git add a.py && git commit -m x && git status``: the commit took what it staged,
        and the long listing after it, last on the line, names what is still changed (a
        file an install rewrote, left out of the commit)."""
        output = (
            "[main 6dacbd6] fix a\n 1 file changed\nOn branch main\nYour branch is ahead of "
            "'origin/main' by 1 commit.\n\nChanges not staged for commit:\n"
            "\tmodified:   src/pkg.egg-info/SOURCES.txt\n\nno changes added to commit\n"
        )
        edits = [
            call("Edit", {"file_path": "a.py"}, call_id="e1"),
            bash("pip install -e .", "Successfully installed pkg", "i1"),
        ]
        asked = event("message", role="user", content="fix it", cwd="/w/shop")
        commit = 'git add a.py && git commit -m "fix a"'
        memory = derive(asked, *edits, bash(f"{commit} && git status", output, "g1"))
        assert texts(memory.where_stands) == [
            "files changed and not committed: `src/pkg.egg-info/SOURCES.txt`",
            "committed and not pushed on `main`: `6dacbd6` “fix a”",
        ]
        memory = derive(asked, *edits, bash(commit, output[:30], "g1"))
        assert not any("files changed" in t for t in texts(memory.where_stands))
        # A status of some paths lists only some: the commit took what was changed.
        memory = derive(asked, *edits, bash(f"{commit} && git status src/", output, "g1"))
        assert not any("files changed" in t for t in texts(memory.where_stands))

    @pytest.mark.parametrize(
        "command",
        ["git status src/", "git status -uno -s", "git status -s | head -1",
         "git status -s | grep src"],
    )  # fmt: skip
    def test_a_status_of_some_files_says_nothing_of_the_others(self, command: str) -> None:
        """A status of some paths, hiding untracked files, or seen through a filter or a
        window it fills (``| head -1``) lists only some: the others are still changed."""
        memory = derive(
            user("fix it"), call("Edit", {"file_path": "a.py"}, call_id="e1"),
            bash(command, " M src/b.py\n", "g1"),
        )  # fmt: skip
        assert "files changed and not committed: `a.py`" in texts(memory.where_stands)
        whole = derive(
            user("fix it"), call("Edit", {"file_path": "a.py"}, call_id="e1"),
            bash("git status -s | head -5", " M src/b.py\n", "g1"),
        )  # fmt: skip
        assert not any("a.py" in t for t in texts(whole.where_stands))  # all of it: a.py isn't

    @pytest.mark.parametrize(
        ("staging", "commit", "left"),
        [
            ("git add src/a.py docs/", 'git commit -m "fix a"', "`.claude/settings.json`"),
            ("git add src/a.py", 'git commit -m "fix a" 2>&1 | tail -3',
             "`.claude/settings.json`, `docs/x.md`"),
            ("git add src/a.py", "git commit -m fix docs/x.md",
             "`src/a.py`, `.claude/settings.json`"),
            ("git add -A", 'git commit -m "fix a"', ""),
            ("git add src/a.py", 'git commit -am "fix a"', ""),
            ("git add '*.py'", 'git commit -m "fix a"', ""),
            ("cd src && git add a.py", 'git commit -m "fix a"', ""),
            ("git mv docs/y.md docs/x.md && git add src/a.py", 'git commit -m "fix a"', ""),
        ],
    )  # fmt: skip
    def test_a_commit_of_some_files_leaves_the_others_changed(
        self, staging: str, commit: str, left: str
    ) -> None:
        """``git add`` of some paths, then a commit: the files git listed as changed that it
        did not take are still not committed. Staging all (``-A``, ``-a``, a pattern, a line
        that moves elsewhere, a git command that stages of its own) leaves none; a commit
        naming paths takes only those."""
        listing = " M src/a.py\n M docs/x.md\n M .claude/settings.json\n"
        memory = derive(
            event("message", role="user", content="fix it", cwd="/w/shop"),
            call("Edit", {"file_path": "/w/shop/src/a.py"}, call_id="e1"),
            bash("git status --short", listing, "g1"),
            bash(staging, "", "g2"),
            bash(commit, "[main 1a2b3c4] fix a\n 2 files changed", "g3"),
        )
        shown = [t for t in texts(memory.where_stands) if t.startswith("files changed")]
        assert shown == ([f"files changed and not committed: {left}"] if left else [])

    def test_a_merge_stopped_on_conflicts_stages_what_it_merged(self) -> None:
        """A merge that stops on conflicts has staged all it merged: the commit after
        ``git add`` of the conflicted files takes every change."""
        conflict = "CONFLICT (content): Merge conflict in bun.lock\nAutomatic merge failed"
        memory = derive(
            event("message", role="user", content="merge main", cwd="/w/shop"),
            call("Edit", {"file_path": "/w/shop/src/a.py"}, call_id="e1"),
            bash("git status --short", " M src/a.py\n M bun.lock\n", "g1"),
            bash("git merge origin/main", conflict, "g2", exit_code=1),
            bash("git add bun.lock && git commit --no-edit", "[main 1a2b3c4] Merge", "g3"),
        )
        assert not any(t.startswith("files changed") for t in texts(memory.where_stands))

    def test_a_file_known_changed_only_by_an_edit_is_not_kept_past_a_commit(self) -> None:
        """A file the session edited but no status listed may have been put back since: a
        commit of other files does not say it is still changed. One it removed (``rm``) has
        nothing left to commit."""
        memory = derive(
            event("message", role="user", content="fix it", cwd="/w/shop"),
            call("Edit", {"file_path": "/w/shop/src/a.py"}, call_id="e1"),
            call("Write", {"file_path": "/w/shop/src/repro_test.go"}, call_id="e2"),
            call("Edit", {"file_path": "/w/shop/src/b.py"}, call_id="e3"),
            bash("rm /w/shop/src/repro_test.go; go vet ./...", "", "r1"),
        )
        assert "files changed: `src/b.py`, `src/a.py`" in texts(memory.where_stands)
        commit = bash('git add src/a.py && git commit -m "fix a"', "[main 1a2b3c4] fix a", "g1")
        memory = derive(
            event("message", role="user", content="fix it", cwd="/w/shop"),
            call("Edit", {"file_path": "/w/shop/src/a.py"}, call_id="e1"),
            call("Edit", {"file_path": "/w/shop/src/b.py"}, call_id="e3"),
            commit,
        )
        assert not any(t.startswith("files changed") for t in texts(memory.where_stands))

    def test_a_short_status_after_other_output_is_read_from_its_first_file(self) -> None:
        """``git branch --show-current && git status --short``: with no branch line, the
        listing starts at its first file's line; a diff's stat line is none of it."""
        output = "fix/icons\n M scripts/build.sh\n M overlays/default.nix | 2 +-\n"
        memory = derive(
            event("message", role="user", content="fix it", cwd="/w/shop"),
            call("Edit", {"file_path": "/w/shop/src/a.py"}, call_id="e1"),
            bash("git branch --show-current && git status --short && git diff --stat",
                 output, "g1"),
        )  # fmt: skip
        shown = [t for t in texts(memory.where_stands) if t.startswith("files changed")]
        assert shown == ["files changed and not committed: `scripts/build.sh`"]

    def test_files_git_ignores_are_no_change_to_commit(self) -> None:
        """A plan written where .gitignore excludes it stays local: not "not committed",
        nor the next file written under the same directory."""
        memory = derive(
            user("write the plan"),
            call("Write", {"file_path": "docs/plans/design.md"}, call_id="e1"),
            call("Edit", {"file_path": "src/a.py"}, call_id="e2"),
            bash("git check-ignore -v docs/plans/design.md",
                 ".gitignore:52:docs/plans\tdocs/plans/design.md\n", "g1"),
            call("Write", {"file_path": "docs/plans/impl.md"}, call_id="e3"),
        )  # fmt: skip
        assert "files changed and not committed: `src/a.py`" in texts(memory.where_stands)
        memory = derive(
            user("write the plan"),
            call("Write", {"file_path": "docs/plans/design.md"}, call_id="e1"),
            bash("git add docs/plans/design.md", "The following paths are ignored by one of "
                 "your .gitignore files:\ndocs/plans\nhint: Use -f if you really want to add "
                 "them.\n", "g1", exit_code=1),
        )  # fmt: skip
        assert not any("files changed" in t for t in texts(memory.where_stands))

    def test_a_path_force_added_is_tracked_again(self) -> None:
        """``git add -f`` of an ignored file tracks it: its later edits are to commit."""
        refused = (
            "The following paths are ignored by one of your .gitignore files:\n"
            "priv/static/assets\nhint: Use -f if you really want to add them.\n"
        )
        memory = derive(
            user("style it"),
            call("Write", {"file_path": "priv/static/assets/app.css"}, call_id="e1"),
            bash("git add priv/static/assets/app.css", refused, "g1", exit_code=1),
            bash('git add -f priv/static/assets/app.css && git commit -m "css"',
                 "[main 1a2b3c4] css", "g2"),
            call("Edit", {"file_path": "priv/static/assets/app.css"}, call_id="e2"),
        )  # fmt: skip
        assert "files changed and not committed: `priv/static/assets/app.css`" in texts(
            memory.where_stands
        )

    def test_in_a_git_work_tree_files_changed_are_not_committed(self) -> None:
        """The adapter says the directory is on a git branch: a commit would take the files
        changed. A session that never ran git sees no commit, though the user may make one
        beside it: no commit of them is seen. One that runs git sees its commits."""
        opened = event("message", role="user", content="fix it", cwd="/w/shop", git_branch="main")
        edit = call("Edit", {"file_path": "/w/shop/a.py"}, call_id="e1")
        memory = derive(opened, edit)
        assert "files changed, no commit of them seen: `a.py`" in texts(memory.where_stands)
        memory = derive(opened, edit, bash("git status --short", " M a.py", "s1"))
        assert "files changed and not committed: `a.py`" in texts(memory.where_stands)
        memory = derive(user("fix it"), call("Edit", {"file_path": "a.py"}, call_id="e1"))
        assert "files changed: `a.py`" in texts(memory.where_stands)

    def test_git_options_before_the_subcommand(self) -> None:
        """``git -C /repo commit`` commits as ``git commit`` does; ``git -C /repo push``
        pushes it (git's own options come before its subcommand)."""
        memory = derive(
            user("fix it"), call("Edit", {"file_path": "a.py"}, call_id="e1"),
            bash('git -C /w/shop add a.py && git -C /w/shop commit -m "fix a"',
                 "[main 1a2b3c4] fix a\n 1 file changed", "g1"),
        )  # fmt: skip
        assert not any("files changed" in t for t in texts(memory.where_stands))
        assert "committed and not pushed on `main`: `1a2b3c4` “fix a”" in texts(memory.where_stands)
        memory = derive(
            user("fix it"), call("Edit", {"file_path": "a.py"}, call_id="e1"),
            bash('git commit -m "fix a"', "[main 1a2b3c4] fix a", "g1"),
            bash("git -c push.default=current --no-pager push", "", "g2"),
        )  # fmt: skip
        assert "committed and pushed on `main`: `1a2b3c4` “fix a”" in texts(memory.where_stands)

    @pytest.mark.parametrize("output", ["", "ok \u2713"])
    def test_a_quiet_commit_takes_the_files_changed(self, output: str) -> None:
        """`git commit -q`, or a proxy's "ok ✓", names no commit: the files are committed,
        and the commit is the message its command line gives."""
        memory = derive(
            user("fix it"), call("Edit", {"file_path": "a.py"}, call_id="e1"),
            bash('git commit -q -m "fix a"', output, "g1"),
        )  # fmt: skip
        assert not any("files changed" in t for t in texts(memory.where_stands))
        assert "committed and not pushed: “fix a”" in texts(memory.where_stands)

    @pytest.mark.parametrize("look", ["gh pr checks 12", "gh run watch 99", "glab ci status"])
    def test_a_push_after_the_last_look_at_ci_is_not_seen_by_it(self, look: str) -> None:
        """The session looked at CI, then pushed a fix and did not look again: the CI of
        the push is unseen. A look after the push, or no look at all, says nothing."""
        fix = bash('git commit -am "fix ci"', "[main 1a2b3c4] fix ci", "g1")
        unseen = "committed and pushed on `main`: `1a2b3c4` “fix ci”; its CI checks not seen"
        failed = bash(look, "test  fail  7m7s", "c1", exit_code=1)
        memory = derive(user("fix the build"), failed, fix, bash("git push", "", "p1"))
        assert unseen in texts(memory.where_stands)
        memory = derive(user("fix the build"), failed, fix, bash("git push", "", "p1"),
                        bash(look, "test  pass  5m1s", "c2"))  # fmt: skip
        assert "committed and pushed on `main`: `1a2b3c4` “fix ci”" in texts(memory.where_stands)
        memory = derive(user("fix the build"), fix, bash("git push", "", "p1"))
        assert unseen not in texts(memory.where_stands)
        # A push CI was seen to check, of a commit no line shows, is named by its hash alone.
        memory = derive(user("fix the build"), failed, bash("git push", "", "p1"))
        assert "pushed; its CI checks not seen" in texts(memory.where_stands)

    @pytest.mark.parametrize(
        "workflow", [".github/workflows/deploy.yml", "web/.gitlab-ci.yml", ".circleci/config.yaml"]
    )
    def test_a_push_after_changing_ci_is_not_seen_by_it(self, workflow: str) -> None:
        """The session changed CI's configuration (the deploy's permissions), then pushed and
        did not look at CI: whether the push's run passed is unknown. Another file changed,
        or a look after the push, says nothing."""
        edit = call("Edit", {"file_path": workflow}, call_id="e1")
        fix = bash('git commit -am "scope pages: write"', "[main f6856fd] scope pages", "g1")
        push = bash("git push", "", "p1")
        unseen = "committed and pushed on `main`: `f6856fd` “scope pages”; its CI checks not seen"
        assert unseen in texts(derive(user("fix the deploy"), edit, fix, push).where_stands)
        other = call("Edit", {"file_path": "deploy.md"}, call_id="e1")
        assert not any(
            "CI checks" in t for t in texts(derive(user("fix it"), other, fix, push).where_stands)
        )
        looked = derive(user("fix the deploy"), edit, fix, push, bash("gh run watch", "ok", "c1"))
        assert unseen not in texts(looked.where_stands)

    @pytest.mark.parametrize(
        "probe",
        ["cd /tmp/scratch/probe && git init -q && git add . && git commit -q -m x",
         'S=/private/tmp/claude-501/scratchpad/probe\ngit clone -q --local /w/shop $S\n'
         'cd $S\ngit -C $S commit --allow-empty -q -m "x"',
         'set -e\nT=$(mktemp -d /tmp/check.XXXXXX)\ngit worktree add --detach "$T" HEAD\n'
         '(\n  cd "$T"\n  git add a.py\n  git commit --quiet -m "x"\n)'],
    )  # fmt: skip
    def test_git_run_in_a_scratch_directory_is_another_repository(self, probe: str) -> None:
        """A probe repository made in /tmp (cd there, git init, commit; or a clone of the
        project in a directory the script names by a variable it set, ``cd $S``, a worktree
        in one ``mktemp -d`` made) commits nothing of the project: its changed files stay,
        and no commit is shown."""
        memory = derive(
            event("message", role="user", content="fix it", cwd="/w/shop"),
            call("Edit", {"file_path": "/w/shop/a.py"}, call_id="e1"),
            bash(probe, "", "g1"),
        )
        assert "files changed: `a.py`" in texts(memory.where_stands)
        assert not any("“x”" in t for t in texts(memory.where_stands))

    @pytest.mark.parametrize(
        ("command", "subject"),
        [("git add -A && git commit -q -F - <<'EOF'\nauthcode: redact the verifier\n\nbody\nEOF",
          "authcode: redact the verifier"),
         ("git commit -qm \"fix b\"", "fix b"), ("git commit --message=\"fix c\" -q", "fix c"),
         ("git commit -q -m \"$(cat <<'EOF'\nAllow strategy\n\nbody\nEOF\n)\"", "Allow strategy"),
         ("git commit --amend --no-edit -q", "")],
    )  # fmt: skip
    def test_the_subject_a_commit_command_line_gives(self, command: str, subject: str) -> None:
        assert commit_line(command).subject == subject

    def test_a_scratch_or_configuration_file_is_no_project_change(self) -> None:
        """A poll script in /tmp or a skill in ~/.claude is in no commit of the project."""
        memory = derive(
            event("message", role="user", content="fix it", cwd="/home/u/shop"),
            bash("git status", "clean", "g1"),
            call("Write", {"file_path": "/tmp/x/poll.sh"}, call_id="e1"),
            call("Write", {"file_path": "/home/u/.claude/skills/a/SKILL.md"}, call_id="e2"),
            call("Edit", {"file_path": "src/b.py"}, call_id="e3"),
        )  # fmt: skip
        assert "files changed and not committed: `src/b.py`" in texts(memory.where_stands)

    def test_a_project_in_tmp_named_late_keeps_its_changes(self) -> None:
        """Claude Code names the working directory only after a first prompt it queued: a
        file of a project in /tmp changed before that is a change, not a scratch file."""
        memory = derive(
            user("fix it"),
            call("Edit", {"file_path": "/tmp/run/work/checkout.py"}, call_id="e1"),
            event("message", role="assistant", content="Fixed.", cwd="/tmp/run/work",
                  metadata={"action_type": "final"}),
        )  # fmt: skip
        assert "files changed: `/tmp/run/work/checkout.py`" in texts(memory.where_stands)

    def test_a_session_without_git_says_files_changed(self) -> None:
        memory = derive(user("fix it"), call("Write", {"file_path": "a.py"}, call_id="e1"))
        assert texts(memory.where_stands) == ["files changed: `a.py`"]

    def test_a_push_settles_the_commit(self) -> None:
        """The last commit pushed is where the branch stands until another is made; then it
        is completed work."""
        pushed: list[Any] = [
            user("ship it"),
            bash('git commit -m "x"', "[main abcdef1] x", "g1"),
            bash("git push", "To origin\n", "g2"),
        ]
        memory = derive(*pushed)
        assert texts(memory.where_stands) == ["committed and pushed on `main`: `abcdef1` “x”"]
        assert texts(memory.completed_work) == []
        memory = derive(*pushed, bash('git commit -m "y"', "[main bcdef12] y", "g3"))
        assert texts(memory.where_stands) == ["committed and not pushed on `main`: `bcdef12` “y”"]
        assert texts(memory.completed_work) == ["committed and pushed `abcdef1` “x”"]

    def test_a_branch_made_in_the_session_is_where_its_work_goes(self) -> None:
        """A branch made with ``checkout -b`` (or ``switch -c``) is named with the one it was
        made from, once: a commit not pushed on it names it already, and a move to another
        branch (what git says, or ``git switch``) ends it."""
        made: list[dict[str, Any] | list[dict[str, Any]]] = [
            user("put up a PR"),
            bash("git checkout -b feat/libs main 2>&1", "Switched to a new branch", "b1"),
        ]
        memory = derive(*made)
        assert "on branch `feat/libs`, made in this session from `main`" in texts(
            memory.where_stands
        )
        committed = derive(*made, bash('git commit -m "x"', "[feat/libs abcdef1] x", "c1"))
        assert [t for t in texts(committed.where_stands) if "branch" in t or "feat/" in t] == [
            "committed and not pushed on `feat/libs`: `abcdef1` “x”"
        ]
        for back in (bash("git switch main", "", "s1"),
                     bash("gh pr merge 7 -d", "✓ Deleted local branch feat/libs and switched "
                          "to branch main", "s2")):  # fmt: skip
            assert not any("feat/libs" in t for t in texts(derive(*made, back).where_stands))

    def test_a_pull_request_opened_and_left_open(self) -> None:
        memory = derive(
            user("open a PR"),
            bash("gh pr create --fill", "https://github.com/o/r/pull/7\n", "p1"),
        )
        assert "pull request left open: `https://github.com/o/r/pull/7`" in texts(
            memory.where_stands
        )

    def test_the_boxes_its_description_left_unchecked_are_a_todo(self) -> None:
        """A pull request opened with a test plan whose boxes are not all checked leaves
        those still to be done or seen: a todo, as its description was last written, until
        it is merged."""
        body = (
            "## Summary\n- fix the build\n\n## Test plan\n- [x] `mise run lint` passes\n"
            "- [ ] Verify CI builds on Linux/Windows after merge\n- [ ] Try it on a device\n"
        )
        create = f"gh pr create --draft --title fix --body \"$(cat <<'EOF'\n{body}EOF\n)\""
        opened = [user("open a PR"), *bash(create, "https://github.com/o/r/pull/7\n", "p1")]
        memory = derive(*opened)
        assert "pull request left open: `https://github.com/o/r/pull/7`" in texts(
            memory.where_stands
        )
        assert texts(memory.todo_items) == [
            "the pull request's boxes left unchecked: “Verify CI builds on Linux/Windows "
            "after merge”, “Try it on a device”"
        ]
        checked = body.replace("- [ ]", "- [x]")
        assert not derive(*opened, bash(f"gh pr edit 7 --body '{checked}'", "", "p2")).todo_items
        merged = derive(*opened, bash("gh pr merge 7 --squash", "✓ Squashed and merged", "p3"))
        assert not merged.todo_items
        # As the forge shows it now (boxes ticked since, by anyone): the one still unchecked.
        ticked = body.replace("- [ ] Verify CI", "- [x] Verify CI")
        shown = orjson.dumps({"body": ticked, "url": "https://github.com/o/r/pull/7"}).decode()
        viewed = derive(*opened, bash("gh pr view --json body,url", shown, "p4"))
        assert texts(viewed.todo_items) == [
            "the pull request's boxes left unchecked: “Try it on a device”"
        ]
        other = orjson.dumps({"body": ticked.replace("- [ ]", "- [x]")}).decode()
        assert derive(*opened, bash("gh pr view 12 --json body", other, "p5")).todo_items

    def test_a_forge_tool_opens_a_pull_request_and_settles_the_attempts(self) -> None:
        """GitHub's MCP tool or app (``mcp__github__create_pull_request``,
        ``_create_pull_request``) opens the pull request its output names; the failed
        attempts to open one another way (``gh pr create``, ``gh api …/pulls -X POST``) are
        settled by it."""
        url = "https://github.com/o/r/pull/50"
        for tool in ("mcp__github__create_pull_request", "_create_pull_request"):
            memory = derive(
                user("raise a PR"),
                bash("gh pr create --base z --title x", "GraphQL: Head sha can't be blank",
                     "p1", exit_code=1),
                bash("gh api repos/o/r/pulls -X POST -f base=z", "Validation Failed (HTTP 422)",
                     "p2", exit_code=1),
                call(tool, {"base": "main", "head": "x"}, call_id="p3",
                     result=f'{{"url":"{url}","number":50,"state":"open"}}'),
            )  # fmt: skip
            assert f"pull request left open: `{url}`" in texts(memory.where_stands)
            assert [f.status for f in memory.failed_attempts] == ["resolved", "resolved"]

    def test_a_pull_request_recorded_twice_is_opened_once(self) -> None:
        """The client's own record of the pull request beside the command's output is the
        same pull request, said once: open where the session stands, not also completed."""
        memory = derive(
            user("open a PR"),
            bash("gh pr create --fill", "https://github.com/o/r/pull/7\n", "p1"),
            call("pull request", {"url": "https://github.com/o/r/pull/7"},
                 result="https://github.com/o/r/pull/7", call_id="p2"),
        )  # fmt: skip
        shown = [t for t in texts(memory.where_stands) if "pull request" in t]
        assert shown == ["pull request left open: `https://github.com/o/r/pull/7`"]
        assert texts(memory.completed_work) == []

    def test_a_pull_request_opened_before_another_stays_a_completed_step(self) -> None:
        memory = derive(
            user("open two PRs"),
            bash("gh pr create --fill", "https://github.com/o/r/pull/7\n", "p1"),
            bash("glab mr create --fill", "https://gitlab.com/o/r/-/merge_requests/8\n", "p2"),
        )
        assert texts(memory.completed_work) == [
            "opened pull request `https://github.com/o/r/pull/7`"
        ]
        assert "pull request left open: `https://gitlab.com/o/r/-/merge_requests/8`" in texts(
            memory.where_stands
        )

    @pytest.mark.parametrize(
        ("command", "merged", "method"),
        [
            ("gh pr merge 7 --squash --body 'all green'", "`https://github.com/o/r/pull/7`",
             "Squash merge (`gh pr merge --squash`)"),
            ("gh pr merge --rebase --delete-branch", "`https://github.com/o/r/pull/7`",
             "Rebase merge (`gh pr merge --rebase`)"),
            ("gh pr merge https://github.com/o/r/pull/7 -m", "`https://github.com/o/r/pull/7`",
             "Merge commit (`gh pr merge -m`)"),
            ("gh pr merge 5 --repo o/r -s --match-head-commit 39813c2", "#5",
             "Squash merge (`gh pr merge -s`)"),
            ("glab mr merge 3 --squash -m 'feat: x'", "#3",
             "Squash merge (`glab mr merge --squash`)"),
            ("gh pr merge 7", "`https://github.com/o/r/pull/7`", None),
        ],
    )  # fmt: skip
    def test_a_merge_names_its_pull_request_and_its_method(
        self, command: str, merged: str, method: str | None
    ) -> None:
        """A merge merges the pull request it names (the session's own when it names none,
        or names it by number or URL); the method it chose is how the project merges: a key
        decision that outlasts the merge."""
        memory = derive(
            user("ship it"),
            bash("gh pr create --fill", "https://github.com/o/r/pull/7\n", "p1"),
            bash(command, "", "p2"),
        )
        assert f"merged pull request {merged}" in texts(memory.completed_work)
        left_open = [t for t in texts(memory.where_stands) if t.startswith("pull request left")]
        assert left_open == ([] if "7" in merged else [
            "pull request left open: `https://github.com/o/r/pull/7`"
        ])  # fmt: skip
        methods = [t for t in texts(memory.key_decisions) if t.startswith("merge method")]
        assert methods == ([f"merge method: {method}"] if method else [])

    def test_a_log_that_shows_the_pull_requests_merge_commit_says_it_merged(self) -> None:
        """Merged on the forge, not by the session: ``git log`` on main shows "Merge pull
        request #7 from o/feat" (the forge's merge commit), and ``git status`` says "On branch
        main". The pull request is merged, its boxes moot, and the branch made is left.
        Another pull request's merge commit says nothing of this one."""
        body = "--body '## Test plan\n- [ ] Verify the nav links'"

        def session(log: str) -> Any:
            return derive(
                user("ship it"),
                bash("git checkout -b feat", "Switched to a new branch 'feat'", "b1"),
                bash(f"gh pr create --title x {body}", "https://github.com/o/r/pull/7\n", "p1"),
                bash("git status && git log --oneline -3", f"On branch main\n{log}", "s1"),
            )

        memory = session("00a3fce Merge pull request #7 from o/feat\nd4d0272 Refine hero")
        assert "merged pull request `https://github.com/o/r/pull/7`" in texts(memory.completed_work)
        rendered = render_memory(memory)
        assert "left open" not in rendered and "boxes left unchecked" not in rendered
        assert "made in this session" not in rendered
        other = session("bd0c1c7 Merge pull request #1 from o/chore-deps")
        assert "pull request left open: `https://github.com/o/r/pull/7`" in texts(
            other.where_stands
        )

    @pytest.mark.parametrize(
        ("command", "closed", "left_open"),
        [
            ("gh pr close --comment 'superseded by #9'", "`https://github.com/o/r/pull/7`", False),
            ("gh pr close 12 -c done", "#12", True),
            ("glab mr close 7", "`https://github.com/o/r/pull/7`", False),
        ],
    )  # fmt: skip
    def test_a_close_names_its_pull_request(
        self, command: str, closed: str, left_open: bool
    ) -> None:
        """``gh pr close 12`` closes pull request 12, not the one the session opened."""
        memory = derive(
            user("tidy up"),
            bash("gh pr create --fill", "https://github.com/o/r/pull/7\n", "p1"),
            bash(command, "", "p2"),
        )
        assert f"closed pull request {closed}" in texts(memory.completed_work)
        still = "pull request left open: `https://github.com/o/r/pull/7`"
        assert (still in texts(memory.where_stands)) is left_open

    def test_the_same_method_again_counts_up(self) -> None:
        memory = derive(
            user("merge them"),
            bash("gh pr merge 38 --squash", "", "p1"),
            bash("gh pr merge 39 --squash", "", "p2"),
            assistant("Merged both."),
        )
        [method] = [i for i in memory.key_decisions if i.text.startswith("merge method")]
        assert (method.text, method.count) == (
            "merge method: Squash merge (`gh pr merge --squash`)",
            2,
        )
        assert texts(memory.completed_work) == [
            "merged pull request #38",
            "merged pull request #39",
        ]

    @pytest.mark.parametrize(
        ("command", "left"),
        [
            ("git checkout -- src/a.py", ["src/b.py"]),
            ("git restore src/a.py", ["src/b.py"]),
            ("git -C /home/u/shop restore ./src/a.py", ["src/b.py"]),
            ("git restore src", []),
            ("git checkout .", []),
            ("git reset --hard", []),
            ("git restore --staged src/a.py", ["src/a.py", "src/b.py"]),
            ("git restore --source HEAD~1 src/a.py", ["src/a.py", "src/b.py"]),
            ("git checkout main -- src/a.py", ["src/a.py", "src/b.py"]),
            ("git checkout main", ["src/a.py", "src/b.py"]),
            ("git reset HEAD src/a.py", ["src/a.py", "src/b.py"]),
        ],
    )
    def test_changes_thrown_away_are_no_longer_uncommitted(
        self, command: str, left: list[str]
    ) -> None:
        """``git restore a.py`` or ``git reset --hard`` throws changes away: those files are
        not left to commit. Unstaging, or putting another version there, changes them."""
        memory = derive(
            event("message", role="user", content="fix it", cwd="/home/u/shop"),
            call("Edit", {"file_path": "/home/u/shop/src/b.py"}, call_id="e1"),
            call("Edit", {"file_path": "/home/u/shop/src/a.py"}, call_id="e2"),
            bash(command, "", "g1"),
        )
        shown = [t for t in texts(memory.where_stands) if t.startswith("files changed")]
        expected = [f"files changed and not committed: {', '.join(f'`{p}`' for p in left)}"]
        assert shown == (expected if left else [])

    @pytest.mark.parametrize(
        ("command", "output", "exit_code", "clean"),
        [
            ('git commit -m "x"', "On branch fix\nnothing to commit, working tree clean\n", 1,
             True),
            ("git status", "On branch main\nnothing to commit, working tree clean\n", 0, True),
            ("git status -sb", "## fix/team-optimization-v2\n", 0, True),
            ("git status --porcelain", "", 0, True),
            ("git status -s", " M src/a.py\n", 0, False),
            ("git status -s src/b.py", "", 0, False),
            ("git status -s && git diff --stat", "", 0, True),
            ("git diff --stat && git status -s", "", 0, False),
        ],
    )  # fmt: skip
    def test_git_saying_the_tree_is_clean_leaves_no_file_uncommitted(
        self, command: str, output: str, exit_code: int, clean: bool
    ) -> None:
        """Whoever committed the changes (a hook, the user), git saying "nothing to commit,
        working tree clean", or a short status of the whole tree listing no file (first of
        its command line), leaves no file to commit. A status of one path, or one after
        another command with no branch line to start its listing, says less."""
        memory = derive(
            user("fix it"),
            call("Edit", {"file_path": "src/a.py"}, call_id="e1"),
            bash(command, output, "g1", exit_code),
        )
        uncommitted = [t for t in texts(memory.where_stands) if t.startswith("files changed")]
        assert (uncommitted == []) is clean

    def test_a_merge_only_scheduled_leaves_the_pull_request_open(self) -> None:
        """``gh pr merge --auto`` merges once the checks pass: the pull request is open."""
        memory = derive(
            user("ship it"),
            bash("gh pr create --fill", "https://github.com/o/r/pull/7\n", "p1"),
            bash("gh pr merge 7 --auto --squash",
                 "\u2713 Pull request o/r#7 will be automatically merged via squash when all "
                 "requirements are met\n", "p2"),
        )  # fmt: skip
        assert "pull request left open: `https://github.com/o/r/pull/7`" in texts(
            memory.where_stands
        )
        assert not any(t.startswith("merged") for t in texts(memory.completed_work))


class TestUnfinished:
    def test_a_plan_exit_left_open_awaits_approval(self) -> None:
        """A plan-mode exit call with no result is a plan awaiting the user's approval."""
        memory = derive(user("plan it"), call("ExitPlanMode", {"plan": "Parse first"})[:2])
        assert "plan awaiting approval: “Parse first”" in texts(memory.where_stands)

    @pytest.mark.parametrize(
        ("status", "outcome", "said"),
        [("failed", {"status": "failed", "error": "denied"}, "not approved"),
         ("completed", {"status": "rejected", "error": "User rejected tool use"},
          "rejected by the user")],
    )  # fmt: skip
    def test_a_rejected_plan_is_not_approved(
        self, status: str, outcome: dict[str, str], said: str
    ) -> None:
        """A plan the call's failure refused is not approved, one the user rejected is said
        so, and either says where the work stands: not what the agent said before proposing
        it."""
        args = {"plan": "Parse first"}
        memory = derive(
            user("plan it"),
            assistant("Now I understand the issue. Let me launch a Plan agent to design it."),
            tool_event("requested", "ExitPlanMode", "p1", args=args),
            tool_event("started", "ExitPlanMode", "p1", args=args),
            tool_event(status, "ExitPlanMode", "p1", outcome=outcome),
        )
        assert texts(memory.where_stands) == [f"plan {said}: “Parse first”"]

    def test_a_question_the_user_declined_to_answer_in_its_form_is_no_failure(self) -> None:
        """AskUserQuestion rejected, the user wanting to clarify first: their answer to that
        question, a key decision, not a failed attempt shown open."""
        args = {"questions": [{"question": "Does the revised design hold now?"}]}
        declined = {"status": "rejected", "output": "The user wants to clarify these "
                    "questions.\n    This means they may have additional information."}  # fmt: skip
        memory = derive(
            user("design it"),
            tool_event("requested", "AskUserQuestion", "q1", args=args),
            tool_event("started", "AskUserQuestion", "q1", args=args),
            tool_event("completed", "AskUserQuestion", "q1", outcome=declined),
        )
        assert memory.failed_attempts == ()
        assert any(t.startswith("user answered \u201cThe user wants to clarify these questions.")
                   and "Does the revised design hold now?" in t
                   for t in texts(memory.key_decisions))  # fmt: skip

    def test_an_answer_typed_and_sent_again_as_the_request_is_the_request(self) -> None:
        """An answer the user typed into a question's form, which the client records again
        as their next message, is that request (the goal, and an earlier one once
        replaced), not also an answer beside it; a short pick stays the answer."""
        args = {"questions": [{"question": "Next?", "header": "Next"}]}
        typed = "ok, lets commit the review as it is, and then address H1, H2 and M3"
        answered = {"status": "completed", "output": f"Next: {typed}"}
        memory = derive(
            user("review phase 14"),
            tool_event("requested", "AskUserQuestion", "q1", args=args),
            tool_event("started", "AskUserQuestion", "q1", args=args),
            tool_event("completed", "AskUserQuestion", "q1", outcome=answered),
            user(typed),
        )
        assert memory.current_goal is not None and memory.current_goal.text == typed
        assert not any("user answered" in t for t in texts(memory.key_decisions))
        picked = {"status": "completed", "output": "Next: commit"}
        memory = derive(
            user("review phase 14"),
            tool_event("requested", "AskUserQuestion", "q1", args=args),
            tool_event("started", "AskUserQuestion", "q1", args=args),
            tool_event("completed", "AskUserQuestion", "q1", outcome=picked),
            user("commit"),
        )
        assert any("user answered" in t for t in texts(memory.key_decisions))

    def test_an_announced_step_not_taken(self) -> None:
        """A closing message that ends by announcing a step ended the turn before it."""
        memory = derive(user("fix it"), final("Tests pass. Let me commit the change."))
        assert any(t.startswith("unfinished: the agent announced") for t in texts(
            memory.where_stands
        ))  # fmt: skip

    def test_a_normal_end_says_nothing(self) -> None:
        """A run that completed adds no line; an interrupted one is qualified."""
        from tests.deriver.test_rules import event

        done = derive(user("fix it"), final("Done."), event("terminal", reason="completed"))
        assert not any("ended" in t for t in texts(done.where_stands))
        cut = derive(user("fix it"), event("terminal", reason="interrupted"))
        assert texts(cut.where_stands) == ["the last run did not complete: interrupted"]


def test_quote_head_tail_keeps_both_ends() -> None:
    quoted = quote_head_tail("a" * 50 + "b" * 50, 40)
    assert quoted.startswith("\u201caaa") and quoted.endswith("bbb\u201d") and len(quoted) <= 42


class TestEarlierClosingMessages:
    def test_an_earlier_closing_message_is_sized_by_the_budget(self) -> None:
        """The fold keeps an earlier closing message at a share of the budget, both ends (at
        600, about 300 characters); as the memory is read, the room the rest leaves lets it
        say more, the longest cut that fits, never past the budget."""
        long = "I chose the parser. " + "More detail here. " * 100 + "Tail of the message."
        turns = (user("fix the parser"), final(long), user("now the lexer"), *LATER)
        for budget, whole in ((600, True), (300, False)):
            memory = derive(*turns, budget=budget)
            [kept] = [i.text for i in memory.key_decisions if i.kind == "closing"]
            assert "I chose the parser." in kept and "Tail of the message." in kept
            assert (long in kept) is whole and memory.tokens_used <= budget

    def test_the_newest_closing_messages_say_more_as_the_memory_is_read(self) -> None:
        """Four earlier closing messages kept as decisions, each longer than its share: in
        the room left, the newest three are quoted whole, the oldest stays cut."""
        turns: list[Any] = []
        for n in range(4):
            said = f"I chose plan {n}. " + "Because of the load. " * 40 + f"End of {n}."
            turns += [user(f"task {n}"), final(said)]
        memory = derive(*turns, user("next"), *LATER, budget=4000)
        kept = [i.text for i in memory.key_decisions if i.kind == "closing"]
        assert len(kept) == 4
        assert ["Because of the load. " * 40 in t for t in kept] == [False, True, True, True]
        assert memory.tokens_used <= 4000

    def test_an_earlier_closing_message_goes_before_a_stated_decision(self) -> None:
        """Under pressure earlier closing messages are evicted before decisions stated as such."""
        turns = []
        for n in range(12):
            turns += [user(f"task number {n}"), final(f"Done with task {n}, so I moved on. " * 8)]
        memory = derive(assistant("Decision: keep the v1 API"), *turns, budget=600)
        assert "keep the v1 API" in texts(memory.key_decisions)
        assert memory.omitted_kinds.get("closing", 0) > 0


class TestSuperseded:
    def test_an_earlier_status_report_is_superseded(self) -> None:
        """A closing message that only reports a status is not kept once a newer one follows."""
        memory = derive(
            user("fix the parser"), final("Working tree is clean. All tests pass."),
            user("now the lexer"), final("Lexer fixed."),
        )  # fmt: skip
        assert not any("Working tree is clean" in t for t in texts(memory.key_decisions))

    @pytest.mark.parametrize(
        "reply",
        ["mise run lint is still failing", "nope, I don't see it", "it doesn't work",
         "this is not what I wanted, I wanted all the functionality it had before"],
    )  # fmt: skip
    def test_a_conclusion_the_user_says_did_not_hold_is_not_kept(self, reply: str) -> None:
        """ "Linting is clean, so I left the config" answered by "still failing": no decision."""
        memory = derive(
            user("fix linting"), final("Linting is clean, so I left the config as it was."),
            user(reply),
        )  # fmt: skip
        assert not any("Linting is clean" in t for t in texts(memory.key_decisions))

    def test_an_earlier_message_that_states_a_choice_is_kept(self) -> None:
        """A closing message that states a choice and its reason stays a key decision."""
        memory = derive(
            user("fix the parser"), final("I went with a real parser instead of regexes."),
            user("now the lexer"), final("Lexer fixed."), user("now the printer"),
        )  # fmt: skip
        assert any("instead of regexes" in t for t in texts(memory.key_decisions))


def test_an_answer_acted_on_leaves_where_the_session_stands() -> None:
    """Once the agent closes the turn an answer started, the answer is a key decision."""
    memory = derive(
        user("fix it"), final("Shall I retry the upload?"), user("try again"),
        final("Retried; the upload went through."),
    )  # fmt: skip
    assert not any(t.startswith("user answered") for t in texts(memory.where_stands))
    assert "user answered “try again” to: “Shall I retry the upload?”" in texts(
        memory.key_decisions
    )


@pytest.mark.parametrize("approval", ["yes", "ok, go ahead", "\U0001f44d"])
def test_an_approval_acted_on_decides_nothing_the_work_does_not_show(approval: str) -> None:
    """ "yes" to "Want me to commit?", once the agent did it, is history: no key decision.
    A pick among options stays one."""
    memory = derive(
        user("fix it"), final("Fixed. Want me to commit this?"), user(approval),
        final("Committed."), user("now the docs"),
    )  # fmt: skip
    assert not any(t.startswith("user answered") for t in texts(memory.key_decisions))
    picked = derive(
        user("draw it"), final("Two ways:\n1. Mermaid\n2. ASCII\n\nWhich one?"), user("1"),
        final("Drawn in Mermaid."), user("now the docs"),
    )  # fmt: skip
    assert "user answered “1” to: “option 1: Mermaid”" in texts(picked.key_decisions)


def test_a_run_completed_after_the_last_message_restores_alike() -> None:
    """The last message fitted again once the run completes: a snapshot restores the same
    memory, within the budget."""
    from deriver import SessionMemoryDeriver
    from tests.deriver.test_rules import event

    deriver = SessionMemoryDeriver(budget_tokens=600)
    deriver.apply_all([user("fix it"), final("Done. " + "word " * 400)])
    deriver.apply_all([event("terminal", reason="completed")])
    restored = SessionMemoryDeriver.restore(deriver.snapshot())
    assert restored.memory.to_json() == deriver.memory.to_json()
    assert deriver.memory.tokens_used <= 600


def test_a_cut_last_message_takes_the_room_the_rest_leaves() -> None:
    """The last message is cut to its share (a quarter of the budget) while the fold runs;
    read alone in a small memory it takes the unused room, and the rendered memory is
    exactly as many tokens as it says, within the budget."""
    from deriver import SessionMemoryDeriver
    from session_memory.core.tokens import counter
    from viewbuilder import render_memory

    closing = "Fixed. " + " ".join(f"step{n} done" for n in range(300)) + " Moved init earlier."
    deriver = SessionMemoryDeriver(budget_tokens=600)
    deriver.apply_all([user("fix the ads"), final(closing)])
    memory = deriver.memory
    (last,) = memory.where_stands
    assert last.tokens > 600 // 4 and "\u2026" in last.text
    assert counter().count(render_memory(memory)) == memory.tokens_used <= 600

    crowded = SessionMemoryDeriver(budget_tokens=600)
    crowded.apply_all([user(f"request {n}: " + "detail " * 30) for n in range(12)])
    crowded.apply_all([final(closing)])
    memory = crowded.memory
    assert memory.where_stands[0].tokens < last.tokens
    assert counter().count(render_memory(memory)) == memory.tokens_used <= 600


class TestPreviousMessage:
    """The closing message the latest request followed, in the room the rest leaves."""

    REPORT = (
        "Added the `resampling` config with:\n- `resolutions`: `[600, 300, 60]`\n"
        "- `trigger`: `300`\n\nRestart the backend for the config to take effect."
    )

    def test_what_the_latest_request_follows_is_shown(self) -> None:
        """ "What about the policy based approach?" answers the report before it: the report
        is quoted after the rest of the section, whole when the memory has room."""
        memory = derive(
            user("Add resample-config option to the current config"), final(self.REPORT),
            user("What about the policy based approach?"),
        )  # fmt: skip
        (line,) = [i.text for i in memory.where_stands if i.kind == "previous_message"]
        assert line.startswith("before the latest request, the agent said: “Added the")
        assert "[600, 300, 60]" in line and "Restart the backend" in line
        assert memory.where_stands[-1].kind == "previous_message"
        assert counter().count(render_memory(memory)) == memory.tokens_used

    def test_it_takes_only_the_room_the_rest_leaves(self) -> None:
        """Cut (both ends kept) to what is left, never evicting anything, within the budget;
        left out when not even 80 characters fit."""
        long = "Added the config. " + "Detail of the change. " * 200 + "Restart the backend."
        turns = [user("add the config"), final(long), user("now the policy")]
        roomy = derive(*turns, budget=1200)
        (line,) = [i.text for i in roomy.where_stands if i.kind == "previous_message"]
        assert "Added the config." in line and "Restart the backend." in line and "…" in line
        assert counter().count(render_memory(roomy)) == roomy.tokens_used <= 1200
        crowded = derive(
            *[user(f"request {n}: " + "detail " * 40) for n in range(12)], *turns, budget=600
        )
        assert not any(i.kind == "previous_message" for i in crowded.where_stands)
        assert crowded.omitted == derive(
            *[user(f"request {n}: " + "detail " * 40) for n in range(12)],
            user("add the config"), final("Added."), user("now the policy"), budget=600,
        ).omitted  # fmt: skip

    def test_a_message_kept_as_a_decision_is_not_repeated(self) -> None:
        """A closing message that states a choice, shown here, is not also a key decision;
        once another request follows, it is one, and no longer shown here."""
        turns = (user("fix the parser"), final("I went with a real parser instead of regexes."),
                 user("now the lexer"))  # fmt: skip
        memory = derive(*turns)
        assert [i.kind for i in memory.where_stands] == ["previous_message"]
        assert not any("instead of regexes" in t for t in texts(memory.key_decisions))
        memory = derive(*turns, *LATER)
        assert not any("instead of regexes" in t for t in texts(memory.where_stands))
        assert any("instead of regexes" in t for t in texts(memory.key_decisions))

    def test_its_git_state_and_question_are_left_out(self) -> None:
        """ "4 commits on the branch" and "not pushed yet" go stale at the next commit; the
        question it ended with is the one the request answered."""
        memory = derive(
            user("wrap up the bead"),
            final("The bead is resolved:\n- 4 commits on the branch\n- PR #29 open\n"
                  "- Not pushed yet.\nWant me to push it?"),
            user("and the docs?"),
        )  # fmt: skip
        (line,) = [i.text for i in memory.where_stands if i.kind == "previous_message"]
        assert "PR #29 open" in line
        assert "4 commits" not in line and "Not pushed" not in line and "push it" not in line

    def test_the_next_request_replaces_it(self) -> None:
        """Only the closing message of the latest request is shown, and a snapshot restores it."""
        from deriver import SessionMemoryDeriver

        deriver = SessionMemoryDeriver()
        deriver.apply_all([
            user("add the config"), final("Added the config; restart the backend."),
            user("now the policy"), final("Policy support added to config.go; tests pass."),
            user("and the docs"),
        ])  # fmt: skip
        (line,) = [i.text for i in deriver.memory.where_stands if i.kind == "previous_message"]
        assert "Policy support" in line and "restart the backend" not in line
        restored = SessionMemoryDeriver.restore(deriver.snapshot())
        assert restored.memory.to_json() == deriver.memory.to_json()


class TestTeamMessages:
    """In an agent team, what the agent last told another agent says where it stands."""

    def test_the_last_message_to_the_team_stands_until_the_next_request(self) -> None:
        """A teammate's report to its lead ("… Ready for commit/push.") is where it stands,
        the newest one only; the lead's next request starts a new turn without it."""
        report = {"type": "message", "recipient": "team-lead", "content": "INT-2 is done."}
        ready = {**report, "content": "All 5 tasks done, analyze clean. Ready for commit/push."}
        sent = (
            user("team-lead: do INT-2 and INT-5"),
            call("SendMessage", report, call_id="m1", result='{"success": true}'),
            call("SendMessage", ready, call_id="m2", result='{"success": true}'),
        )
        memory = derive(*sent)
        assert (
            "the agent's last message to team-lead: “All 5 tasks done, analyze clean. Ready for "
            "commit/push.”"
        ) in texts(memory.where_stands)
        assert not any("INT-2 is done" in t for t in texts(memory.where_stands))
        later = derive(*sent, user("team-lead: now INT-6"))
        assert not any("to team-lead" in t for t in texts(later.where_stands))

    def test_a_shutdown_answer_is_told_by_the_client_s_confirmation(self) -> None:
        """The agent approved its lead's shutdown request: the client's confirmation says
        the session ended; a lead's request that a teammate shut down says whom it asked."""
        confirmed = (
            '{"success": true, "message": "Shutdown approved. Sent confirmation to team-lead. '
            'Agent domain-dev is now exiting.", "request_id": "shutdown-1@domain-dev"}'
        )
        answer = {"type": "shutdown_response", "request_id": "shutdown-1", "approve": True}
        memory = derive(user("team-lead: build DOM-1"),
                        call("SendMessage", answer, call_id="m1", result=confirmed))  # fmt: skip
        assert texts(memory.where_stands)[-1] == (
            "the agent answered its lead's shutdown request: “Shutdown approved. Sent "
            "confirmation to team-lead. Agent domain-dev is now exiting.”"
        )
        request = {"type": "shutdown_request", "reason": "Story 4.4 review complete."}
        asked = {"to": "reviewer-fix", "message": request, "summary": "Shutdown reviewer-fix"}
        memory = derive(user("run the review"), call("SendMessage", asked, call_id="m1"))
        assert texts(memory.where_stands)[-1] == (
            "the agent asked reviewer-fix to shut down: “Story 4.4 review complete.”"
        )
