"""What the compiled kernel tells the performance model: its matrix instructions, its loads and its pipeline.

Everything here is read from the artefact, not from the kernel's source:
- the matrix-instruction family, from the PTX (mma.sync, wgmma.mma_async, tcgen05.mma) or the amdgcn
  (v_mfma, v_wmma), as `codeinspect` reads it;
- the tiles a CTA loads per round (one trip of its loop, or the whole program when it has no loop), from
  TTGIR: every load, async copy or TMA copy with its tile shape, counted once per source line (the
  software pipeliner copies a load into its prologue, and the copies load the same tile);
- how many rounds a CTA keeps in flight: the shared-memory ring's depth minus the one being read
  (`codeinspect.pipeline`); none for a ring of one buffer (the next round's copy waits until this round's
  operands have been read out of it, and lands before the next round starts: the load latency is paid in
  series with each round's work); one for a loop without a ring, or with one buffer the next tiles reach
  through registers, loaded before this round's math and stored after it (AMD's num_stages=2);
- the MMA layout (`#ttg.nvidia_mma` / `#ttg.amd_mfma` warpsPerCTA) and the dot's tile, which decide how
  often each operand tile is read from shared memory.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..artefact import codeinspect, disasm, instruction_mix, resources
from ..core import dtypes

# the tile a load brings: `tensor<128x64x!tt.ptr<f16>` (pointer tensors) or a TMA result `tensor<128x64xf16`
_LOAD_OPS = ("tt.load ", "ttg.async_copy_global_to_local ", "ttng.async_tma_copy_global_to_local ",
             "tt.descriptor_load ", "amdg.buffer_load ", "amdgpu.buffer_load ", "amdg.buffer_load_to_local ",
             "amdgpu.buffer_load_to_local ")
# the tile a store writes to global memory (the value's tile follows the pointer tensor)
_STORE_OPS = ("tt.store ", "tt.descriptor_store ", "ttng.async_tma_copy_local_to_global ", "amdg.buffer_store ",
              "amdgpu.buffer_store ")
_PTR_TILE = re.compile(r"tensor<((?:\d+x)*)!tt\.ptr<([a-z0-9]+)>")
# (AMD's buffer_load_to_local names its result bare: `-> <128x64xf16, #shared, ...>`)
_VALUE_TILE = re.compile(r"(?:tensor|memdesc)?<((?:\d+x)+)([a-z][a-z0-9]*)")
_LOC = re.compile(r"loc\((#loc\d+)\)\s*$")
_MMA_LAYOUT = re.compile(r"#ttg\.(nvidia_mma|amd_mfma|amd_wmma)<\{[^}]*?warpsPerCTA = \[(\d+), (\d+)\]")
_DOT_RESULT = re.compile(r"(?:tt\.dot|ttng\.warp_group_dot|ttng\.tc_gen5_mma)\b.*->\s*tensor<(\d+)x(\d+)x")
# the opcode families instruction_mix.mma_opcodes reads: PTX on NVIDIA, amdgcn on AMD
_FAMILIES = (("tcgen05.mma", "tcgen05"), ("wgmma.mma_async", "wgmma"), ("mma.sync", "mma.sync"),
             ("mfma", "mfma"), ("wmma", "wmma"))

_BITS = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64, "i1": 8, "i8": 8, "i16": 16, "i32": 32, "i64": 64,
         "f8E4M3FN": 8, "f8E5M2": 8, "f8E4M3FNUZ": 8, "f8E5M2FNUZ": 8}


@dataclass
class Program:
    mma_family: str | None       # "wgmma", "mma.sync", "tcgen05", "mfma", "wmma", or None (no matrix code)
    load_bytes_per_round: int    # bytes one CTA loads per trip of its loop (or in all, with no loop)
    load_lines: int              # distinct source loads counted
    rounds_in_flight: int        # rounds a CTA keeps outstanding while it works: the ring depth - 1; 0 for one
                                 # buffer filled by copies (latency in series with the work); else 1
    async_copy: str              # "cp.async", "TMA", "direct-to-LDS" or ""
    dot_tile: tuple | None       # (BM, BN) of the dot's result, when the kernel has one
    warps_m: int = 1             # the MMA layout's warps along M and N
    warps_n: int = 1
    store_bytes_per_round: int = 0   # bytes one CTA stores to global memory per trip, counted the same way
    loop_instructions: int = 0   # SASS instructions in the main loop's body, per warp per trip (NVIDIA)
    loop_mma: int = 0            # of those, matrix instructions
    other_instructions: int = 0  # SASS instructions outside it, per warp, counted once
    loop_local_bytes: int = 0    # local memory (spills) per thread per trip of the main loop: STL + LDL (NVIDIA)
    other_local_bytes: int = 0   # local memory per thread outside it, counted once (on AMD: every scratch access)

    def shared_bytes_per_round(self, elem: int, block_k: int) -> tuple[int, int]:
        """Shared-memory traffic of one trip of a matmul loop, as (issued by threads, issued by the copy
        and matrix engines): the copies write the operand tiles, then the matrix instructions read them.

        mma.sync and AMD's mfma load operand fragments into registers (ldmatrix, ds_read), thread-issued:
        each warp reads the rows of A and the columns of B its own part of the tile needs, so A is read
        once per warp column and B once per warp row. wgmma reads its operands from shared memory itself,
        64 rows of A at a time: B is read once per 64 rows of the tile, A once (PTX ISA, "Asynchronous
        Warpgroup Level Matrix Multiply-Accumulate": m64nNk16); tcgen05 takes 128 rows per instruction
        (PTX ISA, tcgen05.mma shapes). cp.async, TMA and direct-to-LDS writes are engine-issued; plain
        loads stored by threads are thread-issued. Without a dot the model counts no shared memory.
        """
        if not self.dot_tile:
            return 0, 0
        bm, bn = self.dot_tile
        a, b = bm * block_k * elem, block_k * bn * elem
        threads = engines = 0
        if self.async_copy:
            engines += a + b
        else:
            threads += a + b
        if self.mma_family == "wgmma":
            engines += a + b * max(1, bm // 64)
        elif self.mma_family == "tcgen05":
            engines += a + b * max(1, bm // 128)
        else:
            threads += a * self.warps_n + b * self.warps_m
        return threads, engines


def read(compiled) -> Program:
    ttgir = compiled.stage("ttgir")
    pipe = codeinspect.pipeline(ttgir)
    if pipe.pipelined:
        rounds = pipe.buffers - 1
    elif pipe.single_buffered:
        rounds = 0          # the next round's copy waits for this round's reads: latency in series with the work
    else:
        rounds = 1          # no ring, or one prefetched through registers (AMD's num_stages=2)
    per_round, lines = _load_bytes(ttgir, dtypes.size(compiled.config.dtype))
    stored, _ = _load_bytes(ttgir, dtypes.size(compiled.config.dtype), _STORE_OPS)
    layout = _MMA_LAYOUT.search(ttgir)
    wm, wn = (int(layout.group(2)), int(layout.group(3))) if layout else (1, 1)
    dot = _DOT_RESULT.search(ttgir)
    loop, mma, other = sass_instructions(disasm.instructions(compiled)) if compiled.target.is_nvidia else (0, 0, 0)
    local_loop, local_other = _local_bytes(compiled)
    return Program(mma_family=family(compiled), load_bytes_per_round=per_round, load_lines=lines,
                   rounds_in_flight=rounds, async_copy=pipe.async_copy,
                   dot_tile=(int(dot.group(1)), int(dot.group(2))) if dot else None, warps_m=wm, warps_n=wn,
                   store_bytes_per_round=stored, loop_instructions=loop, loop_mma=mma, other_instructions=other,
                   loop_local_bytes=local_loop, other_local_bytes=local_other)


def _local_bytes(compiled) -> tuple[int, int]:
    """Local-memory (scratch) bytes per thread: (per trip of the main loop, elsewhere). Only a binary that has
    local memory is read for them. On AMD every scratch access is counted once, loop or not: a lower bound."""
    r = compiled.resources
    if not r.spills:
        return 0, 0
    if compiled.target.is_nvidia:
        return sass_local_bytes(disasm.instructions(compiled))
    return 0, r.spill_store_bytes + r.spill_load_bytes


_SASS_INSTRUCTION = re.compile(r"^\s*/\*([0-9a-f]+)\*/\s+(?:@!?U?P[T\d]+\s+)?([A-Z][A-Z0-9_.]*)")
_SASS_LABEL = re.compile(r"^\s*(\.L_x_\d+):")
# a branch's target: a label in a whole binary's SASS, an address in raw code's (disasm.keep_counted)
_SASS_BRANCH = re.compile(r"\bBRA\b[^;]*?(?:(\.L_x_\d+)|0x([0-9a-f]+))")


def _sass_main_loop(sass: str) -> tuple[list[str], list[str], tuple[int, int] | None]:
    """(opcodes, their lines, the main loop's [start, end) among them or None). A loop is a label (or an
    address) and a later branch back to it; the main loop is the innermost one with the most instructions (a K
    loop, a persistent kernel's row loop), NOPs (alignment) not counted."""
    opcodes: list[str] = []
    text: list[str] = []
    labels: dict[str, int] = {}       # a label, or an instruction's address, and the index of its instruction
    loops = []
    for line in sass.splitlines():
        label = _SASS_LABEL.match(line)
        if label:
            labels[label.group(1)] = len(opcodes)
            continue
        m = _SASS_INSTRUCTION.match(line)
        if not m:
            continue
        labels[f"0x{int(m.group(1), 16):x}"] = len(opcodes)
        branch = _SASS_BRANCH.search(line)
        target = branch and (branch.group(1) or f"0x{int(branch.group(2), 16):x}")
        if target in labels:
            loops.append((labels[target], len(opcodes) + 1))
        opcodes.append(m.group(2))
        text.append(line)
    innermost = [(a, b) for a, b in loops if b - a > 1 and not any(a <= c < d <= b and (c, d) != (a, b)
                                                                     for c, d in loops)]
    if not innermost:
        return opcodes, text, None
    return opcodes, text, max(innermost, key=lambda ab: sum(op != "NOP" for op in opcodes[ab[0]:ab[1]]))


def sass_instructions(sass: str) -> tuple[int, int, int]:
    """(instructions in the main loop's body, matrix instructions among them, instructions elsewhere), per
    warp, from SASS. NOPs are not counted; code after EXIT that nothing reaches is, in the count outside
    the loop: an upper bound."""
    opcodes, _, loop = _sass_main_loop(sass)
    counted = sum(op != "NOP" for op in opcodes)
    if loop is None:
        return 0, 0, counted
    a, b = loop
    body = sum(op != "NOP" for op in opcodes[a:b])
    mma = sum(1 for op in opcodes[a:b] if "MMA" in op.split(".")[0])
    return body, mma, counted - body


def sass_local_bytes(sass: str) -> tuple[int, int]:
    """(bytes per thread the main loop's body moves to and from local memory per trip, bytes elsewhere,
    counted once): the STL and LDL instructions by width, as `resources.spill_bytes` counts them. Branches
    are not weighed: a spill on a path not taken is counted all the same."""
    _, text, loop = _sass_main_loop(sass)
    a, b = loop or (0, 0)
    inside = sum(resources.spill_bytes("\n".join(text[a:b]) + "\n"))
    return inside, sum(resources.spill_bytes("\n".join(text) + "\n")) - inside


def family(compiled) -> str | None:
    """The matrix-instruction family the code issues, None when it has none."""
    ops = " ".join(instruction_mix.mma_opcodes(compiled))
    for needle, name in _FAMILIES:
        if needle in ops:
            return name
    return None


def _load_bytes(ttgir: str, default_elem: int, ops: tuple = _LOAD_OPS) -> tuple[int, int]:
    """Bytes per round: each source load (or store, with _STORE_OPS) line's tile once, inside the main loop
    when there is one."""
    body = _loop_body(ttgir) or ttgir
    tiles: dict[str, int] = {}
    for line in body.splitlines():
        if not any(op in line for op in ops):
            continue
        where = _LOC.search(line)
        key = where.group(1) if where else line
        nbytes = _tile_bytes(line, default_elem)
        if nbytes:
            tiles[key] = max(tiles.get(key, 0), nbytes)
    return sum(tiles.values()), len(tiles)


def _loop_body(ttgir: str) -> str:
    """The text of the outermost scf.for loop of the kernel, or "" when it has none."""
    lines, out, depth, inside = ttgir.splitlines(), [], 0, False
    for line in lines:
        if not inside and "scf.for " in line and line.rstrip().endswith("{"):
            inside, depth = True, 0
        if inside:
            out.append(line)
            depth += line.count("{") - line.count("}")
            if depth <= 0:
                break
    return "\n".join(out)


def _tile_bytes(line: str, default_elem: int) -> int:
    m = _PTR_TILE.search(line)
    if m:
        dims = [int(d) for d in m.group(1).split("x") if d]
        return math.prod(dims or [1]) * _BITS.get(m.group(2), 8 * default_elem) // 8
    result = line.rsplit("->", 1)[-1] if "->" in line else line.rsplit(":", 1)[-1]
    m = _VALUE_TILE.search(result)
    if m:
        dims = [int(d) for d in m.group(1).split("x") if d]
        return math.prod(dims) * _BITS.get(m.group(2), 8 * default_elem) // 8
    return 0
