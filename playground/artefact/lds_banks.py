"""LDS bank conflicts on AMD, read from the amdgcn: the address each lane of each wave gives every
`ds_read` / `ds_write`, and how many times the access is replayed.

The rules, from AMD's own documents:
- LDS is 32 banks of 4 bytes; a 32-bit word sits in bank (byte address / 4) mod 32, and lanes that
  touch the same word share it (Composable Kernel's documentation, "Understanding AMD GPU LDS and
  Bank Conflicts", rocm.docs.amd.com; it covers CDNA3, gfx942).
- A wave's access is served in phases, and only lanes of one phase can conflict. For
  `ds_write_b128` the 8 phases are lanes 0-7, 8-15, ..., 56-63; for `ds_read_b128` they are the
  8 groups listed in READ_B128_PHASES (same document). For 32-bit accesses the phases are the two
  half-waves, lanes 0-31 and 32-63 (AMD Accelerated Parallel Processing OpenCL Optimization Guide,
  "Local Memory (LDS) Optimization", written for GCN, whose LDS CDNA keeps: an assumption here).
- Other widths and forms (`ds_read_b64`, `ds_read2_b32`, `ds_read2st64_b64`, 8- and 16-bit
  accesses, ...) have no published phases: they are listed, not analysed.

The addresses come from evaluating the amdgcn's integer instructions for every lane of every wave
(v0 = the work-item id, 1-D workgroups; the LDS base, Triton's only LDS object, at 0). A register
that depends on anything else (an argument, a loaded value) is unknown, with one exception: a
wave-uniform unknown added to a known per-lane address (a loop's ring-buffer offset, say) moves
every lane's word by the same amount, which leaves the conflicts unchanged when that amount is a
multiple of 4 bytes, as it is for the 32- and 128-bit accesses analysed. Loops are iterated to a
fixed point and branches joined, so a value that differs between paths or iterations in a way no
uniform term explains is unknown. Accesses under an execution mask are counted as if every lane
were active.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .bank_conflicts import Access, BankReport, phase_ways

WAVE = 64
# the targets whose LDS the sources above describe (CDNA3); CDNA4's LDS is larger, and its banks and
# phases are not in them, so gfx950 and older chips get no count rather than a borrowed one
TARGETS = ("gfx942",)
_MASK32 = (1 << 32) - 1

# ds_read_b128: the lane groups served together (Composable Kernel documentation, as above)
READ_B128_PHASES = [[*range(0, 4), *range(20, 24)], [*range(4, 8), *range(16, 20)],
                    [*range(8, 12), *range(28, 32)], [*range(12, 16), *range(24, 28)],
                    [*range(32, 36), *range(52, 56)], [*range(36, 40), *range(48, 52)],
                    [*range(40, 44), *range(60, 64)], [*range(44, 48), *range(56, 60)]]
WRITE_B128_PHASES = [list(range(start, start + 8)) for start in range(0, WAVE, 8)]
HALF_WAVES = [list(range(0, 32)), list(range(32, 64))]
ASSUMED_32_BIT = "32-bit: GCN's half-wave phases, assumed"
PHASES = {("load", 128): READ_B128_PHASES, ("store", 128): WRITE_B128_PHASES,
          ("load", 32): HALF_WAVES, ("store", 32): HALF_WAVES}

_LINE = re.compile(r"^\s*([a-z][\w]*)\s*(.*?)\s*(?:;.*)?$")
_LABEL = re.compile(r"^\s*(\.?L[\w$.]+|[A-Za-z_][\w$.]*):")
_DS = re.compile(r"^ds_(read|write)(2st64|2)?_([bui])(\d+)$")
_NO_DESTINATION = ("s_cmp", "s_bitcmp", "s_waitcnt", "s_barrier", "s_branch", "s_cbranch", "s_endpgm", "s_nop",
                   "s_setprio", "s_sleep", "s_dcache", "s_sendmsg", "s_trap", "s_setpc", "s_set", "buffer_store",
                   "global_store", "flat_store", "scratch_store", "buffer_atomic", "global_atomic")


@dataclass(frozen=True)
class Value:
    """A register's value in every lane of one wave: known per lane, plus perhaps a wave-uniform
    unknown term (`uniform`); `lanes` None when not known at all."""
    lanes: np.ndarray | None
    uniform: bool = False

    @property
    def known(self) -> bool:
        return self.lanes is not None and not self.uniform


UNKNOWN = Value(None)
ANY_UNIFORM = Value(np.zeros(WAVE, dtype=np.int64), uniform=True)    # known only to be the same in every lane


def analyse(amdgcn: str, threads: int) -> BankReport:
    """Every LDS read and write of the amdgcn's kernel, for a workgroup of `threads` work-items."""
    blocks = _blocks(_parse(amdgcn))
    worst: dict[int, Access] = {}
    for wave in range(max(threads // WAVE, 1)):
        lanes = np.arange(wave * WAVE, wave * WAVE + WAVE, dtype=np.int64)
        for line, access in _run(blocks, {"v0": Value(lanes)}).items():   # the worst wave; unknown if any is
            kept = worst.get(line)
            if kept is None or kept.ways is not None and (access.ways is None or access.ways > kept.ways):
                worst[line] = access
    return BankReport(threads, [worst[line] for line in sorted(worst)])


# --- the program ---------------------------------------------------------------------------------
@dataclass
class _Instruction:
    line: int
    opcode: str
    operands: list[str]
    label: str | None = None       # set on a label's pseudo-instruction
    target: str | None = None      # a branch's label


@dataclass
class _Block:
    instructions: list
    successors: list[int]


def _parse(text: str) -> list[_Instruction]:
    """The kernel's instructions and labels, in order (directives and comments dropped)."""
    out = []
    for number, raw in enumerate(text.splitlines(), 1):
        label = _LABEL.match(raw)
        if label:
            out.append(_Instruction(number, "", [], label=label.group(1)))
            continue
        m = _LINE.match(raw)
        if not m or raw.lstrip().startswith((".", ";")):
            continue
        opcode, rest = m.group(1), m.group(2)
        # operands split at commas; modifiers after the last one ("offset:64", "offen") become their own
        operands = [word for o in (re.split(r",\s*(?![^\[]*\])", rest) if rest else []) for word in o.split()]
        target = operands[0] if opcode.startswith(("s_branch", "s_cbranch")) and operands else None
        out.append(_Instruction(number, opcode, operands, target=target))
    return out


def _blocks(program: list[_Instruction]) -> list[_Block]:
    """Basic blocks: a label starts one, a branch ends one; edges to the branch's label and, unless the
    branch is unconditional, to the next block."""
    starts = sorted({0} | {i for i, ins in enumerate(program) if ins.label}
                    | {i + 1 for i, ins in enumerate(program) if ins.target or ins.opcode == "s_endpgm"})
    starts = [i for i in starts if i < len(program)] or [0]
    ranges = list(zip(starts, starts[1:] + [len(program)]))
    label_block = {program[a].label: n for n, (a, _) in enumerate(ranges) if program[a].label}
    blocks = []
    for n, (a, b) in enumerate(ranges):
        body = program[a:b]
        last = body[-1] if body else None
        successors = []
        if last is not None and last.target in label_block:
            successors.append(label_block[last.target])
        ends = last is not None and (last.opcode in ("s_branch", "s_endpgm", "s_setpc_b64"))
        if not ends and n + 1 < len(ranges):
            successors.append(n + 1)
        blocks.append(_Block([ins for ins in body if not ins.label and not ins.target], successors))
    return blocks


def _run(blocks: list[_Block], entry: dict) -> dict[int, Access]:
    """Each block's state on entry, joined over its predecessors until nothing changes (a block whose
    entry keeps changing has the changing registers made unknown); then every access, once."""
    states: list[dict | None] = [None] * len(blocks)
    states[0] = dict(entry)
    updates = [0] * len(blocks)
    work = [0]
    while work:
        n = work.pop(0)
        out = dict(states[n])
        for ins in blocks[n].instructions:
            _step(ins, out, {})
        for m in blocks[n].successors:
            joined = _join(states[m], out)
            if not _same(joined, states[m]):
                updates[m] += 1
                if updates[m] > 8:          # widen: what still changes is not known
                    joined = {k: v if _same({k: v}, {k: states[m].get(k, UNKNOWN)}) else UNKNOWN
                              for k, v in joined.items()}
                states[m] = joined
                if m not in work:
                    work.append(m)
    seen: dict[int, Access] = {}
    for block, state in zip(blocks, states):
        if state is not None:
            state = dict(state)
            for ins in block.instructions:
                _step(ins, state, seen)
    return seen


def _join(a: dict | None, b: dict | None) -> dict | None:
    if a is None or b is None:
        return b if a is None else a
    out = {}
    for key in set(a) | set(b):
        x, y = a.get(key, UNKNOWN), b.get(key, UNKNOWN)
        if x.lanes is None or y.lanes is None:
            out[key] = UNKNOWN
        elif np.array_equal(x.lanes, y.lanes) and x.uniform == y.uniform:
            out[key] = x
        elif np.all((x.lanes - y.lanes) == (x.lanes - y.lanes)[0]):
            out[key] = Value(x.lanes, uniform=True)    # differ by the same amount in every lane
        else:
            out[key] = UNKNOWN
    return out


def _same(a: dict | None, b: dict | None) -> bool:
    if a is None or b is None:
        return a is b
    return set(a) == set(b) and all(
        (a[k].lanes is None) == (b[k].lanes is None) and a[k].uniform == b[k].uniform
        and (a[k].lanes is None or np.array_equal(a[k].lanes, b[k].lanes)) for k in a)


# --- one instruction -----------------------------------------------------------------------------
def _step(ins: _Instruction, state: dict, seen: dict):
    ds = _DS.match(ins.opcode)
    if ds:
        seen[ins.line] = _access(ins, ds, state)
        if ds.group(1) == "read":
            for reg in _registers(ins.operands[0]):
                state[reg] = UNKNOWN
        return
    if ins.opcode.startswith(("ds_read", "ds_write")):    # a form the rules above do not name
        seen[ins.line] = Access(ins.line, "load" if ins.opcode.startswith("ds_read") else "store", 0, None,
                                f"{ins.opcode} (not analysed: its lane phases are unpublished)")
    if ins.opcode.startswith("ds_"):            # ds_bpermute, ds_swizzle, atomics: results unknown
        for reg in _registers(ins.operands[0]) if ins.operands else []:
            state[reg] = UNKNOWN
        return
    if not ins.operands or ins.opcode.startswith(_NO_DESTINATION):
        if ins.opcode.startswith("v_cmp") or ins.opcode.startswith("s_cmp"):
            state["vcc"] = UNKNOWN
        return
    if ins.opcode.startswith("v_cmp") and ins.opcode.endswith("_e32"):
        state["vcc"] = UNKNOWN
        return
    destination = ins.operands[0]
    sources = ins.operands[1:]
    if "_co_" in ins.opcode and sources and not sources[0].startswith("v"):
        sources = sources[1:]                   # v_add_co_u32 v1, vcc, a, b: the carry out is not a source
    result = _evaluate(ins.opcode, sources, state)
    for reg in _registers(destination):
        state[reg] = UNKNOWN
    if len(_registers(destination)) == 1:
        state[_registers(destination)[0]] = result
    # a scalar destination is wave-uniform whatever wrote it: UNKNOWN there reads as ANY_UNIFORM (_operand)


def _registers(operand: str) -> list[str]:
    """'v5' -> ['v5']; 'v[2:5]' -> ['v2', ..., 'v5']; 'vcc' -> ['vcc']; anything else -> []."""
    m = re.fullmatch(r"([vs])\[(\d+):(\d+)\]", operand)
    if m:
        return [f"{m.group(1)}{n}" for n in range(int(m.group(2)), int(m.group(3)) + 1)]
    if re.fullmatch(r"[vs]\d+|vcc|vcc_lo|vcc_hi|m0|exec|exec_lo|exec_hi|scc", operand):
        return [operand]
    return []


def _operand(text: str, state: dict) -> Value:
    text = text.strip()
    if re.fullmatch(r"-?\d+", text):
        return Value(np.full(WAVE, int(text) & _MASK32, dtype=np.int64))
    if re.fullmatch(r"-?0x[0-9a-fA-F]+", text):
        return Value(np.full(WAVE, int(text, 16) & _MASK32, dtype=np.int64))
    if text == "global_smem":
        return Value(np.zeros(WAVE, dtype=np.int64))
    value = state.get(text, UNKNOWN)
    if value.lanes is None and _is_scalar(text):
        return ANY_UNIFORM              # a scalar register holds one value for the whole wave
    return value


def _is_scalar(register: str) -> bool:
    return bool(re.fullmatch(r"s\d+|m0", register))


def _uniform_known(v: Value) -> bool:
    return v.known and bool(np.all(v.lanes == v.lanes[0]))


def _evaluate(opcode: str, sources: list[str], state: dict) -> Value:
    """One integer VALU or SALU instruction for every lane, or UNKNOWN."""
    name = re.sub(r"_e(32|64)$", "", opcode)
    if name.endswith(("_sdwa", "_dpp")):
        return UNKNOWN
    args = [_operand(s, state) for s in sources]
    if name == "v_readfirstlane_b32" and args and args[0].lanes is None:
        return ANY_UNIFORM
    if any(a.lanes is None for a in args) or not args:
        return UNKNOWN
    x = [a.lanes for a in args] + [None, None]
    a, b, c = x[0], x[1], x[2]
    u = [arg.uniform for arg in args] + [False, False]

    def plain(value, *uniform_ok):
        """The result; uniform unknown terms survive only through the operands where they stay additive."""
        if any(u[i] for i in range(len(args)) if i not in uniform_ok):
            return UNKNOWN
        return Value(value & _MASK32, uniform=any(u[i] for i in uniform_ok))

    if name in ("v_mov_b32", "s_mov_b32", "s_movk_i32"):
        return plain(a, 0)
    if name == "v_readfirstlane_b32":
        return Value(np.full(WAVE, a[0]), uniform=u[0])
    if name in ("v_add_u32", "v_add_co_u32", "v_add_nc_u32", "v_add_i32", "s_add_u32", "s_add_i32"):
        return plain(a + b, 0, 1)
    if name == "v_add3_u32":
        return plain(a + b + c, 0, 1, 2)
    if name in ("v_sub_u32", "v_sub_co_u32", "s_sub_u32", "s_sub_i32"):
        return plain(a - b, 0, 1)
    if name in ("v_subrev_u32", "v_subrev_co_u32"):
        return plain(b - a, 0, 1)
    if name in ("v_mul_lo_u32", "s_mul_i32"):
        if u[0] and _uniform_known(args[1]) or u[1] and _uniform_known(args[0]):
            return plain(a * b, 0, 1)
        return plain(a * b)
    if name == "v_mul_u32_u24":
        return plain((a & 0xFFFFFF) * (b & 0xFFFFFF))
    if name == "v_mad_u32_u24":
        return plain((a & 0xFFFFFF) * (b & 0xFFFFFF) + c, 2)
    if name in ("v_lshlrev_b32",):
        return plain(b << (a & 31), *((1,) if _uniform_known(args[0]) else ()))
    if name == "s_lshl_b32":
        return plain(a << (b & 31), *((0,) if _uniform_known(args[1]) else ()))
    m = re.fullmatch(r"s_lshl([1-4])_add_u32", name)
    if m:
        return plain((a << int(m.group(1))) + b, 0, 1)
    if name == "v_lshl_add_u32":
        return plain((a << (b & 31)) + c, *((0, 2) if _uniform_known(args[1]) else (2,)))
    if name == "v_add_lshl_u32":
        return plain((a + b) << (c & 31), *((0, 1) if _uniform_known(args[2]) else ()))
    if name in ("v_lshrrev_b32",):
        return plain(b >> (a & 31))
    if name == "s_lshr_b32":
        return plain(a >> (b & 31))
    if name == "v_ashrrev_i32":
        return plain(_signed(b) >> (a & 31))
    if name == "s_ashr_i32":
        return plain(_signed(a) >> (b & 31))
    if name in ("v_and_b32", "s_and_b32"):
        return plain(a & b)
    if name in ("v_or_b32", "s_or_b32"):
        return plain(a | b)
    if name in ("v_xor_b32", "s_xor_b32"):
        return plain(a ^ b)
    if name in ("v_not_b32", "s_not_b32"):
        return plain(~a)
    if name == "s_andn2_b32":
        return plain(a & ~b)
    if name == "v_and_or_b32":
        return plain((a & b) | c)
    if name == "v_or3_b32":
        return plain(a | b | c)
    if name == "v_lshl_or_b32":
        return plain((a << (b & 31)) | c)
    if name == "v_xad_u32":
        return plain((a ^ b) + c, 2)
    if name in ("v_bfe_u32", "v_bfe_i32"):
        width = c & 31
        field = (a >> (b & 31)) & ((1 << width) - 1)
        return plain(_sign_extend(field, width) if name == "v_bfe_i32" else field)
    if name == "v_bfi_b32":
        return plain((a & b) | (~a & c))
    if name in ("s_bfe_u32", "s_bfe_i32"):      # src1: offset in bits 4:0, width in bits 22:16 (CDNA3 ISA)
        offset, width = b & 31, (b >> 16) & 0x7F
        field = (a >> offset) & ((1 << width) - 1)
        return plain(_sign_extend(field, width) if name == "s_bfe_i32" else field)
    return UNKNOWN


def _sign_extend(field: np.ndarray, width: np.ndarray) -> np.ndarray:
    """A `width`-bit field as a signed number (the _i32 bit-field extracts)."""
    negative = (width > 0) & (((field >> np.maximum(width - 1, 0)) & 1) == 1)
    return np.where(negative, field - (np.int64(1) << width), field)


def _signed(v: np.ndarray) -> np.ndarray:
    return np.where(v >= 1 << 31, v - (1 << 32), v)


# --- an access -----------------------------------------------------------------------------------
def _access(ins: _Instruction, ds, state: dict) -> Access:
    kind = "load" if ds.group(1) == "read" else "store"
    pair, bits = ds.group(2), int(ds.group(4))
    shown = bits * (2 if pair else 1)
    phases = None if pair else PHASES.get((kind, bits))
    if phases is None:
        return Access(ins.line, kind, shown, None, f"{ins.opcode} (not analysed: its lane phases are unpublished)")
    address_operand = ins.operands[1] if kind == "load" else ins.operands[0]
    address = state.get(address_operand, UNKNOWN)
    if address.lanes is None:
        return Access(ins.line, kind, shown, None, "with addresses not known from the work-item id alone")
    offset = next((int(o.split(":")[1], 0) for o in ins.operands if o.startswith("offset:")), 0)
    return Access(ins.line, kind, shown, phase_ways((address.lanes + offset) & _MASK32, bits // 32, phases),
                  assumed=ASSUMED_32_BIT if bits == 32 else "")

