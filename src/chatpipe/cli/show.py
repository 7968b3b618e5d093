"""``chatpipe show``: a conversation for people, in the terminal, with rich."""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterator
from typing import Any

from ..io.sink import write_failed
from .command import ReadingOptions, command
from .options import opt
from .pager import Pager, pager_command
from .panels import conversation_panels
from .runtime import Conversations, rich_console


@command()
def show(
    o: ReadingOptions,
    full: opt("--full", "Do not fold long messages.", bool) = False,
    pager: opt("--pager/--no-pager", "Page long output on a terminal.", bool) = True,
) -> None:
    """Show a conversation for people: one panel per message, coloured by role.

    Tool calls and JSON tool results are highlighted; images and files appear as labelled
    placeholders; a long message or tool result is folded to about twelve rows, a long line
    as well as many (--full shows it whole). On a terminal, a long transcript opens in a
    pager, as git's output does: CHATPIPE_PAGER, else PAGER, else less, with LESS=FRX when
    LESS is not set (colours shown, one screen printed as it is).

    Examples:

    \b
      chatpipe show fixtures/agent_session.jsonl
      chatpipe show --full --branch all \\
          fixtures/chatgpt_export__pkuppens_2023_conversations_subset.json
    """
    conversations = Conversations(o)
    console = rich_console()
    panels = (
        panel
        for number, conversation in enumerate(conversations)
        for panel in conversation_panels(conversation, number, full)
    )
    try:
        _print(console, panels, pager and sys.stdout.isatty())
    except BrokenPipeError:
        raise
    except OSError as exc:  # a full disk, say
        raise write_failed(exc) from None
    conversations.close()


def _print(console: Any, panels: Iterator[Any], pager: bool) -> None:
    """Panels printed as they come; on a terminal, those that would not fit on one
    screen go through the pager (held until then: only what a screen shows is held)."""
    held: list[Any] = []
    height = 0
    if pager:
        options = console.options
        for panel in panels:
            held.append(panel)
            height += len(console.render_lines(panel, options, pad=False))
            if height > console.height:
                command = pager_command()
                if command is None:
                    break
                with console.pager(Pager(command), styles=True):
                    for item in itertools.chain(held, panels):
                        console.print(item)
                return
    for item in itertools.chain(held, panels):
        console.print(item)
