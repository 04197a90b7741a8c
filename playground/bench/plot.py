"""A PNG chart of a sweep, like Triton's own perf reports: throughput against the swept dimension.

Measured sweeps plot Triton against PyTorch; modelled sweeps plot the performance model's time
(model/explain.py) against the bare roofline bound, and say "modelled" in the title and the legend.
matplotlib is imported here only, with the Agg backend, so no display is needed.
"""
from __future__ import annotations

from pathlib import Path

from ..errors import UserError


def series(result) -> tuple[str, str, list[int], dict[str, list[float]]]:
    """(title, y label, x values, {label: y values}): what `save` draws, for tests to read."""
    dim = result.sweep_dim
    xs = [p.shape[dim] for p in result.points]
    if result.kind == "modelled":
        memory = sum(p.estimate.bound == "memory" for p in result.points) * 2 >= len(result.points)
        def y(e, seconds):
            return e.bytes / seconds / 1e9 if memory else e.flops / seconds / 1e12
        lines = {"Triton kernel (modelled)": [y(p.estimate, p.seconds) for p in result.points],
                 "roofline bound (modelled)": [y(p.estimate, p.estimate.roofline_seconds) for p in result.points]}
        title = f"{result.kernel} on {result.target} ({result.device}): modelled (roofline, wave quantisation)"
    else:
        memory = sum(p.bound == "memory" for p in result.points) * 2 >= len(result.points)
        def y(p, ms):
            return p.bytes / ms / 1e6 if memory else p.flops / ms / 1e9
        lines = {"Triton": [y(p, p.triton.median_ms) for p in result.points]}
        if all(p.torch for p in result.points):
            lines[f"PyTorch ({result.points[0].baseline})"] = [y(p, p.torch.median_ms) for p in result.points]
        title = f"{result.kernel} on {result.device}: measured, median of each"
    return title, "GB/s" if memory else "TFLOP/s", xs, lines


def check(path: str, sweep: str | None) -> None:
    """Refuse a plot that cannot be drawn before any time is spent measuring."""
    if not sweep:
        raise UserError("plot draws a sweep: add `sweep` DIM=LO..HI", param="plot")
    if not str(path).lower().endswith(".png"):
        raise UserError(f"plot {path}: the chart is a PNG; name the file *.png", param="plot")


def save(result, path: str) -> list[str]:
    """Write the chart to `path` (PNG); returns the series labels drawn."""
    check(path, result.sweep_dim)
    try:
        import matplotlib
    except ImportError:
        raise UserError("plot needs matplotlib: pip install 'triton-playground[plot]'", param="plot") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    title, ylabel, xs, lines = series(result)
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=100)
    for (label, ys), marker in zip(lines.items(), ("o", "s", "^")):
        ax.plot(xs, ys, marker=marker, label=label)
    ax.set_xscale("log", base=2)
    ax.set_xlabel(result.sweep_dim)
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=0)                 # a throughput axis from zero: small dips look small
    ax.set_title(title, fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower left")   # the lines run near the roof, at the top
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png")
    plt.close(fig)
    return list(lines)
