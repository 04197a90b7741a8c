"""The vendor's query tool for the virtual GPU: `nvidia-smi` (CUDA targets) or `rocm-smi` (HIP), first on the
script's PATH.

Libraries find the GPU they run on by running that tool (FlagGems' vendor detection runs `nvidia-smi` and keeps
the vendor whose command exits 0), and refuse to import when none answers. The stand-in answers for the virtual
device in one line that says what it is, whatever it is asked, and exits 0. It lives in a temporary folder that
goes with the process.
"""
from __future__ import annotations

import atexit
import os
import shlex
import shutil
import stat
import tempfile
from pathlib import Path

TOOLS = {"cuda": "nvidia-smi", "hip": "rocm-smi"}


def install(gpu) -> Path:
    """Put the stand-in first on this process's PATH (its children inherit it); returns its path."""
    folder = Path(tempfile.mkdtemp(prefix="playground-smi-"))
    atexit.register(shutil.rmtree, folder, True)
    tool = folder / TOOLS[gpu.target.backend]
    line = (f"GPU 0: {gpu.device.name} (virtual: playground's stand-in {tool.name} for the {gpu.target.name} "
            f"target; there is no GPU here)")
    tool.write_text(f"#!/bin/sh\necho {shlex.quote(line)}\n")
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    os.environ["PATH"] = f"{folder}{os.pathsep}{os.environ.get('PATH', '')}"
    return tool
