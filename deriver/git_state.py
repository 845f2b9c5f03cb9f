"""The state of the work as git and a forge's command line state it: a commit's hash and
subject, the files a status lists (none: a clean tree), the paths git ignores, changes
thrown away; the pull request a merge names (``gh pr``, GitHub; ``glab mr``, GitLab) and the
merge method it chose."""

from __future__ import annotations

import posixpath
import re
from typing import Final, NamedTuple

from deriver.output_scan import windowed
from deriver.shell import basename, simple_commands
from deriver.wording import DRIVE_RE, beside, in_scratch, relative
from session_memory.core.outcome import ToolOutcome

__all__ = [
    "CHANGED_KEPT",
    "COMMIT_RE",
    "DISCARDS_RE",
    "FORGE_PULLS",
    "MERGE_LATER_RE",
    "PULL_REQUEST_CALL",
    "PULL_URL_RE",
    "CommitLine",
    "PullAction",
    "commit_line",
    "commit_subjects",
    "commits_ahead",
    "configures_ci",
    "elsewhere",
    "git_said",
    "ignored",
    "in_scratch_dir",
    "kept_after",
    "listed",
    "looks_at_ci",
    "opens_pull",
    "outside",
    "pull_action",
    "same_pull",
    "says_clean",
    "tree_status",
]

# What `git commit` prints first: "[branch hash] subject" ("[main (root-commit) 1a2b3c4] x"):
# the branch, the hash, the subject.
COMMIT_RE: Final = re.compile(
    r"^\[(?:([^\s\]]+) )?[^\]\n]*?([0-9a-f]{7,40})\] (.+)$", re.MULTILINE
)  # fmt: skip
_NEAR: Final = 2
"""Another repository at most this many directories up is shown from the session's."""
DISCARDS_RE: Final = re.compile(r"\bgit\b.*\b(?:checkout|restore|reset|stash)\b", re.DOTALL)
_REF_LIKE: Final = frozenset({"HEAD", "@"})
_CLEAN_TREE_RE: Final = re.compile(r"nothing to commit,? \(?working (?:tree|directory) clean")
# A file of a short status listing: "XY path" (" M a.py", "?? b/").
_SHORT_LINE_RE: Final = re.compile(r"^[ MTADRCU?!]{2} \S")
_SHORT_STATUS: Final = frozenset({"-s", "--short", "-sb", "-bs", "--porcelain", "-b"})
# A file of a long status listing: "\tmodified:   a.py", "\tnew file:   b.py", "\tc.py".
_LONG_STATUS_RE: Final = re.compile(r"^(?:[a-z][a-z ]{2,20}):\s+")
_DIFFSTAT_RE: Final = re.compile(r" \| +(?:\d+ ?[+-]*|Bin .*)$")  # git diff --stat: "a.py | 3 ++-"
_IGNORED_HEAD_RE: Final = re.compile(r"^The following paths? (?:is|are) ignored by one of your")
# ``git check-ignore -v``: "source:line:pattern<TAB>path".
_CHECK_IGNORE_RE: Final = re.compile(r"^[^\t:\n]+:\d+:([^\t!*?\[\n]+)\t(\S.*)$")

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


# A commit message in a heredoc (``git commit -F - <<'EOF'``, ``-m "$(cat <<'EOF'``): its
# first line.
_HEREDOC_SUBJECT_RE: Final = re.compile(
    r"\bgit\b[^\n]*?\bcommit\b[^\n]*?<<-?\s*['\"]?\w+['\"]?[^\n]*\n\s*(\S[^\n]*)"
)


class CommitLine(NamedTuple):
    """What a ``git commit`` command line says of its commit: whether it amends the last
    one, and the subject it gives (which names a quiet commit, ``-q``, whose output does
    not)."""

    amend: bool
    subject: str


def commit_line(command: str) -> CommitLine:
    """What a ``git commit`` command line says of the commit it makes (:class:`CommitLine`)."""
    subjects = commit_subjects(command)
    return CommitLine("--amend" in command, subjects[0] if subjects else "")


def commit_subjects(command: str) -> list[str]:
    """The subjects a ``git commit`` command line gives its commits (``-m``, ``--message``,
    a heredoc's first line), one per commit it makes (``git commit -q -m a && … git commit
    -q -m b``); none when it gives none (an editor, ``--no-edit``)."""
    found = _HEREDOC_SUBJECT_RE.search(command)
    if found is not None:
        return [found.group(1).strip()]
    subjects = []
    for piped, words in simple_commands(command):
        if piped or basename(words[0]) != "git" or words[1:2] != ["commit"]:
            continue
        for i, word in enumerate(words[2:], 2):
            short = word[:1] == "-" and word[1:].isalpha()  # -m, -am, -qm: the message next
            if (word == "--message" or (short and word.endswith("m"))) and i + 1 < len(words):
                message = words[i + 1]
            elif word.startswith("--message="):
                message = word.split("=", 1)[1]
            elif word.startswith("-m") and len(word) > 2:
                message = word[2:]
            else:
                continue
            subjects.append(message.strip().split("\n", 1)[0])
            break
    return subjects


def tree_status(command: str, outcome: ToolOutcome) -> list[str] | None:
    """The files git lists as changed in the whole working tree: none when it says "nothing
    to commit, working tree clean" (``git status``, a ``git commit`` with nothing to do),
    else those ``git status`` of the whole tree lists, short (``-s``, ``--porcelain``; also
    when other commands follow it, its listing first) or long. None when the command is no
    such listing (a status of some paths, or hiding untracked files, or seen through a
    filter or a window it fills, ``| head -5``, lists only some)."""
    if "git" not in command:
        return None
    text = outcome.output or outcome.error
    if says_clean(text):
        return []
    parts = [(piped, words) for piped, words in simple_commands(command) if words[0] != "cd"]
    commands = [words for _piped, words in parts]
    if not commands or outcome.status != "completed" or outcome.exit_code not in (0, None):
        return None
    at = next((n for n, w in enumerate(commands) if w[1:2] == ["status"]), 0)
    words = commands[at]
    if at + 1 < len(parts) and parts[at + 1][0]:
        filtered = basename(parts[at + 1][1][0]) not in ("head", "tail")
        if filtered or windowed(command, text):
            return None  # only part of the listing: git status | head -5, | grep
    options = words[2:]
    if (
        basename(words[0]) != "git"
        or words[1:2] != ["status"]
        or not all(w.startswith("-") for w in options)
        or any(w.startswith(("-uno", "--untracked-files=no")) for w in options)
    ):
        return None
    lines = text.splitlines()
    short = bool(_SHORT_STATUS.intersection(options))
    if at > 0:
        if not short and at < len(commands) - 1:
            return None
        start = _listing_start(lines, short)
        if start is None:
            return None
        lines = lines[start:]
    elif len(commands) > 1 and not short:
        return None  # a long listing is not told apart from what follows it
    return _short_listing(lines, len(commands) > 1) if short else _long_listing(lines)


def _listing_start(lines: list[str], short: bool) -> int | None:
    """Where a status listing starts after other commands' output: at its branch line (-b:
    "## main..."; long, last on its line: "On branch main"), else, short, its first file's."""
    head = "## " if short else "On branch "
    start = next((n for n, line in enumerate(lines) if line.startswith(head)), None)
    if start is None and short:
        start = next((n for n, line in enumerate(lines) if _SHORT_LINE_RE.match(line)), None)
    return start


def _short_listing(lines: list[str], followed: bool) -> list[str] | None:
    """The files a short ``git status`` lists ("XY path"), up to what a command ``followed``
    by prints (else None when a line is not of a listing)."""
    listed = []
    for line in lines:
        if not line.strip() or line.startswith("## "):
            continue
        if len(line) < 4 or line[2] != " " or _DIFFSTAT_RE.search(line):
            if followed:
                break  # what the next command printed
            return None  # not a short listing
        listed.append(line[3:].rsplit(" -> ", 1)[-1].strip('"'))
    return listed


def says_clean(text: str) -> bool:
    """Whether git's output ends saying the tree is clean ("nothing to commit, working tree
    clean": a status, or a commit with nothing to do)."""
    return _CLEAN_TREE_RE.search(text[-2000:]) is not None


def lists_after_commit(actions: list[str], command: str, outcome: ToolOutcome) -> bool:
    """Whether a command line's ``actions`` (``$ git commit``...) commit and then list the
    whole tree's status, read (``git commit -m x && git status``): what the commit left."""
    if "$ git commit" not in actions:
        return False
    at = actions.index("$ git commit")
    return "$ git status" in actions[at:] and tree_status(command, outcome) is not None


def _long_listing(lines: list[str]) -> list[str] | None:
    """The files a long ``git status`` lists (each on a tab-indented line)."""
    listed = [_LONG_STATUS_RE.sub("", line.strip()).rsplit(" -> ", 1)[-1]
              for line in lines if line.startswith("\t")]  # fmt: skip
    return listed or None


# What a status says of the branch against its upstream, long ("On branch x" then "Your branch
# is up to date with 'origin/x'." / "… is ahead of 'origin/x' by 2 commits." / "… is behind
# 'origin/x' by 1 commit" / "… and 'origin/x' have diverged,\nand have 2 and 1 different
# commits each") or short (-b: "## x...origin/x [ahead 2, behind 1]"; "[gone]": the upstream
# is no more).
_UPSTREAM_RE: Final = re.compile(
    r"^On branch (\S+)\nYour branch (?:is up to date with '[^'\n]+'|is ahead of '[^'\n]+' by "
    r"(\d+) commits?\.|is behind '[^'\n]+' by (\d+) commits?"
    r"|and '[^'\n]+' have diverged,\nand have (\d+) and (\d+) different commits)"
    r"|^## (\S+?)\.\.\.\S+(?: \[ahead (\d+)(?:, behind (\d+))?\]| \[behind (\d+)\])?$",
    re.MULTILINE,
)  # fmt: skip


def commits_ahead(command: str, outcome: ToolOutcome) -> tuple[str, int, int] | None:
    """The branch a ``git status`` names, how many of its commits its upstream has not (0:
    up to date, or only behind), and how many of the upstream's it has not. None when the
    output says no such thing."""
    if "status" not in command or outcome.status != "completed":
        return None
    found = _UPSTREAM_RE.search(outcome.output[:4000])
    if found is None:
        return None
    branch, ahead, behind, both_ahead, both_behind, short, *counts = found.groups()
    short_ahead, short_behind, only_behind = counts
    return (
        branch or short,
        int(ahead or both_ahead or short_ahead or 0),
        int(behind or both_behind or short_behind or only_behind or 0),
    )


def listed(changed: str, entries: list[str]) -> bool:
    """Whether a changed file (relative to the session's directory) is one git listed:
    the same path, a path relative to another directory of the same tree (``../a.py``,
    ``src/a.py`` run in ``pkg/``), or under a listed directory (``docs/``)."""
    for entry in entries:
        entry = entry.removeprefix("./")
        while entry.startswith("../"):
            entry = entry[3:]
        entry = entry.rstrip("/")
        if not entry:
            continue
        if (
            changed == entry
            or changed.startswith(f"{entry}/")
            or changed.endswith(f"/{entry}")
            or f"/{entry}/" in changed
            or entry.endswith(f"/{changed}")
        ):
            return True
    return False


def ignored(command: str, outcome: ToolOutcome) -> list[str]:
    """The paths git says its ignore files exclude: ``git add``'s "The following paths are
    ignored by one of your .gitignore files:" list, ``git check-ignore -v``'s matches."""
    if "git" not in command:
        return []
    text = (outcome.output + "\n" + outcome.error)[:4000]
    found: list[str] = []
    lines = iter(text.splitlines())
    for line in lines:
        if _IGNORED_HEAD_RE.match(line):
            for path in lines:
                if not path.strip() or path.startswith(("hint:", "Use -f")):
                    break
                found.append(path.strip())
        elif (match := _CHECK_IGNORE_RE.match(line)) is not None:
            found.append(match.group(2))
            if match.group(2).startswith(match.group(1).strip("/") + "/"):
                found.append(match.group(1).strip("/"))  # the directory the pattern names
    return found


CHANGED_KEPT: Final = 64
"""Files changed remembered (the oldest are forgotten)."""
_IGNORED_KEPT: Final = CHANGED_KEPT
"""Paths ignored remembered: as many as the files changed."""


def git_said(
    changed: list[str],
    ignored_paths: list[str],
    command: str,
    outcome: ToolOutcome,
    cwd: str | None,
) -> tuple[list[str], list[str], bool]:
    """What git says of the changed files (relative to the session's directory ``cwd``),
    whoever committed or changed them: a status lists those still changed ("nothing to
    commit, working tree clean": none), and those it lists that the session did not change
    are changed too (before the session's own, when run in its directory); the paths its
    ignore files exclude are no change to commit. The files still changed, the paths
    ignored so far, and whether the command listed the changed files."""
    excluded = ignored(command, outcome)
    if excluded:
        ignored_paths = [*ignored_paths, *excluded][-_IGNORED_KEPT:]
    elif ignored_paths and outcome.status == "completed" and "-f" in command:
        # ``git add -f`` tracks an ignored path: its later changes are to commit.
        forced = _force_added(command)
        ignored_paths = [p for p in ignored_paths if not any(listed(f, [p]) for f in forced)]
    entries = tree_status(command, outcome)
    kept = changed
    if entries is not None:
        kept = [c for c in changed if listed(c, entries)]
        if _in_dir(command, cwd):
            others = [
                e.rstrip("/") + "/" * e.endswith("/")
                for e in entries
                if not e.startswith("../") and not any(listed(c, [e]) for c in kept)
                and not listed(e, ignored_paths)
            ]  # fmt: skip
            kept = [*others, *kept][-CHANGED_KEPT:]
    if excluded:
        kept = [c for c in kept if not listed(c, excluded)]
    return kept, ignored_paths, entries is not None


def _in_dir(command: str, cwd: str | None) -> bool:
    """Whether a command line runs in the session's directory, when it is known: it goes
    into no other (``cd`` to it, or none)."""
    if cwd is None:
        return False
    target = _cd_target(command)
    return target is None or target.rstrip("/") in (".", "", cwd.rstrip("/"))


def _cd_target(command: str) -> str | None:
    """Where a command line's first ``cd`` goes ("" for a bare ``cd``), a variable the line
    set before read as its value (``S=/tmp/x`` then ``cd $S``; ``S=$(mktemp -d)``: /tmp); None
    without one."""
    if "cd" not in command:
        return None
    for _piped, words in simple_commands(command):
        if words[0] == "cd":
            target = words[1] if len(words) > 1 else ""
            named = _VARIABLE_RE.fullmatch(target)
            if named is None:
                return target
            name = named.group(1) or named.group(2)
            value = re.search(rf"(?:^|[\n;&]\s*){name}=([^\s;&|]+)", command)
            if value is not None and value.group(1).startswith(("$(mktemp", '"$(mktemp')):
                return "/tmp/"  # S=$(mktemp -d): a temporary directory
            return value.group(1).strip("'\"") if value is not None else target
    return None


_VARIABLE_RE: Final = re.compile(r"\$(\w+)|\$\{(\w+)\}")


def _force_added(command: str) -> list[str]:
    """The paths ``git add -f`` (``--force``) adds, ignored or not."""
    found: list[str] = []
    for piped, words in simple_commands(command):
        rest = words[2:]
        if (
            not piped
            and basename(words[0]) == "git"
            and words[1:2] == ["add"]
            and ({"-f", "--force"} & set(rest))
        ):
            found += [w.removeprefix("./") for w in rest if not w.startswith("-")]
    return found


# Looking at a pull request's or a branch's CI: ``gh pr checks``, ``gh run watch``, ``glab ci
# status``.
_CI_LOOKS: Final = {"gh": ("run", "checks"), "glab": ("ci", "pipeline")}


# A CI service's configuration: a push runs it (GitHub Actions, GitLab, CircleCI, Azure
# Pipelines, Bitbucket, Drone, Woodpecker).
_CI_CONFIG_RE: Final = re.compile(
    r"(?:^|/)(?:\.github/workflows/[^/]+|\.gitlab-ci|\.circleci/config|azure-pipelines"
    r"|bitbucket-pipelines|\.drone|\.woodpecker(?:/[^/]+)?)\.ya?ml$"
)


def configures_ci(path: str) -> bool:
    """Whether a file is a CI service's configuration (``.github/workflows/deploy.yml``)."""
    return _CI_CONFIG_RE.search(path.replace("\\", "/")) is not None


def looks_at_ci(command: str) -> bool:
    """Whether a command line looks at CI runs (``gh pr checks 5``, ``gh run view``, ``gh run
    watch``, ``glab ci status``), whatever they say."""
    if "gh" not in command and "glab" not in command:
        return False
    for piped, words in simple_commands(command):
        looks = _CI_LOOKS.get(basename(words[0])) if not piped else None
        if looks and (words[1:2] == [looks[0]] or looks[1] in words[1:3]):
            return True
    return False


def in_scratch_dir(command: str, cwd: str | None) -> bool:
    """Whether a command line first goes into a temporary or configuration directory outside
    the session's (``cd /tmp/x && git init && git commit``): the git it runs there is not
    the project's."""
    target = _cd_target(command)
    return in_scratch(target, cwd) if target else False


def elsewhere(command: str, cwd: str | None) -> str:
    """The directory of another repository a command line first goes into, beside the
    session's, neither above nor below it (``cd ../other && git commit``, a Codex ``workdir``
    of a sibling checkout): shown from the session's (``../other``) when near. Empty for the
    project's own."""
    if not cwd or "cd" not in command:
        return ""
    place, root = _place_of(command, cwd), posixpath.normpath(cwd)
    if not beside(place, root):
        return ""
    near = posixpath.relpath(place, root)
    return near if near.count("..") <= _NEAR else place


def _place_of(command: str, cwd: str | None) -> str:
    """The directory a command line runs in: where its first ``cd`` goes, from ``cwd``
    (``cwd`` itself without one, or while either is unknown or a Windows path)."""
    if not cwd or DRIVE_RE.match(cwd):
        return cwd or ""
    target = _cd_target(command) if command else None
    return posixpath.normpath(posixpath.join(cwd, target) if target else cwd)


def kept_after(changed: list[str], args: list[str], cwd: str | None) -> list[str]:
    """The changed files (relative to ``cwd``) a git command line (its words after ``git``)
    leaves: not those whose changes it throws away (:func:`_discarded`)."""
    paths = _discarded(args)
    return [] if paths is None else outside(changed, paths, cwd)


def outside(changed: list[str], paths: list[str], cwd: str | None) -> list[str]:
    """The changed files that are none of ``paths`` (relative to ``cwd``) nor under them."""
    for path in paths:
        shown = (relative(path, cwd) or path).removeprefix("./").rstrip("/")
        changed = [c for c in changed if not _same_path(c, shown)]
    return changed


def _stashed(args: list[str]) -> list[str] | None:
    """The paths ``git stash`` (``push``) puts aside: those it names, else all (None; ``save``
    names a message). Not a part of them (``-p``, ``--keep-index``), nor ``list``, ``pop``."""
    if args and args[0] == "save":
        args = [word for word in args[1:] if word.startswith("-")]
    elif args and args[0] == "push":
        args = args[1:]
    elif args and not args[0].startswith("-"):
        return []  # list, show, pop, apply, drop: nothing put aside
    paths: list[str] = []
    words = iter(args)
    for word in words:
        if word in ("-m", "--message"):
            next(words, None)
        elif word in ("-p", "--patch", "-k", "--keep-index", "-S", "--staged"):
            return []
        elif word != "--" and not word.startswith("-"):
            paths.append(word)
    return None if not paths or "." in paths else paths


def _same_path(changed: str, path: str) -> bool:
    """Whether a changed file is ``path`` or under it (an absolute one, kept while the
    session's directory was unknown, by its ending)."""
    if changed == path or changed.startswith(f"{path}/"):
        return True
    return changed.startswith("/") and not path.startswith("/") and changed.endswith(f"/{path}")


def _discarded(args: list[str]) -> list[str] | None:
    """The paths whose changes a git command line (its words after ``git``) throws away, or
    puts aside: ``checkout -- a.py``, ``restore a.py`` (not ``--staged`` alone, not from
    another ``--source``), ``stash push a.py``; None for all of them (``checkout .``,
    ``restore .``, ``reset --hard``, ``stash``); empty when it throws none away
    (``checkout main`` names no changed file: the caller matches)."""
    sub, rest = (args[0], args[1:]) if args else ("", [])  # git's own options dropped
    if sub == "reset":
        return None if "--hard" in rest else []
    if sub == "stash":
        return _stashed(rest)
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


PULL_REQUEST_CALL: Final = "pull request"
"""The name the adapters give the call of a pull request the session opened."""
FORGE_PULLS: Final = frozenset({"$ gh pr", "$ glab mr"})
"""The actions of a forge's command line on its pull requests (GitHub's, GitLab's)."""
_OPENS_PULL_RE: Final = re.compile(r"create_(?:pull|merge)_request$", re.IGNORECASE)


def opens_pull(name: str) -> bool:
    """Whether a call opens a pull request, its output the URL: the adapters' own call of
    this name, or a forge's tool (GitHub's MCP server or app: "mcp__github__create_pull_
    request", "_create_pull_request"; GitLab's "create_merge_request")."""
    return name == PULL_REQUEST_CALL or _OPENS_PULL_RE.search(name) is not None
