"""Dropout: out[i] = x[i] / (1 - p) where tl.rand(seed, i) > p, else 0.

Prepares lesson 11 (fusion: the random mask is made in registers and never stored).

Shapes: x and out are vectors of N elements; p (the probability of dropping) and seed are scalars
passed at launch. The grid is cdiv(N, BLOCK_SIZE) programs. tl.rand(seed, offsets) is Triton's
counter-based generator: Philox 4x32 with 10 rounds, keyed by the seed, run on each offset, turned
into a float in [0, 1). The same (seed, offset) always gives the same number, in any program, on
any GPU, with no state kept between launches. So the random number of element i must be
tl.rand(seed, i) with i the element's index in x: the reference computes the same Philox numbers
for the same indices (in numpy, below) and expects exactly your mask. Kept elements are divided by
1 - p, so that the expected value of out[i] is x[i].

Use: tl.program_id, tl.arange, a mask, tl.rand(seed, offsets), tl.where(keep, x / (1 - p), 0.0).
Check: playground puzzle 11 --solution
"""
import triton
import triton.language as tl

from playground import KernelSpec, Tensor, cdiv

P = 0.25


@triton.jit
def dropout_kernel(
    # pointers
    x_ptr, out_ptr,
    # the probability of dropping an element, and the generator's seed
    p, seed,
    # size
    n_elements,
    # meta-parameters
    BLOCK_SIZE: tl.constexpr,
):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    r = tl.rand(seed, offsets)              # element i's number depends on (seed, i) alone
    keep = r > p
    tl.store(out_ptr + offsets, tl.where(keep, x / (1 - p), 0.0), mask=mask)


def uniform(seed, n):
    """tl.rand(seed, i) for i = 0 .. n - 1, as Triton computes it (triton/language/random.py: philox_impl on
    the counter (i, 0, 0, 0) and the key (seed's low and high 32 bits), then uint_to_uniform_float)."""
    import numpy as np
    import torch
    mask32 = np.uint64(0xFFFFFFFF)
    c0, c1 = np.arange(n, dtype=np.uint64), np.zeros(n, dtype=np.uint64)
    c2, c3 = c1.copy(), c1.copy()
    k0, k1 = np.uint64(seed & 0xFFFFFFFF), np.uint64((seed >> 32) & 0xFFFFFFFF)
    for _ in range(10):                      # each product of two 32-bit words fits a uint64 exactly
        hi_lo_b, hi_lo_a = np.uint64(0xCD9E8D57) * c2, np.uint64(0xD2511F53) * c0
        c0, c2, c1, c3 = ((hi_lo_b >> np.uint64(32)) ^ c1 ^ k0, (hi_lo_a >> np.uint64(32)) ^ c3 ^ k1,
                          hi_lo_b & mask32, hi_lo_a & mask32)
        k0, k1 = (k0 + np.uint64(0x9E3779B9)) & mask32, (k1 + np.uint64(0xBB67AE85)) & mask32
    bits = c0.astype(np.uint32).view(np.int32)
    bits = np.where(bits < 0, ~bits, bits)   # fold the sign away: 31 random bits
    return torch.from_numpy(bits.astype(np.float32) * np.float32(4.6566127342e-10))


def reference(x, seed):
    import torch
    keep = uniform(seed, x.numel()) > P
    return torch.where(keep, x / (1 - P), torch.zeros_like(x))


SPEC = KernelSpec(
    name="11_dropout",
    kernel=dropout_kernel,
    description="out = x / (1 - p) where tl.rand(seed, i) > p, else 0",
    tensors={"x": Tensor(("N",)), "out": Tensor(("N",), output=True)},
    args=lambda x, out, N, seed: (x, out, P, seed, N),
    grid=lambda shape, meta: (cdiv(shape["N"], meta["BLOCK_SIZE"]),),
    meta={"BLOCK_SIZE": 256},
    default_shape={"N": 100000, "seed": 1234},
    dtypes=("fp32",),
    reference=reference,
    cases=[{"N": 1, "seed": 2}, {"N": 1024 + 17, "seed": 1234}, {"N": 20000, "seed": 2024}],
    quick_cases=[{"N": 1, "seed": 2}, {"N": 1024 + 17, "seed": 1234}],
)
