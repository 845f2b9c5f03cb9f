"""Rules for the tool-call lifecycle: requested, started, completed, failed.

A ``tool_lifecycle`` event, parsed into a :class:`~deriver.calls.ToolEvent` (pure; a finished
call carries its typed :class:`~session_memory.core.outcome.ToolOutcome`), is applied here:
open calls are todos, started and unfinished calls are uncertain. A finished call is a
check's run, a failed attempt, or what its kind of call did (:meth:`ToolCallRules._did`): a
file change (shown where the session stands), a todo list, a task tracker's issues, a
sub-agent's work... Reads, searches and other calls that only look are no milestone and
leave no item.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

from deriver.actions import found_missing, only_looked, only_looks
from deriver.agent_text import reports_unfinished
from deriver.calls import FINISHED, SHUTDOWN_ANSWER, Call, ToolEvent
from deriver.check_commands import hooks_passed
from deriver.checks import CheckRules
from deriver.deploys import shipped
from deriver.git_state import CHANGED_KEPT, commit_line, says_clean
from deriver.goal import steps_apart
from deriver.keys import ItemKey, done_key
from deriver.output_scan import exit_code_from_output, informative_line
from deriver.recording import Failures, bump, decision
from deriver.stands import Stands
from deriver.store import MemoryStore, Stamp
from deriver.task_tracker import todo_files_written, tracker_changes
from deriver.todo_lists import TodoLists, todo_list
from deriver.tool_kinds import (
    ToolKind,
    is_side_effecting,
)
from deriver.user_text import first_line
from deriver.wording import (
    EXCERPT_CHARS,
    FAILURE_ARG_CHARS,
    MAX_OPEN_CALLS,
    code,
    describe,
    failure_target,
    json_object,
    quote,
    relative,
)
from session_memory.core.outcome import ToolOutcome
from session_memory.core.redact import quote_untrusted

__all__ = ["ToolCallRules", "answered_in_words"]

_ANSWER_CHARS: Final = 400
_OWN_WORDS: Final = 40  # characters of a typed answer compared with the message after it
_SHIPPED_CHARS: Final = 120
_CUT_KEPT: Final = 64
_NET_KEPT: Final = 16
"""Edits of one file kept to undo: past them the file's start is unknown ("*")."""


# Calls that put something to the user, by what they put: refused with the user's words,
# their answer.
_ASKS_USER: Final = {ToolKind.PLAN_EXIT: "plan", ToolKind.QUESTION: "question"}
# A tool's name: a model's malformed call names none ("Task\" >\n<parameter name=…").
_TOOL_NAME_RE: Final = re.compile(r"[\w.:/-]+")
# A command line that ends by setting its own exit status (``cmd; true``, ``cmd || :``,
# ``cmd; echo "exit=$?"``): its success says nothing of the commands before.
_FORCED_SCAN: Final = 120  # characters at the end of a command line where its exit is set
_FORCED_EXIT_RE: Final = re.compile(
    r"(?:\|\||;)\s*(?:true|:|exit\s+0|echo\b[^\n;|&]*\$\?[^\n;|&]*)\s*$"
)


_Did = Callable[[Call, str, Stamp], None]


def _redo(call: Call) -> str:
    """What a call made again shares with it: its tool, and its check's name or else its
    argument."""
    if call.check is not None:
        return f"{call.name}\0check\0{call.check.name}"
    return f"{call.name}\0{call.key}"


def answered_in_words(store: MemoryStore, request: str, stamp: Stamp) -> None:
    """The user's message saying again the answer they just typed into a question's form
    (the client records both): it is the request, not an answer beside it."""
    if len(request) < _OWN_WORDS:
        return  # a short reply picks an option: the answer with its question says more
    head = quote_untrusted(request, _OWN_WORDS)[1:-1].rstrip("\u2026")
    for item in store.items_of("key_decisions"):
        if item.kind == "answer" and head in item.text and steps_apart(item.created, stamp) < 4:
            store.remove(item, stamp)


class ToolCallRules:
    """Applies parsed tool events to a store, tracking the calls still open."""

    def __init__(
        self, store: MemoryStore, failures: Failures, stands: Stands, todos: TodoLists
    ) -> None:
        self.store = store
        self.failures = failures
        self.stands = stands
        self.checks = CheckRules(store, failures)
        self.todos = todos
        self.calls: dict[ItemKey, Call] = {}
        self.started_open = 0  # calls started and not finished: the uncertain actions
        self.cut: dict[str, list[ItemKey]] = {}
        """Calls open at the last compaction, their results maybe cut off from what follows,
        by what a call made again shares with them (:func:`_redo`)."""
        self.refused: dict[str, str] = {}
        """Per file, the edit of it that last failed (:attr:`Call.sent`): the same edit
        working when sent again (past a hook that stopped it once) taught nothing."""
        self.asked = False
        """A call was asked for since the last one finished."""
        self.net: dict[str, list[str]] = {}
        """Per file changed, the edits since it was last unchanged ("*": one that no later
        edit can undo, or changes of unknown start): an edit undoing the last goes with it."""
        self._did_by_kind: dict[ToolKind, _Did] = {
            ToolKind.SHELL: self._shell_ran,
            ToolKind.EDIT: self._files_changed,
            ToolKind.TODO: self._todo_list_written,
            ToolKind.PLAN_EXIT: self._plan_approved,
            ToolKind.QUESTION: self._question_answered,
            ToolKind.TASK: self._sub_agent_done,
            ToolKind.MESSAGE: self._team_messaged,
        }

    def apply(self, event: ToolEvent) -> bool:
        key = event.key
        call = self.calls.get(key) if key is not None else None
        if call is None:
            if event.tool_name is None:
                return False
            call = Call.of(event.tool_name, event.args, self.store.cwd)
        elif call.kind is ToolKind.TODO and event.status in FINISHED:
            # The list as its result says it stands (TaskList: teammates' states).
            call.todos = todo_list(event.args) or call.todos
        status, stamp = event.status, event.stamp
        if status == "requested" or status == "started":
            if call.kind is ToolKind.PLAN_EXIT:  # the one open call the section shows
                self.stands.plan_proposed(call.note, stamp)
            if status == "requested":
                return self._requested(key, call, stamp)
            return self._started(key, call, stamp)
        self._close(key, stamp)
        if self.cut:
            self._done_over(call, stamp)
        outcome = event.outcome
        assert outcome is not None  # completed and failed events always carry one
        argument = call.note if call.kind is ToolKind.PLAN_EXIT else call.key
        if call.workdir and argument:
            argument = f"cd {call.workdir} && {argument}"  # where the session's git is not
        forge = self.stands.forge
        pull_request, pushed = forge.open, forge.ci_stamp
        self.stands.tool(call.kind, call.name, argument, outcome, stamp)
        if forge.open not in ("", pull_request):
            self.failures.pull_opened(stamp)  # whatever opened it: the attempts are settled
        if forge.ci_stamp != pushed:
            self.checks.pushed(stamp)  # CI's checks seen so far are of an earlier commit
        self._finished(call, outcome, stamp)
        return True

    # -- open calls -----------------------------------------------------------------------

    def _describe(self, call: Call) -> str:
        """The call as the memory names it, paths relative to the session's directory; a
        command that commits names its commit's subject when the cut command does not (the
        subject is what says which work an unfinished commit would hold)."""
        named = describe(call.name, relative(call.key, self.store.cwd))
        if call.kind is ToolKind.SHELL and call.key and "commit" in call.key:
            subject = commit_line(call.key).subject
            if subject and subject not in named:
                return f"{named}, committing {quote(subject, EXCERPT_CHARS)}"
        return named

    def _requested(self, key: ItemKey | None, call: Call, stamp: Stamp) -> bool:
        if key is None or key in self.calls:
            return False
        self._track(key, call)
        self.asked = True
        self.store.add(
            "todo_items", "replan", self._describe(call), stamp, status="replan", key=key
        )
        return True

    def _started(self, key: ItemKey | None, call: Call, stamp: Stamp) -> bool:
        if key is None or call.started:
            return False
        call.started = True
        self.started_open += 1
        if key not in self.calls:
            self._track(key, call)
        safe = not is_side_effecting(call.kind) or only_looks(call.kind, call.key)
        store = self.store
        item = store.get(key)
        if item is None:
            store.add("todo_items", "uncertain", self._describe(call), stamp,
                      status="uncertain", key=key, safe_to_replay=safe)  # fmt: skip
        else:
            store.update(item, stamp, kind="uncertain", status="uncertain",
                         safe_to_replay=safe, touch=False)  # fmt: skip
        return True

    def _track(self, key: ItemKey, call: Call) -> None:
        calls = self.calls
        calls[key] = call
        if len(calls) > MAX_OPEN_CALLS:
            # A call whose todo was evicted long ago and never finished: forget the oldest.
            oldest = calls.pop(next(iter(calls)))
            self.started_open -= oldest.started

    def _close(self, key: ItemKey | None, stamp: Stamp) -> None:
        if key is None:
            return
        call = self.calls.pop(key, None)
        item = self.store.get(key)
        if item is not None:
            self.store.remove(item, stamp)
        if call is not None and call.started:
            self.started_open -= 1

    def compacted(self) -> None:
        """A compaction: the calls still open may never have their results written."""
        self.cut = {}
        for key, call in list(self.calls.items())[-_CUT_KEPT:]:
            if call.started:
                self.cut.setdefault(_redo(call), []).append(key)

    def _done_over(self, done: Call, stamp: Stamp) -> None:
        """Calls open at a compaction, their results cut off, then made again and finished
        (the same tool on the same argument, or a run of the same check that covers theirs):
        done over, no longer uncertain. An edit of the same file made after one so cut needed
        the file's text as it then was: the agent saw whether the cut one took."""
        keys = self.cut.get(_redo(done))
        if not keys:
            return
        for key in list(keys):
            call = self.calls.get(key)
            check, theirs = done.check, call.check if call is not None else None
            if check is None or theirs is None or check.scope.covers(theirs.scope):
                keys.remove(key)
                if call is not None:
                    self._close(key, stamp)

    # -- finished calls -------------------------------------------------------------------

    def _finished(self, call: Call, outcome: ToolOutcome, stamp: Stamp) -> None:
        """A finished call (:meth:`_outcome`). Calls asked for together finish together
        (parallel calls): what the agent says next is of them all, the reading of the last of
        them that failed, or of none (two that passed)."""
        pending, together = self.failures.unread, not self.asked
        self.asked = False
        self._outcome(call, outcome, stamp)
        new = self.failures.unread
        if together and pending is not None and new is not None and new != pending:
            failed = [key for key in (pending, new) if self._failure(key)]
            self.failures.unread = failed[-1] if failed else ""

    def _failure(self, key: str | None) -> bool:
        item = self.store.get(ItemKey(key)) if key else None
        return item is not None and item.section == "failed_attempts"

    def _outcome(self, call: Call, outcome: ToolOutcome, stamp: Stamp) -> None:
        """A finished call: a check's run, a failed attempt, or what the call did. One
        stopped before it finished (the user's interrupt, a task killed, a call cancelled
        because another beside it failed) is neither: it did nothing the memory can name."""
        if outcome.status == "interrupted":
            return
        if call.kind is ToolKind.SHELL and call.key and outcome.status in FINISHED:
            self.todos.plan_steps.ran(call.key, stamp)  # it ran, whatever it found
        if not only_looks(call.kind, call.key):
            self.failures.unread = None  # the agent acted since the failure
            if call.kind is not ToolKind.TODO:
                self.todos.worked_on = True
        if outcome.status == "rejected" and outcome.output and call.kind in _ASKS_USER:
            # The user refused the plan, or a question's form, saying how to go on: their
            # answer to it, no failure.
            asked = first_line(call.note or call.key or "", _ANSWER_CHARS)
            what = f"the {_ASKS_USER[call.kind]} {quote_untrusted(asked, EXCERPT_CHARS)}"
            said = quote_untrusted(first_line(outcome.output, _ANSWER_CHARS), EXCERPT_CHARS)
            decision(self.store, "answer", f"user answered {said} to {what}", stamp)
            return
        if outcome.status in ("failed", "stale"):
            error = outcome.error or outcome.output
            self._failed(call, error, outcome.exit_code, stamp, stale=outcome.status == "stale")
            return
        # A rejected call's output is the user's words; its error says it was rejected.
        result = outcome.error if outcome.status == "rejected" else outcome.output
        exit_code = outcome.exit_code
        if exit_code is None and call.kind is ToolKind.SHELL:
            exit_code = exit_code_from_output(result)
        key = call.key if call.kind is ToolKind.SHELL else None
        forced = bool(key and _FORCED_EXIT_RE.search(key[-_FORCED_SCAN:]))
        if forced:
            exit_code = None  # cmd; true: the line's exit code is none of its commands'
        if call.check is not None:
            passed = self.checks.record(call.name, call.check, exit_code, result, stamp)
            if not forced:
                self.failures.resolve(call.name, call.key, stamp, call.check.name)
            on_the_way = call.check.before if exit_code == 0 else ()
            for check in on_the_way:
                self.checks.passed_on_the_way(check, stamp)
            names = (*(check.name for check in on_the_way), call.check.name)
            self.todos.checked(passed, names, stamp)
        elif exit_code not in (None, 0) or outcome.status != "completed":
            self._failed(call, result or f"exit code {exit_code}", exit_code, stamp)
        else:
            again = bool(call.sent) and self.refused.pop(call.key or "", "") == call.sent
            if not forced:
                piped = "|" in (call.key or "")  # its exit is a filter's
                self.failures.resolve(call.name, call.key, stamp, place=call.workdir,
                                      no_lesson=again, output=result, piped=piped)  # fmt: skip
            if call.key and self.failures.by_action:
                self.failures.seen(call.name, call.key, stamp)
            self._did(call, result, stamp)

    def _failed(
        self, call: Call, error: str, exit_code: int | None, stamp: Stamp, *, stale: bool = False
    ) -> None:
        if not stale and call.key and found_missing(call.kind, error):
            # The file is not there: whatever the session changed in it is gone, and a todo
            # it filed as that note with it (removed since, or reset away).
            self.stands.gone(call.key)
            self.todos.filed_gone([c.issue for c in todo_files_written((call.key,))], stamp)
        if call.sent and call.key:
            self.refused[call.key] = call.sent
            while len(self.refused) > MAX_OPEN_CALLS:
                del self.refused[next(iter(self.refused))]
        if call.check is not None:
            ran = exit_code if exit_code is not None else 1
            self.todos.checked(
                self.checks.record(call.name, call.check, ran, error, stamp), (), stamp
            )
        elif only_looked(call.kind, call.key, exit_code, error):
            pass  # a read that found nothing changed nothing and did no work
        elif not _TOOL_NAME_RE.fullmatch(call.name):
            pass  # a malformed call (no tool has that name): nothing ran
        elif call.replaced and len(set(call.replaced.split(">"))) == 1:
            pass  # an edit of a text into itself ("No changes to make"): no attempt at the work
        else:
            first = informative_line(self.store.words_in_project(error), 400) or "failed"
            shown = relative(call.key, self.store.cwd)
            what = describe(call.name, shown, FAILURE_ARG_CHARS)
            exited = f" exited {exit_code}" if exit_code is not None and exit_code != 0 else ""
            how = f"{exited}: {quote(first, EXCERPT_CHARS)}"
            target = failure_target(call.key, self.store.cwd)
            kind = "stale_edit" if stale else "tool_failed"  # gone once an edit of it works
            self.failures.record(kind, call.name, call.key, f"{what}{how}", stamp,
                                 first, joined=(target, how), place=call.workdir)  # fmt: skip

    def _did(self, call: Call, result: str, stamp: Stamp) -> None:
        """What a call that worked did, by its kind of call. Reads, searches, read-only
        commands and other calls are no milestone: they leave no item."""
        did = self._did_by_kind.get(call.kind)
        if did is not None:
            did(call, result, stamp)

    def _shell_ran(self, call: Call, result: str, stamp: Stamp) -> None:
        """A command: a task tracker's changes its issues; a deploy or a release is completed
        work; commits, pushes and pull requests are the business of where the session stands
        (:mod:`deriver.stands`)."""
        changes = tracker_changes(call.key, result) if call.key else None
        if changes is not None:
            self.todos.track_issues(changes, stamp)
        if call.key:
            self.checks.formatted(call.key, stamp)
        for check in hooks_passed(result):  # git commit's pre-commit hooks: ruff....Passed
            self.checks.passed_on_the_way(check, stamp)
        if call.key and "git" in call.key and says_clean(result):
            # A clean tree: an edit left open (its result never written) is not pending.
            for key in [k for k, c in self.calls.items() if c.kind is ToolKind.EDIT]:
                self._close(key, stamp)
        how = shipped(call.key) if call.key else ""
        if how:
            text = f"{how} with {code(call.key, _SHIPPED_CHARS)}"
            bump(self.store, "completed_work", "deploy", text, stamp, done_key(text))

    def _team_messaged(self, call: Call, result: str, stamp: Stamp) -> None:
        """A message sent to another agent of the team: where the session stands says it;
        an answer to a shutdown request, by the client's own confirmation ("Shutdown
        approved. … Agent domain-dev is now exiting.")."""
        said = call.note
        if said and said.startswith(SHUTDOWN_ANSWER):
            confirmed = json_object(result).get("message")
            said = f"{SHUTDOWN_ANSWER}: {confirmed}" if isinstance(confirmed, str) else said
        if said:
            self.stands.messaged(said, stamp)

    def _files_changed(self, call: Call, result: str, stamp: Stamp) -> None:
        """Files changed show where the session stands until a commit takes them, and
        passing checks no longer stand."""
        paths = call.edited or ((call.key,) if call.key else ())
        filed = todo_files_written(paths)
        if filed:
            self.todos.track_issues(filed, stamp)
        shown = [self.store.in_project(p) for p in paths]
        fresh = [s not in self.stands.changed for s in shown]
        self.stands.edited(paths, stamp)
        self._net_change(call.replaced if len(paths) == 1 else "", paths, shown, fresh)
        self.stands.refresh()
        if self.store.goal is not None:
            self.store.goal.worked = True
        self.checks.edited(paths, stamp)
        self.failures.files_changed()

    def _net_change(
        self, replaced: str, paths: tuple[str, ...], shown: list[str], fresh: list[bool]
    ) -> None:
        """An edit that puts back what the last edit of its file replaced (a version bumped,
        then set back), every edit since the file was last unchanged so undone, leaves the
        file as it was: no change of it to commit."""
        net = self.net
        old, _, new = replaced.partition(">")
        for path, name, unchanged in zip(paths, shown, fresh, strict=True):
            edits = [] if unchanged else net.pop(name, ["*"])
            if replaced and edits and edits[-1] == f"{new}>{old}":
                edits.pop()
            else:
                edits.append(replaced or "*")
            if not edits:
                self.stands.gone(path)
                continue
            net[name] = edits if len(edits) <= _NET_KEPT else ["*", *edits[1 - _NET_KEPT :]]
            while len(net) > CHANGED_KEPT:
                del net[next(iter(net))]

    def _todo_list_written(self, call: Call, result: str, stamp: Stamp) -> None:
        if call.todos is not None:
            self.todos.replace(call.todos, stamp)

    def _plan_approved(self, call: Call, result: str, stamp: Stamp) -> None:
        plan = first_line(call.note or result, _ANSWER_CHARS)
        decision(self.store, "plan", f"approved plan: {quote_untrusted(plan, EXCERPT_CHARS)}",
                 stamp)  # fmt: skip
        self.todos.plan_steps.planned(call.note or result, stamp, approved=True)

    def _question_answered(self, call: Call, result: str, stamp: Stamp) -> None:
        answer = first_line(result, _ANSWER_CHARS) or "(no answer)"
        text = f"user answered: {quote_untrusted(answer, EXCERPT_CHARS)}"
        decision(self.store, "answer", text, stamp)

    def _sub_agent_done(self, call: Call, result: str, stamp: Stamp) -> None:
        # A sub-agent's task done is no milestone: what it found or made is in what the agent
        # did and said next. One that reports it could not finish ("I could not finish: the
        # tests fail …") is a failed attempt, whatever the call's status says.
        unfinished = reports_unfinished(result)
        if unfinished:
            task = describe(call.name, call.note or call.key, FAILURE_ARG_CHARS)
            text = f"{task}: {quote(unfinished, EXCERPT_CHARS)}"
            self.failures.record("tool_failed", call.name, call.key, text, stamp, unfinished)

    # -- snapshots ----------------------------------------------------------------------

    def to_state(self) -> dict[str, Any]:
        return {
            "calls": [{"key": k, "call": c.to_state()} for k, c in self.calls.items()],
            "cut": self.cut,
            "net": self.net,
            "refused": self.refused,
            "asked": self.asked,
            "todos_done": self.todos.done,
            "checks": self.checks.to_state(),
            "tracker": self.todos.tracker_state(),
        }

    def load_state(self, state: dict[str, Any]) -> None:
        cwd = self.store.cwd
        self.calls = {ItemKey(c["key"]): Call.from_state(c["call"], cwd) for c in state["calls"]}
        self.started_open = sum(c.started for c in self.calls.values())
        self.cut = {r: [ItemKey(k) for k in keys] for r, keys in state["cut"].items()}
        self.net = {name: list(edits) for name, edits in state["net"].items()}
        self.refused = dict(state["refused"])
        self.asked = bool(state["asked"])
        self.todos.done = list(state["todos_done"])
        self.checks.load_state(state.get("checks"))
        self.todos.load_tracker_state(state.get("tracker"))
