"""Shared-memory bank conflicts, read from the PTX: the address every thread of every warp uses
for each `ld.shared` / `st.shared`, and how many times a warp's access is replayed.

The rule (CUDA C++ Programming Guide, "Shared Memory", compute capability 5.x and later): shared
memory is 32 banks, and successive 32-bit words sit in successive banks. A warp's 32-bit access
is served at once when its threads touch at most one word per bank (threads reading the same
word share it); n distinct words in one bank take n passes: an n-way conflict.

The addresses come from evaluating the PTX's integer arithmetic for every thread of the CTA
(`%tid.x` = 0 .. threads-1, the shared base `global_smem` = 0): Triton computes shared addresses
from the thread index and constants alone, swizzle XORs included. A register that depends on
anything else (a parameter, a loaded value, a loop) is unknown, and so is an access through it.

Not covered, and reported as such: accesses wider than 32 bits (.v2, .v4, .b64), because how the
hardware splits them into passes is not published; `ldmatrix`/`stmatrix` and `cp.async`, whose
addressing differs; predicated accesses are counted as if every thread were active.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

import numpy as np

BANKS = 32
WORD = 4              # bytes per bank
WARP = 32

_INSTRUCTION = re.compile(r"^\s*(@!?%\w+\s+)?([a-z][\w.]*)\s+([^;]*);")
_SHARED = re.compile(r"^(ld|st)\.shared(?:::cta)?((?:\.v[248])?)\.([bsuf])(\d+)$")
_ADDRESS = re.compile(r"\[\s*(%?\w+)\s*(?:\+\s*(-?\d+))?\s*\]")
_MASK32 = (1 << 32) - 1


@dataclass
class Access:
    line: int              # 1-based line in the PTX
    kind: str              # "load" or "store"
    bits: int              # per thread: 32 for .b32, 128 for .v4.b32
    ways: int | None       # worst over the warps; None when not analysed
    why_not: str = ""      # why `ways` is None
    assumed: str = ""      # the rule it was counted under, where that rule is an assumption

    @property
    def conflicted(self) -> bool:
        return self.ways is not None and self.ways > 1


@dataclass
class BankReport:
    threads: int
    accesses: list[Access]

    def summary(self, kind: str) -> str:
        """'32 x 32-bit, all conflict-free' / '8 x 32-bit: 4 with 8-way conflicts' / ... for loads or stores."""
        mine = [a for a in self.accesses if a.kind == kind]
        analysed = [a for a in mine if a.ways is not None]
        parts = []
        if analysed:
            worst = Counter(a.ways for a in analysed)
            if set(worst) == {1}:
                parts.append(f"{len(analysed)} analysed, all conflict-free")
            else:
                parts.append(f"{len(analysed)} analysed: " + ", ".join(
                    f"{n} {'conflict-free' if w == 1 else f'with {w}-way conflicts'}"
                    for w, n in sorted(worst.items())))
            assumed = sorted({a.assumed for a in analysed if a.assumed})
            if assumed:
                parts[-1] += f" ({', '.join(assumed)})"
        skipped = Counter(a.why_not for a in mine if a.ways is None)
        parts += [f"{n} {why}" for why, n in skipped.items()]
        return "; ".join(parts)

    def as_dict(self) -> dict:
        return {"threads": self.threads,
                "accesses": [{"line": a.line, "kind": a.kind, "bits": a.bits, "ways": a.ways, "why_not": a.why_not,
                              "assumed": a.assumed}
                             for a in self.accesses]}


def analyse(ptx: str, threads: int) -> BankReport:
    """Every shared load and store of the PTX's kernel, for a CTA of `threads` threads."""
    values: dict[str, np.ndarray | None] = {}
    defined = Counter(m.group(3).split(",")[0].strip() for m in map(_INSTRUCTION.match, ptx.splitlines()) if m)
    tid = np.arange(threads, dtype=np.int64)
    accesses = []
    for number, text in enumerate(ptx.splitlines(), 1):
        m = _INSTRUCTION.match(text)
        if not m:
            continue
        opcode, operands = m.group(2), [o.strip() for o in _split(m.group(3))]
        shared = _SHARED.match(opcode)
        if shared:
            accesses.append(_access(number, shared, operands, values, threads))
            if shared.group(1) == "ld":
                for dst in _destinations(operands[0]):
                    values[dst] = None
            continue
        if not operands or not operands[0].startswith("%"):
            continue
        dst = operands[0]
        result = None
        if defined[dst] == 1 and not m.group(1):      # assigned once, unconditionally: a plain value
            result = _evaluate(opcode, operands[1:], values, tid)
        values[dst] = result
    return BankReport(threads, accesses)


def _split(text: str) -> list[str]:
    """Operands, keeping `{%r1, %r2}` and `[%r1+4]` whole."""
    out, depth, current = [], 0, ""
    for ch in text:
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(current)
            current = ""
        else:
            current += ch
    return out + ([current] if current.strip() else [])


def _destinations(operand: str) -> list[str]:
    return re.findall(r"%\w+", operand)


def _value(operand: str, values: dict, tid: np.ndarray):
    operand = operand.strip()
    if operand in ("%tid.x",):
        return tid
    if operand in ("%tid.y", "%tid.z"):
        return np.zeros_like(tid)
    if operand == "%laneid":
        return tid % WARP
    if operand == "global_smem":
        return np.zeros_like(tid)
    if re.fullmatch(r"-?\d+", operand):
        return np.full_like(tid, _as_int64(int(operand)))
    if re.fullmatch(r"0[xX][0-9a-fA-F]+", operand):
        return np.full_like(tid, _as_int64(int(operand, 16)))
    return values.get(operand)


def _as_int64(value: int) -> int:
    """A PTX immediate as the 64-bit pattern it is (0xFFFFFFFFFFFFFFFF is -1): the values are int64 arrays."""
    return (value + 2**63) % 2**64 - 2**63


_BINARY = {"add": np.add, "sub": np.subtract, "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
           "shl": np.left_shift, "min": np.minimum, "max": np.maximum}


def _evaluate(opcode: str, sources: list[str], values: dict, tid: np.ndarray):
    """The value of one integer instruction for every thread, or None when it is not known."""
    parts = opcode.split(".")
    op = parts[0]
    args = [_value(s, values, tid) for s in sources]
    if any(a is None for a in args):
        return None
    wide = any(p in ("u64", "s64", "b64", "wide") for p in parts)
    if op in ("mov", "cvt", "cvta"):
        out = args[0]
    elif op in _BINARY:
        out = _BINARY[op](args[0], args[1])
    elif op == "shr":
        out = np.right_shift(args[0] & (_MASK32 if not wide else -1), args[1])
    elif op == "mul" and "lo" in parts or op == "mul" and "wide" in parts:
        out = args[0] * args[1]
    elif op == "mad" and ("lo" in parts or "wide" in parts):
        out = args[0] * args[1] + args[2]
    elif op == "not":
        out = ~args[0]
    elif op == "neg":
        out = -args[0]
    elif op == "bfe":          # bit-field extract; .s32 sign-extends the field (PTX ISA, "bfe")
        length = args[2]
        out = ((args[0] & _MASK32) >> args[1]) & ((1 << length) - 1)
        if "s32" in parts:
            out = np.where(length > 0, out - ((out >> np.maximum(length - 1, 0)) & 1) * (1 << length), out)
    else:
        return None
    return out if wide else out & _MASK32


def _access(number: int, shared, operands: list[str], values: dict, threads: int) -> Access:
    kind = "load" if shared.group(1) == "ld" else "store"
    lanes = int(shared.group(2)[2:]) if shared.group(2) else 1
    bits = lanes * int(shared.group(4))
    address_operand = operands[1] if kind == "load" else operands[0]
    if bits > 32:
        return Access(number, kind, bits, None, "wider than 32 bits (not analysed: the hardware's passes are unpublished)")
    m = _ADDRESS.search(address_operand)
    base = _value(m.group(1), values, np.arange(threads, dtype=np.int64)) if m else None
    if base is None:
        return Access(number, kind, bits, None, "with addresses not known from the thread index alone")
    address = base + int(m.group(2) or 0)
    return Access(number, kind, bits, worst_ways(address))


def worst_ways(address: np.ndarray) -> int:
    """The largest number of distinct 32-bit words one bank serves for one warp, over the warps."""
    return phase_ways(address, 1, [range(start, min(start + WARP, len(address)))
                                   for start in range(0, len(address), WARP)])


def phase_ways(address: np.ndarray, words_per_lane: int, phases) -> int:
    """The largest number of distinct words one bank serves in one phase (a warp here; AMD's lane groups
    in lds_banks), each lane touching `words_per_lane` words from its address on: 1 is conflict-free."""
    worst = 1
    first = address // WORD
    for lanes in phases:
        lanes = list(lanes)
        words = np.unique(np.concatenate([first[lanes] + k for k in range(words_per_lane)]))
        worst = max(worst, int(np.bincount(words % BANKS, minlength=BANKS).max()))
    return worst
