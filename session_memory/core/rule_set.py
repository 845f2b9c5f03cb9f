"""Anchored rules found by their literal starts, applied left to right: the engine of redaction.

A :class:`Rule` is an anchored regular expression with the literal triggers it may start
with (or, when it has none, a pattern to search for) and a handler that replaces a match or
declines it. :func:`apply_rules` finds every trigger position of a :class:`RuleSet` with
one regex search over the lowercased text, tries the rules only there, and keeps the
leftmost match; at one position the earlier rule wins. That is the semantics of one big
alternation, without paying for every alternative at every character: a text with no
trigger costs only the search. Pure, stdlib ``re`` only.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable
from typing import Final

__all__ = [
    "MARKER_PREFIX",
    "Handler",
    "Rule",
    "RuleSet",
    "apply_rules",
    "lower_same_length",
    "marker",
    "whole",
]

MARKER_PREFIX: Final = "[redacted:"


Handler = Callable[[re.Match[str]], str | None]
"""What replaces a rule's match; None declines it, and the text is scanned on as if the rule
had not matched there."""


def marker(kind: str) -> str:
    """The ``[redacted:<kind>]`` marker that replaces a secret of ``kind``."""
    return f"{MARKER_PREFIX}{kind}]"


class Rule:
    """One anchored rule: where it may start, how it matches, what replaces a match."""

    __slots__ = ("_regex", "handler", "kind", "pattern", "scan", "scan_min_length", "triggers")

    def __init__(
        self,
        pattern: str,
        triggers: tuple[str, ...],
        handler: Handler,
        kind: str = "",
        scan: str = "",
        scan_min_length: int = 0,
    ) -> None:
        self.pattern = pattern
        self._regex: re.Pattern[str] | None = None
        self.triggers = triggers  # literal starts, matched case-insensitively
        self.handler = handler
        self.kind = kind
        self.scan = re.compile(scan) if scan else None
        self.scan_min_length = scan_min_length

    @property
    def regex(self) -> re.Pattern[str]:
        """The rule's pattern, compiled when a text first has its trigger: most texts reach
        few of the rules, and compiling them all was a third of this module's import."""
        regex = self._regex
        if regex is None:
            regex = self._regex = re.compile(self.pattern)
        return regex


def whole(kind: str) -> Handler:
    """A handler that replaces the whole match with the marker of ``kind``."""
    replacement = marker(kind)
    return lambda _m: replacement


_URLSAFE: Final = frozenset(string.ascii_letters + string.digits + "_-")


# Substrings of triggers that the gate looks for instead of the whole trigger, because they
# start with a character that already starts another trigger: each distinct first character
# makes the gate stop at more positions of an ordinary text ("d", "n", "w", "y" and "f" are
# common letters), and the whole trigger is still checked at every hit.
_GATE_ANCHORS: Final = (
    "_v1_",  # dop_v1_ doo_v1_ dor_v1_
    "api",  # dapi lin_api_ api_org_
    "p.pt.", "p.st.", "p.ct.", "p.sa.", "p.scim.", "p.audit.",  # dp.pt. ...
    "gd_", "pm_", "rak-", "raa-", "rii-", "tn_", "hsec_", "a29.", "//0",
)  # fmt: skip


def _first_parts(
    text: str, words: frozenset[str] | set[str], lengths: list[int], longest: int | None = None
) -> dict[str, int]:
    """Each of ``words`` (whose lengths are ``lengths``, ascending) that occurs in ``text``,
    with the offset of its first occurrence; only words of at most ``longest`` characters.

    The substrings of a short trigger are few, so looking each up in the set is cheaper than
    searching the trigger for every word (that was most of the cost of building a rule set
    at import)."""
    found: dict[str, int] = {}
    for length in lengths:
        if length > len(text) or (longest is not None and length > longest):
            break
        for start in range(len(text) - length + 1):
            part = text[start : start + length]
            if part in words and part not in found:
                found[part] = start
    return found


class RuleSet:
    """Rules in priority order, and one trigger regex that finds where any of them may start.

    The trigger regex is a literal alternation over the lowercased text, grouped by first
    character so that re's charset prefix and branch skipping make a miss cost a few
    nanoseconds per character. Triggers that contain a shorter trigger are dropped from it
    (the shorter one finds them) and the rest are searched overlapping, so none is missed; a
    hit becomes a candidate only when the rule's whole trigger is there, in the text's own
    case when the trigger is written with a capital ("AKIA", "NRAK-") and in any case
    otherwise. A rule without a literal start has a scan pattern instead, searched only in
    texts long enough to hold a match: each scan hit lies in the run of URL-safe characters
    the token starts.
    """

    __slots__ = ("gate", "rules", "scans", "starts")

    def __init__(self, rules: tuple[Rule, ...]) -> None:
        self.rules = rules
        wanted = {t.lower() for rule in rules for t in rule.triggers}
        wanted |= {a for a in _GATE_ANCHORS if any(a in t for t in wanted)}
        lengths = sorted({len(t) for t in wanted})
        minimal = sorted(t for t in wanted if not _first_parts(t, wanted, lengths, len(t) - 1))
        shorts = frozenset(minimal)
        short_lengths = sorted({len(t) for t in minimal})
        # short trigger -> (the rules whose trigger it is, as written in any case; and
        # [(its offset in a rule's longer trigger, rule index, that whole trigger, whether
        # the whole trigger must match in the text's own case)])
        self.starts: dict[str, tuple[list[int], list[tuple[int, int, str, bool]]]] = {
            t: ([], []) for t in minimal
        }
        for index, rule in enumerate(rules):
            for trigger in dict.fromkeys(rule.triggers):
                lowered = trigger.lower()
                exact = trigger != lowered
                whole = trigger if exact else lowered
                for short, offset in _first_parts(lowered, shorts, short_lengths).items():
                    if offset == 0 and whole == short:
                        self.starts[short][0].append(index)
                    else:
                        self.starts[short][1].append((offset, index, whole, exact))
        by_first: dict[str, list[str]] = {}
        for t in minimal:
            by_first.setdefault(t[0], []).append(re.escape(t[1:]))
        self.gate = re.compile(
            "|".join(
                re.escape(first) + "(?:" + "|".join(rests) + ")"
                for first, rests in sorted(by_first.items())
            )
        )
        self.scans = [
            (rule.scan, rule.scan_min_length, index)
            for index, rule in enumerate(rules)
            if rule.scan is not None
        ]

    def candidates(self, text: str, lowered: str) -> list[tuple[int, int]]:
        """Every (position, rule index) where a rule may match, sorted."""
        found: list[tuple[int, int]] = []
        hit = self.gate.search(lowered)
        while hit is not None:
            at = hit.start()
            direct, checked = self.starts[hit.group()]
            for index in direct:
                found.append((at, index))
            for offset, index, whole, exact in checked:
                start = at - offset
                if start >= 0 and (text if exact else lowered).startswith(whole, start):
                    found.append((start, index))
            hit = self.gate.search(lowered, at + 1)
        for scan, min_length, index in self.scans:
            if len(text) >= min_length:
                for m in scan.finditer(text):
                    start = m.start()
                    while start > 0 and text[start - 1] in _URLSAFE:
                        start -= 1
                    found.append((start, index))
        found.sort()
        return found


def apply_rules(text: str, rule_set: RuleSet, lowered: str) -> str:
    """One left-to-right pass: at each candidate, in rule order, the first match that its
    handler does not decline is replaced."""
    candidates = rule_set.candidates(text, lowered)
    if not candidates:
        return text
    rules = rule_set.rules
    parts: list[str] = []
    done = 0  # text[:done] is settled
    previous = (-1, -1)
    for candidate in candidates:
        pos, index = candidate
        if pos < done or candidate == previous:
            continue  # inside a replaced span, or a second trigger of the same rule here
        previous = candidate
        m = rules[index].regex.match(text, pos)
        if m is None:
            continue
        replacement = rules[index].handler(m)
        if replacement is None:
            continue  # declined: later rules and positions are tried as if it had not matched
        parts.append(text[done:pos])
        parts.append(replacement)
        done = m.end()
    if not parts:
        return text
    parts.append(text[done:])
    joined = "".join(parts)
    return text if joined == text else joined


def lower_same_length(text: str) -> str:
    """``text.lower()`` with positions preserved (only U+0130 lowercases to two characters)."""
    lowered = text.lower()
    if len(lowered) != len(text):
        lowered = text.replace("\u0130", "I").lower()
    return lowered
