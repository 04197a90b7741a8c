"""Is `playground sweep` worth its worker processes? Cold and cached, measured side by side in one run.

Cold: the 16 configs of gemm's autotune space for sm_90, each side with an empty Triton cache of
its own (a fresh TRITON_CACHE_DIR), so every config really compiles:
  serial   one process compiles and reads every config in turn (`rows.row` in a loop: the same
           work a sweep row does, with no worker processes at all)
  jobs=2   `triage.run(..., jobs=2)`: two spawned workers
Each side is a whole Python process, timed from outside, so both pay the interpreter and the
imports; the CPU seconds each used, and what other processes on the machine used meanwhile, are
printed beside it.
  raw      Triton alone, serially: the JIT's specialisation and `triton.compile` for each config,
           with none of the figures a row reads
Goals (on 2 or more otherwise idle cores): jobs=2 at most 0.6x serial, and at most 0.75x raw (issue 12:
a sweep row does only the work its figures need, so the workers' extra reading stays small).

Cached: the same sweep again, served from the cache (no worker starts). Goal: under 1 second,
both as the library call and as the whole `playground sweep` command; and the command at most 1.5x
`python -c "import triton, click, pygments"`, the imports any command pays (issue 12).

Run: python benchmarks/sweep_parallel.py   (REPEAT=n for more alternating cold pairs; default 1)
"""
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
REPEAT = int(os.environ.get("REPEAT", "1"))
# Children run as a user's Python does, with bytecode (PYTHONDONTWRITEBYTECODE dropped): with it set, every
# process would time the compile of the project's own sources, which the installed floor never pays.
USERS_PYTHON = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
KERNEL, TARGET = "gemm", "sm_90"

CHILD = r'''
import json, sys, time
sys.path.insert(0, {root!r})
start = time.perf_counter()
from playground.core import registry, targets
from playground.sweep import rows, space, triage
mode = {mode!r}
if mode == "raw":
    # Triton alone: the JIT's specialisation, then triton.compile, for each config in turn; no figures.
    import triton
    from triton.compiler import ASTSource
    from playground.artefact import binder
    spec, tgt = registry.load({kernel!r}), targets.resolve({target!r})
    done = []
    for cfg in space.space(spec):
        config = space.request_for(spec, tgt, cfg).config
        signature, constexprs, attrs, options, _ = binder.specialize(spec, tgt, config)
        done.append(triton.compile(ASTSource(spec.kernel, signature, constexprs, attrs), target=tgt.gpu_target(),
                                   options=options.__dict__))
    compiled = len(done)
elif mode == "serial":
    spec, tgt = registry.load({kernel!r}), targets.resolve({target!r})
    done = [rows.row(space.request_for(spec, tgt, cfg), cfg) for cfg in space.space(spec)]
    compiled = sum(not r["cache_hit"] for r in done)
else:
    result = triage.run(registry.load({kernel!r}), [targets.resolve({target!r})], jobs=int(mode))
    done, compiled = result.rows, result.compiled
    assert all(r["status"] == "ok" for r in done), [r.get("error") for r in done]
print(json.dumps({{"inside": time.perf_counter() - start, "rows": len(done), "compiled": compiled}}))
'''


def child(mode: str, cache_dir: str) -> dict:
    """Run one side as its own process: wall time, and the CPU time it and its workers used."""
    code = CHILD.format(root=str(ROOT), mode=mode, kernel=KERNEL, target=TARGET)
    env = {**USERS_PYTHON, "TRITON_CACHE_DIR": cache_dir}
    cpu0, busy0 = _children_cpu(), _machine_busy()
    start = time.perf_counter()
    done = subprocess.run([PY, "-c", code], check=True, capture_output=True, text=True, env=env, cwd=ROOT)
    wall = time.perf_counter() - start
    cpu = _children_cpu() - cpu0
    others = None if busy0 is None else max(_machine_busy() - busy0 - cpu, 0.0)
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "wall": wall, "cpu": cpu, "others": others}


def _machine_busy() -> float | None:
    """CPU seconds the whole machine has been busy (Linux /proc/stat), to see what others took meanwhile."""
    try:
        with open("/proc/stat") as f:
            ticks = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = ticks[3] + ticks[4]            # idle, iowait
    return (sum(ticks[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def _children_cpu() -> float:
    """User + system CPU seconds of finished child processes (and the workers they waited for)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _cpu(run: dict) -> str:
    text = f"{run['cpu']:.1f} CPU s"
    return text if run["others"] is None else f"{text}; other processes {run['others']:.1f} CPU s"


def main():
    print(f"gemm autotune space on {TARGET}, {os.cpu_count()} CPUs; cold runs each in a fresh TRITON_CACHE_DIR")
    serial, parallel, raw, busy = [], [], [], []
    with tempfile.TemporaryDirectory() as scratch:
        for i in range(REPEAT):
            # Alternate the sides so that a busy machine slows both alike.
            r = child("raw", f"{scratch}/raw{i}")
            s = child("serial", f"{scratch}/serial{i}")
            p = child("2", f"{scratch}/jobs2-{i}")
            assert s["compiled"] == s["rows"] == 16 and p["compiled"] == p["rows"] == 16 == r["rows"], (s, p, r)
            raw.append(r["wall"])
            serial.append(s["wall"])
            parallel.append(p["wall"])
            print(f"  cold, run {i + 1}: raw {r['wall']:.2f} s ({_cpu(r)}), serial {s['wall']:.2f} s ({_cpu(s)}), "
                  f"jobs=2 {p['wall']:.2f} s ({_cpu(p)})")
            busy.append(max(s["others"] or 0, p["others"] or 0, r["others"] or 0) / min(s["wall"], p["wall"]))
        ratio = min(parallel) / min(serial)
        print(f"cold  serial {min(serial):.2f} s, jobs=2 {min(parallel):.2f} s: ratio {ratio:.2f} "
              f"(goal <= 0.60) {'OK' if ratio <= 0.6 else 'MISSED'}")
        ratio = min(parallel) / min(raw)
        print(f"cold  raw triton.compile {min(raw):.2f} s, jobs=2 {min(parallel):.2f} s: ratio {ratio:.2f} "
              f"(goal <= 0.75, issue 12) {'OK' if ratio <= 0.75 else 'MISSED'}")
        if max(busy) > 0.25:
            print(f"  note: other processes kept up to {max(busy):.1f} cores busy during these runs; "
                  "a parallel run cannot beat serial on cores it does not get")

        warm_dir = f"{scratch}/jobs2-0"
        cached = child("2", warm_dir)
        assert cached["compiled"] == 0, cached
        env = {**USERS_PYTHON, "TRITON_CACHE_DIR": warm_dir, "NO_COLOR": "1"}
        commands, floors = [], []
        for _ in range(5):        # alternate the command and the import floor, and compare medians
            start = time.perf_counter()
            subprocess.run([PY, str(ROOT / "cli.py"), "sweep", KERNEL, "--target", TARGET, "--jobs", "2"],
                           check=True, stdout=subprocess.DEVNULL, env=env, cwd=ROOT)
            commands.append(time.perf_counter() - start)
            start = time.perf_counter()
            subprocess.run([PY, "-c", "import triton, click, pygments"], check=True, env=env)
            floors.append(time.perf_counter() - start)
        command, floor = sorted(commands)[2], sorted(floors)[2]
        print(f"cached  triage.run {cached['inside']:.2f} s in-process ({cached['wall']:.2f} s with the interpreter); "
              f"`playground sweep` {command:.2f} s (goal < 1 s) "
              f"{'OK' if max(cached['inside'], command) < 1 else 'MISSED'}")
        print(f"cached  `playground sweep` {command:.2f} s vs imports {floor:.2f} s: ratio {command / floor:.2f}x "
              f"(goal <= 1.5x, issue 12) {'OK' if command / floor <= 1.5 else 'MISSED'}")


if __name__ == "__main__":
    main()
