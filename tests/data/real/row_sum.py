"""A reduction whose block follows the row length, set by @triton.heuristics rather than by the caller."""
import triton
import triton.language as tl

from playground.core.spec import KernelSpec, Tensor


@triton.heuristics({"BLOCK": lambda args: triton.next_power_of_2(args["n_cols"])})
@triton.jit
def row_sum(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(x, axis=0))


def reference(x):
    import torch
    return torch.sum(x, dim=1)


SPEC = KernelSpec(name="row_sum", kernel=row_sum, description="out[i] = sum_j x[i, j]",
                  tensors={"x": Tensor(("M", "N")), "out": Tensor(("M",), output=True)},
                  args=lambda x, out, M, N: (x, out, N), grid=lambda shape, meta: (shape["M"],),
                  meta={}, default_shape={"M": 64, "N": 781}, reference=reference,
                  reduction_dim="N", cases=[{"M": 64, "N": 781}], quick_cases=[{"M": 64, "N": 781}])
