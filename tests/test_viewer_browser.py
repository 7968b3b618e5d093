"""The HTML viewer and the stats report in a real browser: Debian's Chromium driven by
Playwright. The tests click through conversations, search, use the keyboard, expand tool
calls, switch branches, check that no script of a transcript runs, and save a screenshot
of each page in build/screenshots/.

Without Chromium (``apt-get install chromium``) they skip, saying so; with
``CHATPIPE_BROWSER_TESTS=require`` (set by .ci/run) they fail instead.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from chatpipe.cli import app
from conftest import FIXTURES, ROOT
from test_viewer import HOSTILE

CHROMIUM = os.environ.get("CHATPIPE_CHROMIUM", "/usr/bin/chromium")
SHOTS = ROOT / "build" / "screenshots"
# as root, in a machine without a network: no sandbox, no background connections
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
runner = CliRunner()


@pytest.fixture(scope="module")
def browser():
    why = None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        why = "Playwright is missing: python -m pip install -e '.[test]'"
    if why is None and not os.path.exists(CHROMIUM):
        why = f"no Chromium at {CHROMIUM}: install it with 'apt-get install chromium'"
    if why is not None:
        if os.environ.get("CHATPIPE_BROWSER_TESTS") == "require":
            pytest.fail(f"{why} (CHATPIPE_BROWSER_TESTS=require)")
        pytest.skip(why)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        launched.close()


class Page:
    """A page of the browser that keeps what the console said and any script error."""

    def __init__(self, browser, path: Path) -> None:
        self.page = browser.new_page(viewport={"width": 1280, "height": 800})
        self.console: list[str] = []
        self.page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}"))
        self.page.on("pageerror", lambda e: self.console.append(f"pageerror: {e}"))
        self.page.goto(path.as_uri())
        if "<script" in path.read_text():  # its own, inline or shared
            self.page.wait_for_selector("body[data-ready]")

    def shot(self, name: str) -> Path:
        SHOTS.mkdir(parents=True, exist_ok=True)
        where = SHOTS / f"{name}.png"
        self.page.screenshot(path=str(where))
        assert where.stat().st_size > 10_000  # a page was drawn, not a blank
        return where

    def errors(self) -> list[str]:
        return [line for line in self.console if line.startswith(("error", "pageerror"))]


def write_page(tmp_path: Path, *args: str, name: str = "page.html") -> Path:
    out = tmp_path / name
    result = runner.invoke(app, ["convert", "--to", "html", *args, "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out


def visible_titles(page) -> list[str]:
    return page.locator("#list li:not([hidden]) .title").all_text_contents()


def test_chatgpt_export_click_through_and_switch_a_branch(browser, tmp_path):
    exports = [
        FIXTURES / "chatgpt_export__derived_branch_with_image_part.json",
        FIXTURES / "chatgpt_export__pkuppens_2023_conversations_subset.json",
    ]
    path = write_page(tmp_path, "--branch", "all", *map(str, exports))
    view = Page(browser, path)
    page = view.page
    titles = visible_titles(page)
    expected = ["Sample conversation with branch"] + [
        c["title"] for c in json.loads(exports[1].read_text())
    ]
    assert titles == expected
    assert page.locator("#count").text_content() == "5 conversations"
    # the first is open; each click opens the one clicked
    for index, title in enumerate(titles):
        page.locator("#list li a").nth(index).click()
        assert page.locator("#view h1").text_content() == title
        assert page.locator("#list li[aria-selected=true] .title").text_content() == title
        assert page.url.endswith(f"#c{index + 1}")
        view.shot(f"chatgpt-{index + 1}")
    # the tree: branch 1 (the edited question, with its image) shown, branch 2 hidden
    page.locator("#list li a").first.click()
    branches = page.locator("#view section.branch")
    assert branches.count() == 2
    assert branches.nth(0).is_visible() and not branches.nth(1).is_visible()
    image = branches.nth(0).locator(".media", has_text="file-service://")
    assert image.is_visible() and "(235.6 kB)" in image.text_content()
    fork = branches.nth(0).locator("nav.fork")
    assert fork.text_content().startswith("Branch 1 of 2")
    view.shot("chatgpt-branch-1")
    fork.locator("button[data-branch='1']").click()
    assert not branches.nth(0).is_visible() and branches.nth(1).is_visible()
    answer = branches.nth(1).locator("article").last
    assert "function greet(name)" in answer.text_content()
    assert answer.locator("pre.code span").count() > 5  # highlighted by Pygments
    view.shot("chatgpt-branch-2")
    branches.nth(1).locator("nav.fork button[data-branch='0']").click()
    assert branches.nth(0).is_visible()
    assert view.errors() == []


def test_search_and_keyboard(browser, tmp_path):
    exports = [
        FIXTURES / "chatgpt_export__pkuppens_2023_conversations_subset.json",
        FIXTURES / "chatgpt_export__realazthat_2024_code_interpreter.json",
    ]
    view = Page(browser, write_page(tmp_path, *map(str, exports)))
    page = view.page
    everything = visible_titles(page)
    assert len(everything) == 5
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "q"
    # a word of one conversation's text (not of its title)
    page.keyboard.type("sympy")
    assert visible_titles(page) == ["Average Distance in U(0,1)"]
    assert page.locator("#count").text_content() == "1 of 5 conversations match"
    view.shot("search")
    page.keyboard.press("ArrowDown")
    assert page.locator("#view h1").text_content() == "Average Distance in U(0,1)"
    page.keyboard.press("Escape")
    assert visible_titles(page) == everything
    # two words: conversations holding both, whatever their order
    page.fill("#q", "integral expectation")
    assert visible_titles(page) == ["Average Distance in U(0,1)"]
    page.fill("#q", "zzzz-not-anywhere")
    assert visible_titles(page) == [] and page.locator("#count").text_content().startswith("0 of")
    page.fill("#q", "")
    # j and k walk the list from the open conversation
    page.locator("#list li a").first.click()
    page.locator("#view").click()
    page.keyboard.press("j")
    assert page.locator("#view h1").text_content() == everything[1]
    page.keyboard.press("j")
    page.keyboard.press("k")
    assert page.locator("#view h1").text_content() == everything[1]
    assert view.errors() == []


def test_tool_calls_expand_beside_their_results(browser, tmp_path):
    view = Page(browser, write_page(tmp_path, str(FIXTURES / "agent_session.jsonl")))
    page = view.page
    panel = page.locator("details.tool").first
    result = panel.locator(".tool-result")
    assert not result.is_visible()  # collapsed until asked for
    view.shot("agent-collapsed")
    panel.locator("summary").click()
    assert result.is_visible()
    call_box = panel.locator(".tool-call").bounding_box()
    result_box = result.bounding_box()
    assert result_box["x"] > call_box["x"] + call_box["width"] - 1  # side by side
    assert abs(result_box["y"] - call_box["y"]) < 2
    assert '"path": "src/billing/invoice.py"' in panel.locator(".tool-call").text_content()
    assert "def line_0" in result.text_content()
    view.shot("agent-tool-call")
    assert view.errors() == []


def test_claude_export_shows_attachments_and_thinking(browser, tmp_path):
    exports = [
        FIXTURES / "claude_export__documented_pasted_file_attachment.json",
        FIXTURES / "claude_export__yaleman_2025_thinking.json",
    ]
    view = Page(browser, write_page(tmp_path, *map(str, exports)))
    page = view.page
    # the pasted file, named with its type and size; the uploaded image with its size
    pasted = page.locator(".attachments .media", has_text="bakeries.csv")
    assert pasted.is_visible()
    assert pasted.text_content() == "attached: bakeries.csv (text/csv, 118 B)"
    image = page.locator(".attachments .media", has_text="image")
    assert image.first.text_content() == "attached: image (image, 935×1247)"
    view.shot("claude-attachment")
    page.locator("#list li a").nth(1).click()
    reasoning = page.locator("details.reasoning").first
    assert reasoning.count() == 1 and reasoning.get_attribute("open") is None
    body = reasoning.locator("p").first
    assert not body.is_visible()
    reasoning.locator("summary").click()
    assert body.is_visible() and body.text_content().strip()
    view.shot("claude-thinking")
    assert view.errors() == []


def test_no_script_of_a_transcript_runs(browser, tmp_path):
    log = tmp_path / "hostile.jsonl"
    log.write_text("".join(json.dumps(m) + "\n" for m in HOSTILE))
    view = Page(browser, write_page(tmp_path, str(log)))
    page = view.page
    for summary in page.locator("summary").all():
        summary.click()
    for target in page.locator("#view .unsafe-link, #view .body p").all():
        target.click()
    page.locator("#view").hover()
    assert page.evaluate("typeof window.pwned") == "undefined"
    # the three messages, and the title (made of the first question), as text
    assert page.locator("#view").text_content().count("window.pwned") == 4
    view.shot("hostile")
    # had escaping failed, the policy would still stop it: markup put in by hand
    # does not run either
    page.evaluate(
        """() => {
        const view = document.getElementById("view");
        view.innerHTML = '<img src="x" onerror="window.pwned = 1">' +
            '<a id="js" href="javascript:window.pwned = 2">js</a>';
        const script = document.createElement("script");
        script.textContent = "window.pwned = 3";
        document.body.appendChild(script);
    }"""
    )
    page.locator("#js").click()
    page.wait_for_timeout(200)
    assert page.evaluate("typeof window.pwned") == "undefined"
    refused = [line for line in view.console if "Content Security Policy" in line]
    assert len(refused) >= 2, view.console


def test_a_folder_of_pages_links_both_ways(browser, tmp_path):
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
    view = Page(browser, out / "index.html")
    page = view.page
    titles = visible_titles(page)
    assert len(titles) == 4
    assert page.locator("#view .empty").is_visible()  # the index shows no conversation
    word = titles[2].split()[0].lower()
    page.fill("#q", word)
    assert titles[2] in visible_titles(page)
    view.shot("folder-index")
    page.locator("#list li:not([hidden]) a", has_text=titles[2]).first.click()
    page.wait_for_selector("body[data-ready]")
    assert page.url.endswith(f"/c/00003.html#q={word}")  # the page marks the words
    assert page.locator("#view h1").text_content() == titles[2]
    view.shot("folder-page")
    page.locator("#home").click()
    page.wait_for_selector("body[data-ready]")
    assert page.url.endswith("/index.html")
    assert view.errors() == []


def test_stats_report_draws_its_charts(browser, tmp_path):
    out = tmp_path / "stats.html"
    result = runner.invoke(
        app,
        [
            "stats",
            "--to",
            "html",
            "--max-tokens",
            "500",
            "-o",
            str(out),
            str(FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl"),
            str(FIXTURES / "hf_messages__llamafactory_v1_sft_loss_weight_first15.jsonl"),
        ],
    )
    assert result.exit_code == 0, result.output
    view = Page(browser, out)
    page = view.page
    charts = page.locator("svg.chart")
    assert charts.count() == 2
    for index in range(2):
        box = charts.nth(index).bounding_box()
        assert box["width"] > 300 and box["height"] > 100
        bars = charts.nth(index).locator("rect.bar")
        heights = [
            float(h) for h in bars.evaluate_all("(r) => r.map((e) => e.getAttribute('height'))")
        ]
        assert sum(1 for h in heights if h > 0) >= 2
    assert charts.first.locator("line.limit").count() == 1
    view.shot("stats-report")
    assert view.errors() == []


def test_stats_on_a_terminal_screenshot(browser, tmp_path):
    """The terminal table and histograms, recorded by rich and drawn by the browser."""
    from rich.console import Console

    from chatpipe.cli import stats as stats_module
    from chatpipe.ops.count import resolve_counter
    from chatpipe.pipeline import Job, execute
    from chatpipe.pipeline.job import Inputs
    from chatpipe.pipeline.targets import Stats

    figures = Stats(resolve_counter("approximate"), rows=False, max_tokens=1000)
    files = (
        str(FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl"),
        str(FIXTURES / "hf_messages__llamafactory_v1_sft_loss_weight_first15.jsonl"),
    )

    class Nowhere:
        def line(self, data):
            raise AssertionError("a table run writes no rows")

        def raw(self, data):
            raise AssertionError("a table run writes no rows")

    execute(Job(Inputs(files), None, figures), Nowhere())
    console = Console(record=True, width=118, force_terminal=True, color_system="truecolor")
    names = stats_module._names(figures)  # (two files: a file column)
    stats_module._print_table(console, figures.each, figures.overall(), names)
    text = console.export_text(styles=False, clear=False)
    assert "tokens per conversation" in text and "messages per conversation" in text
    assert re.search(r"\d+ over 1,000 tokens", text)
    svg = tmp_path / "stats-terminal.svg"
    svg.write_text(console.export_svg(title="chatpipe stats"))
    view = Page(browser, svg)
    view.page.set_viewport_size({"width": 1400, "height": 1000})
    drawn = view.page.locator("text").all_text_contents()
    assert sum(line.count("█") for line in drawn) > 20  # the histograms' bars
    assert view.page.locator("svg").bounding_box()["height"] > 600  # the table and both
    view.shot("stats-terminal")


def test_math_artifacts_thinking_and_the_reasoning_recap(browser, tmp_path):
    """What people paste most, as written (#41): ChatGPT's TeX with its backslashes and
    delimiters, Claude's artifacts as titled code, its thinking collapsed, ChatGPT's
    "Thought for 4 seconds" a small note."""
    exports = [
        FIXTURES / "chatgpt_export__realazthat_2024_code_interpreter.json",
        FIXTURES / "claude_export__osteele_web_api_single_conversation_image_file.json",
        FIXTURES / "claude_export__documented_artifact_and_thinking.json",
        FIXTURES / "chatgpt_export__documented_o3_thoughts_reasoning_recap.json",
    ]
    view = Page(browser, write_page(tmp_path, *map(str, exports)))
    page = view.page
    formulas = page.locator("#view .math")
    assert formulas.nth(0).text_content() == "\\( x \\)"
    assert formulas.nth(2).text_content() == "\\( U(0,1) \\)"
    display = page.locator("#view .math.display").first
    assert display.text_content() == "\\[\nE[|x-y|] = \\int_0^1 \\int_0^1 |x-y| \\, dx \\, dy\n\\]"
    box = display.bounding_box()
    assert box["height"] > 40  # its own block, its lines kept
    display.scroll_into_view_if_needed()
    view.shot("math")
    # a real claude.ai conversation: its artifact (a React component) and its thinking
    page.locator("#list li a").nth(1).click()
    artifact = page.locator("#view figure.artifact").first
    assert artifact.locator(".artifact-title").text_content() == "Interactive Bakery Comparison"
    assert artifact.locator(".artifact-kind").text_content() == "jsx · bakery-comparison"
    code = artifact.locator("pre.code code").text_content()
    assert code.startswith("import React, { useState } from 'react';\n")
    assert artifact.locator("pre.code span").count() > 20  # highlighted
    thinking = page.locator("#view details.reasoning").first
    assert thinking.get_attribute("open") is None
    assert not thinking.locator("p").first.is_visible()
    thinking.locator("summary").click()
    assert thinking.locator("p").first.text_content().startswith("This mind map-style comparison")
    assert "antArtifact" not in page.locator("#view").text_content()
    thinking.scroll_into_view_if_needed()
    view.shot("claude-artifact")
    page.locator("#list li a").nth(2).click()
    titles = page.locator("#view figure.artifact .artifact-title").all_text_contents()
    assert titles == ["Convert 5th Degree Polynomial to LFSR", "LFSR key points"]
    view.shot("claude-code-artifact")
    page.locator("#list li a").nth(3).click()
    note = page.locator("#view p.note")
    assert note.count() == 1 and note.text_content() == "Thought for 4 seconds"
    assert page.locator("#view details.raw").count() == 0
    view.shot("reasoning-recap")
    assert view.errors() == []


def test_search_marks_the_words_and_jumps_between_them(browser, tmp_path):
    path = write_page(
        tmp_path,
        str(FIXTURES / "chatgpt_export__pkuppens_2023_conversations_subset.json"),
        str(FIXTURES / "chatgpt_export__realazthat_2024_code_interpreter.json"),
    )
    view = Page(browser, path)
    page = view.page
    page.keyboard.press("/")
    page.keyboard.type("frequency")
    assert visible_titles(page) == ["Average Distance in U(0,1)"]
    page.keyboard.press("Enter")  # opens the conversation that matches, at its first match
    assert page.locator("#view h1").text_content() == "Average Distance in U(0,1)"
    marks = page.locator("#view mark.hit")
    every = page.evaluate(
        "document.getElementById('view').textContent.toLowerCase().split('frequency').length - 1"
    )
    assert every > 3 and marks.count() == every
    assert {m.lower() for m in marks.all_text_contents()} == {"frequency"}
    assert page.locator("#hit-count").text_content() == f"1 of {every} matches"
    first = page.locator("#view mark.hit.current")
    assert first.count() == 1 and first.is_visible()
    page.keyboard.press("Enter")  # the next match
    assert page.locator("#hit-count").text_content() == f"2 of {every} matches"
    page.keyboard.press("Shift+Enter")
    assert page.locator("#hit-count").text_content() == f"1 of {every} matches"
    # a match inside a collapsed tool call: its panel opens when it is reached
    hidden = page.evaluate(
        """() => [...document.querySelectorAll('#view mark.hit')]
            .findIndex((m) => m.closest('details') && !m.closest('details').open)"""
    )
    assert hidden >= 0
    for _ in range(hidden - 0):
        page.locator("#hit-next").click()
    current = page.locator("#view mark.hit.current")
    assert current.evaluate("(m) => m.closest('details').open")
    viewport = page.locator("#view").bounding_box()
    spot = current.bounding_box()
    assert viewport["y"] <= spot["y"] <= viewport["y"] + viewport["height"]
    view.shot("search-hits")
    # a new search marks the new words and nothing of the old
    page.fill("#q", "sympy")
    assert {m.lower() for m in page.locator("#view mark.hit").all_text_contents()} == {"sympy"}
    page.keyboard.press("Escape")
    assert page.locator("#view mark.hit").count() == 0 and page.locator("#hits").is_hidden()
    assert view.errors() == []


def test_expand_all_tool_calls(browser, tmp_path):
    view = Page(browser, write_page(tmp_path, str(FIXTURES / "agent_session.jsonl")))
    page = view.page
    panels = page.locator("#view details.tool")
    total = panels.count()
    assert total > 5
    opened = "() => document.querySelectorAll('#view details.tool[open]').length"
    assert page.evaluate(opened) == 0
    button = page.locator("#view button.expand")
    assert button.text_content() == "Expand all tool calls"
    button.click()
    assert page.evaluate(opened) == total
    assert button.text_content() == "Collapse all tool calls"
    assert panels.last.locator(".tool-result").is_visible()
    view.shot("expand-all")
    button.click()
    assert page.evaluate(opened) == 0
    assert button.text_content() == "Expand all tool calls"
    assert view.errors() == []


def test_a_folder_shares_its_style_and_script_and_keeps_the_search(browser, tmp_path):
    """The folder's pages load the one style sheet and script of assets/ (#44); the
    policy lets them in and nothing else; words searched for in the index are marked in
    the page it opens."""
    out = tmp_path / "site"
    result = runner.invoke(
        app,
        [
            "convert",
            "--to",
            "html",
            "--output-dir",
            str(out),
            str(FIXTURES / "chatgpt_export__realazthat_2024_code_interpreter.json"),
            str(FIXTURES / "chatgpt_export__pkuppens_2023_conversations_subset.json"),
        ],
    )
    assert result.exit_code == 0, result.output
    view = Page(browser, out / "index.html")
    page = view.page
    assert page.evaluate("getComputedStyle(document.getElementById('app')).display") == "grid"
    page.fill("#q", "sympy")
    assert visible_titles(page) == ["Average Distance in U(0,1)"]
    page.locator("#list li:not([hidden]) a").first.click()
    page.wait_for_selector("body[data-ready]")
    assert page.url.endswith("/c/00001.html#q=sympy")
    assert page.evaluate("getComputedStyle(document.getElementById('app')).display") == "grid"
    assert page.input_value("#q") == "sympy"
    assert page.locator("#view mark.hit.current").text_content() == "sympy"
    view.shot("folder-page-search")
    # what the policy refuses: an inline script, a remote script or style
    page.evaluate(
        """() => {
        const inline = document.createElement("script");
        inline.textContent = "window.pwned = 1";
        document.body.appendChild(inline);
        const remote = document.createElement("script");
        remote.src = "https://example.com/x.js";
        document.body.appendChild(remote);
        const style = document.createElement("style");
        style.textContent = "body { display: none }";
        document.head.appendChild(style);
    }"""
    )
    page.wait_for_timeout(200)
    assert page.evaluate("typeof window.pwned") == "undefined"
    assert page.locator("#view").is_visible()
    refused = [line for line in view.console if "Content Security Policy" in line]
    assert len(refused) >= 3, view.console
    assert view.errors() == refused


def test_bidi_controls_show_in_the_list(browser, tmp_path):
    log = tmp_path / "bidi.json"
    log.write_text(
        json.dumps(
            {
                "title": "invoice\u202egpj.exe",
                "messages": [{"role": "user", "content": "hi"}],
            }
        )
    )
    view = Page(browser, write_page(tmp_path, str(log)))
    assert visible_titles(view.page) == ["invoice[U+202E]gpj.exe"]
    assert view.page.title() == "invoice[U+202E]gpj.exe — chatpipe"


def test_a_claude_code_session_with_a_rewind_a_compaction_and_a_subagent(browser, tmp_path):
    session = FIXTURES / "claude_code__derived_rewind_compaction_subagent.jsonl"
    path = write_page(tmp_path, "--branch", "all", "--include-subagents", str(session))
    view = Page(browser, path)
    page = view.page
    # the session, then its subagent's conversation
    assert visible_titles(page) == ["Start", "Reviewer checking PR #102"]
    assert page.locator("#view h1").text_content() == "Start"
    # it opens on the live branch: the later prompt, after the rewind
    branches = page.locator("#view section.branch")
    assert branches.count() == 2
    assert not branches.nth(0).is_visible() and branches.nth(1).is_visible()
    live = branches.nth(1)
    assert live.locator("nav.fork").text_content() == "Branch 2 of 2: 12"
    said = live.locator("article .body").all_text_contents()
    assert [said[2], said[-1]] == ["Second attempt", "Final answer"]
    # the compaction, then its summary as a generated message, not the user's
    note = live.locator("p.note.compact_boundary")
    assert note.is_visible()
    assert (
        note.text_content()
        == "Conversation compacted · auto · 150,000 tokens before 2025-07-01 10:30"
    )
    summary = note.locator("xpath=following-sibling::article[1]")
    assert summary.locator(".role").text_content() == "Summary (generated)"
    assert "ran out of context" in summary.text_content()
    note.scroll_into_view_if_needed()
    view.shot("claude-code-compaction")
    # the Task call that started the subagent, and its result
    task = live.locator("details.tool", has=page.locator(".tool-name", has_text="Task"))
    assert task.locator(".call-id").text_content() == "toolu_0141a8id8CWHmsbTaZRTD38W"
    assert not task.locator(".tool-result").is_visible()
    task.locator("summary").click()
    assert task.locator(".tool-result").is_visible()
    assert '"description": "Reviewer checking PR #102"' in task.locator(".tool-call").text_content()
    assert "Verdict: APPROVE" in task.locator(".tool-result").text_content()
    task.scroll_into_view_if_needed()
    view.shot("claude-code-task-call")
    # the rewound branch: the first prompt and its answer
    live.locator("nav.fork button[data-branch='0']").click()
    assert branches.nth(0).is_visible() and not branches.nth(1).is_visible()
    assert branches.nth(0).locator("article .body").all_text_contents() == [
        "Start",
        "Ready",
        "First attempt",
        "First answer",
    ]
    view.shot("claude-code-rewound-branch")
    # the subagent's own conversation, linked to the call
    page.locator("#list li a").nth(1).click()
    assert page.locator("#view h1").text_content() == "Reviewer checking PR #102"
    facts = page.locator("#view .facts").text_content()
    assert "subagent general-purpose started by toolu_0141a8id8CWHmsbTaZRTD38W in session s1" in (
        facts
    )
    first = page.locator("#view article").first
    assert first.locator(".role").text_content() == "User"
    assert (
        first.locator(".body")
        .text_content()
        .startswith("Read and follow the instructions in .claude/agents/reviewer.md")
    )
    tools = page.locator("#view details.tool .tool-name").all_text_contents()
    assert tools[:2] == ["Read", "Bash"]
    view.shot("claude-code-subagent")
    assert view.errors() == []


def test_a_claude_code_session_reads_as_typed_and_its_results_wrap(browser, tmp_path):
    """A slash command shown as typed, a collapsed call's row saying what it runs, and a
    result's long lines wrapped in their pane, not scrolled out of it (#51)."""
    session = FIXTURES / "claude_code__entire_2026_exit_resume_branch_lines1_53.jsonl"
    view = Page(browser, write_page(tmp_path, "--branch", "all", str(session)))
    page = view.page
    assert visible_titles(page) == ["/exit"]
    command = page.locator("#view p.command")
    shown = "#view section.branch:not([hidden])"
    page.locator(f"{shown} nav.fork button[data-branch='0']").click()
    assert command.is_visible() and command.text_content() == "/exit"
    assert "command-name" not in page.locator("#view").text_content()
    view.shot("claude-code-command")
    page.locator(f"{shown} nav.fork button[data-branch='1']").click()
    calls = page.locator(f"{shown} details.tool")
    bash = calls.filter(has=page.locator(".tool-name", has_text="Bash")).first
    gist = bash.locator("summary .tool-arg")
    assert gist.is_visible() and gist.text_content() == "mise run lint 2>&1"
    bash.scroll_into_view_if_needed()
    view.shot("claude-code-tool-rows")
    edit = calls.filter(has=page.locator(".tool-name", has_text="Edit")).first
    edit.locator("summary").click()
    for pane in (edit.locator(".tool-call pre.code"), edit.locator(".tool-result pre.code")):
        assert pane.evaluate("e => getComputedStyle(e).whiteSpace") == "pre-wrap"
        assert pane.evaluate("e => e.scrollWidth <= e.clientWidth")  # none hidden to the right
    edit.scroll_into_view_if_needed()
    view.shot("claude-code-tool-wrapped")
    assert view.errors() == []
