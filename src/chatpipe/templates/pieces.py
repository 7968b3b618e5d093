"""A chat template's text encoded piece by piece, each piece between two added tokens
encoded once for all the rows that repeat it (a system prompt, a tool's schema, an
assistant's stock answer).

A Hugging Face tokenizer finds its added tokens (``<|im_start|>``, ``<|eot_id|>``...) in
the text first, leftmost and longest, and encodes each piece of text between them on its
own: normalised, pre-tokenized and split into tokens with no look at its neighbours. So
the ids of a text are its pieces' ids and the added tokens' ids in order, and a piece
seen before need not be encoded again. That holds where the tokenizer finds its added
tokens as they are written and treats each piece alike wherever it stands:

- no added token strips the whitespace beside it or must stand as a word (``lstrip``,
  ``rstrip``, ``single_word``), and each is found in the text as written (not
  ``normalized``: all are found in one pass, as one regular expression finds them);
- its pre-tokenizers split each piece by its own characters alone (a ``Metaspace``,
  which may treat the first piece of a text apart, or a ``ByteLevel`` that adds a space
  before each, are not taken).

Any other tokenizer encodes each text whole (``PieceEncoder.of`` gives None).
tests/test_token_pieces.py checks the ids and the offsets against the whole text's.
"""

from __future__ import annotations

import bisect
import json
import re
from typing import Any

# characters of pieces kept: past this, the kept pieces are let go (and kept anew)
KEPT_CHARS = 16 << 20


class PieceEncoder:
    """Texts encoded piece by piece (see the module doc), as ``Pieces``."""

    def __init__(self, backend: Any, added: dict[str, int]) -> None:
        self.backend = backend
        self.added = added  # content -> id
        contents = sorted(added, key=len, reverse=True)  # (the longest where two start)
        self.split = re.compile("(" + "|".join(map(re.escape, contents)) + ")").split
        self.kept: dict[str, tuple[list[int], list[tuple[int, int]]]] = {}
        self.kept_chars = 0
        self.asked = self.encoded = 0  # pieces of text met, and encoded (for -v)

    @classmethod
    def of(cls, backend: Any) -> PieceEncoder | None:
        """The piece encoder of a tokenizer (a ``tokenizers.Tokenizer``), or None when
        its pieces are not encoded alike wherever they stand."""
        try:
            added = backend.get_added_tokens_decoder()
            pre = backend.pre_tokenizer
            config = None if pre is None else json.loads(pre.__getstate__())
        except Exception:  # (a tokenizer that cannot say what it is: whole texts)
            return None
        for token in added.values():
            if token.lstrip or token.rstrip or token.single_word or token.normalized:
                return None
        if not added or not _alike(config):
            return None
        return cls(backend, {token.content: id for id, token in added.items()})

    def encode(self, text: str) -> Pieces:
        parts = self.split(text)  # text, added token, text, ..., text
        kept = self.kept
        texts = [p for p in parts[0::2] if p]
        new = [p for p in texts if p not in kept]
        self.asked += len(texts)
        if new:
            new = list(dict.fromkeys(new))
            self.encoded += len(new)
            if self.kept_chars > KEPT_CHARS:
                kept.clear()
                self.kept_chars = 0
            for piece, encoding in zip(
                new, self.backend.encode_batch(new, add_special_tokens=False), strict=True
            ):
                kept[piece] = (encoding.ids, encoding.offsets)
                self.kept_chars += len(piece)
        return Pieces(parts, kept, self.added)


class Pieces:
    """A text's encoding made of its pieces': ``ids``, and the mapping between characters
    and tokens that ``Encoding.char_to_token`` and ``token_to_chars`` give."""

    __slots__ = ("firsts", "ids", "offsets", "starts")

    def __init__(self, parts: list[str], kept: dict, added: dict[str, int]) -> None:
        ids: list[int] = []
        starts: list[int] = []  # each piece's first character
        firsts: list[int] = []  # and its first token
        offsets: list[Any] = []  # its tokens' (start, end) within it
        at = 0
        for k, part in enumerate(parts):
            if not part:
                continue
            starts.append(at)
            firsts.append(len(ids))
            if k % 2:
                ids.append(added[part])
                offsets.append(((0, len(part)),))
            else:
                piece_ids, piece_offsets = kept[part]
                ids += piece_ids
                offsets.append(piece_offsets)
            at += len(part)
        self.ids, self.starts, self.firsts, self.offsets = ids, starts, firsts, offsets

    def char_to_token(self, at: int) -> int | None:
        """The first token whose characters hold character ``at``, None if none does."""
        k = bisect.bisect_right(self.starts, at) - 1
        if k < 0:
            return None
        rel, offsets = at - self.starts[k], self.offsets[k]
        index = bisect.bisect_right(offsets, rel, key=_start) - 1  # (the last starting by it)
        if index < 0 or offsets[index][1] <= rel:
            return None
        while index and offsets[index - 1][1] > rel:  # (bytes of one character: the first)
            index -= 1
        return self.firsts[k] + index

    def token_to_chars(self, token: int) -> tuple[int, int]:
        """The characters ``(start, end)`` of a token."""
        k = bisect.bisect_right(self.firsts, token) - 1  # (its piece: the last starting by it)
        start, end = self.offsets[k][token - self.firsts[k]]
        return self.starts[k] + start, self.starts[k] + end


def _start(offset: tuple[int, int]) -> int:
    return offset[0]


def _alike(pre: Any) -> bool:
    """Whether a pre-tokenizer (as tokenizer.json writes it) treats every piece alike."""
    if pre is None:
        return True
    if not isinstance(pre, dict):
        return False
    kind = pre.get("type")
    if kind == "Sequence":
        return all(_alike(p) for p in pre.get("pretokenizers") or ())
    if kind == "ByteLevel":
        return not pre.get("add_prefix_space")
    return kind in _BY_CHARACTERS


# pre-tokenizers that split a text by its characters alone
_BY_CHARACTERS = frozenset(
    (
        "Split",
        "Whitespace",
        "WhitespaceSplit",
        "Punctuation",
        "Digits",
        "BertPreTokenizer",
        "UnicodeScripts",
        "CharDelimiterSplit",
    )
)
