"""A launch's parameter block as the driver receives it: what `cuLaunchKernelEx` (NVIDIA) or
`hipModuleLaunchKernel` (AMD) is handed for one Triton launch, read from the compiled kernel.

What Triton's launcher does, from its own source (Triton 3.9, triton/backends/nvidia/driver.py and driver.c;
triton/backends/amd/driver.c does the same for HIP):
- `CudaLauncher.__init__` expands the signature (`expand_signature`: a host tensor descriptor becomes its parts)
  and `make_kernel_signature` drops every `constexpr`, which is what an argument specialised to a constant (an
  integer equal to 1, a None) has become: it is compiled in, not passed.
- `launchKernel` (driver.c) fills `void **params` with one pointer per remaining argument, in signature order, then
  appends two more: the global-scratch and the profile-scratch pointers (NULL when the kernel needs none).
- `_launch` sets `gridDimX = gridX * num_ctas`, gridDimY, gridDimZ from the grid, `blockDimX = 32 * num_warps`,
  `sharedMemBytes = shared` (the metadata's; `pack_metadata` hands over num_warps, num_ctas, shared), the stream
  the JIT asked `driver.active.get_current_stream` for, and launch attributes: a cluster of (num_ctas, 1, 1) when
  num_ctas > 1, cooperative and programmatic-dependent launches when the metadata asks, oversized shared memory
  above 228 KiB. `loadBinary` opts the function in to more than 48 KiB of dynamic shared memory.

`params` is an array of pointers; the driver copies each argument into the kernel's parameter buffer at the
offset the binary records. Those offsets and sizes are read here from the binary itself: on NVIDIA the cubin's
`.nv.info.<kernel>` section (one EIATTR_KPARAM_INFO record a parameter: ordinal, offset, size; EIATTR_PARAM_CBANK:
where the buffer sits in constant bank 0, c[0x0][0x210] on sm_90), cross-checked with the PTX `.entry`'s
`.param` list; on AMD the hsaco's metadata (`.args`: offset and size in the kernarg segment, hsaco.py).
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from .. import compat
from . import cubin as cubin_elf

# EIATTR codes, as cuobjdump -elf names them (tests hold the decoding to its printout)
EIATTR_PARAM_CBANK, EIATTR_REQNTID, EIATTR_KPARAM_INFO, EIATTR_CBANK_PARAM_SIZE = 0x0A, 0x10, 0x17, 0x19
SCRATCH = ("(global scratch)", "(profile scratch)")     # the two pointers launchKernel appends


@dataclass(frozen=True)
class Param:
    ordinal: int            # its place in `params` (and the PTX's `_param_N`)
    name: str               # in the Python signature; t[0] for a tuple's item; SCRATCH for Triton's own
    type: str               # Triton's type (*fp32, i32), or "pointer" for a scratch pointer
    offset: int             # bytes into the parameter buffer (kernarg segment), from the binary
    size: int               # bytes, from the binary
    declared: str = ""      # the PTX .param declaration (NVIDIA), or the metadata's .value_kind (AMD)
    read_by: tuple[str, ...] = ()   # the SASS instructions that read it: "/*0020*/ LDC.64"


@dataclass
class ParamBlock:
    kernel: str
    target: str
    config: str                     # the compile's config, in words
    shape: str                      # the shape the grid was computed at ("" when the grid was not given)
    api: str                        # the driver call Triton's launcher makes
    function: str                   # the kernel's symbol in the binary
    grid: tuple[int, int, int] | None   # the launch's grid in programs, when known (the spec's grid function)
    grid_dims: tuple[int, int, int] | None   # what the driver receives: gridDimX = grid x * num_ctas
    block: tuple[int, int, int]     # blockDim: num_warps x warp size threads
    num_warps: int
    num_ctas: int
    binary_threads: int | None      # the binary's own required block size (EIATTR_REQNTID / .reqntid), if it has one
    cluster: tuple[int, int, int] | None   # num_ctas > 1: the cluster dimensions
    shared_bytes: int               # sharedMemBytes: the compiled metadata's `shared`
    global_scratch_bytes: int       # per program: the launcher asks the allocator for grid x num_ctas x this
    profile_scratch_bytes: int
    stream: str
    attributes: list[str]
    buffer: str                     # where the parameter buffer lives: c[0x0][0x210], or the kernarg segment
    base: int | None                # its first byte in constant bank 0 (NVIDIA); None for a kernarg segment
    buffer_bytes: int               # its size as the binary records it
    source: str                     # which records the offsets and sizes were read from
    params: list[Param]
    absent: list[dict]              # arguments not passed: name and why (a constexpr, a constant)
    not_shown: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)


def read(compiled, grid: tuple | None = None) -> ParamBlock:
    """The parameter block of a launch of `compiled` over `grid` (1 to 3 sizes; None: not known)."""
    names, absent = passed_arguments(compiled)
    md = compiled.metadata
    num_ctas = getattr(md, "num_ctas", 1) or 1
    g = None if grid is None else tuple(int(x) for x in grid) + (1,) * (3 - len(grid))
    shape = ", ".join(f"{k}={v}" for k, v in compiled.config.shape.items()) if g else ""
    common = dict(kernel=compiled.spec.name, target=compiled.target.label, config=compiled.config.describe(),
                  shape=shape, function=md.name, grid=g,
                  grid_dims=None if g is None else (g[0] * num_ctas, g[1], g[2]),
                  block=(md.num_warps * compiled.target.warp_size, 1, 1), num_warps=md.num_warps, num_ctas=num_ctas,
                  cluster=(num_ctas, 1, 1) if num_ctas > 1 else None, shared_bytes=int(md.shared), absent=absent,
                  global_scratch_bytes=int(getattr(md, "global_scratch_size", 0) or 0),
                  profile_scratch_bytes=int(getattr(md, "profile_scratch_size", 0) or 0))
    attributes = [a for a, on in (("cooperative launch", getattr(md, "launch_cooperative_grid", False)),
                                  ("programmatic dependent launch", getattr(md, "launch_pdl", False)),
                                  (f"cluster of {num_ctas} CTAs, spread scheduling", num_ctas > 1),
                                  ("oversized shared memory (above 228 KiB)", md.shared > 228 * 1024)) if on]
    if compiled.target.is_nvidia:
        return _nvidia(compiled, names, common, attributes)
    return _amd(compiled, names, common, attributes)


def passed_arguments(compiled) -> tuple[list[tuple[str, str]], list[dict]]:
    """(name, Triton type) of each argument the launcher passes, in order, Triton's two scratch pointers last; and
    the arguments it does not pass, with why. From the compile's own signature (the JIT's, binder.py)."""
    src = compiled.kernel.src
    constants = {(k if isinstance(k, tuple) else (src.fn.arg_names.index(k),)): v
                 for k, v in getattr(src, "constants", {}).items()}
    has_meta = bool(getattr(compiled.metadata, "tensordesc_meta", None))
    passed, absent = [], []

    def visit(name, kind, path):
        if isinstance(kind, tuple):
            for i, k in enumerate(kind):
                visit(f"{name}[{i}]", k, path + (i,))
        elif kind == "constexpr":
            value = constants.get(path)
            absent.append({"name": name, "why": f"constexpr = {value!r}" if path[0] in _declared_constexprs(src)
                           else f"specialised to the constant {value!r}: compiled in"})
        elif isinstance(kind, str) and kind.startswith("tensordesc"):
            parts = compat.reach("expand_signature")(       # the launcher's own expansion
                [kind], has_meta, "nvTmaDesc" if compiled.target.is_nvidia else "tensordesc")
            passed.extend((f"{name}.part{i}", p) for i, p in enumerate(parts))
        else:
            passed.append((name, kind))

    for i, (name, kind) in enumerate(src.signature.items()):
        visit(name, kind, (i,))
    return passed + [(s, "pointer") for s in SCRATCH], absent


def _declared_constexprs(src) -> set[int]:
    return {i for i, p in enumerate(src.fn.params) if p.is_constexpr}


def _nvidia(compiled, names, common, attributes) -> ParamBlock:
    binary = compiled.kernel.asm["cubin"]
    name = compiled.metadata.name
    records = cubin_elf.kernel_attributes(binary, name)
    kparams = sorted(kparam_info(v) for a, v in records if a == EIATTR_KPARAM_INFO)
    window = next(param_cbank(v) for a, v in records if a == EIATTR_PARAM_CBANK)
    reqntid = next((int.from_bytes(v[:4], "little") for a, v in records if a == EIATTR_REQNTID), None)
    if [k[0] for k in kparams] != list(range(len(names))):
        raise ValueError(f"{name}: the cubin records {len(kparams)} parameters, Triton's launcher passes "
                         f"{len(names)}: {', '.join(n for n, _ in names)}")
    declared = ptx_params(compiled.stage("ptx"), name)
    reads = sass_reads(compiled.stage("sass"), window[0], [(off, size) for _, off, size in kparams])
    params = [Param(o, n, t, off, size, declared.get(o, ""), tuple(reads.get(o, ())))
              for (n, t), (o, off, size) in zip(names, kparams)]
    return ParamBlock(**common, api="cuLaunchKernelEx", binary_threads=reqntid,
                      stream="the current stream: torch.cuda.current_stream() when torch is loaded, else the "
                             "device's default stream (driver.active.get_current_stream)",
                      attributes=attributes, buffer=f"c[0x0][0x{window[0]:x}]", base=window[0], buffer_bytes=window[1],
                      source=f"the cubin's .nv.info.{name} (EIATTR_KPARAM_INFO: each offset and size; EIATTR_PARAM_CBANK: the "
                             f"window)", params=params)


def kparam_info(payload: bytes) -> tuple[int, int, int]:
    """(ordinal, offset, size) of an EIATTR_KPARAM_INFO record: u32 index, u16 ordinal, u16 offset, then a u32
    whose top 14 bits (18..31) are the size in bytes, as cuobjdump -elf prints them."""
    ordinal = int.from_bytes(payload[4:6], "little")
    offset = int.from_bytes(payload[6:8], "little")
    size = int.from_bytes(payload[8:12], "little") >> 18
    return ordinal, offset, size


def param_cbank(payload: bytes) -> tuple[int, int]:
    """(first byte, size) of the parameter window in constant bank 0, from EIATTR_PARAM_CBANK: a u32 symbol
    index (the .nv.constant0 section), then offset in the low and size in the high 16 bits (0x300210: 0x30 B
    from 0x210)."""
    word = int.from_bytes(payload[4:8], "little")
    return word & 0xFFFF, word >> 16


_ENTRY = re.compile(r"\.entry\s+(\S+)\s*\((.*?)\)", re.DOTALL)
_PARAM = re.compile(r"\.param\s+(.*?)\s+(\S+?)_param_(\d+)(\[\d+\])?\s*$")


def ptx_params(ptx: str, function: str) -> dict[int, str]:
    """The PTX `.entry`'s parameters by ordinal: their declaration without the name (`.u64 .ptr .global .align 1`,
    `.u32`, `.align 64 .b8 [128]`)."""
    out = {}
    for m in _ENTRY.finditer(ptx):
        if m.group(1) != function:
            continue
        for line in m.group(2).split(","):
            p = _PARAM.search(line.strip())
            if p:
                out[int(p.group(3))] = p.group(1) + (f" {p.group(4)}" if p.group(4) else "")
    return out


def ptx_bytes(declared: str) -> int | None:
    """A PTX parameter's size from its declaration: the scalar's width, times the array's length."""
    width = re.search(r"\.[busf](8|16|32|64)\b", declared)
    if not width:
        return None
    count = re.search(r"\[(\d+)\]", declared)
    return int(width.group(1)) // 8 * (int(count.group(1)) if count else 1)


_CONST = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)[^;]*?c\[0x0\]\[(0x[0-9a-f]+)\]")


def sass_reads(sass: str, base: int, windows: list[tuple[int, int]]) -> dict[int, list[str]]:
    """Which SASS instructions read each parameter: an operand c[0x0][A] with A inside the parameter's bytes
    (base + offset .. + size). Operands below the window are the driver's own constants (stack, memory
    descriptor), not parameters."""
    out: dict[int, list[str]] = {}
    for line in sass.splitlines():
        m = _CONST.search(line)
        if not m:
            continue
        address = int(m.group(3), 16) - base
        for ordinal, (offset, size) in enumerate(windows):
            if offset <= address < offset + size:
                out.setdefault(ordinal, []).append(f"/*{m.group(1)}*/ {m.group(2)}")
    return out


def _amd(compiled, names, common, attributes) -> ParamBlock:
    from . import hsaco
    name = compiled.metadata.name
    meta = hsaco.kernel(compiled.kernel.asm["hsaco"], name)
    args = meta.get(".args", [])
    explicit = [a for a in args if not str(a.get(".value_kind", "")).startswith("hidden")]
    if len(explicit) != len(names):
        raise ValueError(f"{name}: the code object lists {len(explicit)} arguments, Triton's launcher passes "
                         f"{len(names)}: {', '.join(n for n, _ in names)}")
    params = [Param(i, n, t, a[".offset"], a[".size"], a.get(".value_kind", ""))
              for i, ((n, t), a) in enumerate(zip(names, explicit))]
    params += [Param(len(params) + i, f"({a['.value_kind']})", "hidden", a[".offset"], a[".size"],
                     "filled in by the runtime") for i, a in enumerate(args[len(explicit):])]
    return ParamBlock(**common, api="hipDrvLaunchKernelEx" if common["cluster"] else
                      "hipModuleLaunchCooperativeKernel" if "cooperative launch" in attributes else "hipModuleLaunchKernel",
                      binary_threads=meta.get(".max_flat_workgroup_size"),
                      stream="the current stream: torch.cuda.current_stream() (HIP's) when torch is loaded",
                      attributes=attributes, buffer=f"the kernarg segment (aligned to {meta.get('.kernarg_segment_align')} B)",
                      base=None,
                      buffer_bytes=meta.get(".kernarg_segment_size", 0),
                      source="the hsaco's NT_AMDGPU_METADATA note (amdhsa.kernels[].args: each .offset and .size)", params=params,
                      not_shown=["which AMDGCN instructions read each argument (s_load from the kernarg pointer): "
                                 "not mapped"])
