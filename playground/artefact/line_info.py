"""Read each stage's own location records: (stage line, frames) for every line of the text.

Every stage carries its own kind of location record:
  TTIR/TTGIR  `loc(#locN)` on each op; `#locN = loc("file":line:col)`, `loc(callsite(#callee at #caller))`
  LLVM IR     `!dbg !N` on each instruction; `!N = !DILocation(line:, scope:, inlinedAt:)`
  PTX         `.loc file line col[, ..., inlined_at file line col]` before the instructions it covers
  SASS        nvdisasm's `//## File "f", line L [inlined at "g", line M]` comments
  AMDGCN      `.loc file line col` with a `; f:L:C @[ g:M:N ]` comment for inlined code

Each record gives a chain of frames, innermost first. Code inlined from Triton's own library
(`tl.cdiv`, `tl.sum`, ...) belongs to the user's line that called it, so we attribute a stage
line to the innermost frame that is not inside the triton package.
"""
from __future__ import annotations

import re
from pathlib import Path

from ..core.stages import STAGES

Frame = tuple[str, int]   # (file name or path, line), innermost frame first


def locate(stage: str, text: str, ptx: str | None = None) -> list[tuple[str, list[Frame]]]:
    """Each line of the stage with the Python frames it came from, read the way its language
    (stages.py) records locations."""
    language = STAGES[stage].language if stage in STAGES else None
    if language == "mlir":
        return _mlir(text)
    if language == "llvm":
        return _llvm(text)
    if language == "ptx":
        return _ptx(text)
    if language == "sass":
        return _sass(text, ptx)
    if language == "amdgcn":
        return _amdgcn(text)
    raise ValueError(f"no line mapping for stage {stage}")


_MLIR_DEF = re.compile(r"^(#loc\d*) = loc\((.*)\)\s*$")
_MLIR_USE = re.compile(r"\s*loc\((#loc\d*)\)\s*$")
_MLIR_FILE = re.compile(r'^"([^"]+)":(\d+):(\d+)')
_MLIR_CALLSITE = re.compile(r"^callsite\((#loc\d*) at (#loc\d*)\)$")
_MLIR_NAMED = re.compile(r'^"[^"]*"\((#loc\d*)\)$')
_MLIR_INLINE_FILE = re.compile(r'loc\("([^"]+)":(\d+):(\d+)\)\s*$')


def _mlir(text: str):
    defs = {}
    for line in text.splitlines():
        m = _MLIR_DEF.match(line)
        if m:
            defs[m.group(1)] = m.group(2)

    memo: dict[str, list[Frame]] = {}

    def frames(ref: str, depth=0) -> list[Frame]:
        if ref in memo or depth > 50:
            return memo.get(ref, [])
        body = defs.get(ref, "")
        result: list[Frame] = []
        if m := _MLIR_FILE.match(body):
            result = [(m.group(1), int(m.group(2)))]
        elif m := _MLIR_CALLSITE.match(body):
            result = frames(m.group(1), depth + 1) + frames(m.group(2), depth + 1)
        elif m := _MLIR_NAMED.match(body):
            result = frames(m.group(1), depth + 1)
        elif body.startswith("fused["):
            inner = re.findall(r"#loc\d*", body)
            result = frames(inner[0], depth + 1) if inner else []
        memo[ref] = result
        return result

    out = []
    for line in text.splitlines():
        if line.startswith("#loc"):
            continue
        if m := _MLIR_USE.search(line):
            out.append((line[:m.start()], frames(m.group(1))))
        elif m := _MLIR_INLINE_FILE.search(line):
            out.append((line[:m.start()].rstrip(), [(m.group(1), int(m.group(2)))]))
        else:
            out.append((line, []))
    return out


_LL_META = re.compile(r"^!(\d+) = (?:distinct )?!(\w+)\((.*)\)\s*$")
_LL_DBG = re.compile(r",?\s*!dbg !(\d+)")


def _llvm(text: str):
    meta = {}
    for line in text.splitlines():
        if m := _LL_META.match(line):
            meta[m.group(1)] = (m.group(2), dict(re.findall(r'(\w+): ("[^"]*"|![0-9]+|\w+)', m.group(3))))

    def ref(value: str | None) -> str | None:
        return value[1:] if value and value.startswith("!") else None

    def file_of(scope: str | None, depth=0) -> str:
        if scope is None or scope not in meta or depth > 50:
            return ""
        kind, fields = meta[scope]
        if kind == "DIFile":
            return str(Path(fields.get("directory", '""').strip('"')) / fields.get("filename", '""').strip('"'))
        if "file" in fields:
            return file_of(ref(fields["file"]), depth + 1)
        return file_of(ref(fields.get("scope")), depth + 1)

    def frames(loc: str | None, depth=0) -> list[Frame]:
        if loc is None or loc not in meta or depth > 50:
            return []
        kind, fields = meta[loc]
        if kind != "DILocation":
            return []
        here = (file_of(ref(fields.get("scope"))), int(fields.get("line", 0)))
        return [here] + frames(ref(fields.get("inlinedAt")), depth + 1)

    out = []
    for line in text.splitlines():
        if line.startswith("!"):
            continue
        if m := _LL_DBG.search(line):
            out.append((line[:m.start()] + line[m.end():], frames(m.group(1))))
        else:
            out.append((line, []))
    return out


_PTX_FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]+)"')
_PTX_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+\d+(?:.*inlined_at\s+(\d+)\s+(\d+)\s+\d+)?")


def _ptx_frames_by_line(text: str) -> dict[int, list[Frame]]:
    """The frames in force at every line of the PTX (1-based), for PTX and for SASS through PTX.

    Inside `// begin inline asm ... // end inline asm`, LLVM emits a `.loc` for each line of the
    asm string with the line number counted up from the call's own line (as if the asm text
    were source lines). Those counted-up lines point at unrelated Python lines, so within a
    block only its first `.loc` is true; the rest are ignored.
    """
    files = {m.group(1): m.group(2) for line in text.splitlines() if (m := _PTX_FILE.match(line))}
    frames_at, current = {}, []
    in_asm = seen_loc_in_asm = False
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith(".section") and ".debug" in stripped:
            break
        if stripped == "// begin inline asm":
            in_asm, seen_loc_in_asm = True, False
        elif stripped == "// end inline asm":
            in_asm = False
        elif m := _PTX_LOC.match(line):
            if not (in_asm and seen_loc_in_asm):
                current = [(files.get(m.group(1), ""), int(m.group(2)))]
                if m.group(3):
                    current.append((files.get(m.group(3), ""), int(m.group(4))))
                else:   # older LLVM (Triton 3.6) names the caller only in a comment: `@[ gemm.py:34:27 ]`
                    current += _callers_in_comment(line, files.values())
            seen_loc_in_asm = seen_loc_in_asm or in_asm
        if stripped.startswith("}") or stripped.startswith("$L__func_end"):
            current = []
        frames_at[number] = current
    return frames_at


_CALLER_COMMENT = re.compile(r"@\[\s*([^:\s\]]+):(\d+):\d+")


def _callers_in_comment(line: str, paths) -> list[Frame]:
    """Frames from a `; f.py:43:13 @[ g.py:34:27 ]` comment, the file resolved by its base name."""
    comment = line.split("//", 1)[1] if "//" in line else line.split(";", 1)[1] if ";" in line else ""
    frames = []
    for name, number in _CALLER_COMMENT.findall(comment):
        path = next((p for p in paths if Path(p).name == name), name)
        frames.append((path, int(number)))
    return frames


def _ptx(text: str):
    frames_at = _ptx_frames_by_line(text)
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        if number not in frames_at:
            break   # the DWARF sections at the end
        if _PTX_LOC.match(line) or _PTX_FILE.match(line):
            continue
        out.append((line, frames_at[number] if _is_instruction(line) else []))
    return out


def _is_instruction(line: str) -> bool:
    s = line.strip()
    return bool(s) and not s.startswith(("//", ".", "{", "}", "$", ")", "(")) and not s.endswith(":")


_SASS_INFO = re.compile(r'//## File "([^"]+)", line (\d+)(?: inlined at "([^"]+)", line (\d+))?')
PTX_IN_CUBIN = ".nv_debug_ptx_txt"


def _sass(text: str, ptx: str | None = None):
    """SASS lines with their frames.

    ptxas records two maps in the cubin: SASS to Python lines (.debug_line, from the PTX's
    `.loc`) and SASS to PTX lines (.nv_debug_line_sass). We go through the PTX when we have
    it, so the inline-asm correction above applies to SASS too; otherwise we take nvdisasm's
    Python lines as they are.
    """
    ptx_frames = _ptx_frames_by_line(ptx) if ptx else None
    out, pending, current = [], [], []
    for line in text.splitlines():
        if m := _SASS_INFO.search(line):
            if m.group(1) == PTX_IN_CUBIN:
                if ptx_frames is not None:
                    pending.append(("ptx", ptx_frames.get(int(m.group(2)), [])))
                continue
            frame = [(m.group(1), int(m.group(2)))]
            if m.group(3):
                frame.append((m.group(3), int(m.group(4))))
            pending.append(("source", frame))
            continue
        if pending:
            through_ptx = [f for kind, f in pending if kind == "ptx"]
            # nvdisasm prints an inlined chain first, then the caller's own line: keep the deepest.
            current = through_ptx[-1] if through_ptx else max((f for _, f in pending), key=len)
            pending = []
        is_insn = line.strip().startswith("/*") and "*/" in line
        out.append((line, current if is_insn else []))
    return out


_GCN_FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]*)"(?:\s+"([^"]+)")?')
_GCN_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+\d+")


def _amdgcn(text: str):
    files = {}
    for line in text.splitlines():
        if m := _GCN_FILE.match(line):
            files[m.group(1)] = str(Path(m.group(2)) / m.group(3)) if m.group(3) else m.group(2)
    out, current = [], []
    for line in text.splitlines():
        if m := _GCN_LOC.match(line):
            current = [(files.get(m.group(1), ""), int(m.group(2)))] + _callers_in_comment(line, files.values())
            continue
        if _GCN_FILE.match(line):
            continue
        s = line.strip()
        is_insn = bool(s) and not s.startswith((";", ".", "//")) and not s.endswith(":")
        out.append((line, current if is_insn else []))
    return out
