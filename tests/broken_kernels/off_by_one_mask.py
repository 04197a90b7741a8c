"""vector_add with `<=` in the mask: every in-bounds element is right, and one element past the
end of `out` is written (and one past the ends of `x` and `y` read). Only the guard check sees it."""
import triton
import triton.language as tl

from playground.kernels.vector_add import reference
from playground import KernelSpec, Tensor, cdiv


@triton.jit
def off_by_one_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets <= n_elements          # BUG: should be <
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


SPEC = KernelSpec(
    name="off_by_one_mask",
    kernel=off_by_one_kernel,
    description="known wrong: vector_add whose mask lets one element past the end through",
    tensors={"x": Tensor(("N",)), "y": Tensor(("N",)), "out": Tensor(("N",), output=True)},
    args=lambda x, y, out, N: (x, y, out, N),
    grid=lambda shape, meta: (cdiv(shape["N"], meta["BLOCK_SIZE"]),),
    meta={"BLOCK_SIZE": 256},
    default_shape={"N": 1000},
    dtypes=("fp32",),
    reference=reference,
    cases=[{"N": 1000}],
)
