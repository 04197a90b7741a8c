"""Softmax, backward: dx = y * (dy - sum_j y_j dy_j), from y = softmax(x) and dy.

Given y = softmax(x) per row and dy = dL/dy, compute dx = dL/dx, one program per row.

Prepares lesson 11 (fusion: a backward pass that reads two tensors and writes one, in one pass).

Shapes: y, dy and dx are (M, N), each with its own row stride; the grid is (M,); BLOCK_N is N rounded
up to a power of two. Why the formula: y_j = exp(x_j) / s, so dy_j/dx_k = y_j * ([j == k] - y_k), and
dx_k = sum_j dy_j * y_j * ([j == k] - y_k) = y_k * (dy_k - sum_j y_j dy_j). One dot product per row,
then one elementwise step: x itself is not needed. The check's y are real softmax rows, and its
reference is PyTorch's autograd, not this formula.

Use: masked loads with other=0.0, tl.sum(y * dy, axis=0), elementwise arithmetic, tl.store(..., mask=).
Check: playground puzzle 13 --solution
"""
import triton
import triton.language as tl

from playground import KernelSpec, Tensor


@triton.jit
def softmax_backward_kernel(
    # pointers
    y_ptr, dy_ptr, dx_ptr,
    # strides between rows
    stride_ym, stride_dym, stride_dxm,
    # size of a row
    N,
    # meta-parameters
    BLOCK_N: tl.constexpr,
):
    row = tl.program_id(axis=0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    y = tl.load(y_ptr + row * stride_ym + cols, mask=mask, other=0.0)
    dy = tl.load(dy_ptr + row * stride_dym + cols, mask=mask, other=0.0)
    dot = tl.sum(y * dy, axis=0)           # padding lanes: 0 * 0, nothing added
    tl.store(dx_ptr + row * stride_dxm + cols, y * (dy - dot), mask=mask)


def make_inputs(shape, dtype, seed):
    import torch
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(shape["M"], shape["N"], generator=gen)
    return {"y": torch.softmax(x, dim=1), "dy": torch.randn(shape["M"], shape["N"], generator=gen)}


def reference(y, dy):
    import torch
    # softmax(log y) = y (log y and x differ by a constant per row, which softmax ignores), and its
    # gradient is the one at x: autograd through that, with no formula of ours
    x = y.log().requires_grad_()
    torch.softmax(x, dim=1).backward(dy)
    return x.grad


def heuristics(shape):
    return {"BLOCK_N": triton.next_power_of_2(shape["N"])}


SPEC = KernelSpec(
    name="13_softmax_backward",
    kernel=softmax_backward_kernel,
    description="dx = y * (dy - sum(y * dy)) per row, softmax's backward",
    tensors={"y": Tensor(("M", "N")), "dy": Tensor(("M", "N")), "dx": Tensor(("M", "N"), output=True)},
    args=lambda y, dy, dx, M, N: (y, dy, dx, y.stride(0), dy.stride(0), dx.stride(0), N),
    grid=lambda shape, meta: (shape["M"],),
    meta={"BLOCK_N": 1024},
    heuristics=heuristics,
    make_inputs=make_inputs,
    default_shape={"M": 1024, "N": 1000},
    dtypes=("fp32",),
    reference=reference,
    reduction_dim="N",
    cases=[{"M": 1, "N": 2}, {"M": 37, "N": 100}, {"M": 17, "N": 128 + 17}, {"M": 64, "N": 1024 + 17}],
    quick_cases=[{"M": 1, "N": 2}, {"M": 17, "N": 128 + 17}],
)
