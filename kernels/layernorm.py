"""layernorm: y = (x - mean) / sqrt(var + eps) * w + b, over each row (the forward pass).

Shapes: x and y are (M, N), rows may be strided; w and b are (N,); mean and rstd are (M,),
in fp32, kept for a backward pass (rstd = 1 / sqrt(var + eps)).

One program per row. It walks the row in chunks of BLOCK_SIZE three times: summing x for the
mean, summing (x - mean)^2 for the variance, then normalising and writing y. Subtracting the
mean before squaring (two passes rather than E[x^2] - E[x]^2) keeps the variance accurate when
|mean| is large next to the spread. The statistics accumulate in fp32 whatever the input dtype.
"""
import triton
import triton.language as tl

from playground import KernelSpec, Tensor


@triton.jit
def layernorm_kernel(
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

    # Pass 1: the mean. Lanes past N load 0 and add nothing.
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(x_ptr + cols, mask=cols < N, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / N

    # Pass 2: the variance, around the mean. Lanes past N must add 0, not mean^2.
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + cols, mask=cols < N, other=0.0).to(tl.float32)
        diff = tl.where(cols < N, x - mean, 0.0)
        acc += diff * diff
    var = tl.sum(acc, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)

    # Pass 3: normalise, scale and shift. x comes from L1 or L2 if the row is still there.
    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(w_ptr + cols, mask=mask)
        b = tl.load(b_ptr + cols, mask=mask)
        x = tl.load(x_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(y_ptr + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


# The problem, written once: layernorm_welford imports EPS, the reference, the byte count and the shape.
EPS = 1e-5


def reference(x, w, b):
    import torch
    mean = x.mean(dim=1)
    var = x.var(dim=1, unbiased=False)
    y = torch.nn.functional.layer_norm(x, (x.shape[1],), w, b, EPS)
    return y, mean, 1 / torch.sqrt(var + EPS)


def heuristics(shape):
    """The whole row in one chunk when it fits in 4096 elements; a warp per 256 elements, up to 8."""
    block = min(triton.next_power_of_2(shape["N"]), 4096)
    return {"BLOCK_SIZE": block, "num_warps": min(max(block // 256, 1), 8)}


def rereads(shape, meta, elem):
    """What passes 2 and 3 read again, chunk by chunk, each with what the program touches from its last read of
    that chunk up to the repeat (for the model, model/traffic.py): in pass 2, the row; in pass 3's chunk j, the
    row and the j chunks of y written since. (y has x's dtype.)"""
    n = shape["N"]
    chunks = [min(meta["BLOCK_SIZE"], n - start) * elem for start in range(0, n, meta["BLOCK_SIZE"])]
    row = n * elem
    pass_3 = [(c, row + sum(chunks[:j])) for j, c in enumerate(chunks)]
    return [(c, row) for c in chunks] + pass_3


# Memory traffic at best: read x and write y once, read w and b once, write mean and rstd:
# (2*M*N + 2*N) * element size + 2*M*4 bytes. Passes 2 and 3 read the row again: from cache while the
# rows of every program resident beside this one fit there, from DRAM again when they do not (rereads).
def bytes_moved(s, elem):
    return (2 * s["M"] * s["N"] + 2 * s["N"]) * elem + 2 * s["M"] * 4


DEFAULT_SHAPE = {"M": 4096, "N": 2048}


# FLOPs per element: 1 add (mean), 3 for the variance (subtract, multiply, add), 4 to normalise
# (subtract, multiply by rstd, multiply by w, add b): 8*M*N.
SPEC = KernelSpec(
    name="layernorm",
    kernel=layernorm_kernel,
    description="layer normalisation forward, one row per program, statistics in fp32",
    tensors={"x": Tensor(("M", "N")), "w": Tensor(("N",)), "b": Tensor(("N",)),
             "y": Tensor(("M", "N"), output=True),
             "mean": Tensor(("M",), dtype="fp32", output=True), "rstd": Tensor(("M",), dtype="fp32", output=True)},
    args=lambda x, w, b, y, mean, rstd, M, N: (x, y, w, b, mean, rstd, x.stride(0), y.stride(0), N, EPS),
    grid=lambda shape, meta: (shape["M"],),
    meta={"BLOCK_SIZE": 1024},
    heuristics=heuristics,
    num_warps=4,
    default_shape=DEFAULT_SHAPE,
    dtypes=("fp32", "fp16", "bf16"),
    reference=reference,
    reduction_dim="N",
    flops=lambda s: 8 * s["M"] * s["N"],
    bytes=bytes_moved,
    rereads=rereads,
    torch_baseline="F.layer_norm(x, (N,), w, b, 1e-5)",
    cases=[{"M": 300, "N": 781}, {"M": 256, "N": 1024}, {"M": 1, "N": 1}, {"M": 16, "N": 8192 + 17},
           {"M": 48, "N": 200, "pad": 56}, {"M": 33, "N": 1000, "meta": {"BLOCK_SIZE": 256}}],
    quick_cases=[{"M": 37, "N": 781}, {"M": 1, "N": 1}, {"M": 7, "N": 1000, "meta": {"BLOCK_SIZE": 256}},
                 {"M": 9, "N": 200, "pad": 56}],
    configs=[{"num_warps": w} for w in (1, 2, 4, 8, 16)],
)
