"""Type checks of public arguments, made once at construction or entry.

A library call with an argument of the wrong type raises the project's error naming the
argument, never a raw ``TypeError`` or ``AttributeError`` from deep inside. ``bool`` is not
an integer here and a string is never a number; ``None`` passes only where it is allowed.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Final

from session_memory.core.errors import ConfigError, SessionMemoryError

__all__ = ["check_argument", "check_paths", "check_source"]

_WHAT: Final[dict[type, str]] = {
    int: "an integer",
    float: "a number",
    str: "a string",
    bool: "true or false",
    list: "a list",
}
_SHOWN_CHARS: Final = 60


def check_argument(
    name: str,
    value: object,
    kinds: type | tuple[type, ...],
    *,
    error: type[SessionMemoryError] = ConfigError,
    optional: bool = False,
) -> None:
    """Raise ``error`` naming ``name`` unless ``value`` is one of ``kinds`` (or an allowed None).

    ``float`` in ``kinds`` accepts integers too; ``bool`` passes only when it is named.
    """
    if value is None and optional:
        return
    named = kinds if isinstance(kinds, tuple) else (kinds,)
    wanted = (*named, int) if float in named else named
    if isinstance(value, wanted) and (bool in named or not isinstance(value, bool)):
        return
    what = " or ".join(_WHAT.get(kind, kind.__name__) for kind in named)
    raise error(f"{name} must be {what}{' or None' if optional else ''}, not {_shown(value)}")


def check_source(name: str, value: object) -> None:
    """A transcript source: a path (``str`` or path-like) or a binary file open for reading;
    ConfigError naming ``name`` otherwise."""
    if isinstance(value, str | os.PathLike) or callable(getattr(value, "read", None)):
        return
    raise ConfigError(
        f"{name} must be a path or a binary file open for reading, not {_shown(value)}"
    )


def check_paths(name: str, value: object) -> None:
    """A non-string sequence of paths (``str`` or path-like); ConfigError naming ``name``."""
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise ConfigError(f"{name} must be a list of paths, not {_shown(value)}")
    for i, path in enumerate(value):
        if not isinstance(path, str | os.PathLike):
            raise ConfigError(f"{name}[{i}] must be a path, not {_shown(path)}")


def _shown(value: object) -> str:
    text = repr(value)
    if len(text) > _SHOWN_CHARS:
        text = text[: _SHOWN_CHARS - 3] + "..."
    return f"{type(value).__name__} {text}"
