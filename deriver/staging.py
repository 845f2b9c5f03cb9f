"""What ``git add`` stages and ``git commit`` takes: the files a commit of only some of them
leaves changed (``git add a.py && git commit``: b.py is still not committed). A file the
session removed (``rm``) has no change left to commit."""

from __future__ import annotations

import re
from typing import Final

from deriver.git_state import outside
from deriver.shell import basename, simple_commands
from deriver.user_text import word_set

__all__ = ["stages_all", "staging"]

# ``git add`` words that stage every change (or a part of each file, or a pattern's matches).
_ADDS_ALL: Final = frozenset({"-A", "--all", "-u", "--update", "-p", "--patch", "-i", "."})
# git subcommands that stage changes of their own (a merge stages all it merged, even when it
# stops on conflicts; git mv and git rm, the paths they move or remove).
_STAGES_ALL: Final = word_set("merge pull rebase cherry-pick revert am mv rm stash apply")
_GLOB: Final = frozenset("*?[")
_NO_PATH_RE: Final = re.compile(r"\d*[<>&]|.*\s")  # 2>&1, >out.log, a message: no path
# ``git commit``'s options whose value is the next word: no path.
_COMMIT_VALUED: Final = word_set("-m --message -F --file -C -c --author --date --fixup --squash -t")


def staging(
    command: str, changed: list[str], staged: list[str] | None, listed: list[str], cwd: str | None
) -> tuple[list[str] | None, list[str] | None]:
    """What a command line's ``git add``, ``git commit`` and ``rm`` do to the ``changed``
    files: those its commit or ``rm`` leaves (None: it does neither), and the paths then
    ``staged`` (None: all or not known, when a commit takes every change; empty: none since
    the last commit).

    ``git add a.py docs/`` stages those paths (``-A``, ``.``, a pattern, ``-p``: all); a
    commit takes them (``-a``: all changes; paths of its own: those), and leaves the others
    that git ``listed`` as changed (a file known changed only by an edit may have been put
    back since). A line that moves to another directory first (``cd``, ``git -C``) is read
    as staging all."""
    left, elsewhere_too = None, " -C " in command
    for piped, words in simple_commands(command):
        elsewhere_too = elsewhere_too or words[0] == "cd"
        if not piped and basename(words[0]) == "rm" and not elsewhere_too:
            changed = left = outside(changed, [w for w in words[1:] if w[:1] != "-"], cwd)
        if piped or basename(words[0]) != "git" or len(words) < 2:
            continue
        sub, args = words[1], words[2:]
        if sub == "add":
            paths = [w for w in args if not w.startswith("-") and not _NO_PATH_RE.match(w)]
            every = elsewhere_too or _ADDS_ALL & set(args) or any(_GLOB & set(w) for w in paths)
            staged = None if every or staged is None else [*staged, *paths]
        elif sub in ("reset", "restore") and staged:
            staged = None  # some unstaged: which is not followed
        elif sub == "commit":
            taken = _committed(args)
            if taken is None or elsewhere_too or not (taken or staged):
                left = []
            else:  # the paths it names, else those staged
                left = [c for c in outside(changed, taken or staged or [], cwd) if c in listed]
            changed, staged = left, []
    return left, staged


def _committed(args: list[str]) -> list[str] | None:
    """The paths ``git commit`` names (its words after ``commit``), None when it commits
    every change (``-a``, ``-am "msg"``, ``--all``)."""
    paths: list[str] = []
    words = iter(args)
    for word in words:
        if word == "--all":
            return None
        if word in _COMMIT_VALUED:
            next(words, None)
        elif word[:1] == "-" and word[1:2] not in ("-", ""):  # -a, -am "msg", -mfix
            for at, letter in enumerate(word[1:], 2):
                if letter == "a":
                    return None
                if letter in "mFCct":
                    if at == len(word):
                        next(words, None)
                    break
        elif not word.startswith("-") and not _NO_PATH_RE.match(word):
            paths.append(word)
    return paths


def stages_all(command: str) -> bool:
    """Whether a command line runs git to stage what no ``git add`` of it names: a commit
    after it takes every change."""
    return any(
        basename(words[0]) == "git" and words[1:2] and words[1] in _STAGES_ALL
        for _piped, words in simple_commands(command)
    )
