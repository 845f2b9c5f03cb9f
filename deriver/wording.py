"""How the rules word what they record: arguments as code spans, contained lines, goal texts.

Texts enter items only through the containment functions of :mod:`session_memory.core.redact`:
secrets are redacted, tool output is quoted.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from typing import Any, Final

import orjson

from deriver.user_text import first_line
from session_memory.core.redact import contain_block, contain_trusted_line, quote_untrusted

__all__ = [
    "ARG_CHARS",
    "DRIVE_RE",
    "EXCERPT_CHARS",
    "FAILURE_ARG_CHARS",
    "MAX_OPEN_CALLS",
    "as_dict",
    "code",
    "code_uncached",
    "describe",
    "describe_uncached",
    "detail_text",
    "failure_target",
    "goal_text",
    "in_scratch",
    "json_object",
    "line",
    "line_uncached",
    "longest_cut",
    "path_code",
    "quote",
    "quoted_some",
    "relative",
    "relative_uncached",
    "str_or_none",
    "under",
]

MAX_OPEN_CALLS: Final = 1024
EXCERPT_CHARS: Final = 120
FAILURE_ARG_CHARS: Final = 60
"""A failed command is named by its start: the line that says why matters more."""
ARG_CHARS: Final = 160
# Escaped line breaks and tabs written out literally ("a\\nb" in a command or an answer),
# not the separators of a Windows path ("D:\\proj\\src\\terminal\\writer.go"), which is
# matched first and kept.
_LITERAL_BREAKS_RE: Final = re.compile(r"(\b[A-Za-z]:\\[^\s\"'`]*)|(?:\\r)?\\n|\\t")
DRIVE_RE: Final = re.compile(r"^[A-Za-z]:[\\/]")
"""How a Windows path starts: ``D:\\proj``, ``D:/proj``."""
_ELLIPSIS: Final = "\u2026"


def as_dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def json_object(text: str) -> dict[str, Any]:
    """The JSON object a tool's output is, whole (``gh pr view --json body``, SendMessage's
    result); empty for any other text."""
    text = text.strip()
    if not text.startswith("{"):
        return {}
    try:
        return as_dict(orjson.loads(text))
    except orjson.JSONDecodeError:
        return {}


def str_or_none(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def code_uncached(text: str, max_chars: int = ARG_CHARS) -> str:
    """An argument (path, command, pattern) as an inline code span on one line; literal
    ``\\n`` escapes read as spaces."""
    if "\\" in text:
        text = _LITERAL_BREAKS_RE.sub(lambda m: m.group(1) or " ", text)
    return "`" + contain_trusted_line(text, max_chars).replace("`", "'") + "`"


def relative_uncached(text: str | None, cwd: str | None) -> str | None:
    """A path or command with the session's working directory left out: ``/repo/src/a.py``
    reads ``src/a.py``, ``cd /repo && make`` reads ``make``. Under a Windows directory
    (``D:\\proj``), a path is read with either separator and written with ``/``:
    ``D:\\proj\\src\\a.go`` reads ``src/a.go``."""
    if text and cwd and DRIVE_RE.match(cwd) and DRIVE_RE.match(text):
        root, path = cwd.replace("\\", "/").rstrip("/"), text.replace("\\", "/")
        if path.lower() == root.lower():
            return "."
        if path.lower().startswith(root.lower() + "/"):
            return path[len(root) + 1 :]
        return text
    if not text or not cwd or cwd == "/" or cwd not in text:
        return text
    root = cwd.rstrip("/")
    if text == root:
        return "."
    for lead in (f"cd {root} && ", f"cd {root}; ", f'cd "{root}" && '):
        if text.startswith(lead):
            text = text[len(lead) :]
    if text.startswith(root + "/"):
        text = text[len(root) + 1 :]
    return text.replace(f" {root}/", " ").replace(f"'{root}/", "'").replace(f'"{root}/', '"')


# Where no project lives: a temporary directory, a user's configuration directory.
_SCRATCH_RE: Final = re.compile(
    r"^(?:/tmp/|/private/tmp/|/var/folders/|/private/var/folders/|~/\.|/(?:Users|home)/[^/]+/\.)"
)


def in_scratch(path: str, cwd: str | None) -> bool:
    """Whether ``path`` is in a temporary or configuration directory outside the session's
    working directory ``cwd``: a scratch script in ``/tmp``, a skill written to ``~/.claude``,
    no file of the project. Not while ``cwd`` is unknown: the project may be in ``/tmp``
    (Claude Code names it only after a first prompt it queued)."""
    if not cwd or _SCRATCH_RE.match(path) is None:
        return False
    return not under(path, cwd)


def under(path: str, directory: str) -> bool:
    """Whether ``path`` is below ``directory`` (both absolute)."""
    return path.startswith(directory.rstrip("/") + "/")


def beside(place: str, root: str) -> bool:
    """Whether a directory is another checkout beside ``root``: neither it nor above nor
    below it (both absolute and normalised)."""
    return place != root and not under(place, root) and not under(root, place)


def path_code(path: str, max_chars: int = 80) -> str:
    """A path as a code span, shortened from the left so that its file name survives."""
    if len(path) > max_chars and not any(c.isspace() for c in path):
        tail = path[-(max_chars - 1) :]
        cut = tail.find("/")
        if 0 <= cut < len(tail) - 1:
            tail = tail[cut:]
        path = _ELLIPSIS + tail
    return code(path, max_chars)


def line_uncached(text: str, max_chars: int) -> str:
    """Agent-written text (a todo, a decision) on one contained line."""
    return contain_trusted_line(text, max_chars)


def describe_uncached(tool: str, key: str | None, max_chars: int = ARG_CHARS) -> str:
    """A tool and its key argument, as a call is named in the memory."""
    name = contain_trusted_line(tool, 60) or "tool"
    return f"{name} {code(key, max_chars)}" if key else name


# Memoised, each beside its uncached twin (tests compare them): agents touch the same
# paths, commands and texts again and again, and containment is the most expensive step
# of most events.

code = functools.lru_cache(maxsize=4096)(code_uncached)
line = functools.lru_cache(maxsize=4096)(line_uncached)
describe = functools.lru_cache(maxsize=4096)(describe_uncached)
# A call's key argument is made relative on its request, again on its folded or failed
# outcome, and paths and commands recur (measured: 64 bytecodes per request of a Claude
# Code session with a cwd, most of them building the prefixes to strip).
relative = functools.lru_cache(maxsize=4096)(relative_uncached)
# A check's failing tests and the line that says why it failed are quoted again at each of
# its runs, and so is a failed call's error (measured on the bench generator's 200,000
# events: 4,287 quotes of 509 texts, ~45 µs each; serves the target that `apply` per event
# be at most 1.1x of 2836343, issue 35: 25.3 µs here, 15.9 there). Where the session stands
# is rebuilt whenever a call opens or closes, from texts that rarely change: quoting them
# again was four fifths of the fold's time.
quote = functools.lru_cache(maxsize=1024)(quote_untrusted)


def goal_text(content: str) -> str:
    """The user's request as the goal, contained (:func:`contain_block`): lines kept, secrets
    redacted, invisible and control characters dropped, chat markers neutralised."""
    return contain_block(content).strip() or "(empty request)"


def detail_text(details: object) -> str:
    if isinstance(details, str):
        return first_line(details, 400)
    if isinstance(details, dict):
        for field in ("message", "summary", "reason", "error"):
            value = details.get(field)
            if isinstance(value, str) and value.strip():
                return first_line(value, 400)
    return ""


def failure_target(key: str | None, cwd: str | None) -> str:
    """How a failed call's key argument is shown in its line (relative to ``cwd``, cut as a
    failed call's is); empty when it has none."""
    shown = relative(key, cwd)
    return code(shown, FAILURE_ARG_CHARS) if shown else ""


def longest_cut(fits: Callable[[int], bool], room: int, most: int, least: int) -> int:
    """The most characters, up to ``most``, a text may be cut to while its line ``fits`` in
    ``room`` tokens (the shorter a cut, the better it fits); 0 when fewer than ``least``
    would. No cut longer than 8 characters a token of ``room`` is tried."""
    lo, hi = 0, min(most, max(0, room) * 8)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo if lo >= least else 0


def quoted_some(items: Sequence[str], count: int, chars: int, sep: str = ", ") -> str:
    """The first ``count`` of ``items``, each quoted as data cut to ``chars``, and how many
    more there are: "“a”, “b” (+3 more)"."""
    shown = sep.join(quote(item, chars) for item in items[:count])
    return shown + (f" (+{len(items) - count} more)" if len(items) > count else "")
