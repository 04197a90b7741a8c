"""Tutorial 02's habit: a constexpr named `num_stages`, which is also the launch option of that name."""
import triton
import triton.language as tl

from playground.core.spec import KernelSpec, Tensor


@triton.jit
def row_copy(x_ptr, y_ptr, n_rows, n_cols, BLOCK: tl.constexpr, num_stages: tl.constexpr):
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0), num_stages=num_stages):
        cols = tl.arange(0, BLOCK)
        tl.store(y_ptr + row * n_cols + cols, tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols),
                 mask=cols < n_cols)


def reference(x):
    return x.clone()


SPEC = KernelSpec(name="row_copy", kernel=row_copy, description="y = x, rows pipelined",
                  tensors={"x": Tensor(("M", "N")), "y": Tensor(("M", "N"), output=True)},
                  args=lambda x, y, M, N: (x, y, M, N), grid=lambda shape, meta: (32,),
                  meta={"BLOCK": 256, "num_stages": 4}, default_shape={"M": 100, "N": 200},
                  reference=reference, cases=[{"M": 100, "N": 200}], quick_cases=[{"M": 100, "N": 200}])
