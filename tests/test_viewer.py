"""``--to html``, read as text: what the page holds, escapes and allows (the browser tests
in test_viewer_browser.py open it)."""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re

from typer.testing import CliRunner

from chatpipe.cli import app
from conftest import FIXTURES

runner = CliRunner()

HOSTILE = [
    {"role": "system", "content": "<script>window.pwned = 'system'</script>"},
    {
        "role": "user",
        "content": (
            "<img src=x onerror=\"window.pwned = 'img'\"> [click me](javascript:window.pwned=1) "
            "[data](data:text/html,<script>alert(1)</script>) **unclosed *emphasis [link]( "
            "<a href='javascript:alert(2)'>raw</a> [ok](https://example.com/a?b=1&c=\"2\")"
        ),
    },
    {
        "role": "assistant",
        "content": "```html\n</script><script>window.pwned = 'fence'</script>\n```\n"
        "![remote](https://example.com/track.png) ![svg](data:image/svg+xml;base64,PHN2Zz4=)",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {
                    "name": "run</script>",
                    "arguments": json.dumps({"code": "</script><!--<script>x()</script>"}),
                },
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "<b onmouseover=alert(3)>out</b>"},
]


def hostile_log(tmp_path):
    path = tmp_path / "hostile.jsonl"
    path.write_text("".join(json.dumps(m) + "\n" for m in HOSTILE))
    return path


def page_of(*args):
    result = runner.invoke(app, ["convert", "--to", "html", *map(str, args)])
    assert result.exit_code == 0, result.output
    return result.stdout


def embedded(page: str) -> list[dict]:
    data = re.search(r"<script type=application/json id=data>(.*?)</script>", page, re.S)
    return json.loads(data.group(1))


def test_transcript_markup_is_text_and_links_are_limited(tmp_path):
    page = page_of(hostile_log(tmp_path))
    # the only script elements are the data block and the viewer's own script
    assert page.count("<script") == 2
    [entry] = embedded(page)
    shown = entry["h"]
    # no element of the transcript's: every tag in the HTML is one chatpipe writes
    tags = set(re.findall(r"<([a-z0-9]+)", shown))
    assert tags <= {
        "header",
        "h1",
        "h4",
        "p",
        "section",
        "article",
        "span",
        "div",
        "pre",
        "code",
        "a",
        "details",
        "summary",
        "button",  # the header's "Expand all tool calls"
    }, tags
    assert not re.search(r"<[^>]*\son[a-z]+=", shown)  # no event handler attribute
    hrefs = re.findall(r'href="([^"]*)"', shown)
    assert hrefs == ["https://example.com/a?b=1&amp;c=%222%22", "https://example.com/track.png"]
    assert '<span class="unsafe-link">click me</span>' in shown
    assert '<span class="unsafe-link">data</span>' in shown
    # and the reader sees the text as it was written
    text = html.unescape(re.sub(r"<[^>]+>", "", shown))
    for written in (
        "<script>window.pwned = 'system'</script>",
        "<img src=x onerror=\"window.pwned = 'img'\">",
        "**unclosed *emphasis [link](",
        "<a href='javascript:alert(2)'>raw</a>",
        "</script><script>window.pwned = 'fence'</script>",
        '"code": "</script><!--<script>x()</script>"',
        "<b onmouseover=alert(3)>out</b>",
        "run</script>",
    ):
        assert written in text, written
    assert shown.count('class="msg tool"') == 0 and shown.count('class="tool"') == 1


def test_embedded_json_cannot_end_its_script_element(tmp_path):
    page = page_of(hostile_log(tmp_path))
    start = page.index("<script type=application/json id=data>")
    end = page.index("</script>", start)
    block = page[start:end]
    assert "<" not in block[len("<script type=application/json id=data>") :]
    assert embedded(page)[0]["t"] == "Conversation 1"


def test_policy_allows_exactly_the_page_own_script_and_style(tmp_path):
    page = page_of(hostile_log(tmp_path))
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page).group(1)
    script = re.findall(r"<script>(.*?)</script>", page, re.S)
    style = re.findall(r"<style>(.*?)</style>", page, re.S)
    assert len(script) == 1 and len(style) == 1

    def digest(text):
        return base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()

    assert f"script-src 'sha256-{digest(script[0])}'" in policy
    assert f"style-src 'sha256-{digest(style[0])}'" in policy
    assert policy.startswith("default-src 'none';")
    assert "img-src data:;" in policy and "unsafe" not in policy and "http" not in policy


def test_branches_of_one_tree_are_one_entry_with_a_switch_at_the_fork():
    page = page_of(
        "--branch", "all", FIXTURES / "chatgpt_export__derived_branch_with_image_part.json"
    )
    [entry] = embedded(page)
    assert (entry["t"], entry["n"], entry["b"], entry["m"]) == (
        "Sample conversation with branch",
        4,
        2,
        "gpt-4",
    )
    assert entry["d"] == "2024-01-01 00:00"
    sections = re.findall(r'<section class="branch" data-index="(\d)"( hidden)?>', entry["h"])
    assert sections == [("0", ""), ("1", " hidden")]
    # each branch's switch stands after the two messages the branches share
    for section in entry["h"].split('<section class="branch"')[1:]:
        before = section.split('<nav class="fork"')[0]
        assert before.count('<article class="msg') == 2
    # the image of the edited question: named with its size (a file-service pointer is
    # not in the export)
    assert "image: file-service://file-6zq2zmFSnwi6Z6jNDdVqg9" in entry["h"]
    assert "(235.6 kB)" in entry["h"]
    assert "javascript" in entry["s"] and "python" in entry["s"]


def test_data_images_are_shown_inline(tmp_path):
    page = page_of(FIXTURES / "anthropic_messages__pydanticai_req_image_base64_source.json")
    [entry] = embedded(page)
    assert re.search(
        r'<img src="data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=]+"', entry["h"]
    )


def test_attachments_are_named_with_their_size():
    page = page_of(FIXTURES / "claude_export__documented_pasted_file_attachment.json")
    entries = embedded(page)
    shown = "".join(e["h"] for e in entries)
    attachments = re.findall(
        r'<span class="media">attached: ([^<]+) <span class="size">\(([^)]+)\)', shown
    )
    assert attachments, shown[:2000]
    source = json.loads(
        (FIXTURES / "claude_export__documented_pasted_file_attachment.json").read_text()
    )
    records = source if isinstance(source, list) else [source]
    expected = {
        a["file_name"]
        for record in records
        for message in record.get("chat_messages") or ()
        for a in message.get("attachments") or ()
    }
    assert expected and expected <= {name for name, _ in attachments}


def test_tool_calls_sit_beside_their_results():
    page = page_of(FIXTURES / "agent_session.jsonl")
    [entry] = embedded(page)
    log = [json.loads(line) for line in (FIXTURES / "agent_session.jsonl").read_text().splitlines()]
    calls = [c for m in log for c in m.get("tool_calls") or ()]
    panels = entry["h"].split('<details class="tool">')[1:]
    assert len(panels) == len(calls)
    for call, panel in zip(calls, panels, strict=True):
        assert f'<span class="tool-name">{call["function"]["name"]}</span>' in panel
        assert f'<code class="call-id">{call["id"]}</code>' in panel
        assert '<span class="status ok">result</span>' in panel
    # no tool result is shown twice: every one sits in its call's panel
    assert 'class="msg tool"' not in entry["h"]


def test_output_dir_writes_an_index_and_a_page_per_conversation(tmp_path):
    out = tmp_path / "site"
    result = runner.invoke(
        app,
        [
            "convert",
            "--to",
            "html",
            "--output-dir",
            str(out),
            str(FIXTURES / "chatgpt_export__pkuppens_2023_conversations_subset.json"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    pages = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.html"))
    assert pages == ["c/00001.html", "c/00002.html", "c/00003.html", "c/00004.html", "index.html"]
    listed = embedded((out / "index.html").read_text())
    assert [e["u"] for e in listed] == pages[:4]
    assert all("h" not in e and e["s"] for e in listed)
    one = embedded((out / "c" / "00002.html").read_text())
    assert len(one) == 1 and one[0]["t"] == listed[1]["t"] and one[0]["h"]
    assert 'href="../index.html"' in (out / "c" / "00002.html").read_text()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".chatpipe-")]


def test_a_failed_run_leaves_no_output_dir(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"role": "user", "content": "hi"}\n{"role": "user", "content": \n')
    out = tmp_path / "site"
    result = runner.invoke(app, ["convert", "--to", "html", "--output-dir", str(out), str(bad)])
    assert result.exit_code != 0
    assert f"{bad}:2" in result.output
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["bad.jsonl"]


def test_output_dir_without_html_writes_records_and_not_with_o(tmp_path):
    log = str(FIXTURES / "agent_session.jsonl")
    result = runner.invoke(app, ["convert", "--output-dir", str(tmp_path / "r"), log])
    assert result.exit_code == 0, result.output
    assert [p.name for p in (tmp_path / "r").iterdir()] == ["agent_session.jsonl"]
    result = runner.invoke(app, ["convert", "--to", "yaml", "--output-dir", "y", log])
    assert result.exit_code == 2 and "written by one process" in result.output
    result = runner.invoke(
        app, ["convert", "--to", "html", "--output-dir", str(tmp_path / "x"), "-o", "f.html", log]
    )
    assert result.exit_code == 2 and "pick one" in result.output
    assert not (tmp_path / "x").exists()


def test_every_reading_command_with_to_writes_html(tmp_path):
    log = str(FIXTURES / "agent_session.jsonl")
    for command in (
        ["trim", "--max-tokens", "300"],
        ["filter", "--exclude-types", "system"],
        ["merge"],
    ):
        result = runner.invoke(app, [*command, "--to", "html", log])
        assert result.exit_code == 0, result.output
        assert result.stdout.startswith("<!doctype html>")
        [entry] = embedded(result.stdout)
        assert 0 < entry["n"] <= 26
    trimmed = embedded(
        runner.invoke(app, ["trim", "--max-tokens", "300", "--to", "html", log]).stdout
    )
    assert trimmed[0]["n"] < 26


HTML_BLOCKS = [
    {
        "type": "text",
        "text": "See **this**",
        "annotations": [
            {"type": "url_citation", "url_citation": {"url": "https://e.x/a", "title": "A page"}},
            {"url": "javascript:alert(1)", "title": "bad"},
            "junk",
        ],
    },
    {"type": "tool_result", "tool_use_id": "t1", "content": '{"ok": true}'},
    {"type": "tool_result", "content": [{"type": "text", "text": "listed"}]},
    {"type": "server_tool_result", "output": {"n": 1}},
    {"type": "tool_result", "content": "[not json"},
    {"type": "mystery", "value": {"x": 1}},
    {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
    },
    {"type": "image_url", "image_url": "https://e.x/i.png"},
    {"type": "file", "url": "https://e.x/f.pdf", "extras": {"size_bytes": 2048000}},
    {"type": "audio", "url": "data:audio/wav;base64,QUJDRA=="},
]


def test_the_page_shows_each_kind_of_block_safely():
    """Citations as sources (a javascript: link dropped), tool results as JSON or text,
    unknown blocks raw, an Anthropic base64 image inline, other media as links with sizes."""
    import chatpipe as cp
    from chatpipe.render.html import message_html

    message = cp.AIMessage(
        HTML_BLOCKS,
        usage_metadata={"input_tokens": 1200, "output_tokens": 30, "total_tokens": 1230},
    )
    assert (
        message_html(message, {})
        == '<article class="msg ai"><header><span class="role">Assistant</span><span class="info">1,200 in / 30 out tokens</span></header><div class="body"><p>See <strong>this</strong></p>\n<ol class="sources"><li><a href="https://e.x/a" rel="noopener noreferrer nofollow" target="_blank">A page</a></li></ol><details class="tool"><summary>Result of t1</summary><pre class=code data-lang="json"><code>{\n  <span class="hl-nt">&quot;ok&quot;</span>: <span class="hl-kc">true</span>\n}</code></pre></details><details class="tool"><summary>Result of a tool</summary><p>listed</p></details><details class="tool"><summary>Result of a tool</summary><pre class=code data-lang="json"><code>{\n  <span class="hl-nt">&quot;n&quot;</span>: <span class="hl-mi">1</span>\n}</code></pre></details><details class="tool"><summary>Result of a tool</summary><pre class=code><code>[not json</code></pre></details><details class="raw"><summary>mystery</summary><pre class=code data-lang="json"><code>{\n  <span class="hl-nt">&quot;x&quot;</span>: <span class="hl-mi">1</span>\n}</code></pre></details><figure class="media"><img src="data:image/png;base64,iVBORw0KGgo=" alt="image"></figure><a class="media" href="https://e.x/i.png" rel="noopener noreferrer nofollow" target="_blank">image: https://e.x/i.png</a><a class="media" href="https://e.x/f.pdf" rel="noopener noreferrer nofollow" target="_blank">file: https://e.x/f.pdf <span class="size">(2.0 MB)</span></a><span class="media">audio: audio <span class="size">(6 B)</span></span></div></article>'
    )
