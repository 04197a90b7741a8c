"""The child of passes.py: one compile with MLIR's IR printing on, then one timed, each in a cache of its own.

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

from .. import compat


def main(settings_file: str) -> int:
    with open(settings_file) as f:
        settings = json.load(f)
    warnings.simplefilter("ignore")         # nothing but dumps and markers on stderr
    ir = compat.reach("libtriton_ir")
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
    dumped = dict(finals)
    # The same compile again, timed: MLIR's timing report for every pass manager, Triton's CompileTimes for
    # every stage, with IR printing off (printing every module would be most of what is timed), in a cache
    # of its own so that it compiles.
    os.environ.pop("MLIR_ENABLE_DUMP", None)
    os.environ["MLIR_ENABLE_TIMING"] = "1"
    os.environ["TRITON_CACHE_DIR"] = settings["timing_cache"]
    os.write(2, f"\n{TIMING}\n".encode())
    timed = Request.from_ref(settings["request"]).compile()
    with open(settings["out"], "w") as f:
        json.dump({"finals": dumped, "ttgir": compiled.stage("ttgir"), "stage_seconds": timed.stage_seconds}, f)
    return 0


TIMING = "// playground: the timed compile begins"
BEGIN = "// playground: pipeline begins: "
END = "// playground: pipeline ends: "

if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
