"""A sweep as text, `lines(sweep)`: one table per target, then the counts; and as CSV, `csv(sweep)`."""
from __future__ import annotations

import io
from csv import writer as csv_writer

from ..model import ranking
from ..text import config_head, table, varying
from ..units import count, kib, pct
from .triage import Sweep


def _fixed(s: Sweep, target: str) -> dict:
    """What every compiled config of this target shares and the table does not show (defaults included)."""
    shown = set(varying(s.configs))
    resolved = [{**r["meta"], "num_warps": r["num_warps"], "num_stages": r["num_stages"]}
                for r in s.by_target(target) if r["status"] == "ok"]
    if not resolved:
        return {}
    return {k: v for k, v in resolved[0].items()
            if k not in shown and all(other.get(k) == v for other in resolved)}


def table_rows(s: Sweep, target: str) -> tuple[list[str], list[list[str]]]:
    keys = varying(s.configs)
    head = [config_head(k) for k in keys] + ["regs", "spills", "smem", "blocks/SM", "occupancy", "limiter",
                                        "modelled", "band", "bound", "rank", "notes"]
    body = []
    for r in s.by_target(target):
        cells = [str(r["config"].get(k, "")) for k in keys]
        if r["status"] != "ok":
            body.append(cells + ["-"] * 10 + [f"FAILED: {r['error']}"])
            continue
        # what the binary was built with: a kernel's @triton.heuristics may set a value over the one asked for
        built = {k: r[k] if k in ("num_warps", "num_stages") else r["meta"].get(k, r["config"].get(k)) for k in keys}
        overridden = [f"{k}={built[k]} (asked {r['config'][k]})" for k in keys
                      if k in r["config"] and built[k] != r["config"][k]]
        cells = [str(built[k]) for k in keys]
        spill = r["spill_store_bytes"] + r["spill_load_bytes"]
        occ = r.get("occupancy")
        notes = [f"the kernel's heuristics set {', '.join(overridden)}"] if overridden else []
        if r.get("launchable") is False:
            notes.append(f"CANNOT LAUNCH: {r.get('reason')}")
        if spill:
            notes.append(f"SPILLS {r['spill_store_bytes']} B stored, {r['spill_load_bytes']} B loaded")
        if r.get("reread_from") not in (None, "", "L1 100%"):   # what L1 serves again is no cost worth a note
            notes.append(f"re-reads: {r['reread_from']}")
        notes += [f"WARNING: {w}" for w in r.get("warnings") or []]
        body.append(cells + [
            str(r["registers"]), kib(spill) if spill else "0", kib(r["shared_bytes"]),
            "-" if r.get("active_blocks_per_sm") is None else str(r["active_blocks_per_sm"]),
            "-" if occ is None else pct(occ),
            ",".join(r.get("limiter") or []) or "-",
            _time(r.get("modelled_seconds")),
            _band(r),
            r.get("bound") or "-",
            "-" if r.get("rank") is None else f"{r['rank']}{' tie' if r.get('tie') else ''}",
            "; ".join(notes)])
    return head, body


def _band(r: dict) -> str:
    low, high = r.get("modelled_low"), r.get("modelled_high")
    if low is None or high is None:
        return "-"
    return f"{_time(low).split()[0]}-{_time(high)}"


def _time(seconds) -> str:
    if seconds is None:
        return "-"
    return f"{seconds * 1e6:.1f} us" if seconds < 1e-3 else f"{seconds * 1e3:.3f} ms"


def lines(s: Sweep) -> list[str]:
    shape = ", ".join(f"{k}={v}" for k, v in s.shape.items()) or "the launch's own arguments"   # --args: no dims
    out = []
    for target in s.targets:
        fixed = _fixed(s, target)
        out.append(f"{s.kernel} on {target}: {count(len(s.configs), 'configs')}, shape {shape}, "
                   f"dtype {s.dtype}"
                   + (f"; all with {', '.join(f'{k}={v}' for k, v in fixed.items())}" if fixed else ""))
        head, body = table_rows(s, target)
        out += table(list(head), [list(b) for b in body], "r" * (len(head) - 1))   # the flags column reads left
        out.append("")
    rows = s.rows
    blocked = sum("cannot launch" in r["flags"] for r in rows)
    spills = sum("spills" in r["flags"] for r in rows)
    workers = f" in {s.workers} worker process{'es' if s.workers != 1 else ''}" if s.workers else ""
    if s.workers and s.backend != "local pool":
        workers = f" on {s.backend}, {s.workers} at once"
    failed = f"{s.failed} failed" + (f" ({s.rejected} rejected before compiling)" if s.rejected else "")
    out.append(f"{count(len(rows), 'compiles')} ({count(len(s.configs), 'configs')} x {count(len(s.targets), 'targets')}): {s.cached} from the "
               f"cache, {s.compiled} compiled{workers}, {failed}; {blocked} cannot launch, {spills} spill; "
               f"{s.seconds:.1f} s")
    out += _stage_line(s)
    if any(r.get("modelled_seconds") is not None for r in rows):
        out.append("modelled: the performance model's typical time, its band (optimistic to pessimistic constants) "
                   "and the resource that bounds it, from each binary and the device table; not a measurement "
                   "(`playground bench` on a GPU measures). rank: by modelled time among the configs that compile "
                   "and launch (rows stay in the space's order); \"tie\": the model cannot order it against "
                   f"the fastest config of that rank (within {ranking.RESOLUTION:.0%}, or their order flips inside the "
                   "band), so it shares the rank. How these ranks compare with the order a GPU ran an autotuner's "
                   "configs in: benchmarks/data/README.md (\"config order\"). Time the leading configs on a GPU "
                   "before choosing")
    return out


# What runs in each of Triton's stages (its backends' compiler.py): LLVM for llir and ptx/amdgcn, ptxas for cubin
_TOOL = {"llir": "MLIR + LLVM opt", "ptx": "LLVM codegen", "cubin": "ptxas", "amdgcn": "LLVM codegen",
         "hsaco": "ld.lld", "source": "frontend", "ttir": "MLIR", "ttgir": "MLIR", "store": "cache writes"}


def _stage_line(s: Sweep) -> list[str]:
    totals, configs = s.stage_seconds()
    if not configs:
        return []
    total = sum(totals.values()) or 1.0
    parts = ", ".join(f"{stage} ({_TOOL.get(stage, stage)}) {seconds:.2f} s {seconds / total:.0%}"
                      for stage, seconds in totals.items())
    return [f"compile time by stage, summed over the {count(configs, 'configs')} compiled in this run (wall times "
            f"measured on this machine, Triton's CompileTimes; cache hits compile nothing): {parts}"]


CSV_FIELDS = ("target", "config", "status", "error", "registers", "spill_store_bytes", "spill_load_bytes",
              "shared_bytes", "active_blocks_per_sm", "occupancy", "limiter", "launchable", "reason",
              "modelled_seconds", "modelled_low", "modelled_high", "bound", "reread_from", "rank", "tie", "flags",
              "hash")


def csv(s: Sweep) -> str:
    keys = list(dict.fromkeys(k for c in s.configs for k in c))
    buf = io.StringIO()
    writer = csv_writer(buf, lineterminator="\n")
    writer.writerow(["target", *keys, *CSV_FIELDS[2:]])
    for r in s.rows:
        values = []
        for f in CSV_FIELDS[2:]:
            v = r.get(f)
            values.append(";".join(v) if isinstance(v, list) else "" if v is None else v)
        writer.writerow([r["target"], *(r["config"].get(k, "") for k in keys), *values])
    return buf.getvalue()
