"""The host side of a run in words, after the launch tables (text.lines): with `--ops` the dispatch trace (what the
host issued, in order: ATen ops, Triton launches, copies, sync points) and the ATen ops counted; then the sync points
and the copies between host and GPU. Every time says what it is: the host's, measured here (with the modelled waits
in it); the GPU's and the copies', modelled."""
from __future__ import annotations

from ..text import table
from ..units import binary

TRACE_ROWS = 60       # rows of the dispatch trace listed; the rest are counted
OP_ROWS = 20          # ops in the aggregate
SYNC_ROWS = COPY_ROWS = 20
NOT_KNOWN = ("on a CUDA build each ATen op runs a kernel that ATen, cuBLAS or cuDNN chooses at run time; the virtual "
             "GPU runs the op on the CPU and cannot know that kernel's name, nor its time (the GPU tracks hold the "
             "Triton kernels and the copies only)")


def _us(seconds) -> str:
    return "-" if seconds is None else f"{seconds * 1e6:,.1f}"


def _dtype(name: str) -> str:
    short = {"float32": "f32", "float16": "f16", "bfloat16": "bf16", "float64": "f64", "int64": "i64",
             "int32": "i32", "int16": "i16", "int8": "i8", "uint8": "u8", "bool": "bool"}
    return short.get(name, name)


def inputs(entries: list[dict]) -> str:
    """An op's inputs, short: f32[64,32], f32[32,16], 1."""
    def one(entry):
        if "list" in entry:
            return "[" + ", ".join(one(e) for e in entry["list"]) + "]"
        if "shape" in entry:
            text = f"{_dtype(entry['dtype'])}[{','.join(str(s) for s in entry['shape'])}]"
            return text + (" (cpu)" if entry.get("on") == "cpu" else "")
        return entry["value"]
    return ", ".join((f"{e['name']}=" if "name" in e else "") + one(e) for e in entries)


def _plural(n: int, noun: str) -> str:
    if n == 1:
        return f"{n} {noun}"
    if noun.endswith("y"):
        return f"{n} {noun[:-1]}ies"
    return f"{n} {noun}es" if noun.endswith(("ch", "sh", "s", "x")) else f"{n} {noun}s"


def lines(trace: dict) -> list[str]:
    out = []
    if "ops" in trace:
        out += dispatch_trace(trace) + op_table(trace)
    return out + sync_points(trace) + copies(trace)


def _in_order(trace: dict) -> list[tuple[str, dict]]:
    """Ops, copies, sync points (but a blocking copy's own wait, which its copy's row says) and launches, in the
    order the host issued them."""
    records = [("op", r) for r in trace.get("ops", [])] + [("copy", r) for r in trace.get("copies", [])] + \
        [("sync", r) for r in trace.get("syncs", []) if r.get("copy") is None]
    records.sort(key=lambda kr: (kr[1]["after_launch"], kr[1]["seq"]))
    launches, out, next_launch = trace["launches"], [], 0
    for kind, record in records:
        while next_launch < min(record["after_launch"], len(launches)):
            out.append(("launch", launches[next_launch]))
            next_launch += 1
        out.append((kind, record))
    return out + [("launch", launch) for launch in launches[next_launch:]]


def _row(kind: str, r: dict, waits: dict) -> list[str]:
    if kind == "launch":
        grid = "x".join(str(g) for g in (r["grid"][:1] if r["grid"][1:] == [1, 1] else r["grid"]))
        gpu = ("not modelled" if r.get("modelled_seconds") is None else
               f"runs {_us(r['modelled_seconds'])} us from {_us(r['gpu_start'])} us (modelled)")
        return [_us(r["host_start"]), f"{r['kernel']} (Triton)", r["site"], str(r.get("stream", 0)), f"grid {grid}",
                gpu]
    if kind == "op":
        return [_us(r["host_time"]), r["op"], r["site"], str(r["stream"]), inputs(r["inputs"]), r["gpu_kernel"]]
    if kind == "copy":
        wait = waits.get(r["seq"])
        host = "the host goes on" if not r["blocks_host"] else f"the host waits {_us(wait)} us"
        gpu = f"copy engine: {_us(r['modelled_seconds'])} us from {_us(r['gpu_start'])} us (modelled); {host}"
        return [_us(r["host_time"]), f"copy {r['direction']}", r["site"], str(r["stream"]),
                f"{binary(r['bytes'])}, {r['host_memory']}", gpu]
    stream = "all" if r["stream"] is None else str(r["stream"])
    return [_us(r["host_time"]), r["what"], r["site"], stream, "", f"the host waits {_us(r['wait_seconds'])} us "
                                                                  f"(modelled)"]


def dispatch_trace(trace: dict) -> list[str]:
    ordered = _in_order(trace)
    kinds = [k for k, _ in ordered]
    copies_by_index = trace.get("copies", [])
    waits = {copies_by_index[s["copy"]]["seq"]: s["wait_seconds"] for s in trace.get("syncs", [])
             if s.get("copy") is not None}
    counted = sum(trace.get("op_counts", {}).values())
    head = (f"dispatch trace: {_plural(counted, 'ATen op')} on GPU tensors, "
            f"{_plural(kinds.count('launch'), 'Triton launch')}, {_plural(len(copies_by_index), 'copy')}, "
            f"{_plural(len(trace.get('syncs', [])), 'sync point')}, in the order the host issued them; host us: the "
            f"script's time here (each ATen op's own computation on the CPU left out: a GPU would do it), with the "
            f"modelled waits; GPU times modelled")
    rows = [[str(i + 1), *_row(kind, r, waits)] for i, (kind, r) in enumerate(ordered[:TRACE_ROWS])]
    out = ["", head, NOT_KNOWN, ""] + table(["#", "host us", "issued", "at", "stream", "inputs", "on the GPU"], rows,
                                             align="rrlllll")
    if len(ordered) > TRACE_ROWS:
        out.append(f"... and {len(ordered) - TRACE_ROWS} more rows (all of them in --json and --trace)")
    if trace.get("ops_left_out"):
        out.append(f"{trace['ops_left_out']:,} more ATen ops were counted, not kept one by one (the trace keeps the "
                   f"first {counted - trace['ops_left_out']:,})")
    return out


def op_table(trace: dict) -> list[str]:
    """Each ATen op once: how many calls, where first, its first inputs, what a CUDA build would run."""
    counts = trace.get("op_counts", {})
    if not counts:
        return []
    first: dict[str, dict] = {}
    for r in trace["ops"]:
        first.setdefault(r["op"], r)
    ranked = sorted(counts, key=lambda op: -counts[op])
    rows = [[op, f"{counts[op]:,}", first[op]["site"] if op in first else "-",
             inputs(first[op]["inputs"]) if op in first else "-", first[op]["gpu_kernel"] if op in first else "-"]
            for op in ranked[:OP_ROWS]]
    out = [""] + table(["ATen op", "calls", "first at", "inputs (first call)", "on a real GPU"], rows, align="lrlll")
    if len(ranked) > OP_ROWS:
        out.append(f"... and {len(ranked) - OP_ROWS} more ops (op_counts in --json)")
    return out


def sync_points(trace: dict) -> list[str]:
    syncs = trace.get("syncs", [])
    if not syncs:
        return []
    total = sum(s["wait_seconds"] for s in syncs)
    rows = [[str(i + 1), s["site"], s["what"], "all" if s["stream"] is None else str(s["stream"]),
             _us(s["host_time"]), _us(s["wait_seconds"])] for i, s in enumerate(syncs[:SYNC_ROWS])]
    out = ["", f"the host waited for the GPU at {_plural(len(syncs), 'sync point')}, {_us(total)} us in all "
               f"(modelled: until the Triton kernels and copies queued before it have ended; the host queued them "
               f"without waiting, and ATen ops' own kernels are not modelled)", ""]
    out += table(["#", "at", "waits for", "stream", "host at us", "waits us (modelled)"], rows, align="rlllrr")
    if len(syncs) > SYNC_ROWS:
        out.append(f"... and {len(syncs) - SYNC_ROWS} more (all of them in --json and --trace)")
    return out


def copies(trace: dict) -> list[str]:
    copied = trace.get("copies", [])
    if not copied:
        return []
    moved = sum(c["bytes"] for c in copied)
    rows = [[str(i + 1), c["site"], c["call"], c["direction"], binary(c["bytes"]), c["host_memory"],
             "waits" if c["blocks_host"] else "goes on", str(c["stream"]), _us(c["gpu_start"]),
             _us(c["modelled_seconds"])] for i, c in enumerate(copied[:COPY_ROWS])]
    out = ["", f"{_plural(len(copied), 'copy')} between host and GPU, {binary(moved)}; "
               f"{trace['host_link']['basis']}", ""]
    out += table(["#", "at", "call", "direction", "bytes", "host memory", "host", "stream", "starts at us",
                  "lasts us (modelled)"], rows, align="rlllrlllrr")
    if len(copied) > COPY_ROWS:
        out.append(f"... and {len(copied) - COPY_ROWS} more (all of them in --json and --trace)")
    return out
