"""Copy: out[i] = x[i], one full block of BLOCK_SIZE elements per program.

Prepares lesson 02 (your first kernel).

Shapes: x and out are vectors of N elements, and every case's N is a multiple of BLOCK_SIZE, so each
program's block is full: no mask yet (puzzle 02 needs one). The grid has N / BLOCK_SIZE programs;
program `pid` owns elements pid * BLOCK_SIZE up to pid * BLOCK_SIZE + BLOCK_SIZE - 1.

Use: tl.program_id(axis=0), tl.arange(0, BLOCK_SIZE), tl.load, tl.store.
Check: playground puzzle 1 --solution
"""
import triton
import triton.language as tl

from playground import KernelSpec, Tensor, cdiv


@triton.jit
def copy_kernel(
    # pointers
    x_ptr, out_ptr,
    # size
    n_elements,
    # meta-parameters
    BLOCK_SIZE: tl.constexpr,
):
    pid = tl.program_id(axis=0)                          # which block this program owns
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)   # a vector of BLOCK_SIZE element indices
    x = tl.load(x_ptr + offsets)                         # pointer + vector of offsets: a vector of addresses
    tl.store(out_ptr + offsets, x)


def reference(x):
    return x.clone()


def constraints(shape, dtype, meta):
    if shape["N"] % meta["BLOCK_SIZE"]:
        return f"N={shape['N']} is not a multiple of BLOCK_SIZE={meta['BLOCK_SIZE']}: this puzzle has no mask"
    return None


SPEC = KernelSpec(
    name="01_copy",
    kernel=copy_kernel,
    description="out = x, a full block per program",
    tensors={"x": Tensor(("N",)), "out": Tensor(("N",), output=True)},
    args=lambda x, out, N: (x, out, N),
    grid=lambda shape, meta: (cdiv(shape["N"], meta["BLOCK_SIZE"]),),
    meta={"BLOCK_SIZE": 256},
    default_shape={"N": 4096},
    dtypes=("fp32",),
    reference=reference,
    constraints=constraints,
    cases=[{"N": 256}, {"N": 2560}, {"N": 4096}],
    quick_cases=[{"N": 256}, {"N": 2560}],
)
