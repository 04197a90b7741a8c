"""Every opcode explained: one line a learner can read beside `HGMMA.64x128x16.F32`, `cp.async.bulk.tensor...`
or `v_mfma_f32_32x32x8_f16`, in this project's words, with the ISA document and section to read next.

The words live in data, one TOML table per language (isa/sass.toml, isa/ptx.toml, isa/amdgcn.toml), one
table per opcode: `does` (one line), `see` (the document and its section), optionally `url`. An entry no
vendor document lists says so in its `see`. `language` is a stage's language as core/stages.py names it; a
language without a table (python, mlir, llvm) has no opcodes and no entries, so a caller may ask of any stage.

How an opcode finds its entry, by language:
  sass    the base opcode, the text before the first '.': `LDGSTS.E.BYPASS.LTC128B.128` is LDGSTS. Its
          modifiers (E, BYPASS, LTC128B, 128) are looked up in the table's `[modifiers]`, exactly or by a
          pattern (`*x*x*`: an MMA's tile shape); NVIDIA documents no modifier, so their words are inferred.
  ptx     the longest dotted prefix that has an entry: `cp.async.bulk.tensor.2d.shared::cluster...` is
          cp.async.bulk.tensor (not cp.async), `ld.global.v4.b32` is ld.global (ld were there no ld.global).
          A part with a `::` qualifier also tries its text before the `::`, just after trying itself:
          `tcgen05.wait::ld.sync.aligned` is tcgen05.wait, `st.shared::cta.b32` is st.shared.
  amdgcn  the full mnemonic; else the mnemonic without its encoding suffix (_e32, _e64, _sdwa, _dpp, ...:
          `v_add_u32_e32` is v_add_u32); else the most specific pattern key matching that stripped mnemonic
          (fnmatch: `*` any run, `?` one character; the pattern with the most literal characters wins, then
          the first in the file): `v_mfma_*` covers v_mfma_f32_32x32x8_f16 and gfx90a's v_mfma_f32_32x32x8f16.

The tables are read with tomllib (Python 3.11+; on 3.10 the same parser, installed as `tomli`).

What a line's opcode is (`opcode`): the instruction's mnemonic as written, modifiers included, after SASS's
/*addr*/ and its predicate guard (@P0, @!UP1), PTX's guard (@%p1, @!%p2) and a label; None for a label alone,
a directive (.loc, .reg, .section, ...), a comment, a blank line, YAML metadata. `opcodes` reads a whole stage:
PTX statement by statement (several on a line in inline asm, one across lines for wgmma's operand lists),
AMDGCN's dual-issue `v_dual_x :: v_dual_y` as two.
"""
from __future__ import annotations

import fnmatch
import re
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path

LANGUAGES = ("sass", "ptx", "amdgcn")
_TABLES = Path(__file__).with_name("isa")
_MODIFIERS = "modifiers"      # the one table of a file that is not an opcode


@dataclass(frozen=True)
class Entry:
    language: str
    opcode: str                  # as asked: `LDGSTS.E.BYPASS.LTC128B.128`
    key: str                     # the entry it matched: `LDGSTS`, `cp.async.bulk.tensor`, `v_mfma_*`
    does: str                    # one line, in this project's words
    see: str                     # the document and section to read next
    url: str | None = None
    modifiers: tuple[tuple[str, str], ...] = ()   # SASS: (modifier, its words) for those the table knows

    def as_dict(self) -> dict:
        return {**asdict(self), "modifiers": [list(m) for m in self.modifiers]}


# --- what a line's opcode is -------------------------------------------------------------------------------

# `/*0a40*/  @!P0 LDGSTS.E.BYPASS.LTC128B.128 [R1], [R2.64] ;` -> LDGSTS.E.BYPASS.LTC128B.128
_SASS = re.compile(r"\s*(?:/\*[0-9a-fA-F]+\*/\s*)?\{?\s*(?:@!?U?P(?:T|\d+)\s+)?"
                   r"([A-Z][A-Z0-9_]*(?:\.[A-Za-z0-9_]+)*)(?=[\s;]|$)")
_PTX_LABEL = re.compile(r"\s*[A-Za-z_$][\w$]*:(?!:)")
_PTX_GUARD = re.compile(r"\s*@!?%?[\w$]+\s+")
_PTX = re.compile(r"([a-z][a-z0-9_]*(?:\.[A-Za-z0-9_:]+)*)(?=\s|$)")
_GCN_LABEL = re.compile(r"\s*[\w.$]+:(?:\s|$)")
_GCN = re.compile(r"\s*([a-z][a-z0-9_]*)(?=\s|$)")
_GCN_ENCODING = re.compile(r"_(?:e32|e64|sdwa|dpp8?|e32_dpp|e64_dpp)$")


def opcode(language: str, line: str) -> str | None:
    """The opcode of one stage line (the first, if it holds several), or None where it holds no instruction."""
    if language == "sass":
        if line.lstrip().startswith("//"):
            return None
        m = _SASS.match(line)
        return m.group(1) if m else None
    if language == "ptx":
        return next((op for op in map(_ptx_statement, _ptx_code(line).split(";")) if op), None)
    if language == "amdgcn":
        return next(iter(_gcn_line(line)), None)
    return None


def opcodes(language: str, text: str) -> list[str]:
    """Every instruction's opcode in a stage's text, in order."""
    if language == "sass":
        return [op for op in (opcode("sass", line) for line in text.splitlines()) if op]
    if language == "ptx":
        return _ptx_opcodes(text)
    if language == "amdgcn":
        out, metadata = [], False
        for line in text.splitlines():
            stripped = line.strip()
            if stripped.startswith((".amdgpu_metadata", ".end_amdgpu_metadata")):
                metadata = stripped.startswith(".amdgpu_metadata")
            elif not metadata:
                out.extend(_gcn_line(line))
        return out
    return []


def _ptx_code(line: str) -> str:
    return re.sub(r"/\*.*?\*/", " ", line).split("//")[0]


def _ptx_statement(piece: str) -> str | None:
    """The opcode at the start of one PTX statement (or of its first line): braces, labels and a guard
    skipped; None for a directive or nothing."""
    rest = piece
    while True:
        rest = rest.lstrip().lstrip("{}").lstrip()
        label = _PTX_LABEL.match(rest)
        if not label:
            break
        rest = rest[label.end():]
    guard = _PTX_GUARD.match(rest)
    if guard:
        rest = rest[guard.end():]
    m = _PTX.match(rest.rstrip("}").rstrip())
    return m.group(1) if m else None


def _ptx_opcodes(text: str) -> list[str]:
    """Statement by statement: a statement ends at ';'; a directive, a label or a brace at the line's end.
    An instruction still open at a line's end (wgmma's operand list) goes on over the next lines."""
    out, open_statement = [], False
    for line in text.splitlines():
        pieces = _ptx_code(line).split(";")
        for i, piece in enumerate(pieces):
            last = i == len(pieces) - 1
            if open_statement:
                open_statement = last    # its end is this line's first ';', or it goes on
                continue
            op = _ptx_statement(piece)
            if op:
                out.append(op)
                open_statement = last and bool(piece.strip().rstrip("}").strip())
    return out


def _gcn_line(line: str) -> list[str]:
    code = line.split(";")[0].split("//")[0]
    if not code.strip() or _GCN_LABEL.match(code):
        return []
    ops = []
    for half in code.split("::"):          # gfx11's dual issue: v_dual_mul_f32 ... :: v_dual_add_f32 ...
        m = _GCN.match(half)
        if not m:
            break
        ops.append(m.group(1))
    return ops


# --- the tables ----------------------------------------------------------------------------------------------

@cache
def _load(language: str) -> dict:
    """The language's TOML file, parsed once; {} for a language without one."""
    if language not in LANGUAGES:
        return {}
    try:
        import tomllib                  # Python 3.11+
    except ImportError:                 # Python 3.10: the same parser, as its own package
        import tomli as tomllib
    return tomllib.loads((_TABLES / f"{language}.toml").read_text(encoding="utf-8"))


@cache
def table(language: str) -> dict[str, dict]:
    """The language's entries by key, as the TOML holds them (the `[modifiers]` table apart); shared, do not
    change it."""
    return {k: v for k, v in _load(language).items() if k != _MODIFIERS}


@cache
def modifier_table(language: str) -> dict[str, str]:
    """The language's `[modifiers]`: modifier (or pattern) -> its words."""
    return _load(language).get(_MODIFIERS, {})


@cache
def _patterns(language: str) -> list[str]:
    """Pattern keys, most specific first (most literal characters; the file's order breaks a tie)."""
    keys = [k for k in table(language) if any(c in k for c in "*?[")]
    return sorted(keys, key=lambda k: -len(re.sub(r"[*?\[\]]", "", k)))


def key_of(language: str, op: str) -> str | None:
    """The key of the entry that describes opcode `op`, or None."""
    entries = table(language)
    if language == "sass":
        base = op.split(".")[0]
        return base if base in entries else None
    if language == "ptx":
        parts = op.split(".")
        for n in range(len(parts), 0, -1):
            last = parts[n - 1]
            for candidate in dict.fromkeys((last, last.split("::")[0])):   # tcgen05.wait::ld -> tcgen05.wait
                key = ".".join([*parts[:n - 1], candidate])
                if key in entries:
                    return key
        return None
    if language == "amdgcn":
        bare = _GCN_ENCODING.sub("", op)
        for name in (op, bare):
            if name in entries:
                return name
        return next((k for k in _patterns(language) if fnmatch.fnmatchcase(bare, k)), None)
    return None


def describe(language: str, line_or_opcode: str) -> Entry | None:
    """The entry for a stage line's instruction (or for a bare opcode), or None: no instruction there, or one
    the table does not know."""
    op = opcode(language, line_or_opcode)
    key = key_of(language, op) if op else None
    if key is None:
        return None
    entry = table(language)[key]
    return Entry(language, op, key, entry["does"], entry["see"], entry.get("url"),
                 _modifiers(language, op) if language == "sass" else ())


def _modifiers(language: str, op: str) -> tuple[tuple[str, str], ...]:
    known = modifier_table(language)
    patterns = sorted((k for k in known if "*" in k), key=lambda k: -len(k.replace("*", "")))
    out = []
    for mod in op.split(".")[1:]:
        key = mod if mod in known else next((p for p in patterns if fnmatch.fnmatchcase(mod, p)), None)
        if key is not None:
            out.append((mod, known[key]))
    return tuple(out)


def missing(language: str, lines) -> list[str]:
    """The opcodes in `lines` (a stage's text, or its lines) that have no entry, sorted, each once."""
    text = lines if isinstance(lines, str) else "\n".join(lines)
    return sorted({op for op in opcodes(language, text) if key_of(language, op) is None})
