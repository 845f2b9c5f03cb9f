"""The budget's token arithmetic: exact counts of the rendered memory from counts of its parts.

The memory is counted in parts (see :mod:`session_memory.core.layout`): the header, each section's
heading and marker, each item's prefix and body, the goal block. That the parts add up to the
count of the whole rests on facts about the encoding, all of them kept and checked here:

* a line break, and the single space that starts an item's body, are pre-token boundaries,
  so a line's count is the sum of its parts' counts;
* so is a space after a character other than whitespace (no pre-token has a space after its
  first character unless it is all whitespace), so a body counts as the sum of its words;
* a marker's number counts alike for every number of its length (1-3 digit groups are
  single tokens), so one count per length stands for them all.

:class:`TokenArithmetic` checks these on probes when it is built and refuses, with a
:class:`~session_memory.core.errors.ConfigError`, an encoding for which they do not hold.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Final

from session_memory.core.errors import ConfigError
from session_memory.core.layout import (
    HEADER,
    RENDER_ORDER,
    STANDS_SECTION,
    body,
    goal_block,
    item_prefix,
    marker_line,
    section_header,
)
from session_memory.core.memory import SectionName
from session_memory.core.tokens import TokenCounter

__all__ = ["MAX_MARKER_DIGITS", "TokenArithmetic"]

MAX_MARKER_DIGITS: Final = 12
_BODY_CACHE_SIZE: Final = 8192
_PIECE_CACHE_SIZE: Final = 16384
"""Words of body lines counted (see :func:`_pieces`): a new body is mostly words counted
before, when a text changes a little at a time (the files changed where the session
stands, a check's line with new counts, the agent's last message cut to fit). Measured on
the bench generator's 200,000 events: 5,888 counts of the files changed, 500 characters and
~100 µs each, were an eighth of `apply`, and 2,500 counts of check lines most of the rest;
this serves the target that `apply` per event be at most 1.1x of 2836343 (issue 35)."""
# Lines the probes are made of: prefixes, bodies, fold lines, markers, as the memory has them.
_PROBE_BODIES: Final = (
    "changed `src/app.py`",
    "“fix the failing test in tests/test_api.py”",
    "read 12 files, latest: `a.py`, `b/c.md`",
    "`pytest -q` (3 failed, 120 passed)",
    "Bash `ls -la` exited 2: “No such file or directory”",
    "files changed: `src/app.py`, `/home/x/README.md`, `…/a-b_c.d/e.ts` (+12 more)",
    "the agent's last message: “Done. I've run `make test` — 3 tests pass; 'ok'?”",
)
_CHECKED: Final[set[str]] = set()
"""Encodings whose additivity was checked: it depends on the encoding alone (measured: the
check was a third of deriving a 50-event transcript in `watch`, once per deriver)."""


def _pieces(line: str) -> list[str]:
    """``line`` cut before each space that follows a character other than whitespace: the
    parts add up to the line (:func:`_line_failures` checks it)."""
    words = line.split()
    if line[:1] == " " and line[-1:] == "\n" and line[1:-1].split(" ") == words:
        # Most lines: words one space apart, each a part with its space (found in C).
        pieces = [" " + word for word in words]
        pieces[-1] += "\n"
        return pieces
    parts = line.split(" ")
    pieces = []
    current = parts[0]
    for part in parts[1:]:
        if current and not current[-1].isspace():
            pieces.append(current)
            current = " " + part
        else:
            current += " " + part
    pieces.append(current)
    return pieces


def _line_failures(count: Callable[[str], int]) -> Iterator[str]:
    """The probe lines whose parts do not add up: prefix and body, a body and its words, the
    header and a heading."""
    for text in _PROBE_BODIES:
        line = body(text)
        if count(line) != sum(count(piece) for piece in _pieces(line)):
            yield f"a body line and its words ({text!r})"
        for prefix in (item_prefix(None), item_prefix("failed", 3), item_prefix("uncertain")):
            if count(prefix + line) != count(prefix) + count(line):
                yield f"an item line ({prefix!r} + body)"
    head = HEADER + section_header("completed_work")
    if count(head) != count(HEADER) + count(section_header("completed_work")):
        yield "the header and a section heading"


def _marker_failures(count: Callable[[str], int]) -> Iterator[str]:
    """The lengths of number for which markers do not count alike."""
    for digits in range(1, MAX_MARKER_DIGITS + 1):
        low, high = 10 ** (digits - 1), 10**digits - 1
        if count(marker_line("todo_items", low)) != count(marker_line("todo_items", high)):
            yield f"markers of {digits}-digit numbers"


class _Counts:
    """The counts that depend on a counter alone, shared by every arithmetic over it.

    Derivers of many sessions count the same prefixes, headings, markers and most of the
    same bodies (measured on a catch-up of 1,000 transcripts of 50 events: 49,102 texts
    counted per deriver, 2,023 of them distinct; counting was a quarter of the fold).
    """

    __slots__ = (
        "body",
        "header",
        "largest_marker",
        "marker",
        "piece",
        "prefix",
        "section_headers",
        "stands_header",
    )

    def __init__(self, counter: TokenCounter) -> None:
        self.body: dict[str, int] = {}
        self.piece: dict[str, int] = {}
        self.prefix: dict[tuple[str | None, int, bool | None], int] = {}
        self.marker: dict[tuple[SectionName, int], int] = {}
        self.header = counter.count(HEADER)
        self.section_headers: dict[SectionName, int] = {
            s: counter.count(section_header(s)) for s in RENDER_ORDER
        }
        self.stands_header = counter.count(section_header(STANDS_SECTION))
        self.largest_marker: dict[SectionName, int] = {
            s: counter.count(marker_line(s, 10**MAX_MARKER_DIGITS - 1)) for s in RENDER_ORDER
        }


_SHARED: Final[dict[TokenCounter, _Counts]] = {}
"""The shared counts per counter; the counters of :func:`~session_memory.core.tokens.counter`
live as long as the process, one per encoding."""


class TokenArithmetic:
    """Exact token counts of the memory's parts, each distinct part counted once."""

    def __init__(self, counter: TokenCounter) -> None:
        self._counter = counter
        self._check_assumptions()
        shared = _SHARED.get(counter)
        if shared is None:
            shared = _SHARED[counter] = _Counts(counter)
        self._body_cache = shared.body
        self._piece_cache = shared.piece
        self._prefix_cache = shared.prefix
        self._marker_cache = shared.marker
        self.header = shared.header
        self.section_headers = shared.section_headers
        self.stands_header = shared.stands_header
        self._largest_markers = shared.largest_marker

    @property
    def encoding(self) -> str:
        return self._counter.encoding

    def _check_assumptions(self) -> None:
        if self._counter.encoding in _CHECKED:
            return
        count = self._counter.count
        failures = [*_line_failures(count), *_marker_failures(count)]
        if failures:
            raise ConfigError(
                f"token encoding {self._counter.encoding!r} does not count the memory's parts "
                f"additively ({failures[0]}): exact budgets need a cl100k-style encoding"
            )
        _CHECKED.add(self._counter.encoding)

    def body(self, text: str) -> int:
        """Tokens of an item's body line."""
        cache = self._body_cache
        tokens = cache.get(text)
        if tokens is None:
            if len(cache) >= _BODY_CACHE_SIZE:
                cache.clear()
            tokens = cache[text] = self._count_pieces(body(text))
        return tokens

    def _count_pieces(self, line: str) -> int:
        """Tokens of a body line: the sum of its words' counts, each counted once."""
        cache = self._piece_cache
        pieces = _pieces(line)
        counts = list(map(cache.get, pieces))
        if None not in counts:
            return sum(counts)  # type: ignore[arg-type]  # none is None
        count = self._counter.count
        tokens = 0
        for piece, found in zip(pieces, counts, strict=True):
            if found is None:
                if len(cache) >= _PIECE_CACHE_SIZE:
                    cache.clear()
                found = cache[piece] = count(piece)
            tokens += found
        return tokens

    def prefix(self, status: str | None, count: int, safe_to_replay: bool | None) -> int:
        """Tokens of an item's prefix."""
        key = (status, count, safe_to_replay)
        tokens = self._prefix_cache.get(key)
        if tokens is None:
            tokens = self._prefix_cache[key] = self._counter.count(item_prefix(*key))
        return tokens

    def marker(self, section: SectionName, omitted: int) -> int:
        """Exact tokens of a marker line: one count per section and digit length."""
        digits = len(str(omitted))
        key = (section, digits)
        tokens = self._marker_cache.get(key)
        if tokens is None:
            tokens = self._marker_cache[key] = self._counter.count(
                marker_line(section, 10 ** (digits - 1))
            )
        return tokens

    def largest_marker(self, section: SectionName) -> int:
        """Tokens of a section's marker with the most omitted items the budget allows for."""
        return self._largest_markers[section]

    def goal(self, text: str, truncated: bool, acknowledgements: int, last_ack: str) -> int:
        """Tokens of the goal block."""
        return self._counter.count(goal_block(text, truncated, acknowledgements, last_ack))
