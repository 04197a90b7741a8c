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
from collections import Counter
from dataclasses import asdict, dataclass, field

from ..report.report import table

# ---- NVIDIA SASS -------------------------------------------------------------------------------

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


def _sass_mix(sass: str) -> tuple[Counter, Counter, Counter]:
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


# ---- AMD amdgcn --------------------------------------------------------------------------------

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


def _gcn_mix(asm: str) -> tuple[Counter, Counter, Counter]:
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


# ---- the software pipeline, from TTGIR ---------------------------------------------------------

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

    @property
    def pipelined(self) -> bool:
        return self.dot_in_loop and self.buffers >= 2


def pipeline(ttgir: str) -> Pipeline:
    lines = ttgir.splitlines()
    in_loop, depth, has_loop, dot_in_loop = False, 0, False, False
    for line in lines:
        if not in_loop and "scf.for " in line and line.rstrip().endswith("{"):
            in_loop, depth, has_loop = True, 0, True
        if in_loop:
            depth += line.count("{") - line.count("}")
            if any(op in line for op in _DOT_OPS):
                dot_in_loop = True
            if depth <= 0:
                in_loop = False
    rings = []
    for m in _ALLOC.finditer(ttgir):
        dims = m.group(1).split("x")
        # a ring of buffers: one more dimension than the tile, in front; i64 rings are mbarriers
        if len(dims) >= 3 and m.group(2) != "i64":
            rings.append((int(dims[0]), f"{m.group(1)}x{m.group(2)}"))
    copies = sorted({name for op, name in _ASYNC_OPS.items() if op in ttgir})
    return Pipeline(has_loop=has_loop, dot_in_loop=dot_in_loop, buffers=max((n for n, _ in rings), default=0),
                    ring_shapes=[s for _, s in rings], async_copy=", ".join(copies))


# ---- the read ----------------------------------------------------------------------------------

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

    def as_dict(self) -> dict:
        d = asdict(self)
        d["pipeline"]["pipelined"] = self.pipeline.pipelined
        return d


def instruction_mix(compiled) -> dict[str, int]:
    """Static instruction counts by category, from SASS (NVIDIA) or amdgcn (AMD).

    Keys: instructions, mma (and mma.<family>: mma.sync, wgmma, tcgen05, mfma, wmma),
    global_load / global_store / async_copy (and .<bits> per access width), global_atomic, tma,
    shared_load, shared_store, ldmatrix, barrier, mbarrier, conversion, spill_store, spill_load.
    Categories with no instruction are absent.
    """
    return dict(_mix(compiled)[0])


def _mix(compiled):
    if compiled.target.is_nvidia:
        return _sass_mix(compiled.stage("sass"))
    return _gcn_mix(compiled.stage("amdgcn"))


def read(compiled) -> Report:
    mix, mma, conversions = _mix(compiled)
    pipe = pipeline(compiled.stage("ttgir"))
    if not compiled.target.is_nvidia:    # an async copy on AMD lands in LDS directly, whatever its op's name
        pipe.async_copy = pipe.async_copy.replace("cp.async", "direct-to-LDS")
    has_dot = bool(re.search(r"\btt\.dot(_scaled)?\b", compiled.stage("ttir")))
    r = compiled.resources
    report = Report(kernel=compiled.spec.name, target=compiled.target.name, config=compiled.config.describe(),
                    code="SASS" if compiled.target.is_nvidia else "amdgcn", mix=dict(mix),
                    mma_opcodes=dict(mma.most_common()), conversion_opcodes=dict(conversions.most_common()),
                    has_dot=has_dot, pipeline=pipe,
                    spill_store_bytes=r.spill_store_bytes, spill_load_bytes=r.spill_load_bytes)
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
    if report.pipeline.dot_in_loop and not report.pipeline.pipelined:
        out.append("loop not pipelined: the K loop has no multi-buffered shared memory; "
                   "num_stages >= 2 lets loads of the next tiles overlap the math")
    return out


# ---- rendering ---------------------------------------------------------------------------------

_ROWS = [  # (label, mix key prefix)
    ("tensor-core MMA", "mma"), ("global loads", "global_load"), ("global stores", "global_store"),
    ("async copies", "async_copy"), ("TMA copies", "tma"), ("global atomics", "global_atomic"),
    ("shared loads", "shared_load"), ("shared stores", "shared_store"), ("barriers", "barrier"),
    ("mbarrier ops", "mbarrier"), ("conversions", "conversion"), ("spills", "spill"),
]


def lines(report: Report) -> list[str]:
    mix = report.mix
    out = [f"kernel      {report.kernel} on {report.target}: {report.config}",
           f"read        {report.code}, {mix.get('instructions', 0)} instructions "
           f"(static counts: a loop body counts once)"]
    rows = []
    for label, key in _ROWS:
        n = mix.get("spill_store", 0) + mix.get("spill_load", 0) if key == "spill" else mix.get(key, 0)
        if not n and key not in ("mma", "global_load", "global_store", "spill"):
            continue
        rows.append([label, str(n), _detail(report, key)])
    out += ["  " + line for line in table(["", "", ""], rows, "lr")[1:]]
    p = report.pipeline
    if p.dot_in_loop:
        if p.pipelined:
            how = f", loads by {p.async_copy}" if p.async_copy else ", loads through registers"
            out.append(f"K loop      software-pipelined: {p.buffers} shared-memory buffers per operand "
                       f"({', '.join(p.ring_shapes)}){how}")
        else:
            out.append("K loop      not pipelined: one shared-memory buffer per operand")
    elif p.has_loop:
        out.append("loop        no tl.dot inside; nothing to pipeline into shared memory")
    out.append("hints       " + ("none" if not report.hints else report.hints[0]))
    out += [f"            {h}" for h in report.hints[1:]]
    return out


def _detail(report: Report, key: str) -> str:
    mix = report.mix
    if key == "mma":
        if not mix.get("mma"):
            return "(tl.dot in the kernel, none here)" if report.has_dot else ""
        families = ", ".join(k.split(".", 1)[1] for k in mix if k.startswith("mma."))
        ops = ", ".join(f"{op} x{n}" for op, n in report.mma_opcodes.items())
        return f"{families}: {ops}"
    if key in ("global_load", "global_store", "async_copy"):
        widths = sorted(((int(k.rsplit(".", 1)[1]), n) for k, n in mix.items() if k.startswith(key + ".")),
                        reverse=True)
        return ", ".join(f"{n} x {bits}-bit" for bits, n in widths)
    if key == "shared_load" and mix.get("ldmatrix"):
        return f"{mix['ldmatrix']} of them ldmatrix (LDSM)"
    if key == "conversion":
        return ", ".join(f"{op} x{n}" for op, n in report.conversion_opcodes.items())
    if key == "spill":
        if not report.spill_store_bytes + report.spill_load_bytes:
            return "none"
        where = "STL/LDL to local memory" if report.code == "SASS" else "registers spilled, per the amdgcn metadata"
        return f"{report.spill_store_bytes} bytes stored, {report.spill_load_bytes} bytes loaded ({where})"
    return ""
