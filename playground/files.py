"""Writing files so that a reader never sees half of one: a private temporary file beside it, then a rename
over it (atomic on POSIX). Shared caches (several compiles at once) and the user's own output files use it."""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path


def write_atomically(path: str | Path, text: str) -> None:
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json(path: str | Path, data) -> None:
    write_atomically(path, json.dumps(data, default=str))
