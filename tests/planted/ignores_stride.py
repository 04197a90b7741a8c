"""Planted (layouts): a 2-D add that is given both strides of x and uses only the row stride.

Right for every contiguous x (its column stride is 1); wrong for a transposed one."""
import triton
import triton.language as tl

from playground import KernelSpec, Tensor, cdiv


@triton.jit
def add_2d_kernel(x_ptr, y_ptr, out_ptr, M, N, stride_xm, stride_xn, stride_ym, stride_yn, stride_om, stride_on,
                  BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)[:, None]
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)[None, :]
    mask = (rows < M) & (cols < N)
    x = tl.load(x_ptr + rows * stride_xm + cols, mask=mask)       # BUG: cols * stride_xn
    y = tl.load(y_ptr + rows * stride_ym + cols * stride_yn, mask=mask)
    tl.store(out_ptr + rows * stride_om + cols * stride_on, x + y, mask=mask)


def reference(x, y):
    return x + y


SPEC = KernelSpec(
    name="ignores_stride",
    kernel=add_2d_kernel,
    description="planted: ignores the column stride of x",
    tensors={"x": Tensor(("M", "N")), "y": Tensor(("M", "N")), "out": Tensor(("M", "N"), output=True)},
    args=lambda x, y, out, M, N: (x, y, out, M, N, x.stride(0), x.stride(1), y.stride(0), y.stride(1),
                                  out.stride(0), out.stride(1)),
    grid=lambda shape, meta: (cdiv(shape["M"], meta["BLOCK"]), cdiv(shape["N"], meta["BLOCK"])),
    meta={"BLOCK": 32},
    default_shape={"M": 45, "N": 70},
    dtypes=("fp32",),
    reference=reference,
    quick_cases=[{"M": 45, "N": 70}],
)
