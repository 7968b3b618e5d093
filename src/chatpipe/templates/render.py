"""Running a chat template as transformers' ``apply_chat_template(..., tokenize=False)`` does:
the messages given as plain JSON data, the special tokens and extra variables beside them,
``continue_final_message`` cut where the final message ends, a template's failure one
error. The environment it runs in is environment.py's.
"""

from __future__ import annotations

from typing import Any

from ..errors import DataError, UsageError
from .bounds import DEFAULT_LIMITS, Budget, LimitBroken, TemplateLimits
from .jinja import load_jinja, refusal_class
from .undefined import missing_variable_class

REASONING_FIELDS = ("reasoning_content", "thinking", "reasoning")
_CONTINUE_TAG = "CONTINUE_FINAL_MESSAGE_TAG "
# what render gives every template itself (a --var of one of these names is refused, as
# transformers' apply_chat_template refuses a keyword given twice)
_OWN_VARIABLES = frozenset(("messages", "tools", "documents", "add_generation_prompt"))


class TemplateRaised(DataError):
    """The template refused the conversation (its ``raise_exception``, or a failed render)."""


class VariableMissing(UsageError):
    """The template used a variable that nothing defines (``name``) as a value."""

    def __init__(self, name: str) -> None:
        super().__init__(f"the chat template uses {name}, which nothing defines")
        self.name = name


def plain_data(value: Any) -> Any:
    """``value`` as plain JSON types, as the template may see it (anything else: ``<type>``)."""
    kind = type(value)
    if value is None or kind in (str, int, float, bool):
        return value
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        return float.__float__(value)
    if isinstance(value, dict):
        return {plain_data(k): plain_data(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain_data(v) for v in value]
    if isinstance(value, tuple):
        return tuple(plain_data(v) for v in value)
    return f"<{kind.__name__}>"


def with_reasoning_aliases(messages: list[dict]) -> list[dict]:
    """Reasoning under every name templates read it by (``reasoning_content``, ``thinking``)."""
    out = []
    for message in messages:
        if (
            "reasoning_content" not in message
            and "thinking" not in message
            and ("reasoning" not in message)
        ):  # most messages
            out.append(message)
            continue
        reasoning = next(
            (message[k] for k in REASONING_FIELDS if message.get(k) is not None),
            None,
        )
        if reasoning is not None:
            message = {"thinking": reasoning, **message, "reasoning_content": reasoning}
        out.append(message)
    return out


def check_variables(variables: dict[str, Any]) -> None:
    """Refuses extra variables that name one render gives the template itself."""
    for name in sorted(_OWN_VARIABLES.intersection(variables)):
        raise UsageError(
            f"--var {name}: the template's {name} is chatpipe's to set",
            hint="--add-generation-prompt, --tools and --documents set theirs",
        )


def render(
    template,
    messages: list[dict],
    *,
    tools: list | None = None,
    documents: list | None = None,
    add_generation_prompt: bool = False,
    continue_final_message: bool | str = False,
    template_text: str = "",
    variables: dict[str, Any] | None = None,
    plain: bool = False,
    limits: TemplateLimits = DEFAULT_LIMITS,
) -> str:
    """One conversation's prompt text, as ``apply_chat_template(..., tokenize=False)``.

    ``messages`` are chat dicts (``chat_messages``); ``variables``: the special tokens and
    any extra template variables (these win over the special tokens, as in transformers).
    ``plain``: the messages are fresh plain dicts without None values (``chat_messages``
    makes them so), which need no copy. ``limits``: what the render may write, loop and
    take in time (bounds.py).
    Raises ``TemplateRaised`` with the template's own message when it refuses or passes a
    limit, ``VariableMissing`` when it uses a variable nothing defines.
    """
    load_jinja()  # (a missing or unsafe Jinja said before anything else)
    if continue_final_message and add_generation_prompt:
        raise UsageError(
            "--continue-final-message and --add-generation-prompt contradict each other: "
            "the first continues the last message, the second starts a new one"
        )
    if not messages:
        raise TemplateRaised("this conversation has no messages for the chat template to render")
    if not plain:  # messages from elsewhere: rebuilt as plain data, without None values
        messages = [{k: v for k, v in m.items() if v is not None} for m in plain_data(messages)]
    chat = with_reasoning_aliases(messages)
    final_text = None
    if continue_final_message:
        final_text = _tag_final(chat, continue_final_message, template_text)
    context = render_context(chat, variables, tools, documents, add_generation_prompt)
    text = run_template(template, context, limits=limits)
    if final_text is not None:
        text = _cut_at_tag(text, final_text)
    return text


def render_context(
    chat: list[dict],
    variables: dict[str, Any] | None,
    tools: list | None,
    documents: list | None,
    add_generation_prompt: bool,
) -> dict[str, Any]:
    """What a template sees: the special tokens and variables, the messages (chat dicts
    as ``render`` prepares them), tools, documents and the generation flag."""
    if variables and not _OWN_VARIABLES.isdisjoint(variables):
        check_variables(variables)
    context = plain_data(variables) if variables else {}
    context["messages"] = chat
    context["tools"] = plain_data(tools)
    context["documents"] = plain_data(documents)
    context["add_generation_prompt"] = add_generation_prompt
    return context


def run_template(
    template, context: dict[str, Any], pieces: Any = None, limits: Any = DEFAULT_LIMITS
) -> str:
    """The template's text for ``context``, within ``limits``; a failure is one
    ``TemplateRaised``. ``pieces`` (a function of the generator of output pieces) takes
    the render over, for a caller that follows the output as it is made
    (templates/tracking.py)."""
    jinja2 = load_jinja()
    try:
        # Template.render, without its copy of the variables and its traceback rewriting
        # (a failure here becomes one line, below), and with its output measured
        return _bounded_render(template, context, Budget(limits), pieces)
    except LimitBroken as exc:
        raise TemplateRaised(str(exc)) from None
    except missing_variable_class() as exc:
        raise VariableMissing(exc.name) from None
    except RecursionError:
        raise TemplateRaised(
            "the chat template called itself too deeply (a macro or a recursive loop "
            "that does not end)"
        ) from None
    except MemoryError:
        raise TemplateRaised(
            "the chat template ran out of memory (see --template-max-output)"
        ) from None
    except OverflowError as exc:
        said = str(exc)
        if "MAX_RANGE" in said:
            said = "a range of more than 100,000 numbers"
        raise TemplateRaised(f"the chat template failed on this conversation: {said}") from None
    except AssertionError as exc:  # Jinja's own checks of filter arguments (truncate's)
        raise TemplateRaised(f"the chat template failed on this conversation: {exc}") from None
    except jinja2.exceptions.SecurityError as exc:
        raise TemplateRaised(
            f"the chat template tried something the sandbox forbids: {exc}"
        ) from None
    except refusal_class() as exc:
        raise TemplateRaised(f"the chat template refused this conversation: {exc}") from None
    except jinja2.exceptions.TemplateError as exc:
        raise TemplateRaised(f"the chat template failed on this conversation: {exc}") from None
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, ZeroDivisionError) as exc:
        raise TemplateRaised(
            f"the chat template failed on this conversation: {exc} "
            "(a value of a type the template does not expect)"
        ) from None


def _bounded_render(template: Any, context: dict, budget: Budget, follow: Any = None) -> str:
    """The template's text for ``context``, stopped once it passes the budget's limits;
    ``follow`` takes the generator of pieces over (``run_template``'s ``pieces``)."""
    previous = budget.open()
    try:
        made = template.root_render_func(template.new_context(context))
        if follow is not None:
            text = follow(made)
            budget.check_output(len(text))
            return text
        # the pieces are held as references (a piece printed a million times is one
        # string), so they are measured before they are joined
        pieces = list(made)
    finally:
        budget.close(previous)
    budget.check_output(sum(map(len, pieces)))
    return "".join(pieces)


def _tag_final(chat: list[dict], field: bool | str, template_text: str) -> str:
    """Marks the final message's text so the prompt can be cut just after it."""
    field = field if isinstance(field, str) else "content"
    last = chat[-1] = dict(chat[-1])  # a copy: the tag must not reach the caller's message
    final = last.get(field)
    if final is None:
        raise TemplateRaised(
            f'--continue-final-message: the final message has no "{field}" to continue'
        )
    fields = [field]
    if field in REASONING_FIELDS:
        fields = [f for f in REASONING_FIELDS if last.get(f) == final]
    if not any(f in template_text for f in fields):
        raise TemplateRaised(
            f'--continue-final-message: the chat template never reads the "{field}" field'
        )
    if isinstance(final, (list, tuple)):
        final = last[field] = [dict(block) for block in final]
        for block in reversed(final):
            if "text" in block:
                final = block["text"]
                block["text"] = block["text"] + _CONTINUE_TAG
                return final
        raise TemplateRaised("--continue-final-message: the final message has no text to continue")
    for f in fields:
        last[f] = last[f] + _CONTINUE_TAG
    return final


def _cut_at_tag(text: str, final: str) -> str:
    if final.strip() not in text or _CONTINUE_TAG.strip() not in text:
        raise TemplateRaised(
            "--continue-final-message: the chat template drops part of the final message, "
            "so the prompt cannot end inside it"
        )
    at = text.rindex(_CONTINUE_TAG.strip())
    if text[at : at + len(_CONTINUE_TAG)] == _CONTINUE_TAG:
        return text[:at]
    return text[:at].rstrip()
