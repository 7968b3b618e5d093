"""Chat templates: a conversation rendered (and counted) as a model's own Jinja template sees it."""

from .messages import chat_messages
from .prompt import ChatTemplate

__all__ = ["ChatTemplate", "chat_messages"]
