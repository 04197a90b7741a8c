"""Compile a generated kernel as Inductor's own CachingAutotuner does (precompile, every config) for a target,
under the same fakes `playground fuse` plans with; print each config's cubin digest as JSON.

    python tests/data/inductor_precompile.py KERNEL_MODULE.py NAME TARGET
"""
import hashlib
import importlib.util
import json
import sys

from playground.inductor import fakes

module_path, name, target = sys.argv[1:4]
fakes.install(target)
spec = importlib.util.spec_from_file_location(name, module_path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
tuner = getattr(module, name)
tuner.precompile()
print(json.dumps([hashlib.sha256(r.kernel.asm["cubin"]).hexdigest() for r in tuner.compile_results]))
