"""A copy kernel that crashes the compiler for one tile size. For the sweep's crash-isolation tests.

`TILE=64` makes the compiling process exit at once (as a segfault inside the compiler would);
`TILE=16` makes it hang (as a compiler stuck in a loop would); `TILE=48` is rejected by Triton
itself (tl.arange needs a power of two). Every other power of two compiles.
"""
import triton
import triton.language as tl

from playground.core.spec import KernelSpec, Tensor, cdiv

DEADLY_TILE = 64
HANGING_TILE = 16


@triton.constexpr_function
def checked(tile):
    # Runs inside the compiler, as a constexpr function. Spelled through __import__ because
    # Triton refuses kernels whose dependencies name os._exit.
    if tile == DEADLY_TILE:
        __import__("os")._exit(7)
    if tile == HANGING_TILE:
        __import__("time").sleep(3600)
    return tile


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, TILE: tl.constexpr):
    offs = tl.program_id(0) * TILE + tl.arange(0, checked(TILE))
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


SPEC = KernelSpec(
    name="crashy",
    kernel=copy_kernel,
    description="y = x, but TILE=64 kills the compiler and TILE=48 is rejected",
    tensors={"x": Tensor(("N",)), "y": Tensor(("N",), output=True)},
    args=lambda x, y, N: (x, y, N),
    grid=lambda shape, meta: (cdiv(shape["N"], meta["TILE"]),),
    meta={"TILE": 128},
    default_shape={"N": 4096},
    configs=[{"TILE": t, "num_warps": 4, "num_stages": 1} for t in (32, 48, 64, 128)],
)
