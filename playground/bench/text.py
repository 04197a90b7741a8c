"""`bench`'s output as text and CSV: `lines(result)` for a BenchResult (one line per figure for one shape, a
table for a sweep) or a Breakdown (--breakdown), `csv(result)` for a BenchResult."""
from __future__ import annotations

from functools import singledispatch

from ..figures import text as figures_text
from ..figures.roofline import MEASURE_HINT
from ..model import explain
from ..model import text as model_text
from ..text import config_head, config_words, table, varying
from .breakdown import Breakdown
from .measured import Measured
from .throughput import CONFIG, BenchResult
from .timing import gbs, tflops


@singledispatch
def lines(result) -> list[str]:
    raise TypeError(f"no text for {type(result).__name__}")


@lines.register
def _(result: BenchResult) -> list[str]:
    """One point in detail, or a sweep as a table."""
    if result.sweep_dim:
        return table_lines(result)
    p = result.points[0]
    if result.kind == "modelled":
        return figures_text.lines(p, result.reason)
    return measured_lines(p)


@lines.register
def _(b: Breakdown) -> list[str]:
    """--breakdown: one call, part by part, and the whole call measured on its own."""
    shape = ", ".join(f"{k}={v}" for k, v in b.shape.items())
    total = b.total.median_ms
    parts = sum(t.median_ms for _, t, _ in b.rows)
    rows = [[label, f"{t.median_ms * 1e3:.4g}", f"{100 * t.median_ms / total:.1f}%", how] for label, t, how in b.rows]
    rows.append(["total (end to end)", f"{total * 1e3:.4g}", "100.0%",
                 f"measured on its own; the parts add to {parts * 1e3:.4g} us"])
    return [f"measured    {b.kernel} on {b.device}, {shape}, {b.dtype}: one call, median of {b.total.n}",
            *table(["component", "time (us)", "share", "how"], rows, "lrr")]


def measured_lines(m: Measured) -> list[str]:
    shape = ", ".join(f"{k}={v}" for k, v in m.shape.items())
    t = m.triton
    out = [", ".join(filter(None, [f"measured    {m.kernel} on {m.device} ({m.target})", shape, m.dtype])),
           f"config      {m.config}",
           f"method      {m.method}; median of {t.n} runs, 20th-80th percentile in brackets",
           f"check       {m.checked}",
           f"triton      {_us(t.median_ms)} [{_us(t.q20_ms)} - {_us(t.q80_ms)}]  {m.tflops:.4g} TFLOP/s  "
           f"{m.gbs:.4g} GB/s  {m.percent_of_peak:.1f}% of peak {'bandwidth' if m.bound == 'memory' else 'compute'}"]
    if m.torch:
        tt = m.torch
        out.append(f"pytorch     {_us(tt.median_ms)} [{_us(tt.q20_ms)} - {_us(tt.q80_ms)}]  "
                   f"{tflops(m.flops, tt.median_ms):.4g} TFLOP/s  {gbs(m.bytes, tt.median_ms):.4g} GB/s  "
                   f"({m.baseline})")
        out.append(f"speedup     {m.speedup:.2f}x over PyTorch")
    if m.empty_launch:
        out.append(f"launch      an empty kernel takes {_us(m.empty_launch.median_ms)}")
    out.append(f"peaks       {m.peak_tflops:.4g} TFLOP/s ({m.roof}), {m.bandwidth_gbs:.4g} GB/s -> {m.bound}-bound")
    if m.modelled:
        x = m.modelled
        measured_s = m.triton.median_ms * 1e-3
        inside = "inside" if x.low <= measured_s <= x.high else "outside"
        out.append(f"modelled    {model_text.band_phrase(x)}: {100 * (x.seconds - measured_s) / measured_s:+.0f}% "
                   f"against the measurement, which lies {inside} the band (MODELLED, not measured)")
        out.append(f"modelled    bound by {explain.NAMES[x.bound]}; time goes to {model_text.shares_phrase(x)}")
    out += [f"warning     {w}" for w in m.warnings]
    return out


def _us(ms: float) -> str:
    return f"{ms * 1e3:.4g} us"


def columns(result: BenchResult) -> list[str]:
    dims = list(result.points[0].shape) + (_config_keys(result) if result.sweep_dim == CONFIG else [])
    if result.kind == "modelled":
        return ["kernel", "target", "device", "kind", *dims, "dtype", "time_us", "band_low_us", "band_high_us",
                "bottleneck", "tflops", "gbs", "percent_of_peak", "roofline_us", "roofline_bound", "intensity",
                "waves", "roofline_wave_fill"]
    return ["kernel", "target", "device", "kind", *dims, "dtype", "triton_us", "triton_q20_us", "triton_q80_us",
            "tflops", "gbs", "percent_of_peak", "torch_us", "torch_tflops", "torch_gbs", "speedup", "modelled_us",
            "clocks", "warnings"]


def _config_keys(result: BenchResult) -> list[str]:
    return list(dict.fromkeys(k for c in result.configs for k in c))


def rows(result: BenchResult) -> list[dict]:
    out = []
    configs = result.configs if result.sweep_dim == CONFIG else [{}] * len(result.points)
    for p, config in zip(result.points, configs):
        row = {"kernel": p.kernel, "target": p.target, "device": p.device, "kind": p.kind, **p.shape, **config,
               "dtype": p.dtype}
        if result.kind == "modelled":
            e, x = p.estimate, p.explained
            seconds = p.seconds
            row.update(time_us=seconds * 1e6, band_low_us=x.low * 1e6 if x else None,
                       band_high_us=x.high * 1e6 if x else None, bottleneck=x.bound if x else None,
                       tflops=e.flops / seconds / 1e12, gbs=e.bytes / seconds / 1e9,
                       percent_of_peak=e.percent_of_peak * e.seconds / seconds, roofline_us=e.seconds * 1e6,
                       roofline_bound=e.bound, intensity=e.intensity, waves=e.waves, roofline_wave_fill=e.wave_fill)
        else:
            row.update(triton_us=p.triton.median_ms * 1e3, triton_q20_us=p.triton.q20_ms * 1e3,
                       triton_q80_us=p.triton.q80_ms * 1e3, tflops=p.tflops, gbs=p.gbs,
                       percent_of_peak=p.percent_of_peak,
                       torch_us=p.torch.median_ms * 1e3 if p.torch else None,
                       torch_tflops=tflops(p.flops, p.torch.median_ms) if p.torch else None,
                       torch_gbs=gbs(p.bytes, p.torch.median_ms) if p.torch else None,
                       speedup=p.speedup, modelled_us=p.modelled.seconds * 1e6 if p.modelled else None,
                       clocks=p.clocks, warnings=" | ".join(p.warnings))
        out.append(row)
    return out


def table_lines(result: BenchResult) -> list[str]:
    """A sweep, or every config at one shape (CONFIG): one row each."""
    dim = result.sweep_dim
    if dim == CONFIG:
        keys, over = varying(result.configs), result.over
        shape = ", ".join(f"{k}={v}" for k, v in result.points[0].shape.items() if k != over)
        fixed = {k: v for k, v in result.configs[0].items() if k not in keys}
        at = f"at {shape}" + (f", over {over}" if over else "")
        head = (f"{result.kind}    {result.kernel} on {result.target} ({result.device}), {len(result.points)} configs "
                f"{at}, {result.points[0].dtype}" + (f"; all with {config_words(fixed)}" if fixed else "")
                + (f"; {result.reason}" if result.reason else ""))
        first = ([over] if over else []) + [config_head(k) for k in keys]
        label = lambda r: ([str(r[over])] if over else []) + [str(r.get(k, "")) for k in keys]      # noqa: E731
    else:
        head = (f"{result.kind}    {result.kernel} on {result.target} ({result.device}), sweep over {dim}"
                + (f"; {result.reason}" if result.reason else ""))
        first = [dim]
        label = lambda r: [str(r[dim])]                            # noqa: E731
    out = [head]
    if result.kind == "modelled":
        body = [[*label(r), f"{r['time_us']:.4g}",
                 f"{r['band_low_us']:.4g}-{r['band_high_us']:.4g}" if r["band_low_us"] is not None else "-",
                 f"{r['tflops']:.4g}", f"{r['gbs']:.4g}", f"{r['percent_of_peak']:.1f}",
                 explain.NAMES.get(r["bottleneck"], r["roofline_bound"]), f"{r['roofline_us']:.4g}",
                 str(r["waves"] or "-")]
                for r in rows(result)]
        out += table([*first, "time (us)", "band (us)", "TFLOP/s", "GB/s", "% peak", "bound", "roofline (us)",
                      "waves"], body, "r" * (len(first) + 8))
        out += _skipped_lines(result)
        out.append(f"modelled: every row is the performance model's typical time, its band, and what bounds it; "
                   f"the roofline with wave quantisation is the ceiling beside it; {MEASURE_HINT}")
        return out
    body = []
    for r in rows(result):
        torch_us = f"{r['torch_us']:.4g}" if r["torch_us"] is not None else "-"
        speedup = f"{r['speedup']:.2f}x" if r["speedup"] is not None else "-"
        modelled = f"{r['modelled_us']:.4g}" if r["modelled_us"] is not None else "-"
        body.append([*label(r), f"{r['triton_us']:.4g}", f"{r['triton_q20_us']:.4g}-{r['triton_q80_us']:.4g}",
                     f"{r['tflops']:.4g}", f"{r['gbs']:.4g}", f"{r['percent_of_peak']:.1f}", torch_us, speedup,
                     modelled])
    out += table([*first, "triton us", "q20-q80 us", "TFLOP/s", "GB/s", "% peak", "torch us", "speedup",
                  "modelled us"], body, "r" * (len(first) + 8))
    out += _skipped_lines(result)
    if dim == CONFIG and result.points[0].torch is not None:
        out.append(f"torch us: {result.points[0].baseline}, timed once at each shape and shown beside its configs")
    out.append("modelled us: the performance model's typical time for the row's binary (MODELLED, not measured)")
    where = (lambda i, p: config_words(result.configs[i]) + (f" ({result.over}={p.shape[result.over]})"
                                                             if result.over else "")) if dim == CONFIG else \
        (lambda i, p: f"{dim}={p.shape.get(dim)}")
    out += [f"warning at {where(i, p)}: {w}" for i, p in enumerate(result.points) for w in p.warnings]
    return out


def _skipped_lines(result: BenchResult) -> list[str]:
    return [f"left out  {config_words(c)}: {why}" for c, why in result.skipped]


def csv(result: BenchResult) -> str:
    import io
    from csv import DictWriter
    buf = io.StringIO()
    writer = DictWriter(buf, fieldnames=columns(result), lineterminator="\n")
    writer.writeheader()
    for r in rows(result):
        writer.writerow({k: ("" if v is None else v) for k, v in r.items()})
    return buf.getvalue()
