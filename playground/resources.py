"""Resource usage read from the compiled artefact, never estimated.

NVIDIA: `cuobjdump -res-usage` on the cubin gives registers, stack, static shared and local
memory as ptxas allocated them; Triton's metadata gives the dynamic shared memory its
launcher requests. Spill traffic is the local-memory stores (STL) and loads (LDL) in the
SASS, by width: the instructions ptxas counts in its `-v` "bytes spill stores/loads" line.
AMD: the amdgcn assembly's own metadata: VGPRs, AGPRs, SGPRs, LDS, scratch, and the
compiler's `; Occupancy:` comment.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass


@dataclass
class Resources:
    registers: int                 # per thread: NVIDIA registers, AMD arch VGPRs (+AGPRs where unified)
    static_shared: int             # bytes per block the binary declares
    dynamic_shared: int            # bytes per block Triton's launcher requests
    local_bytes: int = 0           # per-thread local (NVIDIA) or scratch (AMD) memory
    spill_store_bytes: int = 0
    spill_load_bytes: int = 0
    stack_bytes: int = 0
    # AMD only
    vgprs: int | None = None
    agprs: int | None = None
    sgprs: int | None = None
    compiler_occupancy: int | None = None   # waves per SIMD, as the AMD compiler reports it
    source: str = ""

    @property
    def shared_total(self) -> int:
        return self.static_shared + self.dynamic_shared

    @property
    def spills(self) -> bool:
        return bool(self.spill_store_bytes or self.spill_load_bytes)

    def as_dict(self) -> dict:
        return asdict(self) | {"shared_total": self.shared_total}


def of(compiled) -> Resources:
    if compiled.target.is_nvidia:
        return _nvidia(compiled)
    return amd_from_assembly(compiled.kernel.asm["amdgcn"], compiled.metadata.shared)


_RES_USAGE = re.compile(r"REG:(\d+)\s+STACK:(\d+)\s+SHARED:(\d+)\s+LOCAL:(\d+)")


def _nvidia(compiled) -> Resources:
    from . import disasm
    dump = disasm.resource_usage_dump(compiled.kernel.asm["cubin"])
    match = _RES_USAGE.search(dump)
    if not match:
        raise RuntimeError(f"cuobjdump -res-usage printed no resource line:\n{dump}")
    regs, stack, static_shared, local = map(int, match.groups())
    # Triton's launcher passes metadata.shared as the launch's dynamic shared memory; what the
    # binary declares statically comes on top of it.
    dynamic = compiled.metadata.shared
    stores = loads = 0
    if local or stack:   # spills need local memory: with none, skip the (slow) disassembly
        stores, loads = spill_bytes(disasm.sass(compiled))
    return Resources(registers=regs, static_shared=static_shared, dynamic_shared=dynamic, local_bytes=local,
                     stack_bytes=stack, spill_store_bytes=stores, spill_load_bytes=loads,
                     source="cuobjdump -res-usage; SASS STL/LDL; Triton metadata.shared")


_LOCAL_ACCESS = re.compile(r"\b(STL|LDL)(\.[A-Z0-9.]+)?\s")
_WIDTH = {"U8": 1, "S8": 1, "U16": 2, "S16": 2, "64": 8, "128": 16}


def spill_bytes(sass: str) -> tuple[int, int]:
    stores = loads = 0
    for m in _LOCAL_ACCESS.finditer(sass):
        mods = (m.group(2) or "").strip(".").split(".")
        width = next((_WIDTH[x] for x in mods if x in _WIDTH), 4)
        if m.group(1) == "STL":
            stores += width
        else:
            loads += width
    return stores, loads


def _field(text: str, pattern: str, default=None):
    m = re.search(pattern, text, re.MULTILINE)
    return int(m.group(1)) if m else default


def amd_from_assembly(asm: str, triton_shared: int) -> Resources:
    vgprs = _field(asm, r"^; NumVgprs:\s*(\d+)", 0)
    agprs = _field(asm, r"^; NumAgprs:\s*(\d+)", 0)
    total_vgprs = _field(asm, r"^; TotalNumVgprs:\s*(\d+)", vgprs + agprs)
    lds = _field(asm, r"^\s*\.amdhsa_group_segment_fixed_size\s+(\d+)", 0)
    scratch = _field(asm, r"^; ScratchSize:\s*(\d+)", 0)
    return Resources(
        registers=total_vgprs, static_shared=lds, dynamic_shared=triton_shared,
        local_bytes=scratch, vgprs=vgprs, agprs=agprs,
        sgprs=_field(asm, r"^; TotalNumSgprs:\s*(\d+)", _field(asm, r"\.sgpr_count:\s*(\d+)")),
        spill_store_bytes=4 * (_field(asm, r"\.vgpr_spill_count:\s*(\d+)", 0) + _field(asm, r"\.sgpr_spill_count:\s*(\d+)", 0)),
        compiler_occupancy=_field(asm, r"^; Occupancy:\s*(\d+)"),
        source="amdgcn metadata (NumVgprs, NumAgprs, TotalNumSgprs, LDS, ScratchSize, Occupancy)")
