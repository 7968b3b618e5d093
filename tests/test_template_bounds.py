"""Template bombs (#44): a render's output, the values it builds, its loops and its time are
bounded, and each bound broken is one located line that ``--on-error skip`` skips.

Each bomb here ran out of memory, raised an internal error or never ended before; each is
now refused before the operation runs, so the tests are quick. The sandbox still holds.
"""

from __future__ import annotations

import time

import pytest
from typer.testing import CliRunner

from chatpipe.cli import app
from chatpipe.templates import ChatTemplate
from chatpipe.templates.bounds import TemplateLimits, parse_size, size_text
from chatpipe.templates.guards import text_size

runner = CliRunner()
LOG = '{"role": "user", "content": "hi"}\n'
ROWS = '{"messages": [{"role": "user", "content": "hi"}]}\n' * 2  # two conversations
OUTPUT = "(see --template-max-output)"

BOMBS = [
    # (the template, what the line says after "FILE:1:1: ")
    (
        "{{ ('a'*10**10)|length }}",
        f"the chat template built a value of 9.3 GiB, more than 64 MiB {OUTPUT}",
    ),
    (
        "{{ messages|tojson(indent=10**9) }}",
        f"the chat template built JSON of 72.6 GiB, more than 64 MiB {OUTPUT}",
    ),
    (
        "{{ 'a'.ljust(10**10) }}",
        f"the chat template built a value of 9.3 GiB, more than 64 MiB {OUTPUT}",
    ),
    (
        "{{ '%0999999999d'%1 }}",
        f"the chat template built a value of 953.7 MiB, more than 64 MiB {OUTPUT}",
    ),
    (
        "{{ '{:>9999999999}'.format(1) }}",
        f"the chat template built a value of 9.3 GiB, more than 64 MiB {OUTPUT}",
    ),
    (
        "{{ 'x'|center(10**10) }}",
        f"the chat template built a value of 9.3 GiB, more than 64 MiB {OUTPUT}",
    ),
    (
        "{{ 'a\\nb'|indent(10**9, true) }}",
        f"the chat template built a value of 1.9 GiB, more than 64 MiB {OUTPUT}",
    ),
    (
        "{{ '%*d' % (10**9, 1) }}",
        f"the chat template built a value of 953.7 MiB, more than 64 MiB {OUTPUT}",
    ),
    (
        "{{ 'ab'|replace('a', 'a'*10**6)|replace('a', 'a'*10**6) }}",
        f"the chat template built a value of 931.3 GiB, more than 64 MiB {OUTPUT}",
    ),
    (
        "{{ ['ab']|batch(10**10, 'x')|list }}",
        f"the chat template built a list of 74.5 GiB, more than 64 MiB {OUTPUT}",
    ),
    (
        "{{ strftime_now('%999999999Y') }}",
        f"the chat template built a value of 953.7 MiB, more than 64 MiB {OUTPUT}",
    ),
    (
        "{{ lipsum(10**7)|length }}",
        f"the chat template built lorem ipsum of 7.5 GiB, more than 64 MiB {OUTPUT}",
    ),
    (
        "{{ 3**400000000 }}",
        "the chat template computed a number of more than 131,072 bits (Python prints at most 4,300 digits)",
    ),
    # a list holding one long string a million times prints as a long text
    (
        "{{ ['x'*60000000]*1000000 }}",
        f"the chat template built a text of more than 64 MiB {OUTPUT}",
    ),
    (
        "{{ (['x'*60000000]*1000000)|join }}",
        f"the chat template built a value of 54.6 TiB, more than 64 MiB {OUTPUT}",
    ),
    (
        "{{ (['x'*60000000]*1000000)|tojson }}",
        f"the chat template built JSON of more than 64 MiB {OUTPUT}",
    ),
    # doubling, by ~ and by +
    (
        "{% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}",
        f"the chat template built a value of 128 MiB, more than 64 MiB {OUTPUT}",
    ),
    (
        "{% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s + ns.s %}{% endfor %}",
        f"the chat template built a value of 128 MiB, more than 64 MiB {OUTPUT}",
    ),
    # the output itself: the same string printed a million times is held once, then measured
    (
        "{% set s = 'x' * 60000 %}{% for i in range(100000) %}{{ s }}{% endfor %}",
        "the chat template wrote more than 64 MiB for this conversation (see --template-max-output)",
    ),
    (
        "{% set s = 'x' * 60000 %}{% set t %}{% for i in range(100000) %}{{ s }}{% endfor %}{% endset %}",
        f"the chat template built a text of 5.6 GiB, more than 64 MiB {OUTPUT}",
    ),
    # loops and time
    (
        "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
        "the chat template looped more than 1,000,000 times (see --template-max-loops)",
    ),
    (
        "{{ range(10**9)|length }}",
        "the chat template failed on this conversation: a range of more than 100,000 numbers",
    ),
    (
        "{{ 'x'|truncate(-5) }}",
        "the chat template failed on this conversation: expected length >= 3, got -5",
    ),
    (
        "{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}",
        "the chat template called itself too deeply (a macro or a recursive loop that does not end)",
    ),
]


@pytest.mark.parametrize(("source", "said"), BOMBS, ids=[b[0][:40] for b in BOMBS])
def test_a_bomb_is_one_located_line_that_skip_skips(tmp_path, source, said):
    template = tmp_path / "bomb.jinja"
    template.write_text(source)
    log = tmp_path / "log.jsonl"
    log.write_text(LOG)
    started = time.monotonic()
    failed = runner.invoke(app, ["template", "--chat-template", str(template), str(log)])
    assert (failed.exit_code, failed.stdout, failed.stderr) == (
        1,
        "",
        f"chatpipe: error: {log}:1:1: {said}\n",
    )
    skipped = runner.invoke(
        app, ["template", "--chat-template", str(template), "--on-error", "skip", str(log)]
    )
    assert skipped.exit_code == 0
    assert skipped.stderr.splitlines() == [
        f"chatpipe: skipped: {log}:1:1: {said}",
        "chatpipe: warning: skipped 1 bad record",
    ]
    assert time.monotonic() - started < 20


def test_the_limits_are_options(tmp_path):
    template = tmp_path / "t.jinja"
    log = tmp_path / "log.jsonl"
    log.write_text(ROWS)

    def run(source, *options):
        template.write_text(source)
        return runner.invoke(
            app, ["template", "--chat-template", str(template), *options, str(log)]
        )

    result = run("{{ 'a' * 100 }}", "--template-max-output", "99")
    assert result.stderr == (
        f"chatpipe: error: {log}:1:1: the chat template built a value of 100 bytes, more than"
        f" 99 bytes {OUTPUT}\n"
    )
    assert run("{{ 'a' * 100 }}", "--template-max-output", "100").stdout == (
        '"' + "a" * 100 + '"\n"' + "a" * 100 + '"\n'
    )
    result = run("{% for i in range(6) %}{% endfor %}.", "--template-max-loops", "5")
    assert result.stderr == (
        f"chatpipe: error: {log}:1:1: the chat template looped more than 5 times"
        " (see --template-max-loops)\n"
    )
    assert run("{% for i in range(5) %}{% endfor %}.", "--template-max-loops", "5").stdout == (
        '"."\n"."\n'
    )
    # time: a macro that calls itself twice does not loop, and still ends
    started = time.monotonic()
    result = run(
        "{% macro f(n) %}{% if n > 0 %}{{ f(n-1) }}{{ f(n-1) }}{% endif %}{% endmacro %}{{ f(40) }}",
        "--template-timeout",
        "0.5",
        "--on-error",
        "skip",
    )
    assert time.monotonic() - started < 10
    assert result.stderr.splitlines() == [
        f"chatpipe: skipped: {log}:1:1: the chat template ran for more than 0.5 s"
        " (see --template-timeout)",
        f"chatpipe: skipped: {log}:2:1: the chat template ran for more than 0.5 s"
        " (see --template-timeout)",
        "chatpipe: warning: skipped 2 bad records",
    ]
    result = run("{{ 1 }}", "--template-max-output", "lots")
    assert (result.exit_code, result.stderr) == (
        2,
        "chatpipe: error: --template-max-output takes a size such as 64M, 1G or 500K, got 'lots'\n",
    )
    counted = runner.invoke(app, ["count", "--template-timeout", "3"], input=LOG)
    assert (counted.exit_code, counted.stderr) == (
        2,
        "chatpipe: error: --template-max-output, --template-max-loops and --template-timeout"
        " go with --chat-template\n",
    )


def test_memory_that_only_accumulates_is_bounded(tmp_path):
    """Strings under the size bound each, kept by the thousand: the process's growth."""
    template = tmp_path / "t.jinja"
    template.write_text(
        "{% set ns = namespace(l=[]) %}{% for i in range(100000) %}"
        "{% set ns.l = ns.l + [('%08d' % i) * 125000] %}{% endfor %}{{ ns.l|length }}"
    )
    result = runner.invoke(
        app,
        ["template", "--chat-template", str(template), "--template-max-output", "2M"],
        input=LOG,
    )
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        "chatpipe: error: <stdin>:1:1: the chat template took more than 32 MiB of memory"
        " (16 times --template-max-output)\n"
    )


def test_ordinary_templates_are_not_refused():
    """What real templates do (long messages, tools as JSON, many turns) stays within."""
    long = "word " * 200_000  # a megabyte of text in one message
    messages = [{"role": "user", "content": long}, {"role": "assistant", "content": long}] * 5
    template = ChatTemplate(
        "fixtures/chat_templates/Qwen-Qwen2.5-7B-Instruct.jinja",
        tools=[
            {"type": "function", "function": {"name": f"f{i}", "parameters": {}}}
            for i in range(500)
        ],
    )
    text = template.render_dicts(messages)
    assert text.count(long) == 10 and text.count('"name": "f499"') == 1


def test_the_sandbox_still_holds_with_the_bounds(tmp_path):
    """The checks look at arguments, never reach past the sandbox: escapes are refused."""
    for source in (
        "{{ ''.__class__.__mro__ }}",
        "{{ ('{0.__class__}' * 2).format(messages) }}",
        "{{ 'x'.ljust.__self__.__class__ }}",
        "{{ (messages|batch(1, messages.__class__))|list }}",
        "{{ lipsum.__globals__ }}",
        "{{ cycler.__init__.__globals__ }}",
        "{% for x in messages.__class__.__subclasses__() %}{{ x }}{% endfor %}",
        "{{ messages|map('center', 5)|join|attr('__class__') }}",
    ):
        template = tmp_path / "evil.jinja"
        template.write_text(source)
        result = runner.invoke(app, ["template", "--chat-template", str(template)], input=LOG)
        assert result.exit_code == 1, source
        assert "class" not in result.stdout and "globals" not in result.stdout, source
        assert (
            "sandbox forbids" in result.stderr
            or "unsafe" in result.stderr
            or "undefined" in result.stderr
        ), (source, result.stderr)


def test_sizes_and_their_words():
    assert [parse_size(s, "--x") for s in ("64M", "1G", "500k", "4096", "1.5KiB")] == [
        64 << 20,
        1 << 30,
        500 << 10,
        4096,
        1536,
    ]
    for bad in ("", "0", "-1M", "1T", "M"):
        with pytest.raises(ValueError, match="--x"):
            parse_size(bad, "--x")
    assert [size_text(n) for n in (900, 1024, 1536, 64 << 20, 3 << 40)] == [
        "900 bytes",
        "1 KiB",
        "1.5 KiB",
        "64 MiB",
        "3 TiB",
    ]
    shared = ["x" * 1000] * 1000
    assert text_size(shared, 10**9) == 2 + 1000 * (1002 + 2)
    for value in (shared, {"a": [1, (2, 3)], "b": None}, [["é" * 10, {"k": 10**20}]] * 3, "x"):
        assert len(str(value)) <= text_size(value, 10**9) <= 4 * len(str(value)) + 64
    assert text_size([shared] * 1000, 10**6) < 2 * 10**6  # stops once past the cap
    assert TemplateLimits() == TemplateLimits(64 << 20, 1_000_000, 10.0)


# ordinary uses of every checked operation render as transformers renders them
ORDINARY = [
    "{{ 'a' * 3 }}|{{ 3 * 'b' }}|{{ [1, 2] * 2 }}|{{ 2 ** 10 }}|{{ 7 * 6 }}|{{ [1] + [2] }}",
    "{{ '%-5s|%05.1f|%(x)s' % ('ab', 3.14159, ) if false else '%-5s|%05.1f' % ('ab', 3.14159) }}",
    "{{ '%(name)s=%(n)d' % {'name': 'k', 'n': 3} }}|{{ '%*d' % (4, 7) }}",
    "{{ '{:>6}|{:.2f}|{name}'.format('r', 2.5, name='n') }}|{{ '{0:{1}}'.format('w', 4) }}",
    "{{ '{a}-{b}'.format_map({'a': 1, 'b': messages[0].role}) }}",
    "{{ 'x'.ljust(4) }}|{{ 'x'.rjust(4) }}|{{ 'x'.center(5, '*') }}|{{ '7'.zfill(3) }}",
    "{{ 'a\\tb'.expandtabs(4) }}|{{ 'aXbX'.replace('X', '--') }}|{{ 'aXbX'.replace('X', '-', 1) }}",
    "{{ ', '.join(['a', 'b']) }}|{{ '-'.join(messages|map(attribute='role')) }}",
    "{{ 'abc'.translate({97: 'AA'}) }}|{{ 'a b  c'.split() }}|{{ 'a,b'.split(',') }}",
    "{{ 'a\\nb'.splitlines() }}|{{ 'a,b,c'.rsplit(',', 1) }}",
    "{{ 'hi'|center(6) }}|{{ 'a\\nb'|indent(2, true) }}|{{ '%s-%s'|format('a', 1) }}",
    "{{ 'aXb'|replace('X', 'yy') }}|{{ ['a', 'b']|join('+') }}|{{ messages|join(',', attribute='role') }}",
    "{{ [[1], [2, 3]]|sum(start=[]) }}|{{ [1, 2]|sum }}|{{ [(1,), (2,)]|sum(start=()) }}",
    "{{ [1, 2, 3]|batch(2, 0)|list }}|{{ [1, 2, 3]|slice(2)|list }}|{{ 'ab'|list }}",
    "{{ 'aaa bbb ccc'|wordwrap(4, wrapstring='/') }}|{{ '<&>\"'|e }}|{{ 'x'|escape }}",
    "{{ 'x'|truncate(5) }}|{{ [3, 1]|sort }}|{{ 'ab'|unique|list }}|{{ {'a': 1}|tojson }}",
    "{{ messages|tojson(indent=2) }}|{{ [1, [2]]|tojson(false, 1) }}",
    "{{ dict.fromkeys(['a', 'b'], 0) }}|{{ dict(a=1) }}|{{ lipsum(2, false)|wordcount > 10 }}",
    "{{ [1, 2] }}|{{ {'k': [1]} }}|{{ ['x'] ~ 'y' }}|{{ 'a' ~ 1 ~ none }}",
    "{% macro m(x) %}<{{ x }}>{% endmacro %}{{ m('a') }}{% set b %}[{{ m(1) }}]{% endset %}{{ b }}",
    "{% for x in [[1, [2]], [3]] recursive %}{{ x if x is number else loop(x) }}{% endfor %}",
    "{% filter upper %}{{ messages[0].content }}{% endfilter %}{{ strftime_now('%Y') | length }}",
    "{% set ns = namespace(s='') %}{% for m in messages %}{% set ns.s = ns.s + m.role %}{% endfor %}{{ ns.s }}",
]


@pytest.mark.parametrize("source", ORDINARY)
def test_ordinary_uses_render_as_transformers(source):
    from transformers.utils.chat_template_utils import render_jinja_template

    from chatpipe.templates.source import TemplateSource

    chat = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]
    theirs = render_jinja_template([chat], chat_template=source)[0][0]
    ours = ChatTemplate(TemplateSource("t", {"default": source})).render_dicts(chat)
    assert ours == theirs


REFUSED = [
    ("{{ 'a\\t'.expandtabs(10**9) }}", "a value of 1.9 GiB"),
    ("{{ 'aaaa'.replace('a', 'b' * 10**7) }}", "a value of 38.1 MiB"),
    ("{{ ('x' * 1000).replace('x', 'y' * 10**5, 800) }}", "a value of 76.3 MiB"),
    ("{{ ''.join(['x' * 10**6] * 100) }}", "a value of 95.4 MiB"),
    ("{{ 'aaaa'.translate({97: 'b' * 10**7}) }}", "a value of 38.1 MiB"),
    ("{{ (('ab ' * 10**7).split())|length }}", "a list of strings of 610.4 MiB"),
    ("{{ '{}'.format(['x' * 10**7] * 10) }}", "a text of more than 32 MiB"),
    ("{{ '%s' % (['x' * 10**7] * 10,) }}", "a text of more than 32 MiB"),
    ("{{ '%s'|format(['x' * 10**7] * 10) }}", "a text of more than 32 MiB"),
    ("{{ (['x' * 10**7] * 10)|string }}", "a text of more than 32 MiB"),
    ("{{ (['x' * 10**7] * 10)|join(',') }}", "a value of 95.4 MiB"),
    ("{{ ([{'a': 'x' * 10**7}] * 10)|join(attribute='a') }}", "a value of 95.4 MiB"),
    ("{{ ([['x'] * 10**6] * 10)|sum(start=[]) }}", "a list of 76.3 MiB"),
    ("{{ [1]|slice(10**7)|list }}", "a list of lists of 610.4 MiB"),
    ("{{ ('x ' * 10**6)|wordwrap(1, wrapstring='-' * 100) }}", "a value of 192.6 MiB"),
    ("{{ ('<' * 10**7)|e }}", "a value of 38.1 MiB"),
    ("{{ ('x' * 10**7)|list }}", "a list of 76.3 MiB"),
    ("{{ dict.fromkeys(range(100000) | list * 20, 1) }}", "a dict of 122.1 MiB"),
    ("{{ ('x' * 10**7) ~ ('x' * 10**7) ~ ('x' * 10**7) ~ ('x' * 10**7) }}", "a value of 38.1 MiB"),
    ("{{ raise_exception(['x' * 10**7] * 10) }}", "an error message of more than 32 MiB"),
    ("{{ (['x' * 10**6] * 10) + (['x'] * 10**7) }}", "a value of 76.3 MiB"),
]


@pytest.mark.parametrize(("source", "built"), REFUSED, ids=[r[0][:40] for r in REFUSED])
def test_each_checked_operation_is_refused_before_it_runs(source, built):
    from chatpipe.errors import ChatpipeError
    from chatpipe.templates.source import TemplateSource

    template = ChatTemplate(
        TemplateSource("t", {"default": source}), limits=TemplateLimits(max_output=32 << 20)
    )
    with pytest.raises(ChatpipeError) as caught:
        template.render_dicts([{"role": "user", "content": "hi"}])
    more = "" if "more than" in built else ", more than 32 MiB"
    assert str(caught.value) == f"the chat template built {built}{more} (see --template-max-output)"


@pytest.mark.parametrize("fill", ["urlize", "wordwrap", "striptags"])
def test_the_time_limit_holds_inside_one_long_filter_call(tmp_path, fill):
    """One call of a slow filter on a text of megabytes (urlize ran 5 s under
    --template-timeout 1, striptags is quadratic): the clock is looked at inside the
    call too, and the render ends with the limit's line (#51). A subprocess with a
    timeout: on the old code this test fails, it does not hang."""
    import json
    import subprocess
    import sys

    # 18 MB: wordwrap takes about 0.5 s of processor time on 6 MB here, as long as the limit
    # (which made the test pass or fail with the machine's speed); three times that, 1.5 s
    text = "see https://example.com/x and <b>mail</b> a@b.co " * 360_000
    log = tmp_path / "big.jsonl"
    log.write_text(json.dumps({"role": "user", "content": text}) + "\n", encoding="utf-8")
    template = tmp_path / "t.jinja"
    template.write_text("{{ messages[0].content | " + fill + " }}")
    command = ["template", "--chat-template", str(template), "--template-timeout", "0.5"]
    done = subprocess.run(
        [sys.executable, "-m", "chatpipe", *command, str(log)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (done.returncode, done.stdout) == (1, ""), done.stderr
    assert done.stderr == (
        f"chatpipe: error: {log}:1:1: the chat template ran for more than 0.5 s"
        " (see --template-timeout)\n"
    )
