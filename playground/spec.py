"""The old path of a kernel file's import, kept so kernel files written before the reshape still load.

Write `from playground import KernelSpec, Tensor, cdiv` instead: that is the one public import, and
core/spec.py is where they are defined, not a path to promise. Re-exported from the package (not from
core) so that this leaf imports nothing above it.
"""
import warnings

from playground import KernelSpec, Tensor, cdiv

warnings.warn("playground.spec is deprecated: write `from playground import KernelSpec, Tensor, cdiv`",
              DeprecationWarning, stacklevel=2)

__all__ = ["KernelSpec", "Tensor", "cdiv"]
