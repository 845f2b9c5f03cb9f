"""Where the session stands at the end of its transcript: the one module that knows it.

What the agent said last, in full; the user's short answer with the question it answers;
a question or a plan awaiting the user; calls left open and a step announced but not taken;
files changed and not committed, a commit not pushed, a pull request left open; a run that
did not end normally. Each item is there only while it is true at the end. The section is
never evicted: it is fitted to its own share of the budget (:attr:`MemoryStore.stands_cap`)
by cutting the middle of the last message, then dropping its last items. When the memory is
read, a last message so cut takes the room the rest leaves (:meth:`Stands.widened`).

Earlier closing messages and answers, replaced here, become key decisions (capped) when they
state a choice; the one the latest request followed is quoted here as the memory is read.
"""

from __future__ import annotations

from typing import Any, Final

from deriver.actions import actions_of
from deriver.agent_text import (
    MESSAGE_CHARS,
    QUESTION_CHARS,
    before_question,
    concedes,
    last_sentence,
    offer_of,
    only_continues,
    option_of,
    question_of,
    quote_head_tail,
    sole_question,
    states_choice,
    without_git_state,
)
from deriver.commits import Repositories
from deriver.conclusions import KEPT_WHOLE, concluded
from deriver.forge import Forge
from deriver.git_state import (
    CHANGED_KEPT,
    DISCARDS_RE,
    FORGE_PULLS,
    commits_ahead,
    elsewhere,
    git_said,
    in_scratch_dir,
    kept_after,
    listed,
    lists_after_commit,
    opens_pull,
    pull_action,
)
from deriver.keys import decision_key
from deriver.read_only import is_read_only_command as only_reads
from deriver.recording import decision
from deriver.shell import basename, simple_commands
from deriver.staging import stages_all, staging
from deriver.store import MemoryStore, Stamp
from deriver.tool_kinds import ToolKind
from deriver.user_text import announces, disputes, is_acknowledgement, reports_done, says_next_step
from deriver.wording import in_scratch, longest_cut, path_code, quote
from session_memory.core.outcome import ToolOutcome

__all__ = ["DECISION_CHARS", "Stands"]

DECISION_CHARS: Final = 400
"""An earlier closing message kept as a key decision: about 150 tokens at most."""
_CLOSING_TIER: Final = "completed_work"
_ANSWER_CHARS: Final = 120
_QUOTE_CHARS: Final = 240  # the agent's answer, its words mid-turn, a plan's head
_PLAN_STATES: Final = {"open": "awaiting approval", "rejected": "rejected by the user"}
_FILES_SHOWN: Final = 8
# In git: "not committed" when the session runs git; when it runs none, the user may commit.
_CHANGED: Final = {"": "files changed", "ran": "files changed and not committed",
                   "tree": "files changed, no commit of them seen"}  # fmt: skip
_NOT_STATE: Final = frozenset(
    {"store", "commits", "forge", "_quoted", "_lines", "_fits", "_built_from", "_cut_at"}
)
_MIN_MESSAGE_CHARS: Final = 40
_PROPOSED_PLAN: Final = "<proposed_plan>"


class Stands:
    """The facts of where the session stands, and the section's items rebuilt from them."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self.closing = ""
        self.closing_stamp: Stamp | None = None
        self.answer = self.question = ""
        self.answer_stamp: Stamp | None = None
        self.asked = ""
        """The question the user's last request ends by asking, until the agent speaks."""
        self.asked_working = False  # typed into the running turn (:meth:`extended`)
        self.said = ""
        """What the agent last said while working, until it closes its turn."""
        self.said_stamp: Stamp | None = None
        self.team_said = ""
        """The agent's last message to another agent of its team, until the next request."""
        self.team_stamp: Stamp | None = None
        self.previous = self.previous_kept = ""
        """The closing message the user's latest request followed, and the key decision it
        became, if one: shown as the memory is read instead of it (conclusions.py)."""
        self.previous_stamp: Stamp | None = None
        self.concluded = ""
        """The key decision the last closing message became, until the agent speaks again."""
        self.whole: dict[str, str] = {}  # the newest of them -> its words (deriver.conclusions)
        self.planned = ""
        """The key decision the last plan the agent proposed (Codex's ``<proposed_plan>``)
        became: a revised plan replaces it."""
        self.plan = ""
        self.plan_state = ""
        """"open" while a plan-mode exit awaits the user, "rejected" when refused."""
        self.plan_stamp: Stamp | None = None
        self.changed: list[str] = []
        self.changed_stamp: Stamp | None = None
        self.ignored: list[str] = []
        """Paths git said its ignore files exclude (a directory: all under it)."""
        self.before: list[str] | None = None
        """Files the first status listed, and any before the session ``acted``: not its work."""
        self.acted = False
        self.staged: list[str] | None = []  # by git add since the last commit (None: all)
        self.git_listed: list[str] = []  # the files git's last status listed, still changed
        self.git_used = ""  # "tree": the adapter says git tracks it; "ran": the session ran git
        self.commits = Repositories(store)
        self.forge = Forge(store)
        self.ending = ""
        self.ending_stamp: Stamp | None = None
        self.completed = False
        """Whether the last run completed after the agent's last message."""
        self._cut_at = MESSAGE_CHARS
        """The characters of the last message shown (fewer than it has when it was cut)."""
        self._fits: dict[int, int] = {}
        """The message length that fits each room asked for, for the current message."""
        self._quoted: dict[int, str] = {}
        """The last message quoted at each length asked for (the section is rebuilt often)."""
        self._lines: dict[tuple[object, ...], str] = {}
        """The files-changed and mid-turn lines by what they are made of: most rebuilds change
        one line and keep the others. It serves `apply` per event within 1.1x of 2836343
        (benchmarks/bench_apply.py: 21.1-21.3 µs early with it, 22.0-22.5 without)."""
        self._built_from: tuple[object, ...] = ()
        """What the section was last built from: a call that changes none of it (most do not)
        leaves the section as it is. It serves the target that `apply` per event be no slower
        than at e0e1568 (benchmarks/bench_fold.py, 50,000 events, side by side: 21.4 µs with
        it, 23.9 without, 22.5 at e0e1568)."""

    # -- what happened --------------------------------------------------------------------

    def user_said(self, content: str, answer: bool, stamp: Stamp) -> None:
        """A new turn: the closing message it follows, and any earlier answer, become key
        decisions; a short answer is bound to the question it answers."""
        picked = option_of(self.closing, content) if answer else ""
        question = picked or question_of(self.closing) or offer_of(self.closing)
        question = question or last_sentence(self.closing)
        self._keep_answer()
        if disputes(content):
            self.closing = ""  # "still failing": what it concluded did not hold
        closing, closing_stamp = self.closing, self.closing_stamp
        self.previous_kept = self.concluded if self._keep_closing() else ""
        self.previous, self.previous_stamp = closing, closing_stamp
        self.ending = ""
        self.completed = False
        if answer:
            self.answer, self.question, self.answer_stamp = content, question, stamp
        self.asked, self.asked_working = "" if answer else sole_question(content), False
        self.said = self.team_said = ""
        self.refresh()

    def messaged(self, said: str, stamp: Stamp) -> None:
        """A message the agent sent another agent of its team (its lead, a teammate), or its
        answer to its lead's shutdown request (:func:`deriver.calls.team_message`)."""
        self.team_said, self.team_stamp = said, stamp
        self.refresh()

    def extended(self, content: str) -> None:
        """The user added to the request while the agent worked on it: the closing message
        the request followed is behind that work, no longer what it answers. A question so
        added is answered by the agent's next words unless they end on its next step."""
        self.previous = ""
        self.asked, self.asked_working = sole_question(content), True

    def working_message(self, content: str, stamp: Stamp) -> bool:
        """The agent's first words after the user asked a question, said while working: its
        answer ("That heuristic is too brittle: …"), a key decision with the question. Only
        what it will do next ("Let me check.") answers nothing."""
        asked, working, self.asked = self.asked, self.asked_working, ""
        self._owns_wrong(content, stamp)
        self.said, self.said_stamp = content, stamp
        self.completed = False  # a run goes on after the last message
        self.refresh()
        reply = content.strip() if asked else ""
        first, last = reply.split("\n", 1)[0], last_sentence(reply)
        if not reply or says_next_step(first) or (working and says_next_step(last)):
            return False
        text = f"the agent answered {quote(asked, QUESTION_CHARS)}: {quote(reply, _QUOTE_CHARS)}"
        decision(self.store, "reply", text, stamp, tier=_CLOSING_TIER)
        return True

    def closing_message(self, content: str, stamp: Stamp) -> None:
        """The agent closed a turn with this message: an answer before it has been acted on,
        and goes to key decisions with its question."""
        self._keep_answer()
        self._keep_closing()
        self._owns_wrong(content, stamp)
        if self.planned and _PROPOSED_PLAN in content:
            if (item := self.store.get(decision_key(self.planned))) is not None:
                self.store.remove(item, stamp)  # revised: the plan proposed before is gone
            self.planned = ""
        self.asked = self.said = ""
        self.closing, self.closing_stamp = content, stamp
        self.completed = False
        self._quoted.clear()
        self._fits.clear()
        self.refresh()

    def terminal(self, reason: str, text: str, stamp: Stamp) -> None:
        """How the last run ended: shown only when it did not complete normally."""
        self.completed = reason == "completed"
        self.ending = "" if self.completed else text
        self.said = "" if self.completed else self.said  # a turn ended: no longer mid-turn
        self.ending_stamp = stamp
        self._fits.clear()  # the last message's line now starts differently
        self.refresh()

    def _owns_wrong(self, content: str, stamp: Stamp) -> None:
        """The agent's next words after a closing message kept as a key decision: when they
        own it was wrong ("Correct — I was sloppy on that"), it did not hold; nor does the
        closing message no request has followed yet ("Still empty.", after a screenshot)."""
        if (self.concluded or self.closing) and concedes(content):
            item = self.store.get(decision_key(self.concluded)) if self.concluded else None
            if item is not None:
                self.store.remove(item, stamp)
            if self.concluded and self.previous_kept == self.concluded:
                self.previous = self.previous_kept = ""  # nor is it where the session stands
            self.closing = ""
        self.concluded = ""

    def _keep_closing(self) -> bool:
        """Whether the closing message is kept as a key decision.

        A status report ("All tests pass.", "Working tree is clean.") is only true until the
        next one: the newer closing message supersedes it. A message that states a choice
        stays true after it and is kept, without the question it ended with (the user's next
        words answered it)."""
        closing, stamp = self.closing, self.closing_stamp
        self.closing, self.closing_stamp = "", None
        self._quoted.clear()
        self._fits.clear()
        if not closing or stamp is None or not states_choice(closing):
            return False
        # Sized by the budget, evicted before the decisions stated as such.
        said = without_git_state(before_question(closing))
        text = concluded(said, min(DECISION_CHARS, self.store.budget_tokens // 2))
        decision(self.store, "closing", text, stamp, tier=_CLOSING_TIER)
        self.whole = dict([*self.whole.items(), (text, said)][-KEPT_WHOLE:])
        self.concluded = text
        self.planned = text if _PROPOSED_PLAN in closing else self.planned
        return True

    def _keep_answer(self) -> None:
        # Without the question it answers, an answer ("ok, continue") decides nothing; nor do
        # the user's report of a step done ("I restarted the server") and "[C] Continue".
        if (
            self.answer
            and self.question
            and self.answer_stamp is not None
            and not (
                (is_acknowledgement(self.answer) or reports_done(self.answer))
                and not option_of(self.closing, self.answer)
            )
            and not only_continues(self.question)
        ):
            decision(self.store, "answer", self._answer_text(), self.answer_stamp)
        self.answer, self.question, self.answer_stamp = "", "", None

    def _answer_text(self) -> str:
        asked = f" to: {quote(self.question, QUESTION_CHARS)}" if self.question else ""
        return f"user answered {quote(self.answer, _ANSWER_CHARS)}{asked}"

    def plan_proposed(self, plan: str | None, stamp: Stamp) -> None:
        """A plan-mode exit requested: the plan awaits the user's approval. (Other calls
        still open are named in Todo, one line each: the section does not repeat them.)"""
        if self.plan_state != "open":
            self.plan, self.plan_state, self.plan_stamp = plan or "", "open", stamp
            self.refresh()

    def tool(
        self, kind: ToolKind, name: str, arg: str | None, outcome: ToolOutcome, stamp: Stamp
    ) -> None:
        """A tool call that finished."""
        if kind is ToolKind.SHELL and arg:
            if in_scratch_dir(arg, self.store.cwd):
                return  # a command run in a scratch directory: another repository's state
            place = elsewhere(arg, self.store.cwd)  # another repository beside the project
            if "git" in arg and not place:  # what git says of the changed files
                self.staged = None if stages_all(arg) else self.staged  # even on conflicts
                kept, self.ignored, listing = git_said(
                    self.changed, self.ignored, arg, outcome, self.store.cwd
                )
                if self.before is None or not self.acted:
                    # Its first look, or one before it changed anything: earlier changes.
                    self.before, kept = sorted({*(self.before or ()), *kept}), []
                else:
                    kept = [c for c in kept if c in self.changed or c not in (self.before or ())]
                self.git_listed = kept if listing else self.git_listed  # what git says changed
                if kept != self.changed:
                    self.changed[:] = kept
                    self.changed_stamp = self.changed_stamp or stamp
                    self.refresh()
            if self.forge.ran(arg, outcome.output, stamp):  # its log shows the merge commit
                self.commits.at(place).settle_pushed()
            # A command that does more than read changes files: a status then lists its work.
            self.acted = self.acted or (outcome.status == "completed" and not only_reads(arg))
        if kind is ToolKind.TASK:  # a sub-agent's changes are the session's
            self.before, self.acted = self.before or [], True
        if kind is ToolKind.PLAN_EXIT:  # it says where the work stands, not the words before it
            self.plan_state = outcome.status if outcome.status in ("failed", "rejected") else ""
            self.plan_stamp, self.said = stamp, ""
        elif kind is ToolKind.TODO and self.said:
            self.said = ""  # the todo list, written after them, says where the work stands
        elif outcome.status == "completed" and (
            opens_pull(name) or (kind is ToolKind.SHELL and arg)
        ):
            self._succeeded(kind, name, arg, outcome, stamp)
        else:
            # What the section is built from changed only by a command or a pull request that
            # worked: most calls need no rebuild compared against the last.
            return
        self.refresh()

    def in_git(self) -> None:
        """The adapter says git tracks the session's work tree: a commit takes its changes."""
        if not self.git_used:
            self.git_used = "tree"
            self.refresh()

    def edited(self, paths: tuple[str, ...], stamp: Stamp) -> None:
        """Files changed by a completed edit (of the project: not a scratch or configuration
        file, which no commit of it takes, nor a file git ignores)."""
        self.before, self.acted = self.before or [], True  # the next look sees its changes
        for path in paths:
            if in_scratch(path, self.store.cwd):
                continue
            self.forge.changed(path)
            shown = self.store.in_project(path)
            if self.ignored and listed(shown, self.ignored):
                continue
            if shown in self.changed:
                self.changed.remove(shown)
            self.changed.append(shown)
        del self.changed[:-CHANGED_KEPT]
        self.changed_stamp = stamp

    def gone(self, path: str) -> None:
        """A file with no change left to commit: found missing, or its edits undone."""
        if (shown := self.store.in_project(path)) in self.changed:
            self.changed.remove(shown)
            self.refresh()

    def _succeeded(
        self, kind: ToolKind, name: str, arg: str | None, outcome: ToolOutcome, stamp: Stamp
    ) -> None:
        if opens_pull(name):
            self._shell_action("$ gh pr", frozenset({"create"}), outcome.output, stamp)
            return
        if kind is not ToolKind.SHELL or not arg:
            return
        if outcome.exit_code not in (None, 0):
            return
        actions, place = actions_of(name, arg), elsewhere(arg, self.store.cwd)
        names = [action.name for action in actions]
        left = list(self.changed) if lists_after_commit(names, arg, outcome) else None
        if ("git" in arg or "rm" in arg) and not place:  # git add a.py && git commit; rm
            known, cwd = self.git_listed, self.store.cwd
            kept, self.staged = staging(arg, self.changed, self.staged, known, cwd)
            left = kept if left is None else left
        for action in actions:
            self._shell_action(action.name, action.targets, outcome.output, stamp, arg, place)
        if "git" in arg and (ahead := commits_ahead(arg, outcome)) is not None:
            self.commits.at(place).upstream_has(*ahead, stamp)  # after a commit or reset of it
        if left is not None:  # git commit && git status: the status (read before) says
            self.changed[:] = left  # what the commit left
        if "$ git push" in names:
            self.forge.pushed(self.commits.at(place).pushed_hash(), stamp)
        discards = bool(self.changed and DISCARDS_RE.search(arg))
        if discards or "merge" in arg or "close" in arg:
            for piped, words in simple_commands(arg):
                pull = None if piped else pull_action(words)
                if pull is not None and self.forge.ended(pull, outcome.output, stamp):
                    self.commits.at(place).settle_pushed()  # merged: history
                elif discards and not piped and basename(words[0]) == "git":
                    # Changes thrown away are no longer there to commit.
                    self.changed[:] = kept_after(self.changed, words[1:], self.store.cwd)

    def _shell_action(
        self,
        action: str,
        targets: frozenset[str],
        output: str,
        stamp: Stamp,
        command: str = "",
        place: str = "",  # another repository beside the project, where the command ran
    ) -> None:
        """What a successful command (its line, if a shell's) did to git and pull requests."""
        store = self.store
        if action.startswith("$ git"):
            self.git_used = "ran"
        opened = action in FORGE_PULLS and "create" in targets
        if store.goal is not None and (action in ("$ git commit", "$ git push") or opened):
            store.goal.shipped = True  # a request to commit or push is done
        if action == "$ git commit" and not place:
            self.changed.clear()  # committed, even when quiet (-q) or its output is filtered
        self.commits.at(place).ran(action, command, output, stamp)
        if action in FORGE_PULLS:
            self.forge.pulled(targets, command, output, stamp)

    # -- the section ----------------------------------------------------------------------

    def entries(self, message_chars: int) -> list[tuple[str, str, Stamp]]:
        """The section's items, the last message cut to ``message_chars`` (0: left out)."""
        message = self._message(message_chars)
        return [*([message] if message else []), *self._rest()]

    def _message(self, chars: int) -> tuple[str, str, Stamp] | None:
        closing, stamp = before_question(self.closing), self.closing_stamp
        if not closing or stamp is None or chars <= 0:
            return None
        quoted = self._quoted.get(chars)
        if quoted is None:
            if len(self._quoted) > 64:
                self._quoted.clear()
            quoted = self._quoted[chars] = quote_head_tail(closing, chars)
        # How the run ended qualifies the message it ended with: no line of its own.
        completed = "last run completed; " if self.completed else ""
        which = "last closing message" if self.said else "last message"
        return ("last_message", f"{completed}the agent's {which}: {quoted}", stamp)

    def _rest(self) -> list[tuple[str, str, Stamp]]:
        found: list[tuple[str, str, Stamp]] = []
        if self.answer and self.answer_stamp is not None:
            found.append(("answered", self._answer_text(), self.answer_stamp))
        if self.team_said and self.team_stamp is not None:
            head, _, words = self.team_said.partition(": ")
            said = f"{head}: {quote_head_tail(words, _QUOTE_CHARS)}"
            found.append(("team_message", said, self.team_stamp))
        found.extend([*self._awaiting(), *self._unfinished(), *self._end_state()])
        if self.ending and self.ending_stamp is not None:
            ending = f"the last run did not complete: {self.ending}"
            found.append(("ending", ending, self.ending_stamp))
        return found

    def _question(self) -> str:
        """The question the last message ends with, found once per message."""
        if -1 not in self._quoted:
            self._quoted[-1] = question_of(self.closing)
        return self._quoted[-1]

    def _awaiting(self) -> list[tuple[str, str, Stamp]]:
        found = []
        if self.closing and self.closing_stamp is not None:
            question = self._question()
            if question:
                quoted = f"awaiting the user's answer to: {quote(question, QUESTION_CHARS)}"
                found.append(("awaiting", quoted, self.closing_stamp))
        if self.plan_state and self.plan_stamp is not None:
            plan = quote(self.plan, _QUOTE_CHARS) if self.plan.strip() else ""
            what = _PLAN_STATES.get(self.plan_state, "not approved")
            text = f"plan {what}: {plan}" if plan else f"plan {what}"
            found.append(("plan_pending", text, self.plan_stamp))
        return found

    def _unfinished(self) -> list[tuple[str, str, Stamp]]:
        found = []
        closing, stamp = self.closing, self.closing_stamp
        if closing and stamp is not None and not self._question():
            if -2 not in self._quoted:
                self._quoted[-2] = last_sentence(closing)
            if announces(last := self._quoted[-2]):
                text = f"unfinished: the agent announced {quote(last, 200)}"
                found.append(("announced", text + " and ended its turn", stamp))
        if self.said and self.said_stamp is not None:
            # The transcript ends inside a turn: the agent's last words say what it was doing.
            key: tuple[object, ...] = ("said", self.said)
            line = self._lines.get(key)
            if line is None:
                said = quote_head_tail(self.said, _QUOTE_CHARS)
                line = self._line(key, f"unfinished: the agent, mid-turn: {said}")
            found.append(("mid_turn", line, self.said_stamp))
        return found

    def _line(self, key: tuple[object, ...], text: str) -> str:
        lines = self._lines
        if len(lines) > 64:
            lines.clear()
        lines[key] = text
        return text

    def _end_state(self) -> list[tuple[str, str, Stamp]]:
        found = []
        if self.changed and self.changed_stamp is not None:
            shown = self.changed[-_FILES_SHOWN:]
            key = ("files", *shown, len(self.changed), self.git_used)
            text = self._lines.get(key)
            if text is None:
                files = ", ".join(path_code(p) for p in reversed(shown))
                extra = len(self.changed) - _FILES_SHOWN
                more = f" (+{extra} more)" if extra > 0 else ""
                text = self._line(key, f"{_CHANGED[self.git_used]}: {files}{more}")
            found.append(("uncommitted", text, self.changed_stamp))
        found.extend(self.forge.lines(self.commits.lines()))
        return found

    def _facts(self) -> tuple[object, ...]:
        """Everything the section is built from."""
        return (
            self.store.stands_cap, self.closing, self.closing_stamp, self.completed,
            self.answer, self.question, self.answer_stamp,
            self.plan, self.plan_state, self.plan_stamp,
            len(self.changed), tuple(self.changed[-_FILES_SHOWN:]), self.changed_stamp,
            self.git_used, self.commits.facts(),
            self.forge.facts(),
            self.ending, self.ending_stamp, self.said, self.team_said,
        )  # fmt: skip

    def refresh(self) -> bool:
        """Rebuild the section and fit it to its share: the last message's middle is cut
        first (to the longest text that fits), then items are dropped from the end."""
        facts = self._facts()
        if facts == self._built_from:
            return True
        self._built_from = facts
        store = self.store
        cap = store.stands_cap
        # Each line counted once, as the item that shows it.
        rest = [store.stands_item(*entry) for entry in self._rest()]
        cost = store.stands_cost(rest)
        while rest and cost > cap:
            rest.pop()
            cost = store.stands_cost(rest)
        message = self._message(MESSAGE_CHARS)
        self._cut_at = MESSAGE_CHARS
        if message is not None:
            room = cap - cost
            if not rest:
                room -= store.tokens.stands_header
            room -= store.tokens.prefix(None, 1, None)
            if store.tokens.body(message[1]) > room:
                self._cut_at = self._fitting_chars(room)
                message = self._message(self._cut_at)
        store.set_stands([store.stands_item(*message), *rest] if message else rest)
        return True

    def widened(self, free: int) -> tuple[str, str, Stamp] | None:
        """The last message, shown cut, cut longer to take up to ``free`` more tokens: the
        room the rest of the memory leaves when it is read. None when it is shown whole or
        no longer cut fits."""
        shown = self.store.stands[0] if self.store.stands else None
        if shown is None or shown.kind != "last_message" or free <= 0:
            return None
        if self._cut_at >= min(MESSAGE_CHARS, len(before_question(self.closing))):
            return None
        chars = self._fitting_chars(shown.body_tokens + free)
        return self._message(chars) if chars > self._cut_at else None

    def _fitting_chars(self, room: int) -> int:
        """The longest cut of the last message whose line fits ``room`` tokens (0: none)."""
        found = self._fits.get(room)
        if found is None:
            body = self.store.tokens.body

            def fits(chars: int) -> bool:
                message = self._message(chars)
                return message is not None and body(message[1]) <= room

            found = self._fits[room] = longest_cut(fits, room, MESSAGE_CHARS, _MIN_MESSAGE_CHARS)
        return found

    # -- snapshots ------------------------------------------------------------------------

    def to_state(self) -> dict[str, Any]:
        return {
            "commits": self.commits.to_state(),
            "forge": self.forge.to_state(),
            **{
                name: (list(value) if isinstance(value, (tuple, list)) else
                       dict(value) if isinstance(value, dict) else value)
                for name, value in vars(self).items() if name not in _NOT_STATE
            },
        }  # fmt: skip

    def load_state(self, state: dict[str, Any]) -> None:
        self.commits.load_state(state["commits"])
        self.forge.load_state(state["forge"])
        for name in vars(self):
            if name in _NOT_STATE:
                continue
            value = state[name]
            if name.endswith("_stamp"):
                value = None if value is None else (value[0], value[1])
            setattr(self, name, value)
        self.refresh()
