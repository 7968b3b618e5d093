"""``--to open-webui`` writes what Open WebUI's own import takes (#49).

What the import requires, read in open-webui/open-webui:

- ``src/lib/components/chat/Settings/DataControls.svelte`` (commit
  002cd27bffeb6a9238457a65d991b2ba591cdbcb), ``importChatsHandler``: the file is parsed with
  ``JSON.parse`` and its value mapped with ``.map``, so it is one JSON array; an element
  with a ``chat`` key gives ``{chat, meta ?? {}, pinned: false, folder_id ?? null,
  created_at ?? null, updated_at ?? null}``, any other element is taken for a bare chat.
- ``src/lib/utils/index.ts`` (commit 5ffcc7c4c59f6d3d144a141421d151d8069591ad),
  ``getImportOrigin``: a first element with a ``mapping`` key is taken for a ChatGPT export
  and converted (the rest of the file with it); ``validateChat`` there (what a converted
  chat must pass): messages whose ``content`` is a string, a first message whose
  ``parentId`` is null, a last one with no ``childrenIds``.
- ``backend/open_webui/models/chats.py`` (commit 415114504fdf4c3f05d397b927f53273f4affba2),
  ``ChatImportForm``: ``chat: dict`` (required), ``meta: Optional[dict]``, ``pinned:
  Optional[bool]``, ``folder_id: Optional[str]``; newer versions add ``created_at`` and
  ``updated_at: Optional[int]``, the router taking ``{chats: list[ChatImportForm]}``;
  ``import_chat`` takes the title from ``chat["title"]`` and the messages from
  ``chat["history"]["messages"]``; the app shows a chat by walking ``parentId`` from
  ``history.currentId`` (``createMessagesList``) and lists a message's alternatives by its
  parent's ``childrenIds``.

``ImportForm`` below states that form's fields (pydantic, as the backend validates them);
``check_import`` checks the rest.
"""

from __future__ import annotations

import json
from typing import Optional

from pydantic import BaseModel, ConfigDict
from typer.testing import CliRunner

from chatpipe.cli import app
from conftest import FIXTURES

runner = CliRunner()


class ImportForm(BaseModel):
    """Open WebUI's ChatImportForm's fields, as its backend validates an imported chat."""

    model_config = ConfigDict(strict=True)

    chat: dict
    meta: Optional[dict] = {}  # noqa: UP045 (the form's own spelling)
    pinned: Optional[bool] = False  # noqa: UP045
    folder_id: Optional[str] = None  # noqa: UP045
    created_at: Optional[int] = None  # noqa: UP045
    updated_at: Optional[int] = None  # noqa: UP045


def write(*args):
    result = runner.invoke(app, ["convert", "--to", "open-webui", *map(str, args)])
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout), result.stderr


def check_import(entries):
    """Every requirement of the import on a written file's entries."""
    assert isinstance(entries, list)
    assert not entries or "mapping" not in entries[0]
    for entry in entries:
        ImportForm.model_validate(entry)
        chat = entry["chat"]
        assert isinstance(chat["title"], str) and chat["title"]
        assert isinstance(chat["models"], list)
        history = chat["history"]
        nodes = history["messages"]
        assert isinstance(nodes, dict) and history["currentId"] in nodes
        for key, node in nodes.items():
            assert node["id"] == key
            assert node["role"] in ("user", "assistant", "system")
            assert isinstance(node["content"], str)
            assert node["parentId"] is None or key in nodes[node["parentId"]]["childrenIds"]
            assert all(nodes[child]["parentId"] == key for child in node["childrenIds"])
            assert isinstance(node.get("timestamp", 0), int)
        path, at = [], history["currentId"]
        while at is not None:
            path.append(nodes[at])
            at = nodes[at]["parentId"]
        assert chat["messages"] == path[::-1]  # (the linear copy: the live branch)
        assert path[-1]["parentId"] is None and not path[0]["childrenIds"]


def leaves(nodes):
    return [k for k, n in nodes.items() if not n["childrenIds"]]


def test_a_chatgpt_export_moves_in_with_every_branch():
    name = "chatgpt_export__mitkury_handmade_user_edit_branch.json"
    [export] = json.loads((FIXTURES / name).read_text())
    entries, _ = write("--branch", "all", FIXTURES / name)
    check_import(entries)
    [entry] = entries
    nodes = entry["chat"]["history"]["messages"]
    mapping = export["mapping"]
    source_leaves = [k for k, n in mapping.items() if not n["children"]]
    assert sorted(leaves(nodes)) == sorted(source_leaves)
    for leaf in source_leaves:  # each branch's texts, as the export's own path holds them
        texts, at = [], leaf
        while at is not None:
            message = mapping[at]["message"]
            if (
                message
                and message["content"].get("parts")
                and message["author"]["role"] != "system"
            ):
                texts.append("".join(message["content"]["parts"]))
            at = mapping[at]["parent"]
        written, at = [], leaf
        while at is not None:
            written.append(nodes[at]["content"])
            at = nodes[at]["parentId"]
        assert written == texts
    assert entry["chat"]["history"]["currentId"] == export["current_node"]
    assert entry["chat"]["title"] == export["title"]
    assert entry["created_at"] == int(export["create_time"])


def test_a_claude_export_moves_in_with_its_thinking():
    name = "claude_export__yaleman_2025_thinking.json"
    exported = json.loads((FIXTURES / name).read_text())
    entries, _ = write(FIXTURES / name)
    check_import(entries)
    assert [e["chat"]["title"] for e in entries] == [c["name"] or "New Chat" for c in exported]
    thoughts = [
        b["thinking"]
        for c in exported
        for m in c["chat_messages"]
        for b in m["content"]
        if b.get("type") == "thinking"
    ]
    written = "".join(
        n["content"] for e in entries for n in e["chat"]["history"]["messages"].values()
    )
    assert thoughts and written.count('<details type="reasoning"') == len(thoughts)


DOCUMENTED = "open_webui__documented_export_regenerations_tool_calls_files.json"


def test_open_webui_chats_come_back_as_they_were_read(tmp_path):
    """Written and read again: the same turns, reasoning, calls and results, branches."""
    from chatpipe.formats.exports import ReadOptions
    from chatpipe.model.canonical import message_to_canonical
    from chatpipe.pipeline.reading import read

    def plain(conversations):
        return [
            [(m.type, m.text, m.tool_calls if m.type == "ai" else None) for m in c.messages]
            for c in conversations
        ]

    entries, _ = write("--branch", "all", FIXTURES / DOCUMENTED)
    check_import(entries)
    rows = json.loads((FIXTURES / DOCUMENTED).read_text())
    assert [len(e["chat"]["history"]["messages"]) for e in entries] == [
        len(r["chat"]["history"]["messages"]) for r in rows
    ]
    assert [e["chat"]["history"]["currentId"] for e in entries] == [
        r["chat"]["history"]["currentId"] for r in rows
    ]
    again = tmp_path / "import.json"
    again.write_text(json.dumps(entries))
    options = ReadOptions(branch="all")
    before = list(read([str(FIXTURES / DOCUMENTED)], options=options))
    after = list(read([str(again)], options=options))
    assert plain(after) == plain(before)
    reasoning = [
        [
            b
            for m in c.messages
            for b in message_to_canonical(m)["content"]
            if isinstance(b, dict) and b.get("type") == "reasoning"
        ]
        for c in (before, after)
        for c in c
    ]
    assert [[b["reasoning"] for b in r] for r in reasoning[: len(before)]] == [
        [b["reasoning"] for b in r] for r in reasoning[len(before) :]
    ]


def test_what_open_webui_cannot_hold_is_said():
    name = "anthropic_messages__pydanticai_req_document_base64_pdf.json"
    entries, err = write(FIXTURES / name)
    check_import(entries)
    assert "warning: open-webui cannot hold" in err


def test_two_messages_with_one_id_are_two_messages(tmp_path):
    """A log whose messages repeat an id: each is its own node, none dropped."""
    path = tmp_path / "log.json"
    path.write_text(
        json.dumps(
            {
                "messages": [
                    {"role": "user", "content": "first", "id": "m1"},
                    {"role": "assistant", "content": "second", "id": "m1"},
                ]
            }
        )
    )
    entries, _ = write(path)
    check_import(entries)
    nodes = entries[0]["chat"]["history"]["messages"]
    assert sorted(n["content"] for n in nodes.values()) == ["first", "second"]
