"""A correct Welford layer norm as a user might write it elsewhere, with a spec of its own: 5 configs, 3 dtypes,
6 cases. The kernel the speed item of issue 41 was measured on (benchmarks/check_cost.py times its check).

Each block's count, mean and sum of squared deviations come from one tl.reduce with a combine function of its
own (Chan et al.'s rule for merging two groups), then merge into the row's running ones by the same rule; a
second pass normalises. Its cases are layernorm's, all under check's 1M-element line, so a full check runs every
input class, layout and config on every one of them.
"""
import triton
import triton.language as tl

from playground import KernelSpec, Tensor

EPS = 1e-5


@triton.jit
def chan_merge(mean_a, m2_a, count_a, mean_b, m2_b, count_b):
    count = count_a + count_b
    share_b = tl.where(count > 0, count_b / tl.maximum(count, 1.0), 0.0)
    delta = mean_b - mean_a
    return mean_a + delta * share_b, m2_a + m2_b + delta * delta * count_a * share_b, count


@triton.jit
def welford_layernorm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, x_row_stride, y_row_stride, n_cols, eps,
                             BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    count = 0.0
    mean = 0.0
    m2 = 0.0
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=0.0).to(tl.float32)
        # each lane a group of one element (or none, past the row), merged into the block's group
        block_mean, block_m2, block_count = tl.reduce((x, tl.zeros_like(x), mask.to(tl.float32)), 0, chan_merge)
        mean, m2, count = chan_merge(mean, m2, count, block_mean, block_m2, block_count)
    rstd = 1 / tl.sqrt(m2 / count + eps)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(y_ptr + row * y_row_stride + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def reference(x, w, b):
    import torch
    return torch.nn.functional.layer_norm(x, (x.shape[1],), w, b, EPS)


SPEC = KernelSpec(
    name="welford_layernorm",
    kernel=welford_layernorm_kernel,
    description="correct: layer norm with Welford's mean and variance, merged block by block",
    tensors={"x": Tensor(("M", "N")), "w": Tensor(("N",)), "b": Tensor(("N",)), "y": Tensor(("M", "N"), output=True)},
    args=lambda x, w, b, y, M, N: (x, y, w, b, x.stride(0), y.stride(0), N, EPS),
    grid=lambda shape, meta: (shape["M"],),
    meta={"BLOCK_SIZE": 256},
    num_warps=4,
    default_shape={"M": 256, "N": 1024},
    dtypes=("fp32", "fp16", "bf16"),
    reference=reference,
    reduction_dim="N",
    cases=[{"M": 300, "N": 781}, {"M": 256, "N": 1024}, {"M": 1, "N": 1}, {"M": 16, "N": 8192 + 17},
           {"M": 48, "N": 200, "pad": 56}, {"M": 33, "N": 1000}],
    quick_cases=[{"M": 37, "N": 781}, {"M": 1, "N": 1}, {"M": 9, "N": 200, "pad": 56}],
    configs=[{"BLOCK_SIZE": b, "num_warps": w} for b, w in ((64, 2), (128, 4), (256, 4), (512, 8), (1024, 8))],
)
