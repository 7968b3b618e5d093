"""The floor: parse every line with orjson and write it back, nothing else."""

import sys

import orjson

out = sys.stdout.buffer
write = out.write
for line in sys.stdin.buffer:
    write(orjson.dumps(orjson.loads(line)) + b"\n")
