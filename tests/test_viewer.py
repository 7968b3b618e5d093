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
from conftest import FIXTURES, unmeasured

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
    # an untitled conversation is called by the start of its first question
    assert embedded(page)[0]["t"] == "<img src=x onerror=\"window.pwned = 'img'\"> [click…"


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


def html_of(entry: dict) -> str:
    return entry["h"]


def test_tex_keeps_its_backslashes_and_delimiters():
    """ChatGPT's math as it was written: ``\\(`` is not an escaped ``(``, ``_`` and ``*``
    inside a formula are not emphasis (#41)."""
    page = page_of(FIXTURES / "chatgpt_export__realazthat_2024_code_interpreter.json")
    shown = html_of(embedded(page)[0])
    formulas = re.findall(r'<span class="math( display)?">(.*?)</span>', shown, re.S)
    assert formulas[:6] == [
        ("", "\\( x \\)"),
        ("", "\\( y \\)"),
        ("", "\\( U(0,1) \\)"),
        ("", "\\( |x-y| \\)"),
        ("", "\\( E[|x-y|] \\)"),
        (" display", "\\[\nE[|x-y|] = \\int_0^1 \\int_0^1 |x-y| \\, dx \\, dy\n\\]"),
    ]
    assert "( x )" not in shown and "int_0^1 int_0^1" not in shown


def test_tex_delimiters_and_prose_with_dollars():
    from chatpipe.render.markup import markdown

    text = (
        "Costs $5 and $10; inline $x_1^2$ and $$\\sum_i a_i$$, "
        "escaped \\$x\\$, code `$x$`, a literal \\\\(not math), $ spaced $ and a\n"
        "\\[\n\\frac{a*b}{c*d}\n\\]"
    )
    assert markdown(text) == (
        '<p>Costs $5 and $10; inline <span class="math">$x_1^2$</span> and '
        '<span class="math display">$$\\sum_i a_i$$</span>, escaped $x$, code '
        "<code>$x$</code>, a literal \\(not math), $ spaced $ and a\n"
        '<span class="math display">\\[\n\\frac{a*b}{c*d}\n\\]</span></p>\n'
    )
    assert markdown("<b>$x$</b>") == '<p>&lt;b&gt;<span class="math">$x$</span>&lt;/b&gt;</p>\n'


def test_claude_artifacts_are_titled_code_and_thinking_is_reasoning():
    page = page_of(FIXTURES / "claude_export__documented_artifact_and_thinking.json")
    [entry] = embedded(page)
    shown = html_of(entry)
    assert "&lt;antArtifact" not in shown and "&lt;antThinking" not in shown
    titles = re.findall(
        r'<figcaption><span class="artifact-title">([^<]+)</span> '
        r'<span class="artifact-kind">([^<]+)</span></figcaption><pre class=code data-lang="(\w+)">',
        shown,
    )
    assert titles == [
        ("Convert 5th Degree Polynomial to LFSR", "python · polynomial-to-lfsr", "python"),
        ("LFSR key points", "markdown · lfsr-key-points", "markdown"),
    ]
    # the code as written: its indentation and blank lines kept, highlighted
    code = re.search(r'data-lang="python"><code>(.*?)</code>', shown, re.S).group(1)
    text = html.unescape(re.sub(r"<[^>]+>", "", code))
    source = json.loads(
        (FIXTURES / "claude_export__documented_artifact_and_thinking.json").read_text()
    )[0]["chat_messages"][1]["text"]
    assert (
        text.rstrip("\n")
        == source.split('title="Convert 5th Degree Polynomial to LFSR">\n')[1].split(
            "\n</antArtifact>"
        )[0]
    )
    assert shown.count('<details class="reasoning">') == 1
    assert (
        '<details class="reasoning"><summary>Reasoning</summary><p>A short reusable note is a '
        "good artifact: a self-contained Markdown document the user will keep. It is new, so it "
        'gets a new identifier.</p>\n</details><figure class="artifact">'
    ) in shown
    assert "<p>Here is the note.</p>" in shown
    # untitled (an empty name): called by its first question
    assert entry["t"] == "Yes, please show it in Python: turn an arbitrary 5th degree…"


def test_artifact_tags_inside_a_code_fence_are_text():
    from chatpipe.render.artifacts import segments

    text = (
        'Write it like this:\n```xml\n<antArtifact identifier="x" type="text/html">\n```\n'
        '<antThinking>real</antThinking>done <antArtifact type="image/svg+xml">\n<svg/>'
    )
    found = [(s.kind, s.text, s.language, s.title) for s in segments(text)]
    assert found == [
        (
            "text",
            'Write it like this:\n```xml\n<antArtifact identifier="x" type="text/html">\n```\n',
            "",
            "Artifact",
        ),
        ("thinking", "real", "", "Artifact"),
        ("text", "done ", "", "Artifact"),
        ("artifact", "<svg/>", "xml", "Artifact"),  # unclosed: to the end of the text
    ]


def test_reasoning_recap_is_a_small_note():
    page = page_of(FIXTURES / "chatgpt_export__documented_o3_thoughts_reasoning_recap.json")
    shown = html_of(embedded(page)[0])
    assert re.findall(r'<article class="msg ai">.*?</article>', shown, re.S)[1] == (
        '<article class="msg ai"><header><span class="role">Assistant</span><span class="info">'
        'o3 · 2025-05-11 21:46</span></header><div class="body"><p class="note">Thought for 4 '
        "seconds</p></div></article>"
    )
    assert "non_standard" not in shown and 'class="raw"' not in shown


def test_untitled_rows_are_called_by_their_first_question():
    page = page_of(FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl")
    rows = [
        json.loads(line)
        for line in (FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl")
        .read_text()
        .splitlines()
    ]
    expected = []
    for number, row in enumerate(rows):
        asked = [m["content"] for m in row["messages"] if m["role"] == "user"]
        expected.append(asked[0] if asked else f"Conversation {number + 1}")
    assert [e["t"] for e in embedded(page)] == expected
    assert expected[:3] == [
        "I fell off my bike today.",
        "I lost my tennis match today.",
        "I lost my book today.",
    ]


def test_bidi_controls_in_titles_and_names_are_shown(tmp_path):
    log = tmp_path / "bidi.json"
    log.write_text(
        json.dumps(
            {
                "title": "invoice\u202egpj.exe",
                "messages": [
                    {"role": "user", "name": "ad\u2066min\u2069", "content": "hi"},
                    {"role": "assistant", "content": "ok"},
                ],
            }
        )
    )
    page = page_of(log)
    [entry] = embedded(page)
    assert entry["t"] == "invoice[U+202E]gpj.exe"
    assert "<title>" in page and "\u202e" not in page and "\u2066" not in page
    assert '<span class="name">ad[U+2066]min[U+2069]</span>' in html_of(entry)
    assert "<h1>invoice[U+202E]gpj.exe</h1>" in html_of(entry)


def test_expand_all_is_offered_where_there_are_tool_calls():
    agent = html_of(embedded(page_of(FIXTURES / "agent_session.jsonl"))[0])
    button = (
        '<button type="button" class="expand" data-expand="tool">Expand all tool calls</button>'
    )
    assert agent.count(button) == 1
    plain = html_of(
        embedded(page_of(FIXTURES / "chatgpt_export__d4nshields_2024_minified.json"))[0]
    )
    assert button not in plain


def test_a_long_text_is_read_in_pieces_cut_outside_fences(monkeypatch):
    from chatpipe.render import markup

    monkeypatch.setattr(markup, "_PIECE", 10)
    text = "para one is long\n\n```\ncode\n\nstill code\n```\n\nlast para here\n\n- item"
    assert list(markup.pieces(text)) == [
        "para one is long\n\n",
        "```\ncode\n\nstill code\n```\n\n",
        "last para here\n\n",
        "- item",
    ]
    assert markup.markdown(text) == (
        "<p>para one is long</p>\n<pre class=code><code>code\n\nstill code\n</code></pre>\n"
        "<p>last para here</p>\n<ul>\n<li>item</li>\n</ul>\n"
    )


def test_a_huge_message_is_rendered_in_bounded_memory_and_time():
    """A message of a 2 MB Markdown table (no blank line to cut it at) and a 2 MB JSON
    tool result: before, markdown-it's tokens took about 170 times the text (11 MB: 1.9 GB,
    39 s); now the page costs a small multiple of its size (#44)."""
    import time
    import tracemalloc

    import chatpipe as cp
    from chatpipe.model import Conversation
    from chatpipe.render.viewer import document

    rows = "\n".join(f"| {i} | **b{i}** | [l](https://e.x/{i}) | `c` |" for i in range(45_000))
    table = "| a | b | c | d |\n|---|---|---|---|\n" + rows
    result = json.dumps([{"id": i, "name": f"item {i}", "ok": True} for i in range(50_000)])
    messages = [
        cp.HumanMessage("show the table"),
        cp.AIMessage(table, tool_calls=[{"name": "q", "args": {}, "id": "c1"}]),
        cp.ToolMessage(result, tool_call_id="c1"),
    ]
    size = len(table) + len(result)
    assert size > 3_500_000
    tracemalloc.start()
    started = time.perf_counter()
    written = sum(len(piece) for piece in document([Conversation(messages, {})]))
    took = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert written > size
    assert peak < 8 * size, (peak, size)
    assert took < 20


def test_a_folder_of_pages_shares_one_style_sheet_and_one_script(tmp_path):
    """A page per conversation carried the 20 kB of CSS and script (100,000 pages: 2 GB):
    now the folder holds them once, in assets/, and its pages load them (#44)."""
    out = tmp_path / "site"
    log = FIXTURES / "chatgpt_export__pkuppens_2023_conversations_subset.json"
    result = runner.invoke(app, ["convert", "--to", "html", "--output-dir", str(out), str(log)])
    assert result.exit_code == 0, result.output
    single = page_of(log)
    [css] = re.findall(r"<style>(.*?)</style>", single, re.S)
    [script] = re.findall(r"<script>(.*?)</script>", single, re.S)
    assert (out / "assets" / "viewer.css").read_text() == css
    assert (out / "assets" / "viewer.js").read_text() == script
    shared = (
        "default-src 'none'; style-src 'self'; script-src 'self'; img-src data:; "
        "base-uri 'none'; form-action 'none'"
    )
    for page, assets in [(out / "index.html", "assets/"), (out / "c" / "00002.html", "../assets/")]:
        text = page.read_text()
        assert f'<meta http-equiv="Content-Security-Policy" content="{shared}">' in text
        assert f'<link rel=stylesheet href="{assets}viewer.css">' in text
        assert f'<script src="{assets}viewer.js"></script>' in text
        assert "<style>" not in text and "<script>" not in text  # nothing inline runs
        assert text.count("<script") == 2  # the data block and the shared script
    page = (out / "c" / "00002.html").read_text()
    data = re.search(r"<script type=application/json id=data>(.*?)</script>", page, re.S)
    assert len(page) - len(data.group(1)) < 1_500  # the page is its conversation


def test_terminating_a_long_render_stops_it_at_once(tmp_path):
    """SIGTERM while a huge message is being made into HTML (-o): the run ends within a
    second, says so, exits 143 and leaves no file (#44)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    block = "".join(
        f"- **item {i}** with `code` and [a link](https://e.x/{i})\n" for i in range(10)
    )
    log = tmp_path / "huge.jsonl"
    text = (block + "\n") * 20_000  # 12 MB of Markdown: seconds of work
    log.write_text(json.dumps({"role": "assistant", "content": text}) + "\n")
    out = tmp_path / "page.html"
    env = {**os.environ, "PYTHONPATH": os.path.join(os.path.dirname(FIXTURES), "src")}
    process = subprocess.Popen(
        [sys.executable, "-m", "chatpipe", "convert", "--to", "html", str(log), "-o", str(out)],
        stderr=subprocess.PIPE,
        env=unmeasured(env),
    )
    # the run is at work once -o's temporary file is there (a fixed sleep was too short on
    # a loaded machine: the signal came while Python was still starting, before chatpipe's
    # handlers were set); then it renders for seconds more
    deadline = time.monotonic() + 60
    while sorted(p.name for p in tmp_path.iterdir()) == ["huge.jsonl"]:
        assert process.poll() is None and time.monotonic() < deadline, "no temporary file"
        time.sleep(0.05)
    time.sleep(0.5)
    assert process.poll() is None, "the run ended before it could be stopped"
    process.send_signal(signal.SIGTERM)
    started = time.monotonic()
    _, err = process.communicate(timeout=10)
    assert time.monotonic() - started < 1.0
    assert process.returncode == 143
    assert err.decode().endswith("chatpipe: terminated\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["huge.jsonl"]
