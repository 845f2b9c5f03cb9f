"""Rendering the session memory and building the messages of a model call."""

from viewbuilder.cache import MessageTokenCache
from viewbuilder.counting import (
    clear_message_token_cache,
    message_token_cache_info,
    message_tokens,
)
from viewbuilder.render import render_memory
from viewbuilder.view import ModelView, ViewInputError, build_model_view

__all__ = [
    "MessageTokenCache",
    "ModelView",
    "ViewInputError",
    "build_model_view",
    "clear_message_token_cache",
    "message_token_cache_info",
    "message_tokens",
    "render_memory",
]
