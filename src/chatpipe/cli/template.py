"""``chatpipe template``: each conversation as a model's chat template renders it."""

from __future__ import annotations

from typing import Annotated, Any, Optional

import orjson
import typer

from ..errors import UsageError
from ..pipeline import hooks
from ..pipeline.job import Job
from ..pipeline.texts import Texts
from .options import Jobs, Null, ReadingOptions, Separator, reads, unescape
from .runtime import execute, run

HELP = """Render each conversation through a model's chat template: the prompt it really sees.

The same text as Hugging Face transformers' tokenizer.apply_chat_template(messages,
tokenize=False), from the model's own Jinja template, without transformers or torch.
SOURCE is a tokenizer_config.json, a chat_template.jinja or .json, a model directory,
or a model id already in the local Hugging Face cache (never downloaded). Tools and
documents come from each conversation (a fine-tuning row's "tools") or --tools/--documents.

The special tokens the template prints (bos_token, eos_token, ...) come from the model's
tokenizer_config.json or special_tokens_map.json (beside a .jinja file, or in the model's
folder), from --tokenizer, or --var; a variable the template needs and nothing defines is
an error, never an empty string. Each render is bounded (--template-max-output,
--template-max-loops, --template-timeout): a template past one fails on that conversation.

Framing as buffer: one conversation in gives its text; several give one JSON string per
line, or raw with --separator or -0.

Examples:

\b
  chatpipe template --chat-template Qwen/Qwen3-0.6B --var enable_thinking=false session.jsonl
  chatpipe template --chat-template Qwen/Qwen2.5-7B-Instruct train.jsonl
  chatpipe template --chat-template DIR --continue-field reasoning_content chat.jsonl
  chatpipe template --chat-template llama.jinja --tokenizer Llama-3.1-8B/ chat.jsonl
  chatpipe count --chat-template DIR --token-counter hf:DIR/tokenizer.json train.jsonl
"""

ChatTemplateOption = Annotated[
    str,
    typer.Option(
        "--chat-template",
        metavar="SOURCE",
        help="tokenizer_config.json, chat_template.jinja/.json, a model directory, or a "
        "cached model id.",
        show_default=False,
    ),
]
TemplateName = Annotated[
    Optional[str],  # noqa: UP045 - typer reads the annotation at run time
    typer.Option(
        "--template-name",
        metavar="NAME",
        help="Which of a model's named templates (e.g. tool_use, rag); default: default, or "
        "tool_use when there are tools.",
        show_default=False,
    ),
]
AddGenerationPrompt = Annotated[
    bool,
    typer.Option(
        "--add-generation-prompt",
        help="End with the header of a new assistant turn (to prompt a reply).",
    ),
]
ContinueFinalMessage = Annotated[
    bool,
    typer.Option(
        "--continue-final-message",
        help="End inside the final message, for the model to continue it.",
    ),
]
ContinueField = Annotated[
    Optional[str],  # noqa: UP045 - typer reads the annotation at run time
    typer.Option(
        "--continue-field",
        metavar="FIELD",
        help="End inside this field of the final message (e.g. reasoning_content), as "
        "transformers' continue_final_message=FIELD; implies --continue-final-message.",
        show_default=False,
    ),
]
Variables = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option(
        "--var",
        metavar="KEY=VALUE",
        help="An extra template variable (repeatable); VALUE is JSON if it parses "
        "(enable_thinking=false), else text.",
        show_default=False,
    ),
]
ToolsFile = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--tools",
        metavar="FILE",
        help="A JSON list of tool schemas, for conversations that carry none.",
        show_default=False,
    ),
]
DocumentsFile = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--documents",
        metavar="FILE",
        help="A JSON list of documents ({title, text}) for RAG templates.",
        show_default=False,
    ),
]


TokenizerOption = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--tokenizer",
        metavar="PATH",
        help="The model's tokenizer folder (or its tokenizer.json): the special tokens "
        "(bos_token, eos_token, ...) of its tokenizer_config.json or special_tokens_map.json.",
        show_default=False,
    ),
]
TemplateMaxOutput = Annotated[
    str,
    typer.Option(
        "--template-max-output",
        metavar="SIZE",
        help="The most text one render may write, and the largest value it may build "
        "(K, M, G); it may take 16 times this in memory.",
    ),
]
TemplateMaxLoops = Annotated[
    int,
    typer.Option(
        "--template-max-loops",
        metavar="N",
        min=1,
        max=1_000_000_000,
        help="The most loop iterations of one render (all its loops together).",
    ),
]
TemplateTimeout = Annotated[
    float,
    typer.Option(
        "--template-timeout",
        metavar="SECONDS",
        min=0.001,
        max=86_400,
        help="The longest one render may run.",
    ),
]
DEFAULT_MAX_OUTPUT = "64M"


def template_limits(max_output: str, max_loops: int, timeout: float) -> Any:
    """The bounds of each render the options give."""
    from ..templates.bounds import TemplateLimits, parse_size

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
):
    """The ``ChatTemplate`` the command-line options describe."""
    from ..templates import ChatTemplate
    from ..templates.bounds import DEFAULT_LIMITS

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


@reads()
def template(
    reading: ReadingOptions,
    chat_template: ChatTemplateOption = ...,
    template_name: TemplateName = None,
    add_generation_prompt: AddGenerationPrompt = False,
    continue_final_message: ContinueFinalMessage = False,
    continue_field: ContinueField = None,
    var: Variables = None,
    tools: ToolsFile = None,
    documents: DocumentsFile = None,
    tokenizer: TokenizerOption = None,
    template_max_output: TemplateMaxOutput = DEFAULT_MAX_OUTPUT,
    template_max_loops: TemplateMaxLoops = 1_000_000,
    template_timeout: TemplateTimeout = 10.0,
    separator: Separator = None,
    null: Null = False,
    jobs: Jobs = 1,
) -> None:
    def body() -> None:
        prompt = chat_template_from_options(
            chat_template,
            template_name,
            add_generation_prompt=add_generation_prompt,
            continue_final_message=continue_field or continue_final_message,
            variables=var,
            tools=tools,
            documents=documents,
            tokenizer=tokenizer,
            limits=template_limits(template_max_output, template_max_loops, template_timeout),
        )
        between = unescape(separator) if separator is not None else None

        def text(conversation):
            return (prompt.render(conversation.messages, conversation.meta, conversation.location),)

        target = Texts(text, between, null, row_reader=hooks.template_rows())
        execute(reading, Job(reading.inputs(), None, target), jobs)

    run(body, reading.quiet)


template.__doc__ = HELP


CountThroughTemplate = Annotated[
    Optional[str],  # noqa: UP045 - typer reads the annotation at run time
    typer.Option(
        "--chat-template",
        metavar="SOURCE",
        help="Count the prompt as this model's chat template renders it (with --token-counter "
        "hf:... or tiktoken:...): template overhead included.",
        show_default=False,
    ),
]


def templated_counter(
    counter,
    source: str | None,
    name: str | None,
    variables: list[str] | None,
    limits: tuple[str, int, float] = (DEFAULT_MAX_OUTPUT, 1_000_000, 10.0),
    **options,
):
    """The counter a command's options name: ``counter`` (a spec, ``options`` for the
    approximate one) counting through the chat template of ``source``, or as it is
    without one. ``template:MODEL`` is a model's chat template and tokenizer at once (a
    model directory or cached id); a Hugging Face tokenizer through a template is set up
    as ``chatpipe tokenize`` sets it up (the config's special tokens added), so that
    counts equal the length of its token ids, and gives the template the special tokens
    of the tokenizer files beside it (the source's own come first)."""
    from ..ops.count import HFCounter, resolve_counter
    from ..templates.count import TemplateCounter
    from ..templates.tokenizer import load_tokenizer

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
        if tuple(limits) != (DEFAULT_MAX_OUTPUT, 1_000_000, 10.0):
            raise UsageError(
                "--template-max-output, --template-max-loops and --template-timeout go with "
                "--chat-template"
            )
        return counter
    from ..templates.source import tokenizer_tokens

    beside, encoder = None, counter
    if isinstance(counter, HFCounter):
        beside = tokenizer_tokens(counter.path, required=False)
        encoder = load_tokenizer(counter.name.split(":", 1)[1])
    template = chat_template_from_options(
        source, name, variables=variables, limits=template_limits(*limits), default_tokens=beside
    )
    return TemplateCounter(template, encoder)


def through_template(counter) -> bool:
    """Whether a counter counts a conversation's rendered prompt (``templated_counter``)."""
    from ..templates.count import TemplateCounter

    return isinstance(counter, TemplateCounter)
