"""A kernel whose output type is a constexpr, and whose helper lives in a module beside it."""
import triton
import triton.language as tl
from real_helpers import doubled

from playground.core.spec import KernelSpec, Tensor


@triton.jit
def convert(x_ptr, y_ptr, n, OUT_DTYPE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, doubled(x).to(OUT_DTYPE), mask=offs < n)


def reference(x):
    import torch
    return (2 * x).to(torch.float16)


SPEC = KernelSpec(name="convert", kernel=convert, description="y = (2x).to(OUT_DTYPE)",
                  tensors={"x": Tensor(("N",)), "y": Tensor(("N",), dtype="fp16", output=True)},
                  args=lambda x, y, N: (x, y, N), grid=lambda shape, meta: (triton.cdiv(shape["N"], meta["BLOCK"]),),
                  meta={"OUT_DTYPE": tl.float16, "BLOCK": 256}, default_shape={"N": 1000},
                  reference=reference, cases=[{"N": 1000}], quick_cases=[{"N": 1000}])
