"""Count a stage's instructions by kind: SASS on NVIDIA, amdgcn on AMD (static counts: a loop body
counts once). Opcode meanings: NVIDIA's "CUDA Binary Utilities" instruction-set reference (HMMA,
HGMMA, LDG, LDGSTS, ...), PTX ISA for the tcgen05 family (UTC*MMA in SASS), AMD's CDNA3 ISA
reference (v_mfma, buffer_load_dwordx4, ds_read, s_barrier).

Each reader returns (mix, matrix opcodes, conversion opcodes): the mix by category (global_load,
mma, shared_store, ...; `.128` suffixes for 128-bit accesses), the others by full opcode.
"""
from __future__ import annotations

import re
from collections import Counter

from ..core import dtypes

# One instruction: `/*0180*/  @!P0 LDG.E.128 R16, desc[UR4][R2.64] ;` -> opcode LDG, modifiers E.128
_SASS_LINE = re.compile(r"^\s*/\*[0-9a-f]+\*/\s+(?:@!?U?P(?:T|\d+)\s+)?([A-Z][A-Z0-9_]*)((?:\.[A-Za-z0-9_]+)*)")
# Access widths in SASS modifiers: a bare bit count, or a signed/unsigned sub-word type. No modifier: 32 bits.
_SASS_WIDTH = {"U8": 8, "S8": 8, "U16": 16, "S16": 16, "8": 8, "16": 16, "32": 32, "64": 64, "128": 128, "256": 256}
_SASS_CONVERSIONS = {"F2F", "F2FP", "F2I", "I2F", "I2FP", "F2IP", "I2I", "I2IP", "FRND"}
# TMA (cp.async.bulk.tensor) and bulk copies: sm_90+.
_SASS_TMA = {"UTMALDG", "UTMASTG", "UTMAREDG", "UBLKCP", "UBLKRED"}


def _sass_family(opcode: str) -> str | None:
    """Every SASS opcode ending in MMA runs on the tensor cores; the prefix names the generation."""
    if not opcode.endswith("MMA"):
        return None
    if opcode.startswith("UTC"):
        return "tcgen05"          # sm_100: UTCHMMA, UTCQMMA, ... issued by one thread, accumulating in tensor memory
    if opcode.endswith("GMMA"):
        return "wgmma"            # sm_90: HGMMA, IGMMA, QGMMA, one warpgroup, operands in shared memory
    return "mma.sync"             # sm_80+: HMMA, IMMA, DMMA, per warp, operands in registers


def _sass_width(mods: list[str]) -> int:
    return next((_SASS_WIDTH[m] for m in reversed(mods) if m in _SASS_WIDTH), 32)


def sass_mix(sass: str) -> tuple[Counter, Counter, Counter]:
    mix, mma, conversions = Counter(), Counter(), Counter()
    for line in sass.splitlines():
        m = _SASS_LINE.match(line)
        if not m:
            continue
        op, mods = m.group(1), [x for x in m.group(2).split(".") if x]
        mix["instructions"] += 1
        family = _sass_family(op)
        if family:
            mix["mma"] += 1
            mix[f"mma.{family}"] += 1
            mma[".".join([op, *mods])] += 1
        elif op == "LDG":
            _widths(mix, "global_load", _sass_width(mods))
        elif op == "STG":
            _widths(mix, "global_store", _sass_width(mods))
        elif op in ("RED", "ATOM", "ATOMG", "REDG"):
            mix["global_atomic"] += 1
        elif op == "LDGSTS":                     # cp.async: global -> shared without registers
            _widths(mix, "async_copy", _sass_width(mods))
        elif op in _SASS_TMA:
            mix["tma"] += 1
        elif op in ("LDS", "LDSM"):
            mix["shared_load"] += 1
            if op == "LDSM":
                mix["ldmatrix"] += 1
        elif op in ("STS", "STSM"):
            mix["shared_store"] += 1
        elif op == "BAR":
            mix["barrier"] += 1
        elif op == "SYNCS":                      # mbarrier arrive/wait (sm_90+)
            mix["mbarrier"] += 1
        elif op in _SASS_CONVERSIONS:
            mix["conversion"] += 1
            conversions[op] += 1
        elif op == "STL":                        # local memory: register spills (and stack arrays)
            mix["spill_store"] += 1
        elif op == "LDL":
            mix["spill_load"] += 1
    return mix, mma, conversions


def _widths(mix: Counter, kind: str, bits: int) -> None:
    mix[kind] += 1
    mix[f"{kind}.{bits}"] += 1


# An instruction line starts with a lower-case mnemonic followed by a blank or the end; directives
# start with '.', labels end with ':', the trailing metadata is YAML.
_GCN_LINE = re.compile(r"^\s+([a-z][a-z0-9_]*)(?=\s|$)(.*)$")
_GCN_WIDTH = {"ubyte": 8, "sbyte": 8, "u8": 8, "i8": 8, "b8": 8, "ushort": 16, "sshort": 16, "short": 16,
              "u16": 16, "i16": 16, "b16": 16, "dword": 32, "b32": 32, "dwordx2": 64, "b64": 64,
              "dwordx3": 96, "b96": 96, "dwordx4": 128, "b128": 128}


def _gcn_width(mnemonic: str) -> int:
    for part in reversed(mnemonic.split("_")):
        if part in _GCN_WIDTH:
            return _GCN_WIDTH[part]
    return 32


def gcn_mix(asm: str) -> tuple[Counter, Counter, Counter]:
    mix, mma, conversions = Counter(), Counter(), Counter()
    for line in asm.splitlines():
        m = _GCN_LINE.match(line.split(";")[0])
        if not m:
            continue
        op, operands = m.group(1), m.group(2)
        mix["instructions"] += 1
        memory = op.split("_")[0]
        if op.startswith(("v_mfma", "v_smfmac")):
            mix["mma"] += 1
            mix["mma.mfma"] += 1
            mma[op] += 1
        elif op.startswith(("v_wmma", "v_swmmac")):       # RDNA3/4 matrix cores
            mix["mma"] += 1
            mix["mma.wmma"] += 1
            mma[op] += 1
        elif memory in ("global", "buffer", "flat") and "_load" in op:
            # `buffer_load_dword ... lds` and global_load_lds_*: straight into LDS, the async copy
            if "_lds" in op or re.search(r"\blds\b", operands):
                _widths(mix, "async_copy", _gcn_width(op))
            else:
                _widths(mix, "global_load", _gcn_width(op))
        elif memory in ("global", "buffer", "flat") and "_store" in op:
            _widths(mix, "global_store", _gcn_width(op))
        elif memory in ("global", "buffer", "flat") and "_atomic" in op:
            mix["global_atomic"] += 1
        elif memory == "ds" and op.startswith(("ds_read", "ds_load")):
            mix["shared_load"] += 1
        elif memory == "ds" and op.startswith(("ds_write", "ds_store")):
            mix["shared_store"] += 1
        elif op == "s_barrier":
            mix["barrier"] += 1
        elif op.startswith("v_cvt_"):
            mix["conversion"] += 1
            conversions[re.sub(r"_e(32|64)$", "", op)] += 1
        elif op.startswith("scratch_store"):
            mix["spill_store"] += 1
        elif op.startswith("scratch_load"):
            mix["spill_load"] += 1
    return mix, mma, conversions


def mix_of(compiled) -> tuple[Counter, Counter, Counter]:
    """The compiled kernel's mix, read from its SASS (NVIDIA) or its amdgcn (AMD)."""
    if compiled.target.is_nvidia:
        return sass_mix(compiled.stage("sass"))
    return gcn_mix(compiled.stage("amdgcn"))


def matrix_opcodes(compiled) -> list[str]:
    """The opcodes of the matrix instructions in SASS or amdgcn, most frequent first; none without any. Reads
    the instruction mix alone (no bank-conflict analysis, unlike `codeinspect.read`)."""
    mix, mma, _ = mix_of(compiled)
    return [op for op, _ in mma.most_common()] if mix.get("mma") else []


# PTX's tensor-core instructions: mma.sync (sm_80+), wgmma.mma_async (sm_90), tcgen05.mma (sm_100+).
# Each names its operand types (`.f16`, `.bf16`, `.tf32`, `kind::tf32`, ...), and ptxas lowers it to a
# SASS HMMA / HGMMA / UTC*MMA of the same precision (tests/test_roofline.py checks the two agree), so
# the PTX answers without disassembling the cubin.
_PTX_MMA = re.compile(r"^\s*(?:@!?%\w+\s+)?((?:mma\.sync|wgmma\.mma_async|tcgen05\.mma)\S*)", re.MULTILINE)


def mma_opcodes(compiled) -> list[str]:
    """The matrix instructions the compiled code issues: PTX opcodes on NVIDIA, amdgcn ones on AMD."""
    if "tt.dot" not in compiled.first_ir:
        return []              # no tl.dot, no matrix instructions
    if compiled.target.is_nvidia:
        return _PTX_MMA.findall(compiled.stage("ptx"))
    return matrix_opcodes(compiled)


def matrix_precision(compiled) -> str | None:
    """The precision the compiled code's tensor-core instructions run at, read from the code; None if none.

    fp32 inputs go through the tensor cores as tf32 (mma...tf32, v_mfma..._xf32) unless the dot asks
    for IEEE precision; CDNA's v_mfma_f32_..._f32 is full fp32 at the vector rate.
    """
    opcodes = mma_opcodes(compiled)
    if not opcodes:
        return None
    dtype = compiled.config.dtype
    if dtype == "fp32":
        return "tf32" if any(("TF32" in op.upper() or "XF32" in op.upper()) for op in opcodes) else "fp32"
    return dtypes.DTYPES[dtype].peak if dtype in dtypes.DTYPES else dtype
