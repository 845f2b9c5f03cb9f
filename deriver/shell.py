"""Shell command lines: splitting into simple commands (words), and stripping the wrappers
that run the rest of a line (``timeout 60``, ``uv run``, ``env FOO=1``, ``npx``).

Which commands are checks is :mod:`deriver.check_commands`; which only read,
:mod:`deriver.read_only`. Total, deterministic, free of I/O and bounded on long command lines.
"""

from __future__ import annotations

import re
from typing import Final

from deriver.user_text import word_set

__all__ = [
    "MAX_SHELL_NESTING",
    "SHELLS",
    "SHELL_C_FLAGS",
    "and_chain",
    "basename",
    "is_assignment",
    "nested_script",
    "segments",
    "simple_commands",
    "skip_options",
    "strip_wrappers",
]

# Past this, a command line is a script or a heredoc, not a check invocation to look at.
_MAX_COMMAND_SCAN: Final = 4096
MAX_SHELL_NESTING: Final = 2
"""How deep ``bash -lc '...'`` inside ``bash -lc`` is read; deeper scripts are not."""

SHELLS: Final = frozenset({"bash", "sh", "zsh", "dash", "ksh", "fish", "pwsh", "powershell"})
SHELL_C_FLAGS: Final = frozenset({"-c", "-lc", "-ic", "-lic", "-cl", "-li", "-command"})

# A heredoc's body is data: what follows its opening line, to its delimiter's line; in a
# command line cut to what is read, to the end (a long script's delimiter lies past it).
_HEREDOC_RE: Final = re.compile(
    r"(<<-?[ \t]*(['\"]?)(\w+)\2)([^\n]*\n).*?^[ \t]*\3[ \t]*$", re.MULTILINE | re.DOTALL
)
_CUT_HEREDOC_RE: Final = re.compile(r"(<<-?[ \t]*(['\"]?)(\w+)\2)([^\n]*\n).*\Z", re.DOTALL)
_TOKEN_RE: Final = re.compile(
    r"""[ \t\r]*(?:
        (?P<op>&&|\|\||\|&|[|;&()\n])
      | (?P<word>(?:\d*[<>]{1,2}&?[\d-]*|[^\s|;&()<>'"\\]+|\\.|'[^']*'?|"(?:[^"\\]|\\.)*"?)+)
      | (?P<other>.)
    )""",
    re.VERBOSE | re.DOTALL,
)
_UNQUOTE_RE: Final = re.compile(r"""'([^']*)'?|"((?:[^"\\]|\\.)*)"?|\\(.)""", re.DOTALL)
_BACKSLASH_RE: Final = re.compile(r"\\(.)", re.DOTALL)
_ASSIGNMENT_RE: Final = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_DURATION_RE: Final = re.compile(r"^\d+(?:\.\d+)?[smhd]?$")

# Wrappers that run the rest of the line as a command, after their own flags.
_PLAIN_WRAPPERS: Final = word_set(
    "time command exec nice nohup sudo xvfb-run stdbuf ionice timeout gtimeout caffeinate "
    "chronic xargs npx bunx pnpx uvx rtk corepack"
)
# Wrappers that run the rest of the line after a ``run`` word (``uv run``, ``poetry run``).
_RUN_WRAPPERS: Final = frozenset(
    {"uv", "poetry", "pipenv", "pdm", "rye", "conda", "pipx", "hatch", "pixi", "devbox", "volta"}
)
# Tool managers and package managers that run a command with the project's pinned tools
# after an ``exec`` word (``mise exec -- go test``, ``pnpm exec vitest``, ``asdf exec go``,
# ``fnm exec --using=24 -- corepack pnpm exec vitest``; corepack runs the pinned one plainly):
# the same command as typed without them. Tool specs (``go@1.24``) before ``--`` are skipped.
_EXEC_WRAPPERS: Final = frozenset({"mise", "rtx", "asdf", "fnm", "pnpm", "npm", "yarn", "bun"})
_EXEC_WORDS: Final = frozenset({"exec", "x"})
_WRAPPER_VALUE_FLAGS: Final = word_set(
    "--with --with-requirements --python -p --extra --group --only-group --package --env-file "
    "--directory --project -n --name --prefix --signal -s -k --kill-after -u --user"
)
_ENV_VALUE_FLAGS: Final = frozenset({"-u", "-C", "-S"})
# git's own options, before its subcommand: ``git -C ../repo commit`` is ``git commit`` run
# there, as ``cd ../repo && git commit`` is.
_GIT_VALUE_FLAGS: Final = word_set(
    "-C -c --git-dir --work-tree --namespace --config-env --super-prefix --exec-path"
)
# Loaders of secrets and environments that run the command after ``--`` (``op run -- npm
# test``, ``doppler run -- pytest``, ``dotenv -e .env.test -- jest``).
_DASHDASH_WRAPPERS: Final = word_set("op doppler dotenvx dotenv infisical aws-vault chamber")
# Container runners that run a command in a service or image: ``docker compose exec web
# pytest``, ``docker run --rm -v .:/app node:20 npm test``; their options that take a value.
_CONTAINERS: Final = word_set("docker podman docker-compose")
_CONTAINER_VALUE_FLAGS: Final = word_set(
    "-e --env --env-file -w --workdir -u --user -v --volume -p --publish --name --entrypoint "
    "--index --network --platform -f --file --project-name"
)
_MAX_WRAPPERS: Final = 8  # wrappers nest a little (``env FOO=1 timeout 60 uv run``), not more


def basename(word: str) -> str:
    """A program's name as typed, without its directory and a Windows suffix."""
    name = word.rsplit("/", 1)[-1].rsplit("\\", 1)[-1]
    for suffix in (".exe", ".cmd", ".bat"):
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return name


def is_assignment(word: str) -> bool:
    """Whether a word sets a variable (``CI=1``, ``make CC=clang``)."""
    return _ASSIGNMENT_RE.match(word) is not None


def _unquote(word: str) -> str:
    def replace(match: re.Match[str]) -> str:
        if match.group(1) is not None:
            return match.group(1)
        if match.group(2) is not None:
            return _BACKSLASH_RE.sub(r"\1", match.group(2))
        return match.group(3) or ""

    return _UNQUOTE_RE.sub(replace, word)


def _tokens(command: str) -> list[tuple[str | None, str | None]]:
    """The line's words (unquoted) and operators, in order, as (word, operator) pairs."""
    text = _HEREDOC_RE.sub(r"\1\4", command[:_MAX_COMMAND_SCAN])
    if len(command) > _MAX_COMMAND_SCAN:
        text = _CUT_HEREDOC_RE.sub(r"\1\4", text)
    found: list[tuple[str | None, str | None]] = []
    for match in _TOKEN_RE.finditer(text):
        word = match.group("word")
        if word is not None:
            found.append((_unquote(word), None))
        elif match.group("op") is not None:
            found.append((None, match.group("op")))
    return found


def segments(command: str) -> list[list[str]]:
    """Split a command line into simple commands (words), at ``&& || | ; &`` and newlines."""
    found: list[list[str]] = [[]]
    for word, _op in _tokens(command):
        if word is not None:
            found[-1].append(word)
        elif found[-1]:
            found.append([])
    return [segment for segment in found if segment]


def and_chain(command: str) -> list[tuple[bool, list[str]]]:
    """The simple commands of a line made only of ``&&`` and pipes, with whether each is in a
    pipeline (its status is not the line's to tell); empty for any other line (``;``,
    ``||``, a newline, ``&``): a line exiting 0 then says each command not piped exited 0."""
    found: list[tuple[bool, list[str]]] = []
    words: list[str] = []
    piped = False
    for word, op in _tokens(command) if isinstance(command, str) else ():
        if word is not None:
            words.append(word)
            continue
        if op not in ("&&", "|", "|&") or not words:
            return []
        found.append((piped or op != "&&", words))
        piped, words = op != "&&", []
    if words:
        found.append((piped, words))
    return found


def simple_commands(command: str) -> list[tuple[bool, list[str]]]:
    """The simple commands of a command line, wrappers stripped: for each, whether it reads
    a pipe (``| tail -5``: a filter of the command before it) and its words."""
    if not isinstance(command, str):
        return []
    found: list[tuple[bool, list[str]]] = []
    piped, words = False, []
    for word, op in _tokens(command):
        if word is not None:
            words.append(word)
        elif words:
            found.append((piped, words))
            piped, words = op in ("|", "|&"), []
    if words:
        found.append((piped, words))
    return [(p, stripped) for p, w in found if (stripped := strip_wrappers(w))]


def skip_options(words: list[str], start: int, value_flags: frozenset[str]) -> int:
    """Index of the first word at or after ``start`` that is not an option (or an option's
    value); a ``--`` ends the options."""
    i = start
    while i < len(words):
        word = words[i]
        if word == "--":
            return i + 1
        if not word.startswith("-") or word == "-":
            return i
        i += 2 if word in value_flags else 1
    return i


def _in_container(words: list[str], i: int) -> int | None:
    """Where the command a container runner runs starts (``docker compose exec web pytest``:
    ``pytest``), ``i`` past the runner; None for its other subcommands."""
    if i < len(words) and words[i] == "compose":
        i = skip_options(words, i + 1, _CONTAINER_VALUE_FLAGS)
    if i >= len(words) or words[i] not in ("exec", "run"):
        return None
    service = skip_options(words, i + 1, _CONTAINER_VALUE_FLAGS)
    return service + 1 if service + 1 < len(words) else None


def _wrapped_start(words: list[str], i: int) -> int | None:
    """Where the command starts after the wrapper at ``i``, or None when ``words[i]`` is
    not a wrapper."""
    head = basename(words[i])
    after = words[i + 1] if i + 1 < len(words) else None
    if head == "env":
        return skip_options(words, i + 1, _ENV_VALUE_FLAGS)
    if head in _DASHDASH_WRAPPERS and "--" in words[i + 1 :]:
        return words.index("--", i + 1) + 1
    if head in _CONTAINERS:
        return _in_container(words, i + 1)
    if head in ("direnv", "nvm") and after == "exec":
        return i + 3  # ``direnv exec . pytest``, ``nvm exec 20 npm test``
    if head == "nix" and after == "develop":
        run = next((j for j in range(i + 2, len(words)) if words[j] in ("-c", "--command")), None)
        return run + 1 if run is not None else None
    if head == "command" and after in ("-v", "-V"):
        return None  # ``command -v tool`` asks where the tool is; it runs nothing
    if head == "node" and after is not None and "node_modules/" in after:
        return i + 1  # ``node node_modules/mocha/bin/mocha.js``: the package's own program
    if head in _PLAIN_WRAPPERS:
        i = skip_options(words, i + 1, _WRAPPER_VALUE_FLAGS)
        while i < len(words) and _DURATION_RE.match(words[i]):  # ``timeout 60``
            i += 1
        return i
    if head in _RUN_WRAPPERS and after == "run":
        return skip_options(words, i + 2, _WRAPPER_VALUE_FLAGS)
    if head == "bundle" and after == "exec":
        return i + 2
    if head in _EXEC_WRAPPERS and after in _EXEC_WORDS:
        i = skip_options(words, i + 2, _WRAPPER_VALUE_FLAGS)
        while i < len(words) and "@" in words[i] and not words[i].startswith("@"):
            i += 1  # ``mise exec go@1.24 -- go test``: the tools to run with
        return i + (i < len(words) and words[i] == "--")
    return None


def strip_wrappers(words: list[str]) -> list[str]:
    """Drop env assignments and wrappers (``timeout 60``, ``uv run``, ``npx``, ``docker compose
    exec web``, ``op run --``...), and git's own options before its subcommand (``git -C dir
    --no-pager log``: ``git log``); ``coverage run x.py`` runs ``python x.py``."""
    i = 0
    for _ in range(_MAX_WRAPPERS):
        while i < len(words) and is_assignment(words[i]):
            i += 1
        if i >= len(words):
            return []
        if basename(words[i]) == "coverage" and i + 1 < len(words) and words[i + 1] == "run":
            return ["python", *words[i + 2 :]]
        start = _wrapped_start(words, i)
        if start is None:
            break
        i = start
    if basename(words[i]) == "git":
        sub = skip_options(words, i + 1, _GIT_VALUE_FLAGS)
        if i + 1 < sub < len(words):
            return [words[i], *words[sub:]]
    return words[i:]


def nested_script(head: str, rest: list[str], depth: int) -> str | None:
    """The script a shell runs (``bash -lc 'cd x && pytest'``), when ``head`` is a shell
    given one with ``-c`` and the nesting is not too deep; else None."""
    if (
        head in SHELLS
        and depth < MAX_SHELL_NESTING
        and len(rest) >= 2
        and rest[0].lower() in SHELL_C_FLAGS
    ):
        return rest[1]
    return None
