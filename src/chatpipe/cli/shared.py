"""Options that several commands take, outside the groups."""

from __future__ import annotations

from .options import OPTIONS, WRITABLE, choices, opt

# of the counting group, taken by template and tokenize on their own
TemplateName, Variables = OPTIONS["template_name"], OPTIONS["var"]
MaxOutput, MaxLoops = OPTIONS["template_max_output"], OPTIONS["template_max_loops"]
Timeout = OPTIONS["template_timeout"]

Separator = opt(
    "--separator",
    "Print conversations raw, joined by TEXT, not as JSON strings.",
    str | None,
    "TEXT",
)
Null = opt("-0 --null", "Print conversations raw, each ended by NUL.", bool)
AsJson = opt("--json", "Print one JSON document instead of one record per line.", bool)
To = opt(
    "--to",
    "Output dialect (default: the input's): " + ", ".join(WRITABLE) + ".",
    str | None,
    "DIALECT",
    autocompletion=choices(*WRITABLE),
)
Seed = opt("--seed", "Any number or word: the same seed, the same choice.", metavar="S")
Report = opt("--report", "Write what was done as JSON here.", str | None, "FILE")
ToolsFile = opt(
    "--tools", "A JSON list of tool schemas, for conversations that carry none.", str | None, "FILE"
)
DocumentsFile = opt(
    "--documents", "A JSON list of documents ({title, text}) for RAG templates.", str | None, "FILE"
)
