"""A model's tokenizer (a Hugging Face ``tokenizer.json``, run by the Rust ``tokenizers``
library) set up as transformers sets it up for ``apply_chat_template(tokenize=True)``.

SPEC is a ``tokenizer.json``, a model directory holding one, or a model id already in the
local Hugging Face cache. Beside it, ``tokenizer_config.json`` names the special tokens
(given to the chat template as ``bos_token``, ``eos_token``, ...) and the added tokens;
those the ``tokenizer.json`` lacks are added to it as special tokens, as transformers
does when it loads the pair. The text is encoded without special tokens of the
tokenizer's own (the template writes them), truncation or padding.

``tokenizers`` is an optional extra, imported when a tokenizer is loaded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import UsageError, install_hint
from .source import CONFIG_FILE, SPECIAL_TOKENS, _cached_model, _maybe_json, special_tokens

TOKENIZER_FILE = "tokenizer.json"


def load_tokenizers() -> Any:
    try:
        import tokenizers
    except ImportError:
        raise UsageError(
            "tokenizing needs the tokenizers package",
            hint=install_hint("tokenize"),
        ) from None
    return tokenizers


class TextTokenizer:
    """Text to token ids (and back), as a model's tokenizer makes them of a chat
    template's text. ``special_tokens``: the named ones of its config (for the template);
    ``directory``: the model directory it came from, if any (its chat template too)."""

    def __init__(
        self,
        backend: Any,
        origin: str,
        special_tokens: dict[str, str] | None = None,
        directory: str | None = None,
    ) -> None:
        self.backend = backend
        self.origin = origin
        self.name = f"hf:{origin}"
        self.special_tokens = special_tokens or {}
        self.directory = directory
        # a tokenizer.json may carry the model's truncation and padding: neither applies
        backend.no_truncation()
        backend.no_padding()
        self._pieces: Any = False  # (templates/pieces.py's encoder, made at first use)

    def __getstate__(self) -> dict[str, Any]:  # (sent to workers: not the pieces kept)
        return {**self.__dict__, "_pieces": False}

    def encode(self, text: str) -> Any:
        """The encoding of ``text`` (ids, offsets in characters), no special tokens added."""
        return self.backend.encode(text, add_special_tokens=False)

    def encode_pieces(self, text: str) -> Any:
        """``encode(text)``'s ids and its mapping between characters and tokens
        (``char_to_token``, ``token_to_chars``), made of the text's pieces between added
        tokens, each encoded once for all the texts that hold it, where that gives the
        same (templates/pieces.py); else the text encoded whole."""
        if self._pieces is False:
            from .pieces import PieceEncoder

            self._pieces = PieceEncoder.of(self.backend)
        if self._pieces is None:
            return self.encode(text)
        return self._pieces.encode(text)

    def encoded(self) -> str | None:
        """How ``encode_pieces`` encoded the texts (for -v); None before any."""
        pieces = self._pieces
        if pieces is False:
            return None
        if pieces is None:
            return "each text encoded whole (this tokenizer's pieces depend on their place)"
        return (
            f"each text encoded by its pieces between added tokens, each piece once: "
            f"{pieces.encoded:,} encoded for {pieces.asked:,} asked"
        )

    def encode_len(self, text: str) -> int:
        return len(self.backend.encode(text, add_special_tokens=False).ids)

    def decode(self, ids: list[int]) -> str:
        return self.backend.decode(ids, skip_special_tokens=False)


def load_tokenizer(spec: str) -> TextTokenizer:
    """The tokenizer of SPEC: a tokenizer.json, a model directory or a cached model id."""
    tokenizers = load_tokenizers()
    path = Path(spec)
    if path.is_dir():
        directory = path
        file = path / TOKENIZER_FILE
        if not file.is_file():
            raise UsageError(
                f"{spec}: no {TOKENIZER_FILE} in this directory",
                hint="give the model's tokenizer.json, or the directory that holds it",
            )
    elif path.is_file():
        directory, file = path.parent, path
    else:
        cached = _cached_model(spec)
        if cached is None or not (cached / TOKENIZER_FILE).is_file():
            raise UsageError(
                f"no tokenizer found at {spec!r}: no such file or directory, and no model of "
                "that id with a tokenizer.json in the local Hugging Face cache",
                hint="give a tokenizer.json, a model directory, or a model id already "
                "downloaded (HF_HUB_CACHE, HF_HOME); chatpipe never downloads",
            )
        directory, file = cached, cached / TOKENIZER_FILE
    try:
        backend = tokenizers.Tokenizer.from_file(str(file))
    except Exception as exc:  # the library's own errors: a file that is not a tokenizer
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise UsageError(f"{file}: cannot load this tokenizer ({first})") from None
    config_path = directory / CONFIG_FILE
    config = _maybe_json(config_path)
    named: dict[str, str] = {}
    if isinstance(config, dict):
        named = special_tokens(config, str(config_path))
        _add_missing(backend, tokenizers, config, named)
    in_model_dir = not path.is_file() or (directory / CONFIG_FILE).is_file()
    return TextTokenizer(backend, str(file), named, str(directory) if in_model_dir else None)


def _add_missing(backend: Any, tokenizers: Any, config: dict, named: dict[str, str]) -> None:
    """The config's special and added tokens that the tokenizer.json lacks, added as
    special tokens (transformers does so when it loads the two files)."""
    present = {token.content for token in backend.get_added_tokens_decoder().values()}
    wanted: list[Any] = []

    def want(token: Any) -> None:
        if isinstance(token, dict) and isinstance(token.get("content"), str):
            options = {
                k: bool(token[k])
                for k in ("single_word", "lstrip", "rstrip", "normalized")
                if k in token
            }
            options.setdefault("normalized", False)
            content = token["content"]
            special = bool(token.get("special", True))
            added = tokenizers.AddedToken(content, special=special, **options)
        elif isinstance(token, str):
            content, added = token, tokenizers.AddedToken(token, special=True, normalized=False)
        else:
            return
        if content not in present:
            present.add(content)
            wanted.append(added)

    decoder = config.get("added_tokens_decoder")
    if isinstance(decoder, dict):
        for key in sorted(decoder, key=lambda k: int(k) if str(k).isdigit() else 0):
            want(decoder[key])
    for key in SPECIAL_TOKENS:
        if key in named:
            want(config.get(key) if isinstance(config.get(key), dict) else named[key])
    for key in ("additional_special_tokens", "extra_special_tokens"):
        extra = config.get(key)
        for token in extra.values() if isinstance(extra, dict) else extra or ():
            want(token)
    if wanted:
        backend.add_special_tokens(wanted)
