"""The same jobs done with langchain-core (test-only dependency), for comparison."""

import json
import sys

from langchain_core.messages import (
    convert_to_messages,
    convert_to_openai_messages,
    get_buffer_string,
    messages_to_dict,
    trim_messages,
)

job = sys.argv[1]
messages = convert_to_messages([json.loads(line) for line in sys.stdin.buffer])
out = sys.stdout
if job == "buffer":
    out.write(get_buffer_string(messages) + "\n")
elif job == "buffer-xml":
    out.write(get_buffer_string(messages, format="xml") + "\n")
elif job == "openai":
    for message in convert_to_openai_messages(messages):
        out.write(json.dumps(message, ensure_ascii=False) + "\n")
elif job == "convert":
    for record in messages_to_dict(messages):
        out.write(json.dumps(record["data"], ensure_ascii=False) + "\n")
elif job == "trim":
    kept = trim_messages(messages, max_tokens=4000, token_counter="approximate")
    for record in messages_to_dict(kept):
        out.write(json.dumps(record["data"], ensure_ascii=False) + "\n")
