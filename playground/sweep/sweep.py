"""Triage an autotune space offline: compile every config for every target, and say which to try.

Each config is compiled through the usual pipeline (so a row's figures are those of a single
`compile` of that config), and read for registers, spills and shared memory (from the
artefact), occupancy and whether it can launch at all (`playground.figures.occupancy`), and the
modelled time at a problem shape (`playground.figures.roofline`).

Compiles run in a pebble process pool (spawned workers: a clean interpreter, no forked Triton
state). Triton's on-disk cache is shared between them; it writes every file to a temporary name
and renames it into place, so two processes compiling the same kernel at once both end with a
whole entry. Before starting any worker, the parent looks each config up in the cache: a rerun
of a sweep never spawns a process. A config whose compile raises, that kills its worker, or that
runs past --timeout is that config's failure alone; pebble replaces the worker.
"""
from __future__ import annotations

import contextlib
import csv
import functools
import io
import itertools
import os
import time
from concurrent.futures import FIRST_COMPLETED, wait
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import KernelFailure, UserError
from ..report.report import table

LAUNCH_KEYS = ("num_warps", "num_stages")


# ---- the space ----

def parse_ranges(items: list[str] | tuple[str, ...] | str | None) -> dict[str, list]:
    """`["BLOCK_SIZE_M=64,128", "num_warps=4,8"]` -> {name: [values]}.

    Each item is NAME=V1,V2,... ; several may share one string, separated by spaces or ';'.
    `A..B` doubles from A up to B (params.doubling): `BLOCK_SIZE_K=32..128` is 32, 64, 128.
    """
    from ..core import params
    if isinstance(items, str):
        items = [items]
    ranges: dict[str, list] = {}
    for item in items or ():
        for part in item.replace(";", " ").split():
            name, eq, values = part.partition("=")
            if not eq or not name or not values.strip(","):
                raise UserError(f"--meta '{part}': expected NAME=V1,V2,..., as in --meta BLOCK_SIZE_M=64,128")
            listed = []
            for value in filter(None, values.split(",")):
                if ".." in value:
                    listed += params.doubling(value, f"--meta {name}")
                else:
                    listed.append(params.parse_assignments(f"{name}={value}", "--meta")[name])
            if name in ranges and ranges[name] != listed:
                raise UserError(f"--meta {name}: given twice, as {ranges[name]} and {listed}; say it once")
            ranges[name] = listed
    return ranges


def space(spec, ranges: dict[str, list] | None = None) -> list[dict]:
    """The configs to compile: the product of `ranges` over the spec's defaults, else spec.configs.

    A kernel with neither gets its one default config.
    """
    if ranges:
        known = [p.name for p in spec.kernel.params if p.is_constexpr]
        for name in ranges:
            if name not in known and name not in LAUNCH_KEYS:
                raise UserError(f"--meta {name}: not a meta-parameter of {spec.name} ({', '.join(known)}) "
                                f"nor num_warps / num_stages")
        names = list(ranges)
        return [dict(zip(names, values)) for values in itertools.product(*ranges.values())]
    if spec.configs:
        return [dict(c) for c in spec.configs]
    return [{}]


def split(config: dict) -> tuple[dict, int | None, int | None]:
    """A config dict -> (meta, num_warps, num_stages)."""
    meta = {k: v for k, v in config.items() if k not in LAUNCH_KEYS}
    return meta, config.get("num_warps"), config.get("num_stages")


# ---- one row: the same function in the parent (cache hits) and in the workers ----

def row(request, config: dict, num_sms: int | None = None) -> dict:
    """Compile one config's Request and read its figures. Raises on failure.

    `config` is the row's label (the swept names and values). The figures are kept in Triton's
    cache beside the kernel (`_stored_figures`), so a rerun of the sweep reads each row back
    instead of reading the binary again.
    """
    warned: list[str] = []
    c = request.compile(warn=warned.append)
    result = figures(c, num_sms) | {"warnings": warned}
    _store_figures(_figures_key(request, c.hash, config, num_sms), result)
    return result


def request_for(spec, target, config: dict, shape: dict | None = None, dtype: str | None = None):
    """The Request one config of the space compiles (UserError for a config that is not valid input)."""
    from ..core.request import Request
    meta, warps, stages = split(config)
    return Request.of(spec, target, meta or None, warps, stages, shape or None, dtype)


# ---- derived figures, kept: a row is a pure function of these inputs ----

FIGURES_FILE = "playground-sweep-row.json"


def _figures_key(request, kernel_hash: str, config: dict, num_sms) -> str:
    """Everything a row's figures depend on: the binary, the config and problem, the GPU's SM count,
    the spec's file (grid, FLOP and byte counts) and the playground code that reads the binary."""
    import hashlib
    cfg = request.config
    parts = ["sweep-row", kernel_hash, repr(sorted(config.items())), repr(sorted(cfg.shape.items())), cfg.dtype,
             repr(num_sms), _digest_file(request.spec.source_path), _code_fingerprint()]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def _digest_file(path: str) -> str:
    import hashlib
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return "no file"


@functools.lru_cache(maxsize=1)
def _code_fingerprint() -> str:
    """The playground library's own source: changing how a figure is read invalidates every kept row."""
    import hashlib
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).resolve().parents[1].rglob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _stored_figures(key: str) -> dict | None:
    import json

    from triton.runtime.cache import get_cache_manager
    path = get_cache_manager(key).get_file(FIGURES_FILE)
    if path is None:
        return None
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None


def _store_figures(key: str, result: dict) -> None:
    import json

    from triton.runtime.cache import get_cache_manager
    get_cache_manager(key).put(json.dumps(result), FIGURES_FILE, binary=False)


def figures(c, num_sms: int | None = None) -> dict:
    r = c.resources
    out = {"status": "ok", "error": None, "registers": r.registers,
           "spill_store_bytes": r.spill_store_bytes, "spill_load_bytes": r.spill_load_bytes,
           "shared_bytes": r.shared_total, "num_warps": c.config.num_warps, "num_stages": c.config.num_stages,
           "meta": dict(c.config.meta), "hash": c.hash, "cache_hit": c.cache_hit,
           "compile_seconds": round(c.compile_seconds, 4)}
    out |= _occupancy(c, num_sms)
    # A kernel that cannot launch has no running time to model.
    out |= _model(c, num_sms) if out["launchable"] is not False else {"modelled_seconds": None, "bound": None}
    return out


def _occupancy(c, num_sms) -> dict:
    from ..figures import occupancy
    try:
        o = occupancy.of(c, num_sms=num_sms)
    except UserError as e:   # a GPU with no device table (an unlisted native one): figures stay, occupancy unknown
        return {"active_blocks_per_sm": None, "occupancy": None, "limiter": [], "launchable": None,
                "reason": str(e)}
    return {"active_blocks_per_sm": o.active_blocks_per_sm, "occupancy": o.occupancy,
            "limiter": list(o.limiter), "launchable": o.launchable, "reason": o.reason or None,
            "grid": o.grid, "waves": o.waves, "last_wave_ctas": o.last_wave_ctas}


def _model(c, num_sms) -> dict:
    """The roofline's time at the sweep's shape (wave quantisation included), or None when not modelled."""
    from ..core import devices
    from ..figures import roofline
    if c.spec.flops is None or c.spec.bytes is None:
        return {"modelled_seconds": None, "bound": None}     # the spec gives nothing to model
    try:
        device = devices.with_num_sms(devices.get(c.target.name), num_sms)
    except UserError:
        return {"modelled_seconds": None, "bound": None}     # no device table: nothing to model against
    m = roofline.model(c, device)
    return {"modelled_seconds": m.estimate.seconds, "bound": m.estimate.bound}


def _failure(error: str) -> dict:
    return {"status": "failed", "error": error}


# ---- workers ----

def _warm_worker() -> None:
    """In each worker, once: die with the parent, and import the compile path before the first config."""
    from ..lifecycle import die_with_parent
    die_with_parent()
    import triton.compiler  # noqa: F401

    from ..artefact import compiler, resources  # noqa: F401


def _work(task: dict) -> dict:
    """Runs in a worker: one config, its failure caught and returned as data."""
    try:
        from ..core.request import Request
        return row(Request.from_ref(task["request"]), task["config"], task["num_sms"])
    except KeyboardInterrupt:
        raise
    except BaseException as e:   # SystemExit from a user's file counts as that config's failure too
        return _failure(_one_line(e))


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return text if isinstance(e, (UserError, KernelFailure)) and text else f"{type(e).__name__}: {text}"


@contextlib.contextmanager
def _main_not_rerun():
    """Start workers without re-running the caller's script in each of them.

    A spawned child normally re-imports the parent's `__main__` file, which, in a script
    without an `if __name__ == "__main__":` guard, would start the sweep again. The workers
    need nothing from that script: while the pool lives (it starts replacement workers at any
    time), they see a `__main__` with no file.
    """
    import sys
    import types
    real = sys.modules["__main__"]
    if getattr(real, "__file__", None) is None:
        yield
        return
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        sys.modules["__main__"] = real


# ---- the sweep ----

@dataclass
class Sweep:
    kernel: str
    shape: dict
    dtype: str
    targets: list[str]
    configs: list[dict]
    rows: list[dict]
    seconds: float
    compiled: int = 0         # configs compiled in a worker, successfully
    cached: int = 0           # configs the parent read from the cache, without a worker
    failed: int = 0           # configs that failed: rejected before compiling, or failed compiling
    rejected: int = 0         # of those, configs that are not valid input (a num_warps of 3, say)
    workers: int = 0          # worker processes started
    warnings: list[str] = field(default_factory=list)   # about the problem itself, not one config

    def by_target(self, target: str) -> list[dict]:
        return [r for r in self.rows if r["target"] == target]

    def as_dict(self) -> dict:
        return {"kernel": self.kernel, "shape": self.shape, "dtype": self.dtype, "targets": self.targets,
                "configs": self.configs, "rows": self.rows, "seconds": round(self.seconds, 3),
                "compiled": self.compiled, "from_cache": self.cached, "failed": self.failed,
                "rejected": self.rejected, "workers": self.workers, "warnings": self.warnings}

    @property
    def exit_code(self) -> int:
        """0 when any config compiled; 2 when every config was invalid input; 1 when they all failed."""
        if any(r["status"] == "ok" for r in self.rows):
            return 0
        return 2 if self.rejected == len(self.rows) else 1


def run(spec, targets: list, ranges: dict | None = None, shape: dict | None = None,
        dtype: str | None = None, jobs: int | None = None, num_sms: int | None = None,
        on_row=None, timeout: float | None = None) -> Sweep:
    """Compile the space of a KernelSpec for every Target; one row per (target, config), in a stable order.

    Each (target, config) is one Request (`request_for`); a config the spec rejects is a row too.
    `timeout`: seconds one config may compile before it is stopped and reported as failed.
    `on_row(done, total, row)` is called once with (0, total, None), then as each row is ready
    (for a progress bar).
    """
    from ..core import params
    start = time.perf_counter()
    tgts = list(targets)
    if not tgts:
        raise UserError("--target: name at least one target")
    if len({t.name for t in tgts}) != len(tgts):
        raise UserError("--target: a target is named twice")
    if num_sms is not None:   # a bad --num-sms is the user's error, not every row's
        from ..core import devices
        for t in tgts:
            devices.with_num_sms(devices.get(t.name), num_sms)
    jobs = jobs if jobs is not None else _cpus()
    if jobs < 1:
        raise UserError(f"--jobs {jobs}: must be at least 1")
    if timeout is not None and timeout <= 0:
        raise UserError(f"--timeout {timeout:g}: must be a positive number of seconds")
    shape = params.check_shape(spec, shape or {})
    dtype = params.check_dtype(spec, dtype)
    configs = space(spec, ranges)
    tasks = [{"index": i, "target": t, "config": cfg} for i, (t, cfg) in enumerate(itertools.product(tgts, configs))]
    rows: list[dict | None] = [None] * len(tasks)
    origins: list[str] = [""] * len(tasks)
    done = 0
    if on_row:
        on_row(0, len(tasks), None)

    def finish(task, result, origin="compiled"):
        nonlocal done
        rows[task["index"]] = {"target": task["target"].name, "config": task["config"], **result}
        origins[task["index"]] = origin if result["status"] == "ok" or origin == "rejected" else "failed"
        done += 1
        if on_row:
            on_row(done, len(tasks), rows[task["index"]])

    # The parent answers what the cache holds (and what is not a valid config) without a worker.
    misses = []
    for task in tasks:
        try:
            request = request_for(spec, task["target"], task["config"], shape, dtype)
        except UserError as e:
            finish(task, _failure(str(e)), "rejected")
            continue
        kernel_hash = request.cached_hash()
        if kernel_hash:
            stored = _stored_figures(_figures_key(request, kernel_hash, task["config"], num_sms))
            if stored is not None:
                result = stored | {"cache_hit": True, "compile_seconds": 0.0}
            else:
                try:
                    result = row(request, task["config"], num_sms)
                except Exception as e:
                    result = _failure(_one_line(e))
            finish(task, result, "cache")
        else:
            misses.append({**task, "request": request.ref(), "num_sms": num_sms})

    workers = min(jobs, len(misses))
    if misses:
        _in_workers(misses, workers, finish, timeout)
    from ..artefact.compiler import shape_warnings
    result = Sweep(kernel=spec.name, shape=shape, dtype=dtype, targets=[t.name for t in tgts], configs=configs,
                   rows=rows, seconds=time.perf_counter() - start, compiled=origins.count("compiled"),
                   cached=origins.count("cache"), failed=origins.count("failed") + origins.count("rejected"),
                   rejected=origins.count("rejected"), workers=workers, warnings=shape_warnings(spec, shape, dtype))
    rank(result.rows)
    return result


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _cpus() -> int:
    """The CPUs this process may run on (a container's share, not the host's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:      # not on Linux
        return os.cpu_count() or 1


def _in_workers(tasks: list[dict], workers: int, finish, timeout: float | None = None) -> None:
    """Run tasks in a pebble process pool of `workers` spawned processes.

    pebble gives each task its own time limit and reports a worker that died as that task's
    failure (ProcessExpired), replacing the worker; so a crash or a hang fails one config and the
    others go on. If this is interrupted (Ctrl-C, SIGTERM), the pool is stopped, its workers killed.
    """
    import multiprocessing

    from pebble import ProcessExpired, ProcessPool
    with _main_not_rerun():
        pool = ProcessPool(max_workers=workers, initializer=_warm_worker,
                           context=multiprocessing.get_context("spawn"))
        try:
            futures = {pool.schedule(_work, args=(task,), timeout=timeout): task for task in tasks}
            pending = set(futures)
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in sorted(done, key=lambda f: futures[f]["index"]):
                    task = futures[future]
                    try:
                        result = future.result()
                    except FutureTimeout:
                        result = _timed_out(timeout)
                    except ProcessExpired as e:
                        result = _failure(f"the compiler process died ({_exit_reason(e.exitcode)}) compiling "
                                          f"this config")
                    except Exception as e:
                        result = _failure(_one_line(e))
                    finish(task, result)
            pool.close()
        except BaseException:
            pool.stop()        # kills the workers; then join returns at once
            raise
        finally:
            pool.join()


def _timed_out(timeout: float) -> dict:
    return _failure(f"still compiling after {timeout:g} s: stopped (--timeout)")


def _exit_reason(code: int | None) -> str:
    import signal
    if code is None:
        return "no exit code"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


def rank(rows: list[dict]) -> None:
    """Per target, rank the configs that compile and can launch by modelled time (1 = fastest).

    Equal times share a rank. Rows with no modelled time, that failed or cannot launch get no rank.
    """
    for target in dict.fromkeys(r["target"] for r in rows):
        ranked = sorted((r for r in rows if r["target"] == target and r["status"] == "ok"
                         and r.get("launchable") is not False and r.get("modelled_seconds") is not None),
                        key=lambda r: r["modelled_seconds"])
        previous, place = None, 0
        for i, r in enumerate(ranked, 1):
            if r["modelled_seconds"] != previous:
                place, previous = i, r["modelled_seconds"]
            r["rank"] = place
    for r in rows:
        r.setdefault("rank", None)
        r["flags"] = flags(r)


def flags(r: dict) -> list[str]:
    if r["status"] != "ok":
        return ["failed"]
    out = []
    if r.get("launchable") is False:
        out.append("cannot launch")
    if r.get("spill_store_bytes") or r.get("spill_load_bytes"):
        out.append("spills")
    return out


# ---- rendering ----

def varying(configs: list[dict]) -> list[str]:
    """The config keys that differ between configs (constant ones go in the title)."""
    keys = list(dict.fromkeys(k for c in configs for k in c))
    return [k for k in keys if len({repr(c.get(k)) for c in configs}) > 1] or keys


def _short(name: str) -> str:
    """BLOCK_SIZE_M -> BM, GROUP_SIZE_M -> GM, num_warps -> warps: table headers, not identifiers."""
    if name in LAUNCH_KEYS:
        return name.split("_")[1]
    parts = name.split("_")
    if len(parts) > 1 and parts[-1] and len(parts[-1]) <= 2:
        return parts[0][0] + parts[-1]
    return name


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
    from ..units import pct
    from ..units import kib
    keys = varying(s.configs)
    head = [_short(k) for k in keys] + ["regs", "spills", "smem", "blocks/SM", "occupancy", "limiter",
                                        "modelled", "rank", "notes"]
    body = []
    for r in s.by_target(target):
        cells = [str(r["config"].get(k, "")) for k in keys]
        if r["status"] != "ok":
            body.append(cells + ["-"] * 8 + [f"FAILED: {r['error']}"])
            continue
        spill = r["spill_store_bytes"] + r["spill_load_bytes"]
        occ = r.get("occupancy")
        notes = []
        if r.get("launchable") is False:
            notes.append(f"CANNOT LAUNCH: {r.get('reason')}")
        if spill:
            notes.append(f"SPILLS {r['spill_store_bytes']} B stored, {r['spill_load_bytes']} B loaded")
        notes += [f"WARNING: {w}" for w in r.get("warnings") or []]
        body.append(cells + [
            str(r["registers"]), kib(spill) if spill else "0", kib(r["shared_bytes"]),
            "-" if r.get("active_blocks_per_sm") is None else str(r["active_blocks_per_sm"]),
            "-" if occ is None else pct(occ),
            ",".join(r.get("limiter") or []) or "-",
            _time(r.get("modelled_seconds")),
            "-" if r.get("rank") is None else str(r["rank"]),
            "; ".join(notes)])
    return head, body


def _time(seconds) -> str:
    if seconds is None:
        return "-"
    return f"{seconds * 1e6:.1f} us" if seconds < 1e-3 else f"{seconds * 1e3:.3f} ms"


def format_text(s: Sweep) -> str:
    shape = ", ".join(f"{k}={v}" for k, v in s.shape.items())
    out = []
    for target in s.targets:
        fixed = _fixed(s, target)
        out.append(f"{s.kernel} on {target}: {len(s.configs)} configs, shape {shape}, dtype {s.dtype}"
                   + (f"; all with {', '.join(f'{k}={v}' for k, v in fixed.items())}" if fixed else ""))
        head, body = table_rows(s, target)
        out += table(list(head), [list(b) for b in body], "r" * (len(head) - 1))   # the flags column reads left
        out.append("")
    rows = s.rows
    blocked = sum("cannot launch" in r["flags"] for r in rows)
    spills = sum("spills" in r["flags"] for r in rows)
    workers = f" in {s.workers} worker process{'es' if s.workers != 1 else ''}" if s.workers else ""
    failed = f"{s.failed} failed" + (f" ({s.rejected} rejected before compiling)" if s.rejected else "")
    out.append(f"{len(rows)} compiles ({_count(len(s.configs), 'config')} x {_count(len(s.targets), 'target')}): {s.cached} from the "
               f"cache, {s.compiled} compiled{workers}, {failed}; {blocked} cannot launch, {spills} spill; "
               f"{s.seconds:.1f} s")
    if any(r.get("modelled_seconds") is not None for r in rows):
        out.append("modelled: a roofline estimate from the device table, not a measurement (`playground bench` "
                   "on a GPU measures); rank: by modelled time among the configs that compile and launch, "
                   "equal times sharing a rank")
    return "\n".join(out) + "\n"


CSV_FIELDS = ("target", "config", "status", "error", "registers", "spill_store_bytes", "spill_load_bytes",
              "shared_bytes", "active_blocks_per_sm", "occupancy", "limiter", "launchable", "reason",
              "modelled_seconds", "rank", "flags", "hash")


def as_csv(s: Sweep) -> str:
    keys = list(dict.fromkeys(k for c in s.configs for k in c))
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["target", *keys, *CSV_FIELDS[2:]])
    for r in s.rows:
        values = []
        for f in CSV_FIELDS[2:]:
            v = r.get(f)
            values.append(";".join(v) if isinstance(v, list) else "" if v is None else v)
        writer.writerow([r["target"], *(r["config"].get(k, "") for k in keys), *values])
    return buf.getvalue()
