"""ms-swift's query-response rows (its custom datasets before it took ``messages``):
``{system?, query, response, history?: [[user, assistant], ...]}``, and preference rows
with ``rejected_response`` beside the ``response``.

They read as alpaca rows do, ``query`` the last user turn and ``response`` its answer,
after the ``history``; they are written back the same way (alpaca.py's walk of a
conversation, under ms-swift's names).
"""

from __future__ import annotations

from typing import Any

from ..errors import Location, ValidationError
from ..model import AnyMessage
from .alpaca import AlpacaDialect, AlpacaTurns
from .base import Conversation
from .record_errors import keys_hint

# ms-swift's names for alpaca's fields
_NAMES = {"query": "instruction", "response": "output", "rejected_response": "rejected"}
_BACK = {"instruction": "query", "output": "response", "rejected": "rejected_response"}


def is_swift_row(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("query"), str)
        and "response" in value
        and not any(k in value for k in ("messages", "conversations", "instruction"))
    )


class MsSwiftDialect(AlpacaDialect):
    name = "ms-swift"
    description = "ms-swift rows {system, query, response, history}, preferences"
    example = "ms_swift__ms-swift_query_response_history.jsonl"

    def is_conversation(self, value: Any) -> bool:
        return is_swift_row(value)

    def read_message(self, value: Any) -> AnyMessage:
        raise ValidationError('an ms-swift row needs "query" and "response"', hint=keys_hint(value))

    def read_conversation(self, value: Any, location: Location) -> Conversation:
        if not is_swift_row(value):
            raise ValidationError('an ms-swift row needs "query" and "response"').located(location)
        for field in ("response", "rejected_response", "system"):
            if value.get(field) is not None and not isinstance(value[field], str):
                raise ValidationError(f'"{field}" must be text').located(location)
        renamed = {_NAMES.get(k, k): v for k, v in value.items()}
        if "chosen" not in renamed and isinstance(renamed.get("rejected"), str):
            renamed["chosen"] = renamed.pop("output")
        conversation = super().read_conversation(renamed, location)
        meta = {_BACK.get(k, k): v for k, v in conversation.meta.items()}
        return Conversation(conversation.messages, meta, location, "query")

    def write_conversation(self, conversation: Conversation) -> dict[str, Any]:
        turns = AlpacaTurns()
        for message in conversation.messages:
            turns.step(message)
        meta = {_NAMES.get(k, k): v for k, v in conversation.meta.items()}
        row = turns.row(meta)
        if row.get("input") == "":
            del row["input"]
        if "chosen" in row:
            row["output"] = row.pop("chosen")
        return {_BACK.get(k, k): v for k, v in row.items()}
