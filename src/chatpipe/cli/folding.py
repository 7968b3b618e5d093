"""Long text for ``chatpipe show``: folded to a screenful of rows unless ``--full``, and
wrapped in time linear in its length whatever its lines' lengths.

Rich splits a rendered text into rows by partitioning one segment at each line end, copying
what is left of the segment each time: a paragraph of n characters on one line costs
n²/width (a 4 MB line took 8 s, 50 MB over ten minutes). ``Wrapped`` hands rich one segment
a row instead, and folding looks at no more of a text than the rows it shows."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

FOLD_ROWS = 12
SLACK_ROWS = 3  # a fold that would hide no more than this shows the whole text instead


def fold(text: str, width: int, rows: int = FOLD_ROWS) -> tuple[str, str]:
    """The start of ``text`` that fills about ``rows`` rows ``width`` cells wide, and a note
    on what is left out ('' when nothing is): a line longer than the rows left is cut at a
    space near its end of the rows (a word longer than a row, at the row's end)."""
    from rich.cells import cell_len

    width = max(width, 1)
    pos = used = 0
    while pos < len(text) and used < rows:
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        room = (rows - used) * width
        line = text[pos : min(end, pos + room + 1)]
        cells = cell_len(line)
        if cells <= room and end - pos == len(line):
            used += max(1, -(-cells // width))
            pos = end + 1
            continue
        return _folded(text, width, pos + _cut(line, room), partial=True)
    return _folded(text, width, pos, partial=False)


def _folded(text: str, width: int, at: int, partial: bool) -> tuple[str, str]:
    lines = text.count("\n", at, len(text) - 1) + 1  # a last line end starts no line
    if at >= len(text) or (lines <= SLACK_ROWS and len(text) - at <= SLACK_ROWS * width):
        return text, ""
    if not partial:
        return text[: at - 1], f"… {lines} more lines (--full shows them)"
    rest = f"{len(text) - at:,} more characters"
    if lines > 1:
        rest += f", in {lines} lines"
    return text[:at], f"… {rest} (--full shows them)"


def _cut(line: str, room: int) -> int:
    """How many characters of ``line`` fill ``room`` cells, ended at a space when there is
    one in the last fifth of them."""
    from rich.cells import get_character_cell_size

    cells = count = 0
    for char in line:
        cells += get_character_cell_size(char)
        if cells > room:
            break
        count += 1
    space = line.rfind(" ", count - count // 5, count)
    return space + 1 if space > 0 else max(count, 1)


class Wrapped:
    """A text wrapped to the width it is given, a segment a row; folded unless ``full``,
    with a dim line saying what the fold left out."""

    def __init__(self, text: str, full: bool, style: str = "") -> None:
        self.text, self.full, self.style = text, full, style

    def __rich_console__(self, console: Any, options: Any) -> Iterator[Any]:
        from rich.segment import Segment
        from rich.text import Text

        width = options.max_width
        shown, note = (self.text, "") if self.full else fold(self.text, width)
        for row in Text(shown, style=self.style).wrap(console, width):
            yield from row.render(console)
            yield Segment.line()
        if note:
            yield Text(note, style="dim")

    def __rich_measure__(self, console: Any, options: Any) -> Any:
        from rich.measure import Measurement

        return Measurement(1, options.max_width)
