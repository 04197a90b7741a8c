"""Matmul with a K tail: c = a @ b by tl.dot, K not a multiple of BLOCK_K.

Prepares lessons 09 (tiled GEMM and tensor cores) and 10 (the K loop that pipelining overlaps).

Shapes: a is (M, K), b is (K, N), c is (M, N), fp16, each reached through its two strides. The grid
is (cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)). A program keeps a BLOCK_M x BLOCK_N fp32 accumulator and
adds, for each step k0 = 0, BLOCK_K, 2 * BLOCK_K, ..., the product of a's BLOCK_M x BLOCK_K tile at
columns k0 ... and b's BLOCK_K x BLOCK_N tile at rows k0 ... K is not a multiple of BLOCK_K in the
cases (K = 100 with BLOCK_K = 32), so the last step's tiles run past K: those lanes must load 0,
in a and in b, or the product adds whatever lies past the end (a neighbouring row, or poison).
The stub already holds the accumulator and the masked store: the loop is yours. Cast the fp32
accumulator to c's dtype at the store.

Use: for k0 in range(0, K, BLOCK_K), 2-D masked loads with other=0.0 (the K mask on a's columns
and b's rows, the M and N masks as in puzzle 03), tl.dot(a_tile, b_tile, acc).
Check: playground puzzle 14
"""
import triton
import triton.language as tl

from playground import KernelSpec, Tensor, cdiv


@triton.jit
def matmul_kernel(
    # pointers
    a_ptr, b_ptr, c_ptr,
    # sizes
    M, N, K,
    # strides
    stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
    # meta-parameters
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):
    offs_m = tl.program_id(axis=0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(axis=1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    # Your code: the loop over K in steps of BLOCK_K, each step a masked tile of a, a masked tile
    # of b, and tl.dot(a, b, acc). This stub has no loop: it stores the zeros acc starts as.
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def reference(a, b):
    return a @ b


SPEC = KernelSpec(
    name="14_matmul_k_tail",
    kernel=matmul_kernel,
    description="c = a @ b, K not a multiple of BLOCK_K",
    tensors={"a": Tensor(("M", "K")), "b": Tensor(("K", "N")), "c": Tensor(("M", "N"), output=True)},
    args=lambda a, b, c, M, N, K: (a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                   c.stride(0), c.stride(1)),
    grid=lambda shape, meta: (cdiv(shape["M"], meta["BLOCK_M"]), cdiv(shape["N"], meta["BLOCK_N"])),
    meta={"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32},
    default_shape={"M": 512, "N": 512, "K": 500},
    dtypes=("fp16",),
    reference=reference,
    reduction_dim="K",
    # not x100: fp16 products of K such terms pass 65504, the largest fp16, in the reference itself
    generators=("randn", "negative", "equal"),
    cases=[{"M": 1, "N": 1, "K": 1}, {"M": 40, "N": 50, "K": 100}, {"M": 64, "N": 64, "K": 64},
           {"M": 100, "N": 90, "K": 333}],
    quick_cases=[{"M": 1, "N": 1, "K": 1}, {"M": 40, "N": 50, "K": 100}],
)
