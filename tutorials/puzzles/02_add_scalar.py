"""Add a scalar: out[i] = x[i] + value, for any N, masked past the end.

Prepares lesson 02 (your first kernel: vector add and its mask).

Shapes: x and out are vectors of N elements; value is a float passed at launch. N need not be a
multiple of BLOCK_SIZE (the cases have N = 1 and N = 1041): the grid has cdiv(N, BLOCK_SIZE)
programs, and the last one's block runs past the end of the vectors. A lane past the end must
neither load nor store; the check's memcheck names the line of any access that does.

Use: tl.program_id, tl.arange, a comparison (offsets < n_elements) as the mask, tl.load(..., mask=),
tl.store(..., mask=).
Check: playground puzzle 2
"""
import triton
import triton.language as tl

from playground import KernelSpec, Tensor, cdiv

VALUE = 2.5


@triton.jit
def add_scalar_kernel(
    # pointers
    x_ptr, out_ptr,
    # the scalar to add
    value,
    # size
    n_elements,
    # meta-parameters
    BLOCK_SIZE: tl.constexpr,
):
    # Your code: as puzzle 01, with a mask on the load and on the store.
    # This stub writes nothing: the check reports every element of out as never written.
    pass


def reference(x):
    return x + VALUE


SPEC = KernelSpec(
    name="02_add_scalar",
    kernel=add_scalar_kernel,
    description="out = x + value, masked at the end",
    tensors={"x": Tensor(("N",)), "out": Tensor(("N",), output=True)},
    args=lambda x, out, N: (x, out, VALUE, N),
    grid=lambda shape, meta: (cdiv(shape["N"], meta["BLOCK_SIZE"]),),
    meta={"BLOCK_SIZE": 256},
    default_shape={"N": 4096},
    dtypes=("fp32",),
    reference=reference,
    cases=[{"N": 1}, {"N": 1024 + 17}, {"N": 4096}, {"N": 100000}],
    quick_cases=[{"N": 1}, {"N": 1024 + 17}],
)
