"""playground compile: one stage of a kernel's compile, headed by its launch and its binary's figures."""
from __future__ import annotations

import click

from ..core import stages as stage_table
from . import configs, options, other_triton
from .common import compiled, request_of

_stage_help = f"{stage_table.listing()}; all; several with commas. Default: the target's assembly (ptx, amdgcn)."


@click.command("compile", cls=other_triton.Command)
@click.argument("kernel")
@options.kernel
@other_triton.option()
@click.option("--show", default=None, metavar="STAGE", help=_stage_help)
@click.option("--interleave", is_flag=True, help="Each Python line, then the stage lines generated from it.")
@click.option("--control", is_flag=True, help="With --show sass: each instruction's control codes (stall cycles, "
              "yield, scoreboards set and waited on, operand reuse), decoded from its encoding.")
@click.option("--out", "out_dir", default=None, metavar="DIR", help="Write every stage to DIR, plus summary.json.")
@click.option("--force", is_flag=True, help="With --out: replace files playground did not write; with --html: "
              "replace the file.")
@click.option("--json", "as_json", is_flag=True, help="Print everything as one JSON object.")
@click.option("--no-header", is_flag=True, help="Print the stage alone.")
@options.no_color
@click.option("--expect", "expect", multiple=True, metavar="'FIGURE OP N'",
              help="Check the binary: registers, spills, shared, occupancy (50%), blocks_per_sm, waves, "
                   "last_wave (50%), or STAGE:REGEX (lines that match), e.g. 'sass:HGMMA >= 4'. Exit 1 if one fails. "
                   "With --expect and no --show, only the header is printed.")
@click.option("--config", "config_index", default=None, metavar="N|list",
              help="Compile config N of the kernel's configs (an @triton.autotune kernel's own, or the spec's), "
                   "under any --meta; `list` prints them.")
@click.option("--passes", "list_passes", is_flag=True,
              help="List every MLIR pass of the pipeline for the target, in order, with the size of its change.")
@click.option("--by-time", is_flag=True, help="With --passes: the passes slowest first, their runs summed, with "
              "each stage's wall time.")
@click.option("--show-pass", default=None, metavar="N|NAME", help="With --passes: the IR diff one pass made "
              "(NAME#2 for its second run).")
@click.option("--find", "find_pattern", default=None, metavar="REGEX",
              help="With --passes: the pass that first introduced REGEX, e.g. ttng.warp_group_dot; exit 1 if none.")
@click.option("--expect-pass", default=None, metavar="NAME",
              help="With --find: exit 1 unless pass NAME (its name or class) is the one that introduced it.")
@click.option("--html", "html_file", default=None, metavar="FILE",
              help="Write one self-contained HTML page: the source and stages, lines linked by colour.")
def command(kernel, target, meta, num_warps, num_stages, shape, dtype, timeout, triton, show, interleave, control,
            out_dir, force, as_json, no_header, no_color, expect, config_index, list_passes, by_time, show_pass,
            find_pattern, expect_pass, html_file):
    """Compile KERNEL (a name from `playground list`, or path.py[:name]) and print a stage.

    \b
    playground compile gemm --show ptx
    playground compile gemm --target sm_80 --show sass --num-warps 8 --num-stages 4
    playground compile softmax --target gfx942 --show amdgcn
    playground compile gemm --show ttgir --interleave
    playground compile gemm --target sm_90 --show sass --control
    playground compile gemm --target sm_90 --expect 'sass:HGMMA >= 4' --expect 'spills == 0'
    playground compile gemm --target sm_90 --passes --find ttng.warp_group_dot
    playground compile gemm --target sm_90 --passes --by-time
    playground compile gemm --target sm_90 --html gemm.html
    playground compile ./examples/block_pointers.py --target sm_90 --triton 3.8
    """
    if triton:
        other_triton.run_elsewhere(triton)      # unless it is the installed Triton: its output is this command's
    from ..errors import KernelFailure, UserError
    from ..report import render
    if (show_pass or find_pattern or by_time) and not list_passes:
        raise UserError("--show-pass, --find and --by-time read the pass list: add --passes")
    if expect_pass and not find_pattern:
        raise UserError("--expect-pass checks what --find found: add --find PATTERN")
    clashing = [flag for flag, given in (("--passes", list_passes), ("--json", as_json), ("--out", out_dir),
                                         ("--interleave", interleave), ("--expect", expect)) if given]
    if html_file and clashing:
        raise UserError(f"--html writes the page and prints nothing else; drop {', '.join(clashing)}")
    if config_index == "list":
        return click.echo(configs.table(configs.spec_of(kernel, target)))
    if config_index is not None:
        meta, num_warps, num_stages = configs.with_config(configs.spec_of(kernel, target), config_index, meta,
                                                          num_warps, num_stages)
    request = request_of(kernel, target, meta, num_warps, num_stages, shape, dtype)
    header_only = bool(expect) and show is None
    stages = [] if header_only else render.pick_stages(show or stage_table.default_for(request.target.backend),
                                                       request.target)    # before compiling: a stage it lacks
    if control and not request.target.is_nvidia:
        raise UserError(f"--control decodes NVIDIA's SASS control codes; {request.target.name}'s amdgcn has none: "
                        f"its waits are instructions of their own (s_waitcnt, s_nop)")
    if control and "sass" not in stages:
        raise UserError("--control decodes SASS's control codes: add --show sass")
    if expect:                                                              # and a malformed expectation
        from ..figures import expectations
        for text in expect:
            expectations.parse(text, tuple(request.target.stages))
    c = compiled(request, timeout)
    if list_passes:
        from .compile_passes import show_passes
        return show_passes(c, show_pass, find_pattern, as_json, timeout, expect_pass, by_time)
    if html_file:
        from ..web import export
        chosen = [s for s in stages if not stage_table.is_binary(s) and s != "source"] if show else None
        click.echo(f"wrote {export.write_html(c, html_file, chosen, force)}: open it in a browser (no server needed)",
                   err=True)
        return
    outcomes = expectations.check(c, expect) if expect else []
    if out_dir:
        written = render.write_out(c, out_dir, list(c.target.stages), force)
        click.echo(f"wrote {len(written)} files to {out_dir}: {', '.join(p.name for p in written)}", err=True)
    if as_json:
        from .. import report
        summary = render.summary(c, stages)
        if outcomes:
            summary["expectations"] = [o.as_dict() for o in outcomes]
        click.echo(report.to_json(summary))
    elif not out_dir:      # with --out the files are the output; --json still prints the summary
        click.echo(render.text(c, stages, not no_header or header_only, interleave, render.use_color(no_color),
                               outcomes, control), nl=False)
    failed = outcomes and expectations.failure_line(outcomes)
    if failed:                                            # a check that fails: exit 1
        raise KernelFailure(failed)
