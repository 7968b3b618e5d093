"""Dataset rows whose conversation is not a ``messages`` list, as the ``openai`` dialect
reads them, and the images such rows keep beside their messages.

- TRL's conversational rows: a preference row (``prompt`` and ``chosen``, or ``chosen``
  whole), a prompt-completion row (``prompt`` and ``completion``), a prompt-only row
  (``prompt``: GRPO datasets; verl's RL rows, ``{data_source, prompt, ability,
  reward_model, extra_info}``, whose answer is the reward model's ground truth).
- Images given beside the messages (TRL's vision datasets, LLaMA-Factory's): a
  ``{"type": "image"}`` part stands for the row's next image, ``{"type": "image",
  "index": i}`` for ``images[i]``; each is made the standard image block of its path,
  URL, data URL or ``{"bytes", "path"}`` (the ``datasets`` library's image), and the
  row's ``images`` is dropped once every image stands in a message.
"""

from __future__ import annotations

from typing import Any

from .media import sniff
from .openai_media import media_reference

# where a row keeps its messages, in the conversation's order
_LISTS = ("messages", "prompt", "chosen", "completion")


def _role_dict(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("role"), str)


def _messages(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and _role_dict(value[0])


def row_key(value: Any) -> str | None:
    """Where a row's conversation stands (``prompt`` when the row gives the prompt as
    messages, followed by the chosen answer or the completion when it has one;
    ``chosen`` when the chosen list is the whole conversation), or None for any other
    record."""
    if not isinstance(value, dict) or "messages" in value:
        return None
    if _messages(value.get("prompt")):
        return "prompt"
    if _messages(value.get("chosen")) and "prompt" not in value:
        return "chosen"
    return None


def answer_key(value: dict[str, Any], key: str) -> str | None:
    """The list a ``prompt`` row's conversation goes on with: ``chosen`` or ``completion``."""
    if key != "prompt":
        return None
    return next((k for k in ("chosen", "completion") if _messages(value.get(k))), None)


# -- images beside the messages -----------------------------------------------------------


def _reference(part: Any) -> bool:
    """An image part that holds no image, standing for one of the row's."""
    return (
        isinstance(part, dict)
        and part.get("type") == "image"
        and not any(
            part.get(k) is not None for k in ("image", "url", "path", "base64", "source", "text")
        )
    )


def _image(given: Any) -> dict[str, Any] | None:
    """A row's image as a standard block, or None for one of a shape not known."""
    if isinstance(given, str) and given:
        return media_reference("image", given, {})
    if isinstance(given, dict):
        data = given.get("bytes")
        if isinstance(data, str) and data:
            block = {"type": "image", "base64": data}
            if sniff(data) is not None:
                block["mime_type"] = sniff(data)
            if isinstance(given.get("path"), str):
                block["extras"] = {"path": given["path"]}
            return block
        for key in ("path", "url", "src"):
            if isinstance(given.get(key), str) and given[key]:
                return media_reference("image", given[key], {})
    return None


def with_row_images(value: dict[str, Any]) -> dict[str, Any]:
    """The row with its image parts standing for the row's ``images`` made image blocks;
    the row as it is when it has none, or an image part points outside the list."""
    images = value.get("images")
    if not isinstance(images, list) or not images:
        return value
    lists = [k for k in _LISTS if isinstance(value.get(k), list)]
    if not any(
        _reference(p)
        for k in lists
        for m in value[k]
        if isinstance(m, dict) and isinstance(m.get("content"), list)
        for p in m["content"]
    ):
        return value
    made = [_image(i) for i in images]
    used: set[int] = set()
    following = 0
    resolved = dict(value)
    for key in lists:
        messages = []
        for message in value[key]:
            content = message.get("content") if isinstance(message, dict) else None
            if not isinstance(content, list):
                messages.append(message)
                continue
            parts = []
            for part in content:
                if not _reference(part):
                    parts.append(_plain_text(part))
                    continue
                at = part.get("index")
                at = following if not isinstance(at, int) or isinstance(at, bool) else at
                following = at + 1
                if not 0 <= at < len(made) or made[at] is None:
                    return value  # (an image the row does not hold: read as it is)
                used.add(at)
                block = made[at]
                if isinstance(part.get("index"), int):  # (which of the row's images it is)
                    block = {**block, "extras": {**block.get("extras", {}), "index": at}}
                parts.append(block)
            messages.append({**message, "content": parts})
        resolved[key] = messages
    if used == set(range(len(images))):
        del resolved["images"]
    return resolved


def _plain_text(part: Any) -> Any:
    """A text part of such a row without the ``index: null`` its dataset schema adds."""
    if isinstance(part, dict) and part.get("type") == "text" and part.get("index", 0) is None:
        return {k: v for k, v in part.items() if k != "index"}
    return part
