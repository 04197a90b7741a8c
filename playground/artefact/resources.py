"""Resource usage read from the compiled artefact, never estimated.

NVIDIA: `cuobjdump -res-usage` on the cubin gives registers, stack, static shared and local
memory as ptxas allocated them; Triton's metadata gives the dynamic shared memory its
launcher requests. Spill traffic is the local-memory stores (STL) and loads (LDL) in the
SASS, by width: the instructions ptxas counts in its `-v` "bytes spill stores/loads" line
(tests/test_resources.py runs ptxas -v on the same PTX and compares).

The 1 KB on sm_90 and later: there, a kernel that touches shared memory at all gets a
`.nv.shared.<kernel>` section 1024 bytes larger than its own variables, and the cubin refers to
`.nv.reservedSmem.offset0` (and `.nv.reservedSmem.cap` = 0x400 on sm_100+): ptxas places the
driver's reserved shared memory (CUDA C++ Programming Guide: "shared memory reserved by CUDA
per block", 1 KB on 8.0+) at the start of the block's window and counts it in the section, so
`cuobjdump -res-usage` says SHARED:1024 for a kernel whose only shared memory is dynamic.
`ptxas -v` reports the kernel's own bytes ("16 bytes smem" for a 16-byte array, where cuobjdump
says 1040), and so does the driver's CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES (a kernel with 16 B
static shared can still take the full 227 KB opt-in, NVIDIA/Fuser#4644). We report the kernel's
own bytes as `static_shared` and the reserved part as `reserved_shared`; the occupancy
calculator adds the device's 1 KB per block once, as cuda_occupancy.h does.
AMD: the amdgcn assembly's own metadata: VGPRs, AGPRs, SGPRs, LDS, scratch, and the
compiler's `; Occupancy:` comment. Spills are the scratch stores and loads in the assembly, by
width (SGPR spills to VGPR lanes are not memory traffic and are not counted).
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from . import disasm


@dataclass
class Resources:
    registers: int                 # per thread: NVIDIA registers, AMD arch VGPRs (+AGPRs where unified)
    static_shared: int             # bytes per block the kernel itself declares
    dynamic_shared: int            # bytes per block Triton's launcher requests
    local_bytes: int = 0           # per-thread local (NVIDIA) or scratch (AMD) memory
    spill_store_bytes: int = 0
    spill_load_bytes: int = 0
    stack_bytes: int = 0
    reserved_shared: int = 0       # NVIDIA sm_90+: the driver's reserved bytes that the cubin's shared section includes
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
    dump = disasm.resource_usage(compiled)
    match = _RES_USAGE.search(dump)
    if not match:
        raise RuntimeError(f"cuobjdump -res-usage printed no resource line:\n{dump}")
    regs, stack, section_shared, local = map(int, match.groups())
    cubin = compiled.kernel.asm["cubin"]
    reserved = reserved_in_section(cubin, section_shared)
    # Triton's launcher passes metadata.shared as the launch's dynamic shared memory; what the
    # kernel declares statically comes on top of it.
    dynamic = compiled.metadata.shared
    stores = loads = 0
    if local or stack:   # spills need local memory: with none, skip the (slow) disassembly
        stores, loads = spill_bytes(disasm.instructions(compiled))
    return Resources(registers=regs, static_shared=section_shared - reserved, dynamic_shared=dynamic,
                     local_bytes=local, stack_bytes=stack, spill_store_bytes=stores, spill_load_bytes=loads,
                     reserved_shared=reserved,
                     source="cuobjdump -res-usage; SASS STL/LDL; Triton metadata.shared")


RESERVED_SMEM_SYMBOL = b".nv.reservedSmem.offset0"
RESERVED_SMEM_BYTES = 1024   # CUDA C++ Programming Guide, compute capability table: 1 KB reserved per block (8.0+)


def reserved_in_section(cubin: bytes, section_shared: int) -> int:
    """Bytes of the cubin's shared section that are the driver's reserved block, not the kernel's.

    Only cubins that refer to the reserved-shared-memory symbols lay it out in the section (sm_90
    and later), and only when the kernel uses shared memory at all (otherwise the section is empty).
    """
    if RESERVED_SMEM_SYMBOL in cubin and section_shared >= RESERVED_SMEM_BYTES:
        return RESERVED_SMEM_BYTES
    return 0


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
    stores, loads = amd_spill_bytes(asm)
    return Resources(
        registers=total_vgprs, static_shared=lds, dynamic_shared=triton_shared,
        local_bytes=scratch, vgprs=vgprs, agprs=agprs,
        sgprs=_field(asm, r"^; TotalNumSgprs:\s*(\d+)", _field(asm, r"\.sgpr_count:\s*(\d+)")),
        spill_store_bytes=stores, spill_load_bytes=loads,
        compiler_occupancy=_field(asm, r"^; Occupancy:\s*(\d+)"),
        source="amdgcn metadata (NumVgprs, NumAgprs, TotalNumSgprs, LDS, ScratchSize, Occupancy)")


# Scratch (private memory) accesses: flat-scratch `scratch_*` instructions (gfx940+, gfx11), or
# MUBUF ones with no per-lane address (`off`) through the private segment buffer: s[0:3] as the kernel
# receives it (AMDGPUUsage's scratch set-up), or the quad the prologue copies it to (gfx90a moves it to
# s[96:99] and reuses s[0:3] for a tensor's buffer resource, whose accesses are `offen`).
_SCRATCH_ACCESS = re.compile(r"^\s*(?:scratch_(store|load)_(\w+)|buffer_(store|load)_(\w+)\s[^;\n]*,\s*off,\s*s\[(\d+):\d+\])",
                             re.MULTILINE)
_SCRATCH_COPY = re.compile(r"^\s*s_mov_b64\s+s\[(\d+):\d+\],\s*s\[0:1\]", re.MULTILINE)
_AMD_WIDTH = {"byte": 1, "ubyte": 1, "sbyte": 1, "b8": 1, "u8": 1, "i8": 1, "short": 2, "ushort": 2,
              "sshort": 2, "b16": 2, "u16": 2, "i16": 2, "dword": 4, "b32": 4, "dwordx2": 8, "b64": 8,
              "dwordx3": 12, "b96": 12, "dwordx4": 16, "b128": 16}


_S0 = r"\bs(?:\[0:\d+\]|0|1)(?!\w)"          # s0, s1, s[0:1], s[0:3]
_WRITES_S0 = re.compile(r"^\s*s_\w+\s+" + _S0 + r"(.*)$", re.MULTILINE)


def _scratch_quads(asm: str) -> set[str]:
    """The first SGPRs of the quads that hold the private segment buffer: s[0:3] until something else is
    written over s0 or s1 (an instruction that also reads them, such as adding the wave's offset, only
    adjusts the buffer), and every copy of s[0:1] made before that."""
    end = len(asm)
    for m in _WRITES_S0.finditer(asm):
        if not re.search(_S0, m.group(1)):
            end = m.start()
            break
    held = {"0"} if end == len(asm) else set()
    return held | {m.group(1) for m in _SCRATCH_COPY.finditer(asm, 0, end)}


def amd_spill_bytes(asm: str) -> tuple[int, int]:
    """Bytes per lane of the scratch stores and loads in the assembly: what `.vgpr_spill_count` spills move."""
    stores = loads = 0
    scratch_quads = _scratch_quads(asm)
    for m in _SCRATCH_ACCESS.finditer(asm):
        if m.group(3) and m.group(5) not in scratch_quads:
            continue
        kind, width = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        size = _AMD_WIDTH.get(width.split("_")[0], 4)
        if kind == "store":
            stores += size
        else:
            loads += size
    return stores, loads
