"""Task trackers used through the shell: beads (``bd``) command lines and outputs, and the
issues a session opens or closes with GitHub's or GitLab's command line, as todos.

An agent that keeps its todo list in an issue tracker claims, lists and closes issues with
shell commands. This module reads beads' documented command lines (``bd update <ids>
--status <s>``, ``bd close <ids>``; the value an option takes is no id) and output lines
(``bd list``/``bd ready`` rows, the head line of ``bd show``, its ``CHILDREN`` block,
``bd create``'s "Created issue") into per-issue changes. Only structured lines count: an
id merely mentioned in a description changes nothing.

A listing is a read: the tracker holds everyone's work, so a listed row is this session's
todo only when its issue belongs to an issue the session itself claimed, created or closed
(its own family of issues: ``app-fum.4`` under a claimed ``app-fum.1`` or ``app-fum``).
:class:`deriver.todo_lists.TodoLists` keeps that rule and the todos it makes.

An issue opened with ``gh issue create`` (``glab issue create``) is the session's own: work
it filed for later, a todo until ``gh issue close`` closes it. Issue lists and views are reads.
So is a file the session writes into a todo directory (``.planning/todos/pending/x.md``,
``todos/x.md``): a todo it filed, done once moved into ``done/``. A document written into a
``backlog/`` directory is a document (a plan the user asked for), no todo of the session.

Total, deterministic, free of I/O and bounded on long outputs.
"""

from __future__ import annotations

import itertools
import re
from typing import Final, NamedTuple

from deriver.shell import basename, simple_commands

__all__ = ["TrackerChange", "todo_files_written", "tracker_changes"]


class TrackerChange(NamedTuple):
    """One issue's new state: ``status`` is pending, in_progress or closed; title if known.
    ``listed`` when a listing or ``bd show`` printed it, not when the session changed it."""

    issue: str
    status: str | None
    title: str | None
    listed: bool = False


_PROGRAMS: Final = frozenset({"bd", "beads"})
_ID: Final = r"[A-Za-z][\w-]*-[a-z0-9]+(?:\.\d+)*"
_ID_RE: Final = re.compile(rf"^{_ID}$")
# Status glyphs beads prints before an issue.
_GLYPHS: Final = {
    "\u25cb": "pending",
    "\u25d0": "in_progress",
    "\u2713": "closed",
    "\u2714": "closed",
}
_GLYPH: Final = "[\u25cb\u25d0\u2713\u2714]"
# ``○ id [● P2] [task] - Title``  /  ``○ id · Title   [● P2 · OPEN]``  /  ``↳ ○ id: Title ● P2``
_ROW_RE: Final = re.compile(
    rf"^\s*(?:\u21b3\s*)?(?P<glyph>{_GLYPH})\s+(?P<id>{_ID})(?::|\s+\u00b7|\s+(?:\[[^\]]*\]\s*)*-)"
    r"\s+(?P<title>.+?)\s*(?:\[\u25cf[^\]]*\]|\u25cf\s*P\d)?\s*$"
)
# ``1. [● P2] [task] spotter-u4u.1: Title`` (bd ready)
_READY_RE: Final = re.compile(rf"^\s*\d+\.\s+(?:\[[^\]]*\]\s*)*(?P<id>{_ID}):\s+(?P<title>.+?)\s*$")
_CREATED_RE: Final = re.compile(rf"^\s*\u2713\s*Created issue:\s*(?P<id>{_ID})\s*$")
_TITLE_RE: Final = re.compile(r"^\s*Title:\s*(?P<title>.+?)\s*$")
_BLOCKED_RE: Final = re.compile(r"\s*\((?:blocked by|blocks):[^)]*\)?\s*$")
_STATUS_WORDS: Final = {"open": "pending", "in_progress": "in_progress", "closed": "closed"}
_MAX_LINES: Final = 400
_MAX_SCAN: Final = 64 * 1024
_UNQUOTED: Final = str.maketrans("", "", "'\"\\")
_FORGES: Final = frozenset({"gh", "glab"})
_TRACKER_WORDS: Final = (*_PROGRAMS, "gh issue", "glab issue", "mv")
"""What a command line that runs a tracker (or moves a filed todo) shows, quotes removed."""
# The issue's URL ``gh issue create`` prints, and the number ``gh issue close 12`` names.
_ISSUE_URL_RE: Final = re.compile(r"https?://\S+/issues/(\d+)\b")
_NUMBER_RE: Final = re.compile(r"^#?(\d+)$|/issues/(\d+)$")
_TITLE_FLAGS: Final = frozenset({"--title", "-t"})
_CLOSED_RE: Final = re.compile(r"Closed issue \S*#(\d+) \((.+)\)\s*$", re.MULTILINE)


# Options of ``bd update`` / ``bd close`` that take no value: the word after them may be an id.
_FLAGS: Final = frozenset({"--json", "--claim", "--quiet", "-q", "--force", "-f", "--verbose",
                           "-v", "--no-daemon", "--sandbox"})  # fmt: skip


def _issue_ids(args: list[str]) -> list[str]:
    """The issues a command names: its words that look like ids, not the value an option
    takes (``--assignee worker-1``, ``--parent app-fum``)."""
    ids: list[str] = []
    for before, word in zip(["", *args], args, strict=False):
        valued = before.startswith("-") and "=" not in before and before not in _FLAGS
        if _ID_RE.match(word) and not valued:
            ids.append(word)
    return ids


def _command_changes(words: list[str]) -> list[TrackerChange]:
    sub = words[1] if len(words) > 1 else ""
    ids = _issue_ids(words[2:])
    if sub == "close":
        return [TrackerChange(i, "closed", None) for i in ids]
    return _updated(ids, _status_option(words[2:])) if sub == "update" else []


def _updated(ids: list[str], status: str | None) -> list[TrackerChange]:
    """``bd update <ids> --status <s>``: the issues in their new status, if it is one."""
    mapped = _STATUS_WORDS.get(status or "")
    return [TrackerChange(i, mapped, None) for i in ids if i != status] if mapped else []


def _status_option(args: list[str]) -> str | None:
    """The value of the last ``--status`` (``-s``) option."""
    status = None
    for n, word in enumerate(args):
        if word.startswith("--status="):
            status = word.split("=", 1)[1]
        elif word in ("--status", "-s") and n + 1 < len(args):
            status = args[n + 1]
    return status


def _output_changes(output: str) -> list[TrackerChange]:
    found: list[TrackerChange] = []
    lines = output[:_MAX_SCAN].splitlines()[:_MAX_LINES]
    created: str | None = None
    for line in lines:
        row = _ROW_RE.match(line)
        if row is not None:
            title = _BLOCKED_RE.sub("", row.group("title"))
            found.append(
                TrackerChange(row.group("id"), _GLYPHS[row.group("glyph")], title, listed=True)
            )
            continue
        ready = _READY_RE.match(line)
        if ready is not None:
            found.append(TrackerChange(ready.group("id"), "pending", ready.group("title"), True))
            continue
        made = _CREATED_RE.match(line)
        if made is not None:
            created = made.group("id")
            found.append(TrackerChange(created, "pending", None))
            continue
        titled = _TITLE_RE.match(line)
        if titled is not None and created is not None:
            found.append(TrackerChange(created, None, titled.group("title")))
            created = None
    return found


def _forge_changes(words: list[str], output: str, made: int) -> list[TrackerChange]:
    """``gh issue create --title T``: the issue its URL numbers, opened (the ``made``-th
    create of its command line, the ``made``-th URL printed); ``gh issue close 12`` (or its
    URL): closed."""
    verb = words[2] if len(words) > 2 and words[1] == "issue" else ""
    if verb == "create":
        urls = _ISSUE_URL_RE.findall(output[:_MAX_SCAN])
        titles = [b for a, b in itertools.pairwise(words) if a in _TITLE_FLAGS]
        title = titles[-1] if titles else None
        return [TrackerChange(f"#{urls[made]}", "pending", title)] if made < len(urls) else []
    if verb == "close":
        numbers = [m.group(1) or m.group(2) for w in words[3:] if (m := _NUMBER_RE.search(w))]
        closed = _CLOSED_RE.search(output[:_MAX_SCAN])
        title = closed.group(2) if closed and numbers and closed.group(1) == numbers[0] else None
        return [TrackerChange(f"#{n}", "closed", title) for n in numbers[:1]]
    return []


def tracker_changes(command: str, output: str) -> list[TrackerChange] | None:
    """The issue changes a successful tracker command made or showed; None when the command
    line runs no tracker."""
    # A word is its characters less quotes and backslashes: a line in which no program's
    # name shows once they are gone runs none, and need not be parsed (most do not).
    bare = command.translate(_UNQUOTED)
    if not any(name in bare for name in _TRACKER_WORDS):
        return None
    changes: list[TrackerChange] = []
    ran = beads = False
    made = 0  # issues created so far on the line: each prints its URL in turn
    for _piped, words in simple_commands(command):
        program = basename(words[0])
        if program in _PROGRAMS:
            changes.extend(_command_changes(words))
            ran = beads = True
        elif program in _FORGES:
            changes.extend(_forge_changes(words, output, made))
            made += words[1:3] == ["issue", "create"]
            ran = True
        elif program == "mv" or (program == "git" and words[1:2] == ["mv"]):
            moved = _todo_files_moved(words[2 if program == "git" else 1 :])
            changes.extend(moved)
            ran = ran or bool(moved)
    if beads:
        changes.extend(_output_changes(output))
    return changes if ran else None


_TODO_DIRS: Final = frozenset({"todo", "todos"})
_DONE_DIRS: Final = frozenset({"done", "completed", "closed", "archive", "archived"})
_NOTE_SUFFIXES: Final = (".md", ".markdown", ".txt", ".org")


def _parts(path: str) -> set[str]:
    """The names of a path's parts, lowercase."""
    return {part.lower() for part in path.replace("\\", "/").rstrip("/").split("/")}


def _todo_file(path: str) -> str | None:
    """The name of a todo filed as a note in a todo directory, not one already done."""
    directory, _, name = path.replace("\\", "/").rpartition("/")
    dirs = _parts(directory)
    if not name.lower().endswith(_NOTE_SUFFIXES) or not dirs & _TODO_DIRS or dirs & _DONE_DIRS:
        return None
    return name


def todo_files_written(paths: tuple[str, ...]) -> list[TrackerChange]:
    """The todos a write of ``paths`` filed: one per note in a todo directory."""
    return [
        TrackerChange(f"todo {name}", "pending", None) for p in paths if (name := _todo_file(p))
    ]


def _todo_files_moved(args: list[str]) -> list[TrackerChange]:
    """The filed todos a ``mv`` (``git mv``) of ``args`` moves into a ``done/`` directory:
    closed."""
    paths = [a for a in args if not a.startswith("-")]
    if len(paths) < 2 or not _parts(paths[-1]) & _DONE_DIRS:
        return []
    return [
        TrackerChange(f"todo {name}", "closed", None) for p in paths[:-1] if (name := _todo_file(p))
    ]
