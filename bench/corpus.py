"""Generate benchmark corpora: OpenAI-format chat logs with tool calls, list content,
unicode and multi-paragraph answers, message per line (any size), and a
conversation-per-line dataset. 100k messages make about 56 MB, the size of the log
issue #8 sets its bar on.

    python bench/corpus.py 100000 bench/corpus/log_100k.jsonl
    python bench/corpus.py 100000 bench/corpus/rows_100k.jsonl --rows
"""

from __future__ import annotations

import argparse
import json
import os
import random

WORDS = [
    "the",
    "weather",
    "in",
    "Paris",
    "Köln",
    "東京",
    "is",
    "nice",
    "today",
    "and",
    "the",
    "model",
    "answers",
    "with",
    "care",
    "about",
    "tools,",
    "files,",
    "images",
    "and",
    "code",
    "🚀",
    "—",
    "données,",
    "straße,",
    "naïve",
    "café",
]


def text(rng: random.Random, low: int, high: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))


def answer(rng: random.Random) -> str:
    """An assistant's answer: one to three paragraphs."""
    return "\n\n".join(text(rng, 15, 130) for _ in range(rng.randint(1, 3)))


def messages(rng: random.Random):
    """An endless agent session: user turns, tool calls and results, answers."""
    n = 0
    yield {"role": "system", "content": "You are a helpful assistant. " + text(rng, 10, 30)}
    while True:
        if rng.random() < 0.2:
            yield {
                "role": "user",
                "content": [
                    {"type": "text", "text": text(rng, 5, 60)},
                    {
                        "type": "image_url",
                        "image_url": {"url": f"https://example.com/{n}.png", "detail": "low"},
                    },
                ],
            }
        else:
            yield {"role": "user", "content": text(rng, 5, 90)}
        if rng.random() < 0.5:
            calls = []
            for _ in range(rng.choice((1, 1, 2))):
                n += 1
                calls.append(
                    {
                        "id": f"call_{n}",
                        "type": "function",
                        "function": {
                            "name": rng.choice(("search", "read_file", "get_weather")),
                            "arguments": json.dumps(
                                {"query": text(rng, 2, 8), "limit": rng.randint(1, 9)},
                                ensure_ascii=False,
                            ),
                        },
                    }
                )
            yield {"role": "assistant", "content": None, "tool_calls": calls}
            for call in calls:
                yield {"role": "tool", "tool_call_id": call["id"], "content": text(rng, 30, 180)}
        yield {"role": "assistant", "content": answer(rng)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("messages", type=int)
    parser.add_argument("path")
    parser.add_argument("--rows", action="store_true", help="conversation per line")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    stream = messages(rng)
    os.makedirs(os.path.dirname(os.path.abspath(args.path)), exist_ok=True)
    with open(args.path, "w", encoding="utf-8") as out:
        if not args.rows:
            for _ in range(args.messages):
                out.write(json.dumps(next(stream), ensure_ascii=False) + "\n")
            return
        written = 0
        while written < args.messages:
            size = rng.randint(4, 30)
            row = [next(stream) for _ in range(size)]
            while row[-1]["role"] != "assistant" or row[-1].get("tool_calls"):
                row.append(next(stream))
            stream = messages(rng)
            out.write(json.dumps({"messages": row}, ensure_ascii=False) + "\n")
            written += len(row)


if __name__ == "__main__":
    main()
