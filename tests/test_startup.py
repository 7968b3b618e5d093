"""Start-up stays lean: the package and a command load only what they use."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import chatpipe
import chatpipe.cli

ROOT = Path(__file__).resolve().parent.parent


def test_lazy_exports_match_the_type_checking_imports() -> None:
    tree = ast.parse((ROOT / "src/chatpipe/__init__.py").read_text())
    typed: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            for alias in node.names:
                typed[alias.name] = "." + (node.module or "")
    assert typed == chatpipe._EXPORTS
    assert set(chatpipe.__all__) == set(typed) | {"__version__"}
    for name, module in typed.items():
        value = getattr(chatpipe, name)
        assert value is getattr(sys.modules["chatpipe" + module], name)


def test_unknown_attribute_is_an_attribute_error() -> None:
    try:
        chatpipe.NoSuchThing  # noqa: B018
    except AttributeError as error:
        assert "NoSuchThing" in str(error)
    else:
        raise AssertionError("no AttributeError")


def _modules_after(argv: list[str]) -> set[str]:
    """Modules loaded by a ``chatpipe`` run with these arguments, in a fresh interpreter."""
    return _modules_of(
        "from chatpipe.cli import execute\n"
        f"sys.argv = ['chatpipe', *{argv!r}]\n"
        "execute()\n"
        "sys.stdout.flush()\n"
    )


def _modules_of(code: str) -> set[str]:
    code = "import sys\n" + code + "\nprint('\\n'.join(sorted(sys.modules)), file=sys.stderr)\n"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    return set(done.stderr.split())


def test_a_command_loads_only_its_own_module() -> None:
    fixture = str(ROOT / "fixtures/openai_tool_calls.jsonl")
    loaded = _modules_after(["--max-depth", "300", "buffer", fixture])
    assert "chatpipe.cli.buffer" in loaded
    for other in ("trim", "stats", "show", "validate", "filter", "convert", "openai"):
        assert f"chatpipe.cli.{other}" not in loaded
    # what this interpreter loads anyway (site hooks may pull in tempfile, say) is not ours
    baseline = _modules_of("import typer, orjson")
    for heavy in ("rich", "yaml", "tiktoken", "tempfile", "pydantic"):
        assert heavy not in loaded or heavy in baseline, heavy


def test_help_and_unknown_commands_see_every_command() -> None:
    assert chatpipe.cli.invoked_command(["--help"]) is None
    assert chatpipe.cli.invoked_command(["bufer", "x"]) is None
    assert chatpipe.cli.invoked_command(["--max-depth", "buffer", "trim"]) == "trim"
    assert chatpipe.cli.invoked_command(["--max-depth=5", "buffer"]) == "buffer"
    names = {info.name for info in chatpipe.cli.app.registered_commands}
    assert names == set(chatpipe.cli.COMMANDS)
