"""A kernel that cannot run: it adds blocks of different sizes. `check` must say which line."""
import triton
import triton.language as tl

from playground.kernels.vector_add import reference
from playground import KernelSpec, Tensor, cdiv


@triton.jit
def crashing_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    wider = tl.arange(0, 2 * BLOCK_SIZE)
    tl.store(out_ptr + offsets, x + y + wider, mask=mask)   # BUG: shapes (BLOCK_SIZE,) and (2*BLOCK_SIZE,)


SPEC = KernelSpec(
    name="crashes",
    kernel=crashing_kernel,
    description="known wrong: adds a block of the wrong size",
    tensors={"x": Tensor(("N",)), "y": Tensor(("N",)), "out": Tensor(("N",), output=True)},
    args=lambda x, y, out, N: (x, y, out, N),
    grid=lambda shape, meta: (cdiv(shape["N"], meta["BLOCK_SIZE"]),),
    meta={"BLOCK_SIZE": 64},
    default_shape={"N": 100},
    dtypes=("fp32",),
    reference=reference,
    cases=[{"N": 100}],
)
