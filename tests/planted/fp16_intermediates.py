"""Planted (precision): y = x * w + b computed in fp16, each step rounded to fp16.

Eager PyTorch in fp16 does the same and misses the fp64 reference by as much, so `check`'s rule (an error
at most 10 times PyTorch's own in the same dtype, check/margin.py) passes it, at about 1x. Computing in fp32
and rounding once at the store is more accurate still."""
import triton
import triton.language as tl

from playground import KernelSpec, Tensor, cdiv


@triton.jit
def scale_bias_kernel(x_ptr, w_ptr, b_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    w = tl.load(w_ptr + offsets, mask=mask, other=0.0)
    b = tl.load(b_ptr + offsets, mask=mask, other=0.0)
    tl.store(y_ptr + offsets, x * w + b, mask=mask)                     # BUG: x.to(tl.float32) * w + b


def reference(x, w, b):
    return x * w + b


SPEC = KernelSpec(
    name="fp16_intermediates",
    kernel=scale_bias_kernel,
    description="planted: arithmetic kept in fp16",
    tensors={"x": Tensor(("N",)), "w": Tensor(("N",)), "b": Tensor(("N",)), "y": Tensor(("N",), output=True)},
    args=lambda x, w, b, y, N: (x, w, b, y, N),
    grid=lambda shape, meta: (cdiv(shape["N"], meta["BLOCK"]),),
    meta={"BLOCK": 256},
    default_shape={"N": 2000},
    dtypes=("fp16",),
    reference=reference,
    generators=("randn",),
    quick_cases=[{"N": 2000}],
)
