"""Row max: out[i] = max over j of x[i, j]; the padding lanes must never win.

Prepares lesson 11 (fusion: softmax starts with a row max).

Shapes: as puzzle 05: x is (M, N) with row stride stride_xm, out is (M,), the grid is (M,), BLOCK_N
is N rounded up to a power of two. What a padding lane holds matters now: a 0 there is the maximum
of a row whose values are all negative, and the check runs such rows. A masked load without `other=`
leaves those lanes undefined on a GPU (the check's initcheck poisons them to show it).

Use: tl.load(..., mask=, other=-float("inf")), tl.max(x, axis=0).
Check: playground puzzle 6
"""
import triton
import triton.language as tl

from playground import KernelSpec, Tensor


@triton.jit
def row_max_kernel(
    # pointers
    x_ptr, out_ptr,
    # stride between rows
    stride_xm,
    # size of a row
    N,
    # meta-parameters
    BLOCK_N: tl.constexpr,
):
    # Your code: load this program's row so that padding lanes never win, take its max, store it.
    # This stub writes nothing: the check reports every element of out as never written.
    pass


def reference(x):
    return x.amax(dim=1)


def heuristics(shape):
    return {"BLOCK_N": triton.next_power_of_2(shape["N"])}


SPEC = KernelSpec(
    name="06_row_max",
    kernel=row_max_kernel,
    description="out[i] = max of row i, padding read as -inf",
    tensors={"x": Tensor(("M", "N")), "out": Tensor(("M",), output=True)},
    args=lambda x, out, M, N: (x, out, x.stride(0), N),
    grid=lambda shape, meta: (shape["M"],),
    meta={"BLOCK_N": 1024},
    heuristics=heuristics,
    default_shape={"M": 1024, "N": 1000},
    dtypes=("fp32",),
    reference=reference,
    reduction_dim="N",
    cases=[{"M": 1, "N": 1}, {"M": 37, "N": 100}, {"M": 17, "N": 128 + 17}, {"M": 64, "N": 1024 + 17}],
    quick_cases=[{"M": 1, "N": 1}, {"M": 17, "N": 128 + 17}],
)
