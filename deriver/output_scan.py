"""Reading long tool output: its tail without terminal colours, the last line that a
summary pattern matches, found without trying every position of the text, the exit code
it prints, the line that says why it failed, and what that line says of the failure.

Total, deterministic, free of I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from deriver.user_text import first_line

__all__ = [
    "LinePattern",
    "cause_line",
    "ends_notice",
    "error_lines",
    "exit_code_from_output",
    "exit_only",
    "found_done",
    "informative_line",
    "is_crash",
    "is_usage_slip",
    "names_unused",
    "reports_error",
    "tail",
    "windowed",
    "without_colours",
]

_ANSI_RE: Final = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")


def without_colours(text: str) -> str:
    """The text without ANSI colour and terminal escape sequences."""
    return _ANSI_RE.sub("", text)


# A line of a log or output that reports an error: "[JobManager] Job 7 failed: git checkout
# failed (exit 1): error: pathspec '.' did not match", "TypeError: x is undefined".
_REPORTS_ERROR_RE: Final = re.compile(
    r"^[^\n]*(?:\b(?i:error|failed|fatal|panic|exception)\b ?[:(\[]|\b\w+(?:Error|Exception):"
    r"|\bpanicked at\b|^FAILED\b)[^\n]*",
    re.MULTILINE,
)


def error_lines(text: str, limit: int, chars: int) -> tuple[tuple[int, str], ...]:
    """The last ``limit`` lines of ``text`` that report an error, each cut to ``chars``,
    with where each starts."""
    found = [(m.start(), m.group(0).strip()[:chars]) for m in _REPORTS_ERROR_RE.finditer(text)]
    return tuple(found[-limit:])


# A line that says only that a process ended with an exit code: a script runner's or a CI
# step's last word on a failure ("error: script "release" exited with code 1", "Error:
# Process completed with exit code 1."), not why it failed.
_EXIT_ONLY_RE: Final = re.compile(
    r"\b(?:exited|completed|failed|finished) with (?:exit )?code \d+\W*$", re.IGNORECASE
)


# The last line of a tool's notice, which says how to turn it off ("Disable this message by
# setting _ZO_DOCTOR=0.", "Hide these hints with HOMEBREW_NO_ENV_HINTS"): the lines before it
# are the notice, never why a command failed.
_NOTICE_END_RE: Final = re.compile(
    r"\b(?:disable|silence|suppress|hide|turn off)\s+(?:this|these)\s+"
    r"(?:message|warning|notice|hint)s?\b",
    re.IGNORECASE,
)


def ends_notice(line: str) -> bool:
    """Whether a line ends a tool's notice by saying how to turn it off."""
    return _NOTICE_END_RE.search(line) is not None


def exit_only(line: str) -> bool:
    """Whether an error line says only that a process exited with a code (not why)."""
    return _EXIT_ONLY_RE.search(line) is not None


def cause_line(lines: list[str]) -> str:
    """The last of ``lines`` (lines that report an error) that says why, not only that a
    process exited with a code; the last of them when none does."""
    return next((line for line in reversed(lines) if not exit_only(line)), lines[-1])


def tail(text: str, limit: int) -> str:
    """The last ``limit`` characters of an output, without colours, with ``\\n`` line ends."""
    end = text[-limit:] if len(text) > limit else text
    return without_colours(end).replace("\r\n", "\n")


@dataclass(frozen=True, slots=True)
class LinePattern:
    """A pattern of a runner's summary line, and how to find its matches fast.

    ``needle`` is a literal that every match contains: a substring search rules most
    patterns out at once, where a pattern anchored at line starts tries every position.
    ``one_line``: the pattern matches only at a line start and never across a line break,
    so only a line that holds the needle can match, and the last match is found from the
    end, one such line at a time. Measured with ``benchmarks/bench_fold.py``'s sample: the
    summaries, verdicts and failing tests of its checks cost 5.8 µs per event read this
    way, 18.9 µs with every pattern tried at every position.
    """

    regex: re.Pattern[str]
    needle: str
    one_line: bool = False

    def all(self, text: str) -> Iterable[re.Match[str]]:
        """Every match in ``text``; none at once when the text lacks the needle."""
        return self.regex.finditer(text) if self.needle in text else ()

    def last(self, text: str) -> re.Match[str] | None:
        """The last match in ``text``."""
        needle = self.needle
        if needle not in text:
            return None
        if self.one_line:
            end = len(text)
            while (hit := text.rfind(needle, 0, end)) >= 0:
                start = text.rfind("\n", 0, hit) + 1
                match = self.regex.match(text, start)
                if match is not None:
                    return match
                end = start
            return None
        found: re.Match[str] | None = None
        for match in self.regex.finditer(text):
            found = match
        return found


_EXIT_SCAN: Final = 2048
_EXIT_LINE_RE: Final = re.compile(
    r"""^[ \t>*\[(\#-]*(?:error:[ \t]*)?
    (?:
        (?:command[ \t]+failed[ \t]+with[ \t]+|process[ \t]+exited[ \t]+with[ \t]+)?
        exit[ \t_]?code
      | (?:[\w./-]+[ \t]+){0,3}exited[ \t]+with[ \t]+(?:exit[ \t]+)?code
    )
    [ \t]*[:=]?[ \t]*(-?\d{1,5})\b""",
    re.IGNORECASE | re.MULTILINE | re.VERBOSE,
)
_EXIT_LINE: Final = LinePattern(_EXIT_LINE_RE, "")


def exit_code_from_output(text: str) -> int | None:
    """A process exit code printed in tool output ("Exit code: 2", "Process exited with code
    1"...), looking only at the first and last ~2 KB.
    """
    if not isinstance(text, str) or not text:
        return None
    if len(text) <= 2 * _EXIT_SCAN:
        head, tail = text, ""
    else:
        head, tail = text[:_EXIT_SCAN], text[-_EXIT_SCAN:]
    match = _EXIT_LINE_RE.search(head)
    if match is None and tail:
        match = _EXIT_LINE.last(tail)
    return int(match.group(1)) if match is not None else None


# A line of source code, not of output: a format string's placeholder (``%v``, ``{}``,
# ``{op_name}``, ``{e:?}``, ``${err}``) or a call given a string (``fmt.Fprintf(os.Stderr,
# "…failed…")``, ``throw new Error("…")``), a docstring's "ValueError: If …": a plan or a diff
# the user pasted quotes code that reports errors. So does an ellipsis ("Describe failed: ...").
_CODE_RE: Final = re.compile(
    r"%[-+ #0]*\d*[vsdqwxf]\b|\{\w*(?::[^{}\s]*)?\}|\$\{|\b[\w.]+\(\s*(?:[\w.]+,\s*)*[\"'`]"
    r"|:\s*(?:\.\.\.|\u2026)\s*$|(?:Error|Exception):\s+(?i:if|when)\b"
    r"|\bexcept\s+\(?[\w.]+(?:\s*,\s*[\w.]+)*\)?(?:\s+as\s+\w+)?\s*:"  # except ValueError:
    r"|\b\w*(?i:error|fatal|panic)\(\w|=>"  # a call (log.Fatal(err)), an arrow function
)
# A line of a document, not of output: a Markdown heading, table row or list item (a plan, a
# review or a spec the user pasted names the errors it is about).
_DOCUMENT_LINE_RE: Final = re.compile(r"#{1,6}\s|\||[-*+\u2022]\s|\d{1,3}[.)]\s")
# Words in brackets after an error word are prose ("a hard error (all orders blocked)"); a log
# says there what ended it: "failed (exit 1)", "error (code 2)", "Error (status: 404)".
_PROSE_PAREN_RE: Final = re.compile(
    r"\b(?i:error|failed|fatal|panic|exception) \((?!(?i:exit|code|status|errno|signal|\d))"
)


def reports_error(line: str) -> bool:
    """Whether a line of pasted text that names an error reports one: not a line of code or
    of a document, nor a sentence that describes an error."""
    if _CODE_RE.search(line) is not None or _DOCUMENT_LINE_RE.match(line) is not None:
        return False
    return _PROSE_PAREN_RE.search(line) is None or bool(
        error_lines(_PROSE_PAREN_RE.sub(" ", line), 1, 1)
    )


# What an error says, across languages and tools: the line a failure is quoted by.
_ERROR_RE: Final = re.compile(
    r"fatal:|(?<![\w-])(?<!\b0 )(?<!\bno )(?:error|errors|ERROR|failed|failure|FAILED|FAIL)\b"
    r"|\b\w+(?:Error|Exception):"  # a named exception: SyntaxError: Unexpected token
    r"|\u2718|\u2717|\bcannot\b|\bcan't\b|\bcould not\b|\bcouldn't\b|\bunable to\b"
    r"|\bnot found\b|No such file|\bdenied\b|\bexceeds?\b|nothing (?:added )?to commit|panicked at"
    r"|^\s*\*\* \(|syntax error|\bnot allowed\b|\brefused\b|\binvalid\b|\bundefined\b"
    # PowerShell's error record, in any language: its message after the cmdlet's name
    # ("Get-ChildItem : 对路径…的访问被拒绝。"), else its category ("+ CategoryInfo : …")
    r"|^[A-Z][a-z]+-[A-Z][A-Za-z]+ : \S|^\s*\+ CategoryInfo\s*:",
    re.IGNORECASE,
)
# Lines that frame an output and never say why it failed.
_BOILERPLATE_RE: Final = re.compile(
    r"^\s*(?:(?:Error: )?Exit code -?\d+|On branch \S+|Your branch is\b.*|hint:.*"
    r"|(?:Running|Compiling|Checking|Finished|Getting|Resolving|Downloading|Building)\b.*"
    r"|[-=_*#~.\u2500\u2501]{3,}|\$ .*|\+ .*)\s*$",
    re.IGNORECASE,
)
_MARKS: Final = "-=*<>_~+"
_TRACEBACK: Final = "Traceback (most recent call last):"
_MAX_INFORMATIVE_SCAN: Final = 64 * 1024
_MAX_INFORMATIVE_LINES: Final = 400


def informative_line(text: str, max_chars: int = 200) -> str:
    """The line of a tool's output that says why it failed, at most ``max_chars`` long.

    The first line in an error's words (``fatal:``, ``error``/``ERROR``/``✘``, a named
    exception's ``SyntaxError:``, ``failed``,
    ``cannot``, ``could not``, ``not found``, ``No such file``, ``denied``, ``exceeds``,
    ``panicked at``, an Elixir ``** (Error)``...), a Python traceback's last line; else the
    first line that is not framing (``Exit code N``, ``On branch …``, ``hint:``,
    ``Compiling …``, a heading framed by marks: ``>>>> ERROR REPORT <<<<``) nor a tool's
    notice (up to its line saying how to turn it off); else the first line. Empty when the
    text is blank.
    """
    if not isinstance(text, str) or max_chars <= 0:
        return ""
    lines = text[:_MAX_INFORMATIVE_SCAN].splitlines()[:_MAX_INFORMATIVE_LINES]
    found = _why(lines)
    return first_line(found if found is not None else text, max_chars)


def _why(lines: list[str]) -> str | None:
    """The first line in an error's words, or the one a traceback ends in; else the first
    that is not framing nor a tool's notice; stripped."""
    plain = None
    frames = -1  # a traceback's frames are indented deeper than its first line
    for raw in lines:
        line = raw.strip()
        if not line or (frames >= 0 and len(raw) - len(raw.lstrip()) > frames):
            continue  # blank, or a traceback's frame
        if line.startswith(_TRACEBACK):
            frames = len(raw) - len(raw.lstrip())
        elif frames >= 0 or (_ERROR_RE.search(line) and not _is_heading(line)):
            return line
        elif ends_notice(line):
            plain = None  # what came before was a tool's notice
        elif plain is None and not _BOILERPLATE_RE.match(line):
            plain = line
    return plain


def _is_heading(line: str) -> bool:
    """Whether a stripped line is a heading framed by runs of one mark ("# >>>>>> ERROR
    REPORT <<<<<<", "==== ERRORS ===="): the lines under it say why."""
    body = line.lstrip("# ")
    first, last = body[:1], body[-1:]
    if not (first and first in _MARKS and last in _MARKS):
        return False
    return body.startswith(first * 3) and body.endswith(last * 3)


# A command that found its work already done ("! Pull request #22 was already merged", "Already
# up to date."): it did nothing itself.
_ALREADY_DONE_RE: Final = re.compile(
    r"\balready (?:merged|closed|up[ -]to[ -]date|installed|applied|exists)\b", re.IGNORECASE
)
_ALREADY_SCAN: Final = 400


def found_done(output: str) -> bool:
    """Whether a command's output says it found its work already done."""
    return _ALREADY_DONE_RE.search(output[:_ALREADY_SCAN]) is not None


# Output seen through a window ("| tail -30", "| head -n 50"): what it does not show may
# still be there, unless the window was larger than the output.
_WINDOW_RE: Final = re.compile(r"\|\s*(?:tail|head)\b([^|;&]*)")
_LINES_RE: Final = re.compile(r"^\s*(?:-n\s*\+?|--lines[= ]|-)(\d+)\s*$")
_DEFAULT_WINDOW: Final = 10


def windowed(command: str, output: str) -> bool:
    """Whether a window of the output (``| tail -20``) may have left out some of it: not
    when the output has fewer lines than the window shows."""
    windows = _WINDOW_RE.findall(command)
    if not windows:
        return False
    lines = len(output.splitlines())
    for options in windows:
        found = _LINES_RE.match(options) if options.strip() else None
        if options.strip() and found is None:
            return True  # bytes (-c), a file, a follow: no count of lines
        if lines >= (int(found.group(1)) if found else _DEFAULT_WINDOW):
            return True
    return False


# What the line that says why a call failed says of it.
# A call refused for how it was made, an option, value or name it does not take ("unknown
# flag: --no-pager", "Unknown skill: commit"): made right, it did what was asked; a slip.
_USAGE_RE: Final = re.compile(
    r"\b(?:unknown|unrecogni[sz]ed|invalid|unsupported|unexpected|bad)\s+"
    r"(?:flags?|options?|arguments?|values?|usage)\b|\binvalid\s+--?[\w-]+\s+value\b|"
    r"\bno such option\b|\bunknown (?:skill|tool|subcommand|command|agent type|json fields?)\b"
    r"|\bcannot be found that matches parameter name\b"  # PowerShell's unknown -Parameter
    # A tool's input refused by its schema: "Invalid input: expected number, received string".
    r"|\binvalid input\b|\binputvalidationerror\b",
    re.IGNORECASE,
)
# A compiler's or type checker's finding of a name declared and never used (TS6133, Go's
# "declared and not used", Dart's unused_import): a linter's finding in all but the tool
# that reported it.
_UNUSED_NAME_RE: Final = re.compile(
    r"\b(?:declared|assigned|imported)\b[^\n]{0,40}?\b(?:but|and) (?:its value is )?"
    r"(?:never|not) (?:read|used)\b|\bunused[_ ](?:imports?|variables?|locals?|fields?|"
    r"elements?)\b",
    re.IGNORECASE,
)
# A program's own exception ("TypeError: scopeManager.addGlobals is not a function").
_CRASH_RE: Final = re.compile(r"[\w.]+(?:Error|Exception): ")


def is_usage_slip(text: str) -> bool:
    """Whether a failure's words refuse how the call was made (an option, value or name)."""
    return _USAGE_RE.search(text) is not None


def names_unused(text: str) -> bool:
    """Whether a failure's words are a finding that a name is declared and never used."""
    return _UNUSED_NAME_RE.search(text) is not None


def is_crash(line: str) -> bool:
    """Whether the line that says why a check failed is the program's own exception: the
    checker crashed, it found nothing in the code."""
    return _CRASH_RE.match(line) is not None
