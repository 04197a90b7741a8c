"""Occupancy: how many blocks of a kernel fit on one SM at once, what stops the next one, and what would let it in.

NVIDIA: the rules of cuda_occupancy.h, the CUDA toolkit header behind
cudaOccupancyMaxActiveBlocksPerMultiprocessor (and the old occupancy calculator spreadsheet).
Four limits, each a number of blocks per SM; the smallest wins and every limit equal to it is
a limiter:
- warps:     max warps per SM // warps per block.
- registers: a warp's registers are regs x 32 rounded up to the 256-register allocation unit. An SM
             has 4 sub-partitions, each with a quarter of the register file; a sub-partition holds
             (regs per SM / 4) // regs per warp warps, so the SM holds 4x that, and blocks are that
             // warps per block. A block that needs more than the per-block register limit cannot
             launch; the hardware's check rounds the block's warps up to a multiple of 4 first.
- shared:    the block's static + dynamic shared memory plus the 1 KB the driver reserves per block,
             rounded up to the 128-byte allocation unit. Triton's launcher opts every kernel into the
             largest per-block size (cuFuncSetAttribute MAX_DYNAMIC_SHARED_SIZE_BYTES), so a block
             may use up to the opt-in maximum; the SM holds shared per SM // that.
- blocks:    the hardware's resident-block cap.
The reserved 1 KB is counted once: resources.py reports the kernel's own shared bytes, without the
reserved region that sm_90+ cubins fold into their shared section (see resources.py).

AMD: waves per SIMD as the LLVM AMDGPU backend computes them for the compiler's `; Occupancy:`
comment (AMDGPUBaseInfo getNumWavesPerEUWithNumVGPRs, GCNSubtarget getOccupancyWithNumSGPRs), then
workgroups per CU from waves, LDS and barriers:
- VGPRs: the wave's VGPRs (arch + AGPRs on gfx90a+, where one file holds both) rounded up to the
  allocation granule; a SIMD holds vgprs per SIMD // that waves, capped at the per-SIMD wave limit.
- SGPRs: on gfx9, more than 100 SGPRs lowers the cap to 7 waves (8 up to 100, 9 up to 88, 10 up
  to 80); on gfx10+ SGPRs never limit.
- LDS: a workgroup's LDS rounded up to 512 bytes (128 dwords, CDNA3 ISA "LDS allocation"); a CU
  holds LDS per CU // that workgroups.
- barriers: at most 16 multi-wave workgroups per CU (32 on RDNA in WGP mode), LLVM getMaxWorkGroupsPerCU.
A workgroup's waves spread over the CU's SIMDs, so workgroups per CU by registers is
(waves per SIMD x SIMDs) // waves per workgroup.
Triton's LDS is dynamic: the kernel declares an external LDS array and the launcher passes
metadata.shared at launch. The compiler's `; Occupancy:` comment is computed from static LDS
(`LDSByteSize: 0 ... (compile time only)`), so for Triton kernels it counts registers only;
`register_waves_per_simd` is that number, and the LDS limit comes from the formula above.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..core.spec import cdiv
from ..errors import UserError
from ..units import kib, kib_exact, pct
from . import grid

LIMITERS = ("warps", "registers", "shared_memory", "blocks")
_NO_LIMIT = 1 << 30      # a resource the block does not use never limits (cuda_occupancy.h uses INT_MAX)


@dataclass
class Occupancy:
    target: str
    device: str
    num_sms: int
    threads: int                 # per block
    warps_per_block: int         # warps (NVIDIA) or waves (AMD) per block
    registers: int               # per thread: NVIDIA registers, AMD VGPRs (+ AGPRs where unified)
    shared_memory: int           # bytes per block the kernel asks for: static + dynamic
    shared_allocated: int        # bytes per block the SM sets aside: reserved and rounding included
    active_blocks_per_sm: int
    active_warps_per_sm: int
    max_warps_per_sm: int
    occupancy: float             # active warps / max warps
    limiter: list[str]
    launchable: bool
    reason: str                  # why it cannot launch; "" when it can
    blocks_by: dict              # the blocks per SM each limit alone allows (None: no limit)
    grid: int | None = None      # CTAs in the launch, when known
    ctas_per_wave: int | None = None
    waves: int | None = None
    last_wave_ctas: int | None = None
    # AMD
    sgprs: int | None = None
    waves_per_simd: int | None = None            # resident waves per SIMD with every limit
    register_waves_per_simd: int | None = None   # VGPRs, SGPRs and the wave cap alone: the compiler's `; Occupancy:`
    compiler_occupancy: int | None = None        # the compiler's own comment, from the artefact
    notes: list[str] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)
    device_table: object = field(default=None, repr=False, compare=False)

    @property
    def last_wave_fill(self) -> float | None:
        if not self.waves or not self.ctas_per_wave:
            return None
        return self.last_wave_ctas / self.ctas_per_wave

    def as_dict(self) -> dict:
        out = {k: v for k, v in self.__dict__.items() if k != "device_table"}
        out["occupancy"] = round(self.occupancy, 6)
        out["last_wave_fill"] = None if self.last_wave_fill is None else round(self.last_wave_fill, 6)
        return out


def compute(device, threads: int, regs: int, smem: int, grid: int | None = None, sgprs: int | None = None) -> Occupancy:
    """Occupancy of one block shape on `device` (a devices.Device).

    threads per block; regs per thread (AMD: VGPRs incl. AGPRs); smem: the block's total shared
    memory / LDS as the kernel asks for it (static + dynamic), bytes; grid: CTAs in the launch.
    """
    _check(device, threads, regs, smem, grid, sgprs)
    occ = _nvidia(device, threads, regs, smem) if device.is_nvidia else _amd(device, threads, regs, smem, sgprs)
    if grid is not None:
        occ.grid = grid
        occ.ctas_per_wave = occ.active_blocks_per_sm * device.num_sms
        if occ.ctas_per_wave:
            occ.waves = cdiv(grid, occ.ctas_per_wave)
            occ.last_wave_ctas = grid - (occ.waves - 1) * occ.ctas_per_wave
        else:                    # it never runs: no wave at all
            occ.waves, occ.last_wave_ctas = 0, 0
    return occ


def _check(device, threads, regs, smem, grid, sgprs) -> None:
    for name, value in (("threads", threads), ("regs", regs), ("smem", smem), ("grid", grid), ("sgprs", sgprs)):
        if value is None and name in ("grid", "sgprs"):
            continue
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise UserError(f"{name} {value}: must be a non-negative integer", param=name)
    if threads < 1:
        raise UserError("threads 0: a block has at least one thread", param="threads")
    if threads > device.max_threads_per_block:
        raise UserError(f"threads {threads}: {device.target} allows at most {device.max_threads_per_block} "
                        f"threads per block", param="threads")
    if grid is not None and grid < 1:
        raise UserError("grid 0: a launch has at least one CTA", param="grid")
    if sgprs is not None and device.is_nvidia:
        raise UserError(f"sgprs {sgprs}: scalar registers are AMD's; {device.target} has none", param="sgprs")
    if sgprs is not None and device.sgprs_per_simd and sgprs > device.sgprs_per_simd:
        raise UserError(f"sgprs {sgprs}: a {device.target} SIMD has {device.sgprs_per_simd} SGPRs in all", param="sgprs")


def _finish(device, threads, warps, regs, smem, allocated, by: dict, reasons: list[str], **extra) -> Occupancy:
    finite = {k: (v if v is not None else _NO_LIMIT) for k, v in by.items()}
    active = min(finite.values())
    limiter = [k for k in LIMITERS if finite[k] == active]
    active_warps = active * warps
    return Occupancy(
        target=device.target, device=device.name, num_sms=device.num_sms, threads=threads, warps_per_block=warps,
        registers=regs, shared_memory=smem, shared_allocated=allocated, active_blocks_per_sm=active,
        active_warps_per_sm=active_warps, max_warps_per_sm=device.max_warps_per_sm,
        occupancy=active_warps / device.max_warps_per_sm, limiter=limiter, launchable=active > 0,
        reason="; ".join(reasons) if active == 0 else "", blocks_by=dict(by), device_table=device, **extra)


def _nvidia(d, threads: int, regs: int, smem: int) -> Occupancy:
    warps = cdiv(threads, d.warp_size)
    reasons = []
    # Registers (cudaOccMaxBlocksPerSMRegsLimit).
    per_warp = round_up(regs * d.warp_size, d.reg_alloc_unit)
    assumed = per_warp * round_up(warps, d.warp_alloc_granularity)     # the hardware check
    if regs > d.max_regs_per_thread:
        by_regs = 0
        reasons.append(f"uses {regs} registers per thread; {d.target} allows {d.max_regs_per_thread}")
    elif assumed > d.regs_per_block:
        by_regs = 0
        counted = round_up(warps, d.warp_alloc_granularity)
        reasons.append(f"needs {assumed} registers per block ({per_warp} per warp x {counted} warps"
                       f"{' (rounded up to a multiple of 4)' if counted != warps else ''}); "
                       f"{d.target} allows {d.regs_per_block}")
    elif per_warp == 0:
        by_regs = None
    else:
        warps_per_partition = d.regs_per_sm // d.warp_alloc_granularity // per_warp
        by_regs = warps_per_partition * d.warp_alloc_granularity // warps
        if by_regs == 0:
            reasons.append(f"{per_warp} registers per warp leave room for "
                           f"{warps_per_partition * d.warp_alloc_granularity} warps per SM; the block has {warps}")
    # Shared memory (cudaOccMaxBlocksPerSMSmemLimit, with the opt-in limit Triton's launcher sets).
    allocated = round_up(smem + d.shared_reserved_per_block, d.shared_alloc_unit)
    if allocated > d.shared_per_block_optin + d.shared_reserved_per_block:
        by_smem = 0
        reasons.append(f"needs {kib(smem)} of shared memory per block; {d.target} allows {kib(d.shared_per_block_optin)} "
                       f"({kib(smem - d.shared_per_block_optin)} over)")
    else:
        by_smem = d.shared_per_sm // allocated
    by = {"warps": d.max_warps_per_sm // warps, "registers": by_regs, "shared_memory": by_smem,
          "blocks": d.max_blocks_per_sm}
    return _finish(d, threads, warps, regs, smem, allocated, by, reasons)


# LLVM AMDGPU GCNSubtarget::getOccupancyWithNumSGPRs, gfx8-gfx9: waves per SIMD by total SGPRs.
_SGPR_WAVES = ((80, 10), (88, 9), (100, 8))


def _amd(d, threads: int, vgprs: int, lds: int, sgprs: int | None) -> Occupancy:
    waves = cdiv(threads, d.warp_size)
    cap = d.max_waves_per_simd
    reasons = []
    if vgprs > d.max_vgprs_per_wave:
        by_vgpr = 0
        reasons.append(f"uses {vgprs} VGPRs per lane; {d.target} allows {d.max_vgprs_per_wave}")
    elif vgprs < d.vgpr_alloc_granule:
        by_vgpr = cap                   # LLVM: less than one granule never limits
    else:
        by_vgpr = min(cap, d.vgprs_per_simd // round_up(vgprs, d.vgpr_alloc_granule))
    by_sgpr = cap
    if d.sgpr_limits_waves and sgprs is not None:
        by_sgpr = next((w for limit, w in _SGPR_WAVES if sgprs <= limit), 7)
    simd_waves = min(cap, by_vgpr, by_sgpr)
    # Registers that leave every wave slot usable do not limit (else they would always tie with slots).
    by_regs = simd_waves * d.simds_per_cu // waves if simd_waves < cap else None
    if by_regs == 0 and by_vgpr:
        reasons.append(f"{vgprs} VGPRs leave room for {simd_waves} waves per SIMD; a workgroup of {waves} waves "
                       f"needs {cdiv(waves, d.simds_per_cu)}")
    allocated = round_up(lds, d.lds_alloc_unit)
    if lds > d.lds_per_workgroup:
        by_lds = 0
        reasons.append(f"needs {kib(lds)} of LDS per workgroup; {d.target} allows {kib(d.lds_per_workgroup)} "
                       f"({kib(lds - d.lds_per_workgroup)} over)")
    else:
        by_lds = d.lds_per_cu // allocated if allocated else None
    # Single-wave workgroups use no barrier, so only wave slots bound them (LLVM getMaxWorkGroupsPerCU).
    by_barriers = d.max_workgroups_per_cu if waves > 1 else cap * d.simds_per_cu
    by = {"warps": cap * d.simds_per_cu // waves, "registers": by_regs, "shared_memory": by_lds,
          "blocks": by_barriers}
    occ = _finish(d, threads, waves, vgprs, lds, allocated, by, reasons, sgprs=sgprs,
                  register_waves_per_simd=simd_waves)
    occ.waves_per_simd = cdiv(occ.active_warps_per_sm, d.simds_per_cu)
    return occ


def round_up(n: int, unit: int) -> int:
    return cdiv(n, unit) * unit if unit else n


def of(compiled, num_sms: int | None = None) -> Occupancy:
    """Occupancy of a compiled kernel at its launch configuration, from the artefact's real resources."""
    from ..core import devices
    device = devices.with_num_sms(devices.get(compiled.target), num_sms)
    r = compiled.resources
    threads = compiled.threads_per_block
    sgprs = None if compiled.target.is_nvidia else r.sgprs
    occ = compute(device, threads, r.registers, r.shared_total, grid=ctas(compiled), sgprs=sgprs)
    if not compiled.target.is_nvidia:
        occ.compiler_occupancy = r.compiler_occupancy
        occ.notes += _amd_notes(occ, r)
    occ.hints = hints(occ)
    return occ


def ctas(compiled) -> int | None:
    """CTAs in the launch (grid.ctas), or None when the spec's grid cannot say at this shape."""
    try:
        return grid.ctas(compiled)
    except Exception:
        return None


def _amd_notes(occ: Occupancy, r) -> list[str]:
    comment = r.compiler_occupancy
    if comment is None:
        return []
    if comment == occ.register_waves_per_simd:
        notes = [f"registers alone allow {comment} waves per SIMD, as the compiler's `; Occupancy: {comment}` says"]
    else:
        notes = [f"registers alone allow {occ.register_waves_per_simd} waves per SIMD by the LLVM formula; "
                 f"the compiler's `; Occupancy:` says {comment}"]
    if r.dynamic_shared:
        notes.append(f"that comment does not see Triton's {kib(r.dynamic_shared)} of dynamic LDS "
                     f"(metadata.shared, passed at launch); the LDS limit here does")
    return notes


def hints(occ: Occupancy) -> list[str]:
    """How far registers and shared memory must fall for one more block per SM.

    When both limit, both must fall, and the hint says so. Warps and the block cap depend on the
    block size alone, so when they bind there is no hint here (fewer warps is another compile).
    """
    d = occ.device_table
    target = occ.active_blocks_per_sm + 1
    if any(occ.blocks_by[k] is not None and occ.blocks_by[k] < target for k in ("warps", "blocks")):
        return []
    regs, smem = occ.registers, occ.shared_memory
    changes = []
    if occ.blocks_by["registers"] is not None and occ.blocks_by["registers"] < target:
        regs = next((r for r in range(occ.registers - 1, -1, -1) if _blocks_by(d, occ, r, smem, "registers") >= target),
                    None)
        if regs is None:
            return []
        changes.append(f"≤ {regs} {'registers' if d.is_nvidia else 'VGPRs'}")
    if occ.blocks_by["shared_memory"] is not None and occ.blocks_by["shared_memory"] < target:
        smem = _smem_for(d, target)
        if smem < 0:
            return []
        changes.append(f"≤ {kib_exact(smem)} of {'shared memory' if d.is_nvidia else 'LDS'}")
    if not changes:
        return []
    new = compute(d, occ.threads, regs, smem, sgprs=occ.sgprs)
    return [f"at {' and '.join(changes)}: {per_sm(d, new.active_blocks_per_sm)}, "
            f"{pct(occ.occupancy)} → {pct(new.occupancy)}"]


def _blocks_by(d, occ: Occupancy, regs: int, smem: int, limit: str) -> int:
    v = compute(d, occ.threads, regs, smem, sgprs=occ.sgprs).blocks_by[limit]
    return _NO_LIMIT if v is None else v


def _smem_for(d, target: int) -> int:
    """The most shared memory (LDS) a block may ask for and still let `target` blocks share an SM (CU)."""
    if d.is_nvidia:
        per_block = d.shared_per_sm // target // d.shared_alloc_unit * d.shared_alloc_unit
        return min(per_block - d.shared_reserved_per_block, d.shared_per_block_optin)
    per_block = d.lds_per_cu // target // d.lds_alloc_unit * d.lds_alloc_unit
    return min(per_block, d.lds_per_workgroup)


def question(arch: str, threads: int, regs: int, smem: int, grid: int | None = None, num_sms: int | None = None,
             sgprs: int | None = None) -> Occupancy:
    """The standalone calculator: an architecture by name and a block's resources, with the what-if hints."""
    from ..core import devices, targets
    device = devices.with_num_sms(devices.get(targets.resolve(arch)), num_sms)
    occ = compute(device, threads, regs, smem, grid=grid, sgprs=sgprs)
    occ.hints = hints(occ)
    return occ


def summary(compiled) -> dict:
    try:
        return of(compiled).as_dict()
    except UserError as e:
        return {"error": str(e)}


def parse_count(name: str, text) -> int | None:
    """A non-negative integer from the command line, or one line saying what is wrong with it (`name`: the
    parameter it is for, which the line names first)."""
    if text is None:
        return None
    try:
        value = int(str(text).strip())
    except ValueError:
        raise UserError(f"{name} {text}: not an integer", param=name) from None
    if value < 0:
        raise UserError(f"{name} {text}: must not be negative", param=name)
    return value

def per_sm(device, n: int) -> str:
    """'2 blocks per SM', '1 workgroup per CU'."""
    sm, block, _ = unit_names(device)
    return f"{n} {block}{'' if n == 1 else 's'} per {sm}"

def unit_names(device) -> tuple[str, str, str]:
    """What an SM, a block and a warp are called on this device."""
    if device.is_nvidia:
        return "SM", "block", "warps"
    return device.sm_unit, "workgroup", "waves"
