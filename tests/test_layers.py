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
                modules = {a.name for a in node.names if _is_module(target, a.name)}
                found.update(f"{target}.{name}" for name in modules)
                if len(modules) < len(node.names):  # (names the package itself holds)
                    found.add(target)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("chatpipe"))
    return {name for name in found if name == "chatpipe" or name.startswith("chatpipe.")}


def _layer(module: str) -> str:
    """A module's layer: its subpackage, or a top-level module's own name ("" for the
    package itself)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _file_layer(path: pathlib.Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return "" if parts == ("__init__",) else parts[0]


# the layers from the bottom up: a module imports only its own layer and those below, at
# the top of a file or inside a function (docs/architecture.md, "Layers")
RANKS = {
    "errors": 0,
    "_exports": 0,  # how a package's public names load on first use (chatpipe, pipeline)
    "model": 1,
    "io": 2,
    "render": 3,
    "formats": 4,
    "ops": 5,
    "": 6,  # chatpipe itself: the version, and langchain's names resolved lazily
    "templates": 7,
    "fast": 8,  # performance only, below the pipeline that calls it through its hooks
    "pipeline": 9,
    "dask": 10,  # chatpipe.dask: the bag API (the extra dask)
    "cli": 11,
    "entry": 12,  # the console entry point
    "__main__": 12,  # python -m chatpipe
}


def test_every_file_has_a_layer():
    files = sorted(SRC.rglob("*.py"))
    assert len(files) > 60
    assert [str(p) for p in files if _file_layer(p) not in RANKS] == []
    assert {_file_layer(p) for p in files} == set(RANKS)  # and every layer has files


@pytest.mark.parametrize("layer", sorted(RANKS))
def test_a_layer_imports_only_the_layers_below_it(layer):
    files = [path for path in sorted(SRC.rglob("*.py")) if _file_layer(path) == layer]
    assert files  # (a layer with no file would check nothing)
    wrong = []
    for path in files:
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


def _module_of(path: pathlib.Path) -> str:
    return "chatpipe." + ".".join(path.relative_to(SRC).with_suffix("").parts).removesuffix(
        ".__init__"
    )


def test_no_two_modules_import_each_other_however_far_round():
    """No circle of imports between modules, within a layer too: at the top of a file,
    inside a function or for type checking only (what farm-studio draws as a circle)."""
    arrows = {_module_of(path): _imports(path) for path in SRC.rglob("*.py")}
    circles, seen = [], set()
    for start in sorted(arrows):
        # the modules reachable from start; a circle when start is among them
        stack, reached = [start], set()
        while stack:
            for other in arrows.get(stack.pop(), ()):
                if other not in reached and other in arrows:
                    reached.add(other)
                    stack.append(other)
        if start in reached and start not in seen:
            ring = sorted(m for m in reached if start in _reach(arrows, m))
            seen.update(ring)
            circles.append(ring)
    assert len(arrows) > 60
    assert circles == []


def _reach(arrows: dict[str, set[str]], start: str) -> set[str]:
    stack, reached = [start], set()
    while stack:
        for other in arrows.get(stack.pop(), ()):
            if other not in reached and other in arrows:
                reached.add(other)
                stack.append(other)
    return reached
