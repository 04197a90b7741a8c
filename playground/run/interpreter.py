"""Triton's interpreter made to compute as a GPU would, installed wherever kernels run on the CPU (`check`,
`run`, `fuse --run`).

- bf16 arithmetic in fp32, rounded as the hardware rounds (bf16_interpreter.py);
- libdevice's functions, which it cannot call, computed by torch's of the same name (libdevice_shim.py);
- grid dependency control (`tl.extra.cuda.gdc_wait`, `gdc_launch_dependents`: programmatic dependent launch,
  PTX ISA "griddepcontrol"): they only say when the next launch may start, or wait for the one before to
  finish. The interpreter has no builder operation for them (its kernels fail with an AttributeError), yet
  it runs launches one after another, each to its end, so both are already true: they run as nothing.
Any other operation it lacks still fails, and `run` names it in one line.
"""
from __future__ import annotations

# builder operations whose meaning holds already when launches run one after another, each to its end
ALREADY_TRUE = ("create_grid_dependency_wait", "create_grid_dependency_launch_dependents")


def install() -> None:
    from triton.runtime import interpreter

    from . import bf16_interpreter
    bf16_interpreter.install()
    for name in ALREADY_TRUE:
        if not hasattr(interpreter.InterpreterBuilder, name):
            setattr(interpreter.InterpreterBuilder, name, lambda self, *args, **kwargs: None)
    if not getattr(interpreter._patch_lang, "with_cuda_extras", False):
        interpreter._patch_lang = _with_cuda_extras(interpreter._patch_lang)


def _with_cuda_extras(original):
    """The interpreter hands its builder to triton.language's builtins for the time of a launch (a scope it
    undoes afterwards, so compiling is untouched); `tl.extra.cuda`'s (gdc_wait, ...) are left out, and fail
    asking for `_semantic`. This hands it to them too, and, for the same time, gives libdevice's functions
    (which the interpreter cannot call) their stand-ins computed by torch (libdevice_shim.py)."""
    from triton.runtime import interpreter

    def patch_lang(fn):
        scope = original(fn)
        from triton.language.extra import cuda, libdevice

        from .libdevice_shim import libdevice as stand_ins
        for module in (cuda, getattr(cuda, "gdc", None)):
            if module is not None:
                interpreter._patch_builtin(module, interpreter.interpreter_builder, scope)
        for module in {libdevice, getattr(cuda, "libdevice", libdevice)}:
            for name in dir(module):
                if not name.startswith("_") and name in vars(type(stand_ins)) | vars(stand_ins):
                    scope.set_attr(module, name, getattr(stand_ins, name))
        return scope

    patch_lang.with_cuda_extras = True
    return patch_lang
