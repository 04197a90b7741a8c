"""A user's own file with two kernel specs, as `playground compile ./my_kernels.py:scale` takes it."""
import triton
import triton.language as tl

from playground.core.spec import KernelSpec, Tensor, cdiv


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * factor, mask=mask)


@triton.jit
def negate_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, -tl.load(x_ptr + offs, mask=mask), mask=mask)


def _spec(name, kernel, args, reference):
    return KernelSpec(name=name, kernel=kernel, description=f"{name} a vector",
                      tensors={"x": Tensor(("N",)), "out": Tensor(("N",), output=True)}, args=args,
                      grid=lambda shape, meta: (cdiv(shape["N"], meta["BLOCK"]),), meta={"BLOCK": 512},
                      default_shape={"N": 8192}, reference=reference)


SCALE = _spec("scale", scale_kernel, lambda x, out, N: (x, out, N, 2.0), lambda x: x * 2.0)
NEGATE = _spec("negate", negate_kernel, lambda x, out, N: (x, out, N), lambda x: -x)
