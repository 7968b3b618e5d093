"""Claude's tags in an answer's text: ``<antArtifact identifier=… type=… title=…>`` holds a
piece of code or a document the app showed beside the chat, ``<antThinking>`` a sentence
of the model's own reasoning. The transcripts show an artifact as a titled code block
(its language from its type) and the thinking as reasoning, not as prose; a tag written
inside a code fence (an answer that explains the tags) is text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

# what an artifact's type says about its language (a code artifact names its own)
_TYPES = {
    "text/markdown": "markdown",
    "text/html": "html",
    "image/svg+xml": "xml",
    "application/vnd.ant.mermaid": "mermaid",
    "application/vnd.ant.react": "jsx",
    "text/plain": "",
}
_EVENTS = re.compile(
    r"^ {0,3}(`{3,}|~{3,})[^\n]*$"  # a code fence's line
    r"|<antArtifact\b([^>]*)>"
    r"|<antThinking>",
    re.M,
)
_ATTRIBUTE = re.compile(r'([A-Za-z_][\w-]*)\s*=\s*"([^"]*)"')


@dataclass
class Segment:
    """A piece of an answer: ``kind`` is text, artifact or thinking."""

    kind: str
    text: str
    attributes: dict[str, str] = field(default_factory=dict)

    @property
    def language(self) -> str:
        given = self.attributes.get("language")
        if given:
            return given
        return _TYPES.get(self.attributes.get("type", ""), "")

    @property
    def title(self) -> str:
        return self.attributes.get("title") or self.attributes.get("identifier") or "Artifact"


def segments(text: str) -> Iterator[Segment]:
    """``text`` cut into prose, artifacts and thinking, in order (an unclosed tag runs to
    the end of the text, as the app shows a reply cut short)."""
    if "<ant" not in text:
        yield Segment("text", text)
        return
    start = at = 0
    fence = ""
    while True:
        match = _EVENTS.search(text, at)
        if match is None:
            break
        marker, attributes = match.group(1), match.group(2)
        if marker is not None:  # a fence opens or closes: tags inside it are text
            if not fence:
                fence = marker
            elif marker[0] == fence[0] and len(marker) >= len(fence):
                fence = ""
            at = match.end()
            continue
        if fence:
            at = match.end()
            continue
        if match.start() > start:
            yield Segment("text", text[start : match.start()])
        closing = "</antArtifact>" if attributes is not None else "</antThinking>"
        end = text.find(closing, match.end())
        body_end = len(text) if end < 0 else end
        body = text[match.end() : body_end]
        if attributes is not None:
            found = dict(_ATTRIBUTE.findall(attributes))
            yield Segment("artifact", body.removeprefix("\n").removesuffix("\n"), found)
        else:
            yield Segment("thinking", body.strip())
        start = at = len(text) if end < 0 else end + len(closing)
    if start < len(text):
        yield Segment("text", text[start:])
