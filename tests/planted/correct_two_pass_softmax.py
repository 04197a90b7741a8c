"""Correct, written differently: a softmax over rows longer than its block, in two passes.

The first pass keeps a running maximum and a running sum rescaled as the maximum grows (the
online softmax); the second writes exp(x - max) / sum. Masked-out lanes read -inf."""
import triton
import triton.language as tl

from playground.kernels.softmax import reference
from playground import KernelSpec, Tensor


@triton.jit
def two_pass_softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    running_max = -float("inf")
    running_sum = 0.0
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(in_ptr + row * in_row_stride + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
        new_max = tl.maximum(running_max, tl.max(x, axis=0))
        running_sum = running_sum * tl.exp(running_max - new_max) + tl.sum(tl.exp(x - new_max), axis=0)
        running_max = new_max
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
        y = tl.exp(x - running_max) / running_sum
        tl.store(out_ptr + row * out_row_stride + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


SPEC = KernelSpec(
    name="correct_two_pass_softmax",
    kernel=two_pass_softmax_kernel,
    description="correct: online softmax in two passes over blocks",
    tensors={"x": Tensor(("M", "N")), "y": Tensor(("M", "N"), output=True)},
    args=lambda x, y, M, N: (y, x, x.stride(0), y.stride(0), N),
    grid=lambda shape, meta: (shape["M"],),
    meta={"BLOCK_SIZE": 64},
    default_shape={"M": 16, "N": 200},
    dtypes=("fp32", "fp16"),
    reference=reference,
    reduction_dim="N",
    generators=("randn", "large", "huge", "negative", "equal", "neg_inf"),
    quick_cases=[{"M": 16, "N": 200}],
    configs=[{"BLOCK_SIZE": b} for b in (32, 64, 256)],
)
