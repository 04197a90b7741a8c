"""Triton against PyTorch, side by side in one run: one throughput ratio per kernel.

On a CUDA GPU, for each kernel at its default shape and dtype, `throughput.run` checks the output, then
times the Triton kernel and the spec's PyTorch baseline on the same inputs (do_bench, L2 flushed
before each run), and this prints PyTorch's median time over Triton's (above 1: Triton is faster)
beside the goal:

    gemm         >= 0.8x torch.matmul (cuBLAS is tuned per shape; the tutorial kernel has one config)
    relu_matmul  >= 0.8x torch.relu(torch.matmul(a, b))
    softmax      >= 1.0x torch.softmax (one fused pass against PyTorch's kernel)
    vector_add   >= 0.9x torch.add (both are bound by bandwidth)

Kernels with no goal print their ratio alone. Without a GPU there is nothing to time: the script says
so and prints the model's share of peak per kernel instead (every line marked modelled). Exit 0 either
way; the ratios are for reading, not a gate.

    python benchmarks/throughput_vs_torch.py
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

GOALS = {"gemm": 0.8, "relu_matmul": 0.8, "softmax": 1.0, "vector_add": 0.9}


def main():
    from playground.bench import throughput
    from playground.core import registry, targets
    names = [s.name for s in registry.load_all()]
    native = targets.native()
    why = throughput.measurable(native) if native else "no GPU on this machine"
    if why:
        print(f"modelled: {why}; the Triton/PyTorch ratios need a CUDA GPU")
        for name in names:
            result = throughput.run(name, "sm_90")
            e = result.points[0].estimate
            print(f"modelled  {name:<16} {e.seconds * 1e6:>10.4g} us  {e.percent_of_peak:5.1f}% of peak "
                  f"{e.bound} on sm_90")
        return
    print(f"measured on {native.name}: PyTorch median / Triton median (above 1: Triton is faster)")
    for name in names:
        try:
            m = throughput.run(name).points[0]
        except Exception as e:   # one kernel failing should not hide the others' ratios
            print(f"{name:<16} error: {e}")
            continue
        goal = GOALS.get(name)
        verdict = "" if goal is None or m.speedup is None else (
            f"  goal >= {goal:g}x: {'met' if m.speedup >= goal else 'MISSED'}")
        ratio = f"{m.speedup:.2f}x" if m.speedup is not None else "no baseline"
        print(f"{name:<16} {ratio:>8}  triton {m.triton.median_ms * 1e3:.4g} us, {m.percent_of_peak:.1f}% of peak "
              f"{m.bound}{verdict}")
        for w in m.warnings:
            print(f"{'':<16} warning: {w}")


if __name__ == "__main__":
    main()
