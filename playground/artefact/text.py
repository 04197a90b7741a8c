"""Compiled artefacts as text, `lines(result)`: `inspect`'s reading of the code (a codeinspect.Report), `inspect
--params`'s parameter block (a launch_params.ParamBlock) and `compile --passes`'s list of the passes (a
passes.PassLog); `found_line`, what `--find` found."""
from __future__ import annotations

from functools import singledispatch

from ..text import table
from .codeinspect import Report
from .launch_params import ParamBlock
from .passes import PassLog


@singledispatch
def lines(result) -> list[str]:
    raise TypeError(f"no text for {type(result).__name__}")


_ROWS = [  # (label, mix key prefix)
    ("tensor-core MMA", "mma"), ("global loads", "global_load"), ("global stores", "global_store"),
    ("async copies", "async_copy"), ("TMA copies", "tma"), ("global atomics", "global_atomic"),
    ("shared loads", "shared_load"), ("shared stores", "shared_store"), ("barriers", "barrier"),
    ("mbarrier ops", "mbarrier"), ("conversions", "conversion"), ("spills", "spill"),
]


def _inspect_lines(report: Report) -> list[str]:
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
        elif p.prefetched:
            out.append(f"K loop      software-pipelined through registers: the next tiles are loaded before this "
                       f"trip's math and stored after it, into one shared-memory buffer per operand "
                       f"({', '.join(p.ring_shapes)})")
        else:
            out.append("K loop      not pipelined: one shared-memory buffer per operand")
    elif p.has_loop:
        out.append("loop        no tl.dot inside; nothing to pipeline into shared memory")
    out += _loop_lines(report.main_loop) if report.main_loop else []
    out += _register_lines(report)
    out.append("hints       " + ("none" if not report.hints else report.hints[0]))
    out += [f"            {h}" for h in report.hints[1:]]
    return out


def _loop_lines(loop) -> list[str]:
    """The main loop's schedule: its stall cycles, its scoreboards, its longest stalls."""
    lines = ", ".join(str(n) for n in loop.lines)
    out = [f"main loop   /*{loop.start:04x}*/../*{loop.end:04x}*/, {loop.instructions} instructions from lines {lines}: "
           f"{loop.stall_cycles} stall cycles an iteration (the control codes' stall counts summed: a floor "
           f"on one warp's issue time, before any wait on a scoreboard), {loop.yields} yield hints"]
    for sb in loop.scoreboards:
        setters = ", ".join(f"{op} x{n}" for op, n in sb.set_by.items()) or "no instruction in the loop"
        waits = f"{sb.waited_by} wait on it" + (f", {sb.depbar} DEPBAR for its count" if sb.depbar else "")
        out.append(f"            SB{sb.index}: set by {setters}; {waits}")
    for stall in loop.longest:
        where = f"line {stall.line}" if stall.line is not None else "no Python line"
        out.append(f"            stall {stall.stall:>2} after /*{stall.address:04x}*/ {stall.instruction} ({where})")
    return out


def _register_lines(report: Report) -> list[str]:
    if report.registers is None:
        return [f"registers   {report.registers_unavailable.removeprefix('live registers: ')}"] \
            if report.registers_unavailable else []
    p = report.registers
    how = "nvdisasm's life ranges" + (", read from a copy whose register-count record says 254: nvdisasm refuses 255"
                                      if p.from_copy else "")
    out = [f"registers   peak {p.peak} live of the {p.allocated} allocated ({how}); the lines that hold the most:"]
    for line in p.heaviest():
        out.append(f"            line {line.line:>4}: peak {line.peak:>3}, {line.last:>3} at its last instruction"
                   f"  {line.source}")
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
    if key in ("shared_load", "shared_store"):
        parts = [f"{mix['ldmatrix']} of them ldmatrix (LDSM)"] if key == "shared_load" and mix.get("ldmatrix") else []
        banks = report.banks.summary("load" if key == "shared_load" else "store") if report.banks else ""
        if banks and report.code == "SASS":
            parts.append(f"banks, from the PTX's {'ld' if key == 'shared_load' else 'st'}.shared: {banks}")
        elif banks:
            parts.append(f"banks, from the amdgcn's {'ds_read' if key == 'shared_load' else 'ds_write'}: {banks}")
        return "; ".join(parts)
    if key == "conversion":
        return ", ".join(f"{op} x{n}" for op, n in report.conversion_opcodes.items())
    if key == "spill":
        if not report.spill_store_bytes + report.spill_load_bytes:
            return "none"
        where = "STL/LDL to local memory" if report.code == "SASS" else "registers spilled, per the amdgcn metadata"
        return f"{report.spill_store_bytes} bytes stored, {report.spill_load_bytes} bytes loaded ({where})"
    return ""


def _pass_list(log: PassLog) -> list[str]:
    """The pass list: each pass, its pipeline and the size of its change."""
    by_pipeline: dict[str, int] = {}
    for p in log.passes:
        by_pipeline[p.pipeline] = by_pipeline.get(p.pipeline, 0) + 1
    changed = sum(p.changed for p in log.passes)
    head = [f"{len(log.passes)} MLIR passes for {log.kernel} on {log.target}, {changed} of which changed the IR: "
            + ", ".join(f"{k} {v}" for k, v in by_pipeline.items()),
            "(compared with locations dropped and value numbers shown as #; LLVM's own passes after "
            "translation are not MLIR passes: see --show llir)", ""]
    timed = bool(log.timings)
    rows = [[str(p.number), p.pipeline, p.argument, f"+{p.added}" if p.changed else "",
             f"-{p.removed}" if p.changed else "", str(len(p.after.splitlines()))]
            + ([_ms(p.seconds) if p.seconds is not None else "·"] if timed else []) for p in log.passes]
    foot = [""] + _stage_time_lines(log) + [
        "--show-pass N|NAME prints one pass's diff; --find PATTERN names the pass that introduced it; "
        "--by-time lists the passes slowest first"]
    return head + table(["#", "pipeline", "pass", "added", "removed", "lines after"] + (["wall ms"] if timed else []),
                        rows, align="rllrrr" + ("r" if timed else "")) + foot


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


# Which tool runs in each stage beyond MLIR's pass managers (Triton's backends/*/compiler.py): make_llir
# translates to LLVM IR and runs LLVM's optimisation pipeline; make_ptx and make_amdgcn run LLVM's code
# generation; make_cubin runs ptxas; make_hsaco runs the linker (ld.lld).
_STAGE_TOOL = {"source": "the frontend: the Python AST to TTIR", "ttir": "MLIR passes", "ttgir": "MLIR passes",
               "llir": "MLIR passes, then LLVM's optimisation pipeline", "ptx": "LLVM's NVPTX code generation",
               "cubin": "ptxas", "amdgcn": "LLVM's AMDGPU code generation", "hsaco": "the linker (ld.lld)",
               "store": "writing Triton's cache"}
_PIPELINE_OF = {"ttir": "make_ttir", "ttgir": "make_ttgir", "llir": "make_llir"}


def _stage_time_lines(log: PassLog) -> list[str]:
    """Each stage's wall time, and how much of it MLIR's passes took."""
    if not log.stage_seconds:
        return []
    mlir = {}
    for pipeline, _, seconds in log.timings:
        mlir[pipeline] = mlir.get(pipeline, 0.0) + seconds
    rows = []
    for stage, seconds in log.stage_seconds.items():
        passes = mlir.get(_PIPELINE_OF.get(stage, ""))
        inside = f"{_ms(passes)} ms in its MLIR passes" if passes is not None else ""
        rows.append([stage, _ms(seconds), _STAGE_TOOL.get(stage, ""), inside])
    total = sum(log.stage_seconds.values())
    return (["wall times, measured on this machine in a compile of its own with IR printing off (Triton's "
             "CompileTimes for the stages, MLIR's timing report for the passes):"]
            + ["  " + line for line in table(["stage", "ms", "what runs", ""], rows, align="lrll")]
            + [f"  total {_ms(total)} ms", ""])


def slowest_lines(log: PassLog) -> list[str]:
    """`--passes --by-time`: every pass name of every pipeline with its runs summed, the slowest first, and the
    stages' times beside them."""
    rows = [[_ms(seconds), pipeline, name, str(runs)] for pipeline, name, runs, seconds in log.slowest()]
    return ([f"MLIR passes for {log.kernel} on {log.target}, the slowest first (a pass that runs several times "
             f"counts once, its runs summed):", ""]
            + table(["wall ms", "pipeline", "pass", "runs"], rows, align="rllr") + [""] + _stage_time_lines(log))


def found_line(log: PassLog, found: dict) -> str:
    if found["number"] is not None:
        p = log.passes[found["number"] - 1]
        return f"{found['pattern']!r} first appears after pass {p.number}, {p.argument} ({p.name}, in {p.pipeline})"
    if found["lines"]:
        return f"{found['pattern']!r} is in the IR before the first pass: the frontend's TTIR already has it"
    return f"{found['pattern']!r} appears in no pass's output for {log.kernel} on {log.target}"


def _param_lines(b: ParamBlock) -> list[str]:
    """The launch as the driver call receives it, then each parameter: where its bytes go, and who reads them."""
    dims = lambda d: "(" + ", ".join(map(str, d)) + ")"
    grid = (f"gridDim {dims(b.grid_dims)}: the spec's grid at {b.shape or 'its arguments'}, {dims(b.grid)}"
            + (f", x times num_ctas {b.num_ctas}" if b.num_ctas > 1 else "") if b.grid else
            "gridDim: the launch's own grid (not known without the spec's grid function)")
    required = ""
    if b.binary_threads is not None:
        what = "requires" if b.api.startswith("cu") else "allows at most"
        required = f"; the binary {what} {b.binary_threads}" + ("" if b.binary_threads == b.block[0] else " (differs)")
    shared = f"sharedMemBytes {b.shared_bytes}: the compiled metadata's `shared`"
    if b.shared_bytes > 48 * 1024:
        shared += "; above 48 KiB, so Triton's loader first opts the function in to more dynamic shared memory"
    out = [f"kernel      {b.kernel} ({b.function}) on {b.target}: {b.config}",
           f"call        {b.api}, as Triton's launcher makes it (triton/backends/*/driver.c)",
           f"function    {b.function}, looked up by name in the loaded binary",
           f"grid        {grid}",
           f"block       blockDim {dims(b.block)}: num_warps {b.num_warps} x {b.block[0] // b.num_warps} threads{required}",
           f"cluster     " + (f"{dims(b.cluster)}: num_ctas {b.num_ctas}" if b.cluster else "none (num_ctas 1)"),
           f"shared      {shared}",
           f"stream      {b.stream}",
           f"attributes  {', '.join(b.attributes) or 'none'}"]
    for label, size in (("global", b.global_scratch_bytes), ("profile", b.profile_scratch_bytes)):
        if size:
            total = f" = {size * b.num_ctas * _programs(b.grid)} B for this grid" if b.grid else ""
            out.append(f"scratch     {label}: {size} B a program, from the allocator (programs x num_ctas x {size}"
                       f"{total})")
    out += [f"params      {len(b.params)}, one pointer each in `params`; the driver copies them into the parameter "
            f"buffer, {b.buffer_bytes} B at {b.buffer}",
            f"read from   {b.source}"]
    nvidia = b.base is not None
    head = ["#", "name", "type", "offset", "bytes"] + (["bank", "PTX .param", "read by (SASS)"] if nvidia
                                                       else ["value kind"])
    rows, end = [], 0
    for p in b.params:
        if p.offset > end:
            rows.append(["", "(padding)", "", f"0x{end:02x}", str(p.offset - end)] + [""] * (len(head) - 5))
        where = [f"c[0x0][0x{b.base + p.offset:x}]", p.declared, ", ".join(p.read_by) or "-"] if nvidia else [p.declared]
        rows.append([str(p.ordinal), p.name, p.type, f"0x{p.offset:02x}", str(p.size)] + where)
        end = p.offset + p.size
    out += ["  " + line for line in table(head, rows, "rllrr")]
    out += [f"absent      {a['name']}: {a['why']}" for a in b.absent[:1]]
    out += [f"            {a['name']}: {a['why']}" for a in b.absent[1:]]
    out += [f"not shown   {n}" for n in b.not_shown]
    return out


def _programs(grid) -> int:
    return grid[0] * grid[1] * grid[2]


lines.register(Report, _inspect_lines)
lines.register(ParamBlock, _param_lines)
lines.register(PassLog, _pass_list)


def explained_lines(opcode: str, entries) -> list[str]:
    """`inspect --explain`: each ISA table's entry for the opcode (a name may be both SASS and PTX)."""
    out = []
    for e in entries:
        out.append(f"{e.opcode} ({e.language}, entry {e.key}): {e.does}")
        out += [f"    .{mod}: {words}" for mod, words in e.modifiers]
        out.append(f"    see {e.see}" + (f" <{e.url}>" if e.url else ""))
    return out
