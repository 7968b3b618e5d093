"""Trimming one conversation as the trim command asks: the algorithm for its options
(through a chat template, the newest messages of a stream, or the oldest), then tool
pairs kept whole. Commands state what they want; this decides how."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..model import AnyMessage, Conversation
from ..ops.operation import KeepsNothing
from ..ops.trim import default_text_splitter, trim_messages
from ..ops.trim_stream import answered_after, keep_tool_pairs, trim_last_stream
from . import fast_hooks


class Trim(KeepsNothing):
    """A trim of conversations: the options of ``trim_messages``, and ``keep_tool_pairs``;
    called on a conversation, the messages it keeps (``on_messages(Trim(...))`` is the
    trim command's operation). It keeps nothing from one conversation to the next.

    ``counter`` is a TokenCounter, or a chat template's counter (``templated``), which
    trims the newest messages whose rendered prompt fits. Options that do not go together
    are a UsageError naming them. ``dropped(message, why)`` hears
    of each message ``keep_tool_pairs`` removes.

    ``plain_rows``: it takes rows read into plain dicts by the row lane (fast/rows.py),
    their messages made where it looks at them.
    """

    plain_rows = True

    def __init__(
        self,
        max_tokens: int,
        counter: Any,
        *,
        strategy: str = "last",
        allow_partial: bool = False,
        include_system: bool = False,
        start_on: Any = None,
        end_on: Any = None,
        tool_pairs: bool = False,
        templated: bool = False,
        dropped: Callable[[AnyMessage, str], None] | None = None,
    ) -> None:
        from ..errors import UsageError
        from ..ops.facts import user_types
        from ..templates.options import through_template

        if strategy not in ("last", "first"):
            raise UsageError(f"--strategy must be last or first, got {strategy!r}")
        if strategy == "first" and (start_on or include_system):
            raise UsageError("--start-on and --include-system go with --strategy last")
        if isinstance(start_on, list):  # names typed on a command line: checked
            start_on = user_types(start_on, "--start-on")
        if isinstance(end_on, list):
            end_on = user_types(end_on, "--end-on")
        templated = templated or through_template(counter)
        if templated and (strategy != "last" or allow_partial or end_on):
            raise UsageError(
                "--chat-template trims with --strategy last, whole messages, no --end-on",
                hint="it keeps the newest messages whose rendered prompt fits --max-tokens",
            )
        self.max_tokens = max_tokens
        self.counter = counter
        self.strategy = strategy
        self.allow_partial = allow_partial
        self.include_system = include_system
        self.start_on = start_on
        self.end_on = end_on
        self.tool_pairs = tool_pairs
        self.templated = templated
        self.dropped = dropped

    def __call__(self, conversation: Conversation) -> Any:
        if self._whole():  # a row within the budget, counted from its plain dicts: as it is
            whole = fast_hooks.row_within(conversation, self.counter, self.max_tokens)
            if whole is not None:
                return whole
        if self.templated:
            kept, after = self._through_template(conversation)
        elif self.strategy == "last":
            kept, after = self._last(conversation)
        else:
            every = list(conversation.messages)
            kept = trim_messages(
                every,
                max_tokens=self.max_tokens,
                token_counter=self.counter,
                strategy="first",
                allow_partial=self.allow_partial,
                end_on=self.end_on,
            )
            after = answered_after(every, kept)
        if self.tool_pairs:
            kept, dropped = keep_tool_pairs(kept, after, start_on=self.start_on, end_on=self.end_on)
            if self.dropped is not None:
                for message, why in dropped:
                    self.dropped(message, why)
        return kept

    def _whole(self) -> bool:
        """Whether a conversation within the budget is kept whole, as it is: the newest
        messages kept with nothing to start or end on and no pairs to mend."""
        return (
            self.strategy == "last"
            and not self.templated
            and not self.start_on
            and not self.end_on
            and not self.tool_pairs
        )

    def _through_template(self, conversation: Conversation) -> tuple[list[AnyMessage], Any]:
        from ..templates.count import trim_to_fit

        every = list(conversation.messages)
        kept = trim_to_fit(
            every,
            self.counter.for_conversation(conversation.meta),
            self.max_tokens,
            include_system=self.include_system,
            start_on=self.start_on,
            location=conversation.location,
        )
        return kept, answered_after(every, kept)

    def _last(self, conversation: Conversation) -> tuple[list[AnyMessage], Any]:
        messages = conversation.messages
        if not self.end_on and not self.include_system:
            suffix = fast_hooks.budget_suffix(conversation, self.counter, self.max_tokens)
            if suffix is not None:
                messages = suffix
        return trim_last_stream(
            messages,
            max_tokens=self.max_tokens,
            counter=self.counter,
            allow_partial=self.allow_partial,
            include_system=self.include_system,
            start_on=self.start_on,
            end_on=self.end_on,
            text_splitter=default_text_splitter,
        )
