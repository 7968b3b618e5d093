"""The stamp of a benchmark run: date, CPU model, cores, Python and which chatpipe ran."""

from __future__ import annotations

import datetime
import os
import platform


def stamp() -> str:
    """The date, the CPU and the Python of the run, so that a figure says where it is from."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            cpu = next(line.split(":", 1)[1].strip() for line in info if "model name" in line)
    except (OSError, StopIteration):
        pass
    import chatpipe

    where = "installed" if "site-packages" in (chatpipe.__file__ or "") else "from source"
    return (
        f"{datetime.date.today().isoformat()}, {cpu}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, chatpipe {chatpipe.__version__} ({where})"
    )
