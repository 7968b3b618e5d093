"""Training rows: a conversation's token ids through its model's chat template, with the
mask of the tokens the model learns from (its assistant turns).

The ids are what transformers' ``apply_chat_template(messages, tokenize=True)`` gives: the
template's text (templates/render.py) encoded by the model's tokenizer without special
tokens of its own. The mask is 1 on the tokens of the assistant turns that count
(``train_on`` ``all`` or ``last``; a message's OpenAI fine-tuning ``weight: 0`` takes it
out), found by one of three methods, each a span of characters of the text mapped to
the tokens that overlap it (the tokenizer's offsets):

- ``generation``: the template marks the assistant's text with ``{% generation %}``
  blocks (as ``return_assistant_tokens_mask=True`` reads them);
- ``per-turn``: the template's own rendering of each turn in the whole conversation,
  followed as it is made (templates/tracking.py), from just after the assistant header
  (the text the generation prompt writes) to the end of the turn, the template's
  end-of-turn token included. Templates that render earlier turns differently once later
  ones exist (Qwen 3 drops old reasoning, gpt-oss its analysis and ``<|return|>``) are
  right here, where rendering prefixes is not;
- ``prefix``: for a template whose loop cannot be followed, each turn rendered as a
  prefix of the conversation (up to and including the message, and up to just before it
  with the generation prompt), checked against the whole text: a template that renders
  the conversation differently from its prefixes is an error there.

A row whose mask is all zeros is an error, never a silent row.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..errors import DataError, Location, UsageError
from ..model import AnyMessage
from .hf_tokenizer import TextTokenizer
from .messages import chat_messages
from .prompt import ChatTemplate
from .render import TemplateRaised
from .tracking import compile_tracked, render_followed
from .turn_spans import common_length, owner_of, per_turn_spans, prefix_spans, token_range

TRAIN_ON = ("all", "last")
TRUNCATE = ("right", "left", "error")
GENERATION, PER_TURN, PREFIX = "generation", "per-turn", "prefix"
_PROBE = [{"role": "user", "content": "x"}]


@dataclass
class Tokenized:
    """One conversation's ids and mask; ``method`` found the mask; ``cut``: the tokens
    ``max_length`` cut; ``rewritten`` (with ``check_prefixes``): its prefixes render its
    earlier turns differently from the whole conversation."""

    input_ids: list[int]
    assistant_masks: list[int]
    method: str
    cut: int = 0
    rewritten: bool = False

    def labels(self) -> list[int]:
        """The ids where the mask is 1, -100 elsewhere (what a loss ignores)."""
        return [i if m else -100 for i, m in zip(self.input_ids, self.assistant_masks, strict=True)]


class ChatTokenizer:
    """Conversations to ``Tokenized`` rows through ``template`` and ``tokenizer``.

    ``max_length`` cuts longer rows on the ``truncate`` side (``right`` keeps the start,
    ``left`` the end; ``error`` refuses them). ``check_prefixes`` also renders the
    prefixes of conversations masked per turn, to say which ones a template rewrites.
    """

    def __init__(
        self,
        template: ChatTemplate,
        tokenizer: TextTokenizer,
        *,
        train_on: str = "all",
        max_length: int | None = None,
        truncate: str = "right",
        check_prefixes: bool = False,
    ) -> None:
        if train_on not in TRAIN_ON:
            raise UsageError(f"--train-on must be all or last, got {train_on!r}")
        if truncate not in TRUNCATE:
            raise UsageError(f"--truncate must be right, left or error, got {truncate!r}")
        if max_length is not None and max_length < 1:
            raise UsageError(f"--max-length must be at least 1, got {max_length}")
        if template.add_generation_prompt or template.continue_final_message:
            raise UsageError(
                "training rows are whole conversations: no generation prompt, no "
                "continued final message"
            )
        self.template, self.tokenizer = template, tokenizer
        self.train_on, self.max_length, self.truncate = train_on, max_length, truncate
        self.check_prefixes = check_prefixes
        self._heads: dict[tuple, str | None] = {}  # the generation prompt, per template

    @classmethod
    def load(
        cls,
        tokenizer: str,
        chat_template: str | None = None,
        *,
        name: str | None = None,
        variables: dict[str, Any] | None = None,
        tools: list[Any] | None = None,
        documents: list[Any] | None = None,
        **options: Any,
    ) -> ChatTokenizer:
        """The tokenizer of a model (a tokenizer.json, a model directory or a cached
        model id) with its chat template, or the one ``chat_template`` names; the special
        tokens of the tokenizer's config reach the template (``variables`` win over
        them). ``options``: those of ``ChatTokenizer``."""
        from .hf_tokenizer import load_tokenizer
        from .source import load_source

        text_tokenizer = load_tokenizer(tokenizer)
        spec = chat_template or text_tokenizer.directory
        if spec is None:
            raise UsageError(
                f"{tokenizer} is a lone tokenizer.json: it has no chat template beside it",
                hint="add --chat-template (a chat_template.jinja, tokenizer_config.json or "
                "model directory), or give the model directory as --tokenizer",
            )
        source = load_source(spec)
        own = source.special_tokens
        tokens = {k: v for k, v in text_tokenizer.special_tokens.items() if k not in own}
        template = ChatTemplate(
            source,
            name=name,
            variables={**tokens, **(variables or {})},
            tools=tools,
            documents=documents,
        )
        return cls(template, text_tokenizer, **options)

    def tokenize(
        self,
        messages: Iterable[AnyMessage],
        meta: dict[str, Any] | None = None,
        location: Location | None = None,
    ) -> Tokenized:
        """One conversation's row; a conversation that cannot give one raises DataError."""
        try:
            return self._tokenize(messages, meta)
        except DataError as exc:
            raise exc.located(location) from None

    def _tokenize(self, messages: Iterable[AnyMessage], meta: dict[str, Any] | None) -> Tokenized:
        messages = messages if isinstance(messages, list) else list(messages)
        origins: list[int] = []
        chat = chat_messages(messages, origins)
        if not chat:
            raise TemplateRaised("this conversation has no messages for the chat template")
        counted = self._counted(chat, origins, messages)
        tools, documents = self.template.extras(meta)
        name, compiled, text = self.template.select(tools=tools is not None)
        tracked = compile_tracked(text, self.template.source.files.get(name, name))
        extras = {"tools": tools, "documents": documents}
        followed = render_followed(tracked, chat, variables=self.template.variables, **extras)
        full = followed.text
        rewritten = False
        spans: list[tuple[int, int]] | None = None
        if tracked.generation:
            method, spans = GENERATION, self._generation(chat, counted, followed)
        else:
            method = PER_TURN
            key = (name, tools is not None, documents is not None)
            heads = {k: self._head(key, chat, k, tracked, extras) for k in counted}
            if None not in heads.values():
                eos = self.template.variables.get("eos_token")
                spans = per_turn_spans(chat, counted, followed, heads, eos)
            if spans is None or self.check_prefixes:
                prefixed = prefix_spans(full, chat, counted, compiled, extras, self.template)
                rewritten = prefixed is None or (spans is not None and prefixed != spans)
                if spans is None:
                    if prefixed is None:
                        raise DataError(
                            "the chat template renders this conversation differently from its "
                            "prefixes, and its message loop cannot be followed: its assistant "
                            "turns cannot be found",
                            hint="use a template with {% generation %} markers",
                        )
                    method, spans = PREFIX, prefixed
        encoding = self.tokenizer.encode_pieces(full)
        ids = encoding.ids
        mask = [0] * len(ids)
        for start, end in spans:
            first, last = token_range(encoding, start, end, len(ids))
            if last > first:
                mask[first:last] = [1] * (last - first)
        _check_mask(mask, chat, counted, method)
        row = Tokenized(ids, mask, method, rewritten=rewritten)
        return self._truncated(row) if self.max_length is not None else row

    def _counted(self, chat: list[dict], origins: list[int], messages: list) -> list[int]:
        """The chat dicts whose assistant turns count: all or the last, none of weight 0."""
        assistants = [k for k, m in enumerate(chat) if m.get("role") == "assistant"]
        if self.train_on == "last":
            assistants = assistants[-1:]
        if type(messages) is list:  # (shaped rows: plain dicts, which carry no weight)
            assistants = [k for k in assistants if _weight(messages[origins[k]]) != 0]
        return assistants

    def _generation(self, chat: list[dict], counted: list[int], followed: Any) -> list:
        spans = [s for s in followed.generation if s[1] > s[0]]
        assistants = [k for k, m in enumerate(chat) if m.get("role") == "assistant"]
        if counted == assistants:
            return spans
        owners = [owner_of(span, followed.parts) for span in spans]
        if None in owners:
            if len(spans) != len(assistants):
                raise DataError(
                    "the chat template's {% generation %} blocks cannot be matched with this "
                    "conversation's assistant turns, so --train-on last or a weight cannot "
                    "choose among them"
                )
            owners = assistants
        wanted = set(counted)
        return [span for span, owner in zip(spans, owners, strict=True) if owner in wanted]

    def _head(self, key: tuple, chat: list[dict], k: int, tracked: Any, extras: dict) -> str | None:
        """The text a generation prompt writes before turn ``k`` (the assistant header):
        what the template writes after the messages with the prompt. It is found once a
        template and a kind of turn before (a header may depend on it: DeepSeek R1's is
        "<｜tool▁outputs▁end｜>" after tool results), from this conversation's messages
        before ``k`` (or, for the first turn, one user message); None when the template
        refuses them."""
        before = chat[k - 1].get("role") if k else None
        if (*key, before) in self._heads:
            return self._heads[(*key, before)]
        head = None
        for start in (chat[:k], _PROBE):
            if not start or (start is _PROBE and before not in (None, "user", "system")):
                continue
            try:
                prompt = render_followed(
                    tracked,
                    [dict(m) for m in start],
                    variables=self.template.variables,
                    add_generation_prompt=True,
                    **extras,
                )
                plain = render_followed(
                    tracked, [dict(m) for m in start], variables=self.template.variables, **extras
                )
            except DataError:
                continue
            # where the prompt's text parts from the text without it: at the end of the
            # messages' parts at the latest (a header that starts like the closing text,
            # "<|assistant|>" after "</s>", is the header whole)
            at = common_length(prompt.text, plain.text)
            ends = [part[1] for part in plain.parts if part is not None]
            head = prompt.text[min([at, *([max(ends)] if ends else [])]) :]
            break
        self._heads[(*key, before)] = head
        return head

    def _truncated(self, row: Tokenized) -> Tokenized:
        size, limit = len(row.input_ids), self.max_length
        assert limit is not None
        if size <= limit:
            return row
        if self.truncate == "error":
            raise DataError(
                f"this conversation has {size} tokens, more than --max-length {limit}",
                hint="--truncate right or left cuts such rows instead",
            )
        keep = slice(None, limit) if self.truncate == "right" else slice(size - limit, None)
        ids, mask = row.input_ids[keep], row.assistant_masks[keep]
        if 1 not in mask:
            raise DataError(
                f"--max-length {limit} cuts every assistant token of this conversation "
                f"({size} tokens, cut on the {self.truncate})",
                hint="a larger --max-length"
                + (", or --truncate left, which keeps the end" if self.truncate == "right" else ""),
            )
        return Tokenized(ids, mask, row.method, size - limit, row.rewritten)


def _weight(message: Any) -> Any:
    extra = getattr(message, "additional_kwargs", None)
    return extra.get("weight") if isinstance(extra, dict) else None


def _check_mask(mask: list[int], chat: list[dict], counted: list[int], method: str) -> None:
    if 1 in mask:
        return
    if counted:
        raise DataError(
            f"no token of this conversation's assistant turns was found ({method} method): "
            "its mask would be all zeros",
            hint="check that the chat template writes the assistant's messages",
        )
    if any(m.get("role") == "assistant" for m in chat):
        raise DataError(
            "no assistant turn of this conversation counts (weight 0, or --train-on last "
            "and its last one has weight 0): nothing to train on"
        )
    raise DataError("this conversation has no assistant turn: nothing to train on")
