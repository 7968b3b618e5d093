"""The second benchmark corpus: agent sessions replayed from the shapes of real logs.

bench/corpus.py draws words from a list; this one takes its texts and its structure from
the real chat logs in ``fixtures/`` (every string in them longer than a few words) and
from code of the kinds agents read and write (Python, JSON, HTML, shell, diffs), so that
contents are long and full of what JSON has to escape: quotes, backslashes, tabs, line
breaks, ``&``/``<``/``>``, control characters, and, on about a third of the lines,
non-ASCII written as ``\\uXXXX`` (what Python's ``json.dumps`` writes by default).

A session is a system prompt (sometimes a ``developer`` one), then turns: a user message
(a string, or text with an image by URL), sometimes a refusal, an answer with
``<think>`` reasoning or a ``reasoning_content`` field, and agent steps: assistant turns
of one to three parallel tool calls (arguments with nested objects and code), their
results (file contents, JSON documents, tracebacks), and answers in Markdown with code
fences. About a quarter of the lines are not the plain ``{role, content}`` shape.

    python bench/agent_corpus.py 100000 bench/corpus/agent_100k.jsonl
    python bench/agent_corpus.py 1000000 bench/corpus/agent_rows_1m.jsonl --rows
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import random
from collections.abc import Iterator
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "fixtures")


def real_texts() -> list[str]:
    """Every string of the fixtures' JSON and JSONL files with at least five words, in
    a fixed order: prose, reasoning, tool output, code as real logs hold it."""
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, str):
            if value.count(" ") >= 4 and len(value) < 20_000 and "base64" not in value[:64]:
                found.add(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for path in sorted(glob.glob(os.path.join(FIXTURES, "*.json*"))):
        with open(path, encoding="utf-8", errors="replace") as file:
            text = file.read()
        try:
            walk(json.loads(text))
        except ValueError:
            for line in text.splitlines():
                try:
                    walk(json.loads(line))
                except ValueError:
                    continue
    return sorted(found)


CODE = [
    'def parse(line: str) -> dict:\n    """Split a "key=value" line."""\n    key, _, value = line.partition("=")\n'
    "    return {key.strip(): value.strip().strip('\"')}\n",
    'import re\n\nPATTERN = re.compile(r"^(\\w+)\\s*=\\s*\\"([^\\"]*)\\"$")\n\nfor path in paths:\n'
    '\twith open(path) as f:\n\t\tprint(f"{path}:\\t{f.read()!r}")\n',
    '<div class="card">\n  <a href="/search?q=caf%C3%A9&amp;lang=fr">Caf&eacute; &lt;Paris&gt;</a>\n'
    "  <script>if (a < b && b > c) { alert('x'); }</script>\n</div>\n",
    '{\n  "name": "chatpipe",\n  "paths": ["C:\\\\Users\\\\me\\\\logs", "/var/log/app"],\n'
    '  "pattern": "\\\\d+\\\\.\\\\d+",\n  "nested": {"quote": "\\"hi\\"", "tab": "\\t"}\n}\n',
    "$ grep -rn 'TODO' src/ | awk -F: '{print $1}' | sort | uniq -c\n"
    '      3 src/app.py\n      1 src/util/"quoted name".py\n',
    "--- a/src/app.py\n+++ b/src/app.py\n@@ -10,7 +10,7 @@ def main():\n"
    '-    print("hello")\n+    print("hello, \\"world\\"")\n     return 0\n',
    'Traceback (most recent call last):\n  File "/app/main.py", line 42, in <module>\n'
    '    main()\n  File "/app/main.py", line 12, in main\n    raise ValueError(f"bad value: {x!r}")\n'
    "ValueError: bad value: 'C:\\\\temp\\\\x'\n",
    "SELECT u.name, COUNT(*) AS n\nFROM users u\nJOIN orders o ON o.user_id = u.id\n"
    "WHERE u.email LIKE '%@example.com' AND o.total > 100\nGROUP BY u.name;\n",
    "const re = /\\\\[(\\\\d+)\\\\]/g;\nconsole.log(`line ${n}:\\t${text.replace(re, '<$1>')}`);\n",
    "name\tcount\tshare\nKöln\t12\t0.3\n東京\t7\t0.2\n\x01\x02 control\t1\t0.0\n",
]
LANGS = ["python", "python", "html", "json", "sh", "diff", "text", "sql", "js", "tsv"]
TOOLS = ["read_file", "run_shell", "search_code", "write_file", "http_get", "python"]
REFUSALS = [
    "I'm sorry, but I can't help with that request.",
    "I can’t assist with creating malware or instructions for bypassing security controls.",
]


class Session:
    """Draws texts and messages for one corpus from a seeded random source."""

    def __init__(self, rng: random.Random, texts: list[str]) -> None:
        self.rng = rng
        self.texts = texts
        self.calls = 0

    def prose(self, low: int, high: int) -> str:
        """A text of ``low``..``high`` real fragments, as paragraphs."""
        rng = self.rng
        return "\n\n".join(rng.choice(self.texts) for _ in range(rng.randint(low, high)))

    def code(self) -> tuple[str, str]:
        k = self.rng.randrange(len(CODE))
        return LANGS[k], CODE[k]

    def markdown(self) -> str:
        """An answer: prose and one to three fenced code blocks."""
        parts = [self.prose(1, 2)]
        for _ in range(self.rng.randint(1, 3)):
            lang, code = self.code()
            parts.append(f"```{lang}\n{code}```")
            parts.append(self.prose(1, 1))
        return "\n\n".join(parts)

    def user(self) -> dict[str, Any]:
        rng = self.rng
        if rng.random() < 0.6:
            lang, code = self.code()
            text = f"{self.prose(1, 1)}\n\n```{lang}\n{code}```"
        else:
            text = self.prose(1, 2)
        if rng.random() < 0.12:
            return {
                "role": "user",
                "content": [
                    {"type": "text", "text": text},
                    {
                        "type": "image_url",
                        "image_url": {
                            "url": f"https://example.com/shot_{rng.randrange(10**6)}.png"
                        },
                    },
                ],
            }
        return {"role": "user", "content": text}

    def arguments(self, tool: str) -> str:
        rng = self.rng
        code = self.code()[1]
        args: dict[str, Any] = {
            "path": rng.choice(["src/app.py", "C:\\work\\notes.md", 'docs/a b/"q".txt']),
            "options": {"recursive": rng.random() < 0.5, "limit": rng.randint(1, 500)},
        }
        if tool in ("write_file", "python", "run_shell"):
            args["content"] = code
        else:
            args["query"] = rng.choice(self.texts)[:120]
        return json.dumps(args, ensure_ascii=rng.random() < 0.5)

    def result(self) -> str:
        rng = self.rng
        kind = rng.random()
        if kind < 0.4:
            return self.code()[1] * rng.randint(1, 4)
        if kind < 0.7:
            doc = {
                "results": [
                    {"title": rng.choice(self.texts)[:80], "snippet": rng.choice(self.texts)[:400]}
                    for _ in range(rng.randint(1, 4))
                ]
            }
            return json.dumps(doc, ensure_ascii=False, indent=2)
        return self.prose(1, 3)

    def messages(self) -> Iterator[dict[str, Any]]:
        """An endless agent session."""
        rng = self.rng
        role = "developer" if rng.random() < 0.2 else "system"
        yield {"role": role, "content": "You are a coding agent.\n\n" + self.prose(2, 4)}
        while True:
            yield self.user()
            if rng.random() < 0.03:
                yield {"role": "assistant", "content": None, "refusal": rng.choice(REFUSALS)}
                continue
            for _ in range(rng.choice((0, 1, 1, 2, 3))):
                calls = []
                for _ in range(rng.choice((1, 1, 1, 2, 3))):
                    self.calls += 1
                    tool = rng.choice(TOOLS)
                    calls.append(
                        {
                            "id": f"call_{self.calls:08x}",
                            "type": "function",
                            "function": {"name": tool, "arguments": self.arguments(tool)},
                        }
                    )
                step: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": calls}
                if rng.random() < 0.3:
                    step["content"] = self.prose(1, 1)
                yield step
                for call in calls:
                    yield {"role": "tool", "tool_call_id": call["id"], "content": self.result()}
            answer: dict[str, Any] = {"role": "assistant", "content": self.markdown()}
            thinking = rng.random()
            if thinking < 0.15:
                answer["content"] = f"<think>\n{self.prose(1, 2)}\n</think>\n\n" + answer["content"]
            elif thinking < 0.25:
                answer["reasoning_content"] = self.prose(1, 2)
            yield answer


def dumps(rng: random.Random, value: Any) -> str:
    """A line as the many writers of real logs write it: a third ASCII-escaped."""
    return json.dumps(value, ensure_ascii=rng.random() < 0.33)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("messages", type=int)
    parser.add_argument("path")
    parser.add_argument("--rows", action="store_true", help="conversation per line")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    texts = real_texts()
    session = Session(rng, texts)
    stream = session.messages()
    os.makedirs(os.path.dirname(os.path.abspath(args.path)), exist_ok=True)
    with open(args.path, "w", encoding="utf-8") as out:
        if not args.rows:  # a log of sessions, one after another
            for k in range(args.messages):
                if k and rng.random() < 1 / 200:
                    stream = session.messages()
                out.write(dumps(rng, next(stream)) + "\n")
            return
        written = 0
        while written < args.messages:
            row = [next(stream) for _ in range(rng.randint(4, 30))]
            while row[-1]["role"] != "assistant" or row[-1].get("tool_calls"):
                row.append(next(stream))
            stream = session.messages()
            out.write(dumps(rng, {"messages": row}) + "\n")
            written += len(row)


if __name__ == "__main__":
    main()
