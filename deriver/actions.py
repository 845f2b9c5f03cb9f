"""Actions: what a tool call did, normalised so that two spellings of it compare equal.

A shell command line is read as its simple commands: each is a program, its subcommand
(``git push``, ``mix test``, ``bd update``) and its targets (the positional words: paths,
refs, names). ``git push 2>&1`` and ``git push --set-upstream origin main`` are the same
action, ``git push`` on no target and on ``origin main``; ``pytest tests/a.py`` and
``pytest`` are the same check on one file and on the whole suite. Other tools are their
name on their key argument.

Total, deterministic, free of I/O and bounded on long command lines.
"""

from __future__ import annotations

import functools
import re
from typing import Final, NamedTuple

from deriver.read_only import is_read_only_command
from deriver.shell import basename, simple_commands
from deriver.tool_kinds import LOOKING_KINDS, ToolKind, classify_tool
from deriver.user_text import word_set

__all__ = [
    "Action",
    "actions_of",
    "actions_of_uncached",
    "feeds_all",
    "files_viewed",
    "is_no_match",
    "moved_only",
    "only_looked",
    "only_looks",
    "placed",
    "positional_words",
    "resolves",
    "settles",
]


class Action(NamedTuple):
    """A normalised action: ``name`` (tool or program and subcommand) and its targets."""

    name: str
    targets: frozenset[str]


# Programs that set up the shell or print, not the action a command line is about.
_PLUMBING: Final = word_set(
    "cd pushd popd export set unset source . echo printf true false sleep wait exit : "
    "clear trap alias shopt ulimit umask"
)
# Programs whose exit status 1 with no output means "no line matched", not a failure.
_SEARCH_PROGRAMS: Final = word_set("rg grep egrep fgrep zgrep ag ack git-grep")
_SUBCOMMAND_RE: Final = re.compile(r"^[a-z][a-z0-9_-]*(?::[a-z0-9_.-]+)*$")
_REDIRECT_RE: Final = re.compile(r"^\d*(?:[<>]{1,2}|&>>?)&?(.*)$")
_EXIT_LINE_RE: Final = re.compile(r"^\s*(?:Error: )?Exit code \d+\s*$", re.IGNORECASE)
_ONLY_ASKS: Final = frozenset({"--help", "--version"})
_MAX_TARGETS: Final = 32
_MAX_EMPTY_OUTPUT: Final = 256


def positional_words(words: list[str]) -> list[str]:
    """Positional words: not flags, not redirections, no whitespace (a message is not one)."""
    found: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
            continue
        redirect = _REDIRECT_RE.match(word)
        if redirect is not None:
            skip = not redirect.group(1)  # ``> out.txt``: the next word is the file
            continue
        if word.startswith("-") or not word or any(c.isspace() for c in word):
            continue
        found.append(word)
    return found[:_MAX_TARGETS]


def _command_action(words: list[str]) -> Action:
    program = basename(words[0])
    rest = words[1:]
    positional = positional_words(rest)
    name = program
    if positional and _SUBCOMMAND_RE.match(positional[0]):
        name = f"{program} {positional[0]}"
        positional = positional[1:]
    if _ONLY_ASKS.intersection(rest) or rest[-1:] == ["-h"]:
        # "migrate.py --help" prints how to run it and runs nothing: it is not the action
        # that failed, and does not resolve it.
        name += " --help"
    return Action(f"$ {name}", frozenset(positional))


def _main_commands(command: str) -> list[list[str]]:
    """The simple commands a command line is about: not pipe filters, not plumbing."""
    return [
        words
        for piped, words in simple_commands(command)
        if not piped and basename(words[0]) not in _PLUMBING
    ]


def actions_of_uncached(tool: str, key: str | None, check: str | None = None) -> tuple[Action, ...]:
    """The actions a call stands for: one per simple command of a shell command line (a
    check is one action named by the check), else the tool on its key argument."""
    if classify_tool(tool) is ToolKind.SHELL and key:
        commands = _main_commands(key)
        if check is not None:
            targets: set[str] = set()
            for words in commands:
                targets.update(_command_action(words).targets)
            return (Action(f"check {check}", frozenset(targets)),)
        actions = tuple(dict.fromkeys(_command_action(words) for words in commands))
        if actions:
            return actions
    return (Action(tool, frozenset((key,)) if key else frozenset()),)


# Memoised like detect_check (tests compare it with its twin): a failure and the success
# that resolves it read the same command line, and agents run the same few commands again.
actions_of = functools.lru_cache(maxsize=4096)(actions_of_uncached)


def resolves(success: Action, failure: Action, *, check: bool) -> bool:
    """Whether a success of an action settles an earlier failure of the same action.

    A check settles a failure on targets it covers: the file again, or a broader run (on
    no target: the whole suite). Any other action settles a failure on the same targets or
    fewer (``git push`` then ``git push -u origin main``): a success on other targets
    (``git add b.py`` after ``git add a.py`` failed) did not do what failed.
    """
    if success.name != failure.name:
        return False
    if check:
        return not success.targets or (bool(failure.targets) and failure.targets <= success.targets)
    return failure.targets <= success.targets


def feeds_all(success: str, failure: str) -> bool:
    """Whether a command line runs every program a failed one fed text to that does more
    than read it (``cat log | python3 -c …``: python3), so that its success can stand for
    the failure (``cat log | grep x`` did not do what failed)."""
    if "|" not in failure:
        # It fed nothing to anything. Said before parsing: parsing every line a success
        # settles cost the full rebuild 4% (benchmarks.measure.throughput, 200,000 events),
        # against issue 35's target that nothing get slower.
        return True
    ran = {basename(words[0]) for _, words in simple_commands(success)}
    return all(
        basename(words[0]) in ran
        for piped, words in simple_commands(failure)
        if piped and not is_read_only_command(" ".join(words))
    )


def settles(successes: tuple[Action, ...], failures: tuple[Action, ...]) -> bool:
    """Whether a successful command line did everything a failed one tried: each action of
    the failure settled by one of the success (``cd x && make`` is not settled by ``cd x
    && git add .``, nor ``git add a && git commit`` by ``git add a``)."""
    return all(
        any(resolves(success, failure, check=False) for success in successes)
        for failure in failures
    )


def is_no_match(command: str | None, exit_code: int | None, output: str) -> bool:
    """Whether a failed shell call is a search that found nothing: ``rg``/``grep`` exit 1
    with no output (past an "Exit code 1" header) is "no match", not a failure. A pipeline
    exits as its last command: one whose last filter searches (``tool --json | rg x``)
    matched nothing too."""
    if exit_code != 1 or not command or not _says_nothing(output):
        return False
    commands = simple_commands(command)
    if commands and commands[-1][0] and _is_search(commands[-1][1]):
        return True
    main = _main_commands(command)
    return bool(main) and all(_is_search(words) for words in main)


def _says_nothing(output: str) -> bool:
    """Whether an output is empty but for an "Exit code 1" header."""
    return len(output) <= _MAX_EMPTY_OUTPUT and not any(
        line.strip() and not _EXIT_LINE_RE.match(line) for line in output.splitlines()
    )


def _is_search(words: list[str]) -> bool:
    program = basename(words[0])
    return program in _SEARCH_PROGRAMS or (program == "git" and words[1:2] == ["grep"])


# An error that says the thing looked for is not there (the words of the OS and of tools),
# or that a directory is there instead of the file ("EISDIR: illegal operation on a
# directory, read", "Is a directory").
_NOT_FOUND_RE: Final = re.compile(
    r"no such file|does not exist|not found|cannot find|could not find|no matches|"
    r"did not match|cannot access|nothing found|\bEISDIR\b|\bis a directory\b",
    re.IGNORECASE,
)
_NOT_FOUND_SCAN: Final = 1024


def only_looks(kind: ToolKind, key: str | None) -> bool:
    """Whether a call only reads: a read, a search, a listing, a read-only command line."""
    if kind in LOOKING_KINDS:
        return True
    return kind is ToolKind.SHELL and bool(key) and is_read_only_command(key or "")


_MISSING_FILE_RE: Final = re.compile(r"no such file|does not exist", re.IGNORECASE)
_MISSING_PROGRAM_RE: Final = re.compile(  # make: "make: ruff: No such file or directory"
    r"(?i:command not found)|is not recognized as (?:an internal|the name)|: not found$"
    r"|\bmake(?:\[\d+\])?: [\w.+-]+: No such file or directory"
    # A program a tool starts that is not there: "spawn rg ENOENT", "ENOENT: no such file
    # or directory, posix_spawn '/opt/…/claude'" (the tool cannot run at all).
    r"|\b(?:posix_)?spawn\b[^\n]*\bENOENT\b|\bENOENT\b[^\n]*\b(?:posix_)?spawn\b",
    re.M,
)


def lacks_program(text: str) -> bool:
    """Whether a command's output says a program it runs is not there (``zsh: command not
    found: nx``): what the machine lacks."""
    return _MISSING_PROGRAM_RE.search(text[:_NOT_FOUND_SCAN]) is not None


def found_missing(kind: ToolKind, error: str) -> bool:
    """Whether a failed read or edit says its file is not there (any more)."""
    missing = _MISSING_FILE_RE.search(error[:_NOT_FOUND_SCAN])
    return kind in (ToolKind.READ, ToolKind.EDIT) and missing is not None


def only_looked(kind: ToolKind, key: str | None, exit_code: int | None, error: str) -> bool:
    """Whether a failed call only looked: a shell command line that only reads (``ls`` or
    ``cat`` of a missing file, a search that matched nothing), or a read tool that found
    nothing there (one refused for the file's size failed: that teaches how to read it). A
    command whose program is not there (``gh: command not found``), or a search tool that
    could not start its own (``spawn rg ENOENT``), says what the machine lacks: a failure."""
    if lacks_program(error):
        return False
    if kind in LOOKING_KINDS:
        return _NOT_FOUND_RE.search(error[:_NOT_FOUND_SCAN]) is not None
    if kind is not ToolKind.SHELL or not key:
        return False
    return is_read_only_command(key) or is_no_match(key, exit_code, error)


_VIEWERS: Final = frozenset({"$ cat", "$ sed", "$ head", "$ tail", "$ nl", "$ bat", "$ less"})


def files_viewed(tool: str, command: str) -> list[str]:
    """The files a shell command line that only reads shows, whole or in part (``cat a.py``,
    ``sed -n '1,140p' a.go``, ``head -50 README.md``): the agent has seen them as they are."""
    if not is_read_only_command(command):
        return []
    return [p for a in actions_of(tool, command) if a.name in _VIEWERS for p in sorted(a.targets)]


_GIT: Final = "$ git "
_CD_RE: Final = re.compile(r"cd\s+\S+\s*(?:&&|;)\s*")


def moved_only(failed: str, worked: str) -> bool:
    """Whether one command line is the other run from another directory: ``cd web && npm
    install`` when the shell was in ``web`` already, then ``npm install``; or the other way
    round."""
    if not failed or not worked or failed == worked:
        return False
    return _CD_RE.sub("", failed, count=1) == _CD_RE.sub("", worked, count=1) and (
        _CD_RE.match(failed) is not None or _CD_RE.match(worked) is not None
    )


def placed(actions: tuple[Action, ...], place: str) -> tuple[Action, ...]:
    """The actions of a call run in another directory than the session's (a Codex
    ``workdir``): a git command's failure there is settled only by a success there, not by
    the same command in the project (``git push`` in two repositories). Other commands
    (``gh repo view o/r``) act the same from anywhere."""
    if not place:
        return actions
    return tuple(
        Action(f"{a.name} in {place}", a.targets) if a.name.startswith(_GIT) else a for a in actions
    )
