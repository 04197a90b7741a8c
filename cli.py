"""playground: see a Triton kernel from Python to SASS, and check it against PyTorch.

A thin click layer: each command parses its options, calls one library function in
`playground/`, and renders the result. Heavy imports live inside the commands.
"""
from __future__ import annotations

import sys

import click

TARGET_HELP = "sm_80, sm_86, sm_89, sm_90, sm_100, sm_120, gfx90a, gfx942, gfx950, gfx1100, or native " \
              "(the local GPU; sm_90 when there is none)"


class Group(click.Group):
    """Turns the library's user errors into one line and an exit code; --debug shows the traceback."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException):
            raise
        except Exception as e:
            from playground.errors import KernelFailure, UserError
            if ctx.params.get("debug") or ctx.obj and ctx.obj.get("debug"):
                raise
            if isinstance(e, (UserError, KernelFailure)):
                click.echo(f"error: {e}", err=True)
                sys.exit(e.exit_code)
            click.echo(f"error: {type(e).__name__}: {e} (run with --debug for the traceback)", err=True)
            sys.exit(1)


def _version(ctx, _param, value):
    if not value or ctx.resilient_parsing:
        return
    from playground.versions import report
    click.echo(report())
    ctx.exit()


@click.group(cls=Group)
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_version,
              help="Show the playground, Triton, torch and CUDA/ROCm versions in use.")
@click.option("--debug", is_flag=True, help="Show Python tracebacks on errors.")
@click.pass_context
def main(ctx, debug):
    """See a Triton kernel's every compilation stage, and check it against PyTorch."""
    ctx.obj = {"debug": debug}


def kernel_options(f):
    """The options every command that compiles a kernel takes."""
    for option in reversed([
        click.option("--target", "-t", default="native", show_default=True, help=TARGET_HELP),
        click.option("--meta", "-m", default="", metavar="K=V,...", help="Override meta-parameters."),
        click.option("--num-warps", type=int, default=None, help="Warps per program (CTA)."),
        click.option("--num-stages", type=int, default=None, help="Software-pipelining depth."),
        click.option("--shape", "-s", default="", metavar="D=N,...",
                     help="Problem size; changes what the JIT specialises (divisibility by 16, == 1)."),
        click.option("--dtype", default=None, help="Element type (fp32, fp16, bf16, ...)."),
    ]):
        f = option(f)
    return f


def load_and_compile(kernel, target, meta, num_warps, num_stages, shape, dtype):
    from playground import compiler, params, registry, targets
    spec = registry.load(kernel)
    tgt = targets.resolve(target)
    config = compiler.resolve_config(spec, params.parse_assignments(meta, "--meta"), num_warps, num_stages,
                                     params.parse_assignments(shape, "--shape"), dtype)
    return compiler.compile_kernel(spec, tgt, config)


@main.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def list_kernels(as_json):
    """List the kernels in kernels/."""
    from playground import registry
    specs = registry.load_all()
    if as_json:
        import json
        click.echo(json.dumps([{"name": s.name, "description": s.description, "dtypes": list(s.dtypes),
                                "default_shape": s.default_shape, "file": s.source_path} for s in specs], indent=2))
        return
    width = max(len(s.name) for s in specs)
    for s in specs:
        click.echo(f"{s.name:<{width}}  {s.description}")


@main.command()
@click.argument("kernel")
@kernel_options
@click.option("--show", default="ptx", show_default=True, metavar="STAGE",
              help="source, ttir, ttgir, llir, ptx, sass, cubin (NVIDIA); amdgcn, hsaco (AMD); all.")
@click.option("--interleave", is_flag=True, help="Each Python line, then the stage lines generated from it.")
@click.option("--out", "out_dir", default=None, metavar="DIR", help="Write every stage to DIR, plus summary.json.")
@click.option("--force", is_flag=True, help="With --out: replace files playground did not write.")
@click.option("--json", "as_json", is_flag=True, help="Print everything as one JSON object.")
@click.option("--no-header", is_flag=True, help="Print the stage alone.")
@click.option("--no-color", is_flag=True, help="No colours (NO_COLOR does the same).")
def compile(kernel, target, meta, num_warps, num_stages, shape, dtype, show, interleave, out_dir, force,
            as_json, no_header, no_color):
    """Compile KERNEL (a name from `playground list`, or path.py[:name]) and print a stage.

    \b
    playground compile gemm --show ptx
    playground compile gemm --target sm_80 --show sass --num-warps 8 --num-stages 4
    playground compile softmax --target gfx942 --show amdgcn
    playground compile gemm --show ttgir --interleave
    """
    from playground import render, targets
    from playground.errors import UserError
    stages = _stages(show, targets.resolve(target))   # a stage the target lacks fails before compiling
    c = load_and_compile(kernel, target, meta, num_warps, num_stages, shape, dtype)
    if out_dir:
        written = render.write_out(c, out_dir, list(c.target.stages), force)
        click.echo(f"wrote {len(written)} files to {out_dir}: {', '.join(p.name for p in written)}", err=True)
        from click.core import ParameterSource
        if click.get_current_context().get_parameter_source("show") == ParameterSource.DEFAULT and not as_json:
            return
    if as_json:
        import json
        click.echo(json.dumps(render.summary(c, stages), indent=2, default=str))
        return
    if interleave and len(stages) != 1:
        raise UserError("--interleave shows one stage at a time; pick it with --show")
    color = render.use_color(no_color)
    if not no_header:
        click.echo("\n".join(("// " + line) for line in render.header_lines(c, stages[0] if len(stages) == 1 else None)))
    for stage in stages:
        if len(stages) > 1:
            if stage in ("cubin", "hsaco"):
                continue
            click.echo(f"\n// ===== {stage} " + "=" * 60)
        if interleave:
            click.echo(render.interleaved_text(c, stage, color), nl=False)
        else:
            click.echo(render.highlight(render.stage_text(c, stage), stage, color), nl=False)


def _stages(show: str, target) -> list[str]:
    from playground.errors import UserError
    if show == "all":
        return list(target.stages)
    names = [s.strip() for s in show.split(",") if s.strip()]
    for name in names:
        if name not in target.stages:
            raise UserError(f"stage '{name}' does not exist for {target.name}; it has: {', '.join(target.stages)}")
    return names


if __name__ == "__main__":
    main()
