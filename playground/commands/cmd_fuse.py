"""playground fuse: what torch.compile launches for a line of PyTorch on a target GPU."""
from __future__ import annotations

import click

from ..core.targets import DEFAULT
from .common import blocking, refuse_overwrite


@click.command("fuse")
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
def command(expr, shapes, dtype, target, show_kernel, as_json, save_path, force, run_check, run_shape, max_autotune):
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
    from .. import report
    from ..core import targets
    from ..errors import KernelFailure, UserError
    from ..inductor import plan_check
    from ..inductor import plan as inductor_plan
    from ..inductor import saved_plans
    from ..inductor import text as plan_text
    refuse_overwrite(save_path, force)
    names = [t.label for t in targets.resolve_all(target or DEFAULT)]
    shaped = inductor_plan.parse_shapes(shapes)
    if len(names) > 1:
        if show_kernel is not None or save_path or run_check:
            raise UserError("--show-kernel, --save and --run take one --target")
        from ..inductor import across_targets
        plans = blocking(f"Inductor planning for {', '.join(names)}", None, lambda: inductor_plan.plan_many(
            expr, shaped, dtype, names, max_autotune))
        comparison = across_targets.compare(plans)
        return click.echo(report.to_json(comparison) if as_json else "\n".join(plan_text.lines(comparison)))
    tgt = targets.resolve(names[0])
    real_device = inductor_plan.real_device_for(target)     # this machine's GPU, no stand-ins
    p, checked = blocking("Inductor planning" + (", and running the plan in Triton's interpreter" if run_check else ""),
                          None, lambda: plan_check.plan_and_run(
                              expr, shaped, dtype, tgt.label, run_check,
                              inductor_plan.parse_shapes(run_shape) if run_shape else None, max_autotune, real_device))
    if show_kernel is not None:
        steps = {s.index: s for s in p.kernels}
        if show_kernel not in steps:
            raise UserError(f"--show-kernel {show_kernel}: the generated kernels are steps "
                            f"{', '.join(map(str, steps)) or 'none'}")
        return click.echo(steps[show_kernel].source.strip())
    data = saved_plans.save(p, checked, save_path)       # fuse#N opens it until the next plan
    if as_json:
        click.echo(report.to_json(data))
    else:
        click.echo("\n".join(plan_text.lines(p, tgt.backend, save_path)))
        if checked:
            click.echo("\n".join(plan_text.lines(checked)))
    if checked and not checked.ok:
        raise KernelFailure("fuse --run: the plan's outputs differ from eager PyTorch's")
