"""A model's chat template with its options: conversations in, prompt text out."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..errors import Location, UsageError
from ..model import AnyMessage
from .bounds import DEFAULT_LIMITS, TemplateLimits
from .environment import compile_template
from .messages import chat_messages
from .render import TemplateRaised, VariableMissing, check_variables, render
from .source import TemplateSource, load_source, missing_hint, tokenizer_tokens
from .variables import needed


class ChatTemplate:
    """Renders message lists as ``apply_chat_template(..., tokenize=False)`` would.

    ``source``: a path or cached model id (``load_source``) or a ``TemplateSource``.
    ``variables`` are extra template variables (``enable_thinking=False``); they win over
    the model's special tokens, which come with the source (its tokenizer files) or from
    ``tokenizer``: a tokenizer's folder or a file in it (``tokenizer_tokens``), whose tokens
    win over the source's; ``default_tokens`` fill in what neither gives (the tokens of a
    counting tokenizer's folder). ``tools``/``documents`` apply to every conversation that
    does not carry its own (a fine-tuning row's ``tools``). ``limits`` bound each render.

    A template that uses a variable none of these defines is refused when it is chosen
    (at once, for the template without tools), naming the variable and how to give it.
    """

    def __init__(
        self,
        source: str | TemplateSource,
        *,
        name: str | None = None,
        add_generation_prompt: bool = False,
        continue_final_message: bool | str = False,
        variables: dict[str, Any] | None = None,
        tools: list[Any] | None = None,
        documents: list[Any] | None = None,
        tokenizer: str | None = None,
        limits: TemplateLimits = DEFAULT_LIMITS,
        default_tokens: dict[str, str] | None = None,
    ) -> None:
        self.source = load_source(source) if isinstance(source, str) else source
        self.name = name
        self.add_generation_prompt = add_generation_prompt
        self.continue_final_message = continue_final_message
        tokens = tokenizer_tokens(tokenizer) if tokenizer is not None else {}
        self.tokenizer = tokenizer
        self.variables = {
            **(default_tokens or {}),
            **self.source.special_tokens,
            **(tokens or {}),
            **(variables or {}),
        }
        self.limits = limits
        check_variables(self.variables)
        self.tools = tools
        self.documents = documents
        if continue_final_message and add_generation_prompt:
            raise UsageError(
                "--continue-final-message and --add-generation-prompt contradict each other: "
                "the first continues the last message, the second starts a new one"
            )
        if documents is not None and not all(isinstance(d, dict) for d in documents):
            raise UsageError("documents are a list of objects (with 'title' and 'text')")
        self._selected: dict[bool, tuple[str, Any, str]] = {}
        self.select(tools=bool(tools))  # an unknown --template-name fails before any input

    def __getstate__(self) -> dict[str, Any]:
        # a compiled template (Jinja's, which holds thread-locals) is not sent to another
        # process (a Dask worker): that one compiles its own on first use
        return {**self.__dict__, "_selected": {}}

    def select(self, *, tools: bool) -> tuple[str, Any, str]:
        """The name, compiled template and text of the template for a conversation."""
        selected = self._selected.get(tools)
        if selected is None:
            name, text = self.source.select(self.name, tools=tools)
            origin = self.source.files.get(name, self.source.origin)
            compiled = compile_template(text, origin)
            missing = sorted(needed(text) - set(self.variables))
            if missing:
                raise UsageError(
                    f"{origin}: the chat template uses {_listed(missing)}, which nothing defines",
                    hint=missing_hint(missing, self.source, self.tokenizer),
                )
            selected = self._selected[tools] = (name, compiled, text)
        return selected

    def extras(self, meta: dict[str, Any] | None) -> tuple[list | None, list | None]:
        """The tools and documents for a conversation: its own (``meta``), else these."""
        tools, documents = self.tools, self.documents
        if meta:
            if isinstance(meta.get("tools"), list) and meta["tools"]:
                tools = meta["tools"]
            if isinstance(meta.get("documents"), list) and meta["documents"]:
                documents = meta["documents"]
        return tools, documents

    def render(
        self,
        messages: Iterable[AnyMessage],
        meta: dict[str, Any] | None = None,
        location: Location | None = None,
    ) -> str:
        """The prompt text of one conversation; ``meta`` may hold its ``tools``/``documents``."""
        tools, documents = self.extras(meta)
        _, template, text = self.select(tools=tools is not None)
        try:
            return render(
                template,
                chat_messages(messages),
                tools=tools,
                documents=documents,
                add_generation_prompt=self.add_generation_prompt,
                continue_final_message=self.continue_final_message,
                template_text=text,
                variables=self.variables,
                plain=True,
                limits=self.limits,
            )
        except TemplateRaised as exc:
            raise exc.located(location) from None
        except VariableMissing as exc:
            exc.hint = missing_hint([exc.name], self.source, self.tokenizer)
            raise exc.located(location) from None

    def render_dicts(self, messages: list[dict[str, Any]], **options: Any) -> str:
        """The prompt text of chat dicts given as they are (no conversion)."""
        tools = options.pop("tools", self.tools)
        _, template, text = self.select(tools=tools is not None)
        return render(
            template,
            messages,
            tools=tools,
            documents=options.pop("documents", self.documents),
            add_generation_prompt=options.pop("add_generation_prompt", self.add_generation_prompt),
            continue_final_message=options.pop(
                "continue_final_message", self.continue_final_message
            ),
            template_text=text,
            variables={**self.variables, **options},
            limits=self.limits,
        )


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
