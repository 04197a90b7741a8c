"""A kernel that cannot compile: it loads from a pointer plus a float offset. For the error-path tests."""
import triton
import triton.language as tl

from playground.core.spec import KernelSpec, Tensor, cdiv


@triton.jit
def broken_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs * 0.5)
    tl.store(out_ptr + offs, x, mask=offs < n)


SPEC = KernelSpec(
    name="broken",
    kernel=broken_kernel,
    description="does not compile: a float offset on a pointer",
    tensors={"x": Tensor(("N",)), "out": Tensor(("N",), output=True)},
    args=lambda x, out, N: (x, out, N),
    grid=lambda shape, meta: (cdiv(shape["N"], meta["BLOCK"]),),
    meta={"BLOCK": 256},
    default_shape={"N": 4096},
)
