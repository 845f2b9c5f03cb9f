"""Regular expressions compiled when first used.

For modules that keep many patterns of which one call uses few (the check-output parsers,
the redaction helpers): compiling every one of them at import was most of those modules'
import time, paid by every cold process (a hook call on a new transcript) whether or not
its transcript ever reaches them. A :class:`LazyPattern` compiles on its first match and
then hands out the compiled pattern's own methods, so later calls cost what they cost on a
compiled :class:`re.Pattern`.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["LazyPattern"]


class LazyPattern:
    """A :class:`re.Pattern` of ``str``, compiled on its first use.

    ``pattern`` and ``flags`` are there before compiling (modules key tables by the
    pattern's text); the matching methods compile it, then are replaced on the instance by
    the compiled pattern's bound methods.
    """

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags

    @property
    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern (compiled now if it was not yet)."""
        compiled: re.Pattern[str] | None = self.__dict__.get("_compiled")
        if compiled is None:
            compiled = re.compile(self.pattern, self.flags)
            # Instance attributes win over these methods from now on: no Python call on the
            # way to the compiled pattern's C methods.
            self.__dict__.update(
                _compiled=compiled,
                search=compiled.search,
                match=compiled.match,
                fullmatch=compiled.fullmatch,
                finditer=compiled.finditer,
                findall=compiled.findall,
                sub=compiled.sub,
                split=compiled.split,
            )
        return compiled

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.search(string, pos, endpos)

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.match(string, pos, endpos)

    def fullmatch(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> re.Match[str] | None:
        return self.compiled.fullmatch(string, pos, endpos)

    def finditer(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(string, pos, endpos)

    def findall(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]:
        return self.compiled.findall(string, pos, endpos)

    def sub(self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0) -> str:
        return self.compiled.sub(repl, string, count)

    def split(self, string: str, maxsplit: int = 0) -> list[str | Any]:
        return self.compiled.split(string, maxsplit)

    def __repr__(self) -> str:
        return f"LazyPattern({self.pattern!r}, {self.flags!r})"
