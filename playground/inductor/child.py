"""The process that asks Inductor for its plan (started by plan.py; the fakes stay in here).

    python -m playground.inductor.child SETTINGS.json

SETTINGS: {"expr", "shapes": {name: [dims]}, "dtype", "target", "out"}. Writes {"wrapper": the code
Inductor generated} or {"error": one line, "bad_input": bool} to `out`.
"""
from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path


def main(argv: list[str]) -> int:
    settings = json.loads(Path(argv[0]).read_text())
    out = Path(settings["out"])
    from ..lifecycle import die_with_parent
    die_with_parent()
    warnings.filterwarnings("ignore")
    from . import fakes
    fakes.install(settings["target"])
    import torch
    import torch._inductor.utils as inductor_utils
    from torch._subclasses.fake_tensor import FakeTensorMode
    names = list(settings["shapes"])
    try:
        dtype = getattr(torch, settings["torch_dtype"])
        fn = eval(f"lambda {', '.join(names)}: {settings['expr']}",  # noqa: S307 (the user's own expression)
                  {"torch": torch, "F": torch.nn.functional})
    except SyntaxError as e:
        out.write_text(json.dumps({"error": f"not a Python expression: {e.msg}", "bad_input": True}))
        return 2
    with FakeTensorMode(allow_non_fake_inputs=True):
        tensors = [torch.empty(*settings["shapes"][n], device="cuda", dtype=dtype) for n in names]
        try:
            fn(*tensors)           # eager first, on fake tensors: a wrong name or shape is the user's error
        except Exception as e:
            out.write_text(json.dumps({"error": f"{type(e).__name__}: {str(e).splitlines()[0]}", "bad_input": True}))
            return 2
        try:
            codes = inductor_utils.get_code(torch.compile(fn), *tensors)
        except Exception as e:
            out.write_text(json.dumps({"error": f"Inductor failed: {type(e).__name__}: {str(e).splitlines()[0]}",
                                       "bad_input": False}))
            return 1
    wrapper = max(codes, key=len) if codes else ""          # the wrapper with its kernels; the rest are empty
    out.write_text(json.dumps({"wrapper": wrapper, "torch": torch.__version__}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
