"""playground: see a Triton kernel from Python to SASS, and check it against PyTorch.

A thin click layer: each command parses its options, calls one library function in
`playground/`, and renders the result. Heavy imports live inside the commands.
"""
from __future__ import annotations

import sys

import click

from playground.core import targets
from playground.core.targets import DEFAULT, TARGETS
from playground import report, text

TARGET_HELP = f"{', '.join(TARGETS)}, or native (the local GPU; {DEFAULT} when there is none); or a GPU by " \
              "name (l40s, h100-pcie, ...: its architecture's binary, its own SMs, peaks and bandwidth); " \
              "`playground targets` lists them"


class Group(click.Group):
    """One contract for every command: errors are one line on stderr with exit 2 (bad input) or 1
    (a kernel or check that fails); --debug, before or after the command name, adds the traceback
    and changes nothing else; SIGINT or SIGTERM stops the command and every process it started."""

    def add_command(self, cmd, name=None):
        cmd.params.append(click.Option(["--debug"], is_flag=True, expose_value=False, callback=_set_debug,
                                       help="Show the Python traceback of an error; changes nothing else."))
        super().add_command(cmd, name)

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        import warnings

        from playground import lifecycle
        previous = lifecycle.install_handlers()
        previous_show, warnings.showwarning = warnings.showwarning, _warning_line
        try:
            try:
                value = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
                code = value if isinstance(value, int) else 0
            except click.UsageError as e:     # click's three-line usage message, as one line
                where = f" (see `{e.ctx.command_path} --help`)" if e.ctx else ""
                click.echo(f"error: {e.format_message()}{where}", err=True)
                code = value = 2
            except click.ClickException as e:
                click.echo(f"error: {e.format_message()}", err=True)
                code = value = e.exit_code
            except click.Abort:
                click.echo("error: aborted", err=True)
                code = value = 1
            except BrokenPipeError:            # the reader went away (`| head`): stop quietly, as SIGPIPE would
                code = value = _stdout_closed()
            if standalone_mode:
                sys.exit(code)
            return value
        finally:
            lifecycle.restore_handlers(previous)
            warnings.showwarning = previous_show

    def invoke(self, ctx):
        from playground import lifecycle
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException, BrokenPipeError):
            raise
        except KeyboardInterrupt as e:
            _show_traceback(ctx)
            code = e.exit_code if isinstance(e, lifecycle.Interrupted) else 130
            click.echo(f"error: interrupted ({e}); stopped with every process it started", err=True)
            lifecycle.exit_now(code)
        except Exception as e:
            from playground.errors import KernelFailure, UserError
            _show_traceback(ctx)
            if isinstance(e, (UserError, KernelFailure)):
                click.echo(f"error: {e}", err=True)
                code = e.exit_code
            else:
                hint = "" if _debug(ctx) else " (run with --debug for the traceback)"
                click.echo(f"error: {type(e).__name__}: {e}{hint}", err=True)
                code = 1
            if isinstance(e, lifecycle.TimedOut) and lifecycle.step_running():
                lifecycle.exit_now(code)      # the step's thread is still inside the compiler: leave without it
            sys.exit(code)


def _stdout_closed() -> int:
    """Point stdout at /dev/null, so that the interpreter's last flush cannot fail again; 128 + SIGPIPE."""
    import os
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):     # no real file descriptor (an in-process test runner)
        pass
    return 141


def _set_debug(ctx, _param, value):
    if value:
        ctx.find_root().meta["playground.debug"] = True


def _debug(ctx) -> bool:
    return bool(ctx.find_root().meta.get("playground.debug"))


def _show_traceback(ctx) -> None:
    if _debug(ctx):
        import traceback
        traceback.print_exc()


def _version(ctx, _param, value):
    if not value or ctx.resilient_parsing:
        return
    from playground.versions import report
    click.echo(report())
    ctx.exit()


@click.group(cls=Group)
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_version,
              help="Show the playground, Triton, torch and CUDA/ROCm versions in use.")
@click.option("--debug", is_flag=True, expose_value=False, is_eager=True, callback=_set_debug,
              help="Show the Python traceback of an error; changes nothing else.")
def main():
    """See a Triton kernel's every compilation stage, and check it against PyTorch.

    Exit status: 0 ok; 1 a kernel that fails to compile or a check that fails; 2 bad input;
    130 or 143 when stopped by SIGINT or SIGTERM.
    """


def kernel_options(f):
    """The options every command that compiles a kernel takes."""
    for option in reversed([
        click.option("--target", "-t", default="native", show_default=True, help=TARGET_HELP),
        click.option("--meta", "-m", multiple=True, metavar="K=V,...",
                     help="Override meta-parameters, or set a backend option as a launch does (maxnreg, "
                          "num_ctas; AMD: waves_per_eu, matrix_instr_nonkdim, kpack); repeat or comma-separate."),
        click.option("--num-warps", type=int, default=None, help="Warps per program (CTA)."),
        click.option("--num-stages", type=int, default=None, help="Software-pipelining depth."),
        click.option("--shape", "-s", multiple=True, metavar="D=N,...",
                     help="Problem size; changes what the JIT specialises (divisibility by 16, == 1). "
                          "Repeat or comma-separate."),
        click.option("--dtype", default=None, help="Element type (fp32, fp16, bf16, ...)."),
        click.option("--timeout", type=float, default=None, metavar="SECONDS",
                     help="Stop if compiling takes longer than this (exit 1)."),
        click.option("--args", "kernel_args", default=None, metavar="'x=fp32[1024], n=1024, ...'",
                     expose_value=False, callback=_stash_kernel_args,
                     help="A bare @triton.jit kernel (file.py:kernel, no spec): its arguments, as a launch "
                          "would pass them; tensors as DTYPE[SHAPE] (+K for K elements past alignment), "
                          "grid=N or NxM."),
    ]):
        f = option(f)
    return f


def _stash_kernel_args(ctx, _param, value):
    if value is not None:
        ctx.meta["playground.kernel_args"] = value


def _kernel_args() -> str | None:
    """`--args` of the running command (kernel_options keeps it out of every signature)."""
    ctx = click.get_current_context(silent=True)
    return ctx.meta.get("playground.kernel_args") if ctx else None


def _compile(request, timeout=None):
    """Compile a request with a spinner, Ctrl-C and --timeout working; warnings as one line each."""
    for message in request.shape_warnings():
        _warn(message)
    return blocking("compiling " + request.spec.name, timeout, lambda: request.compile(warn=_warn))


def load_and_compile(kernel, target, meta, num_warps, num_stages, shape, dtype, timeout=None):
    """The command line's kernel options as a Request (playground/artefact/request.py), compiled."""
    from playground.artefact.request import Request
    request = Request.from_options(kernel, target, meta, num_warps, num_stages, shape, dtype, _kernel_args())
    return _compile(request, timeout)


def _warn(message: str) -> None:
    click.echo(f"warning: {message}", err=True)


def _warning_line(message, category, filename, lineno, file=None, line=None):
    """Python warnings from the library (sweep rows, diff variants) as one line, like the others."""
    _warn(str(message))


def blocking(label: str, timeout, step, spinner: bool = True):
    """Run a library step so that Ctrl-C, --timeout and a spinner all work while it sits in C++."""
    from playground import lifecycle
    return lifecycle.run_blocking(step, timeout=timeout, label=label, spinner=spinner)


@main.command("targets")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def targets_command(as_json):
    """The targets: each one's representative GPU, its limits and where the numbers come from; then the other
    GPUs --target takes by name, each compiled for its architecture (arch) with its own SMs, peaks and memory."""
    from playground.core import devices
    rows = targets.target_rows()
    if as_json:
        click.echo(report.to_json(rows))
        return
    from rich.console import Console
    from rich.table import Table
    table = Table(title="targets (devices.py names the source of every figure)", title_justify="left",
                  header_style="bold")
    for name in ("target", "arch", "vendor", "warp", "GPU", "SMs", "warps/SM", "blocks/SM", "regs/SM",
                 "smem/SM", "smem/block", "memory", "bandwidth", "fp16 dense"):
        table.add_column(name, justify="left" if name in ("target", "arch", "vendor", "GPU") else "right", no_wrap=True)
    from playground.units import kib, size
    for r in rows:
        table.add_row(r["target"], r["arch"], r["vendor"], str(r["warp_size"]), r["gpu"], str(r["num_sms"]),
                      str(r["max_warps_per_sm"]), str(r["max_blocks_per_sm"]), str(r["registers_per_sm"]),
                      kib(r["shared_per_sm"]), kib(r["shared_per_block"]), size(r["memory_bytes"]),
                      f"{r['bandwidth_gbs']:g} GB/s", f"{r['peak_tflops'].get('fp16', 0):g} TFLOP/s")
    Console(width=None if sys.stdout.isatty() else 200, highlight=False).print(table)
    click.echo("--target also takes the GPU a target's row describes by its name: "
               + ", ".join(f"{gpu} ({arch})" for gpu, arch in targets.REPRESENTED.items()))


@main.command("schema")
@click.argument("command", required=False)
def schema_command(command):
    """The JSON Schema of COMMAND's --json output (every field described); without COMMAND, the list."""
    if command is None:
        click.echo("\n".join(report.commands_with_schema()))
        return
    import json
    click.echo(json.dumps(report.schema(command), indent=2, ensure_ascii=False))


@main.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def list_kernels(as_json):
    """List the kernels in kernels/."""
    from playground.core import registry
    specs = registry.load_all()
    if as_json:
        click.echo(report.to_json([{"name": s.name, "description": s.description, "dtypes": list(s.dtypes),
                                    "default_shape": s.default_shape, "file": s.source_path} for s in specs]))
        return
    click.echo("\n".join(text.table(["kernel", "what it computes"], [[s.name, s.description] for s in specs])))


@main.command()
@click.argument("kernel")
@kernel_options
@click.option("--show", default=None, metavar="STAGE",
              help="source, ttir, ttgir, llir, ptx, sass, cubin (NVIDIA); amdgcn, hsaco (AMD); all; "
                   "several with commas. Default: the target's assembly (ptx, amdgcn).")
@click.option("--interleave", is_flag=True, help="Each Python line, then the stage lines generated from it.")
@click.option("--out", "out_dir", default=None, metavar="DIR", help="Write every stage to DIR, plus summary.json.")
@click.option("--force", is_flag=True, help="With --out: replace files playground did not write; with --html: "
              "replace the file.")
@click.option("--json", "as_json", is_flag=True, help="Print everything as one JSON object.")
@click.option("--no-header", is_flag=True, help="Print the stage alone.")
@click.option("--no-color", is_flag=True, help="No colours (NO_COLOR does the same).")
@click.option("--expect", "expect", multiple=True, metavar="'FIGURE OP N'",
              help="Check the binary: registers, spills, shared, occupancy (50%), blocks_per_sm, waves, "
                   "last_wave (50%), or STAGE:REGEX (lines that match), e.g. 'sass:HGMMA >= 4'. Exit 1 if one fails. "
                   "With --expect and no --show, only the header is printed.")
@click.option("--config", "config_index", default=None, metavar="N|list",
              help="Compile config N of the kernel's configs (an @triton.autotune kernel's own, or the spec's), "
                   "under any --meta; `list` prints them.")
@click.option("--passes", "list_passes", is_flag=True,
              help="List every MLIR pass of the pipeline for the target, in order, with the size of its change.")
@click.option("--show-pass", default=None, metavar="N|NAME", help="With --passes: the IR diff one pass made "
              "(NAME#2 for its second run).")
@click.option("--find", "find_pattern", default=None, metavar="REGEX",
              help="With --passes: the pass that first introduced REGEX, e.g. ttng.warp_group_dot; exit 1 if none.")
@click.option("--expect-pass", default=None, metavar="NAME",
              help="With --find: exit 1 unless pass NAME (its name or class) is the one that introduced it.")
@click.option("--html", "html_file", default=None, metavar="FILE",
              help="Write one self-contained HTML page: the source and stages, lines linked by colour.")
def compile(kernel, target, meta, num_warps, num_stages, shape, dtype, timeout, show, interleave, out_dir,
            force, as_json, no_header, no_color, expect, config_index, list_passes, show_pass, find_pattern,
            expect_pass, html_file):
    """Compile KERNEL (a name from `playground list`, or path.py[:name]) and print a stage.

    \b
    playground compile gemm --show ptx
    playground compile gemm --target sm_80 --show sass --num-warps 8 --num-stages 4
    playground compile softmax --target gfx942 --show amdgcn
    playground compile gemm --show ttgir --interleave
    playground compile gemm --target sm_90 --expect 'sass:HGMMA >= 4' --expect 'spills == 0'
    playground compile gemm --target sm_90 --passes --find ttng.warp_group_dot
    playground compile gemm --target sm_90 --html gemm.html
    """
    from playground.core import stages as stage_table
    if (show_pass or find_pattern) and not list_passes:
        from playground.errors import UserError
        raise UserError("--show-pass and --find read the pass list: add --passes")
    if expect_pass and not find_pattern:
        from playground.errors import UserError
        raise UserError("--expect-pass checks what --find found: add --find PATTERN")
    if html_file:
        clashing = [flag for flag, given in (("--passes", list_passes), ("--json", as_json), ("--out", out_dir),
                                             ("--interleave", interleave), ("--expect", expect)) if given]
        if clashing:
            from playground.errors import UserError
            raise UserError(f"--html writes the page and prints nothing else; drop {', '.join(clashing)}")
    from playground.artefact.request import Request
    from playground.errors import KernelFailure
    from playground.figures import expectations
    if config_index == "list":
        click.echo(_configs_table(_spec_of(kernel, target)))
        return
    if config_index is not None:
        meta, num_warps, num_stages = _with_config(_spec_of(kernel, target), config_index, meta, num_warps, num_stages)
    request = Request.from_options(kernel, target, meta, num_warps, num_stages, shape, dtype, _kernel_args())
    tgt = request.target
    header_only = bool(expect) and show is None
    show_given = show is not None
    show = show or stage_table.default_for(tgt.backend)
    stages = [] if header_only else _stages(show, tgt)   # a stage the target lacks fails before compiling
    for text in expect:                                   # and so does a malformed expectation
        expectations.parse(text, tuple(tgt.stages))
    c = _compile(request, timeout)
    if list_passes:
        return _show_passes(c, show_pass, find_pattern, as_json, timeout, expect_pass)
    if html_file:
        from playground.web import export
        chosen = [s for s in stages if not stage_table.is_binary(s) and s != "source"] if show_given else None
        written = export.write_html(c, html_file, chosen, force)
        click.echo(f"wrote {written}: open it in a browser (no server needed)", err=True)
        return
    outcomes = expectations.check(c, expect)
    _show_compiled(c, stages, header_only, interleave, out_dir, force, as_json, no_header, no_color, outcomes)
    failed = expectations.failure_line(outcomes)
    if failed:                                            # a check that fails: exit 1
        raise KernelFailure(failed)


def _show_passes(c, show_pass, find_pattern, as_json, timeout, expect_pass=None):
    """compile --passes: the pass list, one pass's diff, or the pass that introduced a pattern."""
    from playground import lifecycle
    from playground.artefact import passes
    from playground.errors import KernelFailure
    log = lifecycle.run_blocking(lambda: passes.log(c), timeout=timeout, label="compiling with IR printing on")
    shown = log.pick(show_pass) if show_pass else None
    found = log.find(find_pattern) if find_pattern else None
    if as_json:
        data = {**log.as_dict(), **({"shown": {"number": shown.number, "diff": shown.diff()}} if shown else {}),
                **({"found": found} if find_pattern else {})}
        from playground.report import render
        click.echo(report.to_json({**render.summary(c), "passes": data}))
    elif shown:
        click.echo(f"// pass {shown.number} of {len(log.passes)}: {shown.argument} ({shown.name}, in {shown.pipeline})"
                   + (f" {{{shown.options}}}" if shown.options else "") + f"; +{shown.added} -{shown.removed} lines")
        click.echo(shown.diff() if shown.changed else "(no change)\n", nl=False)
    elif found is None:
        click.echo("\n".join(passes.text_lines(log)))
    if found is not None and not found["lines"]:
        raise KernelFailure(passes.found_line(log, found))
    if found is not None and not as_json:
        click.echo(passes.found_line(log, found))
        for line in found["lines"]:
            click.echo(f"    {line}")
    if expect_pass:
        verdict = passes.expected_pass(log, found, expect_pass)
        if verdict:
            raise KernelFailure(verdict)
        click.echo(f"expect-pass {expect_pass}: holds")


def _spec_of(kernel: str, target: str):
    """The kernel's spec as the command's target would load it (a captured launch: its own target)."""
    from playground.core import registry
    from playground.core.targets import resolve
    return registry.load(kernel, resolve(registry.trace_target(kernel) or target).label, _kernel_args())


def _with_config(spec, index: str, meta, num_warps, num_stages):
    """`--config N`: config N of the spec, with the user's --meta, --num-warps and --num-stages over it."""
    picked, warps, stages = _config_meta(spec, index)
    return ((picked, *meta) if picked else meta, num_warps if num_warps is not None else warps,
            num_stages if num_stages is not None else stages)


def _config_meta(spec, index: str) -> tuple[str, int | None, int | None]:
    """Config N of the spec: its meta-parameters as a --meta string, its num_warps and num_stages."""
    from playground.errors import UserError
    if not spec.configs:
        raise UserError(f"--config: {spec.name} has no configs (neither an @triton.autotune nor a spec's `configs`)")
    try:
        config = spec.configs[int(index)]
    except (ValueError, IndexError):
        raise UserError(f"--config {index}: expected `list` or 0..{len(spec.configs) - 1}") from None
    from playground.core.spec import split_config
    meta, num_warps, num_stages = split_config(config)
    return ",".join(f"{k}={v}" for k, v in meta.items()), num_warps, num_stages


def _configs_table(spec) -> str:
    from playground.text import table
    names = list(dict.fromkeys(k for c in spec.configs for k in c))
    from playground.inductor import reopen
    source = "its @triton.autotune" if spec.autotuner is not None else \
        "Inductor's heuristics for the target" if spec.loaded_from and reopen.is_plan(spec.loaded_from) else "its spec"
    rows = [[str(i), *(str(c.get(k, "")) for k in names)] for i, c in enumerate(spec.configs)]
    return "\n".join([f"{spec.name}: {len(spec.configs)} configs, from {source}; compile one with --config N", ""]
                     + table(["config", *names], rows, align="r" * (len(names) + 1)))


def _show_compiled(c, stages, header_only, interleave, out_dir, force, as_json, no_header, no_color, outcomes):
    from playground.core import stages as stage_table
    from playground.errors import UserError
    from playground.report import render
    if out_dir:
        written = render.write_out(c, out_dir, list(c.target.stages), force)
        click.echo(f"wrote {len(written)} files to {out_dir}: {', '.join(p.name for p in written)}", err=True)
        if not as_json:   # the files are the output; --json still prints the summary
            return
    if as_json:
        summary = render.summary(c, stages)
        if outcomes:
            summary["expectations"] = [o.as_dict() for o in outcomes]
        click.echo(report.to_json(summary))
        return
    if interleave and len(stages) != 1:
        raise UserError("--interleave shows one stage at a time; pick it with --show")
    color = render.use_color(no_color)
    if not no_header or header_only:
        lines = render.header_lines(c, stages[0] if len(stages) == 1 else None)
        lines += [f"expect      {o.expectation}: {o.shown}, {'holds' if o.holds else 'DOES NOT HOLD'}"
                  for o in outcomes]
        click.echo("\n".join(("// " + line) for line in lines))
    for stage in stages:
        if len(stages) > 1:
            if stage_table.is_binary(stage):
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


@main.command("serve")
@click.argument("kernel", default="gemm", required=False)
@click.option("--target", "-t", default="native", show_default=True, help=TARGET_HELP)
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; anything but 127.0.0.1 lets other machines run code here (warned).")
@click.option("--port", default=0, type=click.IntRange(0, 65535), help="Port to listen on; 0 (the default) picks a free one.")
def serve(kernel, target, host, port):
    """Open KERNEL (a name, path.py[:name], or a `run --trace` file) in the explorer: a local web page with
    the source beside any stage, lines linked by colour, recompiled as you edit.

    \b
    playground serve gemm                      # then open the URL it prints
    playground serve ./my_kernels.py:my_kernel --target sm_80
    playground serve trace.json                # a `playground run --trace` file: its launches
    """
    import secrets

    from playground.web import server
    from playground.web.workspace import Workspace
    try:
        import uvicorn
    except ImportError:
        from playground.errors import UserError
        raise UserError("serve needs uvicorn and starlette: pip install -e .") from None
    workspace = blocking(f"opening {kernel}", None, lambda: Workspace(kernel, target))
    if host not in ("127.0.0.1", "localhost", "::1"):
        _warn(f"--host {host}: the page runs Python in this process; anyone who can reach {host} and has "
              f"the URL's token can run code as you")
    try:
        listening = server.listen(host, port)   # bound before the URL is printed: it answers at once
    except BaseException:
        workspace.close()
        raise
    port = listening.getsockname()[1]
    token = secrets.token_urlsafe(24)
    app = server.create_app(workspace, token, server.hosts_for(host, port))
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    click.echo(f"playground explorer for {workspace.ref} on {workspace.default_target}:", err=True)
    click.echo(f"http://{shown}:{port}/?token={token}")
    click.echo("(Ctrl-C stops it; edits compile from a scratch copy, Save writes your file)", err=True)
    import signal
    # uvicorn answers Ctrl-C and SIGTERM itself (a graceful stop, then a second one forces it) and
    # re-raises the signal when done: quiet handlers meanwhile, so that ending it is not an error.
    previous = {s: signal.signal(s, lambda *_: None) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="off",
                                      timeout_graceful_shutdown=2)).run(sockets=[listening])
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        workspace.close()
    click.echo("playground explorer stopped", err=True)


@main.command("diff")
@click.argument("kernel")
@click.option("--a", "a", multiple=True, metavar="K=V,...",
              help="Variant a: target=, num_warps=, num_stages=, dtype=, kernel=path.py:name, "
                   "a meta-parameter (BLOCK_SIZE_M=64) or a dimension (M=1000).")
@click.option("--b", "b", multiple=True, metavar="K=V,...", help="Variant b, as --a.")
@kernel_options
@click.option("--show", default=None, metavar="STAGE",
              help="The stage to diff: source, ttir, ttgir, llir, ptx, sass (NVIDIA), amdgcn (AMD). Default: "
                   "the targets' assembly (ptx, amdgcn); ttgir when one side is NVIDIA and the other AMD.")
@click.option("--raw", is_flag=True, help="Diff the exact text; by default addresses and register, value "
                                          "and label numbers are replaced by # first.")
@click.option("--context", "-U", default=3, show_default=True, help="Lines of context around each change.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--no-color", is_flag=True, help="No colours (NO_COLOR does the same).")
@click.option("--exit-code", is_flag=True,
              help="Exit 1 when the two variants compile to different binaries (as git diff --exit-code).")
def diff_command(kernel, a, b, target, meta, num_warps, num_stages, shape, dtype, timeout, show, raw, context,
                 as_json, no_color, exit_code):
    """Compare two variants of KERNEL: figures side by side, then a diff of one stage.

    Both variants start from the other options (--target, --meta, ...); --a and --b say what
    each changes.

    \b
    playground diff gemm --a target=sm_80 --b target=sm_90 --show sass
    playground diff gemm --target sm_90 --a num_warps=4 --b num_warps=8 --show ttgir
    playground diff gemm --a BLOCK_SIZE_K=32 --b BLOCK_SIZE_K=64,num_stages=4
    """
    from playground.compare import diff
    from playground.artefact.request import Request
    from playground.report import render
    base = Request.from_options(kernel, target, meta, num_warps, num_stages, shape, dtype, _kernel_args())
    cmp = blocking("compiling both variants", timeout, lambda: diff.compare(base, a, b, show, raw, context))
    if as_json:
        click.echo(report.to_json(cmp))
    else:
        click.echo(diff.format_text(cmp, render.use_color(no_color)), nl=False)
    if exit_code and cmp.a.compiled.hash != cmp.b.compiled.hash:
        from playground.errors import KernelFailure
        raise KernelFailure(f"the variants compile to different binaries ({cmp.a.label}: "
                            f"{cmp.a.compiled.hash[:12]}, {cmp.b.label}: {cmp.b.compiled.hash[:12]})")


@main.command("sweep")
@click.argument("kernel")
@click.option("--target", "-t", default="native", show_default=True, metavar="T[,T...]",
              help="One or more targets, comma-separated (sm_90,sm_89,gfx942). " + TARGET_HELP)
@click.option("--meta", "-m", multiple=True, metavar="NAME=V1,V2,...",
              help="Sweep the product of these ranges instead of the kernel's own configs. Repeat per name; "
                   "num_warps and num_stages too; A..B doubles from A up to B.")
@click.option("--shape", "-s", multiple=True, metavar="D=N,...",
              help="Problem size for the compile and the model; repeat or comma-separate.")
@click.option("--dtype", default=None, help="Element type (fp32, fp16, bf16, ...).")
@click.option("--jobs", "-j", type=int, default=None,
              help="Worker processes, or Ray tasks at once [default: the CPU count; a Ray cluster's CPUs].")
@click.option("--num-sms", type=int, default=None, help="Another GPU of the same arch, by SM (CU) count.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV, one row per config and target.")
@click.option("--no-progress", is_flag=True, help="No progress bar (there is none off a terminal either).")
@click.option("--timeout", type=float, default=600, show_default=True, metavar="SECONDS",
              help="Stop a config still compiling after this long and report it as failed.")
@click.option("--ray", "ray_address", default=None, metavar="ADDRESS",
              help="Compile on Ray (pip install 'triton-playground[ray]'): local starts a Ray instance here "
                   "with --jobs CPUs and stops it afterwards; auto connects to the running cluster "
                   "`ray start` made; or a cluster's address (ray://HOST:10001, HOST:6379).")
def sweep_command(kernel, target, meta, shape, dtype, jobs, num_sms, as_json, as_csv, no_progress, timeout,
                  ray_address):
    """Compile KERNEL's autotune space for each target and rank it, before any GPU time.

    \b
    playground sweep gemm --target sm_90 --jobs 2
    playground sweep gemm --target sm_90,sm_89,gfx942 --json > sweep.json
    playground sweep gemm -t sm_80 -m BLOCK_SIZE_M=64,128 -m BLOCK_SIZE_K=32..128 -m num_stages=2,3
    playground sweep gemm -t sm_90,sm_80 --ray auto
    """
    from playground.core import params, registry, targets
    from playground.errors import UserError
    from playground.sweep import space, triage
    from playground.sweep import text as sweep_text
    if as_json and as_csv:
        raise UserError("--json and --csv: pick one")
    if target in (None, "native"):
        target = registry.trace_target(kernel) or "native"     # a captured launch: its own target
    tgts = [targets.resolve(t.strip()) for t in target.split(",") if t.strip()]
    spec = registry.load(kernel, tgts[0].label if tgts else None)
    with _progress(not no_progress, "compiling") as on_row:
        result = triage.run(spec, tgts, space.parse_ranges(meta), params.parse_assignments(shape, "--shape"),
                           dtype, jobs, num_sms, on_row=on_row, timeout=timeout, ray=ray_address)
    for message in result.warnings:
        _warn(message)
    if as_json:
        click.echo(report.to_json(result))
    elif as_csv:
        click.echo(sweep_text.as_csv(result), nl=False)
    else:
        click.echo(sweep_text.format_text(result), nl=False)
    if result.exit_code:
        why = "every config is invalid" if result.exit_code == 2 else "no config compiled"
        click.echo(f"error: {why}; the table says why for each", err=True)
        sys.exit(result.exit_code)


def _progress(wanted: bool, what: str):
    """A rich progress bar on stderr, when it is a terminal; yields the callback (done, total, row)."""
    import contextlib
    if not wanted or not sys.stderr.isatty():
        return contextlib.nullcontext(None)

    @contextlib.contextmanager
    def bar():
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
        with Progress(TextColumn(f"{what}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      console=Console(stderr=True), transient=True) as progress:
            task = progress.add_task(what, total=None)
            yield lambda done, total, _row: progress.update(task, completed=done, total=total)
    return bar()


@main.command("bench")
@click.argument("kernel")
@kernel_options
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
@click.option("--num-sms", type=int, default=None, help="Model another GPU of the same arch, by SM (CU) count.")
@click.option("--record", "record_path", default=None, metavar="FILE.csv",
              help="Append the measured rows to FILE in the validation set's format (benchmarks/data/measured.csv); "
                   "measurements only, never the model's figures.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV, one row per shape.")
@click.option("--no-progress", is_flag=True, help="No progress bar (there is none off a terminal either).")
def bench_command(kernel, target, meta, num_warps, num_stages, shape, dtype, timeout, sweep, plot_path, breakdown,
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
    from playground.bench import breakdown as bench_breakdown
    from playground.bench import text as bench_text
    from playground.bench import throughput
    from playground.artefact.request import Request
    from playground.errors import UserError
    if as_json and as_csv:
        raise UserError("--json and --csv: pick one")
    if breakdown and (sweep or plot_path):
        raise UserError("--breakdown times one call at one shape; drop --sweep and --plot")
    if record_path and breakdown:
        raise UserError("--record keeps bench's timings; drop --breakdown")
    if config_index is not None and breakdown:
        raise UserError("--config and --breakdown: --breakdown times one call of one config, piece by piece")
    if config_index not in (None, "all"):
        meta, num_warps, num_stages = _with_config(_spec_of(kernel, target), config_index, meta, num_warps, num_stages)
    request = Request.from_options(kernel, target, meta, num_warps, num_stages, shape, dtype, _kernel_args())
    configs = throughput.ALL if config_index == "all" else None
    if record_path and (throughput.measurable(request.target) or num_sms is not None):
        why = throughput.measurable(request.target) or "--num-sms describes another GPU"
        raise UserError(f"--record keeps measurements only, and this run would be modelled ({why})")
    if breakdown:
        b = blocking("timing", timeout, lambda: bench_breakdown.breakdown(request))
        click.echo(report.to_json(b) if as_json else "\n".join(bench_breakdown.breakdown_lines(b)))
        return
    if plot_path:
        from playground.bench import plot
        plot.check(plot_path, sweep)
    result = blocking("benchmarking", timeout, lambda: throughput.run(
        request, sweep, cuda_graph, num_sms, progress=not no_progress, configs=configs), spinner=no_progress)
    if record_path:
        from playground.bench import record
        written = record.append(record_path, result)
        click.echo(f"appended {written} measured row{'s' if written != 1 else ''} to {record_path}", err=True)
    if plot_path:
        labels = plot.save(result, plot_path)
        click.echo(f"wrote {plot_path}: {' vs '.join(labels)}", err=True)
    if as_json:
        click.echo(report.to_json(result))
    elif as_csv:
        click.echo(bench_text.to_csv(result), nl=False)
    else:
        click.echo("\n".join(bench_text.lines(result)))
    failures = throughput.failed(result.skipped)
    if failures:
        from playground.errors import KernelFailure
        raise KernelFailure(f"{len(failures)} of {len(failures) + len(result.points)} configs failed; "
                            f"the output says why for each")


@main.command("inspect")
@click.argument("kernel")
@kernel_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def inspect_command(kernel, target, meta, num_warps, num_stages, shape, dtype, timeout, as_json):
    """A static read of KERNEL's generated code: instruction mix, vector widths, spills, pipelining.

    \b
    playground inspect gemm --target sm_90
    playground inspect softmax --target gfx942 --shape N=781
    playground inspect gemm --target sm_90 --num-stages 1     # the K loop is no longer pipelined
    """
    from playground.artefact import codeinspect
    reading = codeinspect.read(load_and_compile(kernel, target, meta, num_warps, num_stages, shape, dtype, timeout))
    if as_json:
        click.echo(report.to_json(reading))
        return
    click.echo("\n".join(codeinspect.lines(reading)))


@main.command("grid")
@click.argument("kernel")
@kernel_options
@click.option("--num-sms", type=int, default=None, help="Another GPU of the same arch, by SM (CU) count.")
@click.option("--map", "show_map", is_flag=True, help="Draw the tile grid with the wave each tile runs in.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def grid_command(kernel, target, meta, num_warps, num_stages, shape, dtype, timeout, num_sms, show_map, as_json):
    """KERNEL's launch grid at a shape: CTAs, the tile each owns, and the waves they run in on the target.

    \b
    playground grid gemm --shape M=4096,N=4096,K=4096 --target sm_90
    playground grid gemm --shape M=4096,N=4096,K=4096 --target sm_90 --map
    playground grid softmax --shape M=1823,N=781 --target gfx942 --json
    """
    from playground.figures import launch
    c = load_and_compile(kernel, target, meta, num_warps, num_stages, shape, dtype, timeout)
    plan = launch.plan(c, num_sms)
    if as_json:
        click.echo(report.to_json(plan))
        return
    click.echo("\n".join(launch.lines(plan, c, show_map)))


@main.command("occupancy")
@click.argument("kernel", required=False)
@kernel_options
@click.option("--arch", default=None, help="Without KERNEL: the target to ask about (sm_86, gfx942, ...), or a GPU by name (l40s, ...).")
@click.option("--threads", default=None, metavar="T", help="Without KERNEL: threads per block.")
@click.option("--regs", default=None, metavar="R", help="Without KERNEL: registers per thread (AMD: VGPRs).")
@click.option("--smem", default=None, metavar="BYTES",
              help="Without KERNEL: the block's shared memory (AMD: LDS), static plus dynamic.")
@click.option("--sgprs", default=None, metavar="S", help="Without KERNEL, AMD: SGPRs per wave.")
@click.option("--grid", "grid_ctas", default=None, metavar="CTAS", help="Without KERNEL: CTAs in the launch.")
@click.option("--num-sms", default=None, metavar="N", help="Another GPU of the same arch, by SM (CU) count.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def occupancy_command(kernel, target, meta, num_warps, num_stages, shape, dtype, timeout, arch, threads, regs, smem,
                      sgprs,
                      grid_ctas, num_sms, as_json):
    """Blocks per SM, occupancy and its limiter for KERNEL on a target, from the compiled binary's
    resources; or, with --arch and no KERNEL, for any block you describe.

    \b
    playground occupancy gemm --target sm_90 --num-warps 8
    playground occupancy softmax --target gfx942
    playground occupancy --arch sm_86 --threads 256 --regs 96 --smem 65536 --json
    playground occupancy --arch sm_90 --threads 256 --regs 122 --smem 98304 --grid 1024 --num-sms 114
    """
    from playground.errors import UserError
    from playground.figures import occupancy
    calculator = {"--arch": arch, "--threads": threads, "--regs": regs, "--smem": smem, "--sgprs": sgprs,
                  "--grid": grid_ctas}
    sms = occupancy.parse_count("--num-sms", num_sms)
    if kernel is None:
        missing = [k for k in ("--arch", "--threads", "--regs", "--smem") if calculator[k] is None]
        if missing:
            raise UserError(f"give a KERNEL, or --arch, --threads, --regs and --smem (missing {', '.join(missing)})")
        occ = occupancy.question(arch, *(occupancy.parse_count(k, calculator[k]) for k in
                                         ("--threads", "--regs", "--smem", "--grid")), sms,
                                 occupancy.parse_count("--sgprs", sgprs))
        c = None
    else:
        given = [k for k, v in calculator.items() if v is not None]
        if given:
            raise UserError(f"{', '.join(given)}: these describe a block without a kernel; with KERNEL, the "
                            f"compiled binary says them (use --target, --num-warps, --meta)")
        c = load_and_compile(kernel, target, meta, num_warps, num_stages, shape, dtype, timeout)
        from playground.figures import whatif
        occ = whatif.report(c, sms)
    if as_json:
        click.echo(report.to_json(occ))
        return
    from playground.figures import occupancy_text
    click.echo("\n".join(occupancy_text.report_lines(occ, c)))


@main.command("run", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.argument("script")
@click.argument("script_args", nargs=-1, type=click.UNPROCESSED)
@click.option("--target", "-t", default=None, help=f"The virtual GPU: {', '.join(TARGETS)}, or a GPU by name (l40s, h100-pcie, ...: `playground targets` lists them); by default this machine's GPU, the script running on it, or {DEFAULT} where there is none.")
@click.option("--no-exec", is_flag=True, help="Compile, capture and model every launch, but run none of them "
                                                "(for scripts whose numbers do not matter).")
@click.option("--json", "as_json", is_flag=True, help="Print the capture as one JSON object (the script's own "
                                                      "output goes to stderr).")
@click.option("--trace", "trace_path", type=click.Path(dir_okay=False), default=None,
              help="Save the capture to FILE (JSON); open a variant elsewhere as FILE#N.")
@click.option("--timeline", "timeline_path", type=click.Path(dir_okay=False), default=None,
              help="Write a Chrome trace-event JSON (host measured, GPU modelled); open it in Perfetto.")
@click.option("--force", is_flag=True, help="Overwrite --trace / --timeline files that exist.")
def run_command(script, script_args, target, no_exec, as_json, trace_path, timeline_path, force):
    """Run SCRIPT, written for a CUDA GPU, unchanged on a virtual GPU of the target; capture every launch.

    Tensors live on the CPU and kernels run in Triton's interpreter, so results and asserts are real.
    Each launch goes through Triton's own JIT for the target; times (do_bench, CUDA events, autotune)
    are the performance model's, never measured. On a machine with a GPU and no --target, the script
    runs on that GPU and each launch is captured the same way, its time measured (CUDA events from
    Triton's launch hooks). Other arguments after SCRIPT are the script's; after `--`, all of them are
    (for a script with its own --target).

    \b
    playground run my_script.py --size 4096 --target sm_90
    playground run -t sm_80 --trace run.json my_script.py
    playground compile run.json#2 --show sass          # a captured variant, in any command
    playground run --timeline tl.json my_script.py     # open tl.json in ui.perfetto.dev
    """
    from playground.core.targets import DEFAULT as default_target
    from playground.virtual import session, text, timeline
    mine, script_args = _own_run_options(list(script_args))
    target = mine.get("target", target)
    no_exec, as_json, force = (mine.get(k, v) for k, v in (("no_exec", no_exec), ("json", as_json), ("force", force)))
    trace_path, timeline_path = mine.get("trace", trace_path), mine.get("timeline", timeline_path)
    for path in (trace_path, timeline_path):
        _refuse_overwrite(path, force)
    from playground.core import targets
    if target is None and targets.native() is None:
        target = default_target          # no GPU here: the virtual one; with one, the script runs on it (native)
    result = session.run_script(script, list(script_args), target, execute=not no_exec, quiet_stdout=as_json)
    from playground.files import write_json
    trace = result.trace
    if trace_path:
        write_json(trace_path, trace)
    if timeline_path:
        write_json(timeline_path, timeline.events(trace))
    if as_json:
        click.echo(report.to_json(result))
    else:
        click.echo(text.format_text(trace, trace_path), err=False)
    return result.exit_code


RUN_FLAGS = {"--no-exec": "no_exec", "--json": "json", "--force": "force"}
RUN_VALUES = {"--target": "target", "-t": "target", "--trace": "trace", "--timeline": "timeline"}


def _own_run_options(args: list[str]) -> tuple[dict, list[str]]:
    """`run`'s own options written after SCRIPT (`playground run s.py --target sm_80`), taken out of the
    script's arguments; everything after a `--` is the script's, untouched."""
    from playground.errors import UserError
    mine, rest = {}, []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            rest += args[i + 1:]
            break
        name, eq, value = arg.partition("=")
        if arg in RUN_FLAGS:
            mine[RUN_FLAGS[arg]] = True
        elif name in RUN_VALUES:
            if not eq:
                if i + 1 >= len(args):
                    raise UserError(f"{name} needs a value")
                i += 1
                value = args[i]
            mine[RUN_VALUES[name]] = value
        else:
            rest.append(arg)
        i += 1
    return mine, rest


def _refuse_overwrite(path, force: bool) -> None:
    from pathlib import Path

    from playground.errors import UserError
    if path and Path(path).exists() and not force:
        raise UserError(f"{path} exists; pass --force to overwrite it")


@main.command("fuse")
@click.argument("expr")
@click.option("--shape", "-s", "shapes", multiple=True, metavar="NAME=AxB,...",
              help="Each tensor the expression names, and its shape: a=4096x4096,b=4096x4096.")
@click.option("--dtype", default="fp16", show_default=True, help="The tensors' element type.")
@click.option("--target", "-t", default=None, metavar="T[,T...]",
              help=f"The GPU Inductor plans for (default {DEFAULT}; a ROCm target as a ROCm build of torch would); "
                   "several: the plans side by side, and where they differ.")
@click.option("--show-kernel", "show_kernel", type=int, default=None, metavar="N",
              help="Print the Triton source Inductor generated for step N.")
@click.option("--json", "as_json", is_flag=True, help="Print the plan as one JSON object (with each kernel's source).")
@click.option("--save", "save_path", type=click.Path(dir_okay=False), default=None,
              help="Save the plan to FILE as well; open step N's kernel in any command as FILE#N (fuse#N is the last plan).")
@click.option("--force", is_flag=True, help="Overwrite a --save file that exists.")
@click.option("--run", "run_check", is_flag=True,
              help="Run the plan on the CPU (generated kernels in Triton's interpreter, at small shapes) and check "
                   "it against eager PyTorch; exit 1 if it differs.")
@click.option("--run-shape", "run_shape", multiple=True, metavar="NAME=AxB,...",
              help="The shapes --run uses (default: --shape's when they are small, else each dimension over 64 made 64).")
@click.option("--max-autotune", "max_autotune", is_flag=True,
              help="Inductor's max-autotune: each GEMM's candidates (the library and Triton templates), ranked by "
                   "a model since none can be timed here (the library at the roofline, each template by the "
                   "performance model on kernels/gemm.py compiled with its config); the plan takes the "
                   "best-modelled template.")
def fuse_command(expr, shapes, dtype, target, show_kernel, as_json, save_path, force, run_check, run_shape,
                 max_autotune):
    """What torch.compile launches for EXPR on the target: library calls and the Triton kernels it fuses.

    EXPR is an expression over the tensors --shape names, or file.py:NAME, a function or an nn.Module
    class (built with no arguments; its parameters keep their dtype) called with those tensors in order.

    Inductor plans for a CUDA device with the target's SM count and capability, on fake tensors, in its
    own process; no GPU is needed and nothing runs. On a machine with a CUDA GPU and no --target (or
    native), Inductor plans for that GPU itself, and --run is torch.compile on it at full size.

    \b
    playground fuse "torch.relu(a @ b + 1)" --shape a=4096x4096,b=4096x4096 --target sm_90
    playground fuse "F.gelu(F.layer_norm(x, x.shape[-1:]))" --shape x=8192x1024 --target sm_80
    playground fuse "torch.softmax(x, dim=-1)" --shape x=4096x4096 --show-kernel 1
    playground fuse "x.sum(dim=-1)" --shape x=240x65536 --dtype fp32 --target sm_80,sm_90
    playground fuse "torch.relu(a @ b + 1)" -s a=4096x4096,b=4096x4096 --run   # checked against eager
    playground fuse model.py:Block --shape x=4096x1024 --dtype fp32
    playground fuse "torch.relu(a @ b + 1)" -s a=4096x4096,b=4096x4096 --max-autotune   # GEMM candidates
    playground compile fuse#2 --show sass             # step 2 of the last plan, in any command
    playground fuse "torch.relu(a @ b + 1)" -s a=4096x4096,b=4096x4096 --save plan.json
    playground occupancy plan.json#2                  # a saved plan stays; fuse#N is the next plan once any shell makes one
    """
    from playground.errors import UserError
    from playground.inductor import check as plan_check
    from playground.inductor import plan as inductor_plan
    from playground.inductor import text as plan_text
    _refuse_overwrite(save_path, force)
    given = [t.strip() for t in (target or DEFAULT).split(",") if t.strip()]
    if not given:
        raise UserError("--target: name at least one target")
    names = [targets.resolve(t).label for t in given]
    if len(set(names)) != len(names):     # two names for one GPU (sm_90 and h100): one plan, compared with itself
        twice = next(n for n in names if names.count(n) > 1)
        raise UserError(f"--target: {' and '.join(g for g, n in zip(given, names) if n == twice)} name one target "
                        f"({twice}); name each once")
    if len(names) > 1:
        if show_kernel is not None or save_path or run_check:
            raise UserError("--show-kernel, --save and --run take one --target")
        from playground.inductor import compare
        plans = blocking(f"Inductor planning for {', '.join(names)}", None, lambda: inductor_plan.plan_many(
            expr, inductor_plan.parse_shapes(shapes), dtype, names, max_autotune))
        comparison = compare.compare(plans)
        click.echo(report.to_json(comparison.as_dict()) if as_json else plan_text.format_comparison(comparison))
        return
    tgt = targets.resolve(names[0])
    real_device = inductor_plan.real_device_for(target)     # this machine's GPU, no stand-ins
    p, checked = blocking("Inductor planning" + (", and running the plan in Triton's interpreter" if run_check else ""),
                          None, lambda: plan_check.plan_and_run(
                              expr, inductor_plan.parse_shapes(shapes), dtype, tgt.label, run_check,
                              inductor_plan.parse_shapes(run_shape) if run_shape else None, max_autotune,
                              real_device))
    if show_kernel is not None:
        steps = {s.index: s for s in p.kernels}
        if show_kernel not in steps:
            raise UserError(f"--show-kernel {show_kernel}: the generated kernels are steps "
                            f"{', '.join(map(str, steps)) or 'none'}")
        click.echo(steps[show_kernel].source.strip())
        return
    from playground.inductor import reopen
    data = reopen.save(p, checked, save_path)            # fuse#N opens it until the next plan
    if as_json:
        click.echo(report.to_json(data))
    else:
        click.echo(plan_text.format_text(p, tgt.backend, save_path))
        if checked:
            click.echo("\n".join(plan_text.format_check(checked)))
    if checked and not checked.ok:
        from playground.errors import KernelFailure
        raise KernelFailure("fuse --run: the plan's outputs differ from eager PyTorch's")


@main.command("check")
@click.argument("kernel", required=False)
@click.option("--all", "all_kernels", is_flag=True, help="Check every kernel in kernels/.")
@click.option("--quick", is_flag=True, help="Only each kernel's quick cases (the ones the tests run).")
@click.option("--shape", "-s", multiple=True, metavar="D=N,...",
              help="Check this one shape instead of the cases; repeat or comma-separate.")
@click.option("--dtype", default=None, help="Only this dtype (default: every dtype the kernel supports).")
@click.option("--meta", "-m", multiple=True, metavar="K=V,...",
              help="Override meta-parameters; repeat or comma-separate.")
@click.option("--num-warps", type=int, default=None, help="Warps per program (CTA).")
@click.option("--num-stages", type=int, default=None, help="Software-pipelining depth.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed for the random inputs (and for ties when --quick picks configs).")
@click.option("--interpreter", is_flag=True, help="Run in Triton's CPU interpreter even when a GPU is present.")
@click.option("--timeout", type=float, default=600, show_default=True, metavar="SECONDS",
              help="Stop a case still running in the interpreter after this long; it fails alone.")
@click.option("--plain", is_flag=True,
              help="Only the cases as written: N(0, 1) inputs, contiguous tensors, the launch's config.")
@click.option("--no-sanitize", is_flag=True, help="Do not watch the interpreter for races, bad reads and writes.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.pass_context
def check_command(ctx, kernel, all_kernels, quick, shape, dtype, meta, num_warps, num_stages, seed, interpreter,
                  timeout, plain, no_sanitize, as_json):
    """Run KERNEL on its test cases and compare every output with its PyTorch reference (fp64).

    Runs on the local CUDA GPU, or through Triton's interpreter on the CPU when there is none.
    --quick runs the kernel's quick cases. Each case (with --quick, just one small case of them)
    also runs with adversarial inputs (x100, all-negative and equal rows, ...), with transposed,
    sliced and misaligned tensors where the
    kernel takes strides, and under each config of its autotune space (a few with --quick). In the
    interpreter, sanitizers report races, out-of-bounds accesses and undefined reads that reach
    an output, with the kernel line. Exit status 1 when any run mismatches, crashes or is
    flagged, 2 for bad input.

    \b
    playground check gemm
    playground check softmax --shape M=1823,N=781 --dtype fp16
    playground check --all --quick
    playground check ./my_kernels.py:my_kernel
    """
    from playground.core import params, registry
    from playground.errors import UserError
    from playground.run import check as correctness
    from playground.run import check_text
    if all_kernels == bool(kernel):
        raise UserError("name one kernel (see `playground list`) or pass --all, not both" if kernel
                        else "name one kernel (see `playground list`) or pass --all")
    if kernel and registry.trace_target(kernel):
        raise UserError(f"{kernel}: a captured launch has no PyTorch reference to check against; the script's "
                        f"own asserts are its check, and `playground run` runs them")
    specs = registry.load_all() if all_kernels else [registry.load(kernel)]
    with _progress(not as_json, "checking") as tick:
        outcome = correctness.run_check(specs, all_kernels, quick, params.parse_assignments(shape, "--shape"),
                                       dtype, params.parse_assignments(meta, "--meta", strings=True), num_warps,
                                       num_stages, seed, interpreter, progress=tick, timeout=timeout,
                                       kinds=check_kinds(plain, no_sanitize))
    if as_json:
        click.echo(report.to_json(outcome))
    else:
        check_text.render(outcome, debug=_debug(ctx))
    ctx.exit(outcome.exit_code)


def check_kinds(plain: bool, no_sanitize: bool) -> tuple:
    """What runs besides the plain cases (run/variants.py's KINDS), from --plain and --no-sanitize."""
    from playground.run.variants import KINDS
    kinds = () if plain else tuple(k for k in KINDS if k != "sanitizers")
    return kinds if no_sanitize else kinds + ("sanitizers",)


if __name__ == "__main__":
    main()
