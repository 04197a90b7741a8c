"""Which source file is the user's own: where an error or a sanitizer finding should point.

A crash message (runner.py) and a sanitizer finding (sanitize.py) both walk frames inward until
one lies outside this package, the standard library and the installed packages (triton, torch).
"""
from __future__ import annotations

import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]   # playground/: the library's own frames are never the user's


def is_user_file(path: str) -> bool:
    """Not this package, not the standard library, not an installed package (triton, torch)."""
    import sysconfig
    if path.startswith("<"):
        return False
    p = str(Path(path).resolve())
    paths = sysconfig.get_paths()
    library = [str(PACKAGE)] + [str(Path(paths[k]).resolve()) for k in ("stdlib", "platstdlib", "purelib", "platlib")]
    return not any(p.startswith(d + os.sep) for d in library)
