"""What `check` costs, measured side by side in one run: whole processes on the interpreter, as a user runs them.

1. Goals (issue 41): the full check of a kernel whose cases fit in 1M elements in at most 120 s, `--quick` in at
   most 20 s, on the shipped layernorm and on a Welford layer norm written elsewhere with 5 configs, 3 dtypes and
   6 cases (tests/data/welford_layernorm.py). Each once (the full ones take a minute or more), with where the
   time went from its JSON report: the workers' start, the launches, each sanitizer's own work, the rest.
2. The guards: `check KERNEL --quick` with the sanitizers (memcheck, racecheck, initcheck) against the same runs
   with --no-sanitize. Goal: at most 2x.
3. The classes: `check KERNEL --quick --plain` (the cases as written, as check ran before issue 19) against
   `check KERNEL --quick` (plus input classes, layouts, a sample of configs, and the sanitizers). Goal: 2x.

In 2 and 3 each side runs alternately, REPEAT times; we compare medians. The machine's cores decide how many
interpreter workers a check starts (PLAYGROUND_CHECK_JOBS sets it): the goals are for 2 cores, as in CI.

4. `check --ref --quick` (every guard on real code) against its `--plain` run. Goal: 2x.
5. With BASELINE=PATH (another checkout, e.g. `git worktree add /tmp/before <commit>`): every quick check above,
   this checkout against that one, alternately, same Python. Goal (issue 53): no check more than 1.25x slower.

    python benchmarks/check_cost.py                  # everything
    BASELINE=/tmp/before SKIP_FULL=1 python benchmarks/check_cost.py softmax   # 5 against an older checkout
    python benchmarks/check_cost.py softmax gemm     # 2 and 3 for these kernels only (1 always runs)
    SKIP_FULL=1 python benchmarks/check_cost.py      # 1 without the full checks
"""
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPEAT = int(os.environ.get("REPEAT", "3"))
KERNELS = sys.argv[1:] or ["softmax", "gemm", "layernorm", "vector_add"]
GOAL_RATIO = 2.0
GOALS = {"full": 120.0, "--quick": 20.0}
WELFORD = "tests/data/welford_layernorm.py"


def timed(args, root: Path = ROOT) -> tuple[float, dict]:
    """Wall seconds of one `playground check ... --json` process of the checkout at `root`, and its report."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, str(root / "cli.py"), "check", *args, "--json"], cwd=root, check=False,
                          capture_output=True, text=True)
    seconds = time.perf_counter() - start
    try:
        return seconds, json.loads(done.stdout)
    except json.JSONDecodeError:
        raise SystemExit(f"check {' '.join(args)} printed no report:\n{done.stderr[-2000:]}")


def goals() -> bool:
    met = True
    print(f"{'kernel':<20} {'check':<8} {'wall':>8} {'goal':>6} {'runs':>5}  where the time went")
    for kernel in ("layernorm", WELFORD):
        for name, flags in (("--quick", ["--quick"]), ("full", [])):
            if name == "full" and os.environ.get("SKIP_FULL"):
                continue
            wall, report = timed([kernel, *flags])
            part, guard = report["seconds_by_part"], report["seconds_by_guard"]
            where = (f"start {part['start']:.1f} s, launches {part['launches']:.1f} s (memcheck "
                     f"{guard['memcheck']:.1f}, racecheck {guard['racecheck']:.1f}, initcheck {guard['initcheck']:.1f}), "
                     f"other {part['other']:.1f} s on {report['workers']} worker(s)")
            ok = wall <= GOALS[name] and report["ok"]
            met &= ok
            print(f"{Path(kernel).stem:<20} {name:<8} {wall:>7.1f}s {GOALS[name]:>5.0f}s {len(report['results']):>5}  "
                  f"{where}{'' if ok else '  MISSED' if report['ok'] else '  FAILED'}")
            classes = ", ".join(f"{k} {v:.1f}" for k, v in report["seconds_by_variant"].items())
            print(f"{'':<20} {'':<8} per class: {classes}")
    return met


def ratios(label: str, cheap: list, dear: list) -> float:
    worst = 0.0
    print(f"\n{label}\n{'kernel':<12} {' '.join(cheap) or 'as is':>24} {' '.join(dear) or 'as is':>12} {'ratio':>7}")
    for kernel in KERNELS:
        low, high = [], []
        for _ in range(REPEAT):
            low.append(timed([kernel, *cheap])[0])
            high.append(timed([kernel, *dear])[0])
        p, f = statistics.median(low), statistics.median(high)
        print(f"{kernel:<12} {p:>23.2f}s {f:>11.2f}s {f / p:>6.2f}x")
        worst = max(worst, f / p)
    return worst


# 4. check --ref (issue 41's guards on real code) against the same solution's plain run: the baseline case alone,
# no sandbox and no poison (`--plain`). Both start one child process (most of a small check's time).
REAL_CODE = [("KernelBench softmax", ["tests/data/kernelbench/solutions/softmax_long_row/online_softmax.py", "--ref",
                                      "tests/data/kernelbench/problems/softmax_long_row.py"]),
             ("Liger swiglu", ["liger_kernel.transformers.functional:liger_swiglu", "--ref", "F.silu(a) * b",
                               "--inputs", "a=fp32[32,781], b=fp32[32,781]"])]


def real_code() -> float:
    worst = 0.0
    print(f"\n4. check --ref --quick (every guard) against --plain (the baseline alone, unguarded)\n"
          f"{'solution':<20} {'--plain':>9} {'--quick':>9} {'ratio':>7}")
    for label, args in REAL_CODE:
        low, high = [], []
        for _ in range(REPEAT):
            low.append(timed([*args, "--plain"])[0])
            high.append(timed([*args, "--quick"])[0])
        p, f = statistics.median(low), statistics.median(high)
        print(f"{label:<20} {p:>8.2f}s {f:>8.2f}s {f / p:>6.2f}x")
        worst = max(worst, f / p)
    return worst


SLOWER_GOAL = 1.25


def against(baseline: Path) -> float:
    """5: each quick check here against the same check in `baseline`, alternately; medians of REPEAT."""
    worst = 0.0
    print(f"\n5. this checkout against {baseline} (quick checks; goal <= {SLOWER_GOAL:.2f}x)\n"
          f"{'check':<20} {'before':>9} {'now':>9} {'ratio':>7}")
    for label, args in [(k, [k, "--quick"]) for k in KERNELS] + [(label, [*a, "--quick"]) for label, a in REAL_CODE]:
        before, now = [], []
        for _ in range(REPEAT):
            before.append(timed(args, baseline)[0])
            now.append(timed(args)[0])
        b, n = statistics.median(before), statistics.median(now)
        print(f"{label:<20} {b:>8.2f}s {n:>8.2f}s {n / b:>6.2f}x")
        worst = max(worst, n / b)
    return worst


def main() -> int:
    if os.environ.get("BASELINE"):
        worst = against(Path(os.environ["BASELINE"]).resolve())
        print(f"5. against the baseline: worst ratio {worst:.2f}x; goal <= {SLOWER_GOAL:.2f}x: "
              f"{'met' if worst <= SLOWER_GOAL else 'MISSED'}")
        return 0 if worst <= SLOWER_GOAL else 1
    real = real_code()
    met = goals()
    guards = ratios("2. the sanitizers against the same runs unwatched", ["--quick", "--no-sanitize"], ["--quick"])
    classes = ratios("3. classes, layouts, configs and sanitizers against the cases alone", ["--quick", "--plain"],
                     ["--quick"])
    print(f"\n1. full <= {GOALS['full']:.0f} s and --quick <= {GOALS['--quick']:.0f} s: {'met' if met else 'MISSED'}")
    for name, worst in (("2. the sanitizers", guards), ("3. the classes", classes), ("4. the guards on real code", real)):
        print(f"{name}: worst ratio {worst:.2f}x; goal <= {GOAL_RATIO:.1f}x: {'met' if worst <= GOAL_RATIO else 'MISSED'}")
    return 0 if met and max(guards, classes, real) <= GOAL_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
