"""Column sum: out[j] = x[0, j] + ... + x[M - 1, j], rows split over programs, tl.atomic_add.

Prepares lesson 08 (occupancy: enough programs to fill the GPU, and what it costs to merge them).

Shapes: x is (M, N) with strides (stride_xm, stride_xn); out is (N,). The grid is
(cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)): program (pid_m, pid_n) sums a BLOCK_M x BLOCK_N tile down its
rows, and several programs (every pid_m) hold a partial sum for the same columns. They run at the
same time on a GPU, so a plain tl.store of a partial sum, or a load, add and store, loses the others'
work (the check's racecheck reports either). tl.atomic_add does the read, add and write as one
operation on each element. out starts at zero: the @triton.autotune line asks for that
(reset_to_zero), as it would before every launch on a GPU; a launch of your own would pass
torch.zeros. The float additions land in whatever order the programs reach them, so on a GPU the
last bits of out may differ from run to run.

Use: 2-D offsets and masks (puzzle 03) with other=0.0, tl.sum(tile, axis=0),
tl.atomic_add(ptrs, values, mask=).
Check: playground puzzle 8 --solution
"""
import triton
import triton.language as tl

from playground import KernelSpec, Tensor, cdiv


@triton.autotune(configs=[triton.Config({"BLOCK_M": 16, "BLOCK_N": 64})], key=[], reset_to_zero=["out_ptr"])
@triton.jit
def column_sum_kernel(
    # pointers
    x_ptr, out_ptr,
    # sizes
    M, N,
    # strides of x
    stride_xm, stride_xn,
    # meta-parameters
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):
    offs_m = tl.program_id(axis=0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(axis=1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tile = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :] * stride_xn, mask=mask, other=0.0)
    partial = tl.sum(tile, axis=0)          # this program's share of each of its BLOCK_N columns
    # other programs add to the same columns at the same time: the add must be atomic
    tl.atomic_add(out_ptr + offs_n, partial, mask=offs_n < N)


def reference(x):
    return x.sum(dim=0)


SPEC = KernelSpec(
    name="08_column_sum",
    kernel=column_sum_kernel,
    description="out[j] = sum of column j, row blocks merged by tl.atomic_add",
    tensors={"x": Tensor(("M", "N")), "out": Tensor(("N",), output=True)},
    args=lambda x, out, M, N: (x, out, M, N, x.stride(0), x.stride(1)),
    grid=lambda shape, meta: (cdiv(shape["M"], meta["BLOCK_M"]), cdiv(shape["N"], meta["BLOCK_N"])),
    meta={},
    default_shape={"M": 4096, "N": 1000},
    dtypes=("fp32",),
    reference=reference,
    reduction_dim="M",
    cases=[{"M": 1, "N": 1}, {"M": 100, "N": 70}, {"M": 333, "N": 200}],
    quick_cases=[{"M": 1, "N": 1}, {"M": 100, "N": 70}],
)
