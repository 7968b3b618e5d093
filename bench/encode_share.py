"""How much of ``chatpipe tokenize``'s time a row is the tokenizer's own ``encode`` (issue
#43): the same Rust call transformers makes on the same text, which no speed-up of
chatpipe's own code can make cheaper. In this process: bench/templates.py's rows made into
messages first, then tokenized (the best of 3, CPU time), then the texts the template
rendered for them encoded again alone.

    python bench/token_ids.py --fetch
    python bench/encode_share.py bench/corpus/tokenizers/qwen2.5 bench/corpus/tokenizers/llama3.1
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from stamp import stamp  # noqa: E402
from templates import rows  # noqa: E402


def best(run, times: int = 3) -> float:
    """The least CPU time of ``times`` runs of ``run``."""
    seconds = []
    for _ in range(times):
        start = time.process_time()
        run()
        seconds.append(time.process_time() - start)
    return min(seconds)


def share(model: str, count: int) -> None:
    from chatpipe import convert_to_messages
    from chatpipe.templates.token_ids import ChatTokenizer

    chat = ChatTokenizer.load(model)
    conversations = []
    for line in rows(count):
        row = json.loads(line)
        meta = {key: value for key, value in row.items() if key != "messages"}
        conversations.append((convert_to_messages(row["messages"]), meta))
    whole = best(lambda: [chat.tokenize(messages, meta) for messages, meta in conversations])
    texts: list[str] = []
    encode = chat.tokenizer.encode
    chat.tokenizer.encode = lambda text: texts.append(text) or encode(text)
    for messages, meta in conversations:
        chat.tokenize(messages, meta)
    chat.tokenizer.encode = encode
    backend = chat.tokenizer.backend
    alone = best(lambda: [backend.encode(text, add_special_tokens=False) for text in texts])
    size = sum(map(len, texts)) / count
    print(f"{model}: {count} conversations, {size:.0f} characters rendered each")
    print(f"tokenize in-process (messages built beforehand): {whole / count * 1e6:.0f} µs a row")
    print(f"the tokenizer's encode alone: {alone / count * 1e6:.0f} µs ({alone / whole:.0%})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="+", help="model directories (tokenizer.json, config)")
    parser.add_argument("--conversations", type=int, default=5000)
    args = parser.parse_args()
    print(f"run: {stamp()}")
    for model in args.models:
        share(model, args.conversations)


if __name__ == "__main__":
    main()
