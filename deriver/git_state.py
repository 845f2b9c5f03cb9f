"""The state of the work as git and a forge's command line state it: a commit's hash and
subject, a clean working tree, changes thrown away; the pull request a merge names
(``gh pr``, GitHub; ``glab mr``, GitLab) and the merge method it chose."""

from __future__ import annotations

import re
from typing import Final, NamedTuple

from deriver.shell import basename, simple_commands
from session_memory.core.outcome import ToolOutcome

__all__ = [
    "COMMIT_RE",
    "DISCARDS_RE",
    "MERGE_LATER_RE",
    "PULL_URL_RE",
    "PullAction",
    "discarded",
    "pull_action",
    "same_pull",
    "tree_clean",
]

# What `git commit` prints first: "[branch hash] subject" ("[main (root-commit) 1a2b3c4] x").
COMMIT_RE: Final = re.compile(
    r"^\[[^\]\n]*?([0-9a-f]{7,40})\] (.+)$", re.MULTILINE
)  # fmt: skip
DISCARDS_RE: Final = re.compile(r"\bgit\b.*\b(?:checkout|restore|reset)\b", re.DOTALL)
_REF_LIKE: Final = frozenset({"HEAD", "@"})
_CLEAN_TREE_RE: Final = re.compile(r"nothing to commit,? \(?working (?:tree|directory) clean")
_SHORT_STATUS: Final = frozenset({"-s", "--short", "-sb", "-bs", "--porcelain", "-b"})

PULL_URL_RE: Final = re.compile(r"https?://\S+?/(?:pull|merge_requests)/\d+")
MERGE_LATER_RE: Final = re.compile(r"\bwill be (?:automatically merged|added to the merge queue)")
"""gh's words for a merge it only scheduled (``gh pr merge --auto``, a merge queue)."""

# The merge method each client's flags choose, as the forge names it.
_METHODS: Final = {
    "gh": {"--squash": "Squash merge", "-s": "Squash merge", "--rebase": "Rebase merge",
           "-r": "Rebase merge", "--merge": "Merge commit", "-m": "Merge commit"},
    "glab": {"--squash": "Squash merge", "-s": "Squash merge", "--rebase": "Rebase merge",
             "-r": "Rebase merge"},
}  # fmt: skip
# Flags that take a value, which is then no pull request.
_VALUED: Final = {
    "gh": frozenset({"-b", "--body", "-F", "--body-file", "-t", "--subject", "-R", "--repo",
                     "-A", "--author-email", "--match-head-commit", "-c", "--comment"}),
    "glab": frozenset({"-m", "--message", "--squash-message", "--sha", "-R", "--repo"}),
}  # fmt: skip
_NOUN: Final = {"gh": "pr", "glab": "mr"}
_VERBS: Final = frozenset({"merge", "close"})


def tree_clean(command: str, outcome: ToolOutcome) -> bool:
    """Whether git said that the working tree is clean: "nothing to commit, working tree
    clean" (``git status``, a ``git commit`` with nothing to do), or ``git status --short``
    of the whole tree listing no file (its ``##`` branch line aside)."""
    if "git" not in command:
        return False
    text = outcome.output or outcome.error
    if _CLEAN_TREE_RE.search(text[-2000:]):
        return True
    commands = [words for _piped, words in simple_commands(command) if words[0] != "cd"]
    if len(commands) != 1 or outcome.status != "completed" or outcome.exit_code not in (0, None):
        return False
    words = commands[0]
    return (
        basename(words[0]) == "git"
        and words[1:2] == ["status"]
        and bool(_SHORT_STATUS.intersection(words[2:]))
        and all(w.startswith("-") for w in words[2:])
        and all(not ln.strip() or ln.startswith("## ") for ln in text.splitlines())
    )


def discarded(args: list[str]) -> list[str] | None:
    """The paths whose changes a git command line (its words after ``git``) throws away:
    ``checkout -- a.py``, ``restore a.py`` (not ``--staged`` alone, not from another
    ``--source``); None for all of them (``checkout .``, ``restore .``, ``reset --hard``);
    empty when it throws none away (``checkout main`` names no changed file: the caller
    matches)."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in ("-C", "-c") else 1  # git's own options
    sub, rest = (args[i], args[i + 1 :]) if i < len(args) else ("", [])
    if sub == "reset":
        return None if "--hard" in rest else []
    if sub == "restore":
        staged_only = bool({"--staged", "-S"} & set(rest)) and not {"--worktree", "-W"} & set(rest)
        if staged_only or any(w in ("-s", "--source") or w.startswith("--source=") for w in rest):
            return []
        paths = [w for w in rest if not w.startswith("-")]
    elif sub == "checkout":
        paths = [w for w in rest if not w.startswith("-")]
        if "--" in rest:
            refs = [w for w in rest[: rest.index("--")] if not w.startswith("-")]
            if any(ref not in _REF_LIKE for ref in refs):
                return []  # ``checkout main -- a.py`` puts another version there: changed
            paths = rest[rest.index("--") + 1 :]
    else:
        return []
    return None if "." in paths else paths


class PullAction(NamedTuple):
    """A command that merges or closes a pull request: the verb, the pull request it names
    ("" for the current branch's) and, for a merge, the method it chose with the command
    that chose it ("" when it chose none)."""

    verb: str
    pull_request: str
    method: str


def pull_action(words: list[str]) -> PullAction | None:
    """The merge or close a command's words ask for (``gh pr merge 5 --squash``, ``glab mr
    close 3``); None for any other command."""
    client = basename(words[0]) if words else ""
    if client not in _NOUN or words[1:2] != [_NOUN[client]] or words[2:3] == []:
        return None
    verb = words[2]
    if verb not in _VERBS:
        return None
    methods = _METHODS[client] if verb == "merge" else {}
    named = method = ""
    skip = False
    for word in words[3:]:
        if skip:
            skip = False
        elif word in methods:
            method = f"{methods[word]} (`{client} {_NOUN[client]} merge {word}`)"
        elif word in _VALUED[client]:
            skip = True
        elif not word.startswith("-") and not named:
            named = word
    return PullAction(verb, named, method)


def same_pull(named: str, url: str) -> bool:
    """Whether a command's argument (a number, ``#7``, a URL) names the pull request at
    ``url``."""
    number = named.rstrip("/").rsplit("/", 1)[-1].lstrip("#")
    return named == url or url.endswith(f"/{number}")
