"""The fold: SessionMemoryDeriver and the rules it applies."""

from deriver.deriver import SessionMemoryDeriver

__all__ = ["SessionMemoryDeriver"]
