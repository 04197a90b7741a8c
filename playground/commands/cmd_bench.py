"""playground bench: a kernel's throughput against PyTorch, measured on a GPU, modelled for any other."""
from __future__ import annotations

import click

from . import configs, options
from .common import blocking, one_format, request_of, show


@click.command("bench")
@click.argument("kernel")
@options.kernel
@click.option("--sweep", default=None, metavar="D=LO..HI",
              help="Sweep one dimension: LO..HI doubles from LO up to HI (as sweep -m does), or D=A,B,C.")
@click.option("--plot", "plot_path", default=None, metavar="FILE.png", help="With --sweep: write a PNG chart.")
@click.option("--breakdown", is_flag=True,
              help="On a GPU: one call's time split into copies, launch, kernel and sync.")
@click.option("--config", "config_index", default=None, metavar="N|all",
              help="Config N of the kernel's autotune space (`compile --config list` lists them), or all of them, as "
                   "an autotuner would time them (pruned as its prune_configs_by prunes), at the shape or at each "
                   "point of --sweep.")
@click.option("--cuda-graph", is_flag=True, help="Time with do_bench_cudagraph (no L2 flush between runs).")
@options.num_sms
@click.option("--record", "record_path", default=None, metavar="FILE.csv",
              help="Append the measured rows to FILE in the validation set's format (benchmarks/data/measured.csv); "
                   "measurements only, never the model's figures.")
@options.as_json
@options.as_csv("shape")
@options.no_progress
def command(kernel, target, meta, num_warps, num_stages, shape, dtype, timeout, sweep, plot_path, breakdown,
            config_index, cuda_graph, num_sms, record_path, as_json, as_csv, no_progress):
    """Throughput of KERNEL against PyTorch: measured on the local GPU, modelled for any other target.

    Without a CUDA GPU, or with --target naming another GPU, the numbers come from the performance
    model (its time, band and bottleneck, beside the roofline) and every line says "modelled". On a
    GPU the model is printed beside the measurement, and --record keeps the measurement.

    \b
    playground bench gemm --shape M=4096,N=4096,K=4096 --dtype fp16
    playground bench softmax --sweep N=256..32768 --plot softmax.png
    playground bench gemm --target sm_90 --json
    playground bench gemm --config all --shape M=2048,N=2048,K=2048 --record mine.csv
    playground bench vector_add --breakdown
    """
    from .. import report
    from ..bench import breakdown as bench_breakdown
    from ..bench import text as bench_text
    from ..bench import throughput
    from ..errors import KernelFailure, UserError
    one_format(as_json, as_csv)
    if breakdown and (sweep or plot_path):
        raise UserError("--breakdown times one call at one shape; drop --sweep and --plot")
    if record_path and breakdown:
        raise UserError("--record keeps bench's timings; drop --breakdown")
    if config_index is not None and breakdown:
        raise UserError("--config and --breakdown: --breakdown times one call of one config, piece by piece")
    if config_index not in (None, "all"):
        meta, num_warps, num_stages = configs.with_config(configs.spec_of(kernel, target), config_index, meta,
                                                          num_warps, num_stages)
    request = request_of(kernel, target, meta, num_warps, num_stages, shape, dtype)
    if record_path and (throughput.measurable(request.target) or num_sms is not None):
        why = throughput.measurable(request.target) or "--num-sms describes another GPU"
        raise UserError(f"--record keeps measurements only, and this run would be modelled ({why})")
    if breakdown:
        b = blocking("timing", timeout, lambda: bench_breakdown.breakdown(request))
        return click.echo(report.to_json(b) if as_json else "\n".join(bench_text.lines(b)))
    if plot_path:
        from ..bench import plot
        plot.check(plot_path, sweep)
    result = blocking("benchmarking", timeout, lambda: throughput.run(
        request, sweep, cuda_graph, num_sms, progress=not no_progress,
        configs=throughput.ALL if config_index == "all" else None), spinner=no_progress)
    if record_path:
        from ..bench import record
        written = record.append(record_path, result)
        click.echo(f"appended {written} measured row{'s' if written != 1 else ''} to {record_path}", err=True)
    if plot_path:
        click.echo(f"wrote {plot_path}: {' vs '.join(plot.save(result, plot_path))}", err=True)
    show(result, bench_text, as_json, as_csv)
    failures = throughput.failed(result.skipped)
    if failures:
        raise KernelFailure(f"{len(failures)} of {len(failures) + len(result.points)} configs failed; "
                            f"the output says why for each")
