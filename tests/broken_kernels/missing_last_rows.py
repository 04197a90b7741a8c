"""relu_matmul launched with a grid that rounds down: the last, partial block of rows is never
computed. The kernel is the real one; the bug is in the grid, a common way to get this wrong."""
from playground.kernels.relu_matmul import reference, relu_matmul_kernel
from playground import KernelSpec, Tensor, cdiv

SPEC = KernelSpec(
    name="missing_last_rows",
    kernel=relu_matmul_kernel,
    description="known wrong: relu_matmul whose grid skips the last block of rows",
    tensors={"a": Tensor(("M", "K")), "b": Tensor(("K", "N")), "c": Tensor(("M", "N"), output=True)},
    args=lambda a, b, c, M, N, K: (a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                   c.stride(0), c.stride(1)),
    # BUG: M // BLOCK_SIZE_M should be cdiv(M, BLOCK_SIZE_M)
    grid=lambda shape, meta: (shape["M"] // meta["BLOCK_SIZE_M"], cdiv(shape["N"], meta["BLOCK_SIZE_N"])),
    meta={"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 32},
    default_shape={"M": 32 + 17, "N": 40, "K": 24},
    dtypes=("fp16",),
    reference=reference,
    reduction_dim="K",
    cases=[{"M": 32 + 17, "N": 40, "K": 24}],
)
