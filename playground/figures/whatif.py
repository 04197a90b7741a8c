"""What occupancy another config would give: recompile the kernel with one change and read it again.

The occupancy module is a pure calculator over one binary; this one compiles (through the
kernel's Request), so it is kept apart and only the `occupancy` command uses it.
"""
from __future__ import annotations

from ..units import kib, pct
from .occupancy import Occupancy, of, per_sm
from .occupancy_text import LIMITER_WORDS


def report(compiled, num_sms: int | None = None) -> Occupancy:
    """Occupancy of a compiled kernel with every hint: the arithmetic ones and the recompiled ones."""
    occ = of(compiled, num_sms)
    occ.hints += what_if(compiled, num_sms)
    return occ


def what_if(compiled, num_sms: int | None = None) -> list[str]:
    """When shared memory limits: recompile with fewer pipeline stages, then with half the BLOCK_SIZE_K,
    and report the first of each that lets one more block in, with the shared memory and registers
    the compiler then really uses."""
    base = of(compiled, num_sms)
    if "shared_memory" not in base.limiter:
        return []
    cfg = compiled.config
    stages = [(f"num_stages={s}", {"num_stages": s}) for s in range(cfg.num_stages - 1, 0, -1)]
    smaller_k = []
    if cfg.meta.get("BLOCK_SIZE_K", 0) >= 32:
        k = cfg.meta["BLOCK_SIZE_K"] // 2
        smaller_k = [(f"BLOCK_SIZE_K={k}", {"meta": {"BLOCK_SIZE_K": k}})]
    out = []
    for group in (stages, smaller_k):
        first = None
        for label, changes in group:      # the first change that lets one more block in
            line = _recompiled(compiled, base, label, changes, num_sms)
            if line and "still" not in line:
                out.append(line)
                break
            first = first or line
        else:
            if first:                     # none did: say what the nearest one gives, and what still limits
                out.append(first)
    return out


def _recompiled(compiled, base: Occupancy, label: str, changes: dict, num_sms) -> str | None:
    try:
        other = of(compiled.request.changed(**changes).compile(), num_sms)
    except Exception:       # a config the spec or the compiler rejects is no hint
        return None
    mem = "shared memory" if compiled.target.is_nvidia else "LDS"
    change = (f"with {label}: {mem} {kib(base.shared_memory)} → {kib(other.shared_memory)}, registers "
              f"{base.registers} → {other.registers}: ")
    if other.active_blocks_per_sm <= base.active_blocks_per_sm:
        limited = ", ".join(LIMITER_WORDS[other.device_table.is_nvidia][k] for k in other.limiter)
        return change + f"still {per_sm(other.device_table, other.active_blocks_per_sm)} (limited by {limited})"
    return change + (f"{base.active_blocks_per_sm} → {per_sm(other.device_table, other.active_blocks_per_sm)}, "
                     f"{pct(base.occupancy)} → {pct(other.occupancy)}")


# ---------------------------------------------------------------------------------------------
# Rendering: the compile header's lines and the JSON summary (render.py calls both)
