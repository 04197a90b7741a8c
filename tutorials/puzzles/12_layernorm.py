"""Layer norm, forward: (x - mean) / sqrt(var + eps) * w + b, row by row.

out[i, :] = (x[i, :] - mean_i) / sqrt(var_i + eps) * w + b, one program per row.

Prepares lesson 11 (fusion and the roofline: layer norm's statistics and its output from one read).

Shapes: x and out are (M, N), each with its own row stride; w and b are (N,); eps = 1e-5. mean_i is
the row's mean and var_i its variance with 1/N (not 1/(N - 1)), as torch.nn.functional.layer_norm
takes it. The grid is (M,); BLOCK_N is N rounded up to a power of two. Two sums per row now, and
the padding lanes must add 0 to both: a lane loaded as 0 adds (0 - mean)^2 to the variance unless
it is masked out again after the subtraction. Compute the variance around the mean (the mean of
(x - mean)^2), which stays accurate when the mean is large next to the spread.

Use: tl.load(..., other=0.0), tl.sum, tl.where(mask, x - mean, 0.0), tl.sqrt (or tl.rsqrt), tl.store.
Check: playground puzzle 12
"""
import triton
import triton.language as tl

from playground import KernelSpec, Tensor

EPS = 1e-5


@triton.jit
def layernorm_kernel(
    # pointers
    x_ptr, w_ptr, b_ptr, out_ptr,
    # strides between rows
    stride_xm, stride_om,
    # size of a row
    N,
    # added to the variance, so that a constant row does not divide by zero
    eps,
    # meta-parameters
    BLOCK_N: tl.constexpr,
):
    # Your code: load the row, its mean, its variance around the mean (padding lanes zeroed), then
    # (x - mean) / sqrt(var + eps) * w + b, stored.
    # This stub writes nothing: the check reports every element of out as never written.
    pass


def reference(x, w, b):
    import torch
    return torch.nn.functional.layer_norm(x, (x.shape[1],), w, b, EPS)


def heuristics(shape):
    return {"BLOCK_N": triton.next_power_of_2(shape["N"])}


SPEC = KernelSpec(
    name="12_layernorm",
    kernel=layernorm_kernel,
    description="layer norm of each row, forward, the row in one program",
    tensors={"x": Tensor(("M", "N")), "w": Tensor(("N",)), "b": Tensor(("N",)), "out": Tensor(("M", "N"), output=True)},
    args=lambda x, w, b, out, M, N: (x, w, b, out, x.stride(0), out.stride(0), N, EPS),
    grid=lambda shape, meta: (shape["M"],),
    meta={"BLOCK_N": 1024},
    heuristics=heuristics,
    default_shape={"M": 1024, "N": 1000},
    dtypes=("fp32",),
    reference=reference,
    reduction_dim="N",
    cases=[{"M": 1, "N": 1}, {"M": 37, "N": 100}, {"M": 17, "N": 128 + 17}, {"M": 64, "N": 1024 + 17}],
    quick_cases=[{"M": 1, "N": 1}, {"M": 17, "N": 128 + 17}],
)
