"""Adapters that read Claude Code sessions and Codex CLI rollouts as native events.

The names below are imported on first use (PEP 562): the command line needs only the format
names (:mod:`session_memory.formats.names`) to build its parser, not the adapters.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from session_memory.core.lazy_names import lazy_names

if TYPE_CHECKING:
    from session_memory.formats.base import Adapter, AdapterBase
    from session_memory.formats.claude_code import ClaudeCodeAdapter
    from session_memory.formats.codex import CodexAdapter
    from session_memory.formats.detect import (
        NO_KNOWN_FORMAT,
        AutoAdapter,
        classify_object,
        detect_format,
        fold_adapter,
        make_adapter,
        read_fold_records,
        read_transcript,
        restore_adapter,
        restore_fold_adapter,
    )
    from session_memory.formats.names import FORMAT_CHOICES, FormatChoice, FormatName
    from session_memory.formats.native import NativeAdapter

__all__ = [
    "FORMAT_CHOICES",
    "NO_KNOWN_FORMAT",
    "Adapter",
    "AdapterBase",
    "AutoAdapter",
    "ClaudeCodeAdapter",
    "CodexAdapter",
    "FormatChoice",
    "FormatName",
    "NativeAdapter",
    "classify_object",
    "detect_format",
    "fold_adapter",
    "make_adapter",
    "read_fold_records",
    "read_transcript",
    "restore_adapter",
    "restore_fold_adapter",
]

_HOME: Final[dict[str, str]] = {
    "Adapter": ".base",
    "AdapterBase": ".base",
    "ClaudeCodeAdapter": ".claude_code",
    "CodexAdapter": ".codex",
    "AutoAdapter": ".detect",
    "NO_KNOWN_FORMAT": ".detect",
    "classify_object": ".detect",
    "detect_format": ".detect",
    "fold_adapter": ".detect",
    "make_adapter": ".detect",
    "read_fold_records": ".detect",
    "read_transcript": ".detect",
    "restore_adapter": ".detect",
    "restore_fold_adapter": ".detect",
    "FORMAT_CHOICES": ".names",
    "FormatChoice": ".names",
    "FormatName": ".names",
    "NativeAdapter": ".native",
}


__getattr__, __dir__ = lazy_names(__name__, _HOME, globals())
