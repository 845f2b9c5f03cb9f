"""Rendering the session memory and building the messages of a model call."""

from viewbuilder.render import render_memory

__all__ = ["render_memory"]
