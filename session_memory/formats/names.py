"""The names of the transcript formats, importable without loading any adapter."""

from __future__ import annotations

from typing import Final, Literal, get_args

__all__ = ["FORMAT_CHOICES", "FormatChoice", "FormatName"]

FormatName = Literal["native", "claude-code", "codex"]
"""A concrete transcript format."""

FormatChoice = Literal["auto", "native", "claude-code", "codex"]
"""What a user may ask for: a concrete format, or detection."""

FORMAT_CHOICES: Final[tuple[str, ...]] = get_args(FormatChoice)
