"""`playground check`: is a kernel right? One checker for the kernels of a spec (kernels/) and for real code (a
function, an nn.Module, an autograd.Function or a KernelBench solution), with one rule for numbers and one registry
of guards. ARCHITECTURE.md draws its layers.
"""
from __future__ import annotations

from ..errors import UserError
from .request import DEFAULT_MEMORY_GB, Request  # noqa: F401 -- the one Request, and run below: the package's face

REAL_CODE_ONLY = (("inputs", "--inputs"), ("init", "--init"), ("sets", "--set"), ("backward", "--backward"),
                  ("require_triton", "--require-triton"), ("atol", "--atol"), ("rtol", "--rtol"))


def run(request: Request, progress=None):
    """The check: a kernel.Report for a spec's kernels, a code Verdict for one subject against `ref`, Verdicts for
    several. Bad input raises UserError."""
    if request.ref is not None:
        from .code import judge
        if not request.subjects:
            raise UserError("name what to check: FILE.py:NAME, package.module:NAME or a KernelBench SOLUTION.py")
        if len(request.subjects) > 1 or request.ray:
            return judge.check_many(request, list(request.subjects), request.jobs, request.ray, progress=progress)
        return judge.check_one(request, progress=progress)
    for name, flag in REAL_CODE_ONLY:
        if getattr(request, name):
            raise UserError(f"{flag} belongs to a check of real code: give the reference with --ref")
    from ..core import registry
    from . import kernel, variants
    if len(request.subjects) > 1:
        raise UserError("name one kernel (see `playground list`); several files are solutions, checked with --ref")
    name = request.subjects[0] if request.subjects else None
    if request.all_kernels == bool(name):
        raise UserError("name one kernel (see `playground list`) or pass --all, not both" if name
                        else "name one kernel (see `playground list`) or pass --all")
    if name and registry.trace_target(name):
        raise UserError(f"{name}: a captured launch has no PyTorch reference to check against; the script's own "
                        f"asserts are its check, and `playground run` runs them")
    specs = registry.load_all() if request.all_kernels else [registry.load(name)]
    return kernel.run_check(specs, request.all_kernels, request.quick, request.shape, request.dtype, request.meta,
                            request.num_warps, request.num_stages, request.seed, request.interpreter,
                            progress=progress, timeout=request.timeout,
                            kinds=variants.chosen(request.plain, not request.sanitize))
