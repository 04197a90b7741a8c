"""Compilation targets by name: sm_80 ... sm_120 for NVIDIA, gfx90a ... gfx1100 for AMD, and native; and GPUs
by name: another part of a target's architecture (l40s, h100-pcie, ...: devices.VARIANTS), or the part a
target's row describes (h100, rtx4090, mi300x, ...)."""
from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass

from .. import compat
from ..errors import UserError
from .devices import DEVICES, VARIANTS, for_driver_name
from .stages import for_backend

DEFAULT = "sm_90"   # what `compile` targets on a machine with no GPU


@dataclass(frozen=True)
class Target:
    name: str          # "sm_90", "gfx942"
    backend: str       # "cuda" or "hip", as Triton names them
    arch: int | str    # 90 or "gfx942", as GPUTarget takes it
    warp_size: int     # 32 threads a warp on NVIDIA and RDNA; 64 a wavefront on CDNA
    gpu: str = ""      # another GPU of this architecture, by its devices.VARIANTS name ("l40s"); "" for the
                       # part the target's own row describes. The binary is the architecture's either way.

    @property
    def label(self) -> str:
        """The name --target took: the GPU's where one was named ("l40s"), else the target's ("sm_89")."""
        return self.gpu or self.name

    @property
    def is_nvidia(self) -> bool:
        return self.backend == "cuda"

    @property
    def stages(self) -> tuple[str, ...]:
        """The stages this target's compile produces, in pipeline order (stages.py)."""
        return for_backend(self.backend)

    def gpu_target(self):
        from triton.backends.compiler import GPUTarget
        return GPUTarget(self.backend, self.arch, self.warp_size)


def _target(device) -> Target:
    """A device table row as Triton names its target: cuda with the compute capability (sm_90 -> 90),
    or hip with the gfx name; the warp size is the device's (64 on CDNA, 32 on RDNA and NVIDIA)."""
    if device.is_nvidia:
        return Target(device.target, "cuda", int(device.target.removeprefix("sm_")), device.warp_size)
    return Target(device.target, "hip", device.target, device.warp_size)


# One row per GPU: adding a target is adding its Device in devices.py.
TARGETS = {name: _target(d) for name, d in DEVICES.items()}


# The GPU each target's device row describes, by the name people know it by: --target h100 is sm_90.
REPRESENTED = {"a100": "sm_80", "rtx3090": "sm_86", "rtx4090": "sm_89", "h100": "sm_90", "b200": "sm_100",
               "rtx5090": "sm_120", "mi250x": "gfx90a", "mi300x": "gfx942", "mi355x": "gfx950", "rx7900xtx": "gfx1100"}


def _compact(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch not in " -_")


_BY_GPU = {_compact(gpu): gpu for gpu in VARIANTS}


def resolve(name: str | None) -> Target:
    """A target by name; `native` (or None) is the local GPU, or sm_90 when there is none. A GPU's name (any case,
    with or without dashes: "L40S", "h100-pcie", "H100_PCIe") is its architecture's target with that GPU's row."""
    if name in (None, "native"):
        return native() or TARGETS[DEFAULT]
    if not name.strip():
        raise UserError(f"target is empty; known targets: {known()}", param="target")
    key = name.strip().lower().replace("sm", "sm_").replace("sm__", "sm_") if name.lower().startswith("sm") else name.lower()
    if key in TARGETS:
        return TARGETS[key]
    compact = _compact(name)
    if compact in _BY_GPU:
        gpu = _BY_GPU[compact]
        return dataclasses.replace(TARGETS[VARIANTS[gpu].target], gpu=gpu)
    if compact in REPRESENTED:
        return TARGETS[REPRESENTED[compact]]
    raise UserError(f"unknown target '{name}'; known targets: {known()}")


def known() -> str:
    """The names --target takes, for an error message."""
    return f"native, {', '.join(TARGETS)}; GPUs: {', '.join([*REPRESENTED, *VARIANTS])}"


def has_gpu() -> bool:
    """A cheap look for a GPU device node, so that machines without one never load a driver."""
    return os.path.exists("/dev/nvidiactl") or os.path.exists("/dev/kfd")


def native() -> Target | None:
    """The local GPU's target, or None without one: its architecture, or the part of devices.VARIANTS its driver
    names (an H100 PCIe, an H200, an L40S), so that its figures are that part's and not the representative's.
    Triton's driver asks torch for the device on a GPU machine; this adds only the name torch's driver reports."""
    if not has_gpu():
        return None
    try:
        driver = compat.reach("driver")
        t = driver.active.get_current_target()
    except Exception:
        return None
    name = f"sm_{t.arch}" if t.backend == "cuda" else str(t.arch).split(":")[0]
    known = TARGETS.get(name)
    if known is None:
        return Target(name, t.backend, t.arch, t.warp_size)
    gpu = _named_part(known, driver.active)
    return dataclasses.replace(known, gpu=gpu) if gpu else known


def _named_part(target: Target, active_driver) -> str:
    """The VARIANTS name of the GPU the driver reports ("NVIDIA H200" -> "h200"), or "" for the representative."""
    try:
        interface = active_driver.get_device_interface()
        name = interface.get_device_name(active_driver.get_current_device())
    except Exception:          # a driver that cannot say: the architecture's row
        return ""
    row = for_driver_name(target, name)
    return next((gpu for gpu, device in VARIANTS.items() if device is row), "")


def target_rows() -> list[dict]:
    """One row per name --target takes, for `playground targets`: each target with its representative GPU's
    figures, then each other GPU of VARIANTS with its own (and the target whose binary it runs)."""
    rows = []
    for name, d in [*DEVICES.items(), *VARIANTS.items()]:
        t = TARGETS[d.target]
        rows.append({
            "target": name, "arch": d.target, "vendor": d.vendor, "backend": t.backend, "warp_size": t.warp_size,
            "gpu": d.name,
            "num_sms": d.num_sms, "max_warps_per_sm": d.max_warps_per_sm, "max_blocks_per_sm": d.max_blocks_per_sm,
            # 32-bit registers per SM (CU, WGP): AMD's VGPR counts are per lane, so times the wave's lanes
            "registers_per_sm": d.regs_per_sm if d.is_nvidia else d.vgprs_per_simd * d.warp_size * d.simds_per_cu,
            "shared_per_sm": d.shared_per_sm if d.is_nvidia else d.lds_per_cu,
            "shared_per_block": d.shared_per_block_optin if d.is_nvidia else d.lds_per_workgroup,
            "memory_bytes": d.memory_bytes, "bandwidth_gbs": d.mem_bandwidth_gbs, "l2_bytes": d.l2_bytes,
            "infinity_cache_bytes": d.infinity_cache_bytes, "infinity_cache_gbs": d.infinity_cache_gbs,
            "l2_partitions": d.l2_partitions, "matrix_clock_ghz": dict(d.matrix_clock_ghz),
            "peak_tflops": dict(d.peak_tflops), "stages": list(t.stages)})
    return rows


def resolve_all(text: str) -> list[Target]:
    """Several targets, comma-separated ("sm_90,gfx942"), each named once: two names of one GPU (sm_90 and
    h100) would compile it twice and compare it with itself."""
    given = [t.strip() for t in (text or "").split(",") if t.strip()]
    if not given:
        raise UserError("target: name at least one target", param="target")
    resolved = [resolve(t) for t in given]
    labels = [t.label for t in resolved]
    twice = next((label for label in labels if labels.count(label) > 1), None)
    if twice:
        names = " and ".join(g for g, label in zip(given, labels) if label == twice)
        raise UserError(f"target: {names} name one target ({twice}); name each once", param="target")
    return resolved
