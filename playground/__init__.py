"""playground: a Triton kernel compiler playground. See README.md.

What a kernel file imports: `from playground import KernelSpec, Tensor, cdiv` (the one public import for
specs; core/spec.py defines them). Importing the package also registers the saved references its upper
layers write (a captured launch `T.json#N`, a plan's kernel `PLAN.json#N`) with core's registry, so they
open wherever the library runs: the CLI, a notebook, a sweep's worker.
"""
__version__ = "0.1.0"

from . import inductor, virtual, web  # noqa: E402,F401  (registration only: their __init__s are light)
from .core.spec import KernelSpec, Tensor, cdiv  # noqa: E402

__all__ = ["KernelSpec", "Tensor", "cdiv", "__version__"]
