"""The package as a release makes it: ``python -m build`` turns the checkout's files into an
sdist and a wheel built from that sdist (as PyPI's users get them), ``twine check`` passes
both, the wheel holds the package data, and every place that states the version agrees:
pyproject.toml's (as the build backend reads it into the sdist and the wheel), the installed
wheel's ``chatpipe --version``, ``chatpipe.__version__`` and CHANGELOG.md's newest release.
``build`` and ``twine`` are pinned in the ``test`` extra: missing, the test fails."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

from conftest import ROOT

# what the wheel must carry besides the modules (pyproject's package-data)
DATA = [
    "chatpipe/py.typed",
    "chatpipe/render/viewer/viewer.css",
    "chatpipe/render/viewer/viewer.js",
]


def _source(into: Path) -> Path:
    """The checkout's files as a build sees them (tracked, and new ones not ignored), copied
    so that the build's own files (``*.egg-info``) never land in the checkout."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, (n.decode() for n in listed)):
        if (ROOT / name).is_file():
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, into / name)
    return into


def _run(*command: str | Path, **options) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [str(c) for c in command], capture_output=True, text=True, timeout=300, **options
    )
    assert done.returncode == 0, f"{command}:\n{done.stdout}\n{done.stderr}"
    return done


def _field(metadata: str, name: str) -> str:
    found = re.search(rf"^{name}: (.+)$", metadata, flags=re.M)
    assert found, f"no {name} in the metadata"
    return found.group(1).strip()


def test_the_release_builds_checks_and_says_one_version(tmp_path):
    source, dist = _source(tmp_path / "source"), tmp_path / "dist"
    _run(sys.executable, "-m", "build", "--outdir", dist, source, cwd=tmp_path)
    (sdist,) = dist.glob("chatpipe-*.tar.gz")
    (wheel,) = dist.glob("chatpipe-*-py3-none-any.whl")
    checked = _run(sys.executable, "-m", "twine", "check", "--strict", sdist, wheel, cwd=tmp_path)
    assert checked.stdout.count("PASSED") == 2, checked.stdout

    with tarfile.open(sdist) as archive:
        top = sdist.name.removesuffix(".tar.gz")
        members = set(archive.getnames())
        info = archive.extractfile(f"{top}/PKG-INFO").read().decode()
    version = _field(info, "Version")  # pyproject's, as the build backend read it
    assert top == f"chatpipe-{version}"
    assert {f"{top}/README.md", f"{top}/pyproject.toml", f"{top}/LICENSE"} <= members
    assert {f"{top}/src/{name}" for name in DATA} <= members

    with zipfile.ZipFile(wheel) as archive:
        metadata = archive.read(f"chatpipe-{version}.dist-info/METADATA").decode()
        for name in DATA:  # the same bytes as the checkout's
            assert archive.read(name) == (ROOT / "src" / name).read_bytes(), name
        archive.extractall(tmp_path / "installed")
        licence = archive.read(f"chatpipe-{version}.dist-info/licenses/LICENSE")
    assert licence == (ROOT / "LICENSE").read_bytes()  # the text the MIT licence asks for
    assert _field(metadata, "Version") == version
    assert _field(metadata, "License-Expression") == "MIT"

    # the wheel's own command, not the checkout's
    installed = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path / "installed")}
    shown = _run(sys.executable, "-m", "chatpipe", "--version", cwd=tmp_path, env=installed)
    assert shown.stdout == f"chatpipe {version}\n"
    where = _run(sys.executable, "-c", "import chatpipe; print(chatpipe.__file__)", env=installed)
    assert where.stdout.startswith(str(tmp_path / "installed")), where.stdout
    import chatpipe

    assert chatpipe.__version__ == version
    released = re.findall(r"^## \[(\d[^\]]*)\] - \d{4}-\d{2}-\d{2}$", _changelog(), flags=re.M)
    assert released and released[0] == version, "CHANGELOG.md has no section for it"


def _changelog() -> str:
    return (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")


def test_the_changelog_keeps_its_shape():
    """Keep a Changelog's shape: an Unreleased section first, then released versions,
    newest first, each dated, their changes grouped under Added / Changed / Deprecated /
    Removed / Fixed / Security, one line each, an issue number on each."""
    text = _changelog()
    sections = re.findall(r"^## (.+)$", text, flags=re.M)
    assert sections[0] == "[Unreleased]"
    versions = []
    for heading in sections[1:]:
        found = re.fullmatch(r"\[(\d+)\.(\d+)\.(\d+)\] - (\d{4}-\d{2}-\d{2})", heading)
        assert found, heading
        versions.append(tuple(int(n) for n in found.groups()[:3]))
    assert versions and versions == sorted(versions, reverse=True)
    groups = re.findall(r"^### (.+)$", text, flags=re.M)
    assert set(groups) <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}
    lines = text.split("\n")
    for k, line in enumerate(lines, 1):
        if line.startswith("- "):
            assert re.search(r"\(#\d+(, #\d+)*\)\.?$", line), f"CHANGELOG.md:{k}: no (#issue)"
            after = lines[k] if k < len(lines) else ""
            assert not after.startswith(" "), f"CHANGELOG.md:{k}: an entry is one line"
