"""Chat templates, tokenizers and counters set up from what a user typed: ``KEY=VALUE``
variables, JSON lists of tools and documents, render bounds as sizes, a counter that
counts through a template. Each mistake is a UsageError naming the option."""

from __future__ import annotations

import os
from typing import Any

import orjson

from ..errors import UsageError

DEFAULT_MAX_OUTPUT, DEFAULT_MAX_LOOPS, DEFAULT_TIMEOUT = "64M", 1_000_000, 10.0
DEFAULT_BOUNDS = (DEFAULT_MAX_OUTPUT, DEFAULT_MAX_LOOPS, DEFAULT_TIMEOUT)


def template_limits(max_output: str, max_loops: int, timeout: float) -> Any:
    """The bounds of each render (--template-max-output SIZE, --template-max-loops N,
    --template-timeout SECONDS)."""
    from .bounds import TemplateLimits, parse_size

    try:
        size = parse_size(max_output, "--template-max-output")
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return TemplateLimits(max_output=size, max_loops=max_loops, timeout=timeout)


def parse_variables(values: list[str] | None) -> dict[str, Any]:
    """``KEY=VALUE`` pairs; a VALUE that is JSON (false, 3, "x", [..]) is taken as JSON."""
    out: dict[str, Any] = {}
    for item in values or ():
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise UsageError(
                f"--var takes KEY=VALUE with KEY a name, got {item!r}",
                hint="e.g. --var enable_thinking=false",
            )
        try:
            out[key] = orjson.loads(value)
        except orjson.JSONDecodeError:
            out[key] = value
    return out


def json_list_file(path: str | None, flag: str) -> list[Any] | None:
    """A JSON list read from ``path`` (``{"tools": [...]}`` also accepted for --tools)."""
    if path is None:
        return None
    try:
        with open(path, "rb") as handle:
            data = orjson.loads(handle.read())
    except OSError as exc:
        raise UsageError(f"{flag} {path}: cannot read it ({exc.strerror or exc})") from None
    except orjson.JSONDecodeError as exc:
        raise UsageError(f"{flag} {path}: not valid JSON ({exc})") from None
    key = flag.lstrip("-")
    if isinstance(data, dict) and isinstance(data.get(key), list):
        data = data[key]
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        raise UsageError(f"{flag} {path}: expected a JSON list of objects")
    if key == "tools":
        data = [t if "type" in t else {"type": "function", "function": t} for t in data]
    return data


def template_source(chat_template: str | None, tokenizer: str | None) -> str:
    """The chat template ``chatpipe template`` renders: --chat-template's, else that of the
    model --tokenizer names (a model directory, a cached model id, or the folder of its
    tokenizer.json), as ``chatpipe tokenize`` takes it."""
    if chat_template is not None:
        return chat_template
    if tokenizer is None:
        raise UsageError(
            "template needs --chat-template SOURCE",
            hint="a chat_template.jinja, a tokenizer_config.json, a model directory or a "
            "cached model id; or --tokenizer MODEL, whose own chat template it takes",
        )
    return os.path.dirname(tokenizer) or "." if os.path.isfile(tokenizer) else tokenizer


def chat_template_from_options(
    source: str,
    name: str | None = None,
    *,
    add_generation_prompt: bool = False,
    continue_final_message: bool | str = False,
    variables: list[str] | None = None,
    tools: str | None = None,
    documents: str | None = None,
    tokenizer: str | None = None,
    limits: Any = None,
    default_tokens: dict[str, str] | None = None,
) -> Any:
    """The ``ChatTemplate`` the options describe (``variables`` as typed, ``tools`` and
    ``documents`` as file names)."""
    from .bounds import DEFAULT_LIMITS
    from .prompt import ChatTemplate

    return ChatTemplate(
        source,
        name=name,
        add_generation_prompt=add_generation_prompt,
        continue_final_message=continue_final_message,
        variables=parse_variables(variables),
        tools=json_list_file(tools, "--tools"),
        documents=json_list_file(documents, "--documents"),
        tokenizer=tokenizer,
        limits=limits or DEFAULT_LIMITS,
        default_tokens=default_tokens,
    )


def templated_counter(
    counter: Any,
    source: str | None,
    name: str | None,
    variables: list[str] | None,
    limits: tuple[str, int, float] = DEFAULT_BOUNDS,
    **options: Any,
) -> Any:
    """The counter a command's options name: ``counter`` (a spec, ``options`` for the
    approximate one) counting through the chat template of ``source``, or as it is
    without one. ``template:MODEL`` is a model's chat template and tokenizer at once (a
    model directory or cached id); a Hugging Face tokenizer through a template is set up
    as ``chatpipe tokenize`` sets it up (the config's special tokens added), so that
    counts equal the length of its token ids, and gives the template the special tokens
    of the tokenizer files beside it (the source's own come first)."""
    from ..ops.count import HFCounter, resolve_counter
    from .count import TemplateCounter
    from .hf_tokenizer import load_tokenizer

    if isinstance(counter, str) and counter.startswith("template:"):
        model = counter.split(":", 1)[1]
        if source is not None:
            raise UsageError(
                "--token-counter template:MODEL names the chat template already; "
                "leave --chat-template out"
            )
        template = chat_template_from_options(
            model, name, variables=variables, limits=template_limits(*limits)
        )
        return TemplateCounter(template, load_tokenizer(model))
    counter = resolve_counter(counter, **options)
    if source is None:
        if name is not None or variables:
            raise UsageError("--template-name and --var go with --chat-template")
        if tuple(limits) != DEFAULT_BOUNDS:
            raise UsageError(
                "--template-max-output, --template-max-loops and --template-timeout go with "
                "--chat-template"
            )
        return counter
    from .source import tokenizer_tokens

    beside, encoder = None, counter
    if isinstance(counter, HFCounter):
        beside = tokenizer_tokens(counter.path, required=False)
        encoder = load_tokenizer(counter.name.split(":", 1)[1])
    template = chat_template_from_options(
        source, name, variables=variables, limits=template_limits(*limits), default_tokens=beside
    )
    return TemplateCounter(template, encoder)


def through_template(counter: Any) -> bool:
    """Whether a counter counts a conversation's rendered prompt (``templated_counter``)."""
    from .count import TemplateCounter

    return isinstance(counter, TemplateCounter)


def tokenizer_from_options(
    tokenizer: str | None,
    chat_template: str | None,
    *,
    name: str | None = None,
    variables: list[str] | None = None,
    tools: str | None = None,
    documents: str | None = None,
    max_length: int | None = None,
    pack: int | None = None,
    truncate: str = "right",
    **options: Any,
) -> Any:
    """The ``ChatTokenizer`` of ``chatpipe tokenize``'s options: a model directory or
    cached id given as --chat-template is the tokenizer too; ``--pack N`` bounds the rows
    at N tokens unless --max-length says less (more is refused: such rows fit no pack).
    Its ``max_length`` is the bound in force."""
    from .token_ids import ChatTokenizer

    model = tokenizer
    if model is None and chat_template is not None and not os.path.isfile(chat_template):
        model = chat_template  # a model directory or cached id: its tokenizer too
    if model is None:
        raise UsageError(
            "tokenize needs --tokenizer MODEL",
            hint="a tokenizer.json, a model directory or a cached model id",
        )
    if pack is not None:
        if max_length is None:
            max_length = pack
        elif max_length > pack:
            raise UsageError(
                f"--max-length {max_length} is more than --pack {pack}: such rows fit no pack"
            )
    if truncate != "right" and max_length is None:
        raise UsageError("--truncate goes with --max-length")
    made = ChatTokenizer.load(
        model,
        chat_template,
        name=name,
        variables=parse_variables(variables),
        tools=json_list_file(tools, "--tools"),
        documents=json_list_file(documents, "--documents"),
        max_length=max_length,
        truncate=truncate,
        **options,
    )
    return made
