"""The child of passes.py: one compile with MLIR's IR printing on, in a cache of its own.

MLIR_ENABLE_DUMP makes every pass manager Triton builds print the module before each pass, to
stderr (LLVM's unbuffered stream), which the parent points at a file. Between pipelines we write
markers to the same descriptor, so each dump is filed under the Triton stage function that ran it,
and we keep the module as each pipeline leaves it: that is the "after" of its last pass.
"""
from __future__ import annotations

import inspect
import json
import os
import sys
import warnings


def main(settings_file: str) -> int:
    with open(settings_file) as f:
        settings = json.load(f)
    warnings.simplefilter("ignore")         # nothing but dumps and markers on stderr
    from triton._C.libtriton import ir
    finals: dict[str, str] = {}
    original_run = ir.pass_manager.run

    def run(pm, mod, *args):
        pipeline = str(args[0]) if args else inspect.stack()[1].function
        os.write(2, f"\n{BEGIN}{pipeline}\n".encode())
        try:
            return original_run(pm, mod, *args)
        finally:
            os.write(2, f"\n{END}{pipeline}\n".encode())
            finals[pipeline] = str(mod)

    ir.pass_manager.run = run
    from playground.artefact.request import Request
    compiled = Request.from_ref(settings["request"]).compile()
    with open(settings["out"], "w") as f:
        json.dump({"finals": finals, "ttgir": compiled.stage("ttgir")}, f)
    return 0


BEGIN = "// playground: pipeline begins: "
END = "// playground: pipeline ends: "

if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
