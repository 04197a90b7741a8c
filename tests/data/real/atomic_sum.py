"""A split reduction that accumulates with atomics into an output the autotuner zeroes (reset_to_zero)."""
import triton
import triton.language as tl

from playground.core.spec import KernelSpec, Tensor


@triton.autotune(configs=[triton.Config({"BLOCK": 128}), triton.Config({"BLOCK": 256})], key=["n"],
                 reset_to_zero=["total_ptr"])
@triton.jit
def atomic_sum(x_ptr, total_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.atomic_add(total_ptr, tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0), axis=0))


def reference(x):
    return x.sum().reshape(1)


SPEC = KernelSpec(name="atomic_sum", kernel=atomic_sum, description="total = sum(x), by atomics",
                  tensors={"x": Tensor(("N",)), "total": Tensor((1,), output=True)},
                  args=lambda x, total, N: (x, total, N),
                  grid=lambda shape, meta: (triton.cdiv(shape["N"], meta["BLOCK"]),),
                  meta={}, default_shape={"N": 1000}, reference=reference, reduction_dim="N",
                  cases=[{"N": 1000}], quick_cases=[{"N": 1000}])
