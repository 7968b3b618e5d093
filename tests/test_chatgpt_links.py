"""ChatGPT exports whose nodes carry no parent/children links (issue 39, item 3): one path
in creation time order, and a branch warning only for branches that are there."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from chatpipe.cli import app
from chatpipe.pipeline.reading import read
from conftest import FIXTURES

runner = CliRunner()
LINKED = FIXTURES / "chatgpt_export__pkuppens_2023_conversations_subset.json"
UNLINKED = FIXTURES / "chatgpt_export__derived_pkuppens_nodes_without_links.json"


def run(*args, input=None):
    result = runner.invoke(app, [str(a) for a in args], input=input)
    return result.exit_code, result.stdout, result.stderr


def turns(conversation):
    return [(m.type, m.id, m.content) for m in conversation.messages]


def test_nodes_without_links_are_one_path_and_no_branch_is_said():
    code, _, err = run("convert", "-v", UNLINKED)
    assert code == 0
    assert err == f"chatpipe: read {UNLINKED}: chatgpt-export (json, conversation per record)\n"
    linked, unlinked = list(read([str(LINKED)])), list(read([str(UNLINKED)]))
    assert [len(c.messages) for c in unlinked] == [2, 15, 12, 6]
    for n in (0, 2, 3):  # no branches in these: the same turns as the linked export's
        assert turns(unlinked[n]) == turns(linked[n])
    # the regenerated answer the linked export holds as a second branch: in its time's place
    logo = turns(unlinked[1])
    assert logo[:8] == turns(linked[1])[:8]
    assert logo[8][:2] == ("ai", "50d1ea72-f1b0-4814-ada5-2bf66276ad16")
    assert logo[9:] == turns(linked[1])[8:]


def export(mapping, **fields):
    return json.dumps([{"title": "t", "mapping": mapping, **fields}])


def node(key, role, text, time=None, **links):
    message = {"id": key, "author": {"role": role}, "content": {"parts": [text]}}
    if time is not None:
        message["create_time"] = time
    return {"id": key, "message": message, **links}


def test_creation_time_orders_the_nodes_then_their_order_in_the_mapping():
    mapping = {
        "c": node("c", "assistant", "third", 3.0),
        "a": node("a", "user", "first", 1.0),
        "s": node("s", "system", "no time: before the timed ones"),
        "b1": node("b1", "assistant", "second", 2.0),
        "b2": node("b2", "user", "same time, later in the mapping", 2.0),
    }
    code, out, err = run("buffer", "-", input=export(mapping, current_node=None))
    assert (code, err) == (0, "")
    assert out == (
        "System: no time: before the timed ones\nHuman: first\nAI: second\n"
        "Human: same time, later in the mapping\nAI: third\n"
    )


def test_children_links_alone_give_the_tree():
    mapping = {
        "r": {"id": "r", "message": None, "children": ["u"]},
        "u": {**node("u", "user", "hi", 1.0), "children": ["a1", "a2"]},
        "a1": node("a1", "assistant", "one answer", 2.0),
        "a2": node("a2", "assistant", "a retried answer", 3.0),
    }
    code, out, err = run("buffer", "-v", "-", input=export(mapping))
    assert code == 0
    assert out == "Human: hi\nAI: a retried answer\n"
    assert err.splitlines()[1] == (
        "chatpipe: <stdin>:1:2: wrote the newest branch; 1 other branch left out "
        "(--branch all writes them)"
    )


def test_parent_links_that_loop_everywhere_are_said_in_words():
    mapping = {
        "a": node("a", "user", "hi", 1.0, parent="b"),
        "b": node("b", "assistant", "hello", 2.0, parent="a"),
    }
    code, out, err = run("convert", "-", input=export(mapping))
    assert (code, out) == (1, "")
    assert err == "chatpipe: error: <stdin>:1:2: the parent links loop: no message is a leaf\n"
