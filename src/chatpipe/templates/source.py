"""Where a chat template comes from: a file, a model directory, or the local Hugging Face cache.

A model keeps its chat template (a Jinja program) in ``tokenizer_config.json`` (a string, or
a list of named templates), in ``chat_template.jinja`` beside it (which takes precedence,
as in transformers), with more named ones under ``additional_chat_templates/``, or, for
processors, in ``chat_template.json``. The special tokens the template may use
(``bos_token``, ``eos_token``, ...) come from the same ``tokenizer_config.json``.

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
    raise UsageError(
        f"no chat template found at {spec!r}: no such file or directory, and no model of that "
        "id in the local Hugging Face cache",
        hint="give a tokenizer_config.json, a chat_template.jinja, a model directory, or a model "
        "id already downloaded (HF_HUB_CACHE, HF_HOME); chatpipe never downloads",
    )


def _from_file(path: Path) -> TemplateSource:
    name = path.name
    if name.endswith(".jinja") or name.endswith(".j2"):
        templates = {"default": _read_text(path)}
        source = TemplateSource(str(path), templates, files={"default": str(path)})
        # a chat_template.jinja saved beside its tokenizer_config.json takes that file's tokens
        config = path.with_name(CONFIG_FILE)
        if config.is_file():
            source.special_tokens = special_tokens(_read_json(config), str(config))
        return source
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
    legacy = _maybe_json(directory / SPECIAL_TOKENS_FILE)
    if isinstance(legacy, dict):
        for key, value in special_tokens(legacy, str(directory / SPECIAL_TOKENS_FILE)).items():
            tokens.setdefault(key, value)
    return TemplateSource(str(directory), templates, tokens, files)


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


def _cached_model(model_id: str) -> Path | None:
    """The newest local snapshot of ``org/name`` in the Hugging Face hub cache, if any."""
    if model_id.count("/") != 1 or model_id.startswith((".", "/")):
        return None
    cache = os.environ.get("HF_HUB_CACHE") or os.environ.get("HUGGINGFACE_HUB_CACHE")
    if not cache:
        home = os.environ.get("HF_HOME") or os.path.join(
            os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "huggingface"
        )
        cache = os.path.join(home, "hub")
    repo = Path(cache) / ("models--" + model_id.replace("/", "--"))
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
