"""Triage an autotune space offline: compile every config for every target, and say which to try.

Each config is compiled through the usual pipeline (so a row's figures are those of a single
`compile` of that config; rows.py), and read for registers, spills and shared memory (from the
artefact), occupancy and whether it can launch at all (figures/occupancy.py), and the modelled
time at a problem shape (model/explain.py: its band, what bounds it, and ties). Before starting any worker, the parent looks each
config up in the cache: a rerun of a sweep never spawns a process; the rest go to pool.py.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..artefact.compile_warnings import shape_warnings
from ..core import devices, params, registry
from ..errors import UserError
from .rows import failure, figures_key, modelled, one_line, row, stored_figures
from .space import request_for, space


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
    backend: str = "local pool"   # where the compiles ran: the local pool, or "ray (ADDRESS)"

    def by_target(self, target: str) -> list[dict]:
        return [r for r in self.rows if r["target"] == target]

    def stage_seconds(self) -> tuple[dict, int]:
        """Triton's compile time by stage, summed over the configs compiled in this run (a cache hit compiles
        nothing), and how many configs that is: where an autotune space's compile time goes."""
        totals: dict[str, float] = {}
        timed = [r for r in self.rows if r.get("stage_seconds")]
        for r in timed:
            for stage, seconds in r["stage_seconds"].items():
                totals[stage] = totals.get(stage, 0.0) + seconds
        return totals, len(timed)

    def as_dict(self) -> dict:
        return {"kernel": self.kernel, "shape": self.shape, "dtype": self.dtype, "targets": self.targets,
                "configs": self.configs, "rows": self.rows, "seconds": round(self.seconds, 3),
                "compiled": self.compiled, "from_cache": self.cached, "failed": self.failed,
                "rejected": self.rejected, "workers": self.workers, "warnings": self.warnings,
                "backend": self.backend,
                "compile_stage_seconds": {k: round(v, 4) for k, v in self.stage_seconds()[0].items()}}

    @property
    def exit_code(self) -> int:
        """0 when any config compiled; 2 when every config was invalid input; 1 when they all failed."""
        if any(r["status"] == "ok" for r in self.rows):
            return 0
        return 2 if self.rejected == len(self.rows) else 1


def run(spec, targets: list, ranges: dict | None = None, shape: dict | None = None,
        dtype: str | None = None, jobs: int | None = None, num_sms: int | None = None,
        on_row=None, timeout: float | None = None, ray: str | None = None) -> Sweep:
    """Compile the space of a KernelSpec for every Target; one row per (target, config), in a stable order.

    Each (target, config) is one Request (`request_for`); a config the spec rejects is a row too.
    `timeout`: seconds one config may compile before it is stopped and reported as failed.
    `on_row(done, total, row)` is called once with (0, total, None), then as each row is ready
    (for a progress bar).
    `ray`: a Ray address (`local`, `auto`, `ray://host:10001`): the cache misses compile as Ray tasks
    (ray_pool.py) instead of in the local pool; without `jobs`, a cluster runs as many at once as it has CPUs.
    """
    start = time.perf_counter()
    tgts = list(targets)
    if not tgts or len({t.label for t in tgts}) != len(tgts):   # targets.resolve_all says which
        raise UserError("target: name each target once, and at least one", param="target")
    registry.check_one_gpu(spec, [t.label for t in tgts])
    if num_sms is not None:   # a bad --num-sms is the user's error, not every row's
        for t in tgts:
            devices.with_num_sms(devices.get(t), num_sms)
    cluster = ray is not None and ray != "local"
    if ray is not None:
        from . import ray_pool
        ray_pool.check(ray)      # not installed: say so before compiling anything
    jobs_given = jobs is not None
    jobs = jobs if jobs_given else _cpus()
    if jobs < 1:
        raise UserError(f"jobs {jobs}: must be at least 1", param="jobs")
    if timeout is not None and timeout <= 0:
        raise UserError(f"timeout {timeout:g}: must be a positive number of seconds", param="timeout")
    shape = params.check_shape(spec, shape or {})
    dtype = params.check_dtype(spec, dtype)
    # an autotuner's pruning may depend on the device its args see: each target's space is its own
    pairs = [(t, cfg) for t in tgts for cfg in space(spec, ranges, shape, dtype, t)]
    tasks = [{"index": i, "target": t, "config": cfg} for i, (t, cfg) in enumerate(pairs)]
    configs = []                 # every config any target compiles, in order
    for _, cfg in pairs:
        if cfg not in configs:
            configs.append(cfg)
    rows: list[dict | None] = [None] * len(tasks)
    origins: list[str] = [""] * len(tasks)
    done = 0
    if on_row:
        on_row(0, len(tasks), None)

    def finish(task, result, origin="compiled"):
        nonlocal done
        if origin == "compiled" and result.get("cache_hit"):     # a worker found it in Triton's cache
            origin = "cache"
        rows[task["index"]] = {"target": task["target"].label, "config": task["config"], **result}
        origins[task["index"]] = origin if result["status"] == "ok" or origin == "rejected" else "failed"
        done += 1
        if on_row:
            on_row(done, len(tasks), rows[task["index"]])

    # The parent answers what the cache holds (and what is not a valid config) without a worker.
    misses, requests = [], {}
    for task in tasks:
        try:
            request = request_for(spec, task["target"], task["config"], shape, dtype)
        except UserError as e:
            finish(task, failure(str(e)), "rejected")
            continue
        kernel_hash = request.cached_hash()
        if kernel_hash:
            stored = stored_figures(figures_key(request, kernel_hash, task["config"], num_sms))
            if stored is not None:
                result = stored | {"cache_hit": True, "compile_seconds": 0.0, "stage_seconds": {}}
            else:
                try:
                    result = row(request, task["config"], num_sms)
                except Exception as e:
                    result = failure(one_line(e))
            finish(task, result, "cache")
        else:
            misses.append({**task, "request": request.ref(), "num_sms": num_sms})
            requests[task["index"]] = request

    workers = min(jobs if jobs_given or not cluster else len(misses), len(misses))
    if misses and ray is not None:
        from .ray_pool import in_ray
        workers = in_ray(misses, workers, finish, timeout, ray)
    elif misses:
        from .pool import in_workers  # the process pool's imports, only when something must compile

        def finish_modelled(done: list[tuple[dict, dict]]) -> None:
            # The workers stop before the model; here it reads the binaries that arrived together in one go.
            unmodelled = [(requests[task["index"]], task["config"], result) for task, result in done]
            for (task, _), result in zip(done, modelled(unmodelled, num_sms)):
                finish(task, result)

        in_workers([{**task, "model": False} for task in misses], workers, finish_modelled, timeout,
                   gather=GATHER_SECONDS)
    result = Sweep(kernel=spec.name, shape=shape, dtype=dtype, targets=[t.label for t in tgts], configs=configs,
                   rows=rows, seconds=time.perf_counter() - start, compiled=origins.count("compiled"),
                   cached=origins.count("cache"), failed=origins.count("failed") + origins.count("rejected"),
                   rejected=origins.count("rejected"), workers=workers, warnings=shape_warnings(spec, shape, dtype),
                   backend="local pool" if ray is None else f"ray ({ray})")
    rank(result.rows)
    return result


# How long a compiled row may wait for others before the parent models them together: nvdisasm spends about
# 0.3 s starting, whatever it reads (artefact/disasm.keep_counted), so rows read in one run share that start.
GATHER_SECONDS = 1.5


def rank(rows: list[dict]) -> None:
    """Per target, rank the configs that compile and can launch by modelled time (1 = fastest).

    The model cannot order two configs whose difference lies inside its band (model.ranking.same_time):
    a config that ties with the first of the group above it shares that rank, and is marked `tie`.
    Rows with no modelled time, that failed or cannot launch get no rank.
    """
    from ..model import ranking
    for target in dict.fromkeys(r["target"] for r in rows):
        timed = [r for r in rows if r["target"] == target and r["status"] == "ok"
                 and r.get("launchable") is not False and r.get("modelled_seconds") is not None]
        for r, place, tie in ranking.ranked(timed, lambda r: r):     # a row carries its times as same_time reads them
            r["tie"], r["rank"] = tie, place
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


def _cpus() -> int:
    """The CPUs this process may run on (a container's share, not the host's count)."""
    import os
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:      # not on Linux
        return os.cpu_count() or 1
