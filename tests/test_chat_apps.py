"""Chat apps' exports read with nothing lost (#49): Open WebUI, LibreChat, Grok, Google AI
Studio, SillyTavern, aider's Markdown history, and the ChatGPT content types that were
lost. Each test takes what it expects from the file itself, by its own walk of the
file's records, never from chatpipe's earlier output."""

from __future__ import annotations

import html
import json
import re

from typer.testing import CliRunner

from chatpipe.cli import app
from chatpipe.formats.exports import ReadOptions
from chatpipe.pipeline.reading import read
from conftest import FIXTURES

runner = CliRunner()


def run(*args, input=None):
    result = runner.invoke(app, [str(a) for a in args], input=input)
    return result.exit_code, result.stdout, result.stderr


def conversations(name, branch="active"):
    return list(read([str(FIXTURES / name)], options=ReadOptions(branch=branch)))


def text_of(message):
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content if b.get("type") == "text")


def blocks(message, kind):
    content = message.content
    return (
        [b for b in content if isinstance(b, dict) and b.get("type") == kind]
        if isinstance(content, list)
        else []
    )


# -- Open WebUI -------------------------------------------------------------------------


def live_path(history):
    """The messages from the root to ``currentId``, by ``parentId``."""
    path, at = [], history["currentId"]
    while at is not None:
        path.append(history["messages"][at])
        at = history["messages"][at]["parentId"]
    return path[::-1]


def test_an_open_webui_chat_object_is_its_live_branch():
    chat = json.loads((FIXTURES / "open_webui__owimporter_chat_object.json").read_text())
    [conversation] = conversations("open_webui__owimporter_chat_object.json")
    assert [text_of(m) for m in conversation.messages] == [
        m["content"] for m in live_path(chat["history"])
    ]
    assert conversation.meta["title"] == chat["title"]
    assert conversation.meta["created_at"] == chat["timestamp"] / 1000  # (ms in the chat)
    assert conversation.messages[1].usage_metadata["total_tokens"] == 336


def test_open_webui_output_items_are_read_before_the_content():
    rows = json.loads(
        (FIXTURES / "open_webui__librechat-tests_reasoning_tool_output_items.json").read_text()
    )
    found = conversations("open_webui__librechat-tests_reasoning_tool_output_items.json")
    assert [c.meta["title"] for c in found] == [r["title"] for r in rows]
    items = rows[0]["chat"]["history"]["messages"]["ra2"]["output"]
    answer = found[0].messages[1]
    assert blocks(answer, "reasoning")[0]["reasoning"] == items[0]["content"][0]["text"]
    assert text_of(answer) == items[1]["content"][0]["text"]
    # a tool round in one Open WebUI message: the call, its output, the answer after it
    call, output, final = rows[1]["chat"]["history"]["messages"]["ta2"]["output"]
    ai, tool, after = found[1].messages[1:]
    assert ai.tool_calls[0]["name"] == call["name"]
    assert ai.tool_calls[0]["args"] == json.loads(call["arguments"])
    assert (tool.tool_call_id, tool.content) == (call["call_id"], output["output"][0]["text"])
    assert text_of(after) == final["content"][0]["text"]


DOCUMENTED = "open_webui__documented_export_regenerations_tool_calls_files.json"


def test_open_webui_details_blocks_are_reasoning_calls_and_results():
    rows = json.loads((FIXTURES / DOCUMENTED).read_text())
    nodes = rows[0]["chat"]["history"]["messages"]
    content = nodes["a2"]["content"]
    # the file's own parts, by plain string cuts: the quoted thought, the tag's attributes
    thought = content.split("</summary>\n")[1].split("\n</details>")[0]
    thought = "\n".join(line[2:] for line in html.unescape(thought).split("\n"))
    tag = content[content.index('<details type="tool_calls"') :].split(">")[0]
    attributes = {k: html.unescape(v) for k, v in re.findall(r'(\w+)="([^"]*)"', tag)}
    answer = content.rsplit("</details>\n", 1)[1]

    [first] = conversations(DOCUMENTED)[:1]
    system, user, ai, tool, after, *_ = first.messages
    assert system.content == rows[0]["chat"]["params"]["system"]
    assert blocks(user, "image")[0]["url"] == nodes["u1"]["files"][0]["url"]
    assert blocks(ai, "reasoning")[0]["reasoning"] == thought
    assert ai.tool_calls[0]["id"] == attributes["id"]
    assert ai.tool_calls[0]["args"] == json.loads(attributes["arguments"])
    assert tool.content == json.loads(attributes["result"])
    assert text_of(after) == answer


def test_open_webui_regenerations_are_branches_the_live_one_first_said():
    rows = json.loads((FIXTURES / DOCUMENTED).read_text())
    history = rows[0]["chat"]["history"]
    leaves = [k for k, m in history["messages"].items() if not m["childrenIds"]]
    branches = conversations(DOCUMENTED, "all")[:2]
    assert [c.meta["branch"]["leaf"] for c in branches] == leaves
    assert [c.meta["branch"].get("live", False) for c in branches] == [
        leaf == history["currentId"] for leaf in leaves
    ]
    code, _, err = run("convert", FIXTURES / DOCUMENTED)
    assert code == 0
    assert err == (
        "chatpipe: warning: branches besides the live one (regenerations, edits) left out "
        "(--branch all writes them): 1 conversation (-v lists them)\n"
    )


def test_an_older_open_webui_call_keeps_its_result_from_the_body_and_one_still_running():
    rows = json.loads((FIXTURES / DOCUMENTED).read_text())
    content = rows[1]["chat"]["history"]["messages"]["b2"]["content"]
    body = content.split("<summary>Tool Executed</summary>\n")[1].split("\n</details>")[0]
    [second] = conversations(DOCUMENTED)[1:]
    user, _ai, tool, after = second.messages
    assert (
        blocks(user, "file")[0]["url"]
        == rows[1]["chat"]["history"]["messages"]["b1"]["files"][0]["url"]
    )
    assert tool.content == json.loads(html.unescape(body))
    assert [c["id"] for c in after.tool_calls] == ["call_s2"]  # (done="false": no result)


# -- LibreChat ----------------------------------------------------------------------------


def flat(messages):
    for message in messages:
        yield message
        yield from flat(message.get("children") or [])


def test_a_recursive_librechat_export_reads_its_newest_branch_and_the_prompt_prefix():
    name = "librechat__librechat-tests_recursive_branches_promptPrefix.json"
    export = json.loads((FIXTURES / name).read_text())
    every = list(flat(export["messages"]))
    children = {m["parentMessageId"] for m in every}
    leaves = [m for m in every if m["messageId"] not in children]
    by_id = {m["messageId"]: m for m in every}
    path, at = [], leaves[-1]  # (no times on them: the last written is the newest)
    while at is not None:
        path.append(at)
        at = by_id.get(at["parentMessageId"])
    [conversation] = conversations(name)
    assert [text_of(m) for m in conversation.messages] == [
        export["options"]["promptPrefix"],
        *(m["text"] for m in reversed(path)),
    ]
    assert [m.type for m in conversation.messages[1:]] == [
        "human" if m["isCreatedByUser"] else "ai" for m in reversed(path)
    ]
    assert len(conversations(name, "all")) == len(leaves)


def test_a_flat_librechat_export_with_two_roots_gives_the_newest_leaf():
    name = "librechat__librechat-tests_nonrecursive_branches.json"
    export = json.loads((FIXTURES / name).read_text())
    newest = max(export["messages"], key=lambda m: m["createdAt"])
    [conversation] = conversations(name)
    assert conversation.messages[-1].id == newest["messageId"]
    assert conversation.meta["created_at"] == min(m["createdAt"] for m in export["messages"])
    _, _, err = run("convert", FIXTURES / name)
    assert "names no current leaf: wrote its newest branch, 2 other branches left out" in err


def librechat_export(tmp_path, messages, **fields):
    """A handmade LibreChat export (the chat's Export, flat) of ``messages``, as a file."""
    export = {"conversationId": "c1", "title": "Weather", "endpoint": "agents", **fields}
    export["messages"] = messages
    path = tmp_path / "librechat.json"
    path.write_text(json.dumps(export))
    return path


LIBRECHAT_ROOT = "00000000-0000-0000-0000-000000000000"


def test_librechat_content_parts_are_reasoning_text_calls_and_their_results(tmp_path):
    user = {
        "messageId": "u1",
        "parentMessageId": LIBRECHAT_ROOT,
        "isCreatedByUser": True,
        "text": "Weather in Paris?",
        "createdAt": "2025-01-01T10:00:00Z",
        "files": [
            {"file_id": "f1", "filepath": "/images/f1.png", "type": "image/png", "width": 10},
            {"file_id": "f2", "type": "application/pdf", "filename": "a.pdf"},
        ],
    }
    call = {"id": "call_1", "name": "weather", "args": '{"city": "Paris"}', "output": "18 C"}
    answer = {
        "messageId": "a1",
        "parentMessageId": "u1",
        "isCreatedByUser": False,
        "model": "gpt-4o",
        "text": "It is 18 C",  # (not what the parts say: kept beside them)
        "createdAt": "2025-01-01T10:00:05Z",
        "content": [
            {"type": "think", "think": "Look it up."},
            {"type": "tool_call", "tool_call": {**call, "type": "tool_call", "progress": 1}},
            {"type": "text", "text": "It is 18 C."},
        ],
    }
    [conversation] = list(read([str(librechat_export(tmp_path, [user, answer]))]))
    asked, said, result = conversation.messages
    assert asked.type == "human" and asked.id == "u1"
    assert asked.content == [
        {"type": "text", "text": "Weather in Paris?"},
        {
            "type": "image",
            "url": "/images/f1.png",
            "mime_type": "image/png",
            "extras": {"file_id": "f1", "type": "image/png", "width": 10},
        },
        {
            "type": "file",
            "file_id": "f2",
            "mime_type": "application/pdf",
            "extras": user["files"][1],
        },
    ]
    assert said.content == [
        {"type": "reasoning", "reasoning": "Look it up."},
        {"type": "text", "text": "It is 18 C."},
    ]
    assert [(c["id"], c["name"], c["args"]) for c in said.tool_calls] == [
        ("call_1", "weather", {"city": "Paris"})
    ]
    assert said.response_metadata["model_name"] == "gpt-4o"
    assert said.additional_kwargs["librechat"]["text"] == "It is 18 C"
    assert (result.type, result.tool_call_id, result.content) == ("tool", "call_1", "18 C")
    assert result.additional_kwargs == {"librechat": {"type": "tool_call", "progress": 1}}
    assert conversation.meta["created_at"] == "2025-01-01T10:00:00Z"
    assert conversation.meta["updated_at"] == "2025-01-01T10:00:05Z"


def test_a_librechat_assistants_answer_keeps_its_file_citations(tmp_path):
    # the Assistants endpoint's text parts are {value, annotations}: the citations of
    # files are kept on the text they mark (they were dropped, unsaid)
    cited = {
        "type": "file_citation",
        "text": "【4:0†source】",
        "start_index": 14,
        "end_index": 26,
        "file_citation": {"file_id": "file-abc"},
    }
    user = {"messageId": "u1", "parentMessageId": LIBRECHAT_ROOT, "isCreatedByUser": True}
    user["text"] = "What does the file say?"
    answer = {"messageId": "a1", "parentMessageId": "u1", "isCreatedByUser": False, "text": ""}
    value = {"value": "It says hello【4:0†source】.", "annotations": [cited]}
    answer["content"] = [{"type": "text", "text": value}]
    path = librechat_export(tmp_path, [user, answer], endpoint="assistants")
    [conversation] = list(read([str(path)]))
    assert conversation.messages[1].content == [
        {"type": "text", "text": value["value"], "extras": {"annotations": [cited]}}
    ]
    code, out, _ = run("convert", path)
    assert code == 0 and json.loads(out)["messages"][1]["content"][0]["extras"] == {
        "annotations": [cited]
    }


def test_librechat_parts_of_other_kinds_are_kept(tmp_path):
    odd = {"type": "error", "error": "rate limited"}
    no_url = {"type": "image_url", "image_url": {"detail": "auto"}}
    parts = [
        {"type": "text", "text": {"value": "Assistants text. ", "annotations": []}},
        "a bare string. ",
        {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}},
        {"type": "image_file", "image_file": {"file_id": "f9", "filepath": "/images/f9.webp"}},
        no_url,
        odd,
        {"type": "tool_call", "tool_call": {"name": "shell", "args": "ls -la", "output": None}},
        {"type": "tool_call", "tool_call": {"name": "search", "args": {"q": "x"}, "output": [1]}},
    ]
    answer = {"messageId": "a1", "parentMessageId": None, "isCreatedByUser": False}
    path = librechat_export(tmp_path, [{**answer, "content": parts}])
    [conversation] = list(read([str(path)]))
    said, result = conversation.messages
    assert said.content == [
        {"type": "text", "text": "Assistants text. "},
        {"type": "text", "text": "a bare string. "},
        {"type": "image", "url": "https://example.com/a.png"},
        {"type": "image", "url": "/images/f9.webp"},
        {"type": "non_standard", "value": no_url},
        {"type": "non_standard", "value": odd},
    ]
    # a call without an id is named by its place; args that are no JSON object kept whole
    assert [(c["id"], c["name"], c["args"]) for c in said.tool_calls] == [
        ("call_0", "shell", {"input": "ls -la"}),
        ("call_1", "search", {"q": "x"}),
    ]
    assert not said.response_metadata  # (no model named)
    # (the call still running has no result; an output that is not a string is its JSON)
    assert (result.tool_call_id, result.content, result.additional_kwargs) == ("call_1", "[1]", {})


def test_librechat_two_roots_nested_in_children_give_every_branch_with_branch_all(tmp_path):
    def message(ident, text, user, created, children=()):
        return {
            "messageId": ident,
            "parentMessageId": LIBRECHAT_ROOT,  # (a nested message's parent is its holder)
            "isCreatedByUser": user,
            "text": text,
            "createdAt": created,
            "children": list(children),
        }

    first = message("u1", "Hi", True, "2025-01-01T10:00:00Z")
    first["children"] = [
        {**message("a1", "Hello", False, "2025-01-01T10:00:01Z"), "parentMessageId": "u1"}
    ]
    edited = message("u2", "Hi there", True, "2025-01-02T10:00:00Z")
    edited["children"] = [
        {**message("a2", "Hello there", False, "2025-01-02T10:00:01Z"), "parentMessageId": "u2"}
    ]
    path = librechat_export(tmp_path, [], recursive=True, branches=True)
    export = json.loads(path.read_text())
    del export["messages"]
    export["messagesTree"] = [first, edited]
    path.write_text(json.dumps(export))
    [newest] = list(read([str(path)]))
    assert [m.content for m in newest.messages] == ["Hi there", "Hello there"]
    every = list(read([str(path)], options=ReadOptions(branch="all")))
    assert sorted([m.content for m in c.messages] for c in every) == [
        ["Hi", "Hello"],
        ["Hi there", "Hello there"],
    ]


def test_librechat_named_with_from_but_not_an_export_is_one_clear_line(tmp_path):
    path = tmp_path / "openai.json"
    path.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}]}))
    code, out, err = run("convert", "--from", "librechat", path)
    assert code != 0 and out == ""
    assert "not a LibreChat export" in err and "conversationId and messages" in err
    assert str(path) in err and "Traceback" not in err
    message = tmp_path / "message.jsonl"
    message.write_text(json.dumps({"role": "user", "content": "hi"}) + "\n")
    code, out, err = run("convert", "--from", "librechat", message)
    assert code != 0 and "a LibreChat export is read a conversation at a time" in err
    assert str(message) in err and "Traceback" not in err


def test_the_librechat_dialect_reads_one_export_as_its_newest_branch():
    from chatpipe.errors import Location
    from chatpipe.formats.registry import get_dialect

    name = "librechat__librechat-tests_nonrecursive_branches.json"
    export = json.loads((FIXTURES / name).read_text())
    dialect = get_dialect("librechat")
    assert dialect.is_conversation(export)
    assert not dialect.is_conversation({"conversationId": "c", "messages": [{"role": "user"}]})
    conversation = dialect.read_conversation(export, Location(name))
    newest = max(export["messages"], key=lambda m: m["createdAt"])
    assert conversation.messages[-1].id == newest["messageId"]


# -- Grok -----------------------------------------------------------------------------------


def test_grok_responses_follow_their_parents():
    export = json.loads((FIXTURES / "grok__owimporter_export.json").read_text())
    responses = [r["response"] for r in export["conversations"][0]["responses"]]
    [conversation] = conversations("grok__owimporter_export.json")
    assert [text_of(m) for m in conversation.messages] == [r["message"] for r in responses]
    assert [m.type for m in conversation.messages] == [
        "human" if r["sender"] == "human" else "ai" for r in responses
    ]
    assert conversation.meta["title"] == export["conversations"][0]["conversation"]["title"]


def test_grok_regenerations_thinking_and_cited_pages():
    name = "grok__documented_mongo_dates_regenerated_search_thinking.json"
    entry = json.loads((FIXTURES / name).read_text())["conversations"][0]
    by_id = {r["response"]["_id"]: r["response"] for r in entry["responses"]}
    newest = max(by_id.values(), key=lambda r: int(r["create_time"]["$date"]["$numberLong"]))
    path, at = [], newest
    while at is not None:
        path.append(at)
        at = by_id.get(at["parent_response_id"])
    [conversation] = conversations(name)
    assert [m.id for m in conversation.messages] == [r["_id"] for r in reversed(path)]
    answer = conversation.messages[1]
    regenerated = by_id[answer.id]
    assert blocks(answer, "reasoning")[0]["reasoning"] == regenerated["thinking_trace"]
    cited = [c["url"] for c in blocks(answer, "text")[0]["annotations"]]
    assert cited == [p["url"] for p in regenerated["cited_web_search_results"]]
    assert len(conversations(name, "all")) == 2


# -- Google AI Studio -----------------------------------------------------------------------


def test_an_ai_studio_thought_is_the_reasoning_of_the_answer_after_it():
    prompt = json.loads((FIXTURES / "ai_studio__owimporter_prompt.json").read_text())
    user, thought, answer = prompt["chunkedPrompt"]["chunks"]
    [conversation] = conversations("ai_studio__owimporter_prompt.json")
    asked, answered = conversation.messages
    assert text_of(asked) == user["text"]
    assert blocks(answered, "reasoning")[0]["reasoning"] == thought["text"]
    assert text_of(answered) == answer["text"]


def test_ai_studio_code_media_and_an_unsent_draft_said():
    name = "ai_studio__documented_thought_code_execution_video_draft.json"
    prompt = json.loads((FIXTURES / name).read_text())
    chunks = prompt["chunkedPrompt"]["chunks"]
    [conversation] = conversations(name)
    system, asked, answered, video, _last = conversation.messages
    assert system.content == prompt["systemInstruction"]["parts"][0]["text"]
    assert blocks(asked, "image")[0]["file_id"] == chunks[1]["driveImage"]["id"]
    call, result = (
        blocks(answered, "server_tool_call")[0],
        blocks(answered, "server_tool_result")[0],
    )
    assert call["args"]["code"] == chunks[3]["executableCode"]["code"]
    assert result["output"] == chunks[4]["codeExecutionResult"]["output"]
    assert blocks(video, "video")[0]["url"].endswith(chunks[6]["youtubeVideo"]["id"])
    assert conversation.meta["pendingInputs"] == prompt["chunkedPrompt"]["pendingInputs"]
    code, _, err = run("convert", FIXTURES / name)
    assert code == 0 and "warning: unsent drafts (AI Studio's pendingInputs)" in err


# -- SillyTavern ----------------------------------------------------------------------------


def test_sillytavern_swipes_are_branches_the_chosen_one_live():
    name = "sillytavern__documented_swipes_reasoning_narrator.jsonl"
    header, *lines = [json.loads(x) for x in (FIXTURES / name).read_text().splitlines()]
    [live] = conversations(name)
    assert [text_of(m) for m in live.messages] == [line["mes"] for line in lines]
    assert [m.type for m in live.messages] == [
        "human" if x["is_user"] else "system" if x["is_system"] else "ai" for x in lines
    ]
    assert live.meta["chat_metadata"] == header["chat_metadata"]
    swiped = next(x for x in lines if len(x.get("swipes", [])) > 1)
    others = [s for i, s in enumerate(swiped["swipes"]) if i != swiped["swipe_id"]]
    branches = conversations(name, "all")
    assert len(branches) == 1 + len(others)
    assert sorted(
        text_of(c.messages[-1]) for c in branches if not c.meta["branch"].get("live")
    ) == sorted(others)
    first = next(c for c in branches if text_of(c.messages[-1]) == swiped["swipes"][0])
    reasoning = swiped["swipe_info"][0]["extra"]["reasoning"]
    assert blocks(first.messages[-1], "reasoning")[0]["reasoning"] == reasoning


def test_a_sillytavern_group_chat_without_a_header_keeps_its_speakers():
    name = "sillytavern__documented_group_chat_no_header.jsonl"
    lines = [json.loads(x) for x in (FIXTURES / name).read_text().splitlines()]
    [conversation] = conversations(name)
    assert [(m.name, m.content) for m in conversation.messages[1:]] == [
        (x["name"], x["mes"]) for x in lines[1:]
    ]
    assert conversation.meta["created_at"] == lines[0]["send_date"] // 1000


# -- aider ----------------------------------------------------------------------------------

AIDER = "aider__aider-tests-fixture_5_sessions_diff_whole_interrupted.md"


def test_an_aider_history_is_a_conversation_per_session():
    text = (FIXTURES / AIDER).read_text()
    sessions = re.split(r"^# aider chat started at .*$", text, flags=re.M)[1:]
    found = conversations(AIDER)
    assert len(found) == len(sessions)
    for conversation, session in zip(found, sessions, strict=True):
        # the prompts: runs of "#### " lines, a blank line between two of them
        prompts = [
            "\n".join(line[5:].removesuffix("  ") for line in run_.split("\n"))
            for run_ in re.findall(r"^#### .*(?:\n#### .*)*", session, flags=re.M)
        ]
        assert [m.content for m in conversation.messages if m.type == "human"] == prompts
        # aider's own lines are notes, each in one of them
        said = [
            line[2:].removesuffix("  ") for line in session.split("\n") if line.startswith("> ")
        ]
        notes = "\n".join(n["text"] for n in conversation.meta["notes"])
        assert all(line in notes for line in said)


def test_an_aider_reply_keeps_its_edit_blocks_and_an_interrupted_one_its_open_fence():
    text = (FIXTURES / AIDER).read_text()
    first = text.split("#### Use the Spinner instead of the inlined custom spinner  \n\n")[1]
    reply = first.split("\n\n> Tokens:")[0]
    found = conversations(AIDER)
    assert found[0].messages[1].content == reply
    assert "<<<<<<< SEARCH" in reply and ">>>>>>> REPLACE" in reply
    last = found[-1].meta["notes"][-1]["text"]
    assert last.endswith("^C KeyboardInterrupt")


def test_aider_history_on_stdin_and_markdown_that_is_no_chat_log():
    data = (FIXTURES / "aider__aider-repo-2023_early_original_updated.md").read_text()
    code, out, err = run("convert", "-", input=data)
    assert (code, err) == (0, "")
    [record] = [json.loads(line) for line in out.splitlines()]
    assert record["messages"][0]["content"] == (
        "make a flask app with a /hello endpoint that returns hello world"
    )
    assert record["created_at"] == "2023-05-12T15:43:20"
    code, out, err = run("convert", "-", input="# Notes\n\nNo chat here: just: words\n")
    assert code == 1 and out == ""
    assert "cannot tell what chat format this is (got Markdown text;" in err
    # a YAML document that opens with a comment stays YAML
    code, out, _ = run("convert", "-", input="# a comment\n- role: user\n  content: hi\n")
    assert (code, json.loads(out)) == (0, {"type": "human", "content": "hi"})


def test_a_markdown_file_that_is_no_aider_history_is_said_to_be_no_chat_log(tmp_path):
    path = tmp_path / "README.md"
    path.write_text("# Project\n\nSome notes: nothing said to a model.\n")
    code, out, err = run("convert", path)
    assert (code, out) == (1, "")
    assert err.startswith(f"chatpipe: error: {path}:1:1: cannot tell what chat format this is")
    assert "(got Markdown text;" in err and "Traceback" not in err
    bom = tmp_path / "bom.md"
    history = FIXTURES / "aider__aider-repo-2023_early_original_updated.md"
    bom.write_bytes(b"\xef\xbb\xbf" + history.read_bytes())
    assert run("convert", bom) == run("convert", history)


# -- ChatGPT exports ------------------------------------------------------------------------


def test_chatgpt_code_output_errors_and_quotes_keep_their_text_from_parts():
    name = "chatgpt_export__documented_code_parts_system_error_tether_quote.json"
    [export] = json.loads((FIXTURES / name).read_text())
    nodes, path, at = export["mapping"], [], export["current_node"]
    while nodes[at]["message"] is not None:
        path.append(nodes[at]["message"])
        at = nodes[at]["parent"]
    path.reverse()
    [conversation] = conversations(name)
    assert len(conversation.messages) == len(path)
    for message, source in zip(conversation.messages, path, strict=True):
        content = source["content"]
        text = content.get("text") or "".join(content.get("parts") or [])
        if source["recipient"] != "all":  # a call: the code is its argument
            assert message.tool_calls[0]["args"] == {"input": text}
            assert message.tool_calls[0]["name"] == source["recipient"]
        elif content["content_type"] == "reasoning_recap":
            assert blocks(message, "reasoning")[0]["reasoning"] == content["content"]
        else:
            assert text_of(message) == text
        if content["content_type"] == "system_error":
            assert message.status == "error"


def test_a_chatgpt_browsing_display_is_its_result():
    name = "chatgpt_export__librechat-tests_tether_browsing_citations.json"
    [export] = json.loads((FIXTURES / name).read_text())
    shown = next(
        n["message"]["content"]
        for n in export["mapping"].values()
        if n["message"]["content"]["content_type"] == "tether_browsing_display"
    )
    [conversation] = conversations(name)
    assert conversation.messages[0].content == shown["result"]


def test_a_command_that_writes_the_inputs_dialect_writes_records_for_open_webui():
    """Open WebUI is written as one document (its import file): a command that writes
    the input's dialect (select, convert with no --to) writes chatpipe's own records."""
    chat = json.loads((FIXTURES / "open_webui__owimporter_chat_object.json").read_text())
    code, out, err = run(
        "select", "--after", "2025-01-01", FIXTURES / "open_webui__owimporter_chat_object.json"
    )
    assert (code, err) == (0, "")
    [record] = [json.loads(line) for line in out.splitlines()]
    assert record["title"] == chat["title"]
