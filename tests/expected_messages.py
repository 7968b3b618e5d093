"""Every fixture's messages, one line each, as a person checks them against the source file.

``tests/test_expected_messages.py`` compares each fixture's conversion with
``fixtures/expected/<fixture>.txt``. After a change that is meant to alter what a fixture
gives, regenerate with ``python tests/expected_messages.py`` and read the diff: each line
is a message's type, name and id, its content, its tool calls (id, name, arguments) and
the call a tool result answers, so a swapped id or a lost block shows as a changed line.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
EXPECTED = FIXTURES / "expected"


def conversation_fixtures() -> list[Path]:
    """The fixtures that are chat logs (not templates, tokenizers, notes or broken files)."""
    return sorted(
        p
        for p in FIXTURES.iterdir()
        if p.is_file()
        and p.suffix in (".json", ".jsonl", ".yaml", ".yml", ".txt", ".sse", ".md")
        and not p.name.startswith(("malformed", "SOURCES", "DIALECTS"))
    )


def _text(value) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def describe(path: Path) -> str:
    """The fixture's conversations, message by message."""
    from chatpipe.pipeline.reading import read

    out = []
    for n, conversation in enumerate(read([str(path)])):
        where = conversation.location
        out.append(f"# conversation {n} at {where.line if where else '?'}")
        calls: dict[str, str] = {}
        for i, message in enumerate(conversation.messages):
            head = f"{i} {message.type}"
            if getattr(message, "role", None):
                head += f"[{message.role}]"
            if message.name:
                head += f" name={message.name}"
            if message.id:
                head += f" id={message.id}"
            out.append(f"{head}: {_text(message.content)}")
            for call in getattr(message, "tool_calls", []):
                calls[call["id"]] = f"{i}"
                out.append(f"  calls {call['id']} {call['name']}({_text(call['args'])})")
            for bad in getattr(message, "invalid_tool_calls", []):
                out.append(f"  invalid call {bad.get('id')} {bad.get('name')}: {bad.get('args')!r}")
            answered = getattr(message, "tool_call_id", None)
            if answered is not None:
                paired = f"answers message {calls[answered]}" if answered in calls else "UNPAIRED"
                out.append(f"  answers {answered} ({paired})")
    return "\n".join(out) + "\n"


def expected_path(path: Path) -> Path:
    return EXPECTED / f"{path.name}.txt"


def main() -> None:
    EXPECTED.mkdir(exist_ok=True)
    for path in conversation_fixtures():
        expected_path(path).write_text(describe(path), encoding="utf-8")
    print(f"wrote {len(conversation_fixtures())} files in {EXPECTED}", file=sys.stderr)


if __name__ == "__main__":
    main()
