"""Writing files so that a reader never sees half of one: a private temporary file beside it, then a rename
over it (atomic on POSIX). Shared caches (several compiles at once) and the user's own output files use it."""
from __future__ import annotations

import functools
import json
import os
import tempfile
from pathlib import Path


def write_atomically(path: str | Path, text: str) -> None:
    """Write `text` to `path`. The file keeps its permissions when it existed; a new one gets what the
    umask allows (mkstemp's private 0600 would otherwise hide an export from its readers)."""
    path = Path(path)
    try:
        mode = path.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json(path: str | Path, data) -> None:
    write_atomically(path, json.dumps(data, default=str))


def read_json(path: str | Path):
    """A JSON file's contents, parsed once per version of the file (its path, size and modification time):
    a saved reference (T.json#N, PLAN.json#N) is looked at several times in one command. Read-only: the
    same object is returned to every caller. OSError or ValueError as json.loads raises them."""
    st = os.stat(path)
    return _parsed(os.path.realpath(path), st.st_size, st.st_mtime_ns)


@functools.lru_cache(maxsize=16)
def _parsed(path: str, size: int, mtime_ns: int):
    with open(path) as f:
        return json.load(f)
