"""A spec in one file for a kernel defined in another (bare_add.py)."""
import triton
from bare_add import add_kernel

from playground.core.spec import KernelSpec, Tensor

SPEC = KernelSpec(name="add_elsewhere", kernel=add_kernel, description="out = x + y, kernel from bare_add.py",
                  tensors={"x": Tensor(("N",)), "y": Tensor(("N",)), "out": Tensor(("N",), output=True)},
                  args=lambda x, y, out, N: (x, y, out, N),
                  grid=lambda shape, meta: (triton.cdiv(shape["N"], meta["BLOCK_SIZE"]),),
                  meta={"BLOCK_SIZE": 1024}, default_shape={"N": 4096})
