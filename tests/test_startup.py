"""Start-up stays lean: the package and a command load only what they use."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import chatpipe
import chatpipe.cli

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("package", "extra"), [("chatpipe", {"__version__"}), ("chatpipe.pipeline", set())]
)
def test_lazy_exports_match_the_type_checking_imports(package, extra) -> None:
    """A package's names that load on first use are those its TYPE_CHECKING block
    imports, each the object its module holds."""
    module = importlib.import_module(package)
    tree = ast.parse(Path(module.__file__).read_text())
    checking = [
        node
        for node in tree.body
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING"
    ]
    assert len(checking) == 1
    typed: dict[str, str] = {}
    for node in ast.walk(checking[0]):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            for alias in node.names:
                typed[alias.name] = "." + (node.module or "")
    assert typed == module._EXPORTS
    assert set(module.__all__) == set(typed) | extra
    assert dir(module) == sorted(module.__all__)
    for name, where in typed.items():
        value = getattr(module, name)
        assert value is getattr(sys.modules[package + where], name)


@pytest.mark.parametrize("package", ["chatpipe", "chatpipe.pipeline"])
def test_unknown_attribute_is_an_attribute_error(package) -> None:
    with pytest.raises(AttributeError, match=f"module '{package}' has no attribute 'NoSuchThing'"):
        importlib.import_module(package).NoSuchThing  # noqa: B018


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
    for other in ("trim", "stats", "show", "validate", "filter", "convert", "openai_dicts"):
        assert f"chatpipe.cli.{other}" not in loaded
    # what this interpreter loads anyway (site hooks may pull in tempfile, say) is not ours
    baseline = _modules_of("import typer, orjson")
    for heavy in ("rich", "yaml", "tiktoken", "tempfile", "pydantic", "base64"):
        assert heavy not in loaded or heavy in baseline, heavy
    # nor the parts of chatpipe that buffer does not use: the pipeline package loads its
    # public names on first use, and the content blocks' TypedDicts wait for a text file
    for unused in (
        "pipeline.trim_policy",
        "ops.trim",
        "ops.count",
        "formats.openai_writer",
        "model.blocks",
    ):
        assert f"chatpipe.{unused}" not in loaded, unused


def test_help_and_unknown_commands_see_every_command() -> None:
    assert chatpipe.cli.invoked_command(["--help"]) is None
    assert chatpipe.cli.invoked_command(["bufer", "x"]) is None
    assert chatpipe.cli.invoked_command(["--max-depth", "buffer", "trim"]) == "trim"
    assert chatpipe.cli.invoked_command(["--max-depth=5", "buffer"]) == "buffer"
    names = {info.name for info in chatpipe.cli.app.registered_commands}
    assert names == set(chatpipe.cli.COMMANDS)


def test_version_loads_no_more_than_a_small_run_of_buffer() -> None:
    fixture = str(ROOT / "fixtures/openai_tool_calls.jsonl")
    version = _modules_after(["--version"])
    buffer = _modules_after(["buffer", fixture])
    assert len(version) <= len(buffer), sorted(version - buffer)
    assert not any(
        name.startswith("chatpipe.cli.") and name != "chatpipe.cli.argv" for name in version
    )
