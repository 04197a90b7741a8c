"""SASS from the cubin, through the disassembler that ships inside the triton wheel.

nvdisasm takes about half a second on a GEMM, so the result is kept in Triton's cache
directory beside the cubin it came from; a cache hit never runs the tool again.
"""
from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

from ..files import write_atomically
from ..tools import tool

# With nvdisasm's line info: `//## File "kernel.py", line N [inlined at ...]` from .debug_line and
# `//## File ".nv_debug_ptx_txt", line M` (the PTX line) from .nv_debug_line_sass.
SASS_FILE = "playground-v2.sass"


RES_USAGE_FILE = "playground-res-usage.txt"
# Without line info or nvdisasm's dataflow pass (-ndf): for counting instructions, not for reading.
COUNTED_FILE = "playground-counted.sass"


def sass_with_line_info(compiled) -> str:
    return _cached(compiled, SASS_FILE, [tool("nvdisasm"), "-c", "--print-line-info-inline", "--print-line-info-ptx"])


def _cached(compiled, name: str, command: list[str]) -> str:
    """A tool's output on the cubin, kept beside it in Triton's cache: a warm run starts no process."""
    cached = compiled.cache_dir() / name
    if cached.exists():
        return cached.read_text()
    text = _run_on_cubin(compiled.kernel.asm["cubin"], command)
    write_atomically(cached, text)   # concurrent compiles share the cache
    return text


def sass(compiled) -> str:
    """SASS as a reader wants it: instructions and labels, without the line-info comments."""
    return "\n".join(line for line in sass_with_line_info(compiled).splitlines()
                     if not line.lstrip().startswith("//##")) + "\n"


def instructions(compiled) -> str:
    """The SASS instructions, for counting them (the performance model, a sweep's rows): the reader's SASS when
    it is already kept, else nvdisasm without line info or its dataflow pass (-ndf), which takes a third less
    time a binary. The instructions and their direct branches' labels are the same; the dataflow pass only adds
    labels it infers for jumps through the branch stack, which no count reads (tests/test_resources.py)."""
    if (compiled.cache_dir() / SASS_FILE).exists():
        return sass(compiled)
    return _cached(compiled, COUNTED_FILE, [tool("nvdisasm"), "-c", "-ndf"])


def _run_on_cubin(cubin: bytes, command: list[str]) -> str:
    with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as f:
        f.write(cubin)
    try:
        done = subprocess.run(command + [f.name], capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    if done.returncode != 0:
        raise RuntimeError(f"{Path(command[0]).name} failed: {done.stderr.strip()}")
    return done.stdout


def resource_usage_dump(cubin: bytes) -> str:
    """`cuobjdump -res-usage`: registers, stack, shared and local memory, as ptxas recorded them."""
    return _run_on_cubin(cubin, [tool("cuobjdump"), "-res-usage"])


def resource_usage(compiled) -> str:
    """resource_usage_dump of a compiled kernel's cubin, kept in Triton's cache beside it."""
    return _cached(compiled, RES_USAGE_FILE, [tool("cuobjdump"), "-res-usage"])


