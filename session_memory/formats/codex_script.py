"""The tool calls in the JavaScript of a Codex code-mode cell, read without running it.

Codex Desktop's ``exec`` tool takes JavaScript that calls the agent's tools through a global
``tools`` object: ``await tools.exec_command({cmd: "...", workdir: "..."})``, several at
once in ``Promise.all([...])``, MCP tools as ``tools.mcp__server__tool({...})``. This reader
finds each ``tools.NAME(ARGUMENT)`` (or ``tools["NAME"](ARGUMENT)``) outside strings,
comments and regular expressions, in the order they are written, and reads the argument
when it is written out: an object literal with JSON-like values (strings in any quotes,
template literals, numbers, booleans, null, arrays, objects), a string, or a name bound to
a string earlier (``const patch = "*** Begin Patch..."``). A value that is an expression is
kept as its source text; strings joined with ``+`` read as one string, the other parts
shown as ``${...}`` as in a template literal.

The script is arbitrary text: reading never raises. Any other use of ``tools`` (a computed
name, destructuring, a method passed as a value) makes the calls unknowable, and
:func:`script_calls` says so by returning None.
"""

from __future__ import annotations

import math
import re
from typing import Final, NamedTuple

__all__ = ["ScriptCall", "script_calls"]

MAX_SCRIPT_CHARS: Final = 64 * 1024
"""A longer script is not read: its calls are unknown."""
_MAX_DEPTH: Final = 32
"""Objects and arrays nested deeper are kept as source text."""
MAX_CALLS: Final = 64
"""A script that calls tools more often than this is not read: its calls are unknown."""
_MAX_BINDINGS: Final = 64
"""The names bound to strings that are remembered, the first ones."""
_STEPS_PER_TOKEN: Final = 4
_MIN_STEPS: Final = 20_000
"""The work reading may take: past it, a script is read no further and its calls are
unknown (a script's calls are few and short; only a pathological one needs more)."""
_TOOLS: Final = "tools"
_BINDERS: Final = frozenset({"const", "let", "var"})
_KEYWORDS_BEFORE_REGEX: Final = frozenset(
    {"return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void", "throw",
     "await", "yield"}
)  # fmt: skip
_PUNCT_BEFORE_REGEX: Final = frozenset("(,=:[!&|?{};+-*%<>~^")
_LITERALS: Final = {"true": True, "false": False, "null": None}
_NAME: Final = re.compile(r"[A-Za-z_$][\w$]*")
_LEXEME: Final = re.compile(
    r"(?P<space>\s+)|(?P<comment>//[^\n]*|/\*(?:.|\n)*?(?:\*/|\Z))"
    r"|(?P<num>(?:0[xXoObB][\da-fA-F_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?)n?)"
    r"|(?P<name>[A-Za-z_$][\w$]*)|(?P<quote>[\"'`])|(?P<slash>/)|(?P<punct>\.\.\.|.)",
    re.S,
)
"""One token, white space or comment at a time; a string or regular expression is read on
by hand from its opening character."""
_PLAIN: Final = {
    '"': re.compile(r'[^"\\\n]+'),
    "'": re.compile(r"[^'\\\n]+"),
    "`": re.compile(r"[^`\\$]+"),
}
_ESCAPES: Final = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}
_CLOSERS: Final = {"(": ")", "[": "]", "{": "}"}
_SOURCE_CHARS: Final = 4096
"""An expression kept as source text keeps this much of it."""


class ScriptCall(NamedTuple):
    """One call of a tool in a script: the tool's name and its argument as far as it reads."""

    name: str
    argument: object
    """A JSON value: the object or string the script passes; None when there is none."""


class _Token(NamedTuple):
    kind: str  # "name", "str" (a string or template literal), "num", "punct", "regex", "end"
    value: object  # the name, the string's value, the number, the punctuation
    start: int
    end: int


def script_calls(source: str) -> list[ScriptCall] | None:
    """The tool calls ``source`` makes, in the order written; None when they are unknowable."""
    if len(source) > MAX_SCRIPT_CHARS:
        return None
    tokens = _tokens(source)
    return _Reader(source, tokens, _MIN_STEPS + _STEPS_PER_TOKEN * len(tokens)).calls()


# -- tokens ---------------------------------------------------------------------------------


def _tokens(src: str) -> list[_Token]:
    """The tokens of ``src``, comments and white space left out, ending with an ``end`` token."""
    out: list[_Token] = []
    i, n = 0, len(src)
    while i < n:
        found = _LEXEME.match(src, i)
        if found is None:  # pragma: no cover - the last alternative matches any character
            break
        kind, text, end = found.lastgroup, found.group(), found.end()
        if kind == "quote":
            value, end = _string(src, i)
            out.append(_Token("str", value, i, end))
        elif kind == "slash" and _regex_allowed(out):
            end = _regex_end(src, i)
            out.append(_Token("regex" if end > i + 1 else "punct", "/", i, end))
        elif kind == "num":
            out.append(_Token("num", _number(text), i, end))
        elif kind == "name" or kind == "punct" or kind == "slash":
            out.append(_Token(kind if kind != "slash" else "punct", text, i, end))
        i = end  # white space and comments make no token
    out.append(_Token("end", None, n, n))
    return out


def _string(src: str, start: int, depth: int = 0) -> tuple[str, int]:
    """A string or template literal opening at ``start``: its value and where it ends.

    A template's ``${...}`` parts are kept as written. An unterminated string ends at the
    end of its line (a template at the end of the source).
    """
    quote = src[start]
    plain = _PLAIN[quote]
    parts: list[str] = []
    i, n = start + 1, len(src)
    while i < n:
        run = plain.match(src, i)
        if run is not None:
            parts.append(run.group())
            i = run.end()
            continue
        c = src[i]
        if c == quote:
            return "".join(parts), i + 1
        if c == "\\":
            text, i = _escape(src, i + 1)
            parts.append(text)
        elif c == "$" and src.startswith("${", i):
            end = _interpolation_end(src, i + 2, depth + 1)
            parts.append(src[i:end])
            i = end
        elif c == "$":
            parts.append(c)
            i += 1
        else:  # a line break ends an unterminated quoted string
            return "".join(parts), i
    return "".join(parts), n


def _escape(src: str, i: int) -> tuple[str, int]:
    """The character an escape after a backslash stands for, and where the escape ends."""
    if i >= len(src):
        return "", i
    c = src[i]
    if c in _ESCAPES:
        return _ESCAPES[c], i + 1
    if c == "\n":
        return "", i + 1  # a line continuation
    if c in "xu":
        digits = src[i + 1 : i + 3] if c == "x" else src[i + 1 : i + 5]
        end = i + 1 + len(digits)
        if c == "u" and src.startswith("{", i + 1):
            close = src.find("}", i + 2)
            digits, end = (src[i + 2 : close], close + 1) if close > 0 else ("", i + 1)
        try:
            return chr(int(digits, 16)), end
        except (ValueError, OverflowError):
            return c, i + 1
    return c, i + 1


def _interpolation_end(src: str, i: int, nesting: int) -> int:
    """Where a template's ``${`` part that starts its expression at ``i`` ends (after ``}``).

    Strings inside it are skipped, to ``nesting`` levels of templates within templates;
    deeper, braces are counted as they come.
    """
    depth, n = 1, len(src)
    while i < n:
        c = src[i]
        if c in "\"'`" and nesting < _MAX_DEPTH:
            i = _string(src, i, nesting)[1]
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


def _regex_allowed(tokens: list[_Token]) -> bool:
    """Whether a ``/`` here opens a regular expression (else it divides)."""
    if not tokens:
        return True
    last = tokens[-1]
    if last.kind == "punct":
        return isinstance(last.value, str) and last.value[-1] in _PUNCT_BEFORE_REGEX
    return last.kind == "name" and last.value in _KEYWORDS_BEFORE_REGEX


def _regex_end(src: str, start: int) -> int:
    """Where a regular expression opening at ``start`` ends, its flags included; ``start +
    1`` when it does not end on its line (then the ``/`` was a division after all)."""
    i, n, in_class = start + 1, len(src), False
    while i < n:
        c = src[i]
        if c == "\\":
            i += 2
            continue
        if c == "\n":
            return start + 1
        if c == "[":
            in_class = True
        elif c == "]":
            in_class = False
        elif c == "/" and not in_class:
            flags = _NAME.match(src, i + 1)
            return flags.end() if flags is not None else i + 1
        i += 1
    return start + 1


def _number(text: str) -> object:
    """A number literal's value; the text itself when JSON cannot hold it."""
    try:
        clean = text.replace("_", "")
        value: float = int(clean, 0) if clean[:2].lower() in ("0x", "0o", "0b") else float(clean)
    except ValueError:
        return text
    if isinstance(value, float):
        if not math.isfinite(value):
            return text
        return int(value) if value.is_integer() and "." not in text and "e" not in text else value
    return value


# -- the calls ------------------------------------------------------------------------------


class _Reader:
    """Reads the tool calls and the string bindings out of a script's tokens."""

    def __init__(self, source: str, tokens: list[_Token], steps: int) -> None:
        self.source = source
        self.tokens = tokens
        self.bindings: dict[str, str] = {}
        self.steps = steps
        self.exhausted = False
        """Whether reading took all the work it may take: then the calls are unknowable."""

    def at(self, i: int) -> _Token:
        """The token at ``i``; the end token past the end, and once the work is spent (every
        loop stops at the end token, so reading then unwinds at once)."""
        if self.steps <= 0:
            self.exhausted = True
            return self.tokens[-1]
        self.steps -= 1
        return self.tokens[min(i, len(self.tokens) - 1)]

    def is_punct(self, i: int, text: str) -> bool:
        token = self.at(i)
        return token.kind == "punct" and token.value == text

    def calls(self) -> list[ScriptCall] | None:
        calls: list[ScriptCall] = []
        for i, token in enumerate(self.tokens):
            if token.kind != "name":
                continue
            if token.value in _BINDERS and len(self.bindings) < _MAX_BINDINGS:
                self._bind(i + 1)
            elif token.value == _TOOLS and not (i > 0 and self.is_punct(i - 1, ".")):
                if self.is_punct(i + 1, ":"):
                    continue  # an object's key that happens to be called "tools"
                call = self._call(i) if len(calls) < MAX_CALLS else None
                if call is None:
                    return None
                calls.append(call)
        return None if self.exhausted else calls

    def _bind(self, i: int) -> None:
        """``const NAME = <string>``: remember the string under its name."""
        name = self.at(i)
        if name.kind == "name" and self.is_punct(i + 1, "="):
            value, _ = self.value(i + 2, 0)
            if isinstance(value, str) and isinstance(name.value, str):
                self.bindings[name.value] = value

    def _call(self, i: int) -> ScriptCall | None:
        """The call that starts with ``tools`` at ``i``: ``tools.NAME(`` or ``tools["NAME"](``."""
        tool: object = None
        opening = i + 1
        if self.is_punct(i + 1, ".") and self.at(i + 2).kind == "name":
            tool, opening = self.at(i + 2).value, i + 3
        elif (
            self.is_punct(i + 1, "[") and self.at(i + 2).kind == "str" and self.is_punct(i + 3, "]")
        ):
            tool, opening = self.at(i + 2).value, i + 4
        if not isinstance(tool, str) or not tool or not self.is_punct(opening, "("):
            return None
        if self.is_punct(opening + 1, ")"):
            return ScriptCall(tool, None)
        argument, _ = self.value(opening + 1, 0)
        return ScriptCall(tool, argument)

    # -- values --------------------------------------------------------------------------

    def value(self, i: int, depth: int) -> tuple[object, int]:
        """The value of the expression that starts at ``i``, and the index after it."""
        end = self._expression_end(i)
        token = self.at(i)
        if end <= i:
            return None, i
        if end == i + 1:
            return self._single(token), end
        if depth < _MAX_DEPTH and token.kind == "punct" and self._closing(i) == end - 1:
            if token.value == "{":
                return self._object(i + 1, end - 1, depth + 1), end
            if token.value == "[":
                return self._array(i + 1, end - 1, depth + 1), end
        joined = self._concatenation(i, end)
        return (joined if joined is not None else self._source(i, end)), end

    def _single(self, token: _Token) -> object:
        if token.kind in ("str", "num"):
            return token.value
        if token.kind == "name" and isinstance(token.value, str):
            if token.value in _LITERALS:
                return _LITERALS[token.value]
            return self.bindings.get(token.value, "${" + token.value + "}")
        return self.source[token.start : token.end]

    def _object(self, i: int, close: int, depth: int) -> dict[str, object]:
        found: dict[str, object] = {}
        while i < close:
            key = self.at(i)
            if self.is_punct(i, ",") or key.kind == "end":
                i += 1
                continue
            if key.kind in ("name", "str", "num") and self.is_punct(i + 1, ":"):
                found[str(key.value)], i = self.value(i + 2, depth)
            elif key.kind == "name" and (self.is_punct(i + 1, ",") or i + 1 == close):
                found[str(key.value)] = self._single(key)  # shorthand {cmd}
                i += 1
            else:  # a spread, a computed key, a method: skipped
                i = max(self._expression_end(i), i + 1)
        return found

    def _array(self, i: int, close: int, depth: int) -> list[object]:
        items: list[object] = []
        while i < close:
            if self.is_punct(i, ","):
                i += 1
                continue
            item, after = self.value(i, depth)
            items.append(item)
            i = max(after, i + 1)
        return items

    def _concatenation(self, i: int, end: int) -> str | None:
        """Strings joined with ``+``: one string, other operands as ``${...}``; None when
        the expression is not such a chain with a string in it."""
        parts: list[str] = []
        has_string = False
        start = i
        for j in range(i, end + 1):
            if j < end and not self.is_punct(j, "+"):
                continue
            if j == start:
                return None
            if j == start + 1 and self.at(start).kind == "str":
                has_string = True
                parts.append(str(self.at(start).value))
            elif j == start + 1 and self.at(start).kind == "num":
                parts.append(str(self.at(start).value))
            elif j == start + 1 and self.at(start).kind == "name":
                parts.append(str(self._single(self.at(start))))
            else:
                parts.append("${" + self._source(start, j) + "}")
            start = j + 1
        return "".join(parts) if has_string else None

    def _expression_end(self, i: int) -> int:
        """The index after the expression that starts at ``i``: before the next ``,`` or
        closing bracket at its own depth, or ``;``, or the end."""
        depth = 0
        while True:
            token = self.at(i)
            if token.kind == "end":
                return i
            if token.kind == "punct":
                if token.value in _CLOSERS:
                    depth += 1
                elif token.value in (")", "]", "}"):
                    if depth == 0:
                        return i
                    depth -= 1
                elif depth == 0 and token.value in (",", ";"):
                    return i
            i += 1

    def _closing(self, i: int) -> int:
        """The index of the bracket that closes the one at ``i``."""
        depth = 0
        while True:
            token = self.at(i)
            if token.kind == "end":
                return i
            if token.kind == "punct" and token.value in _CLOSERS:
                depth += 1
            elif token.kind == "punct" and token.value in (")", "]", "}"):
                depth -= 1
                if depth == 0:
                    return i
            i += 1

    def _source(self, i: int, end: int) -> str:
        """The source text of the tokens from ``i`` to before ``end`` (its head when long)."""
        if end <= i:
            return ""
        start = self.at(i).start
        return self.source[start : min(self.at(end - 1).end, start + _SOURCE_CHARS)].strip()
