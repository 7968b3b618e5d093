"""The package's layers: no import cycle, arrows pointing down (docs/ARCHITECTURE.md)."""

from __future__ import annotations

import ast
import pathlib
import subprocess
import sys

import pytest

SRC = pathlib.Path(__file__).resolve().parent.parent / "src" / "chatpipe"
MODULES = sorted(
    "chatpipe." + ".".join(path.relative_to(SRC).with_suffix("").parts).removesuffix(".__init__")
    for path in SRC.rglob("*.py")
    if path.name != "__main__.py"
)


def test_every_module_imports_first_in_a_fresh_interpreter():
    """A cycle shows as an ImportError when the wrong module of it is imported first."""
    script = (
        "import importlib, sys\n"
        "for name in sys.argv[1:]:\n"
        "    for key in [k for k in sys.modules if k == 'chatpipe' or k.startswith('chatpipe.')]:\n"
        "        del sys.modules[key]\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except Exception as exc:\n"
        "        print(name, type(exc).__name__, exc)\n"
    )
    # one interpreter per module would take seconds; clearing sys.modules between them
    # gives each module a first import all the same
    done = subprocess.run(
        [sys.executable, "-c", script, *MODULES], capture_output=True, text=True, check=True
    )
    assert len(MODULES) > 60
    assert done.stdout == ""


def _is_module(package: str, name: str) -> bool:
    where = SRC.joinpath(*package.split(".")[1:], name)
    return where.with_suffix(".py").exists() or where.is_dir()


def _imports(path: pathlib.Path) -> set[str]:
    """The chatpipe modules one module imports, at the top or inside functions."""
    module = "chatpipe." + ".".join(path.relative_to(SRC).with_suffix("").parts)
    package = module.rsplit(".", 1)[0] if path.name != "__init__.py" else module[:-9]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.startswith("chatpipe"):
                found.add(target)
                found.update(
                    f"{target}.{alias.name}"
                    for alias in node.names
                    if _is_module(target, alias.name)
                )
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("chatpipe"))
    return {name for name in found if name.replace("chatpipe.", "", 1) != name}


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


# the layers from the bottom up: a module imports only its own layer and those below
# (docs/ARCHITECTURE.md, "Layers"; the README's "Architecture" says where chatpipe's order
# differs); pipeline and fast enter each other through named hooks
RANKS = {
    "": 0,  # chatpipe itself: the version, and the public names resolved lazily
    "_exports": 0,  # how a package's public names load on first use (chatpipe, pipeline)
    "errors": 0,
    "model": 1,
    "io": 2,
    "render": 3,
    "formats": 4,
    "ops": 5,
    "templates": 6,
    "pipeline": 7,
    "fast": 7,
    "dask": 8,  # chatpipe.dask: the pipeline's parts on a Dask cluster (the extra dask)
    "cli": 9,
}


@pytest.mark.parametrize("layer", sorted(RANKS))
def test_a_layer_imports_only_the_layers_below_it(layer):
    wrong = []
    for path in sorted(SRC.rglob("*.py")):
        if _layer("chatpipe." + ".".join(path.relative_to(SRC).parts)) != layer:
            continue
        for target in sorted(_imports(path)):
            other = _layer(target)
            if RANKS.get(other, 99) > RANKS[layer]:
                wrong.append(f"{path.relative_to(SRC)} imports {target}")
    assert wrong == []


def test_the_core_neither_imports_the_terminal_libraries_nor_prints():
    wrong = []
    for path in sorted(SRC.rglob("*.py")):
        if path.relative_to(SRC).parts[0] in ("cli", "entry.py", "__main__.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "print":
                wrong.append(f"{path.relative_to(SRC)}:{node.lineno} prints")
            wrong.extend(
                f"{path.relative_to(SRC)}:{node.lineno} imports {name}"
                for name in names
                if name.split(".")[0] in ("typer", "rich", "click")
            )
    assert wrong == []
