"""Warnings before the slow work: a problem no GPU could hold, a tile no register file could hold.

The tile warning reads the TTGIR as Triton's pipeline makes it, before LLVM and ptxas start,
so a tile that would take ptxas minutes is named while there is still time to stop it.
"""
from __future__ import annotations

import contextlib
import math
import re
import warnings

from ..core import devices, dtypes
from ..core.spec import KernelSpec
from ..core.config import Config
from ..core.targets import Target
from ..units import size



class PlaygroundWarning(UserWarning):
    pass


def python_warning(message: str) -> None:
    warnings.warn(message, PlaygroundWarning, stacklevel=3)


def shape_warnings(spec: KernelSpec, shape: dict, dtype: str) -> list[str]:
    """A problem larger than the memory of every GPU in the device table can still be compiled
    (the binary does not depend on it), but it cannot run anywhere: say so."""
    needed = sum(math.prod(t.dims(shape)) * dtypes.size(spec.tensor_dtype(n, dtype))
                 for n, t in spec.tensors.items())
    largest = max(devices.DEVICES.values(), key=lambda d: d.memory_bytes)
    if needed <= largest.memory_bytes:
        return []
    return [f"at this shape the tensors take {size(needed)}; no GPU in the device table has that much memory "
            f"(the most is {size(largest.memory_bytes)}, {largest.name})"]


# The most register storage one thread has on any target in the device table: 512 VGPRs x 4 bytes
# per lane on CDNA (gfx90a+), against 255 x 4 on NVIDIA. A single tensor value larger than this per
# thread spills on every GPU, and compiling it (LLVM, then ptxas) can take many minutes.
MAX_REGISTER_BYTES_PER_THREAD = 512 * 4
_TENSOR_TYPE = re.compile(r"tensor<((?:\d+x)+)(!tt\.ptr<\w+>|[a-z]+\d*)")


def tile_warnings(ttgir: str, threads: int) -> list[str]:
    """Register-resident tensors (the TTGIR's `tensor<...>` values) too big for any register file."""
    worst = None
    for m in _TENSOR_TYPE.finditer(ttgir):
        elements = math.prod(int(d) for d in m.group(1).rstrip("x").split("x"))
        element = "!tt.ptr" if m.group(2).startswith("!tt.ptr") else m.group(2)
        per_thread = -(-elements * dtypes.IR_BYTES.get(element, 4) // max(threads, 1))
        if worst is None or per_thread > worst[0]:
            worst = (per_thread, m.group(0) + ">")
    if worst is None or worst[0] <= MAX_REGISTER_BYTES_PER_THREAD:
        return []
    return [f"the tile {worst[1]} needs {worst[0]:,} bytes of registers per thread ({threads} threads); no GPU "
            f"holds more than {MAX_REGISTER_BYTES_PER_THREAD:,}, so it will spill heavily and ptxas may take "
            f"minutes (--timeout stops it)"]


@contextlib.contextmanager
def watch_tiles(target: Target, config: Config, warn):
    """Read the TTGIR as Triton's pipeline makes it, before LLVM and ptxas run, for tile_warnings.

    Only observes: the stage's output, the cache key and every artefact are unchanged (the wrapper
    is installed on the backend class for this compile, not through Triton's inspection hook, which
    would change the cache key).
    """
    from triton.compiler import make_backend
    cls = type(make_backend(target.gpu_target()))
    original = cls.add_stages
    threads = config.num_warps * target.warp_size

    def add_stages(self, stages, *args, **kwargs):
        original(self, stages, *args, **kwargs)
        make_ttgir = stages.get("ttgir")
        if make_ttgir is None:
            return

        def ttgir(src, metadata):
            module = make_ttgir(src, metadata)
            for message in tile_warnings(str(module), threads):
                warn(message)
            return module
        stages["ttgir"] = ttgir

    cls.add_stages = add_stages
    try:
        yield
    finally:
        cls.add_stages = original
