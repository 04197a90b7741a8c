"""How fast is `playground compile`, measured against the floor it cannot beat, in one run.

Warm: `playground compile vector_add --show ptx` on a cache hit, whole process, against
`python -c "import triton, click, pygments"` (the imports any such command pays).
Goal: at most 1.3x (issue 12; it was 1.5x before the binder's answer and cuobjdump's were cached).

Cold: `playground compile gemm --target sm_90 --show ptx` with an empty Triton cache,
whole process, against a bare script that calls `triton.compile` on the same kernel with the
same specialisation (also with an empty cache). Goal: at most 1.15x.

Each side runs alternately, REPEAT times; we compare medians. Both run as a user's Python does, reading and
writing bytecode (PYTHONDONTWRITEBYTECODE dropped): with it set, every run would time the compile of the
project's own sources, which the floor's installed packages never pay.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPEAT = int(os.environ.get("REPEAT", "7"))
PY = sys.executable
CLI = [PY, str(ROOT / "cli.py")]
USERS_PYTHON = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

BARE = r'''
import sys; sys.path.insert(0, {root!r})
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource, make_backend
from playground.kernels.gemm import gemm_kernel
target = GPUTarget("cuda", 90, 32)
backend = make_backend(target)
attrs = {{(i,): backend.parse_attr(a) for i, a in {attrs!r}.items()}}
triton.compile(ASTSource(gemm_kernel, {signature!r}, {constexprs!r}, attrs), target=target,
               options={{"num_warps": 8, "num_stages": 3}})
'''


def timed(cmd, env=None) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=ROOT)
    return time.perf_counter() - start


def bare_script() -> str:
    """The bare triton.compile call, with the specialisation playground derives (so both compile the same)."""
    sys.path.insert(0, str(ROOT))
    from playground.artefact import binder
    from playground.core.config import resolve_config
    from playground.core import registry, targets
    spec = registry.load("gemm")
    cfg = resolve_config(spec)
    signature, constexprs, _, _, readable = binder.specialize(spec, targets.resolve("sm_90"), cfg)
    attrs = {i: "D" if "16-byte aligned" in a["assumed"] or "divisible by 16" in a["assumed"] else ""
             for i, a in enumerate(readable) if a["type"] != "constexpr"}
    return BARE.format(root=str(ROOT), signature=signature, constexprs=constexprs, attrs=attrs)


def main():
    env = {**USERS_PYTHON, "NO_COLOR": "1"}
    subprocess.run(CLI + ["compile", "vector_add", "--show", "ptx"], check=True, stdout=subprocess.DEVNULL, env=env)
    imports, warm = [], []
    for _ in range(REPEAT):
        imports.append(timed([PY, "-c", "import triton, click, pygments"], env))
        warm.append(timed(CLI + ["compile", "vector_add", "--show", "ptx"], env))
    ratio = statistics.median(warm) / statistics.median(imports)
    print(f"warm compile   {statistics.median(warm):.3f} s  vs imports {statistics.median(imports):.3f} s  "
          f"ratio {ratio:.2f}x  (goal <= 1.3x)")

    script = bare_script()
    bare, cold = [], []
    for _ in range(max(3, REPEAT // 2)):
        with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
            bare.append(timed([PY, "-c", script], {**env, "TRITON_CACHE_DIR": a}))
            cold.append(timed(CLI + ["compile", "gemm", "--target", "sm_90", "--show", "ptx"],
                              {**env, "TRITON_CACHE_DIR": b}))
    ratio = statistics.median(cold) / statistics.median(bare)
    print(f"cold compile   {statistics.median(cold):.3f} s  vs bare triton.compile {statistics.median(bare):.3f} s  "
          f"ratio {ratio:.2f}x  (goal <= 1.15x)")


if __name__ == "__main__":
    main()
