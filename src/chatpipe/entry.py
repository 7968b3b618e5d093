"""The console entry point, free of imports: it loads the command line itself, so that
Ctrl-C while Python imports typer and chatpipe ends as it does later, with one line and
exit 130, not a traceback from the middle of an import."""

from __future__ import annotations

import os
import sys


def main() -> None:
    try:
        from .cli import main as run
    except KeyboardInterrupt:
        sys.stderr.write("chatpipe: interrupted\n")
        os._exit(130)
    run()
