"""Options that several commands share, with the same names, defaults and help."""

from __future__ import annotations

from session_memory.core.tokens import DEFAULT_BUDGET

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

__all__ = [
    "NATS_PREFIX",
    "NATS_TIMEOUT",
    "add_budget_argument",
    "add_format_argument",
    "add_nats_read_arguments",
    "add_transcript_arguments",
]

NATS_PREFIX = "smem"
"""The name prefix of the NATS stream and buckets, as the workers' ``--prefix`` default."""

NATS_TIMEOUT = 2.0
"""Seconds a read from NATS may take, connecting included."""


def add_budget_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--budget N``, the memory's token budget."""
    parser.add_argument(
        "--budget",
        type=int,
        default=DEFAULT_BUDGET,
        metavar="N",
        help=f"token budget (default {DEFAULT_BUDGET})",
    )


def add_format_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--format auto|native|claude-code|codex`` (default auto)."""
    # Here, not at the top: the hook, which reads no format, does not load the formats.
    from session_memory.formats.names import FORMAT_CHOICES

    parser.add_argument(
        "--format",
        choices=FORMAT_CHOICES,
        default="auto",
        help="transcript format (default auto: detected from the first records)",
    )


def add_transcript_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the transcript to read (``-`` is standard input), ``--budget`` and ``--format``."""
    parser.add_argument("path", help="transcript file (JSONL), or - for standard input")
    add_budget_argument(parser)
    add_format_argument(parser)


def add_nats_read_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--nats URL``, ``--nats-prefix P`` and ``--nats-timeout S``: read memories from
    the bucket the NATS workers keep."""
    parser.add_argument(
        "--nats",
        metavar="URL",
        help="read memories from the bucket the NATS workers keep instead of deriving here "
        "(a session is its transcript's file name without .jsonl)",
    )
    parser.add_argument(
        "--nats-prefix", default=NATS_PREFIX, metavar="P", help="as the workers' --prefix"
    )
    parser.add_argument(
        "--nats-timeout",
        type=float,
        default=NATS_TIMEOUT,
        metavar="S",
        help="give up after S seconds",
    )
