"""Google AI Studio prompt files (saved to Drive, usually with no extension):
``{runSettings, systemInstruction, chunkedPrompt: {chunks, pendingInputs?}, pendingInputs?}``.

``chunks`` are in order, with no ids, times or branches; consecutive chunks of one role
are one turn (``user`` or ``model``): a model's thought is a chunk of its own
(``isThought``, newer files add ``parts: [{text, thought: true}]``) before its answer, and
an attachment is a chunk of its own (``driveDocument``, ``driveImage``, ``youtubeVideo``,
``inlineData`` or ``parts[].inlineData``). Code the model ran is ``executableCode`` and
``codeExecutionResult``. ``systemInstruction`` (``{}``, ``{text}`` or ``{parts}``) is the
system prompt; ``runSettings`` the model and its settings. ``pendingInputs`` is what was
typed and not sent: kept as the conversation's field, and said, never a turn.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..errors import DataError, Location
from ..model import AIMessage, AnyMessage, HumanMessage, SystemMessage
from .base import CERTAIN, CONVERSATIONS, Conversation, Dialect, Guess, Sample

DRAFT = "unsent drafts (AI Studio's pendingInputs) kept as the conversation's field, not a turn"
_READ = ("role", "text", "parts", "isThought", "driveDocument", "driveImage", "youtubeVideo")
_READ += ("inlineData", "executableCode", "codeExecutionResult")


def is_prompt(value: Any) -> bool:
    """An AI Studio prompt file: its chunked prompt."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("chunkedPrompt"), dict)
        and isinstance(value["chunkedPrompt"].get("chunks"), list)
    )


def _texts(value: Any) -> str:
    if isinstance(value, dict):
        parts = value.get("parts")
        if isinstance(value.get("text"), str):
            return value["text"]
        value = parts
    return "".join(
        str(p.get("text") or "") for p in value or () if isinstance(p, dict) and "text" in p
    )


def _data(source: dict[str, Any]) -> dict[str, Any]:
    mime = str(source.get("mimeType") or "application/octet-stream")
    kind = mime.split("/")[0] if mime.split("/")[0] in ("image", "audio", "video") else "file"
    return {"type": kind, "base64": source.get("data") or "", "mime_type": mime}


def chunk_blocks(chunk: dict[str, Any]) -> list[dict[str, Any]]:
    """A chunk's content as blocks: its thought, text, attachments and code."""
    parts = [p for p in chunk.get("parts") or () if isinstance(p, dict)]
    blocks: list[dict[str, Any]] = []
    if chunk.get("isThought"):
        text = chunk.get("text") if isinstance(chunk.get("text"), str) else _texts(parts)
        extras = {"parts": parts} if parts else {}
        blocks.append(
            {"type": "reasoning", "reasoning": text, **({"extras": extras} if extras else {})}
        )
        return blocks
    if isinstance(chunk.get("text"), str):
        blocks.append({"type": "text", "text": chunk["text"]})
    else:
        for part in parts:
            if part.get("thought"):
                blocks.append({"type": "reasoning", "reasoning": str(part.get("text") or "")})
            elif isinstance(part.get("text"), str):
                blocks.append({"type": "text", "text": part["text"]})
            elif isinstance(part.get("inlineData"), dict):
                blocks.append(_data(part["inlineData"]))
            elif isinstance(part.get("fileData"), dict):  # (a file by its URI)
                data = part["fileData"]
                block = _data({"mimeType": data.get("mimeType")})
                del block["base64"]
                blocks.append({**block, "url": data.get("fileUri") or ""})
            else:
                blocks.append({"type": "non_standard", "value": part})
    for key, kind in (("driveDocument", "file"), ("driveImage", "image")):
        if isinstance(chunk.get(key), dict):
            blocks.append(
                {
                    "type": kind,
                    "file_id": str(chunk[key].get("id") or ""),
                    "extras": {key: chunk[key]},
                }
            )
    if isinstance(chunk.get("youtubeVideo"), dict):
        video = chunk["youtubeVideo"].get("id")
        url = f"https://www.youtube.com/watch?v={video}"
        blocks.append(
            {"type": "video", "url": url, "extras": {"youtubeVideo": chunk["youtubeVideo"]}}
        )
    if isinstance(chunk.get("inlineData"), dict):
        blocks.append(_data(chunk["inlineData"]))
    code = chunk.get("executableCode")
    if isinstance(code, dict):
        blocks.append(
            {"type": "server_tool_call", "id": "", "name": "code_execution", "args": dict(code)}
        )
    result = chunk.get("codeExecutionResult")
    if isinstance(result, dict):
        status = "success" if result.get("outcome") in (None, "OUTCOME_OK") else "error"
        blocks.append(
            {
                "type": "server_tool_result",
                "tool_call_id": "",
                "status": status,
                "output": result.get("output"),
                "extras": result,
            }
        )
    return blocks


def _turn(role: str, chunks: list[dict[str, Any]]) -> AnyMessage:
    blocks = [b for chunk in chunks for b in chunk_blocks(chunk)]
    rest = [{k: v for k, v in c.items() if k not in _READ} for c in chunks]
    fields = {"additional_kwargs": {"ai_studio": {"chunks": rest}}} if any(rest) else {}
    plain = all(b["type"] == "text" and len(b) == 2 for b in blocks)
    content: Any = "".join(b["text"] for b in blocks) if plain else blocks
    if role == "model":
        return AIMessage(content, **fields)
    return HumanMessage(content, **fields)


def _drafts(value: dict[str, Any]) -> list[Any]:
    """The unsent drafts of a file, wherever it keeps them, those with text."""
    found = []
    for where in (value, value["chunkedPrompt"]):
        drafts = where.get("pendingInputs")
        found += [d for d in drafts if _texts(d).strip()] if isinstance(drafts, list) else []
    return found


class AiStudioDialect(Dialect):
    name = "ai-studio"
    description = "Google AI Studio prompt files (runSettings, chunkedPrompt.chunks)"
    example = "ai_studio__owimporter_prompt.json"
    extras_key = "ai_studio"  # (the chunks' fields besides those read)

    def score(self, sample: Sample) -> Guess | None:
        # a chunked prompt is AI Studio's alone
        return Guess(CERTAIN, CONVERSATIONS) if is_prompt(sample.first) else None

    def is_conversation(self, value: Any) -> bool:
        return is_prompt(value)

    def read_message(self, value: Any) -> AnyMessage:
        if not isinstance(value, dict):
            raise DataError("not an AI Studio chunk")
        return _turn(str(value.get("role")), [value])

    def read_conversations(
        self, value: Any, location: Location, options: Any = None
    ) -> Iterator[Conversation]:
        yield self.read_conversation(value, location)

    def read_conversation(self, value: Any, location: Location) -> Conversation:
        if not is_prompt(value):
            raise DataError(
                "not an AI Studio prompt", location, hint="it needs chunkedPrompt.chunks"
            )
        messages: list[AnyMessage] = []
        system = value.get("systemInstruction")
        prompt = (
            _texts(system)
            if isinstance(system, dict)
            else system
            if isinstance(system, str)
            else ""
        )
        if prompt:
            messages.append(SystemMessage(prompt))
        group: list[dict[str, Any]] = []
        for chunk in value["chunkedPrompt"]["chunks"]:
            if not isinstance(chunk, dict):
                continue
            if group and chunk.get("role") != group[0].get("role"):
                messages.append(_turn(str(group[0].get("role")), group))
                group = []
            group.append(chunk)
        if group:
            messages.append(_turn(str(group[0].get("role")), group))
        meta = {k: v for k, v in value.items() if k not in ("chunkedPrompt", "systemInstruction")}
        rest = {k: v for k, v in value["chunkedPrompt"].items() if k != "chunks"}
        meta.update({k: v for k, v in rest.items() if k not in meta})
        settings = value.get("runSettings")
        if isinstance(settings, dict) and isinstance(settings.get("model"), str):
            meta.setdefault("model", settings["model"].removeprefix("models/"))
        conversation = Conversation(messages, meta, location)
        if _drafts(value):
            conversation.left_out = [DRAFT]
        return conversation
