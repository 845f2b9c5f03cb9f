"""How rules record facts in the store: decisions, verifications, counted items, failures.

Each helper adds an item or, when the item with the same key is there, changes it through
the store: the same fact again counts up one item instead of adding another.
"""

from __future__ import annotations

import re
from typing import Final

from deriver.actions import (
    Action,
    actions_of,
    feeds_all,
    files_viewed,
    lacks_program,
    moved_only,
    placed,
    resolves,
    settles,
)
from deriver.git_state import FORGE_PULLS
from deriver.goal import steps_apart
from deriver.keys import ItemKey, call_identity, decision_key, failure_key
from deriver.output_scan import (
    cause_line,
    error_lines,
    found_done,
    is_crash,
    is_usage_slip,
    names_unused,
    reports_error,
)
from deriver.store import EVICTION_TIERS, Item, MemoryStore, Stamp
from deriver.tool_kinds import ToolKind, classify_tool
from deriver.user_text import announces, answer_gist, reports_result
from deriver.wording import MAX_OPEN_CALLS, code, failure_target
from session_memory.core.memory import SectionName
from session_memory.core.redact import quote_untrusted

__all__ = ["Failures", "bump", "decision", "verification"]

_MAX_PER_ACTION: Final = 64
_SHELL: Final = "$ "  # how the name of a shell command's action starts (deriver.actions)
_READING_CHARS: Final = 160
_PASTED_LINES: Final = 3  # a request of more lines may quote a log or an output
_GROUP_CHARS: Final = 400
"""The longest line of failures joined by how they failed: past it, a new line."""
_PASTE_SCAN: Final = 16_000
_REPORTED_CHARS: Final = 200
_USER: Final = "user"
_READ_STATUSES: Final = frozenset({"open", "passed", "warning"})
"""A failure, a check that passed, and one whose outcome the output did not say."""
_READ_WITHIN: Final = 32  # events after it: words after a longer look around are of what it read
# The agent's reading of a failure it ran the check to see: "The red step failed for the
# expected reason", "fails as expected".
_EXPECTED_RE: Final = re.compile(
    r"\b(?:as expected|as intended|for the (?:right|expected) reasons?|expected (?:failure|"
    r"reason)|red (?:step|check|test|run|phase)s? (?:fail|is|are|confirm))",
    re.IGNORECASE,
)
# Commands that stop on a conflict for the session to resolve, and what finishes them: a
# commit, or the same command with --continue (no targets).
_MERGING: Final = frozenset(
    {"$ git merge", "$ git pull", "$ git rebase", "$ git cherry-pick", "$ git revert",
     "$ git stash", "$ git am"}
)  # fmt: skip
# How git says such a command stopped: on a conflict, or a commit it could not apply (a
# rebase's "error: could not apply 669232e… add options", the conflicts listed above it).
_STOPPED_RE: Final = re.compile(r"conflict|could not apply", re.IGNORECASE)
# An error that refuses a value it quotes ("Invalid --since value: '1d'", "'security' not found").
_REFUSED_RE: Final = re.compile(
    r"(?i)\b(?:invalid|unknown|unrecognized|unsupported|not a valid|not recognized|bad value|"
    r"not found|matches parameter name)\b"
)
_QUOTED_RE: Final = re.compile(r"'([^'\s]{1,80})'|`([^`\s]{1,80})`|\u201c([^\u201d\s]{1,80})\u201d")
_COMMIT: Final = "$ git commit"
_ADD: Final = "$ git add"
_MOOT_STAGING_RE: Final = re.compile(r"did not match any files|index\.lock")
_CODE_LINES_SKIPPED: Final = 8
"""Error lines looked at from the end of a pasted text for one that is no line of code."""
_OPEN_TIER: Final = EVICTION_TIERS.index("open_failures")


def bump(
    store: MemoryStore, section: SectionName, kind: str, text: str, stamp: Stamp, key: ItemKey
) -> None:
    """Add an item, or count up and refresh the item with the same key."""
    item = store.get(key)
    if item is None:
        store.add(section, kind, text, stamp, key=key)
    else:
        store.update(item, stamp, text=text, count=item.count + 1)


def decision(
    store: MemoryStore, kind: str, text: str, stamp: Stamp, *, tier: str | None = None
) -> None:
    """A key decision (evicted with ``tier``, by default its own); the same decision taken
    again counts up its item."""
    key = decision_key(text)
    item = store.get(key)
    if item is None:
        store.add("key_decisions", kind, text, stamp, status="decision", key=key, tier=tier)
    else:
        store.update(item, stamp, count=item.count + 1)


def verification(
    store: MemoryStore, kind: str, status: str, text: str, stamp: Stamp, *, key: ItemKey
) -> None:
    """A verification item: the latest status of what its key names."""
    item = store.get(key)
    if item is None:
        store.add("verification_status", kind, text, stamp, status=status, key=key)
    else:
        store.update(item, stamp, text=text, status=status, count=1)


class Failures:
    """Failed attempts, and which of them a later success of the same action resolves.

    Actions are normalised (:mod:`deriver.actions`): a failure of ``git push`` is resolved
    by a later ``git push --set-upstream origin main``, a failing test file by a passing
    run of the whole suite. A resolved failure stays, demoted, as a one-line lesson.

    What the agent says right after a failure, before its next call finishes, is its own
    reading of it ("the run hit a toolchain mismatch, so I'm switching to …"): kept with
    the failure, the part a resuming agent learns from.
    """

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        # action name -> the open failures of that action: (targets, item key, spelling)
        self.by_action: dict[str, list[tuple[frozenset[str], str, str]]] = {}
        self.shell_actions = 0
        """How many names in ``by_action`` are shell commands (``$ git push``)."""
        self.unread: str | None = None
        """The item key of the failure of the last finished call, or of the check it passed,
        until the agent speaks."""
        self.edited: set[str] = set()
        """Open failures that a file change came after: a rerun that works was fixed."""
        self.redone: dict[str, list[str]] = {}
        """Per open failure of a command line of several actions, those that have worked
        since, each in a line of its own: once all have, it is settled."""
        self.last: list[str] | None = None
        """The tool, the words and the item of the failure just recorded, until a call
        succeeds: the next call to fail the same way joins it."""

    def record(
        self,
        kind: str,
        tool: str,
        key: str | None,
        text: str,
        stamp: Stamp,
        line: str = "",
        check: str | None = None,
        joined: tuple[str, str] = ("", ""),
        place: str = "",
    ) -> None:
        """A failed attempt; the same failure again counts up one item instead of adding.

        ``joined`` is the call's target as shown and the end of ``text`` that says how it
        failed: a call of the same tool that failed the same way right after the last one
        (the user rejecting three edits at once) names its target in that one's line.
        ``place``: the directory the call ran in, when not the session's (:func:`placed`).
        """
        store = self.store
        item_key = failure_key(call_identity(tool, key), line)
        if (
            kind == "tool_failed"
            and _STOPPED_RE.search(text) is not None
            and any(action.name in _MERGING for action in actions_of(tool, key, check))
        ):
            kind = "merge_conflict"  # finished by the commit that resolves it
        item = store.get(item_key)
        last, self.last = self.last, [tool, line, str(item_key)] if line and joined[1] else None
        if item is not None:
            # Failing again re-opens a resolved failure.
            store.reopen(item)
            store.update(
                item, stamp, text=text, status="open", count=item.count + 1, tier="open_failures"
            )
        elif (group := self._group(last, tool, line, joined)) is not None:
            target, how = joined
            store.update(group, stamp, text=f"{group.text[: -len(how)]}, {target}{how}")
            item_key = ItemKey(str(group.key))
            self.last = [tool, line, str(item_key)]
        else:
            store.add(
                "failed_attempts", kind, text, stamp, status="open", key=item_key,
                tier="open_failures",
            )  # fmt: skip
        self.edited.discard(item_key)
        self.redone.pop(str(item_key), None)  # failing again: its parts must work again
        self.unread = item_key
        for action in placed(actions_of(tool, key, check), place):
            self._index(action, item_key, key or "")
        if len(self.by_action) > MAX_OPEN_CALLS:
            self._forget_gone()

    def _group(
        self, last: list[str] | None, tool: str, line: str, joined: tuple[str, str]
    ) -> Item | None:
        """The open failure of the call just before, when it failed the same way (same tool,
        same words) and its line has room for one more target."""
        if last is None or last[:2] != [tool, line] or not joined[0]:
            return None
        item = self.store.get(ItemKey(last[2]))
        if item is None or item.status != "open" or not item.text.endswith(joined[1]):
            return None
        return item if len(item.text) + len(joined[0]) <= _GROUP_CHARS else None

    def read_by_agent(self, content: str, stamp: Stamp) -> bool:
        """The agent's first words after a failure, or after a check passed or ran with an
        outcome not told: its reading ("All 527 tests pass, coverage thresholds met"), kept
        with the failure or the check."""
        key, self.unread = self.unread, None
        item = self.store.get(ItemKey(key)) if key is not None else None
        if item is None or item.status not in _READ_STATUSES:
            return False
        if steps_apart(item.changed, stamp) > _READ_WITHIN:
            return False  # a longer look around since: its words are of what it read
        reading = answer_gist(content, _READING_CHARS)
        if item.status != "open":
            reading = reports_result(reading)  # not what it does next ("Now commit.")
        if not reading or announces(reading):
            return False  # only what it will do next: no reading of what went wrong
        if item.status == "open" and _EXPECTED_RE.search(reading):
            # A test-first run failing for the reason it was written for: the red step of
            # the work, not an attempt that failed.
            self.store.remove(item, stamp)
            return True
        text = f"{item.text}; the agent: {quote_untrusted(reading, _READING_CHARS)}"
        self.store.update(item, stamp, text=text, touch=False)
        return True

    def reported(self, text: str, stamp: Stamp) -> None:
        """Output the user pasted into a request (a log, a stack trace) that reports an error:
        the failure the user brings, its last error line kept as reported by the user."""
        if text.count("\n") < _PASTED_LINES:
            return
        found = [
            line
            for _, line in error_lines(text[-_PASTE_SCAN:], _CODE_LINES_SKIPPED, _REPORTED_CHARS)
            if reports_error(line)
        ]
        if found:
            line = cause_line(found)
            item_key = failure_key(call_identity(_USER, None), line)
            if self.store.get(item_key) is None:
                shown = f"reported by the user: {quote_untrusted(line, _REPORTED_CHARS)}"
                self.store.add("failed_attempts", "user_reported", shown, stamp, status="open",
                               key=item_key, tier="open_failures")  # fmt: skip

    def new_request(self, stamp: Stamp) -> None:
        """The user moved on to a new request: the failures still open were met while
        working on earlier ones. They stay open, shown, but as history: evicted with the
        resolved failures, oldest first, before the failures of the work at hand. A failure
        of the new work joins none of them."""
        self.last = None
        store = self.store
        for item in store.items_of("failed_attempts"):
            if item.status == "open" and item.tier == _OPEN_TIER:
                store.update(item, stamp, tier="resolved_failures", touch=False)

    def files_changed(self) -> None:
        """A file changed: the failures open now may be fixed by it."""
        self.edited.update(entry[1] for entries in self.by_action.values() for entry in entries)
        self.edited.update(
            str(item.key) for item in self.store.items_of("failed_attempts")
            if item.kind == "user_reported" and item.status == "open"
        )  # fmt: skip

    def turn_closed(self, stamp: Stamp) -> None:
        """The agent closed its turn: an error the user reported, with files changed since,
        is what the turn fixed; the next report says otherwise."""
        for item in self.store.items_of("failed_attempts"):
            if item.kind == "user_reported" and str(item.key) in self.edited:
                self.edited.discard(str(item.key))
                self.store.update(item, stamp, status="resolved", tier="resolved_failures",
                                  touch=False)  # fmt: skip
                self.store.close(item, stamp)

    def _index(self, action: Action, item_key: ItemKey, spelling: str) -> None:
        """Remember the failure under its action, for a later success to find."""
        entries = self.by_action.get(action.name)
        if entries is None:
            entries = self.by_action[action.name] = []
            self.shell_actions += action.name.startswith(_SHELL)
        if not any(entry[1] == item_key and entry[2] == spelling for entry in entries):
            entries.append((action.targets, item_key, spelling))
            del entries[:-_MAX_PER_ACTION]

    def _forget_gone(self) -> None:
        """Forget the failures no longer in the memory, and actions left without any."""
        store = self.store
        self.by_action = {
            name: live
            for name, entries in self.by_action.items()
            if (live := [e for e in entries if store.get(ItemKey(e[1])) is not None])
        }
        self.edited = {key for key in self.edited if store.get(ItemKey(key)) is not None}
        self.redone = {k: v for k, v in self.redone.items() if store.get(ItemKey(k)) is not None}
        self._count_shell_actions()

    def resolve(
        self,
        tool: str,
        key: str | None,
        stamp: Stamp,
        check: str | None = None,
        *,
        no_lesson: bool = False,
        place: str = "",
        output: str = "",
        piped: bool = False,
    ) -> None:
        """A success of the same action (in the same place) resolves its earlier failures it
        settles; with ``no_lesson`` (a linter's finding, fixed) they go. A line whose exit
        is a filter's (``piped``) settles none whose error its ``output`` says again (``git
        stash | head -5``: "error: could not write index"). One whose output says it found
        the work already done ("was already merged") is not what worked instead."""
        self.last = None  # a call worked: the next failure is a line of its own
        if not place and not self._may_resolve(tool, key, check):
            return
        successes = placed(actions_of(tool, key, check), place)
        shell = classify_tool(tool) is ToolKind.SHELL
        committed = shell and any(a.name == _COMMIT for a in successes)
        if committed or (shell and any(a.name in _MERGING and not a.targets for a in successes)):
            self._conflicts_resolved(stamp)
        if committed:
            self._staged(stamp)
        settled: list[tuple[str, str]] = []
        by_parts: set[str] = set()
        for action in successes:
            entries = self.by_action.get(action.name)
            if not entries:
                continue
            kept = []
            for entry in entries:
                if piped and _says_again(self.store.get(ItemKey(entry[1])), output):
                    kept.append(entry)
                    continue
                refused = self._refused(entry) if check is None else frozenset()
                narrowed = Action(action.name, entry[0] - refused)
                if not resolves(action, narrowed, check=check is not None):
                    kept.append(entry)
                    continue
                if check is not None:
                    settled.append((entry[1], entry[2]))
                    continue
                tried = tuple(
                    Action(a.name, a.targets - refused)
                    for a in placed(actions_of(tool, entry[2] or None), place)
                )
                if settles(successes, tried) and feeds_all(key or "", entry[2]):
                    settled.append((entry[1], entry[2]))
                elif self._redone(entry[1], action.name, tried):
                    settled.append((entry[1], entry[2]))
                    by_parts.add(entry[1])  # no one line worked instead: no lesson to name
                else:
                    kept.append(entry)
            if kept:
                self.by_action[action.name] = kept
            else:
                del self.by_action[action.name]
                self.shell_actions -= action.name.startswith(_SHELL)
        for item_key, failed in dict.fromkeys(settled):
            # A line of failures joined by how they failed is resolved once each has worked;
            # until then it names those still open.
            if any(
                entry[1] == item_key and entry[2] != failed
                for entries in self.by_action.values()
                for entry in entries
            ):
                self._worked_in_line(ItemKey(item_key), failed, stamp)
            else:
                worked = "" if item_key in by_parts or found_done(output) else key or ""
                self._resolve(ItemKey(item_key), failed, worked, stamp, shell, no_lesson)

    def _refused(self, entry: tuple[frozenset[str], str, str]) -> frozenset[str]:
        """The arguments a failure's error refused, by value ("Invalid --since value: '1d'", one
        of a list: 'security' of --label security,p0) or all for how the call was made ("Unknown
        JSON field"): a success that differs from it only in them did it, spelled otherwise."""
        item = self.store.get(ItemKey(entry[1]))
        said = item.text.partition("\u201c")[2] if item is not None else ""  # the error's words
        if not entry[0] or _REFUSED_RE.search(said) is None:
            return frozenset()
        if is_usage_slip(said):
            return entry[0]
        quoted = {"".join(m.groups("")) for m in _QUOTED_RE.finditer(said)}
        return frozenset(t for t in entry[0] if quoted.intersection((t, *t.split(","))))

    def _redone(self, item_key: str, name: str, failed: tuple[Action, ...]) -> bool:
        """A part of a failed command line worked again on its own (``uv tool install …``
        after ``uv tool install … && tool doctor`` failed): whether every part now has."""
        if len(failed) < 2:
            return False
        parts = self.redone.setdefault(item_key, [])
        if name not in parts:
            parts.append(name)
        return all(a.name in parts for a in failed)

    def _worked_in_line(self, item_key: ItemKey, failed: str, stamp: Stamp) -> None:
        item = self.store.get(item_key)
        target = failure_target(failed, self.store.cwd)
        if item is None or not target:
            return
        for named in (f"{target}, ", f", {target}"):
            if named in item.text:
                self.store.update(item, stamp, text=item.text.replace(named, "", 1), touch=False)
                return

    def pull_opened(self, stamp: Stamp) -> None:
        """A pull request was opened: the failed attempts to open one (``gh pr create``
        with other flags, ``gh api repos/o/r/pulls -X POST``, ``glab mr create``) are
        settled, however it was opened in the end."""
        for name, entries in list(self.by_action.items()):
            for targets, item_key, failed in list(entries):
                if (name in FORGE_PULLS and "create" in targets) or (
                    name == "$ gh api" and any(t.endswith("/pulls") for t in targets)
                ):
                    self._resolve(ItemKey(item_key), failed, "", stamp, True)
                    entries.remove((targets, item_key, failed))
            if not entries:
                del self.by_action[name]
        self._count_shell_actions()

    def seen(self, tool: str, key: str, stamp: Stamp) -> None:
        """A file read (by a read, or a shell line that shows it: ``sed -n '1,140p' a.go``):
        an edit of it that did not apply because the file was not as last seen
        (``stale_edit``) is settled, nothing learned: the agent now sees it as it is."""
        kind = classify_tool(tool)
        if kind not in (ToolKind.READ, ToolKind.SHELL):
            return
        paths: list[str] | None = None  # read from the command line once an edit needs it
        for entries in self.by_action.values():
            for targets, item_key, failed in list(entries):
                item = self.store.get(ItemKey(item_key))
                if item is None or item.kind != "stale_edit":
                    continue
                if paths is None:
                    paths = [key] if kind is ToolKind.READ else files_viewed(tool, key)
                if _any_same(paths, targets):
                    self._resolve(ItemKey(item_key), failed, "", stamp, False)  # gone

    def _staged(self, stamp: Stamp) -> None:
        """A commit took what was staged: a command line that failed staging is settled.
        For a path that did not match or a locked index it is moot, nothing learned (what
        came after the ``git add`` never ran); one refused for paths git ignores is a lesson,
        resolved: the commit went on without them."""
        for entry in self.by_action.pop(_ADD, []):
            item = self.store.get(ItemKey(entry[1]))
            if item is not None and item.status == "open" and _MOOT_STAGING_RE.search(item.text):
                self.store.remove(item, stamp)
            else:
                self.settle(ItemKey(entry[1]), stamp)
        self._count_shell_actions()

    def _conflicts_resolved(self, stamp: Stamp) -> None:
        """A commit (or ``--continue``) after a merge stopped on conflicts finished it: the
        conflicts were resolved, nothing is open and nothing was learned."""
        store = self.store
        for item in store.items_of("failed_attempts"):
            if item.kind == "merge_conflict" and item.status == "open":
                store.remove(item, stamp)

    def _may_resolve(self, tool: str, key: str | None, check: str | None) -> bool:
        """Whether an open failure may share an action name with this success: told without
        reading a shell command line, which was most of the cost of every success."""
        by_action = self.by_action
        if not by_action:
            return False
        if not key or classify_tool(tool) is not ToolKind.SHELL:
            return tool in by_action
        if check is not None:
            return f"check {check}" in by_action
        # A command line of plumbing alone (``cd x``) is the tool's own action.
        return self.shell_actions > 0 or tool in by_action

    def _count_shell_actions(self) -> None:
        self.shell_actions = sum(name.startswith(_SHELL) for name in self.by_action)

    def settle(self, item_key: ItemKey, stamp: Stamp, *, no_lesson: bool = False) -> None:
        """Resolve one open failure as a success of its action would (gone: ``no_lesson``)."""
        self._resolve(item_key, "", "", stamp, False, no_lesson)

    def _resolve(
        self,
        item_key: ItemKey,
        failed: str,
        worked: str,
        stamp: Stamp,
        shell: bool,
        no_lesson: bool = False,
    ) -> None:
        item = self.store.get(item_key)
        if item is None or item.status != "open":
            return
        fixed = item_key in self.edited
        self.edited.discard(item_key)
        self.redone.pop(str(item_key), None)
        if (
            (no_lesson and not lacks_program(item.text) and not _crashed(item))
            or item.kind == "stale_edit"
            or (item.kind == "check_failed" and names_unused(item.text))
            or (item.kind in ("tool_failed", "check_failed") and is_usage_slip(item.text))
            or (item.kind == "tool_failed" and not fixed and shell
                and (worked == failed or moved_only(failed, worked)))
        ):  # fmt: skip
            # A linter's finding that now passes (not the linter itself not there, or
            # crashing: what the machine lacks, or a version it cannot run with, teaches; a
            # compiler's finding that a name is unused goes too), an
            # edit made good once the agent saw the file as it is, a call whose arguments were
            # refused called as it takes (a usage slip: no edit fixed it), or the same command
            # line that worked when run again with nothing changed (a flake) or from the
            # directory it needed: nothing learned, nothing open. (Another tool's key argument
            # is not the whole call: an edit of the same file that works is another edit.)
            self.store.remove(item, stamp)
            return
        text = None
        if worked and worked != failed and (shown := code(worked, 60)) != code(failed, 60):
            # The lesson: what worked instead, when it was spelled differently (and shows so).
            text = f"{item.text}; then {shown} worked"
        # What worked instead is a lesson, kept as long as the decisions.
        tier = "key_decisions" if text is not None else "resolved_failures"
        self.store.update(item, stamp, text=text, status="resolved", tier=tier, touch=False)
        self.store.close(item, stamp)

    def to_state(self) -> dict[str, object]:
        return {
            "by_action": {
                name: [[sorted(targets), key, spelling] for targets, key, spelling in v]
                for name, v in self.by_action.items()
            },
            "unread": self.unread,
            "edited": sorted(self.edited),
            "last": self.last,
            "redone": self.redone,
        }

    def load_state(self, state: dict[str, object]) -> None:
        self.by_action = {}
        unread = state["unread"]
        self.unread = unread if isinstance(unread, str) else None
        last = state.get("last")
        self.last = [str(part) for part in last] if isinstance(last, list) else None
        edited = state["edited"]
        self.edited = {key for key in edited if isinstance(key, str)} if isinstance(
            edited, list) else set()  # fmt: skip
        redone = state.get("redone")
        self.redone = {
            str(key): [str(name) for name in names]
            for key, names in (redone.items() if isinstance(redone, dict) else ())
            if isinstance(names, list)
        }
        by_action = state["by_action"]
        if not isinstance(by_action, dict):
            return
        for name, entries in by_action.items():
            loaded = [
                (frozenset(e[0]), e[1], e[2])
                for e in entries
                if isinstance(e, list) and len(e) == 3 and isinstance(e[0], list)
            ]
            if loaded:
                self.by_action[name] = loaded
        self._count_shell_actions()


_MIN_SAID: Final = 12  # shorter words ("failed") say no one error again
_QUOTED_ERROR_RE: Final = re.compile(r"`(?: exited -?\d+)?: \u201c([^\u201d]+)\u201d")


def _error_quoted(item: Item | None) -> str:
    """The words a failure's line quotes as why it failed; empty when it quotes none."""
    found = _QUOTED_ERROR_RE.search(item.text) if item is not None else None
    return found.group(1) if found is not None else ""


def _crashed(item: Item) -> bool:
    """Whether a failure's line quotes a program's exception as why it failed."""
    return is_crash(_error_quoted(item))


def _says_again(item: Item | None, output: str) -> bool:
    """Whether ``output`` says again the error a failure's line quotes."""
    said = _error_quoted(item).rstrip("\u2026").strip()
    return len(said) >= _MIN_SAID and said in output


def _any_same(paths: list[str], targets: frozenset[str]) -> bool:
    """Whether a path read names a file an edit targeted, from the project's directory or
    from the root (``internal/a.go`` and ``/w/p/internal/a.go``)."""
    return any(p == t or t.endswith(f"/{p}") or p.endswith(f"/{t}") for p in paths for t in targets)
