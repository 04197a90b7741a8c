"""Planted (memcheck): a copy whose load mask lets one element past the end through.

The store's mask is right, so every output is right and nothing outside `out` is written; only
the read of x[N] is wrong, and on a GPU it may fault."""
import triton
import triton.language as tl

from playground import KernelSpec, Tensor, cdiv


@triton.jit
def copy_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets <= n_elements)             # BUG: offsets < n_elements
    tl.store(out_ptr + offsets, x, mask=offsets < n_elements)


def reference(x):
    return x.clone()


SPEC = KernelSpec(
    name="reads_one_past",
    kernel=copy_kernel,
    description="planted: a load mask one element too long",
    tensors={"x": Tensor(("N",)), "out": Tensor(("N",), output=True)},
    args=lambda x, out, N: (x, out, N),
    grid=lambda shape, meta: (cdiv(shape["N"], meta["BLOCK_SIZE"]),),
    meta={"BLOCK_SIZE": 128},
    default_shape={"N": 300},
    dtypes=("fp32",),
    reference=reference,
    quick_cases=[{"N": 300}],
)
