"""What `playground run` prints after the script, `lines(trace)`: its launches, grouped into the variants the JIT
compiled."""
from __future__ import annotations

from ..text import table
from ..units import kib, pct
from . import host_text

LAUNCH_ROWS = 40     # launches listed one by one; the rest are counted per variant


def _us(seconds) -> str:
    return "-" if seconds is None else f"{seconds * 1e6:,.1f}"


def _ran(launch: dict, native: bool = False) -> str:
    if launch.get("error"):
        return "failed"
    if native:
        return "on the GPU"
    if launch.get("timed"):
        return "timed: not run"
    if launch.get("repeat_of") is not None:
        return f"as #{launch['repeat_of'] + 1}: skipped"     # the same launch, nothing changed since (repeats.py)
    if launch.get("findings"):
        return f"interpreted: {len(launch['findings'])} sanitizer finding{'s' if len(launch['findings']) > 1 else ''}"
    return "interpreted" if launch.get("executed") else "not run"


def _grid(grid: list[int]) -> str:
    return "x".join(str(g) for g in (grid[:1] if grid[1:] == [1, 1] else grid))


def _specialised(words: list[str]) -> str:
    """["x: 16-byte aligned", "n: divisible by 16"] -> "16-byte aligned: x; divisible by 16: n"."""
    by_kind: dict[str, list[str]] = {}
    for word in words:
        name, _, kind = word.partition(": ")
        by_kind.setdefault(kind or name, []).append(name if kind else "")
    return "; ".join(f"{kind}: {', '.join(n for n in names if n)}" if any(names) else kind
                     for kind, names in by_kind.items()) or "nothing"


def _compile(launch: dict) -> str:
    if launch.get("direct"):
        return "direct"
    return "new" if launch["new_compile"] else "JIT cache"


def _streams(launches: list[dict]) -> list[int]:
    return sorted({launch.get("stream", 0) for launch in launches}) or [0]


def _side_by_side(launches: list[dict]) -> float:
    """Seconds kernels overlapped, summed over every pair (one stream's kernels never overlap): the time
    integral of k(k-1)/2 while k kernels run, in one pass over their starts and ends."""
    edges = sorted((t, step) for launch in launches if launch.get("gpu_start") is not None
                   for t, step in ((launch["gpu_start"], 1), (launch["gpu_end"], -1)))
    total, running, before = 0.0, 0, 0.0
    for t, step in edges:
        total += running * (running - 1) / 2 * (t - before)
        running, before = running + step, t
    return total


def lines(trace: dict, trace_file: str | None = None) -> list[str]:
    launches, variants = trace["launches"], trace["variants"]
    native = trace.get("native", False)
    where = (f"this GPU, {trace['device']} ({trace['target']}); times measured with CUDA events around each launch, "
             f"the model's beside them" if native else
             f"the virtual {trace['target']} ({trace['device']}); times are modelled, not measured")
    out = [f"{len(launches)} launch{'es' if len(launches) != 1 else ''} of {len(variants)} compiled "
           f"variant{'s' if len(variants) != 1 else ''} on {where}"]
    if launches:
        shown = launches[:LAUNCH_ROWS]
        rows = [[str(launch["index"] + 1), launch["kernel"], launch["site"], _grid(launch["grid"]),
                 str(launch["variant"]), _compile(launch), _ran(launch, native),
                 *([_us(launch.get("measured_seconds"))] if native else []),
                 _us(launch.get("modelled_seconds"))] for launch in shown]
        header = ["#", "kernel", "launched at", "grid", "variant", "compile", "ran",
                  *(["measured us"] if native else []), "modelled us"]
        align = "lllrrll" + ("r" if native else "") + "r"
        if _streams(launches) != [0]:       # several streams: which one, and when each kernel started
            for row, launch in zip(rows, shown):
                row[4:4] = [str(launch.get("stream", 0)), _us(launch.get("gpu_start"))]
            header[4:4], align = ["stream", "starts at us"], align[:4] + "rr" + align[4:]
        out += [""] + table(header, rows, align=align)
        if len(launches) > LAUNCH_ROWS:
            out.append(f"... and {len(launches) - LAUNCH_ROWS} more (all of them in --json and --trace)")
    if variants:
        rows = []
        for v in variants:
            regs = "-" if v.get("registers") is None else str(v["registers"])
            spills = "-" if v.get("spill_bytes") is None else str(v["spill_bytes"])
            occ = "-" if v.get("occupancy") is None else pct(v["occupancy"])
            launched = f"{v['launches']}" + (f" (+{v['warmups']} warmup)" if v["warmups"] else "")
            row = [str(v["id"]), v["kernel"], launched,
                   f"{v['num_warps']}/{v['num_stages']}", regs, spills, kib(v["shared"]), occ,
                   _specialised(v["specialised"])]
            if native:
                timed = v.get("timed")
                row[3:3] = [f"{timed['launches']} at {_us(timed['median_seconds'])} us" if timed else "-"]
            rows.append(row)
        header = ["variant", "kernel", "launches", "warps/stages", "regs", "spill B", "shared", "occupancy",
                  "specialised on"]
        align = "rllrrrrrl"
        if native:
            header[3:3], align = ["timing loops (median)"], "rllrrrrrrl"
        out += [""] + table(header, rows, align=align)
        for v in variants:
            if v.get("rebuild"):
                out.append(f"variant {v['id']}: {v['rebuild']}")
        if trace_file:
            out.append(f"open a variant in any command as {trace_file}#N, "
                       f"e.g. playground compile {trace_file}#1 --show sass")
        else:
            out.append("to open a variant in any command (compile, inspect, grid, occupancy, diff, sweep), save the "
                       "run with --trace FILE and name it FILE#N")
    out += _by_test(launches)
    for pick in trace.get("autotune", []):
        out.append(f"autotune {pick['kernel']}: {pick['best']} "
                   f"({'timed on this GPU by Triton' if native else 'picked by modelled time'})")
    if native:
        measured = sum(launch.get("measured_seconds") or 0 for launch in launches)
        modelled = sum(launch.get("modelled_seconds") or 0 for launch in launches)
        out.append(f"GPU busy {measured * 1e3:,.3f} ms measured over the launches listed (modelled "
                   f"{modelled * 1e3:,.3f} ms); the script's host time {trace['host_seconds']:,.3f} s")
        if trace.get("unwatched_launches"):
            out.append(f"{trace['unwatched_launches']} launches did not come through the JIT (a compiled kernel "
                       f"launched directly): not captured")
        return out
    busy = sum(launch.get("modelled_seconds") or 0 for launch in launches)
    overlap = ""
    if _streams(launches) != [0]:
        overlap = f" on {len(_streams(launches))} streams, {_side_by_side(launches) * 1e3:,.3f} ms of it side by side"
    out.append(f"GPU busy {busy * 1e3:,.3f} ms (modelled){overlap}; the script's host time here "
               f"{trace['host_seconds']:,.3f} s (compiling and interpreting left out)")
    if trace.get("memory"):       # the caching allocator's model (allocator.py)
        out.append(f"GPU memory peak {trace['memory']['peak_allocated_bytes']:,} B allocated, "
                   f"{trace['memory']['peak_reserved_bytes']:,} B reserved (modelled: PyTorch's caching allocator's "
                   f"rules applied to the script's GPU tensors, as is every torch.cuda memory figure the script read; "
                   f"not measured)")
    return out + host_text.lines(trace)


def _by_test(launches: list[dict]) -> list[str]:
    """`run -m pytest`: each test that launched kernels, with its launches, variants and failed runs."""
    tests: dict[str, list[dict]] = {}
    for launch in launches:
        if launch.get("test"):
            tests.setdefault(launch["test"], []).append(launch)
    if not tests:
        return []
    rows = [[test, str(len(ran)), ", ".join(str(v) for v in sorted({r["variant"] for r in ran})),
             str(sum(1 for r in ran if r.get("error"))), str(sum(len(r.get("findings", [])) for r in ran))]
            for test, ran in tests.items()]
    return [""] + table(["test", "launches", "variants", "failed to run", "sanitizer findings"], rows, align="lrlrr")

