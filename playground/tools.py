"""Where the CUDA binary tools are (ptxas, nvdisasm, cuobjdump): Triton's knob first, then the wheel's copy.
A leaf: `--version` and the compile layer both ask, and neither should import the other."""
from __future__ import annotations

import os
from pathlib import Path

from .errors import UserError


def tool(name: str) -> str:
    """Path of a CUDA binary tool: Triton's knob (TRITON_<NAME>_PATH) first, then the wheel's copy."""
    from triton import knobs
    knob = getattr(knobs.nvidia, name, None)
    path = getattr(knob, "path", None) if knob is not None else None
    if path and os.path.exists(path):
        return path
    import triton
    bundled = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / name
    if bundled.exists():
        return str(bundled)
    raise UserError(f"{name} not found: install a triton wheel that ships it, or set TRITON_{name.upper()}_PATH")
