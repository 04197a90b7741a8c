"""Compilation targets by name: sm_80 ... sm_120 for NVIDIA, gfx90a ... gfx1100 for AMD, and native."""
from __future__ import annotations

import os
from dataclasses import dataclass

from .errors import UserError

DEFAULT = "sm_90"   # what `compile` targets on a machine with no GPU


@dataclass(frozen=True)
class Target:
    name: str          # "sm_90", "gfx942"
    backend: str       # "cuda" or "hip", as Triton names them
    arch: int | str    # 90 or "gfx942", as GPUTarget takes it
    warp_size: int     # 32 threads a warp on NVIDIA and RDNA; 64 a wavefront on CDNA

    @property
    def is_nvidia(self) -> bool:
        return self.backend == "cuda"

    @property
    def stages(self) -> tuple[str, ...]:
        """The stages this target's compile produces, in pipeline order (stages.py)."""
        from .stages import for_backend
        return for_backend(self.backend)

    def gpu_target(self):
        from triton.backends.compiler import GPUTarget
        return GPUTarget(self.backend, self.arch, self.warp_size)


# Warp size 64 on CDNA (gfx9) and 32 on RDNA (gfx11), as Triton's HIP backend uses them.
TARGETS = {
    **{f"sm_{cc}": Target(f"sm_{cc}", "cuda", cc, 32) for cc in (80, 86, 89, 90, 100, 120)},
    "gfx90a": Target("gfx90a", "hip", "gfx90a", 64),
    "gfx942": Target("gfx942", "hip", "gfx942", 64),
    "gfx950": Target("gfx950", "hip", "gfx950", 64),
    "gfx1100": Target("gfx1100", "hip", "gfx1100", 32),
}


def resolve(name: str | None) -> Target:
    """A target by name; `native` (or None) is the local GPU, or sm_90 when there is none."""
    if name in (None, "native"):
        return native() or TARGETS[DEFAULT]
    if not name.strip():
        raise UserError(f"--target is empty; known targets: native, {', '.join(TARGETS)}")
    key = name.strip().lower().replace("sm", "sm_").replace("sm__", "sm_") if name.lower().startswith("sm") else name.lower()
    if key in TARGETS:
        return TARGETS[key]
    raise UserError(f"unknown target '{name}'; known targets: native, {', '.join(TARGETS)}")


def has_gpu() -> bool:
    """A cheap look for a GPU device node, so that machines without one never load a driver."""
    return os.path.exists("/dev/nvidiactl") or os.path.exists("/dev/kfd")


def native() -> Target | None:
    if not has_gpu():
        return None
    try:
        from triton.runtime import driver
        t = driver.active.get_current_target()
    except Exception:
        return None
    name = f"sm_{t.arch}" if t.backend == "cuda" else str(t.arch).split(":")[0]
    known = TARGETS.get(name)
    return known or Target(name, t.backend, t.arch, t.warp_size)
