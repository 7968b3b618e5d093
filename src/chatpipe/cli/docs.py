"""docs/commands.md, made from the command line's own help so that it cannot drift from it,
and docs/formats.md's table of dialects, made from the registry.

``python -m chatpipe.cli.docs docs/commands.md`` writes the first (with no path: to stdout),
``python -m chatpipe.cli.docs --dialects docs/formats.md`` the table in the second;
``tests/test_docs.py`` and ``tests/test_dialects.py`` fail when they differ from what this
makes.
"""

from __future__ import annotations

import re
import sys
import textwrap

import typer
import typer.core
import typer.main

REGENERATE = "python -m chatpipe.cli.docs docs/commands.md"

# what Markdown would read as markup in running text: shown as the characters they are
_MARKUP = re.compile(r"([\\`*_\[\]<>|])")


def _escape(text: str) -> str:
    return _MARKUP.sub(r"\\\1", text)


def _cell(text: str) -> str:
    """A table cell: one line, its pipes escaped."""
    return _escape(" ".join(text.split()))


def _code(text: str) -> str:
    """A code span that holds any text (a backtick inside takes a longer fence)."""
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}".replace("|", "\\|")


def _paragraphs(help_text: str) -> list[tuple[bool, list[str]]]:
    """A command's help as click reads it: paragraphs split by blank lines, each prose or
    code (indented lines: examples, a sample of output). click's ``\\b`` marker (keep the
    lines as written) is dropped: a code block keeps its lines anyway."""
    out: list[tuple[bool, list[str]]] = []
    for block in re.split(r"\n[ \t]*\n", help_text.strip("\n")):
        lines = [line for line in block.split("\n") if line.strip() != "\b"]
        if not lines:
            continue
        code = all(line[:1] in (" ", "\t") for line in lines)
        if code and out and out[-1][0]:
            out[-1][1].extend(textwrap.dedent("\n".join(lines)).split("\n"))
        elif code:
            out.append((True, textwrap.dedent("\n".join(lines)).split("\n")))
        else:
            out.append((False, [line.strip() for line in lines]))
    return out


def _help_markdown(help_text: str) -> list[str]:
    out: list[str] = []
    for code, lines in _paragraphs(help_text):
        if code:
            # text, not sh: the help's own examples, which this file shows as help does
            out += ["```text", *lines, "```", ""]
        else:
            out += [_escape(line) for line in lines] + [""]
    return out


def summary(command: typer.core.TyperCommand) -> str:
    """A command's first paragraph, whole (the list in ``--help`` cuts it to fit)."""
    return " ".join(_paragraphs(command.help or "")[0][1]).rstrip(",:;")


def _anchor(path: str) -> str:
    return path.replace(" ", "-")


def _params_table(command: typer.core.TyperCommand, ctx: typer.Context) -> list[str]:
    rows = []
    for param in command.get_params(ctx):
        record = param.get_help_record(ctx)
        if record is None:  # a hidden option
            continue
        names, help_text = record
        rows.append(f"| {_code(names)} | {_cell(help_text)} |")
    if not rows:
        return []
    return ["| argument or option | what it does |", "|---|---|", *rows, ""]


def _section(
    command: typer.core.TyperCommand | typer.core.TyperGroup, ctx: typer.Context
) -> list[str]:
    path = ctx.command_path
    out = [f"## {path}", "", "```text", command.get_usage(ctx), "```", ""]
    out += _help_markdown(command.help or "")
    out += _params_table(command, ctx)
    return out


def render() -> str:
    """The whole of docs/commands.md."""
    from . import app

    group = typer.main.get_command(app)
    root = typer.Context(group, info_name="chatpipe", **group.context_settings)
    commands = [(name, group.commands[name]) for name in group.list_commands(root)]
    out = [
        "# Commands",
        "",
        "<!-- generated from the command line's own help; do not edit: after changing an",
        f"option or a help text, run `{REGENERATE}` -->",
        "",
        "Every command and every option, as `chatpipe COMMAND --help` prints them. Every",
        "reading command takes files (none, or `-`, reads stdin) in any dialect and container",
        "chatpipe knows ([formats.md](formats.md)); the root options (the limits on hostile",
        "input, [robustness.md](robustness.md)) may stand before or after the command's name.",
        "",
        "| command | what it does |",
        "|---|---|",
    ]
    out += [
        f"| [`{name}`](#{_anchor(f'chatpipe {name}')}) | {_cell(summary(command))} |"
        for name, command in commands
    ]
    out.append("")
    out += _section(group, root)
    for name, command in commands:
        out += _section(command, typer.Context(command, info_name=name, parent=root))
    return "\n".join(out).rstrip("\n") + "\n"


# the table's place in docs/formats.md
DIALECTS_BEGIN = (
    "<!-- dialects: made by python -m chatpipe.cli.docs --dialects docs/formats.md -->\n"
)
DIALECTS_END = "<!-- end of dialects -->"


def with_dialects(page: str) -> str:
    """The formats page with the registry's table of dialects in its place."""
    from ..formats.registry import docs_table

    start = page.index(DIALECTS_BEGIN) + len(DIALECTS_BEGIN)
    return page[:start] + docs_table() + page[page.index(DIALECTS_END) :]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--dialects"]:
        with open(args[1], encoding="utf-8") as page:
            text = with_dialects(page.read())
        with open(args[1], "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
        return 0
    text = render()
    if args:
        with open(args[0], "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":  # pragma: no cover - the module run as a script
    raise SystemExit(main())
