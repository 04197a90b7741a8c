"""playground targets: every name --target takes, with its GPU's limits."""
from __future__ import annotations

import sys

import click

from . import options


@click.command("targets")
@options.as_json
def command(as_json):
    """The targets: each one's representative GPU, its limits and where the numbers come from; then the other
    GPUs --target takes by name, each compiled for its architecture (arch) with its own SMs, peaks and memory."""
    from .. import report
    from ..core import targets
    from ..units import kib, size
    rows = targets.target_rows()
    if as_json:
        return click.echo(report.to_json(rows))
    from rich.console import Console
    from rich.table import Table
    table = Table(title="targets (devices.py names the source of every figure)", title_justify="left",
                  header_style="bold")
    for name in ("target", "arch", "vendor", "warp", "GPU", "SMs", "warps/SM", "blocks/SM", "regs/SM",
                 "smem/SM", "smem/block", "memory", "bandwidth", "fp16 dense"):
        table.add_column(name, justify="left" if name in ("target", "arch", "vendor", "GPU") else "right", no_wrap=True)
    for r in rows:
        table.add_row(r["target"], r["arch"], r["vendor"], str(r["warp_size"]), r["gpu"], str(r["num_sms"]),
                      str(r["max_warps_per_sm"]), str(r["max_blocks_per_sm"]), str(r["registers_per_sm"]),
                      kib(r["shared_per_sm"]), kib(r["shared_per_block"]), size(r["memory_bytes"]),
                      f"{r['bandwidth_gbs']:g} GB/s", f"{r['peak_tflops'].get('fp16', 0):g} TFLOP/s")
    Console(width=None if sys.stdout.isatty() else 200, highlight=False).print(table)
    click.echo("--target also takes the GPU a target's row describes by its name: "
               + ", ".join(f"{gpu} ({arch})" for gpu, arch in targets.REPRESENTED.items()))
