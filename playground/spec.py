"""The old path of a kernel file's import, kept so kernel files written before the reshape still load.

Write `from playground import KernelSpec, Tensor, cdiv` instead: that is the one public import, and
core/spec.py is where they are defined, not a path to promise. Re-exported from the package (not from
core) so that this leaf imports nothing above it.
"""
import warnings

from playground import KernelSpec, Tensor, cdiv

# A FutureWarning, Python's deprecation warning for a program's users: the author of a kernel file sees it when
# a command loads the file (a DeprecationWarning is hidden unless raised by __main__'s own code).
warnings.warn("playground.spec is deprecated: write `from playground import KernelSpec, Tensor, cdiv`",
              FutureWarning, stacklevel=2)

__all__ = ["KernelSpec", "Tensor", "cdiv"]
