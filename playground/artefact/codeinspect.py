"""A static read of the generated code: what instructions the compiler chose, and what it means.

Counts are static: instructions in the code as written, not executions (a loop body counts
once). They come from the artefact itself: SASS disassembled from the cubin on NVIDIA, the
amdgcn assembly on AMD, and Triton's TTGIR for the software pipeline. Opcode meanings:
NVIDIA's "CUDA Binary Utilities" instruction-set reference (HMMA, HGMMA, LDG, LDGSTS, ...),
PTX ISA for the tcgen05 family (UTC*MMA in SASS), AMD's CDNA3 ISA reference (v_mfma,
buffer_load_dwordx4, ds_read, s_barrier). Named `codeinspect` so as not to shadow the
standard library's `inspect`.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

from .instruction_mix import mix_of
from .live_registers import Pressure
from .schedule import LoopSchedule

if TYPE_CHECKING:     # the bank readers work on numpy arrays: imported by the read that needs them
    from .bank_conflicts import BankReport

_ALLOC = re.compile(r"(?:ttg\.local_alloc|ttg\.global_scratch_alloc)\s*:\s*\(\)\s*->\s*!ttg\.memdesc<([0-9x]+)x([a-z][a-z0-9]*)")
_DOT_OPS = ("tt.dot ", "tt.dot_scaled ", "ttng.warp_group_dot ", "ttng.tc_gen5_mma ", "ttng.tc_gen5_mma_scaled ")
# Triton 3.9 names its AMD dialect `amdg`; earlier releases `amdgpu`.
_ASYNC_OPS = {"ttg.async_copy_global_to_local": "cp.async", "ttng.async_tma_copy_global_to_local": "TMA",
              **{f"{d}.{op}": "direct-to-LDS" for d in ("amdg", "amdgpu")
                 for op in ("buffer_load_to_local", "async_copy_global_to_local")}}


@dataclass
class Pipeline:
    has_loop: bool              # an scf.for in the kernel
    dot_in_loop: bool           # a tl.dot inside that loop: the K loop of a matmul
    buffers: int                # depth of the deepest multi-buffered shared-memory ring (0: none)
    ring_shapes: list[str]      # e.g. ["3x128x64xf16", "3x64x128xf16"]
    async_copy: str             # how loads reach shared memory: "cp.async", "TMA", "direct-to-LDS", or ""
    # the loop loads the next trip's tiles into registers before this trip's dot and stores them to shared
    # memory after it (AMD's stream pipeliner at num_stages=2): overlapped with one buffer
    prefetched: bool = False

    @property
    def pipelined(self) -> bool:
        return self.dot_in_loop and self.buffers >= 2

    @property
    def single_buffered(self) -> bool:
        """One buffer filled by copies (num_stages=2 on the mma.sync path, where Triton keeps num_stages - 1):
        the next trip's copy waits until this trip's operands are read out, and the math waits for it."""
        return self.dot_in_loop and self.buffers == 1 and bool(self.async_copy)


def pipeline(ttgir: str) -> Pipeline:
    lines = ttgir.splitlines()
    in_loop, depth, has_loop, dot_in_loop, stored_after_dot = False, 0, False, False, False
    for line in lines:
        if not in_loop and "scf.for " in line and line.rstrip().endswith("{"):
            in_loop, depth, has_loop = True, 0, True
        if in_loop:
            depth += line.count("{") - line.count("}")
            if any(op in line for op in _DOT_OPS):
                dot_in_loop = True
            elif dot_in_loop and "ttg.local_store " in line:
                stored_after_dot = True
            if depth <= 0:
                in_loop = False
    rings = []
    for m in _ALLOC.finditer(ttgir):
        dims = m.group(1).split("x")
        # a ring of buffers: one more dimension than the tile, in front; i64 rings are mbarriers
        if len(dims) >= 3 and m.group(2) != "i64":
            rings.append((int(dims[0]), f"{m.group(1)}x{m.group(2)}"))
    copies = sorted({name for op, name in _ASYNC_OPS.items() if op in ttgir})
    buffers = max((n for n, _ in rings), default=0)
    return Pipeline(has_loop=has_loop, dot_in_loop=dot_in_loop, buffers=buffers,
                    ring_shapes=[s for _, s in rings], async_copy=", ".join(copies),
                    prefetched=dot_in_loop and buffers == 1 and not copies and stored_after_dot)


@dataclass
class Report:
    kernel: str
    target: str
    config: str
    code: str                          # which artefact was read: "SASS" or "amdgcn"
    mix: dict[str, int]                # instruction_mix(): category -> static count
    mma_opcodes: dict[str, int]        # the tensor-core instructions by full opcode
    conversion_opcodes: dict[str, int]  # F2FP, I2F, v_cvt_f16_f32, ... (integer division uses I2F/F2I too)
    has_dot: bool                      # the kernel calls tl.dot (from TTIR)
    pipeline: Pipeline
    spill_store_bytes: int
    spill_load_bytes: int
    hints: list[str] = field(default_factory=list)
    banks: BankReport | None = None    # bank conflicts: from the PTX (NVIDIA), from the amdgcn's LDS accesses (AMD)
    main_loop: LoopSchedule | None = None     # the main loop's control codes (NVIDIA)
    registers: Pressure | None = None         # live registers by Python line (NVIDIA, where nvdisasm reads them)
    registers_unavailable: str = ""           # why there is no register profile

    def as_dict(self) -> dict:
        d = asdict(self)
        d["pipeline"]["pipelined"] = self.pipeline.pipelined
        d["banks"] = self.banks.as_dict() if self.banks else None
        d["registers"] = self.registers.as_dict() if self.registers else None
        if self.registers:
            d["registers"]["heaviest"] = [p.as_dict() for p in self.registers.heaviest()]
        return d


def instruction_mix(compiled) -> dict[str, int]:
    """Static instruction counts by category, from SASS (NVIDIA) or amdgcn (AMD).

    Keys: instructions, mma (and mma.<family>: mma.sync, wgmma, tcgen05, mfma, wmma),
    global_load / global_store / async_copy (and .<bits> per access width), global_atomic, tma,
    shared_load, shared_store, ldmatrix, barrier, mbarrier, conversion, spill_store, spill_load.
    Categories with no instruction are absent.
    """
    return dict(mix_of(compiled)[0])


def read(compiled) -> Report:
    mix, mma, conversions = mix_of(compiled)
    pipe = pipeline(compiled.stage("ttgir"))
    if not compiled.target.is_nvidia:    # an async copy on AMD lands in LDS directly, whatever its op's name
        pipe.async_copy = pipe.async_copy.replace("cp.async", "direct-to-LDS")
    has_dot = bool(re.search(r"\btt\.dot(_scaled)?\b", compiled.first_ir))
    r = compiled.resources
    report = Report(kernel=compiled.spec.name, target=compiled.target.label, config=compiled.config.describe(),
                    code="SASS" if compiled.target.is_nvidia else "amdgcn", mix=dict(mix),
                    mma_opcodes=dict(mma.most_common()), conversion_opcodes=dict(conversions.most_common()),
                    has_dot=has_dot, pipeline=pipe,
                    spill_store_bytes=r.spill_store_bytes, spill_load_bytes=r.spill_load_bytes)
    if compiled.target.is_nvidia:
        from . import live_registers, schedule
        from .bank_conflicts import analyse
        report.banks = analyse(compiled.stage("ptx"), compiled.config.num_warps * 32)
        report.main_loop = schedule.main_loop(compiled)
        report.registers = live_registers.pressure(compiled)
    elif compiled.target.name in _lds_banks().TARGETS:
        report.banks = _lds_banks().analyse(compiled.stage("amdgcn"), compiled.config.num_warps * 64)
    if report.registers is None:
        from . import live_registers
        report.registers_unavailable = live_registers.unavailable(compiled) or ""
    report.hints = hints(report)
    return report


def hints(report: Report) -> list[str]:
    """Plain words for what a reader should look at first."""
    mix, out = report.mix, []
    if report.has_dot and not mix.get("mma"):
        out.append("tl.dot lowered without tensor cores on this target (no MMA instructions): "
                   "check the dtype (fp32 dots need input_precision='tf32') and the tile sizes (at least 16)")
    loads = mix.get("global_load", 0) + mix.get("async_copy", 0)
    wide = sum(n for k, n in mix.items() if k.startswith(("global_load.", "async_copy."))
               and int(k.rsplit(".", 1)[1]) >= 128)
    if loads and not wide:
        out.append("no 128-bit global loads: each thread loads at most "
                   f"{max(int(k.rsplit('.', 1)[1]) for k in mix if k.startswith(('global_load.', 'async_copy.')))} "
                   "bits at a time; sizes and strides divisible by 16 elements and 16-byte aligned pointers "
                   "let the compiler vectorise")
    spilled = report.spill_store_bytes + report.spill_load_bytes
    if spilled:
        out.append(f"{report.spill_store_bytes} bytes spilled (stores), {report.spill_load_bytes} bytes "
                   f"reloaded: registers ran out; smaller blocks or more warps spread the live values")
    conflicted = [a for a in (report.banks.accesses if report.banks else []) if a.conflicted]
    if conflicted:
        worst = max(conflicted, key=lambda a: a.ways)
        where, group = ("PTX", "warp's threads") if report.code == "SASS" else ("amdgcn", "wave's lanes")
        out.append(f"{len(conflicted)} shared-memory access(es) with bank conflicts, the worst {worst.ways}-way "
                   f"({where} line {worst.line}{', ' + worst.assumed if worst.assumed else ''}): a {group} hit "
                   f"one bank at different words; a padded or swizzled layout spreads them")
    if report.pipeline.dot_in_loop and not report.pipeline.pipelined and not report.pipeline.prefetched:
        if report.pipeline.single_buffered:
            out.append("loop not pipelined: one shared-memory buffer per operand, so each trip's copy waits until "
                       "the last trip's operands are read, and the math waits for it; a larger num_stages keeps "
                       "the next tiles in flight")
        else:
            out.append("loop not pipelined: the K loop has no multi-buffered shared memory; "
                       "num_stages >= 2 lets loads of the next tiles overlap the math")
    return out


def _lds_banks():
    """AMD's LDS reading works on numpy arrays; the model's reads of a binary do not import numpy for it."""
    from . import lds_banks
    return lds_banks
