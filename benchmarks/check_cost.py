"""What the adversarial classes and the sanitizers cost `check --quick`, measured side by side in one run.

For each kernel: `playground check KERNEL --quick --plain` (the cases as written, as check ran
before issue 19) against `playground check KERNEL --quick` (plus input classes, layouts, a sample
of configs, and the sanitizers), whole process, on the interpreter. Goal: at most 2x.

Each side runs alternately, REPEAT times; we compare medians. The time per class comes from the
JSON report of the last full run.
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
GOAL = 2.0


def timed(args) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, str(ROOT / "cli.py"), "check", *args], cwd=ROOT, check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> int:
    worst = 0.0
    print(f"{'kernel':<12} {'--plain':>9} {'full':>9} {'ratio':>7}  per class (full run)")
    for kernel in KERNELS:
        plain, full = [], []
        for _ in range(REPEAT):
            plain.append(timed([kernel, "--quick", "--plain"]))
            full.append(timed([kernel, "--quick"]))
        p, f = statistics.median(plain), statistics.median(full)
        report = subprocess.run([sys.executable, str(ROOT / "cli.py"), "check", kernel, "--quick", "--json"],
                                cwd=ROOT, capture_output=True, text=True)
        spent = json.loads(report.stdout)["seconds_by_variant"]
        classes = ", ".join(f"{k} {v:.2f}" for k, v in spent.items())
        print(f"{kernel:<12} {p:>8.2f}s {f:>8.2f}s {f / p:>6.2f}x  {classes}")
        worst = max(worst, f / p)
    verdict = "met" if worst <= GOAL else "MISSED"
    print(f"\nworst ratio {worst:.2f}x; goal <= {GOAL:.1f}x: {verdict}")
    return 0 if worst <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
