"""Rendering the session memory and building the messages of a model call.

The names below are imported on first use (PEP 562): the service and the hook render
memories without loading the view builder (and its hashing, or pydantic).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from session_memory.core.lazy_names import lazy_names

if TYPE_CHECKING:
    from viewbuilder.cache import MessageTokenCache
    from viewbuilder.render import render_memory
    from viewbuilder.view import (
        ModelView,
        ViewInputError,
        build_model_view,
        clear_message_token_cache,
        message_token_cache_info,
        message_tokens,
    )

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

_HOME: Final[dict[str, str]] = {
    "MessageTokenCache": ".cache",
    "render_memory": ".render",
    "ModelView": ".view",
    "ViewInputError": ".view",
    "build_model_view": ".view",
    "clear_message_token_cache": ".view",
    "message_token_cache_info": ".view",
    "message_tokens": ".view",
}


__getattr__, __dir__ = lazy_names(__name__, _HOME, globals())
