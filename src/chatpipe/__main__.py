"""``python -m chatpipe``. Guarded: a process started by the fork server or spawn (a Dask
worker of chatpipe's local cluster) imports this module again, and must not run the
command again."""

from .entry import main

if __name__ == "__main__":
    main()
