"""What does `sweep --ray` cost on one machine? The local pool and a local Ray instance, side by side in one run.

Cold: the 16 configs of gemm's autotune space for sm_90, each side with an empty Triton cache of
its own (a fresh TRITON_CACHE_DIR), so every config really compiles:
  local   `triage.run(..., jobs=2)`: the pebble pool, two spawned workers
  ray     `triage.run(..., jobs=2, ray="local")`: a Ray instance started in the process with 2 CPUs,
          each config a Ray task running the pool's own work
Each side is a whole Python process; inside it the sweep is timed, and on the Ray side `ray.init` and
`ray.shutdown` are timed apart (Ray's startup: its GCS, raylet and agents), so that the sweep "once
started" is the sweep less those two.
Goal (on 2 otherwise idle cores): Ray once started at most 1.5x the local pool. Ray pays its startup and
its scheduler for nothing on one machine; it pays off only across machines (`--ray auto` or an
address), where the cores are many more than the local pool's.

Run: python benchmarks/sweep_ray.py   (needs `pip install -e '.[ray]'`; REPEAT=n for more alternating pairs)
"""
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
REPEAT = int(os.environ.get("REPEAT", "1"))
KERNEL, TARGET = "gemm", "sm_90"

CHILD = r'''
import json, sys, time
sys.path.insert(0, {root!r})
from playground.core import registry, targets
from playground.sweep import triage
mode = {mode!r}
spent = {{"init": 0.0, "shutdown": 0.0}}
if mode == "ray":
    import ray
    def timed(name, fn):
        def call(*args, **kwargs):
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[name] += time.perf_counter() - start
        return call
    ray.init, ray.shutdown = timed("init", ray.init), timed("shutdown", ray.shutdown)
spec, tgt = registry.load({kernel!r}), targets.resolve({target!r})
start = time.perf_counter()
result = triage.run(spec, [tgt], jobs=2, ray="local" if mode == "ray" else None)
sweep = time.perf_counter() - start
assert all(r["status"] == "ok" for r in result.rows), [r.get("error") for r in result.rows]
assert not any(r["cache_hit"] for r in result.rows), "cold: every config compiles, in the fresh cache"
print(json.dumps({{"sweep": sweep, "started": sweep - spent["init"] - spent["shutdown"], **spent,
                  "compiled": result.compiled, "rows": [{{k: v for k, v in r.items()
                                                          if k not in ("cache_hit", "compile_seconds")}}
                                                         for r in result.rows]}}))
'''


def child(mode: str, cache_dir: str) -> dict:
    code = CHILD.format(root=str(ROOT), mode=mode, kernel=KERNEL, target=TARGET)
    env = {**os.environ, "TRITON_CACHE_DIR": cache_dir}
    start = time.perf_counter()
    done = subprocess.run([PY, "-c", code], check=True, capture_output=True, text=True, env=env, cwd=ROOT)
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "wall": time.perf_counter() - start}


def main():
    try:
        import ray
    except ImportError:
        sys.exit("needs Ray: pip install -e '.[ray]'")
    print(f"gemm autotune space on {TARGET}, {os.cpu_count()} CPUs, Ray {ray.__version__}; "
          "each side in a fresh TRITON_CACHE_DIR")
    local, on_ray = [], []
    with tempfile.TemporaryDirectory() as scratch:
        for i in range(REPEAT):
            # Alternate which side goes first, so that a busy machine slows both alike.
            sides = ("local", "ray") if i % 2 == 0 else ("ray", "local")
            runs = {side: child(side, f"{scratch}/{side}{i}") for side in sides}
            pool, r = runs["local"], runs["ray"]
            assert pool["compiled"] == r["compiled"] == 16, (pool["compiled"], r["compiled"])
            assert pool["rows"] == r["rows"], "Ray's rows must be the local pool's"
            local.append(pool)
            on_ray.append(r)
            print(f"  run {i + 1}: local pool {pool['sweep']:.2f} s ({pool['wall']:.2f} s as a process); "
                  f"ray {r['sweep']:.2f} s ({r['wall']:.2f} s as a process) = ray.init {r['init']:.2f} s "
                  f"+ sweep {r['started']:.2f} s + ray.shutdown {r['shutdown']:.2f} s")
    best_local = min(x["sweep"] for x in local)
    best_ray = min(on_ray, key=lambda x: x["started"])
    ratio = best_ray["started"] / best_local
    print(f"cold  local pool {best_local:.2f} s, ray once started {best_ray['started']:.2f} s: ratio {ratio:.2f} "
          f"(goal <= 1.5) {'OK' if ratio <= 1.5 else 'MISSED'}")
    startup = min(x["init"] + x["shutdown"] for x in on_ray)
    total = min(x["sweep"] for x in on_ray)
    print(f"ray   startup and shutdown {startup:.2f} s on top (ray.init + ray.shutdown); whole ray sweep "
          f"{total:.2f} s = {total / best_local:.2f}x the local pool. On one machine the local pool is "
          "the cheaper; Ray pays off only across machines.")


if __name__ == "__main__":
    main()
