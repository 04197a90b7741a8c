"""playground run: a script written for a CUDA GPU, run unchanged on a virtual GPU (or this machine's), every
launch captured."""
from __future__ import annotations

import click

from ..core.targets import DEFAULT, TARGETS
from .common import refuse_overwrite


@click.command("run", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option("-m", "--module", "module", default=None, metavar="MODULE",
              help="Run a module as `python -m MODULE` does, with the arguments that follow (`-m pytest tests/` runs "
                   "a project's own tests; each launch is attributed to its test).")
@click.argument("script", required=False)
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
@click.option("--ops", is_flag=True, help="List every ATen op the script runs on GPU tensors, in order, with the "
                                          "Triton launches, copies and sync points between them (the dispatch "
                                          "trace; also in --json, --trace and --timeline).")
@click.option("--force", is_flag=True, help="Overwrite --trace / --timeline files that exist.")
def command(module, script, script_args, target, no_exec, as_json, trace_path, timeline_path, ops, force):
    """Run SCRIPT, written for a CUDA GPU, unchanged on a virtual GPU of the target; capture every launch.

    Tensors live on the CPU and kernels run in Triton's interpreter, so results and asserts are real.
    Each launch goes through Triton's own JIT for the target; times (do_bench, CUDA events, autotune)
    are the performance model's, never measured. On a machine with a GPU and no --target, the script
    runs on that GPU and each launch is captured the same way, its time measured (CUDA events from
    Triton's launch hooks). Other arguments after SCRIPT are the script's; after `--`, all of them are
    (for a script with its own --target).

    The host side is reported too: each copy between host and GPU (pinned or pageable, whether the host
    waits; its time modelled at the target's PCIe line rate), each sync point (item(), .cpu(), printing a
    GPU tensor, synchronize: where, and how long the host waits, modelled), and with --ops each ATen op
    (on a GPU, ATen or cuBLAS chooses its kernel at run time: not known here).

    \b
    playground run my_script.py --size 4096 --target sm_90
    playground run -t sm_80 --trace run.json my_script.py
    playground compile run.json#2 --show sass          # a captured variant, in any command
    playground run --timeline tl.json my_script.py     # open tl.json in ui.perfetto.dev
    playground run --ops -t sm_90 tutorials/scripts/host_side.py   # ATen ops, launches, copies, syncs in order
    playground run -t sm_90 -m pytest tests/test_rms_norm.py -k bf16   # a project's own GPU tests
    """
    from .. import report
    from ..core import targets
    from ..files import write_json
    from ..virtual import script_args as arguments
    from ..virtual import session, text, timeline
    if module:                # everything after the module's name is its own (SCRIPT included)
        script_args = ([script] if script else []) + list(script_args)
        script = module
    elif script is None:
        from ..errors import UserError
        raise UserError("run needs a SCRIPT, or -m MODULE", param="script")
    mine, script_args = arguments.split(list(script_args))
    target = mine.get("target", target)
    no_exec, as_json, force, ops = (mine.get(k, v) for k, v in (("no_exec", no_exec), ("json", as_json),
                                                                ("force", force), ("ops", ops)))
    trace_path, timeline_path = mine.get("trace", trace_path), mine.get("timeline", timeline_path)
    for path in (trace_path, timeline_path):
        refuse_overwrite(path, force)
    if target is None and targets.native() is None:
        target = DEFAULT          # no GPU here: the virtual one; with one, the script runs on it (native)
    result = session.run_script(script, list(script_args), target, execute=not no_exec, quiet_stdout=as_json,
                                module=bool(module), ops=ops)
    if trace_path:
        write_json(trace_path, result.trace)
    if timeline_path:
        write_json(timeline_path, timeline.events(result.trace))
    click.echo(report.to_json(result) if as_json else "\n".join(text.lines(result.trace, trace_path)))
    return result.exit_code
