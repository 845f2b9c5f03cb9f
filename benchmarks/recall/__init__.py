"""Recall of must-know facts on real transcripts, against Claude Code's own compaction summary.

``python -m benchmarks.recall`` (also part of ``python -m benchmarks``): see ``cli.py``.
"""
