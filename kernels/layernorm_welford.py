"""layernorm_welford: layer normalisation that reads each row twice, not three times (the forward pass).

The same maths, outputs and PyTorch reference as layernorm.py: y = (x - mean) / sqrt(var + eps) * w + b over each row, with
mean and rstd kept in fp32 for a backward pass. What changes is how the statistics are gathered. Instead
of one pass for the mean and another for the variance, every lane keeps a running count, mean and sum of
squared deviations (Welford's update) while x streams past once; the lanes' partial results are then
merged in a single tl.reduce (Chan, Golub and LeVeque's rule for combining two groups). A second pass
re-reads the row to normalise it.

This is how PyTorch's own CUDA kernel does it. Eager `F.layer_norm` on fp32, fp16 or bf16 rows whose
length is a multiple of 4 runs ATen's vectorized_layer_norm_kernel (aten/src/ATen/native/cuda/
layer_norm_kernel.cu): one CTA per row of num_threads() = 4 warps (ATen's thread_constants.h), each
thread reading 4 elements at a time, Welford statistics, then a second read of the row. The default
config here is that launch, BLOCK_SIZE=512 (128 threads x 4) and num_warps=4, so the performance model
can stand this kernel in for PyTorch's (benchmarks/model_accuracy.py).

Whether the second read is cheap depends on the chip, not the kernel: while a row is read twice, every
other resident program reads its own row. A small row comes back from L1; once the rows in flight
outgrow L2, the second read goes to DRAM and the kernel moves 3 bytes for every 2 it needs.
"""
import triton
import triton.language as tl

from playground.kernels.layernorm import DEFAULT_SHAPE, EPS, bytes_moved, reference
from playground import KernelSpec, Tensor


@triton.jit
def welford_merge(mean_a, m2_a, count_a, mean_b, m2_b, count_b):
    # Two groups' (mean, sum of squared deviations, count) as one group's. An empty group (count 0)
    # changes nothing: its share of the merged count is 0.
    count = count_a + count_b
    share_b = count_b / tl.maximum(count, 1.0)
    delta = mean_b - mean_a
    return mean_a + delta * share_b, m2_a + m2_b + delta * delta * count_a * share_b, count


@triton.jit
def layernorm_welford_kernel(
    # pointers
    x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr,
    # strides between rows
    stride_xm, stride_ym,
    # size of a row
    N,
    # added to the variance, so that a constant row does not divide by zero
    eps,
    # meta-parameters
    BLOCK_SIZE: tl.constexpr,
):
    row = tl.program_id(axis=0)
    x_ptr += row * stride_xm
    y_ptr += row * stride_ym

    # Pass 1: each lane's Welford state over the elements it sees. Lanes past N keep their state.
    mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    count = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        in_row = cols < N
        x = tl.load(x_ptr + cols, mask=in_row, other=0.0).to(tl.float32)
        seen = count + 1.0
        delta = x - mean
        moved = mean + delta / seen
        m2 = tl.where(in_row, m2 + delta * (x - moved), m2)
        mean = tl.where(in_row, moved, mean)
        count = tl.where(in_row, seen, count)

    # The lanes' states merged into the row's: its mean, and its variance as M2 / N.
    mean, m2, count = tl.reduce((mean, m2, count), 0, welford_merge)
    rstd = 1 / tl.sqrt(m2 / count + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)

    # Pass 2: normalise, scale and shift. x comes from L1, L2 or DRAM: wherever the row still is.
    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(w_ptr + cols, mask=mask)
        b = tl.load(b_ptr + cols, mask=mask)
        x = tl.load(x_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(y_ptr + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def rereads(shape, meta, elem):
    """What pass 2 reads again, chunk by chunk, each with what the program touches from its last read of that
    chunk up to the repeat (for the model, model/traffic.py): for chunk j, the row and the j chunks of y
    written since. (y has x's dtype.)"""
    n = shape["N"]
    chunks = [min(meta["BLOCK_SIZE"], n - start) * elem for start in range(0, n, meta["BLOCK_SIZE"])]
    return [(c, n * elem + sum(chunks[:j])) for j, c in enumerate(chunks)]


# Memory traffic at best, layernorm.py's bytes_moved: read x and write y once, read w and b once, write mean and
# rstd: (2*M*N + 2*N) * element size + 2*M*4 bytes; pass 2's read of the row again is in rereads. FLOPs per
# element: 7 for Welford's update (count + 1, two subtracts, a divide, an add, a multiply and an add), 4 to
# normalise (subtract, multiply by rstd, multiply by w, add b): 11*M*N. Special functions: the update's
# divide is one reciprocal per element (div.full.f32: MUFU.RCP, a multiply and a range check). Not counted:
# the merge's divides and 1 / sqrt, about 13 per thread in the SASS at 4 warps (1,700 a row whatever N),
# which at N >= 1024 leave the special-function term far from what bounds the kernel.
SPEC = KernelSpec(
    name="layernorm_welford",
    kernel=layernorm_welford_kernel,
    description="layer normalisation forward in two passes, Welford statistics: PyTorch's own kernel's structure",
    tensors={"x": Tensor(("M", "N")), "w": Tensor(("N",)), "b": Tensor(("N",)),
             "y": Tensor(("M", "N"), output=True),
             "mean": Tensor(("M",), dtype="fp32", output=True), "rstd": Tensor(("M",), dtype="fp32", output=True)},
    args=lambda x, w, b, y, mean, rstd, M, N: (x, y, w, b, mean, rstd, x.stride(0), y.stride(0), N, EPS),
    grid=lambda shape, meta: (shape["M"],),
    meta={"BLOCK_SIZE": 512},
    num_warps=4,
    default_shape=DEFAULT_SHAPE,
    dtypes=("fp32", "fp16", "bf16"),
    reference=reference,
    reduction_dim="N",
    flops=lambda s: 11 * s["M"] * s["N"],
    special=lambda s: s["M"] * s["N"],
    bytes=bytes_moved,
    rereads=rereads,
    torch_baseline="F.layer_norm(x, (N,), w, b, 1e-5)",
    cases=[{"M": 300, "N": 781}, {"M": 256, "N": 1024}, {"M": 1, "N": 1}, {"M": 16, "N": 8192 + 17},
           {"M": 48, "N": 200, "pad": 56}, {"M": 33, "N": 1000, "meta": {"BLOCK_SIZE": 256}}],
    quick_cases=[{"M": 37, "N": 781}, {"M": 1, "N": 1}, {"M": 7, "N": 1000, "meta": {"BLOCK_SIZE": 256}},
                 {"M": 9, "N": 200, "pad": 56}],
    configs=[{"BLOCK_SIZE": b, "num_warps": w} for b, w in ((512, 4), (1024, 4), (2048, 8), (4096, 8))],
)
