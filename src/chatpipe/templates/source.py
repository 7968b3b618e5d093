"""Where a chat template comes from: a file, a model directory, or the local Hugging Face cache.

A model keeps its chat template (a Jinja program) in ``tokenizer_config.json`` (a string, or
a list of named templates), in ``chat_template.jinja`` beside it (which takes precedence,
as in transformers), with more named ones under ``additional_chat_templates/``, or, for
processors, in ``chat_template.json``. The special tokens the template may use
(``bos_token``, ``eos_token``, ...) come from the same ``tokenizer_config.json`` and from
``special_tokens_map.json`` beside it (a lone template file takes those beside it), or
from a tokenizer's folder named apart (``tokenizer_tokens``).

Nothing here reaches the network: a model id is looked up in the local cache only.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UsageError

CONFIG_FILE = "tokenizer_config.json"
TEMPLATE_FILE = "chat_template.jinja"
PROCESSOR_TEMPLATE_FILE = "chat_template.json"
TEMPLATE_DIR = "additional_chat_templates"
SPECIAL_TOKENS_FILE = "special_tokens_map.json"

# the named special tokens transformers passes to every template (its special_tokens_map)
SPECIAL_TOKENS = (
    "bos_token",
    "eos_token",
    "unk_token",
    "sep_token",
    "pad_token",
    "cls_token",
    "mask_token",
)


@dataclass
class TemplateSource:
    """A model's chat templates by name (``default`` when it has one) and special tokens."""

    origin: str
    templates: dict[str, str]
    special_tokens: dict[str, str] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)  # template name -> file it came from
    bare: bool = False  # a template file alone: no tokenizer files came with it

    def select(self, name: str | None, *, tools: bool) -> tuple[str, str]:
        """The template to run and its name, as transformers' ``get_chat_template`` picks it.

        One template: that one (a name other than its own is refused). Several: the one
        named, else ``tool_use`` when there are tools and it exists, else ``default``.
        """
        names = sorted(self.templates)
        if name is not None:
            if name not in self.templates:
                raise UsageError(
                    f"{self.origin} has no chat template named {name!r}",
                    hint="its templates: " + ", ".join(names),
                )
            return name, self.templates[name]
        if tools and "tool_use" in self.templates and len(self.templates) > 1:
            return "tool_use", self.templates["tool_use"]
        if "default" in self.templates:
            return "default", self.templates["default"]
        raise UsageError(
            f"{self.origin} has several chat templates and none is the default",
            hint="pick one with --template-name: " + ", ".join(names),
        )


def load_source(spec: str) -> TemplateSource:
    """The templates of SOURCE: a config or template file, a directory, or a cached model id."""
    path = Path(spec)
    if path.is_dir():
        return _from_directory(path, spec)
    if path.is_file():
        return _from_file(path)
    if path.exists():
        raise UsageError(f"{spec}: not a file or a directory")
    cached = _cached_model(spec)
    if cached is not None:
        source = _from_directory(cached, spec)
        source.origin = f"{spec} ({cached})"
        return source
    if _is_model_id(spec):
        raise UsageError(
            f"--chat-template {spec}: no such file, and no {spec} in the local Hugging Face "
            f"cache ({_model_cache_dir(spec)} is not there; the cache is HF_HUB_CACHE, else "
            "$HF_HOME/hub); chatpipe never downloads",
            hint=f"download it first (hf download {spec} tokenizer_config.json), or give a "
            "file: --chat-template FILE.jinja, its tokenizer_config.json, or the model's folder",
        )
    raise UsageError(
        f"--chat-template {spec}: no such file or directory",
        hint="give a chat_template.jinja, a tokenizer_config.json, a model's folder, or a "
        "model id (ORG/NAME) in the local Hugging Face cache",
    )


def _from_file(path: Path) -> TemplateSource:
    name = path.name
    if name.endswith(".jinja") or name.endswith(".j2"):
        templates = {"default": _read_text(path)}
        # a template saved beside its tokenizer's files takes their special tokens
        found = _tokens_in(path.parent)
        return TemplateSource(
            str(path),
            templates,
            found or {},
            files={"default": str(path)},
            bare=found is None,
        )
    data = _read_json(path)
    if not isinstance(data, dict) or "chat_template" not in data:
        raise UsageError(
            f"{path}: has no 'chat_template' key",
            hint="give the model's tokenizer_config.json, chat_template.json or .jinja",
        )
    templates = _templates_of(data["chat_template"], str(path))
    files = dict.fromkeys(templates, str(path))
    return TemplateSource(str(path), templates, special_tokens(data, str(path)), files)


def _from_directory(directory: Path, spec: str) -> TemplateSource:
    templates: dict[str, str] = {}
    files: dict[str, str] = {}
    config_path = directory / CONFIG_FILE
    config = _read_json(config_path) if config_path.is_file() else {}
    if not isinstance(config, dict):
        raise UsageError(f"{config_path}: not a JSON object")
    # the template files take precedence over the config's entries, as in transformers
    jinja = directory / TEMPLATE_FILE
    if jinja.is_file():
        templates["default"] = _read_text(jinja)
        files["default"] = str(jinja)
    extra = directory / TEMPLATE_DIR
    if extra.is_dir():
        for file in sorted(extra.glob("*.jinja")):
            templates[file.stem] = _read_text(file)
            files[file.stem] = str(file)
    if not templates:
        for candidate in (config_path, directory / PROCESSOR_TEMPLATE_FILE):
            data = config if candidate == config_path else _maybe_json(candidate)
            if isinstance(data, dict) and data.get("chat_template") is not None:
                templates = _templates_of(data["chat_template"], str(candidate))
                files = dict.fromkeys(templates, str(candidate))
                break
    if not templates:
        raise UsageError(
            f"{spec}: no chat template in this directory",
            hint=f"a model directory holds {TEMPLATE_FILE} or a {CONFIG_FILE} with 'chat_template'",
        )
    tokens = special_tokens(config, str(config_path))
    for key, value in (_tokens_in(directory, config=False) or {}).items():
        tokens.setdefault(key, value)
    return TemplateSource(str(directory), templates, tokens, files)


def _tokens_in(directory: Path, *, config: bool = True) -> dict[str, str] | None:
    """The special tokens of the tokenizer files in ``directory``: ``tokenizer_config.json``'s,
    then ``special_tokens_map.json``'s for those it lacks (as transformers reads them);
    None when neither file is there."""
    found = None
    for name in (CONFIG_FILE, SPECIAL_TOKENS_FILE) if config else (SPECIAL_TOKENS_FILE,):
        path = directory / name
        if not path.is_file():
            continue
        data = _read_json(path)
        if not isinstance(data, dict):
            raise UsageError(f"{path}: not a JSON object")
        found = found or {}
        for key, value in special_tokens(data, str(path)).items():
            found.setdefault(key, value)
    return found


def tokenizer_tokens(spec: str, *, required: bool = True) -> dict[str, str] | None:
    """The special tokens of ``--tokenizer PATH``: a tokenizer's folder, or a file in it
    (its ``tokenizer.json``, ``tokenizer_config.json`` or ``special_tokens_map.json``).
    Not ``required``: None where there are none."""
    path = Path(spec)
    if not path.exists():
        if not required:
            return None
        raise UsageError(f"--tokenizer {spec}: no such file or directory")
    directory = path if path.is_dir() else path.parent
    found = _tokens_in(directory)
    if found is None and required:
        raise UsageError(
            f"--tokenizer {spec}: no {CONFIG_FILE} or {SPECIAL_TOKENS_FILE} in {directory}",
            hint="a tokenizer.json alone does not say which token is bos_token or eos_token; "
            "put the model's tokenizer_config.json beside it, or give --var bos_token=TOKEN",
        )
    return found


def missing_hint(names: list[str], source: TemplateSource, tokenizer: str | None = None) -> str:
    """How to give the template variables ``names`` that nothing defined."""
    given = " ".join(
        f"--var {name}={'TOKEN' if name in SPECIAL_TOKENS else 'VALUE'}" for name in names
    )
    if not any(name in SPECIAL_TOKENS for name in names):
        return f"give {'it' if len(names) == 1 else 'them'} with {given}"
    if tokenizer is not None:
        return f"--tokenizer {tokenizer} does not name it either; give {given}"
    where = "beside the template" if source.bare else "with the template"
    return (
        f"a special token: put the model's {CONFIG_FILE} or {SPECIAL_TOKENS_FILE} {where}, "
        f"or give --tokenizer PATH (the model's tokenizer folder) or {given}"
    )


def _templates_of(value: object, where: str) -> dict[str, str]:
    if isinstance(value, str):
        return {"default": value}
    if isinstance(value, list):
        templates = {}
        for item in value:
            if not (
                isinstance(item, dict)
                and isinstance(item.get("name"), str)
                and isinstance(item.get("template"), str)
            ):
                raise UsageError(
                    f"{where}: a 'chat_template' list holds {{'name', 'template'}} objects; "
                    f"found {str(item)[:60]!r}"
                )
            templates[item["name"]] = item["template"]
        if templates:
            return templates
    raise UsageError(f"{where}: 'chat_template' is neither a template nor a list of named ones")


def special_tokens(config: dict, where: str) -> dict[str, str]:
    """The named special tokens of a config, as strings (an AddedToken gives its content)."""
    tokens = {}
    for key in SPECIAL_TOKENS:
        value = config.get(key)
        if isinstance(value, dict):
            value = value.get("content")
        if value is None:
            continue
        if not isinstance(value, str):
            raise UsageError(f"{where}: {key} is neither a string nor a token object")
        tokens[key] = value
    return tokens


def _is_model_id(spec: str) -> bool:
    return spec.count("/") == 1 and not spec.startswith((".", "/")) and not spec.endswith("/")


def _model_cache_dir(model_id: str) -> Path:
    """Where the Hugging Face hub cache keeps ``org/name``, as huggingface_hub finds it."""
    cache = os.environ.get("HF_HUB_CACHE") or os.environ.get("HUGGINGFACE_HUB_CACHE")
    if not cache:
        home = os.environ.get("HF_HOME") or os.path.join(
            os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "huggingface"
        )
        cache = os.path.join(home, "hub")
    return Path(cache) / ("models--" + model_id.replace("/", "--"))


def _cached_model(model_id: str) -> Path | None:
    """The newest local snapshot of ``org/name`` in the Hugging Face hub cache, if any."""
    if not _is_model_id(model_id):
        return None
    repo = _model_cache_dir(model_id)
    snapshots = repo / "snapshots"
    if not snapshots.is_dir():
        return None
    ref = repo / "refs" / "main"
    if ref.is_file():
        revision = ref.read_text(encoding="utf-8").strip()
        if (snapshots / revision).is_dir():
            return snapshots / revision
    found = sorted(snapshots.iterdir(), key=lambda p: p.stat().st_mtime)
    return found[-1] if found else None


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise UsageError(f"{path}: cannot read it ({exc.strerror or exc})") from None


def _read_json(path: Path) -> object:
    text = _read_text(path)
    try:
        return json.loads(text)
    except ValueError as exc:
        line = getattr(exc, "lineno", None)
        where = f"{path}:{line}" if line else str(path)
        raise UsageError(f"{where}: not valid JSON ({getattr(exc, 'msg', exc)})") from None


def _maybe_json(path: Path) -> object:
    return _read_json(path) if path.is_file() else None
